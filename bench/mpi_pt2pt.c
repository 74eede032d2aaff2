/*
 * mpi_pt2pt — point-to-point MPI benchmarks in one plain-MPI source that
 * compiles unchanged with mpicc.mpich, mpicc.openmpi and Skiff's mpicc.
 *
 *   mpi_pt2pt latency|bw|bibw|msgrate [--sizes a,b,...] [--iters N] [--window W]  (2 ranks)
 *   mpi_pt2pt tokenring [--iters LAPS]                                (any ranks)
 *
 * latency  ping-pong, half round trip (us)
 * bw       rank 0 sends windows of 64 MPI_Isend, rank 1 answers each window
 *          with a 4-byte ack (MB/s, 1e6 bytes/s); --window 1: one message
 *          at a time (huge sizes: one 256 MiB send, then the ack)
 * bibw     both ranks send and receive windows of 64 at once (MB/s, both ways)
 * msgrate  SkifCh's MsgRate: rank 0 a loop of blocking MPI_Send, rank 1 a
 *          loop of MPI_Recv, one ack at the end (Mmsg/s)
 * tokenring an 8-byte token goes around all ranks (us per hop): the
 *          oversubscription probe
 * Buffers are allocated once and not rewritten (OSU style; see
 * /work/shared/baselines.md on what that means at 16 KiB-1 MiB).
 * BENCH_PIN=1 in the environment binds rank r to CPU r.
 * Output: "bench,size,value,unit" per size, from rank 0.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WINDOW 64 /* messages in flight in bw/bibw (--window: fewer) */
#define MAX_SIZE (1L << 30) /* buffers are as large as the largest size asked for */

static long iters_for(const char *mode, long size, long fixed)
{
    if (fixed > 0)
        return fixed;
    double budget = !strcmp(mode, "latency") ? 1e8 : !strcmp(mode, "msgrate") ? 4e8 : 4e9;
    long n = (long)(budget / (double)(size + 256));
    if (strcmp(mode, "latency") && strcmp(mode, "msgrate"))
        n /= WINDOW;
    long lo = !strcmp(mode, "msgrate") ? 10000 : 20, hi = !strcmp(mode, "msgrate") ? 2000000 : 100000;
    return n < lo ? lo : n > hi ? hi : n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "latency";
    char sizes[512] = "0,1,8,64,512,1024,4096,8192,16384,65536,262144,1048576,4194304";
    long fixed = 0;
    int window = WINDOW;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            snprintf(sizes, sizeof sizes, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            fixed = atol(argv[++i]);
        else if (!strcmp(argv[i], "--window") && i + 1 < argc)
            window = atoi(argv[++i]);
    }
    if (!strcmp(mode, "tokenring")) {
        long laps = fixed > 0 ? fixed : 20000;
        char tok[8] = {0};
        double t0 = 0;
        for (long lap = -laps / 10; lap < laps; lap++) {
            if (lap == 0)
                t0 = MPI_Wtime();
            if (me == 0)
                MPI_Send(tok, 8, MPI_CHAR, (me + 1) % np, 7, MPI_COMM_WORLD);
            MPI_Recv(tok, 8, MPI_CHAR, (me + np - 1) % np, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (me != 0)
                MPI_Send(tok, 8, MPI_CHAR, (me + 1) % np, 7, MPI_COMM_WORLD);
        }
        if (me == 0)
            printf("tokenring_np%d,8,%.3f,us/hop\n", np, (MPI_Wtime() - t0) * 1e6 / ((double)laps * np));
        MPI_Finalize();
        return 0;
    }
    if (window < 1 || window > WINDOW)
        window = WINDOW;
    if (np != 2 || (strcmp(mode, "latency") && strcmp(mode, "bw") && strcmp(mode, "bibw") &&
                    strcmp(mode, "msgrate"))) {
        if (me == 0)
            fprintf(stderr, "usage (2 ranks): mpi_pt2pt latency|bw|bibw|msgrate [--sizes a,b] [--iters N] [--window W]\n");
        MPI_Finalize();
        return 2;
    }
    const char *pin = getenv("BENCH_PIN");
    if (pin && atoi(pin)) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(me, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    long largest = 1;
    for (const char *p = sizes; *p; p += strcspn(p, ","), p += *p == ',') {
        long size = atol(p);
        largest = size > largest && size <= MAX_SIZE ? size : largest;
    }
    char *sbuf = malloc((size_t)largest), *rbuf = malloc((size_t)largest);
    if (!sbuf || !rbuf) {
        fprintf(stderr, "mpi_pt2pt: out of memory for two %ld-byte buffers\n", largest);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(sbuf, 'a', (size_t)largest);
    memset(rbuf, 'b', (size_t)largest);
    MPI_Request req[2 * WINDOW];
    int peer = 1 - me, ack = 0;
    for (char *tok = strtok(sizes, ","); tok; tok = strtok(NULL, ",")) {
        long size = atol(tok);
        if (size < 0 || size > MAX_SIZE)
            continue;
        int n = (int)size;
        long iters = iters_for(mode, size, fixed), warm = iters / 10 + 2;
        double t0 = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = -warm; i < iters; i++) {
            if (i == 0) {
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
            }
            if (!strcmp(mode, "latency")) {
                if (me == 0) {
                    MPI_Send(sbuf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                    MPI_Recv(rbuf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(rbuf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(sbuf, n, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
                }
            } else if (!strcmp(mode, "bw")) {
                for (int w = 0; w < window; w++) {
                    if (me == 0)
                        MPI_Isend(sbuf, n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[w]);
                    else
                        MPI_Irecv(rbuf, n, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &req[w]);
                }
                MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
                if (me == 0)
                    MPI_Recv(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_INT, peer, 3, MPI_COMM_WORLD);
            } else if (!strcmp(mode, "bibw")) {
                for (int w = 0; w < window; w++) {
                    MPI_Irecv(rbuf, n, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &req[w]);
                    MPI_Isend(sbuf, n, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &req[window + w]);
                }
                MPI_Waitall(2 * window, req, MPI_STATUSES_IGNORE);
            } else { /* msgrate: one long one-way stream, acknowledged at the end */
                if (i != 0 && i != -warm)
                    continue;
                long count = i == 0 ? iters : warm;
                for (long k = 0; k < count; k++) {
                    if (me == 0)
                        MPI_Send(sbuf, n, MPI_CHAR, peer, 5, MPI_COMM_WORLD);
                    else
                        MPI_Recv(rbuf, n, MPI_CHAR, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                }
                if (me == 0)
                    MPI_Recv(&ack, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                else
                    MPI_Send(&ack, 1, MPI_INT, peer, 6, MPI_COMM_WORLD);
            }
        }
        double t = MPI_Wtime() - t0;
        if (me == 0) {
            if (!strcmp(mode, "latency"))
                printf("latency,%ld,%.3f,us\n", size, t * 1e6 / (2.0 * (double)iters));
            else if (!strcmp(mode, "bw"))
                printf("bw,%ld,%.1f,MB/s\n", size, (double)size * window * (double)iters / t / 1e6);
            else if (!strcmp(mode, "bibw"))
                printf("bibw,%ld,%.1f,MB/s\n", size, 2.0 * (double)size * window * (double)iters / t / 1e6);
            else
                printf("msgrate,%ld,%.3f,Mmsg/s\n", size, (double)iters / t / 1e6);
            fflush(stdout);
        }
    }
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
