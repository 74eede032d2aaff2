/* mpi_rma_oplat — the latency of each single one-sided operation between
 * two ranks, reported as percentiles of the individual operations (not an
 * average): on a loaded machine an average is dominated by the few
 * operations during which a rank was off its CPU, the median of single
 * operations is what the operation costs.  Rank 0 runs ITERS times
 * op + MPI_Win_flush in a lock_all epoch on rank 1's window, timing each;
 * rank 1 waits in MPI_Barrier meanwhile (inside MPI, as in bench/mpi_rma.c).
 *   mpi_rma_oplat get|fop|cas|acc [ITERS]
 * Prints "op,p10,p50,p90,usec". */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    const char *op = argc > 1 ? argv[1] : "fop";
    long iters = argc > 2 ? atol(argv[2]) : 5000;
    int64_t *base;
    MPI_Win win;
    MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, 64);
    double *lat = calloc((size_t)iters, sizeof *lat);
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0 && n > 1) {
        int64_t one = 1, old = 0, cmpv = 0, got;
        MPI_Win_lock_all(0, win);
        for (long i = -iters / 10; i < iters; i++) { /* a tenth as warm-up */
            double t0 = now_us();
            if (!strcmp(op, "get"))
                MPI_Get(&got, 1, MPI_INT64_T, 1, 0, 1, MPI_INT64_T, win);
            else if (!strcmp(op, "cas"))
                MPI_Compare_and_swap(&one, &cmpv, &old, MPI_INT64_T, 1, 1, win);
            else if (!strcmp(op, "acc"))
                MPI_Accumulate(&one, 1, MPI_INT64_T, 1, 2, 1, MPI_INT64_T, MPI_SUM, win);
            else
                MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win);
            MPI_Win_flush(1, win);
            if (i >= 0)
                lat[i] = now_us() - t0;
        }
        MPI_Win_unlock_all(win);
        qsort(lat, (size_t)iters, sizeof *lat, cmp);
        printf("%s,%.2f,%.2f,%.2f,usec\n", op, lat[iters / 10], lat[iters / 2], lat[iters * 9 / 10]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(lat);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
