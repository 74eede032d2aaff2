/* coll_comm — collectives on communicators other than MPI_COMM_WORLD: split
 * halves with reversed rank order (node shared-memory and point-to-point
 * sizes, blocking and nonblocking), a duplicate running nonblocking
 * collectives at the same time as WORLD, an intercommunicator (evens/odds:
 * every collective with an intercommunicator form, v variants included;
 * scan refused with MPI_ERR_COMM); neighbourhood collectives on a periodic ring (also of 1 and
 * 2 ranks, where both neighbours are the same rank), a non-periodic 2-D grid
 * (MPI_PROC_NULL neighbours leave their blocks alone), a graph and a
 * distributed graph. */
#include "mpitest.h"

static int V(int r, int i) { return r * 7919 + i; }

static void on_split(void)
{
    MPI_Comm half;
    int color = T_rank % 2;
    CHECK_EQ_INT(MPI_Comm_split(MPI_COMM_WORLD, color, -T_rank, &half), MPI_SUCCESS);
    int n, me;
    MPI_Comm_size(half, &n);
    MPI_Comm_rank(half, &me);
    int *world = malloc((size_t)n * sizeof *world); /* world rank of half rank q */
    MPI_Allgather(&T_rank, 1, MPI_INT, world, 1, MPI_INT, half);
    for (int q = 0; q < n; q++) /* key -rank: half rank 0 is the highest world rank */
        CHECK_EQ_INT(world[q], (n - 1 - q) * 2 + color);
    static const int counts[] = {1, 500, 9000};
    for (unsigned k = 0; k < 3; k++) {
        int cnt = counts[k], *s = malloc((size_t)cnt * sizeof *s), *r = malloc((size_t)cnt * sizeof *r);
        for (int i = 0; i < cnt; i++)
            s[i] = V(T_rank, i);
        CHECK_EQ_INT(MPI_Allreduce(s, r, cnt, MPI_INT, MPI_SUM, half), MPI_SUCCESS);
        for (int i = 0; i < cnt; i++) {
            int want = 0;
            for (int q = 0; q < n; q++)
                want += V(world[q], i);
            CHECK_EQ_INT(r[i], want);
        }
        for (int root = 0; root < n; root++) {
            for (int i = 0; i < cnt; i++)
                r[i] = me == root ? V(T_rank, i) : -1;
            MPI_Request rq;
            CHECK_EQ_INT(MPI_Ibcast(r, cnt, MPI_INT, root, half, &rq), MPI_SUCCESS);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            for (int i = 0; i < cnt; i++)
                CHECK_EQ_INT(r[i], V(world[root], i));
            CHECK_EQ_INT(MPI_Bcast(r, cnt, MPI_INT, root, half), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Reduce(s, r, cnt, MPI_INT, MPI_MAX, root, half), MPI_SUCCESS);
            if (me == root)
                for (int i = 0; i < cnt; i++)
                    CHECK_EQ_INT(r[i], V(world[0], i)); /* half rank 0 has the highest world rank */
        }
        CHECK_EQ_INT(MPI_Scan(s, r, cnt, MPI_INT, MPI_SUM, half), MPI_SUCCESS);
        for (int i = 0; i < cnt; i++) {
            int want = 0;
            for (int q = 0; q <= me; q++)
                want += V(world[q], i);
            CHECK_EQ_INT(r[i], want);
        }
        free(s);
        free(r);
    }
    CHECK_EQ_INT(MPI_Barrier(half), MPI_SUCCESS);
    free(world);
    CHECK_EQ_INT(MPI_Comm_free(&half), MPI_SUCCESS);
}

/* Nonblocking collectives on WORLD and on its duplicate at the same time. */
static void on_dup(void)
{
    MPI_Comm dup;
    CHECK_EQ_INT(MPI_Comm_dup(MPI_COMM_WORLD, &dup), MPI_SUCCESS);
    int a = T_rank, b = 2 * T_rank, ra = -1, rb = -1;
    MPI_Request rq[2];
    MPI_Iallreduce(&a, &ra, 1, MPI_INT, MPI_SUM, dup, &rq[0]);
    MPI_Iallreduce(&b, &rb, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK_EQ_INT(ra, T_size * (T_size - 1) / 2);
    CHECK_EQ_INT(rb, T_size * (T_size - 1));
    CHECK_EQ_INT(MPI_Allreduce(&a, &ra, 1, MPI_INT, MPI_MAX, dup), MPI_SUCCESS);
    CHECK_EQ_INT(ra, T_size - 1);
    MPI_Comm_free(&dup);
}

/* Intercommunicator between evens (group A) and odds (group B). */
static void inter(void)
{
    if (T_size < 2)
        return;
    MPI_Comm half, ic;
    int inB = T_rank % 2;
    MPI_Comm_split(MPI_COMM_WORLD, inB, T_rank, &half);
    CHECK_EQ_INT(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, inB ? 0 : 1, 99, &ic), MPI_SUCCESS);
    int me, L, R;
    MPI_Comm_rank(ic, &me);
    MPI_Comm_size(ic, &L);
    MPI_Comm_remote_size(ic, &R);
    int rw0 = inB ? 0 : 1; /* world rank of remote rank i: rw0 + 2i */
    CHECK_EQ_INT(MPI_Barrier(ic), MPI_SUCCESS);
    MPI_Request rq;
    CHECK_EQ_INT(MPI_Ibarrier(ic, &rq), MPI_SUCCESS);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    /* bcast from A's rank 0 to all of B */
    int x[3] = {-1, -1, -1};
    if (!inB && me == 0)
        for (int i = 0; i < 3; i++)
            x[i] = V(77, i);
    int root = inB ? 0 : me == 0 ? MPI_ROOT : MPI_PROC_NULL;
    CHECK_EQ_INT(MPI_Bcast(x, 3, MPI_INT, root, ic), MPI_SUCCESS);
    if (inB || me == 0)
        for (int i = 0; i < 3; i++)
            CHECK_EQ_INT(x[i], V(77, i));
    /* allreduce: each side gets the sum over the other side's world ranks */
    int v = T_rank, sum = -1, want = 0;
    for (int i = 0; i < R; i++)
        want += rw0 + 2 * i;
    CHECK_EQ_INT(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, ic), MPI_SUCCESS);
    CHECK_EQ_INT(sum, want);
    CHECK_EQ_INT(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_MAX, ic, &rq), MPI_SUCCESS);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(sum, rw0 + 2 * (R - 1));
    /* reduce to B's rank 0 */
    root = inB ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    sum = -1;
    CHECK_EQ_INT(MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, root, ic), MPI_SUCCESS);
    if (inB && me == 0)
        CHECK_EQ_INT(sum, want);
    /* allgather, alltoall, gather, scatter */
    int *all = malloc((size_t)R * sizeof *all), *out = malloc((size_t)L * sizeof *out);
    CHECK_EQ_INT(MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, ic), MPI_SUCCESS);
    for (int i = 0; i < R; i++)
        CHECK_EQ_INT(all[i], rw0 + 2 * i);
    int *to = malloc((size_t)R * sizeof *to);
    for (int i = 0; i < R; i++)
        to[i] = T_rank * 100 + i;
    CHECK_EQ_INT(MPI_Alltoall(to, 1, MPI_INT, all, 1, MPI_INT, ic), MPI_SUCCESS);
    for (int i = 0; i < R; i++)
        CHECK_EQ_INT(all[i], (rw0 + 2 * i) * 100 + me);
    root = inB ? 0 : me == 0 ? MPI_ROOT : MPI_PROC_NULL;
    CHECK_EQ_INT(MPI_Gather(&v, 1, MPI_INT, all, 1, MPI_INT, root, ic), MPI_SUCCESS);
    if (!inB && me == 0)
        for (int i = 0; i < R; i++)
            CHECK_EQ_INT(all[i], rw0 + 2 * i);
    int got = -1;
    CHECK_EQ_INT(MPI_Scatter(to, 1, MPI_INT, &got, 1, MPI_INT, root, ic), MPI_SUCCESS);
    if (inB)
        CHECK_EQ_INT(got, 0 * 100 + me); /* A's rank 0 is world rank 0 */
    /* v forms with one int per rank equal the plain forms */
    int *ones = malloc((size_t)R * sizeof *ones), *disp = malloc((size_t)R * sizeof *disp);
    for (int i = 0; i < R; i++)
        ones[i] = 1, disp[i] = i;
    CHECK_EQ_INT(MPI_Allgatherv(&v, 1, MPI_INT, all, ones, disp, MPI_INT, ic), MPI_SUCCESS);
    for (int i = 0; i < R; i++)
        CHECK_EQ_INT(all[i], rw0 + 2 * i);
    CHECK_EQ_INT(MPI_Ialltoallv(to, ones, disp, MPI_INT, all, ones, disp, MPI_INT, ic, &rq), MPI_SUCCESS);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 0; i < R; i++)
        CHECK_EQ_INT(all[i], (rw0 + 2 * i) * 100 + me);
    CHECK_EQ_INT(MPI_Gatherv(&v, 1, MPI_INT, all, ones, disp, MPI_INT, root, ic), MPI_SUCCESS);
    if (!inB && me == 0)
        for (int i = 0; i < R; i++)
            CHECK_EQ_INT(all[i], rw0 + 2 * i);
    got = -1;
    CHECK_EQ_INT(MPI_Scatterv(to, ones, disp, MPI_INT, &got, 1, MPI_INT, root, ic), MPI_SUCCESS);
    if (inB)
        CHECK_EQ_INT(got, me);
    /* reduce_scatter_block: vectors of T = L*rc; each side gets the other side's sum */
    int rc = R, T = L * rc; /* L_A * L_B on both sides */
    int *vec = malloc((size_t)T * sizeof *vec), *res = malloc((size_t)rc * sizeof *res);
    for (int j = 0; j < T; j++)
        vec[j] = T_rank + j;
    CHECK_EQ_INT(MPI_Reduce_scatter_block(vec, res, rc, MPI_INT, MPI_SUM, ic), MPI_SUCCESS);
    for (int k = 0; k < rc; k++)
        CHECK_EQ_INT(res[k], want + R * (me * rc + k));
    int *rcs = malloc((size_t)L * sizeof *rcs);
    for (int q = 0; q < L; q++)
        rcs[q] = rc;
    CHECK_EQ_INT(MPI_Reduce_scatter(vec, res, rcs, MPI_INT, MPI_SUM, ic), MPI_SUCCESS);
    for (int k = 0; k < rc; k++)
        CHECK_EQ_INT(res[k], want + R * (me * rc + k));
    free(vec);
    free(res);
    free(rcs);
    free(ones);
    free(disp);
    /* no intercommunicator form */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Scan(&v, &sum, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM);
    free(all);
    free(out);
    free(to);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
}

/* ---- neighbourhood collectives --------------------------------------------- */

static void ring(void)
{
    int P = T_size, periodic = 1;
    MPI_Comm cart;
    CHECK_EQ_INT(MPI_Cart_create(MPI_COMM_WORLD, 1, &P, &periodic, 0, &cart), MPI_SUCCESS);
    int me, left, right;
    MPI_Comm_rank(cart, &me);
    MPI_Cart_shift(cart, 0, 1, &left, &right);
    int mine[2] = {V(me, 0), V(me, 1)}, got[4] = {-1, -1, -1, -1};
    CHECK_EQ_INT(MPI_Neighbor_allgather(mine, 2, MPI_INT, got, 2, MPI_INT, cart), MPI_SUCCESS);
    CHECK_EQ_INT(got[0], V(left, 0));
    CHECK_EQ_INT(got[1], V(left, 1));
    CHECK_EQ_INT(got[2], V(right, 0));
    CHECK_EQ_INT(got[3], V(right, 1));
    /* alltoall: block 0 goes to the left, block 1 to the right; what my left
     * neighbour sent towards +1 lands in my block 0 (also when left == right) */
    int out[2] = {V(me, 100), V(me, 200)}, in[2] = {-1, -1};
    MPI_Request rq;
    CHECK_EQ_INT(MPI_Ineighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, cart, &rq), MPI_SUCCESS);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(in[0], V(left, 200));
    CHECK_EQ_INT(in[1], V(right, 100));
    MPI_Comm_free(&cart);
}

static void grid(void)
{
    int dims[2] = {0, 0}, periods[2] = {0, 0};
    MPI_Dims_create(T_size, 2, dims);
    MPI_Comm cart;
    CHECK_EQ_INT(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart), MPI_SUCCESS);
    int me, nb[4];
    MPI_Comm_rank(cart, &me);
    MPI_Cart_shift(cart, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(cart, 1, 1, &nb[2], &nb[3]);
    int mine = V(me, 5), got[4] = {-9, -9, -9, -9};
    CHECK_EQ_INT(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, cart), MPI_SUCCESS);
    for (int j = 0; j < 4; j++)
        CHECK_EQ_INT(got[j], nb[j] == MPI_PROC_NULL ? -9 : V(nb[j], 5));
    /* alltoallv: dimension d moves d+1 ints each way */
    int sc[4], sd[4], rc[4], rd[4], sbuf[10], rbuf[10];
    for (int j = 0, o = 0; j < 4; o += j / 2 + 1, j++) {
        sc[j] = rc[j] = j / 2 + 1;
        sd[j] = rd[j] = o;
    }
    for (int k = 0; k < 10; k++) {
        sbuf[k] = V(me, k);
        rbuf[k] = -9;
    }
    CHECK_EQ_INT(MPI_Neighbor_alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, cart), MPI_SUCCESS);
    for (int j = 0; j < 4; j++) {
        /* from neighbour j came what it sent in the opposite direction: block j ^ 1 */
        int from = j ^ 1;
        for (int k = 0; k < rc[j]; k++)
            CHECK_EQ_INT(rbuf[rd[j] + k], nb[j] == MPI_PROC_NULL ? -9 : V(nb[j], sd[from] + k));
    }
    MPI_Comm_free(&cart);
}

static void graphs(void)
{
    int P = T_size, me = T_rank;
    /* distributed graph: in from me-1 and me-2, out to me+1 and me+2 */
    int src[2] = {(me - 1 + P) % P, (me - 2 + 2 * P) % P}, dst[2] = {(me + 1) % P, (me + 2) % P};
    MPI_Comm dg;
    CHECK_EQ_INT(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst,
                                                MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg),
                 MPI_SUCCESS);
    int mine = V(me, 3), got[2] = {-1, -1};
    CHECK_EQ_INT(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, dg), MPI_SUCCESS);
    CHECK_EQ_INT(got[0], V(src[0], 3));
    CHECK_EQ_INT(got[1], V(src[1], 3));
    /* alltoallw: to dst[j] send one int V(me, 10 + j) */
    int sbuf[2] = {V(me, 10), V(me, 11)}, rbuf[2] = {-1, -1}, ones[2] = {1, 1};
    MPI_Aint disp[2] = {0, sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    CHECK_EQ_INT(MPI_Neighbor_alltoallw(sbuf, ones, disp, types, rbuf, ones, disp, types, dg), MPI_SUCCESS);
    /* src[0] = me-1 sent me its block for its dst[0] = me; me-2 its block 1 */
    if (P > 2) {
        CHECK_EQ_INT(rbuf[0], V(src[0], 10));
        CHECK_EQ_INT(rbuf[1], V(src[1], 11));
    }
    MPI_Comm_free(&dg);
    /* graph: a ring (each node's neighbours: left, right) */
    int *index = malloc((size_t)P * sizeof *index), *edges = malloc((size_t)2 * P * sizeof *edges);
    for (int q = 0; q < P; q++) {
        index[q] = 2 * (q + 1);
        edges[2 * q] = (q - 1 + P) % P;
        edges[2 * q + 1] = (q + 1) % P;
    }
    MPI_Comm g;
    CHECK_EQ_INT(MPI_Graph_create(MPI_COMM_WORLD, P, index, edges, 0, &g), MPI_SUCCESS);
    int two[2];
    CHECK_EQ_INT(MPI_Neighbor_allgather(&mine, 1, MPI_INT, two, 1, MPI_INT, g), MPI_SUCCESS);
    CHECK_EQ_INT(two[0], V((me - 1 + P) % P, 3));
    CHECK_EQ_INT(two[1], V((me + 1) % P, 3));
    MPI_Comm_free(&g);
    free(index);
    free(edges);
    /* no topology */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Neighbor_allgather(&mine, 1, MPI_INT, two, 1, MPI_INT, MPI_COMM_WORLD),
                 MPI_ERR_TOPOLOGY);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    on_split();
    on_dup();
    inter();
    ring();
    grid();
    graphs();
    test_done("coll_comm");
    return 0;
}
