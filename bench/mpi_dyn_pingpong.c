/*
 * mpi_dyn_pingpong — 8-byte ping-pong between a parent and a child it spawned
 * (over the intercommunicator, so between two jobs: docs/dynamic-processes.md).
 * Plain MPI: builds with any mpicc.
 *
 *   mpicc -O2 -o mpi_dyn_pingpong bench/mpi_dyn_pingpong.c
 *   ./mpi_dyn_pingpong [iterations]     (or under skiffrun -n 1)
 *
 * Prints the median of 5 runs of the one-way latency (round trip / 2) in us,
 * then what the parent's MPI_Recv costs while the child computes for 1 s
 * before it answers: voluntary context switches (sleeps and wake-ups) and CPU
 * time (getrusage), numbers a loaded machine does not blur.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int iters = argc > 1 ? atoi(argv[1]) : 2000;
    MPI_Comm parent, inter;
    MPI_Comm_get_parent(&parent);
    int child = parent != MPI_COMM_NULL;
    char *args[] = {argv[1] ? argv[1] : "2000", NULL};
    if (!child)
        MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                       MPI_ERRCODES_IGNORE);
    else
        inter = parent;
    char buf[8] = {0};
    double runs[5];
    for (int r = 0; r < 5; r++) {
        for (int i = -iters / 10; i < iters; i++) { /* first tenth: warm-up */
            double t0 = i == 0 ? MPI_Wtime() : 0;
            if (i == 0)
                runs[r] = t0;
            if (!child) {
                MPI_Send(buf, 8, MPI_CHAR, 0, 1, inter);
                MPI_Recv(buf, 8, MPI_CHAR, 0, 1, inter, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, 8, MPI_CHAR, 0, 1, inter, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_CHAR, 0, 1, inter);
            }
        }
        runs[r] = (MPI_Wtime() - runs[r]) / iters / 2 * 1e6;
    }
    qsort(runs, 5, sizeof runs[0], cmp);
    /* an idle wait: the child is busy for 1 s (outside MPI) before it sends */
    struct rusage u0, u1;
    double w0 = MPI_Wtime();
    getrusage(RUSAGE_SELF, &u0);
    if (!child) {
        MPI_Recv(buf, 8, MPI_CHAR, 0, 2, inter, MPI_STATUS_IGNORE);
    } else {
        struct timespec ts = {1, 0};
        nanosleep(&ts, NULL);
        MPI_Send(buf, 8, MPI_CHAR, 0, 2, inter);
    }
    getrusage(RUSAGE_SELF, &u1);
    w0 = MPI_Wtime() - w0;
    if (!child)
        printf("parent<->child 8-byte one-way latency: %.2f us (median of 5 x %d); a 1 s "
               "wait for the child (%.2f s): %ld voluntary context switches, %.1f ms CPU\n",
               runs[2], iters, w0, u1.ru_nvcsw - u0.ru_nvcsw,
               (u1.ru_utime.tv_sec - u0.ru_utime.tv_sec + u1.ru_stime.tv_sec -
                u0.ru_stime.tv_sec) * 1e3 +
                   (u1.ru_utime.tv_usec - u0.ru_utime.tv_usec + u1.ru_stime.tv_usec -
                    u0.ru_stime.tv_usec) / 1e3);
    MPI_Comm_disconnect(&inter);
    MPI_Finalize();
    return 0;
}
