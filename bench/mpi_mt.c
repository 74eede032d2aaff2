/*
 * mpi_mt — multithreaded point-to-point benchmarks (2 ranks), one plain-MPI
 * source for Skiff's mpicc, mpicc.mpich and mpicc.openmpi.
 *
 *   mpi_mt latency [--threads N] [--size S] [--iters I] [--level single|multiple]
 *   mpi_mt rate    [--threads N] [--size S] [--iters I]
 *
 * latency  OSU latency_mt style: N thread pairs (thread t of rank 0 with
 *          thread t of rank 1) ping-pong S bytes on MPI_COMM_WORLD, tag t,
 *          all at once; half round trip averaged over all threads (us).
 *          --level single (only with 1 thread): MPI_Init_thread asks
 *          MPI_THREAD_SINGLE, the baseline of the MULTIPLE overhead.
 * rate     N threads per rank, each on its own communicator (MPI_Comm_dup):
 *          rank 0's thread sends windows of 64 MPI_Isend of S bytes, rank 1's
 *          thread receives them (MPI_Irecv + Waitall) and answers each window
 *          with a 4-byte ack; aggregate rate of all threads (Mmsg/s).
 * Output from rank 0: "mode,threads,size,value,unit".
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64

static int me, nthreads = 1;
static long size = 8, iters;
static MPI_Comm *comms;
static pthread_barrier_t bar;
static double *elapsed; /* [nthreads] */

static void *latency_thread(void *arg)
{
    int t = (int)(long)arg;
    char *buf = calloc(1, size > 0 ? (size_t)size : 1);
    long warm = iters / 10 + 10;
    for (int phase = 0; phase < 2; phase++) {
        long n = phase ? iters : warm;
        pthread_barrier_wait(&bar);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            if (me == 0) {
                MPI_Send(buf, (int)size, MPI_CHAR, 1, t, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)size, MPI_CHAR, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, (int)size, MPI_CHAR, 0, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)size, MPI_CHAR, 0, t, MPI_COMM_WORLD);
            }
        }
        elapsed[t] = (MPI_Wtime() - t0) / (double)n / 2 * 1e6;
    }
    free(buf);
    return NULL;
}

static void *rate_thread(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = comms[t];
    char *buf = calloc(WINDOW, size > 0 ? (size_t)size : 1);
    MPI_Request rq[WINDOW];
    int ack = 0;
    long warm = iters / 10 + 2;
    for (int phase = 0; phase < 2; phase++) {
        long n = phase ? iters : warm;
        pthread_barrier_wait(&bar);
        double t0 = MPI_Wtime();
        for (long i = 0; i < n; i++) {
            for (int k = 0; k < WINDOW; k++) {
                char *b = buf + (size_t)k * (size_t)size;
                if (me == 0)
                    MPI_Isend(b, (int)size, MPI_CHAR, 1, 1, c, &rq[k]);
                else
                    MPI_Irecv(b, (int)size, MPI_CHAR, 0, 1, c, &rq[k]);
            }
            MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
            if (me == 0)
                MPI_Recv(&ack, 1, MPI_INT, 1, 2, c, MPI_STATUS_IGNORE);
            else
                MPI_Send(&ack, 1, MPI_INT, 0, 2, c);
        }
        elapsed[t] = MPI_Wtime() - t0;
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "latency", *level = "multiple";
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads"))
            nthreads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--size"))
            size = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--iters"))
            iters = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--level"))
            level = argv[i + 1];
    }
    int single = !strcmp(level, "single");
    if (nthreads < 1 || nthreads > 64 || (single && nthreads != 1) ||
        (strcmp(mode, "latency") && strcmp(mode, "rate"))) {
        fprintf(stderr, "usage: mpi_mt latency|rate [--threads N] [--size S] [--iters I] "
                        "[--level single|multiple] (single: 1 thread only)\n");
        return 2;
    }
    int provided;
    MPI_Init_thread(&argc, &argv, single ? MPI_THREAD_SINGLE : MPI_THREAD_MULTIPLE, &provided);
    int np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np != 2 || (!single && provided != MPI_THREAD_MULTIPLE)) {
        if (me == 0)
            fprintf(stderr, "mpi_mt: needs 2 ranks and MPI_THREAD_MULTIPLE (provided %d)\n",
                    provided);
        MPI_Finalize();
        return 1;
    }
    int lat = !strcmp(mode, "latency");
    if (!iters)
        iters = lat ? 20000 : 2000;
    comms = malloc((size_t)nthreads * sizeof *comms);
    elapsed = calloc((size_t)nthreads, sizeof *elapsed);
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_barrier_init(&bar, NULL, (unsigned)nthreads);
    MPI_Barrier(MPI_COMM_WORLD);
    if (single) {
        latency_thread(NULL); /* the main thread itself: no other thread exists */
    } else {
        pthread_t th[64];
        for (long t = 0; t < nthreads; t++)
            pthread_create(&th[t], NULL, lat ? latency_thread : rate_thread, (void *)t);
        for (int t = 0; t < nthreads; t++)
            pthread_join(th[t], NULL);
    }
    if (me == 0) {
        double v = 0;
        if (lat) {
            for (int t = 0; t < nthreads; t++)
                v += elapsed[t] / nthreads;
            printf("latency%s,%d,%ld,%.3f,us\n", single ? "_single" : "", nthreads, size, v);
        } else {
            for (int t = 0; t < nthreads; t++) /* the slowest thread bounds the aggregate */
                v = elapsed[t] > v ? elapsed[t] : v;
            printf("rate,%d,%ld,%.3f,Mmsg/s\n", nthreads, size,
                   (double)nthreads * (double)iters * WINDOW / v / 1e6);
        }
    }
    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&comms[t]);
    pthread_barrier_destroy(&bar);
    free(comms);
    free(elapsed);
    MPI_Finalize();
    return 0;
}
