/* defects — valid programs that hung, crashed or computed wrong data, found
 * by building public MPI tests against Skiff (issue 15, item 5).  One case
 * per run, named by argv[1], so ctest shows which one fails; a hang fails by
 * the test's TIMEOUT.  Cases that need more ranks than the run has pass
 * without checking (each is also registered at rank counts that do check). */
#include <complex.h>
#include <stddef.h>
#include <stdio.h>

#include "mpi_err_classes.h" /* MPI_H_ERROR_CLASSES: every MPI_ERR_ name in mpi.h */
#include "mpitest.h"

/* ---- communicators ------------------------------------------------------- */

/* MPI_Comm_free with a receive still pending on the communicator: the
 * receive still matches the message sent on it afterwards (a small one and a
 * rendezvous one); the sender frees its copy with the sends still pending. */
#define BIG (1 << 20)
static void comm_free_pending(void)
{
    int peer = test_partner(), receiver = T_rank <= peer, sender = T_rank >= peer;
    MPI_Comm d;
    CHECK_EQ_INT(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    unsigned char *big = malloc(BIG), *out = malloc(BIG);
    int small = -1, mine = 1000 + T_rank;
    fill(out, BIG, (unsigned)T_rank);
    MPI_Request r[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (receiver) {
        CHECK_EQ_INT(MPI_Irecv(&small, 1, MPI_INT, peer, 3, d, &r[0]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Irecv(big, BIG, MPI_BYTE, peer, 4, d, &r[1]), MPI_SUCCESS);
    }
    if (sender && peer == T_rank) { /* alone: send to myself before the free */
        CHECK_EQ_INT(MPI_Isend(&mine, 1, MPI_INT, peer, 3, d, &r[2]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Isend(out, BIG, MPI_BYTE, peer, 4, d, &r[3]), MPI_SUCCESS);
    }
    if (receiver) {
        CHECK_EQ_INT(MPI_Comm_free(&d), MPI_SUCCESS);
        CHECK(d == MPI_COMM_NULL);
    }
    /* the receiver's handle is gone before anything is sent to it */
    MPI_Barrier(MPI_COMM_WORLD);
    if (sender && peer != T_rank) {
        CHECK_EQ_INT(MPI_Isend(&mine, 1, MPI_INT, peer, 3, d, &r[2]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Isend(out, BIG, MPI_BYTE, peer, 4, d, &r[3]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Comm_free(&d), MPI_SUCCESS);
    }
    /* a communicator made meanwhile must not take over the freed one's context */
    MPI_Comm d2;
    CHECK_EQ_INT(MPI_Comm_dup(MPI_COMM_WORLD, &d2), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Waitall(4, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    if (receiver) {
        CHECK_EQ_INT(small, 1000 + peer);
        CHECK_EQ_INT(verify(big, BIG, (unsigned)peer), -1);
    }
    int x = -1, y = T_rank;
    MPI_Sendrecv(&y, 1, MPI_INT, peer, 3, &x, 1, MPI_INT, peer, 3, d2, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(x, peer);
    MPI_Comm_free(&d2);
    free(big);
    free(out);
}

/* A communicator works: an allreduce of ranks and a ring shift. */
static void check_works(MPI_Comm c)
{
    int n, me, sum = -1;
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &me);
    CHECK_EQ_INT(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    CHECK_EQ_INT(sum, n * (n - 1) / 2);
    int from = -1;
    MPI_Sendrecv(&me, 1, MPI_INT, (me + 1) % n, 0, &from, 1, MPI_INT, (me - 1 + n) % n, 0, c,
                 MPI_STATUS_IGNORE);
    CHECK_EQ_INT(from, (me - 1 + n) % n);
}

/* Two MPI_Comm_idup in flight, issued in opposite orders on alternate
 * ranks, and MPI_Comm_create_group while an idup is pending. */
static void idup_orders(void)
{
    MPI_Comm a, b, na, nb;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    for (int round = 0; round < 3; round++) {
        MPI_Request r[2];
        if (T_rank % 2 == 0) {
            CHECK_EQ_INT(MPI_Comm_idup(a, &na, &r[0]), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Comm_idup(b, &nb, &r[1]), MPI_SUCCESS);
        } else {
            CHECK_EQ_INT(MPI_Comm_idup(b, &nb, &r[1]), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Comm_idup(a, &na, &r[0]), MPI_SUCCESS);
        }
        CHECK_EQ_INT(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        check_works(na);
        check_works(nb);
        int result;
        MPI_Comm_compare(na, nb, &result);
        CHECK_EQ_INT(result, MPI_CONGRUENT);
        MPI_Comm_free(&na);
        MPI_Comm_free(&nb);
    }
    /* more idups in flight than there are stripes, in an order that
     * differs per rank: rounds that collide here retry */
    enum { NI = 12 };
    MPI_Comm base[NI], dupd[NI];
    MPI_Request rq[NI];
    for (int i = 0; i < NI; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &base[i]);
    for (int k = 0; k < NI; k++) {
        int i = (k * (T_rank % 2 ? 5 : 1) + T_rank) % NI; /* 5 is prime to 12: a permutation */
        CHECK_EQ_INT(MPI_Comm_idup(base[i], &dupd[i], &rq[i]), MPI_SUCCESS);
    }
    CHECK_EQ_INT(MPI_Waitall(NI, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < NI; i++) {
        check_works(dupd[i]);
        MPI_Comm_free(&dupd[i]);
        MPI_Comm_free(&base[i]);
    }
    /* a blocking creation on another communicator while an idup is pending */
    MPI_Group g;
    MPI_Comm_group(b, &g);
    for (int round = 0; round < 3; round++) {
        MPI_Request r;
        MPI_Comm cg;
        CHECK_EQ_INT(MPI_Comm_idup(a, &na, &r), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Comm_create_group(b, g, 5, &cg), MPI_SUCCESS);
        MPI_Comm nd;
        CHECK_EQ_INT(MPI_Comm_dup(b, &nd), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
        check_works(na);
        check_works(cg);
        check_works(nd);
        MPI_Comm_free(&na);
        MPI_Comm_free(&cg);
        MPI_Comm_free(&nd);
    }
    MPI_Group_free(&g);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

/* MPI_Comm_idup of an intercommunicator does not block: the low group
 * starts it, then sends synchronously to the high group, which receives
 * before it starts its own idup. */
static int make_inter(MPI_Comm *inter, int *low, int *me, int *rsize);
static void idup_inter(void)
{
    MPI_Comm inter, ni;
    int low, me, rsize;
    if (!make_inter(&inter, &low, &me, &rsize))
        return;
    MPI_Request r;
    int x = -1;
    if (low) {
        CHECK_EQ_INT(MPI_Comm_idup(inter, &ni, &r), MPI_SUCCESS);
        if (me < rsize)
            MPI_Ssend(&me, 1, MPI_INT, me, 9, inter);
    } else {
        int lsize;
        MPI_Comm_remote_size(inter, &lsize);
        if (me < lsize) {
            MPI_Recv(&x, 1, MPI_INT, me, 9, inter, MPI_STATUS_IGNORE);
            CHECK_EQ_INT(x, me);
        }
        CHECK_EQ_INT(MPI_Comm_idup(inter, &ni, &r), MPI_SUCCESS);
    }
    CHECK_EQ_INT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    int flag = 0, size, rs;
    MPI_Comm_test_inter(ni, &flag);
    CHECK(flag);
    MPI_Comm_size(ni, &size);
    MPI_Comm_remote_size(ni, &rs);
    CHECK_EQ_INT(rs, rsize);
    /* it works: every rank of each group sends its rank to remote rank 0 */
    int sum = -1, one = me;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ni);
    CHECK_EQ_INT(sum, rsize * (rsize - 1) / 2); /* the remote group's ranks */
    MPI_Comm merged;
    MPI_Intercomm_merge(ni, !low, &merged);
    check_works(merged);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&ni);
    MPI_Comm_free(&inter);
}

/* Error handler, name and attribute set on the new communicator of a
 * pending idup: stored, and in force once it completes. */
static int pend_calls;
static void pend_eh(MPI_Comm *c, int *code, ...)
{
    (void)c, (void)code;
    pend_calls++;
}

static void idup_pending_setters(void)
{
    MPI_Comm n;
    MPI_Request r;
    int key, val = 42, *got = NULL, flag = 0;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(pend_eh, &eh);
    CHECK_EQ_INT(MPI_Comm_idup(MPI_COMM_WORLD, &n, &r), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Comm_set_errhandler(n, eh), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Comm_set_name(n, "pending dup"), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Comm_set_attr(n, key, &val), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Errhandler_free(&eh); /* the communicator keeps it */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Comm_get_name(n, name, &len);
    CHECK(strcmp(name, "pending dup") == 0);
    MPI_Comm_get_attr(n, key, &got, &flag);
    CHECK(flag && got == &val);
    MPI_Errhandler cur;
    MPI_Comm_get_errhandler(n, &cur);
    int x = 0;
    CHECK(MPI_Send(&x, 1, MPI_INT, T_size + 3, 0, n) != MPI_SUCCESS); /* the handler, not fatal */
    CHECK_EQ_INT(pend_calls, 1);
    MPI_Errhandler_free(&cur);
    check_works(n);
    MPI_Comm_free(&n);
    MPI_Comm_free_keyval(&key);
}

/* ---- datatypes ------------------------------------------------------------- */

/* The C complex types are aligned as C aligns them: a struct of a char and
 * one complex has the extent of the C struct. */
#define EXTENT_OF_PAIR(ctype, mpitype)                                                  \
    do {                                                                                \
        struct pair {                                                                   \
            char c;                                                                     \
            ctype z;                                                                    \
        };                                                                              \
        int bl[2] = {1, 1};                                                             \
        MPI_Aint disp[2] = {offsetof(struct pair, c), offsetof(struct pair, z)}, lb, ext; \
        MPI_Datatype ty[2] = {MPI_CHAR, mpitype}, t;                                    \
        CHECK_EQ_INT(MPI_Type_create_struct(2, bl, disp, ty, &t), MPI_SUCCESS);         \
        CHECK_EQ_INT(MPI_Type_get_extent(t, &lb, &ext), MPI_SUCCESS);                   \
        CHECK_EQ_INT(lb, 0);                                                            \
        CHECK_EQ_INT(ext, sizeof(struct pair));                                         \
        MPI_Type_free(&t);                                                              \
    } while (0)

static void complex_align(void)
{
    EXTENT_OF_PAIR(float _Complex, MPI_C_COMPLEX);
    EXTENT_OF_PAIR(float _Complex, MPI_C_FLOAT_COMPLEX);
    EXTENT_OF_PAIR(double _Complex, MPI_C_DOUBLE_COMPLEX);
    EXTENT_OF_PAIR(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
    /* and they still travel whole inside such a struct */
    struct pair {
        char c;
        double _Complex z;
    } out[3], in[3];
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(struct pair, c), offsetof(struct pair, z)};
    MPI_Datatype ty[2] = {MPI_CHAR, MPI_C_DOUBLE_COMPLEX}, t;
    MPI_Type_create_struct(2, bl, disp, ty, &t);
    MPI_Type_commit(&t);
    memset(in, 0, sizeof in);
    for (int i = 0; i < 3; i++) {
        out[i].c = (char)('a' + i);
        out[i].z = (double)i + 2.5 * I;
    }
    MPI_Sendrecv(out, 3, t, 0, 1, in, 3, t, 0, 1, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ_INT(in[i].c, 'a' + i);
        CHECK(in[i].z == (double)i + 2.5 * I);
    }
    MPI_Type_free(&t);
}

/* Zero counts with NULL arrays are legal in every constructor; the types are
 * empty and travel as nothing. */
static void check_empty(MPI_Datatype t)
{
    int size = -1;
    CHECK_EQ_INT(MPI_Type_commit(&t), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Type_size(t, &size), MPI_SUCCESS);
    CHECK_EQ_INT(size, 0);
    int peer = test_partner(), x = 5;
    MPI_Status st;
    CHECK_EQ_INT(MPI_Sendrecv(&x, 1, t, peer, 9, &x, 1, t, peer, 9, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    int n = -1;
    MPI_Get_count(&st, t, &n);
    CHECK(n == 0 || n == 1);
    CHECK_EQ_INT(x, 5);
    CHECK_EQ_INT(MPI_Type_free(&t), MPI_SUCCESS);
}

static void zero_counts(void)
{
    MPI_Datatype t;
    CHECK_EQ_INT(MPI_Type_create_struct(0, NULL, NULL, NULL, &t), MPI_SUCCESS);
    int ni, na, nd, comb, ints[1] = {-1};
    CHECK_EQ_INT(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb), MPI_SUCCESS);
    CHECK(ni == 1 && na == 0 && nd == 0 && comb == MPI_COMBINER_STRUCT);
    CHECK_EQ_INT(MPI_Type_get_contents(t, 1, 0, 0, ints, NULL, NULL), MPI_SUCCESS);
    CHECK_EQ_INT(ints[0], 0);
    check_empty(t);
    CHECK_EQ_INT(MPI_Type_contiguous(0, MPI_INT, &t), MPI_SUCCESS);
    check_empty(t);
    CHECK_EQ_INT(MPI_Type_vector(0, 1, 2, MPI_INT, &t), MPI_SUCCESS);
    check_empty(t);
    CHECK_EQ_INT(MPI_Type_create_hvector(0, 1, 8, MPI_INT, &t), MPI_SUCCESS);
    check_empty(t);
    CHECK_EQ_INT(MPI_Type_indexed(0, NULL, NULL, MPI_INT, &t), MPI_SUCCESS);
    check_empty(t);
    CHECK_EQ_INT(MPI_Type_create_hindexed(0, NULL, NULL, MPI_INT, &t), MPI_SUCCESS);
    check_empty(t);
    CHECK_EQ_INT(MPI_Type_create_indexed_block(0, 3, NULL, MPI_INT, &t), MPI_SUCCESS);
    check_empty(t);
    CHECK_EQ_INT(MPI_Type_create_hindexed_block(0, 3, NULL, MPI_INT, &t), MPI_SUCCESS);
    check_empty(t);
    /* zero block lengths with real arrays too */
    int bl[2] = {0, 0}, d[2] = {0, 4};
    MPI_Aint ad[2] = {0, 16};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
    CHECK_EQ_INT(MPI_Type_create_struct(2, bl, ad, ty, &t), MPI_SUCCESS);
    check_empty(t);
    CHECK_EQ_INT(MPI_Type_indexed(2, bl, d, MPI_INT, &t), MPI_SUCCESS);
    check_empty(t);
    /* a struct of nothing inside a struct of something */
    MPI_Datatype e;
    CHECK_EQ_INT(MPI_Type_create_struct(0, NULL, NULL, NULL, &e), MPI_SUCCESS);
    int bl2[2] = {1, 1};
    MPI_Datatype ty2[2] = {e, MPI_INT};
    MPI_Aint ad2[2] = {0, 0};
    CHECK_EQ_INT(MPI_Type_create_struct(2, bl2, ad2, ty2, &t), MPI_SUCCESS);
    MPI_Type_free(&e);
    MPI_Type_commit(&t);
    int size = -1;
    MPI_Type_size(t, &size);
    CHECK_EQ_INT(size, (int)sizeof(int));
    MPI_Type_free(&t);
}

/* Zero counts with NULL arrays beyond the type constructors: groups,
 * completion calls, a graph with no edges and its neighbourhood calls. */
static void zero_counts_elsewhere(void)
{
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    CHECK_EQ_INT(MPI_Group_incl(world, 0, NULL, &g), MPI_SUCCESS);
    int n = -1;
    MPI_Group_size(g, &n);
    CHECK_EQ_INT(n, 0);
    MPI_Group_free(&g);
    CHECK_EQ_INT(MPI_Group_excl(world, 0, NULL, &g), MPI_SUCCESS);
    MPI_Group_size(g, &n);
    CHECK_EQ_INT(n, T_size);
    MPI_Group_free(&g);
    CHECK_EQ_INT(MPI_Group_range_incl(world, 0, NULL, &g), MPI_SUCCESS);
    MPI_Group_free(&g);
    CHECK_EQ_INT(MPI_Group_range_excl(world, 0, NULL, &g), MPI_SUCCESS);
    MPI_Group_free(&g);
    CHECK_EQ_INT(MPI_Group_translate_ranks(world, 0, NULL, world, NULL), MPI_SUCCESS);
    MPI_Group_free(&world);
    int idx = 5, flag = 0, outcount = 5;
    CHECK_EQ_INT(MPI_Waitall(0, NULL, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Testall(0, NULL, &flag, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK(flag);
    CHECK_EQ_INT(MPI_Waitany(0, NULL, &idx, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_EQ_INT(idx, MPI_UNDEFINED);
    CHECK_EQ_INT(MPI_Waitsome(0, NULL, &outcount, NULL, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    CHECK_EQ_INT(outcount, MPI_UNDEFINED);
    CHECK_EQ_INT(MPI_Startall(0, NULL), MPI_SUCCESS);
    MPI_Comm lonely;
    CHECK_EQ_INT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL,
                                                MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &lonely),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Neighbor_alltoallv(NULL, NULL, NULL, MPI_INT, NULL, NULL, NULL, MPI_INT, lonely),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Neighbor_alltoallw(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, lonely),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Neighbor_allgatherv(NULL, 0, MPI_INT, NULL, NULL, NULL, MPI_INT, lonely),
                 MPI_SUCCESS);
    MPI_Comm_free(&lonely);
    CHECK_EQ_INT(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_UNWEIGHTED,
                                       MPI_INFO_NULL, 0, &lonely),
                 MPI_SUCCESS);
    MPI_Comm_free(&lonely);
}

/* A 2-D block-cyclic darray (cyclic(2) x cyclic(3) on a process grid from
 * MPI_Dims_create) picks exactly this rank's elements, in C order. */
static void darray_cyclic(void)
{
    enum { R = 11, C = 17 };
    int gs[2] = {R, C}, dist[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC};
    int da[2] = {2, 3}, ps[2] = {0, 0};
    MPI_Dims_create(T_size, 2, ps);
    int global[R * C];
    for (int i = 0; i < R * C; i++)
        global[i] = i;
    for (int order = 0; order < 2; order++) {
        int ord = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        MPI_Datatype t;
        CHECK_EQ_INT(MPI_Type_create_darray(T_size, T_rank, 2, gs, dist, da, ps, ord, MPI_INT, &t),
                     MPI_SUCCESS);
        MPI_Type_commit(&t);
        int size;
        MPI_Type_size(t, &size);
        /* my grid coordinates, row-major over the process grid */
        int p0 = T_rank / ps[1], p1 = T_rank % ps[1];
        int want[R * C], n = 0;
        if (ord == MPI_ORDER_C) {
            for (int i = 0; i < R; i++)
                for (int j = 0; j < C; j++)
                    if ((i / 2) % ps[0] == p0 && (j / 3) % ps[1] == p1)
                        want[n++] = i * C + j;
        } else { /* the array is R x C in Fortran order: element (i,j) at i + j*R */
            for (int j = 0; j < C; j++)
                for (int i = 0; i < R; i++)
                    if ((i / 2) % ps[0] == p0 && (j / 3) % ps[1] == p1)
                        want[n++] = i + j * R;
        }
        CHECK_EQ_INT(size, n * (int)sizeof(int));
        MPI_Aint lb, ext;
        MPI_Type_get_extent(t, &lb, &ext);
        CHECK_EQ_INT(lb, 0);
        CHECK_EQ_INT(ext, R * C * (int)sizeof(int));
        int got[R * C], pos = 0;
        MPI_Pack(global, 1, t, got, (int)sizeof got, &pos, MPI_COMM_SELF);
        CHECK_EQ_INT(pos, n * (int)sizeof(int));
        for (int k = 0; k < n; k++)
            CHECK_EQ_INT(got[k], want[k]);
        /* and through a message: only my elements land */
        int back[R * C];
        for (int i = 0; i < R * C; i++)
            back[i] = -1;
        MPI_Sendrecv(global, 1, t, 0, 4, back, 1, t, 0, 4, MPI_COMM_SELF, MPI_STATUS_IGNORE);
        for (int k = 0, m = 0; k < R * C; k++) {
            if (m < n && want[m] == k) {
                CHECK_EQ_INT(back[k], k);
                m++;
            } else {
                CHECK_EQ_INT(back[k], -1);
            }
        }
        MPI_Type_free(&t);
    }
}

/* MPI_Dims_create makes the dimensions as close to each other as possible,
 * in non-increasing order. */
static void dims_balanced(void)
{
    static const struct {
        int n, nd, want[4];
    } t[] = {
        {72, 2, {9, 8}},     {72, 3, {6, 4, 3}}, {24, 3, {4, 3, 2}},  {16, 2, {4, 4}},
        {30, 3, {5, 3, 2}},  {36, 2, {6, 6}},    {100, 3, {5, 5, 4}}, {7, 2, {7, 1}},
        {360, 4, {5, 4, 3, 6}}, {12, 2, {4, 3}},    {64, 3, {4, 4, 4}},  {90, 2, {10, 9}},
    };
    for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
        int d[4] = {0, 0, 0, 0};
        CHECK_EQ_INT(MPI_Dims_create(t[k].n, t[k].nd, d), MPI_SUCCESS);
        int want[4];
        memcpy(want, t[k].want, sizeof want);
        for (int i = 0; i < t[k].nd; i++) /* non-increasing */
            for (int j = i + 1; j < t[k].nd; j++)
                if (want[j] > want[i]) {
                    int x = want[i];
                    want[i] = want[j];
                    want[j] = x;
                }
        for (int i = 0; i < t[k].nd; i++)
            CHECK_EQ_INT(d[i], want[i]);
    }
    int d[2] = {0, 3}; /* a fixed entry: the rest as balanced as possible */
    CHECK_EQ_INT(MPI_Dims_create(72, 2, d), MPI_SUCCESS);
    CHECK_EQ_INT(d[0], 24);
    int e[3] = {0, 2, 0};
    CHECK_EQ_INT(MPI_Dims_create(72, 3, e), MPI_SUCCESS);
    CHECK_EQ_INT(e[0], 6);
    CHECK_EQ_INT(e[2], 6);
}

/* ---- errors ------------------------------------------------------------------ */

/* Every error class mpi.h declares (the list is generated from the header:
 * MPI_ERR_KEYVAL, _INFO_NOKEY, _NAME, _CONVERSION ... were once refused) has
 * a string and is its own class. */
static void error_classes(void)
{
    static const int cls[] = {MPI_SUCCESS, MPI_H_ERROR_CLASSES};
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    for (size_t i = 0; i < sizeof cls / sizeof cls[0]; i++) {
        int c = -1, len = -1;
        char s[MPI_MAX_ERROR_STRING] = "";
        CHECK_EQ_INT(MPI_Error_class(cls[i], &c), MPI_SUCCESS);
        CHECK_EQ_INT(c, cls[i]);
        CHECK_EQ_INT(MPI_Error_string(cls[i], s, &len), MPI_SUCCESS);
        CHECK(len > 0 && len == (int)strlen(s));
    }
}

/* MPI_Error_string describes the call that just failed, never an earlier,
 * unrelated one of the same class. */
static void error_string_current(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, T_size + 41, 0, MPI_COMM_WORLD);
    CHECK_EQ_INT(rc, MPI_ERR_RANK);
    char s[MPI_MAX_ERROR_STRING];
    int len;
    CHECK_EQ_INT(MPI_Error_string(rc, s, &len), MPI_SUCCESS);
    CHECK(strstr(s, "MPI_Send") != NULL); /* the current call */
    int size;
    rc = MPI_Type_size(MPI_DATATYPE_NULL, &size); /* another error since */
    CHECK_EQ_INT(rc, MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Error_string(rc, s, &len), MPI_SUCCESS);
    CHECK(strstr(s, "MPI_Type_size") != NULL);
    /* an MPI_ERR_RANK from elsewhere (here: the user's own) is not the Send's */
    CHECK_EQ_INT(MPI_Error_string(MPI_ERR_RANK, s, &len), MPI_SUCCESS);
    CHECK(strstr(s, "MPI_Send") == NULL && strstr(s, "last") == NULL);
    CHECK(strstr(s, "rank") != NULL && len == (int)strlen(s));
}

/* An uncommitted type: a fatal error that says so (run with the message checked). */
static void uncommitted_type(void)
{
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    int x[2] = {0, 0};
    MPI_Send(x, 1, t, 0, 0, MPI_COMM_SELF);
    printf("not reached\n");
}

static void library_version(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    CHECK_EQ_INT(MPI_Get_library_version(v, &len), MPI_SUCCESS);
    CHECK(len == (int)strlen(v) && strstr(v, "Skiff"));
    CHECK(strstr(v, "subset") == NULL);
}

/* Errors of attribute callbacks go to the object's error handler. */
static int copy_fails(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}
static int delete_fails(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)extra;
    return *(int *)val ? MPI_ERR_OTHER : MPI_SUCCESS;
}
static int eh_calls, eh_code;
static void count_errors(MPI_Comm *c, int *code, ...)
{
    (void)c;
    eh_calls++;
    eh_code = *code;
}

static void attr_callback_errors(void)
{
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(d, eh);
    int k, fail = 1;
    MPI_Comm_create_keyval(copy_fails, delete_fails, &k, NULL);
    CHECK_EQ_INT(MPI_Comm_set_attr(d, k, &fail), MPI_SUCCESS);
    MPI_Comm d2 = MPI_COMM_WORLD;
    int rc = MPI_Comm_dup(d, &d2);
    CHECK(rc != MPI_SUCCESS);
    CHECK_EQ_INT(eh_calls, 1);
    CHECK(d2 == MPI_COMM_NULL);
    rc = MPI_Comm_delete_attr(d, k);
    CHECK(rc != MPI_SUCCESS);
    CHECK_EQ_INT(eh_calls, 2);
    fail = 0;
    CHECK_EQ_INT(MPI_Comm_delete_attr(d, k), MPI_SUCCESS);
    MPI_Comm_free_keyval(&k);
    MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&d);
    /* a window's callbacks: its handler (MPI_COMM_WORLD's is still fatal) */
    MPI_Win w;
    int *mem;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w);
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    int wk;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, (MPI_Win_delete_attr_function *)delete_fails, &wk, NULL);
    fail = 1;
    CHECK_EQ_INT(MPI_Win_set_attr(w, wk, &fail), MPI_SUCCESS);
    CHECK(MPI_Win_delete_attr(w, wk) != MPI_SUCCESS);
    fail = 0;
    MPI_Win_free_keyval(&wk);
    CHECK_EQ_INT(MPI_Win_free(&w), MPI_SUCCESS);
    /* the same on a datatype (its errors go to MPI_COMM_WORLD's handler,
     * here MPI_ERRORS_RETURN) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_INT, &t);
    int tk;
    MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, (MPI_Type_delete_attr_function *)delete_fails, &tk,
                           NULL);
    fail = 1;
    MPI_Type_set_attr(t, tk, &fail);
    CHECK(MPI_Type_delete_attr(t, tk) != MPI_SUCCESS);
    fail = 0;
    MPI_Type_free_keyval(&tk);
    CHECK_EQ_INT(MPI_Type_free(&t), MPI_SUCCESS);
}

/* ---- collectives ------------------------------------------------------------ */

/* Nothing moves: equal send and receive pointers are not an aliasing error. */
static void alias_zero_counts(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *cnt = calloc((size_t)T_size, sizeof *cnt), *dsp = calloc((size_t)T_size, sizeof *dsp);
    MPI_Datatype *ty = malloc((size_t)T_size * sizeof *ty);
    for (int i = 0; i < T_size; i++)
        ty[i] = MPI_INT;
    int buf[4] = {1, 2, 3, 4};
    CHECK_EQ_INT(MPI_Allgatherv(buf, 0, MPI_INT, buf, cnt, dsp, MPI_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Alltoallv(buf, cnt, dsp, MPI_INT, buf, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Alltoallw(buf, cnt, dsp, ty, buf, cnt, dsp, ty, MPI_COMM_WORLD), MPI_SUCCESS);
    MPI_Request r[3];
    CHECK_EQ_INT(MPI_Iallgatherv(buf, 0, MPI_INT, buf, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r[0]),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Ialltoallv(buf, cnt, dsp, MPI_INT, buf, cnt, dsp, MPI_INT, MPI_COMM_WORLD, &r[1]),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Ialltoallw(buf, cnt, dsp, ty, buf, cnt, dsp, ty, MPI_COMM_WORLD, &r[2]),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Waitall(3, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(buf[i], i + 1);
    /* something moving between the same buffers is still refused */
    for (int i = 0; i < T_size; i++)
        cnt[i] = 1;
    int *big = calloc((size_t)T_size, sizeof *big);
    CHECK_EQ_INT(MPI_Alltoallv(big, cnt, dsp, MPI_INT, big, cnt, dsp, MPI_INT, MPI_COMM_WORLD),
                 MPI_ERR_BUFFER);
    free(big);
    free(cnt);
    free(dsp);
    free(ty);
}

/* MPI_Neighbor_alltoallw on MPI_BOTTOM with absolute displacements. */
static void neighbor_bottom(void)
{
    MPI_Comm ring;
    int dims[1] = {T_size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    int out[2] = {T_rank * 10 + 1, T_rank * 10 + 2}, in[2] = {-1, -1};
    MPI_Aint sd[2], rd[2];
    MPI_Get_address(&out[0], &sd[0]); /* to the left neighbour */
    MPI_Get_address(&out[1], &sd[1]); /* to the right one */
    MPI_Get_address(&in[0], &rd[0]);
    MPI_Get_address(&in[1], &rd[1]);
    int c[2] = {1, 1};
    MPI_Datatype t[2] = {MPI_INT, MPI_INT};
    CHECK_EQ_INT(MPI_Neighbor_alltoallw(MPI_BOTTOM, c, sd, t, MPI_BOTTOM, c, rd, t, ring), MPI_SUCCESS);
    CHECK_EQ_INT(in[0], left * 10 + 2); /* the left neighbour sent its right block */
    CHECK_EQ_INT(in[1], right * 10 + 1);
    in[0] = in[1] = -1;
    MPI_Request r;
    CHECK_EQ_INT(MPI_Ineighbor_alltoallw(MPI_BOTTOM, c, sd, t, MPI_BOTTOM, c, rd, t, ring, &r),
                 MPI_SUCCESS);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(in[0], left * 10 + 2);
    CHECK_EQ_INT(in[1], right * 10 + 1);
    MPI_Comm_free(&ring);
}

/* Intercommunicator evens/odds, my rank in it and the remote group's size
 * (1 rank: none, 0). */
static int make_inter(MPI_Comm *inter, int *low, int *me, int *rsize)
{
    if (T_size < 2)
        return 0;
    MPI_Comm half;
    *low = T_rank % 2 == 0;
    MPI_Comm_split(MPI_COMM_WORLD, !*low, T_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, *low ? 1 : 0, 77, inter);
    MPI_Comm_free(&half);
    MPI_Comm_rank(*inter, me);
    MPI_Comm_remote_size(*inter, rsize);
    return 1;
}

/* MPI_Reduce on an intercommunicator: the root group's other ranks pass
 * MPI_PROC_NULL and nothing else that means anything. */
static void inter_reduce_proc_null(void)
{
    MPI_Comm inter;
    int low, me, rsize;
    if (!make_inter(&inter, &low, &me, &rsize))
        return;
    int in[3] = {me, 1, 2 * me}, out[3] = {-1, -1, -1};
    if (low) { /* root group: rank 0 is the root */
        if (me == 0) {
            CHECK_EQ_INT(MPI_Reduce(NULL, out, 3, MPI_INT, MPI_SUM, MPI_ROOT, inter), MPI_SUCCESS);
            CHECK_EQ_INT(out[0], rsize * (rsize - 1) / 2);
            CHECK_EQ_INT(out[1], rsize);
            CHECK_EQ_INT(out[2], rsize * (rsize - 1));
        } else {
            CHECK_EQ_INT(MPI_Reduce(NULL, NULL, 0, MPI_DATATYPE_NULL, MPI_OP_NULL, MPI_PROC_NULL, inter),
                         MPI_SUCCESS);
        }
    } else {
        CHECK_EQ_INT(MPI_Reduce(in, NULL, 3, MPI_INT, MPI_SUM, 0, inter), MPI_SUCCESS);
    }
    /* the same for the other rooted collectives */
    if (low && me != 0)
        CHECK_EQ_INT(MPI_Bcast(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, inter), MPI_SUCCESS);
    else if (low)
        CHECK_EQ_INT(MPI_Bcast(in, 3, MPI_INT, MPI_ROOT, inter), MPI_SUCCESS);
    else {
        CHECK_EQ_INT(MPI_Bcast(out, 3, MPI_INT, 0, inter), MPI_SUCCESS);
        CHECK_EQ_INT(out[2], 0);
    }
    MPI_Comm_free(&inter);
}

/* MPI_REPLACE and MPI_NO_OP are predefined ops. */
static void replace_no_op(void)
{
    int commute = -1;
    CHECK_EQ_INT(MPI_Op_commutative(MPI_REPLACE, &commute), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Op_commutative(MPI_NO_OP, &commute), MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Op op = MPI_REPLACE;
    CHECK(MPI_Op_free(&op) != MPI_SUCCESS); /* predefined */
    /* in one-sided use: replace then no-op fetch */
    int *mem, v = -1;
    MPI_Win w;
    MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &w);
    *mem = -5;
    MPI_Win_fence(0, w);
    int mine = 100 + T_rank, t = (T_rank + 1) % T_size;
    MPI_Accumulate(&mine, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_REPLACE, w);
    MPI_Win_fence(0, w);
    MPI_Get_accumulate(NULL, 0, MPI_INT, &v, 1, MPI_INT, t, 0, 1, MPI_INT, MPI_NO_OP, w);
    MPI_Win_fence(0, w);
    CHECK_EQ_INT(v, 100 + T_rank);
    CHECK_EQ_INT(*mem, 100 + (T_rank - 1 + T_size) % T_size);
    MPI_Win_free(&w);
}

/* ---- requests ---------------------------------------------------------------- */
static void (*after_finalize)(void); /* a check that needs MPI_Finalize done */
static int finalize_here; /* the case wants MPI_Finalize at once, no barrier */

/* Receives freed with MPI_Request_free before they matched: the messages
 * (small and rendezvous) still land, and MPI_Finalize completes them. */
static unsigned char *freed_big;
static int freed_small = -1, freed_peer;
static void freed_recv_landed(void)
{
    CHECK_EQ_INT(freed_small, 500 + freed_peer);
    CHECK_EQ_INT(verify(freed_big, BIG, 40u + (unsigned)freed_peer), -1);
    free(freed_big);
}

static void request_free_recv(void)
{
    int peer = test_partner(), receiver = T_rank <= peer, sender = T_rank >= peer;
    freed_peer = peer;
    freed_big = malloc(BIG);
    memset(freed_big, 0, BIG);
    unsigned char *out = malloc(BIG);
    fill(out, BIG, 40u + (unsigned)T_rank);
    int mine = 500 + T_rank;
    if (receiver) {
        MPI_Request r[2];
        CHECK_EQ_INT(MPI_Irecv(&freed_small, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r[0]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Irecv(freed_big, BIG, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &r[1]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Request_free(&r[0]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Request_free(&r[1]), MPI_SUCCESS);
        CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL);
        after_finalize = freed_recv_landed;
    }
    if (sender) { /* no synchronisation: the receiver may be in MPI_Finalize already */
        MPI_Request r[2];
        MPI_Isend(&mine, 1, MPI_INT, peer, 5, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(out, BIG, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &r[1]);
        CHECK_EQ_INT(MPI_Waitall(2, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    }
    if (!receiver)
        free(freed_big);
    free(out);
    finalize_here = 1; /* nothing else before MPI_Finalize */
}

/* MPI_Cancel of a send: an Issend, a rendezvous Isend and a small Isend,
 * none of them received yet.  MPI_Wait returns either way; the receiver gets
 * the message exactly when the cancel failed (the sender tells it which). */
static void cancel_send(void)
{
    int peer = test_partner();
    if (peer == T_rank)
        return;
    enum { NCASE = 3 };
    if (T_rank < peer) { /* sender */
        unsigned char *big = malloc(BIG);
        fill(big, BIG, 9);
        int small = 1234, flags[NCASE];
        for (int k = 0; k < NCASE; k++) {
            MPI_Request r;
            if (k == 0)
                MPI_Issend(&small, 1, MPI_INT, peer, 20 + k, MPI_COMM_WORLD, &r);
            else if (k == 1)
                MPI_Isend(big, BIG, MPI_BYTE, peer, 20 + k, MPI_COMM_WORLD, &r);
            else
                MPI_Isend(&small, 1, MPI_INT, peer, 20 + k, MPI_COMM_WORLD, &r);
            CHECK_EQ_INT(MPI_Cancel(&r), MPI_SUCCESS);
            MPI_Status st;
            CHECK_EQ_INT(MPI_Wait(&r, &st), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Test_cancelled(&st, &flags[k]), MPI_SUCCESS);
        }
        MPI_Send(flags, NCASE, MPI_INT, peer, 30, MPI_COMM_WORLD);
        if (T_rank == 0)
            printf("cancel_send: Issend %s, rendezvous %s, eager %s\n",
                   flags[0] ? "cancelled" : "received", flags[1] ? "cancelled" : "received",
                   flags[2] ? "cancelled" : "received");
        free(big);
        return;
    }
    /* receiver: hears the verdict first (as MPICH's scancel test does), so a
     * send whose MPI_Wait waited for the receiver would hang here */
    int flags[NCASE];
    unsigned char *big = malloc(BIG);
    MPI_Recv(flags, NCASE, MPI_INT, peer, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int k = 0; k < NCASE; k++) {
        int there = 0, x = 0;
        MPI_Iprobe(peer, 20 + k, MPI_COMM_WORLD, &there, MPI_STATUS_IGNORE);
        if (flags[k]) { /* cancelled: never arrives */
            CHECK_EQ_INT(there, 0);
            continue;
        }
        MPI_Recv(k == 1 ? (void *)big : (void *)&x, k == 1 ? BIG : 1, k == 1 ? MPI_BYTE : MPI_INT,
                 peer, 20 + k, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(k == 1 ? verify(big, BIG, 9) == -1 : x == 1234);
    }
    free(big);
}

/* The same with the receives posted first: matched on arrival, the cancel
 * fails and MPI_Wait returns once the receiver has the data. */
static void cancel_send_matched(void)
{
    int peer = test_partner();
    unsigned char *big = malloc(BIG);
    int small = 77, x = 0;
    MPI_Request rr[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (T_rank > peer || peer == T_rank) {
        MPI_Irecv(&x, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, &rr[0]);
        MPI_Irecv(big, BIG, MPI_BYTE, peer, 41, MPI_COMM_WORLD, &rr[1]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (T_rank < peer || peer == T_rank) {
        fill(big, BIG, 3);
        MPI_Request r[2];
        MPI_Issend(&small, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(big, BIG, MPI_BYTE, peer, 41, MPI_COMM_WORLD, &r[1]);
        for (int k = 0; k < 2; k++) {
            MPI_Status st;
            int flag = -1;
            MPI_Cancel(&r[k]);
            CHECK_EQ_INT(MPI_Wait(&r[k], &st), MPI_SUCCESS);
            MPI_Test_cancelled(&st, &flag);
            if (peer != T_rank) /* to myself the receive may still be unmatched: either way */
                CHECK_EQ_INT(flag, 0);
        }
    }
    if (T_rank > peer) {
        MPI_Waitall(2, rr, MPI_STATUSES_IGNORE);
        CHECK_EQ_INT(x, 77);
        CHECK_EQ_INT(verify(big, BIG, 3), -1);
    } else if (peer == T_rank) {
        for (int k = 0; k < 2; k++) { /* a receive whose send was cancelled is cancelled too */
            MPI_Cancel(&rr[k]);
            MPI_Wait(&rr[k], MPI_STATUS_IGNORE);
        }
    }
    free(big);
}

static const struct test_case {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"comm_free_pending", comm_free_pending},
    {"complex_align", complex_align},
    {"zero_counts", zero_counts},
    {"zero_counts_elsewhere", zero_counts_elsewhere},
    {"darray_cyclic", darray_cyclic},
    {"dims_balanced", dims_balanced},
    {"error_classes", error_classes},
    {"error_string_current", error_string_current},
    {"uncommitted_type", uncommitted_type},
    {"library_version", library_version},
    {"attr_callback_errors", attr_callback_errors},
    {"alias_zero_counts", alias_zero_counts},
    {"neighbor_bottom", neighbor_bottom},
    {"inter_reduce_proc_null", inter_reduce_proc_null},
    {"replace_no_op", replace_no_op},
    {"request_free_recv", request_free_recv},
    {"cancel_send", cancel_send},
    {"cancel_send_matched", cancel_send_matched},
    {"idup_orders", idup_orders},
    {"idup_inter", idup_inter},
    {"idup_pending_setters", idup_pending_setters},
};

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    const char *name = argc > 1 ? argv[1] : "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(cases[i].name, name)) {
            cases[i].run();
            char label[96];
            snprintf(label, sizeof label, "defects %s", name);
            if (finalize_here)
                MPI_Finalize();
            else
                test_done(label);
            if (after_finalize)
                after_finalize();
            return 0;
        }
    fprintf(stderr, "defects: no case '%s'\n", name);
    return 2;
}
