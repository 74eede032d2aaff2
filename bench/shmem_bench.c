/*
 * shmem_bench — OSU-style OpenSHMEM benchmarks in one plain OpenSHMEM 1.5
 * source that compiles unchanged with Skiff's oshcc and with every peer's
 * (OSHMPI on MPICH or Open MPI, Sandia OpenSHMEM): bench/run-shmem-bench.sh
 * and `skiff-bench shmem` build it with each and run them interleaved.
 * Written for Skiff (no benchmark code copied); the modes are the ones the
 * OSU OpenSHMEM suite has, measured the same way: PE 0 the origin, PE 1 the
 * target that waits in a barrier, unless said otherwise.
 *
 *   shmem_bench MODE [--sizes a,b,...] [--time SEC]
 *
 * MODE          one iteration                                      metric
 * put_lat       shmem_putmem of SIZE bytes + shmem_quiet           usec
 * get_lat       shmem_getmem of SIZE bytes                         usec
 * put_bw        64 shmem_putmem_nbi of SIZE bytes, one quiet       MB/s (10^6)
 * get_bw        64 shmem_getmem_nbi of SIZE bytes, one quiet       MB/s
 * p_lat         shmem_long_p (8 bytes) + shmem_quiet               usec
 * putsig_lat    ping-pong of shmem_putmem_signal + signal_wait     usec (one way)
 * fadd_lat      shmem_long_atomic_fetch_add                        usec
 * cswap_lat     shmem_long_atomic_compare_swap (always succeeds)   usec
 * add_rate      the first half of the PEs each shmem_long_atomic_add  Mops/s (all
 * fadd_rate     / fetch_add / compare_swap to its partner in the     origins
 * cswap_rate    second half (add_rate: one quiet at the end)         together)
 * barrier       shmem_barrier_all on every PE                      usec
 * bcast         shmem_broadcastmem of SIZE bytes from PE 0         usec
 * reduce        shmem_long_sum_reduce of SIZE/8 longs              usec
 * fcollect      shmem_fcollectmem, SIZE bytes from each PE          usec
 * collect       shmem_collectmem, SIZE bytes from each PE           usec
 * alltoall      shmem_alltoallmem, SIZE bytes to each PE            usec
 *
 * For every size: a warm-up, then iteration counts double until a run takes
 * a tenth of the time target, then one run sized to the target is timed in
 * 10 pieces; the best piece counts (timed_run: on a shared machine the others
 * include time off the CPU).  Collectives and rates take the slowest PE's
 * time of each piece.  Every size ends with a
 * check (bytes put or got, counters exact, reduction sums): a run that moved
 * wrong data reports no number and exits 1.
 *
 * Only heap memory is used (some implementations do not make globals symmetric).
 *
 * Result line (stdout of PE 0), one per size:
 *     @ shmem_<mode> <size-bytes> <npes> <metric> <value>
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WINDOW 64
#define CHUNKS 10 /* pieces of a timed run (see timed_run) */
#define MAX_SIZES 64

enum mode { PUT_LAT, GET_LAT, PUT_BW, GET_BW, P_LAT, PUTSIG_LAT, FADD_LAT, CSWAP_LAT,
            ADD_RATE, FADD_RATE, CSWAP_RATE, BARRIER, BCAST, REDUCE, FCOLLECT, COLLECT, ALLTOALL,
            NMODES };
static const char *const mode_name[NMODES] = {
    "put_lat", "get_lat", "put_bw", "get_bw", "p_lat", "putsig_lat", "fadd_lat", "cswap_lat",
    "add_rate", "fadd_rate", "cswap_rate", "barrier", "bcast", "reduce", "fcollect", "collect",
    "alltoall"};
static const char *const default_sizes[NMODES] = {
    "8,64,512,4K,32K,256K,1M", "8,64,512,4K,32K,256K,1M", "8,64,512,4K,32K,256K,1M",
    "8,64,512,4K,32K,256K,1M", "8", "8,64,512,4K,32K", "8", "8", "8", "8", "8", "0",
    "8,64,512,4K,32K", "8,64,512,4K,32K", "8,64,512,4K,32K", "8,64,512,4K,32K", "8,64,512,4K,32K"};

static enum mode mode;
static int me, npes;
static char *dst, *src;        /* symmetric, max size (x npes: the all-to-all modes) */
static long *ctr, *ctr2;       /* symmetric AMO targets */
static uint64_t *sig;          /* symmetric signal word */
static long *ctl;              /* symmetric: PE 0's decisions */
static double *times;          /* symmetric [CHUNKS]: my pieces' times, read by PE 0 */
static uint64_t seq;           /* putsig ping-pong number, same on both PEs */
static long amo_done;          /* AMOs my origin (or I) issued on the counters so far */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void fail(const char *what, long got, long want)
{
    fprintf(stderr, "shmem_bench %s: PE %d: %s: got %ld, expected %ld\n", mode_name[mode], me, what,
            got, want);
    shmem_global_exit(1);
    exit(1);
}

static int is_rate(void) { return mode == ADD_RATE || mode == FADD_RATE || mode == CSWAP_RATE; }
/* Collectives moving SIZE bytes per PE into npes blocks of dst. */
static int is_gather(void) { return mode == FCOLLECT || mode == COLLECT || mode == ALLTOALL; }
static int is_coll(void) { return mode == BARRIER || mode == BCAST || mode == REDUCE || is_gather(); }
/* AMO pairs: origin i < pairs() targets i + pairs(); latency modes use PE 0 -> PE 1. */
static int pairs(void) { return is_rate() ? npes / 2 : 1; }

/* `iters` iterations of the mode at `size` bytes; this PE's elapsed seconds. */
static double kernel(size_t size, long iters)
{
    int origin = me < pairs(), peer = me + pairs();
    double t0 = now();
    switch (mode) {
    case PUT_LAT:
        if (me == 0)
            for (long i = 0; i < iters; i++) {
                shmem_putmem(dst, src, size, 1);
                shmem_quiet();
            }
        break;
    case GET_LAT:
        if (me == 0)
            for (long i = 0; i < iters; i++)
                shmem_getmem(dst, src, size, 1);
        break;
    case PUT_BW:
    case GET_BW:
        if (me == 0)
            for (long i = 0; i < iters; i++) {
                for (int w = 0; w < WINDOW; w++)
                    if (mode == PUT_BW)
                        shmem_putmem_nbi(dst, src, size, 1);
                    else
                        shmem_getmem_nbi(dst, src, size, 1);
                shmem_quiet();
            }
        break;
    case P_LAT:
        if (me == 0)
            for (long i = 0; i < iters; i++) {
                shmem_long_p(ctr, i, 1);
                shmem_quiet();
            }
        break;
    case PUTSIG_LAT:
        if (me < 2)
            for (long i = 0; i < iters; i++) {
                ++seq;
                if (me == 1)
                    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, seq);
                shmem_putmem_signal(dst, src, size, sig, seq, SHMEM_SIGNAL_SET, 1 - me);
                if (me == 0)
                    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, seq);
            }
        break;
    case FADD_LAT:
    case FADD_RATE:
        if (origin)
            for (long i = 0; i < iters; i++) {
                long old = shmem_long_atomic_fetch_add(ctr, 1, peer);
                if (old != amo_done + i)
                    fail("fetch_add returned", old, amo_done + i);
            }
        break;
    case ADD_RATE:
        if (origin) {
            for (long i = 0; i < iters; i++)
                shmem_long_atomic_add(ctr, 1, peer);
            shmem_quiet();
        }
        break;
    case CSWAP_LAT:
    case CSWAP_RATE:
        if (origin)
            for (long i = 0; i < iters; i++) {
                long old = shmem_long_atomic_compare_swap(ctr2, amo_done + i, amo_done + i + 1, peer);
                if (old != amo_done + i)
                    fail("compare_swap returned", old, amo_done + i);
            }
        break;
    case BARRIER:
        for (long i = 0; i < iters; i++)
            shmem_barrier_all();
        break;
    case BCAST:
        for (long i = 0; i < iters; i++)
            shmem_broadcastmem(SHMEM_TEAM_WORLD, dst, src, size, 0);
        break;
    case REDUCE:
        for (long i = 0; i < iters; i++)
            shmem_long_sum_reduce(SHMEM_TEAM_WORLD, (long *)dst, (const long *)src,
                                  size / sizeof(long));
        break;
    case FCOLLECT:
        for (long i = 0; i < iters; i++)
            shmem_fcollectmem(SHMEM_TEAM_WORLD, dst, src, size);
        break;
    case COLLECT:
        for (long i = 0; i < iters; i++)
            shmem_collectmem(SHMEM_TEAM_WORLD, dst, src, size);
        break;
    case ALLTOALL:
        for (long i = 0; i < iters; i++)
            shmem_alltoallmem(SHMEM_TEAM_WORLD, dst, src, size);
        break;
    default:
        break;
    }
    double t = now() - t0;
    if (mode >= FADD_LAT && mode <= CSWAP_RATE)
        amo_done += iters; /* origins and targets alike: the counters' expected value */
    return t;
}

/* Every PE runs the same count, in CHUNKS pieces timed apart; returns the
 * time of the best piece scaled to the whole run (a piece's time: PE 0's, or
 * the slowest PE's in collectives and rates).  On a shared machine most
 * pieces include time a PE spent off the CPU; the best one is what the
 * operations cost.  Every implementation is measured the same way. */
static double timed_run(size_t size, long iters)
{
    long per = iters >= CHUNKS ? iters / CHUNKS : 1;
    int chunks = iters >= CHUNKS ? CHUNKS : (int)iters;
    shmem_barrier_all();
    for (int c = 0; c < chunks; c++)
        times[c] = kernel(size, per);
    shmem_barrier_all();
    if (me != 0)
        return 0;
    double best = 0;
    for (int c = 0; c < chunks; c++) {
        double t = times[c];
        for (int pe = 1; pe < npes && (is_coll() || is_rate()); pe++) {
            double other = shmem_double_g(&times[c], pe);
            t = other > t ? other : t;
        }
        best = c == 0 || t < best ? t : best;
    }
    return best * (double)iters / (double)per;
}

/* PE 0 tells every PE a number. */
static long decide(long v)
{
    if (me == 0)
        for (int pe = 0; pe < npes; pe++)
            shmem_long_p(ctl, v, pe);
    shmem_barrier_all();
    long v_seen = *ctl;
    shmem_barrier_all(); /* nobody reads the next decision as this one */
    return v_seen;
}

/* Fill the source with a pattern of this size; after the runs check what arrived. */
static void prepare(size_t size)
{
    for (size_t k = 0; k < (mode == ALLTOALL ? size * (size_t)npes : size); k++)
        src[k] = (char)(k * 7 + size + (size_t)me);
    if (mode == REDUCE)
        for (size_t k = 0; k < size / sizeof(long); k++)
            ((long *)src)[k] = (long)(me + k);
    shmem_barrier_all();
}

static void check(size_t size)
{
    shmem_barrier_all();
    int src_pe = -1; /* whose pattern dst should hold */
    if ((mode == PUT_LAT || mode == PUT_BW || mode == PUTSIG_LAT || mode == BCAST) && me == 1)
        src_pe = 0;
    if ((mode == GET_LAT || mode == GET_BW) && me == 0)
        src_pe = 1;
    if (mode == PUTSIG_LAT && me == 0)
        src_pe = 1;
    if (mode == BCAST && me > 1)
        src_pe = 0;
    for (size_t k = 0; src_pe >= 0 && k < size; k++)
        if (dst[k] != (char)(k * 7 + size + (size_t)src_pe))
            fail("byte of the data moved", dst[k], (char)(k * 7 + size + (size_t)src_pe));
    for (int j = 0; is_gather() && j < npes; j++) /* block j: PE j's (alltoall: its block me) */
        for (size_t k = 0; k < size; k++) {
            size_t at = mode == ALLTOALL ? (size_t)me * size + k : k;
            char want = (char)(at * 7 + size + (size_t)j);
            if (dst[(size_t)j * size + k] != want)
                fail("byte of a gathered block", dst[(size_t)j * size + k], want);
        }
    if (mode == REDUCE)
        for (size_t k = 0; k < size / sizeof(long); k++)
            if (((long *)dst)[k] != (long)(npes * (npes - 1) / 2 + npes * (long)k))
                fail("reduction element", ((long *)dst)[k], npes * (npes - 1) / 2 + npes * (long)k);
    int target = me >= pairs() && me < 2 * pairs();
    if ((mode == FADD_LAT || mode == FADD_RATE || mode == ADD_RATE) && target && *ctr != amo_done)
        fail("counter after fetch_add/add", *ctr, amo_done);
    if ((mode == CSWAP_LAT || mode == CSWAP_RATE) && target && *ctr2 != amo_done)
        fail("counter after compare_swap", *ctr2, amo_done);
    shmem_barrier_all();
}

static void report(size_t size, long iters, double sec)
{
    if (me != 0)
        return;
    const char *metric = "usec";
    double v = sec * 1e6 / (double)iters;
    if (mode == PUT_BW || mode == GET_BW) {
        metric = "MB/s";
        v = (double)size * WINDOW * (double)iters / sec / 1e6;
    } else if (is_rate()) {
        metric = "Mops/s";
        v = (double)pairs() * (double)iters / sec / 1e6;
    } else if (mode == PUTSIG_LAT) {
        v /= 2;
    }
    printf("@ shmem_%s %zu %d %s %.6g\n", mode_name[mode], size, npes, metric, v);
    fflush(stdout);
}

static size_t parse_size(const char *s)
{
    char *end;
    size_t v = strtoull(s, &end, 10);
    if (*end == 'K')
        v <<= 10;
    else if (*end == 'M')
        v <<= 20;
    return v;
}

static void usage(const char *why)
{
    if (me == 0) {
        fprintf(stderr, "shmem_bench: %s\nusage: shmem_bench MODE [--sizes a,b,...] [--time SEC]\nmodes:",
                why);
        for (int m = 0; m < NMODES; m++)
            fprintf(stderr, " %s", mode_name[m]);
        fprintf(stderr, "\n");
    }
    shmem_finalize();
    exit(2);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    if (argc < 2)
        usage("no mode");
    mode = NMODES;
    for (int m = 0; m < NMODES; m++)
        if (!strcmp(argv[1], mode_name[m]))
            mode = (enum mode)m;
    if (mode == NMODES)
        usage("unknown mode");
    const char *sizes_arg = default_sizes[mode];
    double target = 0.2;
    for (int a = 2; a < argc; a++) {
        if (!strcmp(argv[a], "--sizes") && a + 1 < argc)
            sizes_arg = argv[++a];
        else if (!strcmp(argv[a], "--time") && a + 1 < argc)
            target = atof(argv[++a]);
        else
            usage("bad argument");
    }
    if (npes < 2)
        usage("needs 2 PEs or more");
    size_t sizes[MAX_SIZES], max = 8;
    int nsizes = 0;
    char *list = strdup(sizes_arg);
    for (char *tok = strtok(list, ","); tok && nsizes < MAX_SIZES; tok = strtok(NULL, ","))
        sizes[nsizes++] = parse_size(tok);
    free(list);
    for (int k = 0; k < nsizes; k++)
        max = sizes[k] > max ? sizes[k] : max;
    if (is_gather())
        max *= (size_t)npes;
    dst = shmem_malloc(max);
    src = shmem_malloc(max);
    ctr = shmem_calloc(2, sizeof(long));
    sig = shmem_calloc(1, sizeof(uint64_t));
    ctl = shmem_calloc(1, sizeof(long));
    times = shmem_calloc(CHUNKS, sizeof(double));
    if (!dst || !src || !ctr || !sig || !ctl || !times)
        usage("shmem_malloc failed");
    ctr2 = ctr + 1;
    for (int k = 0; k < nsizes; k++) {
        size_t size = sizes[k];
        if ((mode == REDUCE && size < sizeof(long)) || (mode >= P_LAT && mode != PUTSIG_LAT &&
                                                         mode != BCAST && mode != REDUCE && size != 8 &&
                                                         mode != BARRIER && !is_gather()))
            continue;
        prepare(size);
        timed_run(size, 10); /* warm-up: first touches, connections */
        long iters = 1;
        for (;;) {
            double t = timed_run(size, iters);
            long next = me != 0 ? 0 : (t >= target / 10 || iters >= (1L << 40)) ? 0 : iters * 2;
            if (!decide(next)) {
                double want = me == 0 ? (double)iters * target / (t > 1e-9 ? t : 1e-9) : 0;
                iters = decide(want < 1 ? 1 : (long)want);
                break;
            }
            iters *= 2;
        }
        double t = timed_run(size, iters);
        check(size);
        report(size, iters, t);
    }
    shmem_free(times);
    shmem_free(ctl);
    shmem_free(sig);
    shmem_free(ctr);
    shmem_free(src);
    shmem_free(dst);
    shmem_finalize();
    return 0;
}
