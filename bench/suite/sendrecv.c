/*
 * sendrecv.c — IMB-style SendRecv: all ranks form a ring; each iteration every
 * rank does one MPI_Sendrecv to its right neighbour while receiving from its
 * left one.  Reports the slowest rank's time per MPI_Sendrecv in microseconds.
 * Fresh payload: the send buffer is stamped each iteration and the received
 * block checked; --static: neither.
 */
#include "suite.h"

#define TAG 8

static char *sbuf, *rbuf;

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    int right = (o->rank + 1) % o->nranks, left = (o->rank + o->nranks - 1) % o->nranks;
    double t0 = MPI_Wtime();
    for (long it = first; it < first + iters; it++) {
        if (!o->static_payload)
            suite_stamp(sbuf, size, (uint64_t)it << 16 | (uint64_t)o->rank);
        MPI_Sendrecv(sbuf, (int)size, MPI_BYTE, right, TAG, rbuf, (int)size, MPI_BYTE, left, TAG, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (!o->static_payload)
            suite_expect(rbuf, size, (uint64_t)it << 16 | (uint64_t)left, "sendrecv", it);
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
    suite_init(&argc, &argv, "sendrecv", "0,1,4,16,64,256,1K,4K,16K,64K,256K,1M,4M", 0, &o);
    size_t max = 0;
    for (int i = 0; i < o.nsizes; i++)
        max = o.sizes[i] > max ? o.sizes[i] : max;
    sbuf = suite_alloc(max);
    rbuf = suite_alloc(max);
    suite_sweep(&o, "sendrecv", "usec", kernel, usec_per_op);
    suite_finish();
    return 0;
}
