/*
 * mmsgrate.c — multi-pair message rate (osu_mbw_mr style): rank i of the
 * first half sends a window of non-blocking messages to rank i + P/2, which
 * acknowledges each window; aggregate millions of messages per second over
 * all pairs.  With an odd rank count the last rank sits out.
 * Fresh payload: every window slot is stamped before sending and checked on
 * arrival; --static: one buffer, never written.
 */
#include "suite.h"

#include <stdio.h>

#define TAG 6
#define TAG_ACK 7
#define WINDOW 64

static char *sbuf, *rbuf;
static MPI_Request req[WINDOW];
static MPI_Status status[WINDOW]; /* not MPI_STATUSES_IGNORE: gcc flags MPICH's (MPI_Status *)1 */

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    int pairs = o->nranks / 2;
    if (o->rank >= 2 * pairs)
        return 0.0;
    int sender = o->rank < pairs, peer = sender ? o->rank + pairs : o->rank - pairs;
    int pair = sender ? o->rank : peer;
    char ack = 0;
    double t0 = MPI_Wtime();
    for (long it = first; it < first + iters; it++) {
        uint64_t stamp = (uint64_t)it << 16 | (uint64_t)pair;
        for (int k = 0; k < WINDOW; k++) {
            size_t at = o->static_payload ? 0 : (size_t)k * size;
            if (sender) {
                if (!o->static_payload)
                    suite_stamp(sbuf + at, size, stamp);
                MPI_Isend(sbuf + at, (int)size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &req[k]);
            } else {
                MPI_Irecv(rbuf + at, (int)size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &req[k]);
            }
        }
        MPI_Waitall(WINDOW, req, status);
        if (sender) {
            MPI_Recv(&ack, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int k = 0; !o->static_payload && k < WINDOW; k++)
                suite_expect(rbuf + (size_t)k * size, size, stamp, "mmsgrate", it);
            MPI_Send(&ack, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

static double mmsg_per_sec(const struct suite_opts *o, size_t size, long iters, double sec)
{
    (void)size;
    return (double)(o->nranks / 2) * WINDOW * iters / sec / 1e6;
}

int main(int argc, char **argv)
{
    struct suite_opts o;
    suite_init(&argc, &argv, "mmsgrate", "0,1,8,64,512,4K,32K", 0, &o);
    if (o.nranks < 2) {
        if (o.rank == 0)
            printf("# mmsgrate: needs at least 2 ranks, got %d; nothing measured\n", o.nranks);
        suite_finish();
        return 0;
    }
    size_t max = 0;
    for (int i = 0; i < o.nsizes; i++)
        max = o.sizes[i] > max ? o.sizes[i] : max;
    sbuf = suite_alloc(max * WINDOW);
    rbuf = suite_alloc(max * WINDOW);
    suite_sweep(&o, "mmsgrate", "Mmsg/s", kernel, mmsg_per_sec);
    suite_finish();
    return 0;
}
