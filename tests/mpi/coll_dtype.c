/* coll_dtype — collectives on derived datatypes: a strided vector (every
 * other int; the gaps must stay untouched) in bcast, gather, scatter,
 * allgather, alltoall (blocking and nonblocking, in place too), received as
 * plain MPI_INTs on the other side; gatherv, scatterv, allgatherv (in place
 * too), alltoallv and alltoallw (mixed receive types) with counts that differ
 * by rank; neighbour alltoall, ineighbor_allgather and alltoallw (mixed
 * receive types) on a periodic ring; a contiguous type under a user op; reductions with user ops on
 * a padded struct and on the strided vector (allreduce blocking, nonblocking
 * and in place, reduce at every root, scan, reduce_scatter (in place too);
 * gaps and padding untouched); and
 * the clear errors for what is not supported (a predefined op on a derived
 * type, a type reaching below its lower bound in a reduction). */
#include <stddef.h>

#include "mpitest.h"

#define N 5    /* vector elements per block */
#define GAP -77

static int V(int r, int i) { return r * 1000 + i; }

/* buffer of nblocks vector blocks: value at even positions, GAP at odd */
static int *strided(int nblocks, int owner_base, int fill)
{
    int *b = malloc((size_t)nblocks * 2 * N * sizeof *b);
    CHECK(b);
    for (int k = 0; k < nblocks * 2 * N; k++)
        b[k] = k % 2 ? GAP : fill ? V(owner_base + k / (2 * N), k / 2 % N) : -1;
    return b;
}

static void check_strided(const int *b, int nblocks, int owner_base)
{
    for (int k = 0; k < nblocks * 2 * N; k++)
        CHECK_EQ_INT(b[k], k % 2 ? GAP : V(owner_base + k / (2 * N), k / 2 % N));
}

/* ---- v and w variants: ranks give different numbers of strided blocks
 * (0 included); displacements leave one untouched block after each rank's */
static int BV(int q, int b, int i) { return q * 1000 + b * 10 + i; }

static int *blocks(int nb) /* nb strided blocks: data -1, gaps GAP */
{
    int *x = malloc(((size_t)nb * 2 * N + 1) * sizeof *x);
    CHECK(x);
    for (int k = 0; k < nb * 2 * N; k++)
        x[k] = k % 2 ? GAP : -1;
    return x;
}

static void set_block(int *x, int k, int q, int b)
{
    for (int i = 0; i < N; i++)
        x[k * 2 * N + 2 * i] = BV(q, b, i);
}

/* block k of x holds (q, b) when want[k] = q * 100 + b, else is untouched (-1) */
static void check_blocks(const int *x, int nb, const int *want)
{
    for (int k = 0; k < nb; k++)
        for (int i = 0; i < N; i++) {
            CHECK_EQ_INT(x[k * 2 * N + 2 * i], want[k] < 0 ? -1 : BV(want[k] / 100, want[k] % 100, i));
            CHECK_EQ_INT(x[k * 2 * N + 2 * i + 1], GAP);
        }
}

/* counts (in blocks) and displacements (blocks, one spare after each) */
static int layout(int P, int (*count)(int q), int *cnt, int *dsp)
{
    int tot = 0;
    for (int q = 0; q < P; q++) {
        cnt[q] = count(q);
        dsp[q] = tot;
        tot += cnt[q] + 1;
    }
    return tot;
}

static int own_count(int q) { return q % 3; }
static int vw_me;
static int to_count(int q) { return (vw_me + q) % 3; } /* alltoall: me -> q and q -> me */

static void vw_tests(MPI_Datatype blk)
{
    int P = T_size, me = T_rank;
    int *cnt = calloc((size_t)P, sizeof *cnt), *dsp = calloc((size_t)P, sizeof *dsp);
    int *want = malloc((size_t)(4 * P + 1) * sizeof *want);
    int nb = layout(P, own_count, cnt, dsp);
    int *mine = blocks(cnt[me] + 1);
    for (int b = 0; b < cnt[me]; b++)
        set_block(mine, b, me, b);
    for (int k = 0; k < nb; k++)
        want[k] = -1;
    for (int q = 0; q < P; q++)
        for (int b = 0; b < cnt[q]; b++)
            want[dsp[q] + b] = q * 100 + b;
    for (int root = 0; root < P; root++) {
        int *all = blocks(nb);
        CHECK_EQ_INT(MPI_Gatherv(mine, cnt[me], blk, all, cnt, dsp, blk, root, MPI_COMM_WORLD),
                     MPI_SUCCESS);
        if (me == root)
            check_blocks(all, nb, want);
        /* and back out: each rank gets its blocks, the spare one untouched */
        int *back = blocks(cnt[me] + 1);
        CHECK_EQ_INT(MPI_Scatterv(all, cnt, dsp, blk, back, cnt[me], blk, root, MPI_COMM_WORLD),
                     MPI_SUCCESS);
        if (me == root) {
            int w2[4] = {-1, -1, -1, -1};
            for (int b = 0; b < cnt[me]; b++)
                w2[b] = me * 100 + b;
            check_blocks(back, cnt[me] + 1, w2);
        }
        free(back);
        free(all);
    }
    /* allgatherv, then in place (my blocks already at my displacement) */
    int *all = blocks(nb);
    CHECK_EQ_INT(MPI_Allgatherv(mine, cnt[me], blk, all, cnt, dsp, blk, MPI_COMM_WORLD), MPI_SUCCESS);
    check_blocks(all, nb, want);
    free(all);
    all = blocks(nb);
    for (int b = 0; b < cnt[me]; b++)
        set_block(all, dsp[me] + b, me, b);
    CHECK_EQ_INT(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, cnt, dsp, blk, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    check_blocks(all, nb, want);
    free(all);

    /* alltoallv: to_count(q) blocks me -> q, values (me * P + q, b) */
    vw_me = me;
    int *scnt = calloc((size_t)P, sizeof *scnt), *sdsp = calloc((size_t)P, sizeof *sdsp);
    int ns = layout(P, to_count, scnt, sdsp), nr = ns; /* symmetric counts */
    int *sb = blocks(ns), *rb = blocks(nr);
    for (int q = 0; q < P; q++)
        for (int b = 0; b < scnt[q]; b++)
            set_block(sb, sdsp[q] + b, me * P + q, b);
    int *rwant = malloc((size_t)nr * sizeof *rwant);
    for (int k = 0; k < nr; k++)
        rwant[k] = -1;
    for (int q = 0; q < P; q++)
        for (int b = 0; b < scnt[q]; b++)
            rwant[sdsp[q] + b] = (q * P + me) * 100 + b;
    CHECK_EQ_INT(MPI_Alltoallv(sb, scnt, sdsp, blk, rb, scnt, sdsp, blk, MPI_COMM_WORLD), MPI_SUCCESS);
    check_blocks(rb, nr, rwant);
    free(rb);
    /* alltoallw: the same data; odd peers' blocks received as plain ints
     * (packed, at the byte displacement of that peer's first block) */
    MPI_Datatype *st = malloc((size_t)P * sizeof *st), *rt = malloc((size_t)P * sizeof *rt);
    int *sbd = malloc((size_t)P * sizeof *sbd), *rc = malloc((size_t)P * sizeof *rc);
    for (int q = 0; q < P; q++) {
        st[q] = blk;
        rt[q] = q % 2 ? MPI_INT : blk;
        sbd[q] = sdsp[q] * 2 * N * (int)sizeof(int);
        rc[q] = q % 2 ? scnt[q] * N : scnt[q];
    }
    rb = blocks(nr);
    MPI_Request rq;
    CHECK_EQ_INT(MPI_Ialltoallw(sb, scnt, sbd, st, rb, rc, sbd, rt, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    for (int q = 0; q < P; q++) {
        int *at = rb + sdsp[q] * 2 * N;
        if (q % 2 == 0) {
            check_blocks(at, scnt[q] + 1, rwant + sdsp[q]);
            continue;
        }
        for (int k = 0; k < scnt[q] * N; k++) /* packed ints, then the rest untouched */
            CHECK_EQ_INT(at[k], BV(q * P + me, k / N, k % N));
        for (int k = scnt[q] * N; k < (scnt[q] + 1) * 2 * N; k++)
            CHECK_EQ_INT(at[k], k % 2 ? GAP : -1);
    }
    free(rb);
    free(st);
    free(rt);
    free(sbd);
    free(rc);
    free(sb);
    free(rwant);
    free(scnt);
    free(sdsp);
    free(mine);
    free(want);
    free(cnt);
    free(dsp);
}

/* ---- neighbourhood collectives on a periodic ring (1-D Cartesian) ------- */
static void neighbor_tests(MPI_Datatype blk)
{
    int P = T_size, me;
    MPI_Comm ring;
    CHECK_EQ_INT(MPI_Cart_create(MPI_COMM_WORLD, 1, (int[]){P}, (int[]){1}, 0, &ring), MPI_SUCCESS);
    MPI_Comm_rank(ring, &me);
    int left = (me + P - 1) % P, right = (me + 1) % P;
    /* alltoall: block 0 goes left, block 1 right; from the left lands in 0 */
    int *s = blocks(2), *r = blocks(3);
    set_block(s, 0, me, 0);
    set_block(s, 1, me, 1);
    CHECK_EQ_INT(MPI_Neighbor_alltoall(s, 1, blk, r, 1, blk, ring), MPI_SUCCESS);
    check_blocks(r, 3, (int[]){left * 100 + 1, right * 100 + 0, -1});
    /* allgather (nonblocking): my block 0 to both */
    free(r);
    r = blocks(3);
    MPI_Request rq;
    CHECK_EQ_INT(MPI_Ineighbor_allgather(s, 1, blk, r, 1, blk, ring, &rq), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    check_blocks(r, 3, (int[]){left * 100 + 0, right * 100 + 0, -1});
    /* alltoallw: what comes from the right arrives as plain ints at byte
     * offset of block 2; the left's as a strided block 0 */
    free(r);
    r = blocks(3);
    int bb = 2 * N * (int)sizeof(int);
    MPI_Aint sd[2] = {0, bb}, rd[2] = {0, 2 * (MPI_Aint)bb};
    MPI_Datatype st[2] = {blk, blk}, rt[2] = {blk, MPI_INT};
    CHECK_EQ_INT(MPI_Neighbor_alltoallw(s, (int[]){1, 1}, sd, st, r, (int[]){1, N}, rd, rt, ring),
                 MPI_SUCCESS);
    check_blocks(r, 2, (int[]){left * 100 + 1, -1});
    for (int i = 0; i < N; i++)
        CHECK_EQ_INT(r[2 * 2 * N + i], BV(right, 0, i));
    for (int i = N; i < 2 * N; i++)
        CHECK_EQ_INT(r[2 * 2 * N + i], i % 2 ? GAP : -1);
    free(s);
    free(r);
    MPI_Comm_free(&ring);
}

/* ---- reductions with user ops on non-contiguous types ------------------ */
struct di {
    double d; /* 4 bytes of padding after i: the type is not contiguous */
    int i;
};

/* per element: d summed, i the largest */
static void sum_max(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    struct di *a = in, *b = inout;
    for (int k = 0; k < *len; k++) {
        b[k].d += a[k].d;
        if (a[k].i > b[k].i)
            b[k].i = a[k].i;
    }
}

/* on the strided blk type: every data int of inout becomes the sum */
static void vec_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
    (void)t;
    int *a = in, *b = inout;
    for (int k = 0; k < *len * 2 * N; k += 2)
        b[k] += a[k];
}

static void reduction_tests(MPI_Datatype blk)
{
    int P = T_size, me = T_rank;
    enum { M = 7 };
    MPI_Datatype di;
    MPI_Aint disp[2] = {offsetof(struct di, d), offsetof(struct di, i)};
    CHECK_EQ_INT(MPI_Type_create_struct(2, (int[]){1, 1}, disp, (MPI_Datatype[]){MPI_DOUBLE, MPI_INT},
                                        &di), MPI_SUCCESS);
    MPI_Datatype dir;
    CHECK_EQ_INT(MPI_Type_create_resized(di, 0, sizeof(struct di), &dir), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Type_commit(&dir), MPI_SUCCESS);
    MPI_Op op, vop;
    CHECK_EQ_INT(MPI_Op_create(sum_max, 1, &op), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Op_create(vec_sum, 1, &vop), MPI_SUCCESS);
    struct di in[M], out[M];
    unsigned char *raw = (unsigned char *)out;
    for (int k = 0; k < M; k++)
        in[k] = (struct di){.d = me + k, .i = (me * 7 + k) % P};
    double dsum[M];
    int imax[M];
    for (int k = 0; k < M; k++) {
        dsum[k] = (double)P * (P - 1) / 2 + (double)P * k;
        imax[k] = 0;
        for (int q = 0; q < P; q++)
            imax[k] = (q * 7 + k) % P > imax[k] ? (q * 7 + k) % P : imax[k];
    }
#define CHECK_DI(o, want_d, want_i)                                                            \
    for (int k = 0; k < M; k++) {                                                              \
        CHECK((o)[k].d == (want_d));                                                           \
        CHECK_EQ_INT((o)[k].i, (want_i));                                                      \
        for (size_t b = offsetof(struct di, i) + sizeof(int); b < sizeof(struct di); b++)      \
            CHECK_EQ_INT(raw[k * sizeof(struct di) + b], 0xab); /* padding untouched */       \
    }
    for (int blocking = 0; blocking < 2; blocking++) {
        memset(out, 0xab, sizeof out);
        if (blocking) {
            CHECK_EQ_INT(MPI_Allreduce(in, out, M, dir, op, MPI_COMM_WORLD), MPI_SUCCESS);
        } else {
            MPI_Request rq;
            CHECK_EQ_INT(MPI_Iallreduce(in, out, M, dir, op, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
        }
        CHECK_DI(out, dsum[k], imax[k]);
    }
    /* in place */
    memset(out, 0xab, sizeof out);
    for (int k = 0; k < M; k++)
        out[k].d = in[k].d, out[k].i = in[k].i;
    CHECK_EQ_INT(MPI_Allreduce(MPI_IN_PLACE, out, M, dir, op, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_DI(out, dsum[k], imax[k]);
    for (int root = 0; root < P; root++) {
        memset(out, 0xab, sizeof out);
        CHECK_EQ_INT(MPI_Reduce(in, out, M, dir, op, root, MPI_COMM_WORLD), MPI_SUCCESS);
        if (me == root) {
            CHECK_DI(out, dsum[k], imax[k]);
        } else {
            for (size_t b = 0; b < sizeof out; b++)
                CHECK_EQ_INT(raw[b], 0xab); /* not the root: nothing written */
        }
    }
    /* scan: d summed over ranks 0..me */
    memset(out, 0xab, sizeof out);
    CHECK_EQ_INT(MPI_Scan(in, out, M, dir, op, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < M; k++) {
        int im = 0;
        for (int q = 0; q <= me; q++)
            im = (q * 7 + k) % P > im ? (q * 7 + k) % P : im;
        CHECK(out[k].d == (double)me * (me + 1) / 2 + (double)(me + 1) * k);
        CHECK_EQ_INT(out[k].i, im);
    }
    /* reduce_scatter: rank q gets q % 3 + 1 elements; then in place */
    {
        int *rc = malloc((size_t)P * sizeof *rc), tot = 0, first = 0;
        for (int q = 0; q < P; q++) {
            rc[q] = q % 3 + 1;
            first += q < me ? rc[q] : 0;
            tot += rc[q];
        }
        struct di *big = malloc((size_t)tot * sizeof *big), *res = malloc(3 * sizeof *res);
        for (int in_pl = 0; in_pl < 2; in_pl++) {
            memset(big, 0xab, (size_t)tot * sizeof *big);
            for (int k = 0; k < tot; k++)
                big[k].d = me + k, big[k].i = (me * 7 + k) % P;
            memset(res, 0xab, 3 * sizeof *res);
            struct di *o = in_pl ? big : res;
            unsigned char *ob = (unsigned char *)o;
            CHECK_EQ_INT(MPI_Reduce_scatter(in_pl ? MPI_IN_PLACE : big, o, rc, dir, op, MPI_COMM_WORLD),
                         MPI_SUCCESS);
            for (int k = 0; k < rc[me]; k++) {
                int g = first + k, im = 0;
                for (int q = 0; q < P; q++)
                    im = (q * 7 + g) % P > im ? (q * 7 + g) % P : im;
                CHECK(o[k].d == (double)P * (P - 1) / 2 + (double)P * g);
                CHECK_EQ_INT(o[k].i, im);
                for (size_t b = offsetof(struct di, i) + sizeof(int); b < sizeof(struct di); b++)
                    CHECK_EQ_INT(ob[k * sizeof(struct di) + b], 0xab);
            }
        }
        free(big);
        free(res);
        free(rc);
    }
    /* the strided vector under a user op: gaps of the result untouched */
    int *v = strided(1, me, 1), *r = strided(1, 0, 0);
    CHECK_EQ_INT(MPI_Allreduce(v, r, 1, blk, vop, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int q = 0; q < P; q++)
            want += V(q, i);
        CHECK_EQ_INT(r[2 * i], want);
        CHECK_EQ_INT(r[2 * i + 1], GAP);
    }
    free(v);
    free(r);
    /* a type whose data lies before its lower bound: refused, clearly */
    MPI_Datatype neg;
    CHECK_EQ_INT(MPI_Type_create_resized(MPI_INT, -4, 8, &neg), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Type_commit(&neg), MPI_SUCCESS);
    int a2[4] = {0}, b2[4];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Allreduce(a2 + 1, b2 + 1, 1, neg, vop, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&neg);
    MPI_Op_free(&op);
    MPI_Op_free(&vop);
    MPI_Type_free(&dir);
    MPI_Type_free(&di);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int P = T_size, me = T_rank;
    MPI_Datatype vec, blk; /* vec: N ints with stride 2; blk: N vecs' extent fixed to 2N ints */
    CHECK_EQ_INT(MPI_Type_vector(N, 1, 2, MPI_INT, &vec), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Type_create_resized(vec, 0, 2 * N * (MPI_Aint)sizeof(int), &blk), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Type_commit(&blk), MPI_SUCCESS);

    for (int root = 0; root < P; root++) {
        int *b = strided(1, root, me == root);
        for (int k = 1; k < 2 * N; k += 2)
            b[k] = GAP;
        CHECK_EQ_INT(MPI_Bcast(b, 1, blk, root, MPI_COMM_WORLD), MPI_SUCCESS);
        check_strided(b, 1, root);
        free(b);
        /* nonblocking, receivers use plain ints */
        int plain[N], *src = strided(1, root, 1);
        MPI_Request rq;
        if (me == root)
            MPI_Ibcast(src, 1, blk, root, MPI_COMM_WORLD, &rq);
        else
            MPI_Ibcast(plain, N, MPI_INT, root, MPI_COMM_WORLD, &rq);
        CHECK_EQ_INT(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
        if (me != root)
            for (int i = 0; i < N; i++)
                CHECK_EQ_INT(plain[i], V(root, i));
        /* blocking, the same mix: ranks with different types take the same path */
        for (int i = 0; i < N; i++)
            plain[i] = -1;
        if (me == root)
            CHECK_EQ_INT(MPI_Bcast(src, 1, blk, root, MPI_COMM_WORLD), MPI_SUCCESS);
        else
            CHECK_EQ_INT(MPI_Bcast(plain, N, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
        if (me != root)
            for (int i = 0; i < N; i++)
                CHECK_EQ_INT(plain[i], V(root, i));
        free(src);
        /* gather: strided blocks in, strided blocks out at the root */
        int *mine = strided(1, me, 1), *all = strided(P, 0, 0);
        for (int k = 1; k < 2 * N * P; k += 2)
            all[k] = GAP;
        CHECK_EQ_INT(MPI_Gather(mine, 1, blk, all, 1, blk, root, MPI_COMM_WORLD), MPI_SUCCESS);
        if (me == root)
            check_strided(all, P, 0);
        /* scatter back out, receivers take plain ints */
        int got[N];
        CHECK_EQ_INT(MPI_Scatter(all, 1, blk, got, N, MPI_INT, root, MPI_COMM_WORLD), MPI_SUCCESS);
        if (me == root) /* the root's copy of all is complete */
            for (int i = 0; i < N; i++)
                CHECK_EQ_INT(got[i], V(me, i));
        free(mine);
        free(all);
    }
    /* allgather in place on strided blocks */
    int *all = strided(P, 0, 0);
    for (int k = 0; k < 2 * N; k += 2)
        all[me * 2 * N + k] = V(me, k / 2);
    CHECK_EQ_INT(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, blk, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    check_strided(all, P, 0);
    /* allgather: odd ranks receive plain ints, even ranks strided blocks */
    int mine5[N], *plain_all = malloc((size_t)P * N * sizeof *plain_all);
    for (int i = 0; i < N; i++)
        mine5[i] = V(me, i);
    int *sall = strided(P, 0, 0);
    for (int k = 1; k < 2 * N * P; k += 2)
        sall[k] = GAP;
    if (me % 2) {
        CHECK_EQ_INT(MPI_Allgather(mine5, N, MPI_INT, plain_all, N, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
        for (int k = 0; k < P * N; k++)
            CHECK_EQ_INT(plain_all[k], V(k / N, k % N));
    } else {
        CHECK_EQ_INT(MPI_Allgather(mine5, N, MPI_INT, sall, 1, blk, MPI_COMM_WORLD), MPI_SUCCESS);
        check_strided(sall, P, 0);
    }
    free(sall);
    free(plain_all);
    /* alltoall: block q of my send goes to q; received strided */
    int *s = malloc((size_t)P * N * sizeof *s), *r = strided(P, 0, 0);
    for (int k = 0; k < P * N; k++)
        s[k] = V(me * P + k / N, k % N);
    for (int k = 1; k < 2 * N * P; k += 2)
        r[k] = GAP;
    CHECK_EQ_INT(MPI_Alltoall(s, N, MPI_INT, r, 1, blk, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int q = 0; q < P; q++)
        for (int i = 0; i < N; i++) {
            CHECK_EQ_INT(r[q * 2 * N + 2 * i], V(q * P + me, i));
            CHECK_EQ_INT(r[q * 2 * N + 2 * i + 1], GAP);
        }
    free(s);
    free(r);
    free(all);

    vw_tests(blk);
    neighbor_tests(blk);

    /* a contiguous derived type reduces with a user op */
    MPI_Datatype four;
    CHECK_EQ_INT(MPI_Type_contiguous(4, MPI_INT, &four), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Type_commit(&four), MPI_SUCCESS);
    int x[8], y[8];
    for (int i = 0; i < 8; i++)
        x[i] = me + i;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Allreduce(x, y, 2, four, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Allreduce(x, y, 1, blk, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    reduction_tests(blk);

    MPI_Type_free(&four);
    MPI_Type_free(&blk);
    MPI_Type_free(&vec);
    test_done("coll_dtype");
    return 0;
}
