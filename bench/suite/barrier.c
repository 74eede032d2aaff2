/*
 * barrier.c — MPI_Barrier: slowest rank's average time per barrier in
 * microseconds (reported with size 0; --sizes is ignored).
 */
#include "suite.h"

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    (void)o, (void)size, (void)first;
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++)
        MPI_Barrier(MPI_COMM_WORLD);
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
    suite_init(&argc, &argv, "barrier", "0", 0, &o);
    o.sizes[0] = 0; /* a barrier has no payload: one point, whatever --sizes said */
    o.nsizes = 1;
    suite_sweep(&o, "barrier", "usec", kernel, usec_per_op);
    suite_finish();
    return 0;
}
