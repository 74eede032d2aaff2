/*
 * allreduce.c — MPI_Allreduce of MPI_INT with MPI_SUM (osu_allreduce style;
 * size = bytes = 4 x count): slowest rank's average time per call in
 * microseconds.
 * Fresh payload: each rank writes one int per 64-byte line of its send buffer
 * (rank + iteration) every iteration, and the first and last line of the
 * result are checked against the known sum; --static: neither.
 */
#include "suite.h"

#include <stdio.h>

#define INTS_PER_LINE 16

static int *sbuf, *rbuf;

static void check(const struct suite_opts *o, int count, long it)
{
    long n = o->nranks;
    int want = (int)(n * (n - 1) / 2 + n * (it & 0xffff));
    int last = (count - 1) / INTS_PER_LINE * INTS_PER_LINE;
    if (rbuf[0] != want || rbuf[last] != want) {
        fprintf(stderr, "allreduce: payload check failed: count %d iteration %ld: got %d/%d, want %d\n", count, it,
                rbuf[0], rbuf[last], want);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    int count = (int)(size / sizeof(int));
    double t0 = MPI_Wtime();
    for (long it = first; it < first + iters; it++) {
        if (!o->static_payload)
            for (int i = 0; i < count; i += INTS_PER_LINE)
                sbuf[i] = o->rank + (int)(it & 0xffff);
        MPI_Allreduce(sbuf, rbuf, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (!o->static_payload && count > 0)
            check(o, count, it);
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
    suite_init(&argc, &argv, "allreduce", "4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K,512K,1M", 0,
               &o);
    size_t max = 0;
    for (int i = 0; i < o.nsizes; i++) {
        if (o.sizes[i] % sizeof(int)) {
            if (o.rank == 0)
                fprintf(stderr, "allreduce: size %zu is not a multiple of %zu (MPI_INT elements)\n", o.sizes[i],
                        sizeof(int));
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        max = o.sizes[i] > max ? o.sizes[i] : max;
    }
    sbuf = suite_alloc(max);
    rbuf = suite_alloc(max);
    suite_sweep(&o, "allreduce", "usec", kernel, usec_per_op);
    suite_finish();
    return 0;
}
