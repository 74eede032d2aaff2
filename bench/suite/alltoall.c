/*
 * alltoall.c — MPI_Alltoall of `size` bytes per pair of ranks (osu_alltoall
 * style): slowest rank's average time per call in microseconds.
 * Fresh payload: every block of the send buffer is stamped with (iteration,
 * sender) each iteration and every received block is checked; --static:
 * neither.
 */
#include "suite.h"

static char *sbuf, *rbuf;

static uint64_t stamp_of(long it, int sender)
{
    return (uint64_t)it << 16 | (uint64_t)sender;
}

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    double t0 = MPI_Wtime();
    for (long it = first; it < first + iters; it++) {
        for (int j = 0; !o->static_payload && j < o->nranks; j++)
            suite_stamp(sbuf + (size_t)j * size, size, stamp_of(it, o->rank));
        MPI_Alltoall(sbuf, (int)size, MPI_BYTE, rbuf, (int)size, MPI_BYTE, MPI_COMM_WORLD);
        for (int j = 0; !o->static_payload && j < o->nranks; j++)
            suite_expect(rbuf + (size_t)j * size, size, stamp_of(it, j), "alltoall", it);
    }
    return MPI_Wtime() - t0;
}

static double usec_per_op(const struct suite_opts *o, size_t size, long iters, double sec)
{
    (void)o, (void)size;
    return sec / iters * 1e6;
}

int main(int argc, char **argv)
{
    struct suite_opts o;
    suite_init(&argc, &argv, "alltoall", "1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K", 0, &o);
    size_t max = 0;
    for (int i = 0; i < o.nsizes; i++)
        max = o.sizes[i] > max ? o.sizes[i] : max;
    sbuf = suite_alloc(max * (size_t)o.nranks);
    rbuf = suite_alloc(max * (size_t)o.nranks);
    suite_sweep(&o, "alltoall", "usec", kernel, usec_per_op);
    suite_finish();
    return 0;
}
