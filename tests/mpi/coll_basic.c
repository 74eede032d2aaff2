/* coll_basic — every blocking collective against a serial reference: all
 * roots, sizes on both sides of each algorithm switch, MPI_IN_PLACE, v-variants
 * with zero counts, a non-commutative user op (2x2 matrix product), and
 * results that must be identical on every rank.  With COLL_NONBLOCKING the
 * same checks run through the I-forms (coll_nbasic). */
#include "mpitest.h"

/* DO(Bcast, args...) calls MPI_Bcast, or MPI_Ibcast + MPI_Wait. */
#ifdef COLL_NONBLOCKING
#define DO(name, ...)                                                               \
    do {                                                                            \
        MPI_Request rq_;                                                            \
        CHECK_EQ_INT(I_##name(__VA_ARGS__, &rq_), MPI_SUCCESS);                     \
        CHECK_EQ_INT(MPI_Wait(&rq_, MPI_STATUS_IGNORE), MPI_SUCCESS);               \
        CHECK(rq_ == MPI_REQUEST_NULL);                                             \
    } while (0)
#define I_Barrier MPI_Ibarrier
#define I_Bcast MPI_Ibcast
#define I_Reduce MPI_Ireduce
#define I_Allreduce MPI_Iallreduce
#define I_Scan MPI_Iscan
#define I_Exscan MPI_Iexscan
#define I_Gather MPI_Igather
#define I_Scatter MPI_Iscatter
#define I_Gatherv MPI_Igatherv
#define I_Scatterv MPI_Iscatterv
#define I_Allgather MPI_Iallgather
#define I_Allgatherv MPI_Iallgatherv
#define I_Alltoall MPI_Ialltoall
#define I_Alltoallv MPI_Ialltoallv
#define I_Alltoallw MPI_Ialltoallw
#define I_Reduce_scatter MPI_Ireduce_scatter
#define I_Reduce_scatter_block MPI_Ireduce_scatter_block
#else
#define DO(name, ...) CHECK_EQ_INT(MPI_##name(__VA_ARGS__), MPI_SUCCESS)
#endif

static int V(int r, int i) { return r * 1000003 + i * 7 + 1; }

static int *ints(size_t n)
{
    int *p = malloc((n ? n : 1) * sizeof *p);
    CHECK(p);
    return p;
}

static void test_bcast(void)
{
    static const int counts[] = {0, 1, 13, 5000, 100000};
    for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++)
        for (int root = 0; root < T_size; root++) {
            int n = counts[k], *b = ints((size_t)n);
            for (int i = 0; i < n; i++)
                b[i] = T_rank == root ? V(root, i) : -1;
            DO(Bcast, b, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK_EQ_INT(b[i], V(root, i));
            free(b);
        }
}

static void test_reduce(void)
{
    static const int counts[] = {1, 3, 100, 4096, 10000};
    for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k], *s = ints((size_t)n), *r = ints((size_t)n);
        for (int root = 0; root < T_size; root += (T_size > 3 ? 2 : 1))
            for (int inplace = 0; inplace < 2; inplace++) {
                for (int i = 0; i < n; i++) {
                    s[i] = V(T_rank, i);
                    r[i] = inplace && T_rank == root ? V(T_rank, i) : -5;
                }
                const void *sb = inplace && T_rank == root ? MPI_IN_PLACE : s;
                DO(Reduce, sb, r, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
                if (T_rank == root)
                    for (int i = 0; i < n; i++) {
                        int want = 0;
                        for (int q = 0; q < T_size; q++)
                            want += V(q, i);
                        CHECK_EQ_INT(r[i], want);
                    }
            }
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < n; i++)
                s[i] = r[i] = V(T_rank, i);
            DO(Allreduce, inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK_EQ_INT(r[i], V(T_size - 1, i));
            for (int i = 0; i < n; i++)
                s[i] = r[i] = V(T_rank, i);
            DO(Scan, inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++) {
                int want = 0;
                for (int q = 0; q <= T_rank; q++)
                    want += V(q, i);
                CHECK_EQ_INT(r[i], want);
            }
            for (int i = 0; i < n; i++)
                s[i] = r[i] = V(T_rank, i);
            DO(Exscan, inplace ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            for (int i = 0; i < n && T_rank > 0; i++) {
                int want = 0;
                for (int q = 0; q < T_rank; q++)
                    want += V(q, i);
                CHECK_EQ_INT(r[i], want);
            }
        }
        free(s);
        free(r);
    }
}

static void test_gather_scatter(void)
{
    static const int counts[] = {1, 100, 3000};
    int P = T_size;
    for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k];
        int *s = ints((size_t)n * P), *r = ints((size_t)n * P);
        for (int root = 0; root < P; root++)
            for (int inplace = 0; inplace < 2; inplace++) {
                int ip = inplace && T_rank == root;
                for (int i = 0; i < n; i++)
                    s[i] = V(T_rank, i);
                for (int i = 0; i < n * P; i++)
                    r[i] = ip && i / n == T_rank ? V(T_rank, i % n) : -7;
                DO(Gather, ip ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
                if (T_rank == root)
                    for (int i = 0; i < n * P; i++)
                        CHECK_EQ_INT(r[i], V(i / n, i % n));
                /* scatter: root's block q for rank q is V(q + 100, i) */
                for (int i = 0; i < n * P; i++)
                    s[i] = V(i / n + 100, i % n);
                for (int i = 0; i < n; i++)
                    r[i] = -9;
                DO(Scatter, s, n, MPI_INT, ip ? MPI_IN_PLACE : r, n, MPI_INT, root, MPI_COMM_WORLD);
                if (!ip)
                    for (int i = 0; i < n; i++)
                        CHECK_EQ_INT(r[i], V(T_rank + 100, i));
            }
        free(s);
        free(r);
    }
}

static void test_all(void)
{
    static const int counts[] = {1, 100, 20000};
    int P = T_size;
    for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k];
        int *s = ints((size_t)n * P), *r = ints((size_t)n * P);
        for (int inplace = 0; inplace < 2; inplace++) {
            for (int i = 0; i < n; i++)
                s[i] = V(T_rank, i);
            for (int i = 0; i < n * P; i++)
                r[i] = inplace && i / n == T_rank ? V(T_rank, i % n) : -3;
            DO(Allgather, inplace ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
            for (int i = 0; i < n * P; i++)
                CHECK_EQ_INT(r[i], V(i / n, i % n));
            /* alltoall: block q of rank p's send is V(p * P + q, i) */
            for (int i = 0; i < n * P; i++)
                s[i] = r[i] = V(T_rank * P + i / n, i % n);
            DO(Alltoall, inplace ? MPI_IN_PLACE : s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
            for (int i = 0; i < n * P; i++)
                CHECK_EQ_INT(r[i], V((i / n) * P + T_rank, i % n));
        }
        free(s);
        free(r);
    }
}

/* Counts per rank with zeros: rank q contributes cnt(q) elements. */
static int cnt(int q) { return q % 3 == 1 ? 0 : 2 * q + 1; }

static void test_v(void)
{
    int P = T_size, total = 0;
    int *counts = ints((size_t)P), *displs = ints((size_t)P);
    for (int q = 0; q < P; q++) {
        counts[q] = cnt(q);
        displs[q] = total + q; /* gaps between blocks */
        total += counts[q] + q;
    }
    int *s = ints((size_t)total), *r = ints((size_t)total);
    for (int root = 0; root < P; root++) {
        for (int i = 0; i < cnt(T_rank); i++)
            s[i] = V(T_rank, i);
        for (int i = 0; i < total; i++)
            r[i] = -1;
        DO(Gatherv, s, cnt(T_rank), MPI_INT, r, counts, displs, MPI_INT, root, MPI_COMM_WORLD);
        if (T_rank == root)
            for (int q = 0; q < P; q++)
                for (int i = 0; i < counts[q]; i++)
                    CHECK_EQ_INT(r[displs[q] + i], V(q, i));
        for (int q = 0; q < P; q++)
            for (int i = 0; i < counts[q]; i++)
                s[displs[q] + i] = V(q + 50, i);
        for (int i = 0; i < total; i++)
            r[i] = -1;
        DO(Scatterv, s, counts, displs, MPI_INT, r, cnt(T_rank), MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < cnt(T_rank); i++)
            CHECK_EQ_INT(r[i], V(T_rank + 50, i));
    }
    for (int i = 0; i < cnt(T_rank); i++)
        s[i] = V(T_rank, i);
    for (int i = 0; i < total; i++)
        r[i] = -1;
    DO(Allgatherv, s, cnt(T_rank), MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < P; q++)
        for (int i = 0; i < counts[q]; i++)
            CHECK_EQ_INT(r[displs[q] + i], V(q, i));
    /* alltoallv: rank p sends (p + q) % 3 elements to q, at packed offsets */
    int *sc = ints((size_t)P), *sd = ints((size_t)P), *rc = ints((size_t)P), *rd = ints((size_t)P);
    int so = 0, ro = 0;
    for (int q = 0; q < P; q++) {
        sc[q] = (T_rank + q) % 3;
        sd[q] = so;
        so += sc[q];
        rc[q] = (q + T_rank) % 3;
        rd[q] = ro + 1;
        ro += rc[q] + 1;
    }
    int *s2 = ints((size_t)so), *r2 = ints((size_t)ro + 1);
    for (int q = 0; q < P; q++)
        for (int i = 0; i < sc[q]; i++)
            s2[sd[q] + i] = V(T_rank * P + q, i);
    DO(Alltoallv, s2, sc, sd, MPI_INT, r2, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < P; q++)
        for (int i = 0; i < rc[q]; i++)
            CHECK_EQ_INT(r2[rd[q] + i], V(q * P + T_rank, i));
    /* alltoallw: the same exchange with byte displacements and per-peer types */
    MPI_Datatype *types = malloc((size_t)P * sizeof *types);
    int *sdb = ints((size_t)P), *rdb = ints((size_t)P);
    for (int q = 0; q < P; q++) {
        types[q] = MPI_INT;
        sdb[q] = sd[q] * (int)sizeof(int);
        rdb[q] = rd[q] * (int)sizeof(int);
    }
    for (int i = 0; i < ro + 1; i++)
        r2[i] = -1;
    DO(Alltoallw, s2, sc, sdb, types, r2, rc, rdb, types, MPI_COMM_WORLD);
    for (int q = 0; q < P; q++)
        for (int i = 0; i < rc[q]; i++)
            CHECK_EQ_INT(r2[rd[q] + i], V(q * P + T_rank, i));
    /* reduce_scatter with zero counts, and the block form, in place or not */
    int rtot = 0;
    for (int q = 0; q < P; q++)
        rtot += counts[q];
    int *in = ints((size_t)rtot), *out = ints((size_t)rtot);
    for (int inplace = 0; inplace < 2; inplace++) {
        for (int i = 0; i < rtot; i++)
            in[i] = out[i] = V(T_rank, i);
        DO(Reduce_scatter, inplace ? MPI_IN_PLACE : in, out, counts, MPI_INT, MPI_SUM,
           MPI_COMM_WORLD);
        int off = 0;
        for (int q = 0; q < T_rank; q++)
            off += counts[q];
        for (int i = 0; i < counts[T_rank]; i++) {
            int want = 0;
            for (int p = 0; p < P; p++)
                want += V(p, off + i);
            CHECK_EQ_INT(out[i], want);
        }
        int bn = 5, *bin = ints((size_t)bn * P), *bout = ints((size_t)bn * P);
        for (int i = 0; i < bn * P; i++)
            bin[i] = bout[i] = V(T_rank, i);
        DO(Reduce_scatter_block, inplace ? MPI_IN_PLACE : bin, bout, bn, MPI_INT, MPI_SUM,
           MPI_COMM_WORLD);
        for (int i = 0; i < bn; i++) {
            int want = 0;
            for (int p = 0; p < P; p++)
                want += V(p, T_rank * bn + i);
            CHECK_EQ_INT(bout[i], want);
        }
        free(bin);
        free(bout);
    }
    free(in);
    free(out);
    free(types);
    free(sdb);
    free(rdb);
    free(s2);
    free(r2);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(s);
    free(r);
    free(counts);
    free(displs);
}

/* ---- non-commutative: 2x2 integer matrices, product in rank order ---------- */
typedef struct { unsigned m[4]; } mat_t;

static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt; /* the matrix type: 4 contiguous MPI_UNSIGNED */
    mat_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        mat_t c;
        c.m[0] = a[i].m[0] * b[i].m[0] + a[i].m[1] * b[i].m[2];
        c.m[1] = a[i].m[0] * b[i].m[1] + a[i].m[1] * b[i].m[3];
        c.m[2] = a[i].m[2] * b[i].m[0] + a[i].m[3] * b[i].m[2];
        c.m[3] = a[i].m[2] * b[i].m[1] + a[i].m[3] * b[i].m[3];
        b[i] = c;
    }
}

static mat_t matrix(int r, int i)
{
    mat_t x = {{(unsigned)(r + 2), (unsigned)(i + 1), (unsigned)(r * 3 + i), 1u}};
    return x;
}

static mat_t product(int from, int to, int i) /* matrix(from) * ... * matrix(to - 1) */
{
    mat_t acc = {{1, 0, 0, 1}};
    for (int q = to - 1; q >= from; q--) {
        mat_t x = matrix(q, i);
        int one = 1;
        matmul(&x, &acc, &one, NULL);
    }
    return acc;
}

static void same(const mat_t *a, mat_t b)
{
    for (int k = 0; k < 4; k++)
        CHECK_EQ_INT(a->m[k], b.m[k]);
}

static void test_noncommutative(void)
{
    MPI_Op op;
    MPI_Datatype mat_type;
    int commute = 1;
    CHECK_EQ_INT(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat_type), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Type_commit(&mat_type), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Op_create(matmul, 0, &op), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Op_commutative(op, &commute), MPI_SUCCESS);
    CHECK_EQ_INT(commute, 0);
    static const int counts[] = {1, 3, 700, 2500}; /* 40 KB: chunked node path when on */
    int P = T_size;
    for (unsigned k = 0; k < sizeof counts / sizeof *counts; k++) {
        int n = counts[k];
        mat_t *s = malloc((size_t)n * P * sizeof *s), *r = malloc((size_t)n * P * sizeof *r);
        CHECK(s && r);
        for (int i = 0; i < n; i++)
            s[i] = matrix(T_rank, i);
        for (int root = 0; root < P; root++) {
            DO(Reduce, s, r, n, mat_type, op, root, MPI_COMM_WORLD);
            if (T_rank == root)
                for (int i = 0; i < n; i++)
                    same(&r[i], product(0, P, i));
        }
        DO(Allreduce, s, r, n, mat_type, op, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            same(&r[i], product(0, P, i));
        DO(Scan, s, r, n, mat_type, op, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            same(&r[i], product(0, T_rank + 1, i));
        DO(Exscan, s, r, n, mat_type, op, MPI_COMM_WORLD);
        for (int i = 0; i < n && T_rank > 0; i++)
            same(&r[i], product(0, T_rank, i));
        for (int i = 0; i < n * P; i++)
            s[i] = matrix(T_rank, i);
        DO(Reduce_scatter_block, s, r, n, mat_type, op, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            same(&r[i], product(0, P, T_rank * n + i));
        free(s);
        free(r);
    }
    CHECK_EQ_INT(MPI_Op_free(&op), MPI_SUCCESS);
    CHECK(op == MPI_OP_NULL);
    MPI_Type_free(&mat_type);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    for (int i = 0; i < 3; i++)
        DO(Barrier, MPI_COMM_WORLD);
    test_bcast();
    test_reduce();
    test_gather_scatter();
    test_all();
    test_v();
    test_noncommutative();
#ifdef COLL_NONBLOCKING
    test_done("coll_nbasic");
#else
    test_done("coll_basic");
#endif
    return 0;
}
