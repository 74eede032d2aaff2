/* dtype_fuzz — random nested derived types checked against an independent
 * oracle: the type map rebuilt from MPI_Type_get_envelope/get_contents alone
 * (the standard's definitions), so the engine's flattened layout, bounds and
 * pack order are compared with what the constructors mean.  For each type:
 * size, true lb/extent, MPI_Pack bytes of two elements, MPI_Unpack into a
 * filled buffer (only the type map's bytes change), and the same bytes sent
 * to this rank with the type and received as MPI_BYTE (and back), which runs
 * the point-to-point paths (packed, iovec, direct pulls) on them. */
#include "mpitest.h"

#define SPAN (1 << 20)     /* test buffer; element origin in its middle */
#define ORIGIN (SPAN / 2)
#define MAXLEAF (1 << 16)

static unsigned rng = 12345;
static unsigned rnd(unsigned n) { rng = rng * 1103515245u + 12345u; return (rng >> 8) % n; }

static const MPI_Datatype basics[4] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE};

/* ---- oracle: the type map from envelope/contents ---------------------------- */
typedef struct leaf {
    long off;
    int size;
} leaf_t;
static leaf_t leaves[MAXLEAF];
static int nleaves, overflow;

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

static void walk(MPI_Datatype t, long base)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED) {
        int s;
        MPI_Type_size(t, &s);
        if (nleaves == MAXLEAF) {
            overflow = 1;
            return;
        }
        leaves[nleaves++] = (leaf_t){base, s};
        return;
    }
    int *in = malloc((size_t)(ni + 1) * sizeof *in);
    MPI_Aint *a = malloc((size_t)(na + 1) * sizeof *a);
    MPI_Datatype *ty = malloc((size_t)(nd + 1) * sizeof *ty);
    MPI_Type_get_contents(t, ni, na, nd, in, a, ty);
    MPI_Aint e0 = extent_of(ty[0]);
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        walk(ty[0], base);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        for (int i = 0; i < in[0]; i++)
            walk(ty[0], base + i * e0);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        long stride = comb == MPI_COMBINER_VECTOR ? in[2] * e0 : a[0];
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                walk(ty[0], base + i * stride + j * e0);
        break;
    }
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                walk(ty[0], base + in[1 + in[0] + i] * e0 + j * e0);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                walk(ty[0], base + a[i] + j * e0);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                walk(ty[0], base + in[2 + i] * e0 + j * e0);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1]; j++)
                walk(ty[0], base + a[i] + j * e0);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < in[0]; i++)
            for (int j = 0; j < in[1 + i]; j++)
                walk(ty[i], base + a[i] + j * extent_of(ty[i]));
        break;
    case MPI_COMBINER_SUBARRAY: { /* 2-D, C order here */
        int *sz = in + 1, *sub = in + 3, *st = in + 5;
        for (int r = 0; r < sub[0]; r++)
            for (int c = 0; c < sub[1]; c++)
                walk(ty[0], base + ((long)(st[0] + r) * sz[1] + st[1] + c) * e0);
        break;
    }
    default:
        CHECK(!"unexpected combiner");
    }
    for (int i = 0; i < nd; i++) {
        int n2, a2, d2, c2;
        MPI_Type_get_envelope(ty[i], &n2, &a2, &d2, &c2);
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&ty[i]);
    }
    free(in);
    free(a);
    free(ty);
}

/* ---- random types --------------------------------------------------------------- */
static int small(int n) { return 1 + (int)rnd((unsigned)n); }
static int disp(int n) { return (int)rnd(2u * (unsigned)n + 1) - n; } /* may be negative */

static MPI_Datatype gen(int depth)
{
    MPI_Datatype old = basics[rnd(4)], t;
    if (depth > 0 && rnd(3))
        old = gen(depth - 1);
    int k = (int)rnd(11);
    MPI_Aint e = extent_of(old);
    switch (k) {
    case 0:
        MPI_Type_contiguous(small(4), old, &t);
        break;
    case 1:
        MPI_Type_vector(small(4), small(3), disp(6), old, &t);
        break;
    case 2:
        MPI_Type_create_hvector(small(4), small(3), (MPI_Aint)disp(6) * (e + 3), old, &t);
        break;
    case 3: {
        int n = small(4), bl[4], d[4];
        for (int i = 0; i < n; i++)
            bl[i] = (int)rnd(3), d[i] = disp(8);
        MPI_Type_indexed(n, bl, d, old, &t);
        break;
    }
    case 4: {
        int n = small(4), bl[4];
        MPI_Aint d[4];
        for (int i = 0; i < n; i++)
            bl[i] = small(3), d[i] = (MPI_Aint)disp(40);
        MPI_Type_create_hindexed(n, bl, d, old, &t);
        break;
    }
    case 5: {
        int n = small(4), d[4];
        for (int i = 0; i < n; i++)
            d[i] = disp(8);
        MPI_Type_create_indexed_block(n, small(2), d, old, &t);
        break;
    }
    case 6: {
        int n = small(4);
        MPI_Aint d[4];
        for (int i = 0; i < n; i++)
            d[i] = (MPI_Aint)disp(64);
        MPI_Type_create_hindexed_block(n, small(2), d, old, &t);
        break;
    }
    case 7: {
        int n = small(3), bl[3];
        MPI_Aint d[3];
        MPI_Datatype ty[3];
        for (int i = 0; i < n; i++) {
            bl[i] = small(2);
            d[i] = (MPI_Aint)disp(48);
            ty[i] = i == 0 ? old : basics[rnd(4)];
        }
        MPI_Type_create_struct(n, bl, d, ty, &t);
        break;
    }
    case 8:
        MPI_Type_create_resized(old, (MPI_Aint)disp(16), e + (MPI_Aint)rnd(24), &t);
        break;
    case 9:
        MPI_Type_dup(old, &t);
        break;
    default: {
        int sz[2] = {small(5) + 1, small(5) + 1}, sub[2], st[2];
        for (int i = 0; i < 2; i++) {
            sub[i] = small(sz[i]);
            st[i] = (int)rnd((unsigned)(sz[i] - sub[i] + 1));
        }
        MPI_Type_create_subarray(2, sz, sub, st, MPI_ORDER_C, old, &t);
        break;
    }
    }
    int ni, na, nd, comb;
    MPI_Type_get_envelope(old, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_free(&old);
    return t;
}

static int checked; /* types that went through every check */
static int print_bounds; /* argv[1] == "bounds": list every type's bounds (compare MPIs) */
static unsigned char src[SPAN], dst[SPAN], want[SPAN], packed[SPAN / 4], bytes[SPAN / 4];

static void one(int iter)
{
    MPI_Datatype t = gen(2);
    MPI_Type_commit(&t);
    nleaves = overflow = 0;
    walk(t, 0);
    MPI_Aint ext = extent_of(t);
    int count = 2, n = nleaves;
    if (print_bounds) {
        MPI_Aint lb0, e0, tl0, te0;
        MPI_Count s0;
        MPI_Type_get_extent(t, &lb0, &e0);
        MPI_Type_get_true_extent(t, &tl0, &te0);
        MPI_Type_size_x(t, &s0);
        printf("%d size %lld lb %ld extent %ld true %ld %ld\n", iter, (long long)s0, (long)lb0,
               (long)e0, (long)tl0, (long)te0);
    }
    if (overflow)
        goto out;
    long lo = 0, hi = 0, size = 0;
    for (int i = 0; i < n; i++) {
        size += leaves[i].size;
        if (i == 0 || leaves[i].off < lo)
            lo = leaves[i].off;
        if (i == 0 || leaves[i].off + leaves[i].size > hi)
            hi = leaves[i].off + leaves[i].size;
    }
    long span_lo = lo < lo + ext ? lo : lo + ext, span_hi = hi > hi + ext ? hi : hi + ext;
    if (size * count > (long)sizeof packed || ORIGIN + span_lo < 0 || ORIGIN + span_hi > SPAN)
        goto out;
    MPI_Count sz;
    MPI_Aint tlb, text;
    MPI_Type_size_x(t, &sz);
    MPI_Type_get_true_extent(t, &tlb, &text);
    CHECK_EQ_INT(sz, size);
    if (n) {
        CHECK_EQ_INT(tlb, lo);
        CHECK_EQ_INT(text, hi - lo);
    }
    /* pack: the oracle's bytes in type-map order */
    fill(src, SPAN, (unsigned)iter);
    size_t k = 0;
    for (int e = 0; e < count; e++)
        for (int i = 0; i < n; i++)
            for (int b = 0; b < leaves[i].size; b++)
                want[k++] = src[ORIGIN + e * ext + leaves[i].off + b];
    int pos = 0;
    MPI_Pack(src + ORIGIN, count, t, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
    CHECK_EQ_INT(pos, (long)k);
    CHECK(memcmp(packed, want, k) == 0);
    /* unpack into a filled buffer: only the type map's bytes change */
    memset(dst, 0xa5, SPAN);
    pos = 0;
    MPI_Unpack(packed, (int)k, &pos, dst + ORIGIN, count, t, MPI_COMM_WORLD);
    memset(want, 0xa5, SPAN);
    k = 0;
    for (int e = 0; e < count; e++)
        for (int i = 0; i < n; i++)
            for (int b = 0; b < leaves[i].size; b++)
                want[ORIGIN + e * ext + leaves[i].off + b] = packed[k++];
    CHECK(memcmp(dst, want, SPAN) == 0);
    /* through point-to-point: typed -> bytes, then bytes -> typed */
    MPI_Sendrecv(src + ORIGIN, count, t, T_rank, 1, bytes, (int)k, MPI_BYTE, T_rank, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(memcmp(bytes, packed, k) == 0);
    memset(dst, 0xa5, SPAN);
    MPI_Sendrecv(bytes, (int)k, MPI_BYTE, T_rank, 2, dst + ORIGIN, count, t, T_rank, 2,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(memcmp(dst, want, SPAN) == 0);
    checked++;
out:
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    rng = 12345u + 7919u * (unsigned)T_rank;
    print_bounds = argc > 1 && strcmp(argv[1], "bounds") == 0;
    for (int i = 0; i < 300; i++)
        one(i);
    CHECK(checked >= 200); /* most random types fit the buffers */
    if (T_rank == 0)
        printf("dtype_fuzz: %d of 300 types checked\n", checked);
    test_done("dtype_fuzz");
    return 0;
}
