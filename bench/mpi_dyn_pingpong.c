/*
 * mpi_dyn_pingpong — 8-byte ping-pong and 1 MiB bandwidth between two
 * processes of different jobs (docs/dynamic-processes.md), or of one job to
 * compare.  Plain MPI: builds with any mpicc.
 *
 *   mpicc -O2 -o mpi_dyn_pingpong bench/mpi_dyn_pingpong.c
 *   ./mpi_dyn_pingpong [iterations]            a parent and the child it spawns
 *   ./mpi_dyn_pingpong N server & ./mpi_dyn_pingpong N client
 *                                              two separately started jobs (a
 *                                              port under the name service)
 *   skiffrun -n 2 ./mpi_dyn_pingpong N world   two ranks of one job
 *
 * Prints the median of 5 runs of the one-way latency (round trip / 2) in us
 * and of the 1 MiB streaming bandwidth (32 messages, 8 in flight, then a
 * 1-byte answer) in MB/s; then (not for world) what the first side's
 * MPI_Recv costs while the other computes for 1 s before it answers:
 * voluntary context switches (sleeps and wake-ups) and CPU time (getrusage),
 * numbers a loaded machine does not blur.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
    const char *mode = argc > 2 ? argv[2] : "spawn";
    MPI_Comm parent, inter = MPI_COMM_WORLD;
    int first = 1, peer = 0, world = strcmp(mode, "world") == 0;
    char port[MPI_MAX_PORT_NAME];
    if (world) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        first = rank == 0;
        peer = !rank;
    } else if (strcmp(mode, "server") == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name("skiff-dyn-bench", MPI_INFO_NULL, port);
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        MPI_Unpublish_name("skiff-dyn-bench", MPI_INFO_NULL, port);
    } else if (strcmp(mode, "client") == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        while (MPI_Lookup_name("skiff-dyn-bench", MPI_INFO_NULL, port) != MPI_SUCCESS)
            usleep(20000);
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        first = 0;
    } else {
        MPI_Comm_get_parent(&parent);
        first = parent == MPI_COMM_NULL;
        char *args[] = {argv[1] ? argv[1] : "2000", NULL};
        if (first)
            MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                           MPI_ERRCODES_IGNORE);
        else
            inter = parent;
    }
    int child = !first;
    char buf[8] = {0};
    double runs[5], bw[5];
    enum { BIG = 1 << 20, NBIG = 32, WIN = 8 };
    char *big = calloc(WIN, BIG);
    MPI_Request reqs[WIN];
    for (int r = 0; r < 5; r++) {
        MPI_Barrier(inter);
        double t0 = MPI_Wtime();
        for (int m = 0; m < NBIG; m += WIN) {
            for (int k = 0; k < WIN; k++)
                if (first)
                    MPI_Isend(big + (size_t)k * BIG, BIG, MPI_CHAR, peer, 3, inter, &reqs[k]);
                else
                    MPI_Irecv(big + (size_t)k * BIG, BIG, MPI_CHAR, peer, 3, inter, &reqs[k]);
            MPI_Waitall(WIN, reqs, MPI_STATUSES_IGNORE);
        }
        if (first)
            MPI_Recv(buf, 1, MPI_CHAR, peer, 4, inter, MPI_STATUS_IGNORE);
        else
            MPI_Send(buf, 1, MPI_CHAR, peer, 4, inter);
        bw[r] = (double)NBIG * BIG / (MPI_Wtime() - t0) / 1e6;
    }
    free(big);
    qsort(bw, 5, sizeof bw[0], cmp);
    for (int r = 0; r < 5; r++) {
        for (int i = -iters / 10; i < iters; i++) { /* first tenth: warm-up */
            double t0 = i == 0 ? MPI_Wtime() : 0;
            if (i == 0)
                runs[r] = t0;
            if (!child) {
                MPI_Send(buf, 8, MPI_CHAR, peer, 1, inter);
                MPI_Recv(buf, 8, MPI_CHAR, peer, 1, inter, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, 8, MPI_CHAR, peer, 1, inter, MPI_STATUS_IGNORE);
                MPI_Send(buf, 8, MPI_CHAR, peer, 1, inter);
            }
        }
        runs[r] = (MPI_Wtime() - runs[r]) / iters / 2 * 1e6;
    }
    qsort(runs, 5, sizeof runs[0], cmp);
    if (first)
        printf("%s: 8-byte one-way latency %.2f us (median of 5 x %d), 1 MiB bandwidth %.0f MB/s "
               "(median of 5)\n", mode, runs[2], iters, bw[2]);
    if (world) {
        MPI_Finalize();
        return 0;
    }
    /* an idle wait: the other side is busy for 1 s (outside MPI) before it sends */
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
        printf("%s: a 1 s wait for the other job (%.2f s): %ld voluntary context switches, "
               "%.1f ms CPU\n", mode, w0, u1.ru_nvcsw - u0.ru_nvcsw,
               (u1.ru_utime.tv_sec - u0.ru_utime.tv_sec + u1.ru_stime.tv_sec -
                u0.ru_stime.tv_sec) * 1e3 +
                   (u1.ru_utime.tv_usec - u0.ru_utime.tv_usec + u1.ru_stime.tv_usec -
                    u0.ru_stime.tv_usec) / 1e3);
    MPI_Comm_disconnect(&inter);
    if (strcmp(mode, "server") == 0)
        MPI_Close_port(port);
    MPI_Finalize();
    return 0;
}
