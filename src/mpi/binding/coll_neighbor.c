/*
 * coll_neighbor.c — neighbourhood collectives on the communicator's virtual
 * topology: MPI_Neighbor_allgather(v), MPI_Neighbor_alltoall(v, w) and their
 * nonblocking forms.
 *
 * Neighbour order is the standard's: Cartesian — per dimension the neighbour
 * at -1 then at +1 (MPI_PROC_NULL off a non-periodic edge: no data moves,
 * the block is left alone); graph — the node's edge list; distributed graph —
 * sources in, destinations out.  Each collective is one schedule round: all
 * receives and sends posted, one fence.  On a periodic dimension of size 1
 * or 2 the same peer is both neighbours; what was sent towards +1 must land
 * in the receiver's -1 block, so Cartesian messages carry the direction in
 * the tag (towards +1: tag + 2^30).  Pieces of non-contiguous derived types
 * travel packed (pack_pieces; one unpack step per received piece).
 */
#include <stdlib.h>

#include "binding/coll_check.h"
#include "comm_create.h"
#include "topo/topo.h"

#define TOWARDS_PLUS (1 << 30)

typedef struct nbrs {
    int nin, nout;
    int *in, *out;          /* ranks (MPI_PROC_NULL allowed)               */
    int *in_tagx, *out_tagx; /* tag offsets telling Cartesian directions apart */
} nbrs_t;

static void nbrs_free(nbrs_t *nb)
{
    free(nb->in);
    free(nb->out);
    free(nb->in_tagx);
    free(nb->out_tagx);
}

static int *ints(int n)
{
    int *p = calloc((size_t)(n ? n : 1), sizeof *p);
    if (!p)
        mpir_fatal("out of memory for %d neighbours", n);
    return p;
}

static int cart_rank(const struct topo *t, const int *coords)
{
    int r = 0;
    for (int i = 0; i < t->ndims; i++)
        r = r * t->dims[i] + coords[i];
    return r;
}

static int get_neighbors(const char *fn, struct MPI_ABI_Comm *c, nbrs_t *nb)
{
    const struct topo *t = c->ext ? c->ext->topo : NULL;
    if (!t)
        return mpir_error(c, MPI_ERR_TOPOLOGY, "%s: communicator %s has no topology", fn,
                          c->name ? c->name : "");
    if (t->kind == MPI_CART) {
        int n = 2 * t->ndims, *co = ints(t->ndims);
        nb->nin = nb->nout = n;
        nb->in = ints(n), nb->out = ints(n), nb->in_tagx = ints(n), nb->out_tagx = ints(n);
        for (int i = t->ndims - 1, r = c->rank; i >= 0; i--) {
            co[i] = r % t->dims[i];
            r /= t->dims[i];
        }
        for (int d = 0; d < t->ndims; d++)
            for (int k = 0; k < 2; k++) { /* k 0: towards -1, 1: towards +1 */
                int x = co[d] + (k ? 1 : -1), size = t->dims[d], keep = co[d], peer;
                if ((x < 0 || x >= size) && !t->periods[d]) {
                    peer = MPI_PROC_NULL;
                } else {
                    co[d] = (x + size) % size;
                    peer = cart_rank(t, co);
                    co[d] = keep;
                }
                nb->in[2 * d + k] = nb->out[2 * d + k] = peer;
                nb->out_tagx[2 * d + k] = k ? TOWARDS_PLUS : 0;
                nb->in_tagx[2 * d + k] = k ? 0 : TOWARDS_PLUS; /* from -1 came what it sent to +1 */
            }
        free(co);
    } else if (t->kind == MPI_GRAPH) {
        int lo = c->rank ? t->index[c->rank - 1] : 0, n = t->index[c->rank] - lo;
        nb->nin = nb->nout = n;
        nb->in = ints(n), nb->out = ints(n), nb->in_tagx = ints(n), nb->out_tagx = ints(n);
        for (int j = 0; j < n; j++)
            nb->in[j] = nb->out[j] = t->edges[lo + j];
    } else {
        nb->nin = t->indegree;
        nb->nout = t->outdegree;
        nb->in = ints(nb->nin), nb->out = ints(nb->nout);
        nb->in_tagx = ints(nb->nin), nb->out_tagx = ints(nb->nout);
        for (int j = 0; j < nb->nin; j++)
            nb->in[j] = t->sources[j];
        for (int j = 0; j < nb->nout; j++)
            nb->out[j] = t->dests[j];
    }
    return 0;
}

/* What one neighbourhood collective moves: per out-neighbour a send piece,
 * per in-neighbour a receive piece (bytes and byte offsets). */
typedef struct npieces {
    const char *sbuf;
    char *rbuf;
    size_t *sb, *so, *rb, *ro;
} npieces_t;

/* Pieces of a non-contiguous type travel packed: one scratch buffer per
 * side, pieces one after the other; a send side is packed now, a receive
 * side gets one unpack per piece that a neighbour fills. */
typedef struct npacked {
    struct MPI_ABI_Datatype **st, **rt; /* per piece */
    int64_t *sc, *rc;                   /* per piece: element counts */
    int spacked, rpacked;
    char *sscratch, *rscratch;
} npacked_t;

static char *scratch(size_t *bytes, size_t *offs, int n, const char *what)
{
    size_t total = 0;
    for (int j = 0; j < n; j++) {
        offs[j] = total;
        total += bytes[j];
    }
    char *b = malloc(total ? total : 1);
    if (!b)
        mpir_fatal("out of memory packing %zu bytes for %s", total, what);
    return b;
}

/* base + off without pointer arithmetic on NULL: MPI_BOTTOM (NULL) with
 * absolute displacements is a legal buffer. */
static char *at(const void *base, size_t off) { return (char *)((uintptr_t)base + off); }

static void pack_pieces(const nbrs_t *nb, npieces_t *p, npacked_t *k)
{
    if (k->spacked) {
        size_t *user = malloc(((size_t)nb->nout + 1) * sizeof *user);
        if (!user)
            mpir_fatal("out of memory for a neighbourhood collective");
        for (int j = 0; j < nb->nout; j++)
            user[j] = p->so[j];
        k->sscratch = scratch(p->sb, p->so, nb->nout, "a neighbourhood collective");
        for (int j = 0; j < nb->nout; j++)
            if (p->sb[j])
                dt_copy(k->st[j], at(p->sbuf, user[j]), k->sc[j], 0, k->sscratch + p->so[j], p->sb[j], 0);
        p->sbuf = k->sscratch;
        free(user);
    }
}

static sched_t *build(struct MPI_ABI_Comm *c, const nbrs_t *nb, const npieces_t *p,
                      const npacked_t *k)
{
    sched_t *s = sched_new(c);
    size_t *ro = p->ro;
    char *rbuf = p->rbuf;
    size_t *packed_ro = NULL;
    if (k->rpacked) { /* receive into a scratch; unpack each piece after the fence */
        packed_ro = malloc(((size_t)nb->nin + 1) * sizeof *packed_ro);
        if (!packed_ro)
            mpir_fatal("out of memory for a neighbourhood collective");
        rbuf = scratch(p->rb, packed_ro, nb->nin, "a neighbourhood collective");
        ro = packed_ro;
    }
    for (int j = 0; j < nb->nin; j++)
        if (nb->in[j] != MPI_PROC_NULL && p->rb[j])
            sched_recv_tag(s, at(rbuf, ro[j]), p->rb[j], nb->in[j], nb->in_tagx[j]);
    for (int j = 0; j < nb->nout; j++)
        if (nb->out[j] != MPI_PROC_NULL && p->sb[j])
            sched_send_tag(s, at(p->sbuf, p->so[j]), p->sb[j], nb->out[j], nb->out_tagx[j]);
    sched_fence(s);
    sched_adopt(s, k->sscratch);
    if (k->rpacked) {
        for (int j = 0; j < nb->nin; j++)
            if (nb->in[j] != MPI_PROC_NULL && p->rb[j])
                sched_unpack_block(s, &(struct coll_unpack){k->rt[j], at(p->rbuf, p->ro[j]),
                                                            rbuf + ro[j], k->rc[j], 0});
        sched_adopt(s, rbuf);
        free(packed_ro);
    }
    return s;
}

enum nkind { N_ALLGATHER, N_ALLGATHERV, N_ALLTOALL, N_ALLTOALLV, N_ALLTOALLW };

/* The arguments of one call; counts and v displacements are int[] or (wide,
 * the _c forms) MPI_Count[] / MPI_Aint[]; w displacements are MPI_Aint[] in
 * both forms. */
typedef struct nargs {
    const void *sbuf;
    MPI_Count scount;
    const void *scounts, *sdispls;
    const MPI_Aint *sdispls_w;
    MPI_Datatype stype;
    const MPI_Datatype *stypes;
    void *rbuf;
    MPI_Count rcount;
    const void *rcounts, *rdispls;
    const MPI_Aint *rdispls_w;
    MPI_Datatype rtype;
    const MPI_Datatype *rtypes;
    int wide;
} nargs_t;

/* counts/displacements of one side -> bytes/offsets; single: same count for
 * all.  A non-contiguous derived type is taken too: types[j] gets piece j's
 * type, counts[j] its count and bytes[j] its packed size, *packed is set. */
static int side(const char *fn, struct MPI_ABI_Comm *c, int n, int kind, int is_send,
                const nargs_t *a, size_t *bytes, size_t *offs, struct MPI_ABI_Datatype **pt,
                int64_t *pcount, int *packed)
{
    int rc;
    size_t ext = 0;
    struct MPI_ABI_Datatype *d = NULL;
    *packed = 0;
    int w = kind == N_ALLTOALLW;
    int single = kind == N_ALLTOALL || (kind == N_ALLGATHER) || (is_send && kind == N_ALLGATHERV);
    MPI_Count count = is_send ? a->scount : a->rcount;
    const void *counts = is_send ? a->scounts : a->rcounts;
    const void *displs = is_send ? a->sdispls : a->rdispls;
    const MPI_Aint *wd = is_send ? a->sdispls_w : a->rdispls_w;
    const MPI_Datatype *types = is_send ? a->stypes : a->rtypes;
    if (!w && (rc = check_ctype(fn, c, is_send ? a->stype : a->rtype, &ext, &d)))
        return rc;
    if (single && (rc = check_count(fn, c, count)))
        return rc;
    if (!single && n && (!counts || !(w ? (const void *)wd : (const void *)displs) || (w && !types)))
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL %s counts, displacements or types", fn,
                          is_send ? "send" : "receive");
    for (int j = 0; j < n; j++) {
        if (w && (rc = check_ctype(fn, c, types[j], &ext, &d)))
            return rc;
        int64_t k = single ? count : varr_at(counts, a->wide, j);
        if (k < 0)
            return mpir_error(c, MPI_ERR_COUNT, "%s: count %lld for neighbour %d is negative", fn,
                              (long long)k, j);
        size_t step = d ? (size_t)d->extent : ext; /* bytes between elements in the buffer */
        bytes[j] = (size_t)k * ext;
        if (w)
            offs[j] = (size_t)wd[j];
        else if (single)
            offs[j] = is_send && kind != N_ALLTOALL ? 0 : (size_t)j * (size_t)k * step;
        else
            offs[j] = (size_t)varr_at(displs, a->wide, j) * step;
        pt[j] = d ? d : dtype_of(w ? types[j] : is_send ? a->stype : a->rtype);
        pcount[j] = k;
        *packed |= d != NULL;
    }
    const void *buf = is_send ? a->sbuf : a->rbuf;
    if (buf == MPI_IN_PLACE)
        return mpir_error(c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed", fn);
    /* NULL is MPI_BOTTOM: fine with absolute displacements (alltoallw) or
     * derived types of absolute addresses, never for a basic type in place */
    for (int j = 0; j < n; j++)
        if (bytes[j] && !buf && !w && pt[j]->rep->predefined)
            return mpir_error(c, MPI_ERR_BUFFER, "%s: NULL %s buffer", fn, is_send ? "send" : "receive");
    return 0;
}

/* nonblocking: 0 blocking, 1 nonblocking, CHECK_ONLY (persistent init) */
#define CHECK_ONLY 2
static int neighbor(const char *fn, int kind, const nargs_t *a, MPI_Comm comm, MPI_Request *req,
                    int nonblocking)
{
    struct MPI_ABI_Comm *c;
    nbrs_t nb = {0};
    int rc;
    if ((rc = prep_comm(fn, comm, &c)) || (rc = get_neighbors(fn, c, &nb)))
        return rc;
    if (nonblocking == 1 && !req) {
        nbrs_free(&nb);
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL request pointer", fn);
    }
    size_t *arr = calloc((size_t)2 * (size_t)(nb.nin + nb.nout + 1), sizeof *arr);
    if (!arr)
        mpir_fatal("out of memory for %s", fn);
    npieces_t p = {a->sbuf, a->rbuf, arr, arr + nb.nout, arr + 2 * nb.nout, arr + 2 * nb.nout + nb.nin};
    int npc = nb.nin + nb.nout + 1;
    npacked_t k = {0};
    k.st = calloc((size_t)npc, sizeof *k.st);
    k.sc = calloc((size_t)npc, sizeof *k.sc);
    if (!k.st || !k.sc)
        mpir_fatal("out of memory for %s", fn);
    k.rt = k.st + nb.nout;
    k.rc = k.sc + nb.nout;
    if (!(rc = side(fn, c, nb.nout, kind, 1, a, p.sb, p.so, k.st, k.sc, &k.spacked)) &&
        !(rc = side(fn, c, nb.nin, kind, 0, a, p.rb, p.ro, k.rt, k.rc, &k.rpacked)) &&
        !(nonblocking == CHECK_ONLY)) {
        pack_pieces(&nb, &p, &k);
        sched_t *s = build(c, &nb, &p, &k);
        if (nonblocking)
            *req = sched_start_req(s);
        else
            rc = sched_run(s) ? mpir_error(c, MPI_ERR_TRUNCATE, "%s: a neighbour sent more than "
                                           "its block holds (counts or types do not match)", fn)
                              : MPI_SUCCESS;
    }
    free(arr);
    free(k.st);
    free(k.sc);
    nbrs_free(&nb);
    return rc;
}

/* The nargs_t of each call from the standard argument names (W: the _c form). */
#define NB_ALLGATHER(W) \
    {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf, \
     .rcount = recvcount, .rtype = recvtype, .wide = W}
#define NB_ALLGATHERV(W) \
    {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf, \
     .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .wide = W}
#define NB_ALLTOALL(W) \
    {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf, \
     .rcount = recvcount, .rtype = recvtype, .wide = W}
#define NB_ALLTOALLV(W) \
    {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stype = sendtype, \
     .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype, .wide = W}
#define NB_ALLTOALLW(W) \
    {.sbuf = sendbuf, .scounts = sendcounts, .sdispls_w = sdispls, .stypes = sendtypes, \
     .rbuf = recvbuf, .rcounts = recvcounts, .rdispls_w = rdispls, .rtypes = recvtypes, \
     .wide = W}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    nargs_t a = NB_ALLGATHER(0);
    return neighbor("MPI_Neighbor_allgather", N_ALLGATHER, &a, comm, NULL, 0);
}

int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm)
{
    nargs_t a = NB_ALLGATHER(1);
    return neighbor("MPI_Neighbor_allgather_c", N_ALLGATHER, &a, comm, NULL, 0);
}

int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    nargs_t a = NB_ALLGATHER(0);
    return neighbor("MPI_Ineighbor_allgather", N_ALLGATHER, &a, comm, request, 1);
}

int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    nargs_t a = NB_ALLGATHER(1);
    return neighbor("MPI_Ineighbor_allgather_c", N_ALLGATHER, &a, comm, request, 1);
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    nargs_t a = NB_ALLGATHERV(0);
    return neighbor("MPI_Neighbor_allgatherv", N_ALLGATHERV, &a, comm, NULL, 0);
}

int MPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm)
{
    nargs_t a = NB_ALLGATHERV(1);
    return neighbor("MPI_Neighbor_allgatherv_c", N_ALLGATHERV, &a, comm, NULL, 0);
}

int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    nargs_t a = NB_ALLGATHERV(0);
    return neighbor("MPI_Ineighbor_allgatherv", N_ALLGATHERV, &a, comm, request, 1);
}

int MPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request)
{
    nargs_t a = NB_ALLGATHERV(1);
    return neighbor("MPI_Ineighbor_allgatherv_c", N_ALLGATHERV, &a, comm, request, 1);
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    nargs_t a = NB_ALLTOALL(0);
    return neighbor("MPI_Neighbor_alltoall", N_ALLTOALL, &a, comm, NULL, 0);
}

int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm)
{
    nargs_t a = NB_ALLTOALL(1);
    return neighbor("MPI_Neighbor_alltoall_c", N_ALLTOALL, &a, comm, NULL, 0);
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request *request)
{
    nargs_t a = NB_ALLTOALL(0);
    return neighbor("MPI_Ineighbor_alltoall", N_ALLTOALL, &a, comm, request, 1);
}

int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request *request)
{
    nargs_t a = NB_ALLTOALL(1);
    return neighbor("MPI_Ineighbor_alltoall_c", N_ALLTOALL, &a, comm, request, 1);
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    nargs_t a = NB_ALLTOALLV(0);
    return neighbor("MPI_Neighbor_alltoallv", N_ALLTOALLV, &a, comm, NULL, 0);
}

int MPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm)
{
    nargs_t a = NB_ALLTOALLV(1);
    return neighbor("MPI_Neighbor_alltoallv_c", N_ALLTOALLV, &a, comm, NULL, 0);
}

int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request *request)
{
    nargs_t a = NB_ALLTOALLV(0);
    return neighbor("MPI_Ineighbor_alltoallv", N_ALLTOALLV, &a, comm, request, 1);
}

int MPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    nargs_t a = NB_ALLTOALLV(1);
    return neighbor("MPI_Ineighbor_alltoallv_c", N_ALLTOALLV, &a, comm, request, 1);
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    nargs_t a = NB_ALLTOALLW(0);
    return neighbor("MPI_Neighbor_alltoallw", N_ALLTOALLW, &a, comm, NULL, 0);
}

int MPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    nargs_t a = NB_ALLTOALLW(1);
    return neighbor("MPI_Neighbor_alltoallw_c", N_ALLTOALLW, &a, comm, NULL, 0);
}

int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm, MPI_Request *request)
{
    nargs_t a = NB_ALLTOALLW(0);
    return neighbor("MPI_Ineighbor_alltoallw", N_ALLTOALLW, &a, comm, request, 1);
}

int MPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                              MPI_Comm comm, MPI_Request *request)
{
    nargs_t a = NB_ALLTOALLW(1);
    return neighbor("MPI_Ineighbor_alltoallw_c", N_ALLTOALLW, &a, comm, request, 1);
}

/* ---- persistent forms (MPI 4.0; machinery in coll_persistent.c) ------------
 * The saved call: the arguments and which collective; each start runs the
 * nonblocking path above, req NULL checks only. */
typedef struct npersist {
    int kind;
    MPI_Comm comm;
    nargs_t a;
} npersist_t;

static int start_neighbor(const char *fn, const void *args, MPI_Request *req)
{
    const npersist_t *p = args;
    return neighbor(fn, p->kind, &p->a, p->comm, req, req ? 1 : CHECK_ONLY);
}

static int neighbor_init(const char *fn, int kind, const nargs_t *a, MPI_Comm comm,
                         MPI_Request *request)
{
    npersist_t p = {kind, comm, *a};
    return pcoll_init(fn, comm, start_neighbor, &p, sizeof p, a->stypes ? MPI_DATATYPE_NULL : a->stype,
                      a->rtypes ? MPI_DATATYPE_NULL : a->rtype, MPI_OP_NULL, request);
}

int MPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLGATHER(0);
    return neighbor_init("MPI_Neighbor_allgather_init", N_ALLGATHER, &a, comm, request);
}

int MPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLGATHER(1);
    return neighbor_init("MPI_Neighbor_allgather_init_c", N_ALLGATHER, &a, comm, request);
}

int MPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLGATHERV(0);
    return neighbor_init("MPI_Neighbor_allgatherv_init", N_ALLGATHERV, &a, comm, request);
}

int MPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLGATHERV(1);
    return neighbor_init("MPI_Neighbor_allgatherv_init_c", N_ALLGATHERV, &a, comm, request);
}

int MPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLTOALL(0);
    return neighbor_init("MPI_Neighbor_alltoall_init", N_ALLTOALL, &a, comm, request);
}

int MPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLTOALL(1);
    return neighbor_init("MPI_Neighbor_alltoall_init_c", N_ALLTOALL, &a, comm, request);
}

int MPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLTOALLV(0);
    return neighbor_init("MPI_Neighbor_alltoallv_init", N_ALLTOALLV, &a, comm, request);
}

int MPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLTOALLV(1);
    return neighbor_init("MPI_Neighbor_alltoallv_init_c", N_ALLTOALLV, &a, comm, request);
}

int MPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLTOALLW(0);
    return neighbor_init("MPI_Neighbor_alltoallw_init", N_ALLTOALLW, &a, comm, request);
}

int MPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void *recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    nargs_t a = NB_ALLTOALLW(1);
    return neighbor_init("MPI_Neighbor_alltoallw_init_c", N_ALLTOALLW, &a, comm, request);
}
