/*
 * bcast.c — MPI_Bcast from rank 0 (osu_bcast / IMB Bcast style): slowest
 * rank's average time per broadcast in microseconds.
 * Fresh payload: the root stamps the buffer each iteration, every other rank
 * checks it; --static: neither.
 */
#include "suite.h"

static char *buf;

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    double t0 = MPI_Wtime();
    for (long it = first; it < first + iters; it++) {
        if (!o->static_payload && o->rank == 0)
            suite_stamp(buf, size, (uint64_t)it);
        MPI_Bcast(buf, (int)size, MPI_BYTE, 0, MPI_COMM_WORLD);
        if (!o->static_payload && o->rank != 0)
            suite_expect(buf, size, (uint64_t)it, "bcast", it);
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
    suite_init(&argc, &argv, "bcast", "1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K,512K,1M", 0,
               &o);
    size_t max = 0;
    for (int i = 0; i < o.nsizes; i++)
        max = o.sizes[i] > max ? o.sizes[i] : max;
    buf = suite_alloc(max);
    suite_sweep(&o, "bcast", "usec", kernel, usec_per_op);
    suite_finish();
    return 0;
}
