/*
 * msgrate.c — SkifCh's MsgRate test: rank 0 only sends, rank 1 only receives,
 * blocking MPI_Send/MPI_Recv back to back; messages per second (millions) by
 * size.  It measures the per-message cost of the small-message fast path,
 * with flow control left to the library (no application-level window).
 * Fresh payload: each message is stamped before sending and checked on
 * arrival; --static: neither.
 */
#include "suite.h"

#define TAG 4
#define TAG_ACK 5

static char *buf;

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    char ack = 0;
    double t0 = MPI_Wtime();
    if (o->rank == 0) {
        for (long it = first; it < first + iters; it++) {
            if (!o->static_payload)
                suite_stamp(buf, size, (uint64_t)it);
            MPI_Send(buf, (int)size, MPI_BYTE, 1, TAG, MPI_COMM_WORLD);
        }
        MPI_Recv(&ack, 1, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
        for (long it = first; it < first + iters; it++) {
            MPI_Recv(buf, (int)size, MPI_BYTE, 0, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (!o->static_payload)
                suite_expect(buf, size, (uint64_t)it, "msgrate", it);
        }
        MPI_Send(&ack, 1, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
    }
    return MPI_Wtime() - t0;
}

static double mmsg_per_sec(const struct suite_opts *o, size_t size, long iters, double sec)
{
    (void)o, (void)size;
    return iters / sec / 1e6;
}

int main(int argc, char **argv)
{
    struct suite_opts o;
    suite_init(&argc, &argv, "msgrate", "0,1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K", 2, &o);
    size_t max = 0;
    for (int i = 0; i < o.nsizes; i++)
        max = o.sizes[i] > max ? o.sizes[i] : max;
    buf = suite_alloc(max);
    suite_sweep(&o, "msgrate", "Mmsg/s", kernel, mmsg_per_sec);
    suite_finish();
    return 0;
}
