/* rma_contend — every rank hammers the same locations of every target at
 * once with the accumulate family and puts, all inside one lock_all epoch,
 * and the results must be exact.  Run on one host (CPU atomics and the
 * accumulate mutex), with SKIFF_TRANSPORTS=tcp (every op a request the
 * target's tcp service thread executes: skf_accumulate, queued puts) and on
 * hosts of two ranks (node mates with CPU atomics and remote ranks with
 * requests on the same words at the same time: the mechanisms must agree).
 * Windows: MPI_Win_allocate (integer atomics) and MPI_Win_create on malloc
 * memory (everything under the accumulate mutex).
 *
 * Per target, each rank r does ITERS rounds of:
 *   - MPI_Accumulate SUM of 1 on an int64 counter;
 *   - MPI_Fetch_and_op SUM of 1 on another int64: the fetched values of all
 *     ranks together are exactly 0 .. size*ITERS-1 (a permutation);
 *   - MPI_Accumulate SUM of (r+1) on NV doubles (a vector of its own);
 *   - MPI_Get_accumulate SUM of 1 on NI int32, the fetched values in range;
 *   - MPI_Accumulate MAX of r*ITERS+i on an int64;
 *   - a critical section under an MPI_Compare_and_swap spin lock: get a
 *     word, put it + 1, flush, release with MPI_Accumulate REPLACE 0;
 * then once: MPI_Accumulate SUM of 1.0 on BIG doubles (more than one
 * request's worth: split by the channel) and on a strided vector type;
 * and runs of queued operations (over tcp: batched requests, collected
 * answers, large answers between small ones): RUN gets of 4 KiB of a
 * pattern the target wrote, RUN 8-byte puts into my own slots at the
 * target, then one flush; every byte checked (the puts read back).
 */
#include "rmatest.h"

#define ITERS 12
#define NV 7
#define NI 5
#define BIG 10000 /* doubles: 80000 bytes, more than one accumulate request (64 KiB) */
#define STRIDED 40
#define RUN 64
#define PATTERN 65536

/* Byte offsets in a window (8-byte aligned). */
enum {
    OFF_COUNT = 0,
    OFF_FOP = 8,
    OFF_MAX = 16,
    OFF_LOCK = 24,
    OFF_GUARDED = 32,
    OFF_VEC = 64,
    OFF_INTS = OFF_VEC + NV * 8, /* NI ints up to 140 */
    OFF_STRIDED = 256,
    OFF_BIG = OFF_STRIDED + 2 * STRIDED * 8,
    OFF_PATTERN = OFF_BIG + BIG * 8,
    OFF_SLOTS = OFF_PATTERN + PATTERN, /* RUN words per rank */
    WBYTES = OFF_SLOTS                 /* + RUN * 8 per rank */
};

static unsigned char pattern_of(int owner, size_t i) { return (unsigned char)(i * 13 + (size_t)owner * 7); }

static void fill_pattern(struct twin *w, void *arg)
{
    (void)arg;
    for (size_t i = 0; i < PATTERN; i++)
        ((unsigned char *)w->base)[OFF_PATTERN + i] = pattern_of(w->rank, i);
}

/* Everybody has finished its epoch: a barrier of point-to-point messages.
 * Its waits serve node mates' one-sided requests every millisecond; the
 * node barrier of MPI_Barrier sleeps 20 ms between serving them, and with
 * SKIFF_CMA=0 (requests to private memory served only inside MPI) the ranks
 * still in their epoch crawled (docs/rma.md, known limits). */
static void p2p_barrier(MPI_Comm comm, int me, int n)
{
    char b = 0;
    if (me == 0) {
        for (int r = 1; r < n; r++)
            MPI_Recv(&b, 1, MPI_CHAR, MPI_ANY_SOURCE, 77, comm, MPI_STATUS_IGNORE);
        for (int r = 1; r < n; r++)
            MPI_Send(&b, 1, MPI_CHAR, r, 78, comm);
    } else {
        MPI_Send(&b, 1, MPI_CHAR, 0, 77, comm);
        MPI_Recv(&b, 1, MPI_CHAR, 0, 78, comm, MPI_STATUS_IGNORE);
    }
}

/* RUN gets of 4 KiB and RUN 8-byte puts to target t, one flush, then checks. */
static void queued_runs(struct twin *w, int t, unsigned char *got)
{
    long long val[RUN], back[RUN];
    for (int i = 0; i < RUN; i++) {
        size_t at = (size_t)(i * 5 % (PATTERN / 4096)) * 4096;
        CHECK_EQ_INT(MPI_Get(got + (size_t)i * 4096, 4096, MPI_BYTE, t,
                             tdisp(w, t, OFF_PATTERN + at), 4096, MPI_BYTE, w->win),
                     MPI_SUCCESS);
        val[i] = (long long)w->rank * 1000000 + t * 1000 + i;
        CHECK_EQ_INT(MPI_Put(&val[i], 1, MPI_LONG_LONG, t,
                             tdisp(w, t, OFF_SLOTS + ((size_t)w->rank * RUN + i) * 8), 1,
                             MPI_LONG_LONG, w->win),
                     MPI_SUCCESS);
    }
    CHECK_EQ_INT(MPI_Win_flush(t, w->win), MPI_SUCCESS);
    for (int i = 0; i < RUN; i++) {
        size_t at = (size_t)(i * 5 % (PATTERN / 4096)) * 4096;
        for (size_t k = 0; k < 4096; k++)
            if (got[(size_t)i * 4096 + k] != pattern_of(t, at + k)) {
                fprintf(stderr, "rank %d: get %d from rank %d: byte %zu is %d, want %d\n", w->rank,
                        i, t, k, got[(size_t)i * 4096 + k], pattern_of(t, at + k));
                CHECK(!"queued get data");
            }
    }
    CHECK_EQ_INT(MPI_Get(back, RUN, MPI_LONG_LONG, t,
                         tdisp(w, t, OFF_SLOTS + (size_t)w->rank * RUN * 8), RUN, MPI_LONG_LONG,
                         w->win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush(t, w->win), MPI_SUCCESS);
    for (int i = 0; i < RUN; i++)
        CHECK_EQ_INT((int)(back[i] - val[i]), 0);
}

static long long *fetched; /* [size * ITERS] my fetch_and_op results per target */

static void run(int f)
{
    struct twin w;
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    twin_create(&w, f, WBYTES + (size_t)world * RUN * 8, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
    twin_local_write(&w, fill_pattern, NULL);
    const int me = w.rank, n = w.size;
    unsigned char *got = malloc((size_t)RUN * 4096);
    CHECK(got != NULL);
    double vec[NV], ones[BIG];
    for (int i = 0; i < NV; i++)
        vec[i] = me + 1;
    for (int i = 0; i < BIG; i++)
        ones[i] = 1.0;
    int one32[NI] = {1, 1, 1, 1, 1}, got32[NI];
    long long one = 1, zero = 0, old = 0;
    MPI_Datatype every_other;
    CHECK_EQ_INT(MPI_Type_vector(STRIDED, 1, 2, MPI_DOUBLE, &every_other), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Type_commit(&every_other), MPI_SUCCESS);

    CHECK_EQ_INT(MPI_Win_lock_all(0, w.win), MPI_SUCCESS);
    for (int d = 0; d < n; d++)
        queued_runs(&w, (me + d) % n, got);
    for (int i = 0; i < ITERS; i++)
        for (int d = 0; d < n; d++) {
            int t = (me + d) % n; /* everyone on every target, starting at different ones */
            CHECK_EQ_INT(MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, tdisp(&w, t, OFF_COUNT), 1,
                                        MPI_LONG_LONG, MPI_SUM, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Fetch_and_op(&one, &fetched[t * ITERS + i], MPI_LONG_LONG, t,
                                          tdisp(&w, t, OFF_FOP), MPI_SUM, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Accumulate(vec, NV, MPI_DOUBLE, t, tdisp(&w, t, OFF_VEC), NV,
                                        MPI_DOUBLE, MPI_SUM, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Get_accumulate(one32, NI, MPI_INT, got32, NI, MPI_INT, t,
                                            tdisp(&w, t, OFF_INTS), NI, MPI_INT, MPI_SUM, w.win),
                         MPI_SUCCESS);
            long long mx = (long long)me * ITERS + i;
            CHECK_EQ_INT(MPI_Accumulate(&mx, 1, MPI_LONG_LONG, t, tdisp(&w, t, OFF_MAX), 1,
                                        MPI_LONG_LONG, MPI_MAX, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
            for (int k = 0; k < NI; k++)
                CHECK(got32[k] >= 0 && got32[k] < n * ITERS);
            /* the critical section: CAS lock, get, put + 1, flush, release */
            long long mine = me + 1;
            for (;;) {
                CHECK_EQ_INT(MPI_Compare_and_swap(&mine, &zero, &old, MPI_LONG_LONG, t,
                                                  tdisp(&w, t, OFF_LOCK), w.win),
                             MPI_SUCCESS);
                CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
                if (old == 0)
                    break;
                CHECK(old >= 1 && old <= n);
            }
            long long v = -1;
            CHECK_EQ_INT(MPI_Get(&v, 1, MPI_LONG_LONG, t, tdisp(&w, t, OFF_GUARDED), 1,
                                 MPI_LONG_LONG, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
            v++;
            CHECK_EQ_INT(MPI_Put(&v, 1, MPI_LONG_LONG, t, tdisp(&w, t, OFF_GUARDED), 1,
                                 MPI_LONG_LONG, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Accumulate(&zero, 1, MPI_LONG_LONG, t, tdisp(&w, t, OFF_LOCK), 1,
                                        MPI_LONG_LONG, MPI_REPLACE, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
        }
    for (int d = 0; d < n; d++) {
        int t = (me + d) % n;
        CHECK_EQ_INT(MPI_Accumulate(ones, BIG, MPI_DOUBLE, t, tdisp(&w, t, OFF_BIG), BIG,
                                    MPI_DOUBLE, MPI_SUM, w.win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Accumulate(ones, STRIDED, MPI_DOUBLE, t, tdisp(&w, t, OFF_STRIDED), 1,
                                    every_other, MPI_SUM, w.win),
                     MPI_SUCCESS);
    }
    CHECK_EQ_INT(MPI_Win_unlock_all(w.win), MPI_SUCCESS);
    p2p_barrier(w.comm, me, n);

    /* my memory: every rank's contributions, exactly */
    twin_local_begin_read(&w);
    const char *m = w.base;
    long long cnt, fop, mx, guarded;
    memcpy(&cnt, m + OFF_COUNT, 8);
    memcpy(&fop, m + OFF_FOP, 8);
    memcpy(&mx, m + OFF_MAX, 8);
    memcpy(&guarded, m + OFF_GUARDED, 8);
    CHECK_EQ_INT((int)cnt, n * ITERS);
    CHECK_EQ_INT((int)fop, n * ITERS);
    CHECK_EQ_INT((int)mx, (n - 1) * ITERS + ITERS - 1);
    CHECK_EQ_INT((int)guarded, n * ITERS);
    const double vsum = (double)ITERS * n * (n + 1) / 2;
    for (int i = 0; i < NV; i++) {
        double x;
        memcpy(&x, m + OFF_VEC + i * 8, 8);
        CHECK(x == vsum);
    }
    for (int i = 0; i < NI; i++) {
        int x;
        memcpy(&x, m + OFF_INTS + i * 4, 4);
        CHECK_EQ_INT(x, n * ITERS);
    }
    for (int i = 0; i < BIG; i++) {
        double x;
        memcpy(&x, m + OFF_BIG + (size_t)i * 8, 8);
        CHECK(x == n);
    }
    for (int i = 0; i < 2 * STRIDED; i++) {
        double x;
        memcpy(&x, m + OFF_STRIDED + i * 8, 8);
        CHECK(x == (i % 2 ? 0.0 : n)); /* every other element only */
    }
    twin_local_end_read(&w);

    /* the fetch_and_op values every rank got from me: a permutation of 0 .. n*ITERS-1 */
    long long *all = malloc(sizeof *all * (size_t)n * ITERS);
    CHECK(all != NULL);
    for (int t = 0; t < n; t++) /* what I fetched from t goes to t */
        MPI_Gather(&fetched[t * ITERS], ITERS, MPI_LONG_LONG, t == me ? all : NULL, ITERS,
                   MPI_LONG_LONG, t, w.comm);
    char *seen = calloc((size_t)n * ITERS, 1);
    CHECK(seen != NULL);
    for (int i = 0; i < n * ITERS; i++) {
        CHECK(all[i] >= 0 && all[i] < (long long)n * ITERS);
        CHECK(!seen[all[i]]);
        seen[all[i]] = 1;
    }
    free(seen);
    free(all);
    MPI_Type_free(&every_other);
    free(got);
    twin_free(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fetched = calloc((size_t)size * ITERS, sizeof *fetched);
    CHECK(fetched != NULL);
    run(FL_ALLOCATE);
    run(FL_CREATE);
    free(fetched);
    MPI_Finalize();
    return 0;
}
