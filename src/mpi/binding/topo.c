/*
 * topo.c — MPI_Cart_*, MPI_Dims_create, MPI_Graph_*, MPI_Topo_test and the
 * distributed graph calls.  Creating a topology is a split (or dup) of the
 * old communicator with the topology attached; reorder is accepted and
 * ignored (ranks keep their order, which the standard allows).
 */
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"
#include "comm_create.h"
#include "topo/topo.h"

static int no_mem(const char *fn) { return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn); }

static int *dup_ints(const int *p, int n)
{
    int *q = malloc((size_t)(n > 0 ? n : 1) * sizeof *q);
    if (q && p && n > 0)
        memcpy(q, p, (size_t)n * sizeof *q);
    return q;
}

/* The topology of comm, which must be of kind (0: any). */
static int topo_of(const char *fn, MPI_Comm comm, int kind, struct MPI_ABI_Comm **c,
                   struct topo **t)
{
    int rc = check_comm(fn, comm, c);
    if (rc)
        return rc;
    *t = (*c)->ext ? (*c)->ext->topo : NULL;
    if (!*t || (kind && (*t)->kind != kind))
        return mpir_error(*c, MPI_ERR_TOPOLOGY, "%s: communicator has no %s topology", fn,
                          kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph"
                                                                             : "distributed graph");
    return 0;
}

/* The first n ranks of comm in a new communicator carrying t (taken over). */
static int attach(const char *fn, MPI_Comm comm, int n, struct topo *t, MPI_Comm *out)
{
    struct MPI_ABI_Comm *c = comm_of(comm);
    int rc = MPI_Comm_split(comm, c->rank < n ? 0 : MPI_UNDEFINED, c->rank, out);
    if (rc || *out == MPI_COMM_NULL) {
        topo_free(t);
        return rc;
    }
    comm_of(*out)->ext->topo = t;
    (void)fn;
    return MPI_SUCCESS;
}

/* ---- Cartesian ------------------------------------------------------------------------- */
int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    (void)reorder;
    if ((rc = check_comm(fn, comm_old, &c)))
        return rc;
    if (comm_is_inter(c))
        return mpir_error(c, MPI_ERR_COMM, "%s: intercommunicator", fn);
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)) || !comm_cart)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid ndims %d or NULL argument", fn, ndims);
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpir_error(c, MPI_ERR_DIMS, "%s: dims[%d] = %d (must be > 0)", fn, i, dims[i]);
        n *= dims[i];
    }
    if (n > c->size)
        return mpir_error(c, MPI_ERR_DIMS, "%s: grid of %lld processes, communicator has %d", fn,
                          n, c->size);
    struct topo *t = calloc(1, sizeof *t);
    if (!t)
        return no_mem(fn);
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = dup_ints(dims, ndims);
    t->periods = malloc((size_t)(ndims ? ndims : 1) * sizeof(int));
    if (!t->dims || !t->periods) {
        topo_free(t);
        return no_mem(fn);
    }
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods[i] != 0;
    return attach(fn, comm_old, (int)n, t, comm_cart);
}

int MPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of("MPI_Cartdim_get", comm, MPI_CART, &c, &t)))
        return rc;
    if (!ndims)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Cartdim_get: NULL ndims");
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

static void coords_of(const struct topo *t, int rank, int *coords)
{
    for (int i = t->ndims - 1; i >= 0; i--) {
        coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    static const char fn[] = "MPI_Cart_get";
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of(fn, comm, MPI_CART, &c, &t)))
        return rc;
    if (maxdims < t->ndims || (t->ndims && (!dims || !periods || !coords)))
        return mpir_error(c, MPI_ERR_ARG, "%s: maxdims %d < %d or NULL array", fn, maxdims,
                          t->ndims);
    for (int i = 0; i < t->ndims; i++) {
        dims[i] = t->dims[i];
        periods[i] = t->periods[i];
    }
    coords_of(t, c->rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    static const char fn[] = "MPI_Cart_rank";
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of(fn, comm, MPI_CART, &c, &t)))
        return rc;
    if ((t->ndims && !coords) || !rank)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL argument", fn);
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int x = coords[i], d = t->dims[i];
        if (x < 0 || x >= d) {
            if (!t->periods[i])
                return mpir_error(c, MPI_ERR_ARG,
                                  "%s: coordinate %d = %d outside 0..%d of a non-periodic "
                                  "dimension",
                                  fn, i, x, d - 1);
            x = ((x % d) + d) % d;
        }
        r = r * d + x;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    static const char fn[] = "MPI_Cart_coords";
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of(fn, comm, MPI_CART, &c, &t)))
        return rc;
    if (rank < 0 || rank >= c->size)
        return mpir_error(c, MPI_ERR_RANK, "%s: invalid rank %d (communicator size %d)", fn, rank,
                          c->size);
    if (maxdims < t->ndims || (t->ndims && !coords))
        return mpir_error(c, MPI_ERR_ARG, "%s: maxdims %d < %d or NULL coords", fn, maxdims,
                          t->ndims);
    coords_of(t, rank, coords);
    return MPI_SUCCESS;
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char fn[] = "MPI_Cart_shift";
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of(fn, comm, MPI_CART, &c, &t)))
        return rc;
    if (direction < 0 || direction >= t->ndims || !rank_source || !rank_dest)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid direction %d (ndims %d) or NULL argument",
                          fn, direction, t->ndims);
    int coords[64], ends[2];
    if (t->ndims > 64)
        return mpir_error(c, MPI_ERR_DIMS, "%s: more than 64 dimensions", fn);
    for (int k = 0; k < 2; k++) {
        coords_of(t, c->rank, coords);
        int d = t->dims[direction], x = coords[direction] + (k ? disp : -disp);
        if (!t->periods[direction] && (x < 0 || x >= d)) {
            ends[k] = MPI_PROC_NULL;
            continue;
        }
        coords[direction] = ((x % d) + d) % d;
        MPI_Cart_rank(comm, coords, &ends[k]);
    }
    *rank_source = ends[0];
    *rank_dest = ends[1];
    return MPI_SUCCESS;
}

int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Cart_sub";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of(fn, comm, MPI_CART, &c, &t)))
        return rc;
    if ((t->ndims && !remain_dims) || !newcomm)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL argument", fn);
    int coords[64], color = 0, key = 0, nd = 0;
    if (t->ndims > 64)
        return mpir_error(c, MPI_ERR_DIMS, "%s: more than 64 dimensions", fn);
    coords_of(t, c->rank, coords);
    struct topo *s = calloc(1, sizeof *s);
    if (!s)
        return no_mem(fn);
    s->kind = MPI_CART;
    s->dims = malloc((size_t)(t->ndims ? t->ndims : 1) * sizeof(int));
    s->periods = malloc((size_t)(t->ndims ? t->ndims : 1) * sizeof(int));
    if (!s->dims || !s->periods) {
        topo_free(s);
        return no_mem(fn);
    }
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + coords[i];
            s->dims[nd] = t->dims[i];
            s->periods[nd++] = t->periods[i];
        } else {
            color = color * t->dims[i] + coords[i];
        }
    }
    s->ndims = nd;
    if ((rc = MPI_Comm_split(comm, color, key, newcomm))) {
        topo_free(s);
        return rc;
    }
    comm_of(*newcomm)->ext->topo = s;
    return MPI_SUCCESS;
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char fn[] = "MPI_Cart_map";
    struct MPI_ABI_Comm *c;
    int rc;
    (void)periods;
    if ((rc = check_comm(fn, comm, &c)))
        return rc;
    if (ndims < 0 || (ndims && !dims) || !newrank)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid ndims %d or NULL argument", fn, ndims);
    long long n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return mpir_error(c, MPI_ERR_DIMS, "%s: dims[%d] = %d", fn, i, dims[i]);
        n *= dims[i];
    }
    if (n > c->size)
        return mpir_error(c, MPI_ERR_DIMS, "%s: grid of %lld exceeds %d processes", fn, n,
                          c->size);
    *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* Balanced factorisation for MPI_Dims_create: of every way to write rem as
 * n factors d0 >= d1 >= ... (divisors of rem), the one with the smallest
 * spread d0 - d[n-1], then the smallest d0 (72 in 2: 9 x 8; a greedy
 * assignment of prime factors gave 12 x 6). */
typedef struct dims_search {
    int n, ndiv;
    const int *div; /* divisors of the number, ascending */
    int *cur, *best;
    int best_spread, found;
} dims_search_t;

static int at_least_kth_root(long long d, int k, int rem) /* d^k >= rem */
{
    long long p = 1;
    for (int i = 0; i < k && p < rem; i++)
        p *= d;
    return p >= rem;
}

static void dims_search(dims_search_t *s, int i, int rem, int prev)
{
    if (i == s->n - 1) {
        if (rem > prev)
            return;
        s->cur[i] = rem;
        int spread = s->cur[0] - rem;
        if (!s->found || spread < s->best_spread ||
            (spread == s->best_spread && s->cur[0] < s->best[0])) {
            memcpy(s->best, s->cur, (size_t)s->n * sizeof *s->best);
            s->best_spread = spread;
            s->found = 1;
        }
        return;
    }
    for (int k = s->ndiv - 1; k >= 0; k--) { /* this factor, largest first */
        int d = s->div[k];
        if (d > prev || d > rem || rem % d)
            continue;
        if (!at_least_kth_root(d, s->n - i, rem))
            break; /* the factors left would have to be larger than d */
        s->cur[i] = d;
        dims_search(s, i + 1, rem / d, d);
    }
}

static int dims_balance(int rem, int n, int *out)
{
    int ndiv = 0, cap = 64, *div = malloc((size_t)cap * sizeof *div);
    int *cur = malloc((size_t)n * sizeof *cur);
    for (int d = 1; div && cur && (long long)d * d <= rem; d++)
        if (rem % d == 0) {
            if (ndiv + 2 > cap) {
                int *m = realloc(div, (size_t)(cap *= 2) * sizeof *div);
                if (!m) {
                    free(div);
                    div = NULL;
                    break;
                }
                div = m;
            }
            div[ndiv++] = d;
            if (d != rem / d)
                div[ndiv++] = rem / d;
        }
    if (!div || !cur) {
        free(div);
        free(cur);
        return -1;
    }
    for (int i = 1; i < ndiv; i++) /* ascending (insertion sort: few divisors) */
        for (int j = i; j > 0 && div[j - 1] > div[j]; j--) {
            int x = div[j];
            div[j] = div[j - 1];
            div[j - 1] = x;
        }
    dims_search_t s = {n, ndiv, div, cur, out, 0, 0};
    dims_search(&s, 0, rem, rem);
    free(div);
    free(cur);
    return 0;
}

int MPI_Dims_create(int nnodes, int ndims, int dims[])
{
    static const char fn[] = "MPI_Dims_create";
    if (nnodes <= 0 || ndims < 0 || (ndims && !dims))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid nnodes %d or ndims %d", fn, nnodes,
                          ndims);
    long long fixed = 1;
    int nfree = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return mpir_error(NULL, MPI_ERR_DIMS, "%s: dims[%d] = %d", fn, i, dims[i]);
        if (dims[i])
            fixed *= dims[i];
        else
            nfree++;
    }
    if (nnodes % fixed)
        return mpir_error(NULL, MPI_ERR_DIMS,
                          "%s: %d nodes cannot be divided by the fixed dimensions (product %lld)",
                          fn, nnodes, fixed);
    int rem = (int)(nnodes / fixed);
    if (nfree == 0) {
        if (rem != 1)
            return mpir_error(NULL, MPI_ERR_DIMS, "%s: dims multiply to %lld, not %d", fn, fixed,
                              nnodes);
        return MPI_SUCCESS;
    }
    int *val = malloc((size_t)nfree * sizeof *val);
    if (!val || dims_balance(rem, nfree, val)) {
        free(val);
        return no_mem(fn);
    }
    for (int i = 0, k = 0; i < ndims; i++)
        if (!dims[i])
            dims[i] = val[k++];
    free(val);
    return MPI_SUCCESS;
}

/* ---- graphs ---------------------------------------------------------------------------- */
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int reorder, MPI_Comm *comm_graph)
{
    static const char fn[] = "MPI_Graph_create";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    (void)reorder;
    if ((rc = check_comm(fn, comm_old, &c)))
        return rc;
    if (nnodes < 0 || nnodes > c->size || (nnodes && (!index || !edges)) || !comm_graph)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid nnodes %d (size %d) or NULL argument", fn,
                          nnodes, c->size);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return mpir_error(c, MPI_ERR_ARG, "%s: index[%d] = %d decreases", fn, i, index[i]);
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return mpir_error(c, MPI_ERR_RANK, "%s: edge %d names node %d (nnodes %d)", fn, e,
                              edges[e], nnodes);
    struct topo *t = calloc(1, sizeof *t);
    if (!t)
        return no_mem(fn);
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->index = dup_ints(index, nnodes);
    t->edges = dup_ints(edges, nedges);
    if (!t->index || !t->edges) {
        topo_free(t);
        return no_mem(fn);
    }
    return attach(fn, comm_old, nnodes, t, comm_graph);
}

int MPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of("MPI_Graphdims_get", comm, MPI_GRAPH, &c, &t)))
        return rc;
    if (!nnodes || !nedges)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Graphdims_get: NULL argument");
    *nnodes = t->nnodes;
    *nedges = t->nnodes ? t->index[t->nnodes - 1] : 0;
    return MPI_SUCCESS;
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of("MPI_Graph_get", comm, MPI_GRAPH, &c, &t)))
        return rc;
    int ne = t->nnodes ? t->index[t->nnodes - 1] : 0;
    if (maxindex < 0 || maxedges < 0 || (maxindex && !index) || (maxedges && !edges))
        return mpir_error(c, MPI_ERR_ARG, "MPI_Graph_get: invalid sizes or NULL arrays");
    memcpy(index, t->index, (size_t)(maxindex < t->nnodes ? maxindex : t->nnodes) * sizeof(int));
    memcpy(edges, t->edges, (size_t)(maxedges < ne ? maxedges : ne) * sizeof(int));
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of("MPI_Graph_neighbors_count", comm, MPI_GRAPH, &c, &t)))
        return rc;
    if (rank < 0 || rank >= t->nnodes || !nneighbors)
        return mpir_error(c, MPI_ERR_RANK, "MPI_Graph_neighbors_count: invalid rank %d", rank);
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of("MPI_Graph_neighbors", comm, MPI_GRAPH, &c, &t)))
        return rc;
    if (rank < 0 || rank >= t->nnodes || maxneighbors < 0 || (maxneighbors && !neighbors))
        return mpir_error(c, MPI_ERR_RANK, "MPI_Graph_neighbors: invalid rank %d or array", rank);
    int lo = rank ? t->index[rank - 1] : 0, n = t->index[rank] - lo;
    memcpy(neighbors, t->edges + lo, (size_t)(n < maxneighbors ? n : maxneighbors) * sizeof(int));
    return MPI_SUCCESS;
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    struct MPI_ABI_Comm *c;
    int rc;
    (void)index;
    (void)edges;
    if ((rc = check_comm("MPI_Graph_map", comm, &c)))
        return rc;
    if (nnodes <= 0 || nnodes > c->size || !newrank)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Graph_map: invalid nnodes %d", nnodes);
    *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int MPI_Topo_test(MPI_Comm comm, int *status)
{
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm("MPI_Topo_test", comm, &c)))
        return rc;
    if (!status)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Topo_test: NULL status");
    *status = c->ext && c->ext->topo ? c->ext->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- distributed graphs ------------------------------------------------------------------ */
static int weighted_arg(const int *w) { return w != MPI_UNWEIGHTED; }

static int *weights_copy(const int *w, int n)
{
    if (w == MPI_UNWEIGHTED || w == MPI_WEIGHTS_EMPTY)
        return dup_ints(NULL, n);
    return dup_ints(w, n);
}

static int dist_attach(const char *fn, MPI_Comm comm, struct topo *t, MPI_Comm *out)
{
    int rc = MPI_Comm_dup(comm, out);
    if (rc) {
        topo_free(t);
        return rc;
    }
    struct MPI_ABI_Comm *n = comm_of(*out);
    topo_free(n->ext->topo); /* a dup carries the old topology: replace it */
    n->ext->topo = t;
    (void)fn;
    return MPI_SUCCESS;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[],
                                   MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    (void)info;
    (void)reorder;
    if ((rc = check_comm(fn, comm_old, &c)))
        return rc;
    if (indegree < 0 || outdegree < 0 || (indegree && !sources) ||
        (outdegree && !destinations) || !comm_dist_graph)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid degree or NULL array", fn);
    for (int i = 0; i < indegree; i++)
        if (sources[i] < 0 || sources[i] >= c->size)
            return mpir_error(c, MPI_ERR_RANK, "%s: source %d invalid", fn, sources[i]);
    for (int i = 0; i < outdegree; i++)
        if (destinations[i] < 0 || destinations[i] >= c->size)
            return mpir_error(c, MPI_ERR_RANK, "%s: destination %d invalid", fn, destinations[i]);
    struct topo *t = calloc(1, sizeof *t);
    if (!t)
        return no_mem(fn);
    t->kind = MPI_DIST_GRAPH;
    t->indegree = indegree;
    t->outdegree = outdegree;
    t->weighted = weighted_arg(sourceweights) && weighted_arg(destweights);
    t->sources = dup_ints(sources, indegree);
    t->dests = dup_ints(destinations, outdegree);
    t->sweights = weights_copy(sourceweights, indegree);
    t->dweights = weights_copy(destweights, outdegree);
    if (!t->sources || !t->dests || !t->sweights || !t->dweights) {
        topo_free(t);
        return no_mem(fn);
    }
    return dist_attach(fn, comm_old, t, comm_dist_graph);
}

/* Dist_graph_create: every process names edges of any nodes; everybody gets
 * all edges (two allgathers) and keeps those touching itself. */
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info info,
                          int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    (void)info;
    (void)reorder;
    if ((rc = check_comm(fn, comm_old, &c)))
        return rc;
    if (comm_is_inter(c))
        return mpir_error(c, MPI_ERR_COMM, "%s: intercommunicator", fn);
    if (n < 0 || (n && (!sources || !degrees)) || !comm_dist_graph)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid n %d or NULL array", fn, n);
    int nedges = 0;
    for (int i = 0; i < n; i++) {
        if (sources[i] < 0 || sources[i] >= c->size || degrees[i] < 0)
            return mpir_error(c, MPI_ERR_ARG, "%s: source %d / degree %d invalid", fn, sources[i],
                              degrees[i]);
        nedges += degrees[i];
    }
    for (int e = 0; e < nedges; e++)
        if (destinations[e] < 0 || destinations[e] >= c->size)
            return mpir_error(c, MPI_ERR_RANK, "%s: destination %d invalid", fn, destinations[e]);
    int weighted = weighted_arg(weights);
    ic_set_t s = {c->coll, NULL, c->size, c->rank, 0x7ffffff1};
    int *counts = malloc((size_t)c->size * sizeof *counts), maxe = 0;
    if (!counts)
        return no_mem(fn);
    ic_allgather(&s, &nedges, sizeof nedges, counts);
    for (int i = 0; i < c->size; i++)
        if (counts[i] > maxe)
            maxe = counts[i];
    /* my edges as (source, dest, weight) triples, padded to the largest count */
    size_t blk = (size_t)(maxe ? maxe : 1) * 3 * sizeof(int);
    int *mine = calloc(1, blk), *all = malloc(blk * (size_t)c->size);
    if (!mine || !all) {
        free(counts);
        free(mine);
        free(all);
        return no_mem(fn);
    }
    for (int i = 0, e = 0; i < n; i++)
        for (int k = 0; k < degrees[i]; k++, e++) {
            mine[3 * e] = sources[i];
            mine[3 * e + 1] = destinations[e];
            mine[3 * e + 2] = weighted && weights != MPI_WEIGHTS_EMPTY ? weights[e] : 1;
        }
    ic_allgather(&s, mine, blk, all);
    struct topo *t = calloc(1, sizeof *t);
    int total = 0;
    for (int p = 0; p < c->size; p++)
        total += counts[p];
    if (t) {
        t->kind = MPI_DIST_GRAPH;
        t->weighted = weighted;
        t->sources = dup_ints(NULL, total);
        t->sweights = dup_ints(NULL, total);
        t->dests = dup_ints(NULL, total);
        t->dweights = dup_ints(NULL, total);
    }
    if (!t || !t->sources || !t->sweights || !t->dests || !t->dweights) {
        topo_free(t);
        free(counts);
        free(mine);
        free(all);
        return no_mem(fn);
    }
    for (int p = 0; p < c->size; p++) {
        const int *edge = (const int *)((const char *)all + blk * (size_t)p);
        for (int e = 0; e < counts[p]; e++, edge += 3) {
            if (edge[0] == c->rank) {
                t->dests[t->outdegree] = edge[1];
                t->dweights[t->outdegree++] = edge[2];
            }
            if (edge[1] == c->rank) {
                t->sources[t->indegree] = edge[0];
                t->sweights[t->indegree++] = edge[2];
            }
        }
    }
    free(counts);
    free(mine);
    free(all);
    return dist_attach(fn, comm_old, t, comm_dist_graph);
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of("MPI_Dist_graph_neighbors_count", comm, MPI_DIST_GRAPH, &c, &t)))
        return rc;
    if (!indegree || !outdegree || !weighted)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Dist_graph_neighbors_count: NULL argument");
    *indegree = t->indegree;
    *outdegree = t->outdegree;
    *weighted = t->weighted;
    return MPI_SUCCESS;
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[])
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    struct MPI_ABI_Comm *c;
    struct topo *t;
    int rc;
    if ((rc = topo_of(fn, comm, MPI_DIST_GRAPH, &c, &t)))
        return rc;
    if (maxindegree < t->indegree || maxoutdegree < t->outdegree ||
        (t->indegree && !sources) || (t->outdegree && !destinations))
        return mpir_error(c, MPI_ERR_ARG, "%s: arrays smaller than the degrees (%d in, %d out)",
                          fn, t->indegree, t->outdegree);
    for (int i = 0; i < t->indegree; i++) {
        sources[i] = t->sources[i];
        if (t->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED)
            sourceweights[i] = t->sweights[i];
    }
    for (int i = 0; i < t->outdegree; i++) {
        destinations[i] = t->dests[i];
        if (t->weighted && destweights && destweights != MPI_UNWEIGHTED)
            destweights[i] = t->dweights[i];
    }
    return MPI_SUCCESS;
}
