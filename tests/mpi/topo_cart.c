/* topo_cart — virtual topologies: Dims_create against the standard's
 * examples, Cartesian grids (get, rank, coords, shifts periodic and not,
 * sub-grids, map), graphs, distributed graphs (adjacent and general),
 * Topo_test, and bad arguments -> error classes. */
#include "mpitest.h"

static void dims(void)
{
    int d[3];
    d[0] = d[1] = 0;
    MPI_Dims_create(6, 2, d);
    CHECK(d[0] == 3 && d[1] == 2);
    d[0] = d[1] = 0;
    MPI_Dims_create(7, 2, d);
    CHECK(d[0] == 7 && d[1] == 1);
    d[0] = 0, d[1] = 3, d[2] = 0;
    MPI_Dims_create(6, 3, d);
    CHECK(d[0] == 2 && d[1] == 3 && d[2] == 1);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    d[0] = 0, d[1] = 3, d[2] = 0;
    CHECK_EQ_INT(MPI_Dims_create(7, 3, d), MPI_ERR_DIMS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    d[0] = d[1] = d[2] = 0;
    MPI_Dims_create(16, 3, d);
    CHECK(d[0] == 4 && d[1] == 2 && d[2] == 2);
    d[0] = d[1] = 0;
    MPI_Dims_create(36, 2, d);
    CHECK(d[0] == 6 && d[1] == 6);
}

static void cart(void)
{
    int d[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Dims_create(T_size, 2, d);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, d, periods, 1, &cart);
    int status, nd, rank, coords[2], dd[2], pp[2], cc[2];
    MPI_Topo_test(cart, &status);
    CHECK_EQ_INT(status, MPI_CART);
    MPI_Topo_test(MPI_COMM_WORLD, &status);
    CHECK_EQ_INT(status, MPI_UNDEFINED);
    MPI_Cartdim_get(cart, &nd);
    CHECK_EQ_INT(nd, 2);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_get(cart, 2, dd, pp, cc);
    CHECK(dd[0] == d[0] && dd[1] == d[1] && pp[0] == 1 && pp[1] == 0);
    CHECK(cc[0] == rank / d[1] && cc[1] == rank % d[1]); /* row-major */
    MPI_Cart_coords(cart, rank, 2, coords);
    CHECK(coords[0] == cc[0] && coords[1] == cc[1]);
    int r;
    MPI_Cart_rank(cart, coords, &r);
    CHECK_EQ_INT(r, rank);
    /* periodic dimension 0 wraps, non-periodic dimension 1 ends in PROC_NULL */
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    CHECK_EQ_INT(dst, ((cc[0] + 1) % d[0]) * d[1] + cc[1]);
    CHECK_EQ_INT(src, ((cc[0] - 1 + d[0]) % d[0]) * d[1] + cc[1]);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    CHECK_EQ_INT(dst, cc[1] + 1 < d[1] ? rank + 1 : MPI_PROC_NULL);
    CHECK_EQ_INT(src, cc[1] > 0 ? rank - 1 : MPI_PROC_NULL);
    MPI_Cart_shift(cart, 0, -2 * d[0] - 1, &src, &dst); /* wraps more than once */
    CHECK_EQ_INT(dst, ((cc[0] - 1 + d[0]) % d[0]) * d[1] + cc[1]);
    /* periodic coordinates outside the range wrap; non-periodic ones are errors */
    int far[2] = {cc[0] + d[0], cc[1]};
    MPI_Cart_rank(cart, far, &r);
    CHECK_EQ_INT(r, rank);
    MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN);
    int bad[2] = {0, d[1]};
    CHECK_EQ_INT(MPI_Cart_rank(cart, bad, &r), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_ARG);
    /* shifts move data: everyone sends right along dimension 0 */
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, dst, 1, &got, 1, MPI_INT, src, 1, cart, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(got, src);
    /* rows: keep dimension 1 */
    MPI_Comm row;
    int keep[2] = {0, 1};
    MPI_Cart_sub(cart, keep, &row);
    int n;
    MPI_Comm_size(row, &n);
    CHECK_EQ_INT(n, d[1]);
    MPI_Comm_rank(row, &r);
    CHECK_EQ_INT(r, cc[1]);
    MPI_Cartdim_get(row, &nd);
    CHECK_EQ_INT(nd, 1);
    /* a dup keeps the topology */
    MPI_Comm dup;
    MPI_Comm_dup(cart, &dup);
    MPI_Topo_test(dup, &status);
    CHECK_EQ_INT(status, MPI_CART);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&row);
    MPI_Comm_free(&cart);
    /* a grid smaller than the communicator: the others get MPI_COMM_NULL */
    int one = 1, per = 0;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &one, &per, 0, &cart);
    CHECK((cart == MPI_COMM_NULL) == (T_rank != 0));
    if (cart != MPI_COMM_NULL)
        MPI_Comm_free(&cart);
    MPI_Cart_map(MPI_COMM_WORLD, 1, &one, &per, &r);
    CHECK_EQ_INT(r, T_rank == 0 ? 0 : MPI_UNDEFINED);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int toobig = T_size + 1;
    CHECK_EQ_INT(MPI_Cart_create(MPI_COMM_WORLD, 1, &toobig, &per, 0, &cart), MPI_ERR_DIMS);
    CHECK_EQ_INT(MPI_Cartdim_get(MPI_COMM_WORLD, &nd), MPI_ERR_TOPOLOGY);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void graphs(void)
{
    /* a ring as a graph: node i links to i-1 and i+1 */
    int n = T_size, *index = malloc((size_t)n * sizeof *index), *edges = malloc(2 * (size_t)n * sizeof *edges);
    for (int i = 0; i < n; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i - 1 + n) % n;
        edges[2 * i + 1] = (i + 1) % n;
    }
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &g);
    int status, nn, ne, cnt, nb[2];
    MPI_Topo_test(g, &status);
    CHECK_EQ_INT(status, MPI_GRAPH);
    MPI_Graphdims_get(g, &nn, &ne);
    CHECK(nn == n && ne == 2 * n);
    MPI_Graph_neighbors_count(g, T_rank, &cnt);
    CHECK_EQ_INT(cnt, 2);
    MPI_Graph_neighbors(g, T_rank, 2, nb);
    CHECK(nb[0] == (T_rank - 1 + n) % n && nb[1] == (T_rank + 1) % n);
    int gi[64], ge[128];
    MPI_Graph_get(g, n, 2 * n, gi, ge);
    CHECK(gi[n - 1] == 2 * n && ge[1] == 1 % n);
    MPI_Comm_free(&g);
    /* distributed graph, adjacent form: in from the left, out to the right */
    int left = (T_rank - 1 + n) % n, right = (T_rank + 1) % n, w = 7;
    MPI_Comm dg;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &w, 1, &right, &w, MPI_INFO_NULL, 0,
                                   &dg);
    int in, out, weighted, s, sw, dd, dw;
    MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted);
    CHECK(in == 1 && out == 1 && weighted);
    MPI_Dist_graph_neighbors(dg, 1, &s, &sw, 1, &dd, &dw);
    CHECK(s == left && dd == right && sw == 7 && dw == 7);
    MPI_Topo_test(dg, &status);
    CHECK_EQ_INT(status, MPI_DIST_GRAPH);
    MPI_Comm_free(&dg);
    /* general form: rank 0 names every edge i -> i+1 (unweighted) */
    int *srcs = malloc((size_t)n * sizeof *srcs), *degs = malloc((size_t)n * sizeof *degs),
        *dsts = malloc((size_t)n * sizeof *dsts);
    for (int i = 0; i < n; i++)
        srcs[i] = i, degs[i] = 1, dsts[i] = (i + 1) % n;
    MPI_Dist_graph_create(MPI_COMM_WORLD, T_rank == 0 ? n : 0, srcs, degs, dsts, MPI_UNWEIGHTED,
                          MPI_INFO_NULL, 0, &dg);
    MPI_Dist_graph_neighbors_count(dg, &in, &out, &weighted);
    CHECK(in == 1 && out == 1 && !weighted);
    MPI_Dist_graph_neighbors(dg, 1, &s, MPI_UNWEIGHTED, 1, &dd, MPI_UNWEIGHTED);
    CHECK(s == left && dd == right);
    MPI_Comm_free(&dg);
    free(srcs);
    free(degs);
    free(dsts);
    free(index);
    free(edges);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    dims();
    cart();
    graphs();
    test_done("topo_cart");
    return 0;
}
