/*
 * latency.c — ping-pong latency between 2 ranks (ULFM/IPUSH ping-pong, IMB
 * PingPong, osu_latency): half the round-trip time, in microseconds.
 * Fresh payload (default): one buffer for send and receive, and each side
 * stamps every cache line before sending, so every message carries new data;
 * --static: separate buffers never written, as OSU does.
 */
#include "suite.h"

#define TAG 1

static char *sbuf, *rbuf;

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    int peer = 1 - o->rank;
    double t0 = MPI_Wtime();
    for (long it = first; it < first + iters; it++) {
        if (o->rank == 0) {
            if (!o->static_payload)
                suite_stamp(sbuf, size, 2 * (uint64_t)it);
            MPI_Send(sbuf, (int)size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
            MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (!o->static_payload)
                suite_expect(rbuf, size, 2 * (uint64_t)it + 1, "latency", it);
        } else {
            MPI_Recv(rbuf, (int)size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (!o->static_payload) {
                suite_expect(rbuf, size, 2 * (uint64_t)it, "latency", it);
                suite_stamp(sbuf, size, 2 * (uint64_t)it + 1);
            }
            MPI_Send(sbuf, (int)size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
        }
    }
    return MPI_Wtime() - t0;
}

static double half_round_trip_us(const struct suite_opts *o, size_t size, long iters, double sec)
{
    (void)o, (void)size;
    return sec / iters / 2 * 1e6;
}

int main(int argc, char **argv)
{
    struct suite_opts o;
    suite_init(&argc, &argv, "latency", "0,1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K,512K,1M,2M,4M",
               2, &o);
    size_t max = 0;
    for (int i = 0; i < o.nsizes; i++)
        max = o.sizes[i] > max ? o.sizes[i] : max;
    rbuf = suite_alloc(max);
    sbuf = o.static_payload ? suite_alloc(max) : rbuf; /* fresh: what arrives is what goes back */
    suite_sweep(&o, "latency", "usec", kernel, half_round_trip_us);
    suite_finish();
    return 0;
}
