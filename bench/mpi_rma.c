/*
 * mpi_rma — one-sided (MPI-3 RMA) benchmarks in one plain-MPI source that
 * compiles unchanged with Skiff's mpicc, MPICH's and Open MPI's.  Built with
 * bench/suite/suite.c (the side-by-side suite's driver: time-budgeted size
 * sweep, "@ bench size ranks metric value" lines), on 2 ranks, always on a
 * window from MPI_Win_allocate.  Rank 0 is the origin, rank 1 the target;
 * in passive-target modes rank 1 waits inside MPI (the driver's bookkeeping
 * receive), as in the OSU one-sided benchmarks.
 *
 *   mpi_rma MODE [--sizes a,b,...] [--time SEC]
 *
 * MODE           what one iteration is                        metric
 * put_lat        MPI_Put of SIZE bytes + MPI_Win_flush         usec
 * get_lat        MPI_Get of SIZE bytes + MPI_Win_flush         usec
 * put_bw         64 MPI_Put of SIZE bytes, then one flush      MB/s (10^6)
 * get_bw         64 MPI_Get of SIZE bytes, then one flush      MB/s
 * acc_lat        MPI_Accumulate(SUM) of SIZE/8 doubles + flush usec
 * fop_lat        MPI_Fetch_and_op(SUM) on an int64 + flush     usec (SIZE ignored: 8)
 * cas_lat        MPI_Compare_and_swap on an int64 + flush      usec (SIZE ignored: 8)
 * fence_lat      rank 0 puts SIZE bytes, both MPI_Win_fence    usec per epoch
 * pscw_lat       rank 0 start/put SIZE bytes/complete, rank 1  usec per epoch
 *                post/wait
 * The passive modes run inside one MPI_Win_lock_all epoch.  At the end the
 * target's window (put), the origin's buffer (get) or the counter
 * (fetch_and_op) is checked: a run that moved wrong data reports no number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"

#define WINDOW 64

enum mode { PUT_LAT, GET_LAT, PUT_BW, GET_BW, ACC_LAT, FOP_LAT, CAS_LAT, FENCE_LAT, PSCW_LAT, NMODES };
static const char *const mode_name[NMODES] = {"put_lat", "get_lat", "put_bw", "get_bw", "acc_lat",
                                              "fop_lat", "cas_lat", "fence_lat", "pscw_lat"};
static const char *const default_sizes[NMODES] = {
    "8,64,512,4K,32K,256K,1M", "8,64,512,4K,32K,256K,1M", "8,64,512,4K,32K,256K,1M",
    "8,64,512,4K,32K,256K,1M", "8,64,512,4K,32K", "8", "8", "8", "8"};

static enum mode mode;
static MPI_Win win;
static MPI_Group peer_group;
static char *winmem, *buf;   /* window memory, origin buffer */
static long long fops;       /* fetch_and_ops rank 0 issued */

static double kernel(const struct suite_opts *o, size_t size, long first, long iters)
{
    (void)first;
    int me = o->rank, n = (int)size;
    int passive = mode <= CAS_LAT;
    if (passive && me != 0)
        return 0; /* the target does nothing: it waits in the driver's receive */
    long long one = 1, old = 0, cmp = 0;
    double t0 = MPI_Wtime();
    for (long it = 0; it < iters; it++) {
        switch (mode) {
        case PUT_LAT:
            MPI_Put(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
            MPI_Win_flush(1, win);
            break;
        case GET_LAT:
            MPI_Get(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
            MPI_Win_flush(1, win);
            break;
        case PUT_BW:
        case GET_BW:
            for (int w = 0; w < WINDOW; w++)
                if (mode == PUT_BW)
                    MPI_Put(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
                else
                    MPI_Get(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
            MPI_Win_flush(1, win);
            break;
        case ACC_LAT:
            MPI_Accumulate(buf, n / 8, MPI_DOUBLE, 1, 0, n / 8, MPI_DOUBLE, MPI_SUM, win);
            MPI_Win_flush(1, win);
            break;
        case FOP_LAT:
            MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 1, 0, MPI_SUM, win);
            MPI_Win_flush(1, win);
            fops++;
            break;
        case CAS_LAT:
            MPI_Compare_and_swap(&one, &cmp, &old, MPI_INT64_T, 1, 8, win);
            MPI_Win_flush(1, win);
            break;
        case FENCE_LAT:
            if (me == 0)
                MPI_Put(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
            MPI_Win_fence(0, win);
            break;
        case PSCW_LAT:
            if (me == 0) {
                MPI_Win_start(peer_group, 0, win);
                MPI_Put(buf, n, MPI_BYTE, 1, 0, n, MPI_BYTE, win);
                MPI_Win_complete(win);
            } else {
                MPI_Win_post(peer_group, 0, win);
                MPI_Win_wait(win);
            }
            break;
        default:
            break;
        }
    }
    return MPI_Wtime() - t0;
}

static double usec_per_iter(const struct suite_opts *o, size_t size, long iters, double sec)
{
    (void)o, (void)size;
    return sec / (double)iters * 1e6;
}

static double mbytes_per_sec(const struct suite_opts *o, size_t size, long iters, double sec)
{
    (void)o;
    return (double)size * WINDOW * (double)iters / sec / 1e6;
}

static void fail(const char *what, long long got, long long want)
{
    fprintf(stderr, "mpi_rma %s: check failed: %s is %lld, want %lld\n", mode_name[mode], what, got,
            want);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

/* What the benchmark moved must be right. */
static void verify(const struct suite_opts *o, size_t max)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if ((mode == PUT_LAT || mode == PUT_BW || mode == FENCE_LAT || mode == PSCW_LAT) && o->rank == 1) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Win_sync(win);
        for (size_t i = 0; i < max; i++)
            if (winmem[i] != (char)(i * 7 + 1))
                fail("a byte of the target window", winmem[i], (char)(i * 7 + 1));
        MPI_Win_unlock(1, win);
    }
    if ((mode == GET_LAT || mode == GET_BW) && o->rank == 0)
        for (size_t i = 0; i < max; i++)
            if (buf[i] != (char)(i * 5 + 3))
                fail("a byte fetched from the target", buf[i], (char)(i * 5 + 3));
    if (mode == FOP_LAT) {
        long long issued = fops, counter = 0;
        MPI_Bcast(&issued, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
        if (o->rank == 1) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Win_sync(win);
            memcpy(&counter, winmem, sizeof counter);
            MPI_Win_unlock(1, win);
            if (counter != issued)
                fail("the fetch_and_op counter", counter, issued);
        }
    }
}

int main(int argc, char **argv)
{
    /* MODE first; the driver parses the rest */
    int m = NMODES;
    if (argc > 1)
        for (m = 0; m < NMODES && strcmp(argv[1], mode_name[m]); m++)
            ;
    if (m == NMODES) {
        fprintf(stderr, "usage: mpi_rma put_lat|get_lat|put_bw|get_bw|acc_lat|fop_lat|cas_lat|"
                        "fence_lat|pscw_lat [--sizes a,b] [--time SEC]  (2 ranks)\n");
        return 2;
    }
    mode = (enum mode)m;
    argv[1] = argv[0];
    argc--, argv++;
    struct suite_opts o;
    char bench[32];
    snprintf(bench, sizeof bench, "rma_%s", mode_name[mode]);
    suite_init(&argc, &argv, bench, default_sizes[mode], 2, &o);
    size_t largest = 0; /* bytes the largest size moves; the window holds >= 16 (CAS at 8) */
    for (int i = 0; i < o.nsizes; i++) {
        if (mode == FOP_LAT || mode == CAS_LAT)
            o.sizes[i] = 8;
        if (mode == ACC_LAT && o.sizes[i] < 8)
            o.sizes[i] = 8;
        largest = o.sizes[i] > largest ? o.sizes[i] : largest;
    }
    if (mode == FOP_LAT || mode == CAS_LAT)
        o.nsizes = 1; /* one 8-byte word whatever was asked */
    size_t max = largest < 16 ? 16 : largest;
    buf = suite_alloc(max);
    MPI_Win_allocate((MPI_Aint)max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &winmem, &win);
    /* origin data (put) and target data (get) have recognisable bytes */
    for (size_t i = 0; i < max; i++) {
        buf[i] = o.rank == 0 ? (char)(i * 7 + 1) : 0;
        winmem[i] = o.rank == 1 && (mode == GET_LAT || mode == GET_BW) ? (char)(i * 5 + 3) : 0;
    }
    if (mode == ACC_LAT && o.rank == 0)
        for (size_t i = 0; i + 8 <= max; i += 8)
            *(double *)(buf + i) = 1.0;
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int peer = 1 - o.rank;
    MPI_Group_incl(world, 1, &peer, &peer_group);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);

    if (mode <= CAS_LAT)
        MPI_Win_lock_all(0, win);
    else if (mode == FENCE_LAT)
        MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    int bw = mode == PUT_BW || mode == GET_BW;
    suite_sweep(&o, bench, bw ? "MB/s" : "usec", kernel, bw ? mbytes_per_sec : usec_per_iter);
    if (mode <= CAS_LAT)
        MPI_Win_unlock_all(win);
    else if (mode == FENCE_LAT)
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    verify(&o, largest);

    MPI_Group_free(&peer_group);
    MPI_Win_free(&win);
    free(buf);
    suite_finish();
    return 0;
}
