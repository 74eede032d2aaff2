/*
 * bw.c — streaming bandwidth (osu_bw style) and, with --bidir, bi-directional
 * bandwidth (osu_bibw style) between 2 ranks, in MB/s (10^6 bytes/s).
 * One iteration = a window of non-blocking sends (and receives on the other
 * side), then a tiny acknowledgement (bw) or nothing more (bibw).
 * Fresh payload (default): every message of the window has its own send and
 * receive slot, stamped before sending and checked after arrival; the window
 * shrinks for big messages so the slots fit SLOT_BYTES.  --static: one buffer
 * for all messages, never written (OSU).
 */
#include "suite.h"

#include <string.h>

#define TAG 2
#define TAG_ACK 3
#define WINDOW 64
#define SLOT_BYTES (16u << 20)

static char *sbuf, *rbuf;
static int bidir;
static MPI_Request req[2 * WINDOW];
static MPI_Status status[2 * WINDOW]; /* not MPI_STATUSES_IGNORE: gcc flags MPICH's (MPI_Status *)1 */

static int window_for(size_t size)
{
    size_t w = size ? SLOT_BYTES / size : WINDOW;
    return w >= WINDOW ? WINDOW : w < 1 ? 1 : (int)w;
}

static size_t slot(const struct suite_opts *o, size_t size, int k)
{
    return o->static_payload ? 0 : (size_t)k * size;
}

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    int peer = 1 - o->rank, w = window_for(size);
    int sends = bidir || o->rank == 0, recvs = bidir || o->rank == 1;
    double t0 = MPI_Wtime();
    for (long it = first; it < first + iters; it++) {
        int nreq = 0;
        uint64_t mine = 2 * (uint64_t)it + (uint64_t)o->rank, theirs = 2 * (uint64_t)it + (uint64_t)peer;
        for (int k = 0; recvs && k < w; k++)
            MPI_Irecv(rbuf + slot(o, size, k), (int)size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &req[nreq++]);
        for (int k = 0; sends && k < w; k++) {
            if (!o->static_payload)
                suite_stamp(sbuf + slot(o, size, k), size, mine);
            MPI_Isend(sbuf + slot(o, size, k), (int)size, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &req[nreq++]);
        }
        MPI_Waitall(nreq, req, status);
        for (int k = 0; recvs && !o->static_payload && k < w; k++)
            suite_expect(rbuf + slot(o, size, k), size, theirs, bidir ? "bibw" : "bw", it);
        if (!bidir) {
            char ack = 0;
            if (o->rank == 1)
                MPI_Send(&ack, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD);
            else
                MPI_Recv(&ack, 1, MPI_BYTE, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    }
    return MPI_Wtime() - t0;
}

static double mbytes_per_sec(const struct suite_opts *o, size_t size, long iters, double sec)
{
    (void)o;
    double bytes = (double)size * window_for(size) * iters * (bidir ? 2 : 1);
    return bytes / sec / 1e6;
}

int main(int argc, char **argv)
{
    /* --bidir is ours; strip it before the common parser sees the rest. */
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--bidir")) {
            bidir = 1;
            memmove(&argv[i], &argv[i + 1], (size_t)(argc - i) * sizeof *argv);
            argc--;
            break;
        }
    const char *name = bidir ? "bibw" : "bw";
    struct suite_opts o;
    suite_init(&argc, &argv, name, "1,2,4,8,16,32,64,128,256,512,1K,2K,4K,8K,16K,32K,64K,128K,256K,512K,1M,2M,4M",
               2, &o);
    size_t need = 0;
    for (int i = 0; i < o.nsizes; i++) {
        size_t s = o.static_payload ? o.sizes[i] : o.sizes[i] * (size_t)window_for(o.sizes[i]);
        need = s > need ? s : need;
    }
    sbuf = suite_alloc(need);
    rbuf = suite_alloc(need);
    suite_sweep(&o, name, "MB/s", kernel, mbytes_per_sec);
    suite_finish();
    return 0;
}
