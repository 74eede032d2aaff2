/* rma_accops — accumulate semantics.
 *
 *  - every predefined op (SUM PROD MAX MIN BAND BOR BXOR LAND LOR LXOR
 *    REPLACE) on every integer and floating type that allows it: every rank
 *    accumulates 5 elements into the same place on every rank at once (under
 *    fence, then under lock_all), and each target compares with a serial
 *    reduction; REPLACE must leave, element by element, some rank's value;
 *  - Get_accumulate and Fetch_and_op with MPI_NO_OP read without changing;
 *    Fetch_and_op with every op from one origin gives the sequence a serial
 *    model gives;
 *  - MINLOC / MAXLOC on every pair type, ties included (lowest index wins);
 *  - MPI_Fetch_and_op counters hit by every rank at once: the fetched values
 *    are exactly 0..n*K-1 (none lost, none twice), on three window flavours;
 *  - MPI_Compare_and_swap races: exactly one winner;
 *  - the default accumulate ordering: a read after a write from the same
 *    origin to the same place sees it, without a flush between. */
#include "rmatest.h"

#define NI 5 /* elements per accumulate */

enum { K_I8, K_U8, K_SHORT, K_INT, K_UNSIGNED, K_LL, K_I64, K_U64, K_FLOAT, K_DOUBLE, NTYPES };
static struct {
    const char *name;
    MPI_Datatype type;
    int size, is_signed, is_float;
} T[NTYPES];

static void make_types(void)
{
#define TY(k, n, t, c, s, f) T[k].name = n, T[k].type = t, T[k].size = (int)sizeof(c), T[k].is_signed = s, T[k].is_float = f
    TY(K_I8, "MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, signed char, 1, 0);
    TY(K_U8, "MPI_UINT8_T", MPI_UINT8_T, uint8_t, 0, 0);
    TY(K_SHORT, "MPI_SHORT", MPI_SHORT, short, 1, 0);
    TY(K_INT, "MPI_INT", MPI_INT, int, 1, 0);
    TY(K_UNSIGNED, "MPI_UNSIGNED", MPI_UNSIGNED, unsigned, 0, 0);
    TY(K_LL, "MPI_LONG_LONG", MPI_LONG_LONG, long long, 1, 0);
    TY(K_I64, "MPI_INT64_T", MPI_INT64_T, int64_t, 1, 0);
    TY(K_U64, "MPI_UINT64_T", MPI_UINT64_T, uint64_t, 0, 0);
    TY(K_FLOAT, "MPI_FLOAT", MPI_FLOAT, float, 1, 1);
    TY(K_DOUBLE, "MPI_DOUBLE", MPI_DOUBLE, double, 1, 1);
#undef TY
}

/* Values travel as double: every value used here is a small integer, exact
 * in every type. */
static double load(int k, const void *p)
{
    switch (k) {
    case K_I8: return *(const signed char *)p;
    case K_U8: return *(const uint8_t *)p;
    case K_SHORT: return *(const short *)p;
    case K_INT: return *(const int *)p;
    case K_UNSIGNED: return *(const unsigned *)p;
    case K_LL: return (double)*(const long long *)p;
    case K_I64: return (double)*(const int64_t *)p;
    case K_U64: return (double)*(const uint64_t *)p;
    case K_FLOAT: return *(const float *)p;
    default: return *(const double *)p;
    }
}

static void store(int k, void *p, double v)
{
    switch (k) {
    case K_I8: *(signed char *)p = (signed char)v; break;
    case K_U8: *(uint8_t *)p = (uint8_t)v; break;
    case K_SHORT: *(short *)p = (short)v; break;
    case K_INT: *(int *)p = (int)v; break;
    case K_UNSIGNED: *(unsigned *)p = (unsigned)v; break;
    case K_LL: *(long long *)p = (long long)v; break;
    case K_I64: *(int64_t *)p = (int64_t)v; break;
    case K_U64: *(uint64_t *)p = (uint64_t)v; break;
    case K_FLOAT: *(float *)p = (float)v; break;
    default: *(double *)p = v; break;
    }
}

enum { O_SUM, O_PROD, O_MAX, O_MIN, O_BAND, O_BOR, O_BXOR, O_LAND, O_LOR, O_LXOR, O_REPLACE, O_NOOP, NOPS };
static const char *const op_name[NOPS] = {"SUM", "PROD", "MAX", "MIN", "BAND", "BOR",
                                          "BXOR", "LAND", "LOR", "LXOR", "REPLACE", "NO_OP"};
static MPI_Op op_handle(int o)
{
    static const MPI_Op h[NOPS] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR,
                                   MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE, MPI_NO_OP};
    return h[o];
}

static int op_allowed(int k, int o)
{
    return !T[k].is_float || o == O_SUM || o == O_PROD || o == O_MAX || o == O_MIN ||
           o == O_REPLACE || o == O_NOOP;
}

/* Starting value at the target, and rank r's contribution to element i:
 * small enough that 8 ranks never overflow a signed char. */
static double init_of(int o, int i)
{
    switch (o) {
    case O_PROD: return 3;
    case O_BAND: return 0x7f;
    case O_LAND: return 1;
    case O_LOR: case O_LXOR: return 0;
    case O_MAX: case O_MIN: return 20 + i;
    default: return 10 + i;
    }
}

static double contrib(int k, int o, int r, int i)
{
    int m = r + i;
    switch (o) {
    case O_SUM: return m % 5 + 1;
    case O_PROD: return m % 3 == 0 ? 2 : m % 3 == 1 || !T[k].is_signed ? 1 : -1;
    case O_MAX: case O_MIN: return (r * 7 + i * 3) % 50 - (T[k].is_signed ? 20 : 0);
    case O_BAND: return 0x7f & ~(1 << (m % 7));
    case O_BOR: return 1 << (m % 7);
    case O_BXOR: return (r * 5 + i * 3) & 0x7f;
    case O_LAND: return m % 4 != 3 || r > 3; /* some ranks bring a 0 */
    case O_LOR: case O_LXOR: return m % 3 == 0;
    default: return r * 10 + i % 10;
    }
}

static double apply(int o, double a, double b)
{
    long long x = (long long)a, y = (long long)b;
    switch (o) {
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_MAX: return a > b ? a : b;
    case O_MIN: return a < b ? a : b;
    case O_BAND: return (double)(x & y);
    case O_BOR: return (double)(x | y);
    case O_BXOR: return (double)(x ^ y);
    case O_LAND: return x && y;
    case O_LOR: return x || y;
    case O_LXOR: return !x != !y;
    case O_REPLACE: return b;
    default: return a; /* NO_OP */
    }
}

#define CASE_BYTES (NI * 8)
#define NCASES (NTYPES * NOPS)
#define WBYTES (2 * NCASES * CASE_BYTES) /* all-rank area, then single-origin area */

static void fill_init(struct twin *w, void *arg)
{
    (void)arg;
    char *m = w->base;
    for (int k = 0; k < NTYPES; k++)
        for (int o = 0; o < NOPS; o++)
            for (int i = 0; i < NI; i++) {
                store(k, m + (k * NOPS + o) * CASE_BYTES + i * T[k].size, init_of(o, i));
                store(k, m + (NCASES + k * NOPS + o) * CASE_BYTES + i * T[k].size, init_of(o, i));
            }
}

/* Every rank accumulates into every target; each target checks. */
static void all_to_all(int f, int use_fence)
{
    struct twin w;
    twin_create(&w, f, WBYTES, 8, MPI_INFO_NULL, MPI_COMM_WORLD);
    twin_local_write(&w, fill_init, NULL);
    static char src[NCASES][CASE_BYTES];
    for (int k = 0; k < NTYPES; k++)
        for (int o = 0; o < O_NOOP; o++)
            for (int i = 0; i < NI; i++)
                store(k, src[k * NOPS + o] + i * T[k].size, contrib(k, o, w.rank, i));
    if (use_fence)
        CHECK_EQ_INT(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win), MPI_SUCCESS);
    else
        CHECK_EQ_INT(MPI_Win_lock_all(0, w.win), MPI_SUCCESS);
    for (int d = 0; d < w.size; d++) {
        int t = (w.rank + d) % w.size; /* everyone starts at a different target */
        for (int k = 0; k < NTYPES; k++)
            for (int o = 0; o < O_NOOP; o++)
                if (op_allowed(k, o))
                    CHECK_EQ_INT(MPI_Accumulate(src[k * NOPS + o], NI, T[k].type, t,
                                                tdisp(&w, t, (size_t)(k * NOPS + o) * CASE_BYTES),
                                                NI, T[k].type, op_handle(o), w.win),
                                 MPI_SUCCESS);
    }
    if (use_fence)
        CHECK_EQ_INT(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win), MPI_SUCCESS);
    else
        CHECK_EQ_INT(MPI_Win_unlock_all(w.win), MPI_SUCCESS);
    MPI_Barrier(w.comm);
    twin_local_begin_read(&w);
    const char *m = w.base;
    for (int k = 0; k < NTYPES; k++)
        for (int o = 0; o < O_NOOP; o++) {
            if (!op_allowed(k, o))
                continue;
            for (int i = 0; i < NI; i++) {
                double got = load(k, m + (k * NOPS + o) * CASE_BYTES + i * T[k].size), want;
                if (o == O_REPLACE) { /* some rank's value, whole */
                    int r = (int)got / 10;
                    want = r >= 0 && r < w.size ? contrib(k, o, r, i) : -1;
                } else {
                    want = init_of(o, i);
                    for (int r = 0; r < w.size; r++)
                        want = apply(o, want, contrib(k, o, r, i));
                }
                if (got != want) {
                    fprintf(stderr, "rank %d: %s %s, Accumulate(%s, %s) from %d ranks, element %d: %g, want %g\n",
                            T_rank, flavour_name[f], use_fence ? "fence" : "lock_all", op_name[o],
                            T[k].name, w.size, i, got, want);
                    CHECK(got == want);
                }
            }
        }
    twin_local_end_read(&w);
    MPI_Barrier(w.comm);

    /* MPI_NO_OP: Get_accumulate reads every target's results unchanged. */
    CHECK_EQ_INT(MPI_Win_lock_all(0, w.win), MPI_SUCCESS);
    static char res[NCASES][CASE_BYTES], res2[NCASES][CASE_BYTES];
    int t = (w.rank + 1) % w.size;
    CHECK_EQ_INT(MPI_Get(res2, NCASES * CASE_BYTES, MPI_BYTE, t, tdisp(&w, t, 0),
                         NCASES * CASE_BYTES, MPI_BYTE, w.win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
    for (int k = 0; k < NTYPES; k++)
        for (int o = 0; o < O_NOOP; o++)
            if (op_allowed(k, o))
                CHECK_EQ_INT(MPI_Get_accumulate(NULL, 0, T[k].type, res[k * NOPS + o], NI,
                                                T[k].type, t,
                                                tdisp(&w, t, (size_t)(k * NOPS + o) * CASE_BYTES),
                                                NI, T[k].type, MPI_NO_OP, w.win),
                             MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
    for (int k = 0; k < NTYPES; k++)
        for (int o = 0; o < O_NOOP; o++)
            if (op_allowed(k, o))
                CHECK(memcmp(res[k * NOPS + o], res2[k * NOPS + o], (size_t)(NI * T[k].size)) == 0);
    CHECK_EQ_INT(MPI_Win_unlock_all(w.win), MPI_SUCCESS);
    MPI_Barrier(w.comm);

    /* Fetch_and_op with every op (NO_OP included) from my single origin onto
     * t's second area: three rounds, each result the serial model's. */
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win), MPI_SUCCESS);
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < NTYPES; k++)
            for (int o = 0; o < NOPS; o++) {
                if (!op_allowed(k, o))
                    continue;
                char in[8], out[8];
                double model = init_of(o, 0);
                for (int q = 0; q < round; q++)
                    model = apply(o, model, contrib(k, o, w.rank, q));
                store(k, in, contrib(k, o, w.rank, round));
                memset(out, 0x5a, sizeof out);
                CHECK_EQ_INT(MPI_Fetch_and_op(in, out, T[k].type, t,
                                              tdisp(&w, t, (size_t)(NCASES + k * NOPS + o) * CASE_BYTES),
                                              op_handle(o), w.win),
                             MPI_SUCCESS);
                CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
                if (load(k, out) != model) {
                    fprintf(stderr, "rank %d: %s: Fetch_and_op(%s, %s) round %d fetched %g, want %g\n",
                            T_rank, flavour_name[f], op_name[o], T[k].name, round, load(k, out), model);
                    CHECK(load(k, out) == model);
                }
            }
    CHECK_EQ_INT(MPI_Win_unlock(t, w.win), MPI_SUCCESS);
    MPI_Barrier(w.comm);
    twin_free(&w);
}

/* MINLOC / MAXLOC on the pair types. */
struct p_2int { int v, i; };
struct p_dint { double v; int i; };
struct p_lint { long v; int i; };
struct p_fint { float v; int i; };
struct p_sint { short v; int i; };

#define NPAIR 5
static void pair_init(struct twin *w, void *arg)
{
    (void)arg;
    char *m = w->base;
    for (int mx = 0; mx < 2; mx++) {
        int v = mx ? -100 : 100;
        struct p_2int *a = (void *)(m + (mx * NPAIR + 0) * 16 * NI);
        struct p_dint *b = (void *)(m + (mx * NPAIR + 1) * 16 * NI);
        struct p_lint *c = (void *)(m + (mx * NPAIR + 2) * 16 * NI);
        struct p_fint *d = (void *)(m + (mx * NPAIR + 3) * 16 * NI);
        struct p_sint *e = (void *)(m + (mx * NPAIR + 4) * 16 * NI);
        for (int i = 0; i < NI; i++) {
            a[i] = (struct p_2int){v, -1};
            b[i] = (struct p_dint){v, -1};
            c[i] = (struct p_lint){v, -1};
            d[i] = (struct p_fint){(float)v, -1};
            e[i] = (struct p_sint){(short)v, -1};
        }
    }
}

static int pair_val(int r, int i) { return (r * 3 + i) % 4; } /* ties between ranks */

static void minloc_maxloc(void)
{
    struct twin w;
    twin_create(&w, FL_ALLOCATE, 2 * NPAIR * 16 * NI, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
    twin_local_write(&w, pair_init, NULL);
    struct p_2int a[NI];
    struct p_dint b[NI];
    struct p_lint c[NI];
    struct p_fint d[NI];
    struct p_sint e[NI];
    for (int i = 0; i < NI; i++) {
        int v = pair_val(w.rank, i);
        a[i] = (struct p_2int){v, w.rank};
        b[i] = (struct p_dint){v, w.rank};
        c[i] = (struct p_lint){v, w.rank};
        d[i] = (struct p_fint){(float)v, w.rank};
        e[i] = (struct p_sint){(short)v, w.rank};
    }
    const void *bufs[NPAIR] = {a, b, c, d, e};
    MPI_Datatype types[NPAIR] = {MPI_2INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_FLOAT_INT, MPI_SHORT_INT};
    CHECK_EQ_INT(MPI_Win_lock_all(0, w.win), MPI_SUCCESS);
    for (int t = 0; t < w.size; t++)
        for (int mx = 0; mx < 2; mx++)
            for (int p = 0; p < NPAIR; p++)
                CHECK_EQ_INT(MPI_Accumulate(bufs[p], NI, types[p], t, (mx * NPAIR + p) * 16 * NI, NI,
                                            types[p], mx ? MPI_MAXLOC : MPI_MINLOC, w.win),
                             MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock_all(w.win), MPI_SUCCESS);
    MPI_Barrier(w.comm);
    twin_local_begin_read(&w);
    const char *m = w.base;
    for (int mx = 0; mx < 2; mx++)
        for (int i = 0; i < NI; i++) {
            int wv = pair_val(0, i), wi = 0;
            for (int r = 1; r < w.size; r++) {
                int v = pair_val(r, i);
                if (mx ? v > wv : v < wv)
                    wv = v, wi = r;
            }
            double gv[NPAIR];
            int gi[NPAIR];
            const struct p_2int *pa = (const void *)(m + (mx * NPAIR + 0) * 16 * NI);
            const struct p_dint *pb = (const void *)(m + (mx * NPAIR + 1) * 16 * NI);
            const struct p_lint *pc = (const void *)(m + (mx * NPAIR + 2) * 16 * NI);
            const struct p_fint *pd = (const void *)(m + (mx * NPAIR + 3) * 16 * NI);
            const struct p_sint *pe = (const void *)(m + (mx * NPAIR + 4) * 16 * NI);
            gv[0] = pa[i].v, gi[0] = pa[i].i;
            gv[1] = pb[i].v, gi[1] = pb[i].i;
            gv[2] = (double)pc[i].v, gi[2] = pc[i].i;
            gv[3] = pd[i].v, gi[3] = pd[i].i;
            gv[4] = pe[i].v, gi[4] = pe[i].i;
            for (int p = 0; p < NPAIR; p++)
                if (gv[p] != wv || gi[p] != wi) {
                    fprintf(stderr, "rank %d: %s pair type %d element %d: (%g, %d), want (%d, %d)\n",
                            T_rank, mx ? "MAXLOC" : "MINLOC", p, i, gv[p], gi[p], wv, wi);
                    CHECK(gv[p] == wv && gi[p] == wi);
                }
        }
    twin_local_end_read(&w);
    MPI_Barrier(w.comm);
    twin_free(&w);
}

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Every rank adds 1 K times to a counter on rank 0 and to a second one on
 * its neighbour; all fetched values together are 0..n*K-1, each once. */
#define K_FOP 300
static void counters(int f, MPI_Datatype type, int size)
{
    struct twin w;
    twin_create(&w, f, 16, size, MPI_INFO_NULL, MPI_COMM_WORLD);
    int t = (w.rank + 1) % w.size;
    static long long mine[2][K_FOP];
    long long one = 1;
    char buf[8], out[8];
    memcpy(buf, &one, 8); /* little-endian: the low bytes are 1 in either size */
    CHECK_EQ_INT(MPI_Win_lock_all(0, w.win), MPI_SUCCESS);
    for (int k = 0; k < K_FOP; k++)
        for (int c = 0; c < 2; c++) {
            int target = c ? t : 0;
            memset(out, 0, sizeof out);
            CHECK_EQ_INT(MPI_Fetch_and_op(buf, out, type, target, tdisp(&w, target, (size_t)c * 8),
                                          MPI_SUM, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(target, w.win), MPI_SUCCESS);
            long long v = 0;
            memcpy(&v, out, (size_t)size);
            mine[c][k] = v;
        }
    CHECK_EQ_INT(MPI_Win_unlock_all(w.win), MPI_SUCCESS);
    long long *all = T_rank == 0 ? malloc(sizeof(long long) * 2 * K_FOP * (size_t)w.size) : NULL;
    MPI_Gather(mine, 2 * K_FOP, MPI_LONG_LONG, all, 2 * K_FOP, MPI_LONG_LONG, 0, w.comm);
    if (w.rank == 0) {
        /* counter on rank 0: column 0 of every rank */
        long long *zero = malloc(sizeof(long long) * K_FOP * (size_t)w.size);
        for (int r = 0; r < w.size; r++)
            memcpy(zero + (size_t)r * K_FOP, all + (size_t)r * 2 * K_FOP, sizeof(long long) * K_FOP);
        qsort(zero, (size_t)K_FOP * (size_t)w.size, sizeof *zero, cmp_ll);
        for (long long i = 0; i < (long long)K_FOP * w.size; i++)
            if (zero[i] != i) {
                fprintf(stderr, "%s counter on rank 0: sorted fetched value %lld is %lld\n",
                        flavour_name[f], i, zero[i]);
                CHECK_EQ_INT(zero[i], i);
            }
        free(zero);
        free(all);
    }
    /* the neighbour's second counter was hit by me alone: 0..K-1 in order */
    for (int k = 0; k < K_FOP; k++)
        CHECK_EQ_INT(mine[1][k], k);
    MPI_Barrier(w.comm);
    twin_local_begin_read(&w);
    long long final = 0, final2 = 0;
    memcpy(&final, w.base, (size_t)size);
    memcpy(&final2, (char *)w.base + 8, (size_t)size);
    CHECK_EQ_INT(final2, K_FOP);
    long long want = w.rank == 0 ? (long long)K_FOP * w.size : 0;
    CHECK_EQ_INT(final, want);
    twin_local_end_read(&w);
    MPI_Barrier(w.comm);
    twin_free(&w);
}

/* Everyone tries to swap -1 for its rank: one winner, everyone sees it. */
static void cas_race(int f)
{
    struct twin w;
    twin_create(&w, f, 64, 4, MPI_INFO_NULL, MPI_COMM_WORLD); /* MPICH 4.0 loses local stores to 8-byte windows at 2 ranks */
    int minus = -1, me = w.rank, got = -2;
    int target = w.size - 1;
    if (w.rank == target) {
        CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, w.win), MPI_SUCCESS);
        *(int *)w.base = -1;
        CHECK_EQ_INT(MPI_Win_unlock(target, w.win), MPI_SUCCESS);
    }
    MPI_Barrier(w.comm);
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Compare_and_swap(&me, &minus, &got, MPI_INT, target, tdisp(&w, target, 0),
                                      w.win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock(target, w.win), MPI_SUCCESS);
    int *seen = malloc(sizeof(int) * (size_t)w.size);
    MPI_Allgather(&got, 1, MPI_INT, seen, 1, MPI_INT, w.comm);
    int winners = 0, winner = -1;
    for (int r = 0; r < w.size; r++)
        if (seen[r] == -1)
            winners++, winner = r;
    if (winners != 1)
        fprintf(stderr, "rank %d: %s: Compare_and_swap race: %d winners (I fetched %d)\n", T_rank,
                flavour_name[f], winners, got);
    CHECK_EQ_INT(winners, 1);
    for (int r = 0; r < w.size; r++)
        if (r != winner)
            CHECK_EQ_INT(seen[r], winner);
    int final = -3;
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get(&final, 1, MPI_INT, target, tdisp(&w, target, 0), 1, MPI_INT, w.win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock(target, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(final, winner);
    free(seen);
    MPI_Barrier(w.comm);
    twin_free(&w);
}

/* Default accumulate_ordering (rar,raw,war,waw): my accumulates to one place
 * happen in the order I issued them, without a flush between. */
static void ordering(int f)
{
    struct twin w;
    twin_create(&w, f, (size_t)64 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD);
    int t = (w.rank + 1) % w.size;
    MPI_Aint at = tdisp(&w, t, (size_t)(w.rank % 64) * 8);
    CHECK_EQ_INT(MPI_Win_lock_all(0, w.win), MPI_SUCCESS);
    for (long long round = 1; round <= 20; round++) {
        long long one = 1000 * round, two = one + 1, add = 5, got = -1, got2 = -1;
        CHECK_EQ_INT(MPI_Accumulate(&one, 1, MPI_LONG_LONG, t, at, 1, MPI_LONG_LONG, MPI_REPLACE, w.win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Accumulate(&two, 1, MPI_LONG_LONG, t, at, 1, MPI_LONG_LONG, MPI_REPLACE, w.win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, &got, 1, MPI_LONG_LONG, t, at, 1,
                                        MPI_LONG_LONG, MPI_NO_OP, w.win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Accumulate(&add, 1, MPI_LONG_LONG, t, at, 1, MPI_LONG_LONG, MPI_SUM, w.win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Fetch_and_op(NULL, &got2, MPI_LONG_LONG, t, at, MPI_NO_OP, w.win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
        CHECK_EQ_INT(got, two);
        CHECK_EQ_INT(got2, two + 5);
    }
    CHECK_EQ_INT(MPI_Win_unlock_all(w.win), MPI_SUCCESS);
    MPI_Barrier(w.comm);
    twin_free(&w);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    make_types();
    all_to_all(FL_ALLOCATE, 1);
    all_to_all(FL_CREATE, 0);
    all_to_all(FL_SHARED, 0);
    all_to_all(FL_DYNAMIC, 1);
    minloc_maxloc();
    counters(FL_ALLOCATE, MPI_LONG_LONG, 8);
    counters(FL_CREATE, MPI_INT, 4);
    counters(FL_DYNAMIC, MPI_UINT64_T, 8);
    for (int f = 0; f < FL_COUNT; f++) {
        cas_race(f);
        ordering(f);
    }
    test_done("rma_accops");
    return 0;
}
