/*
 * coll_check.c — argument checks of the collectives (see coll_check.h).
 *
 * Datatypes: collectives move count * extent bytes per buffer, so they take
 * every predefined type (the pair types included, padding and all) and
 * derived types whose data is one contiguous piece; other derived types
 * travel packed (data only) in the collectives that only move data, and
 * reductions (user ops) run on copies laid out as the type (docs/collectives.md).
 */
#include <stdlib.h>
#include <string.h>

#include "binding/coll_check.h"
#include "comm_create.h"
#include "datatype/dtype.h"

int prep_comm(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **c)
{
    CHECK_INIT(fn);
    int rc = check_comm(fn, comm, c);
    if (!rc && unlikely(comm_is_inter(*c)))
        return mpir_error(*c, MPI_ERR_COMM,
                          "%s: this collective is not supported on intercommunicators", fn);
    return rc;
}

/* Communicator of a collective that has an intercommunicator form: *inter says which. */
int prep_comm_any(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **c, int *inter)
{
    *inter = 0;
    CHECK_INIT(fn);
    int rc = check_comm(fn, comm, c);
    *inter = !rc && comm_is_inter(*c);
    return rc;
}

/* Intercommunicator roots: MPI_ROOT (me), MPI_PROC_NULL (my group's others),
 * or a rank of the remote group. */
static int check_inter_root(const char *fn, struct MPI_ABI_Comm *c, int root)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (unsigned)root < (unsigned)c->size)
        return 0;
    return mpir_error(c, MPI_ERR_ROOT,
                      "%s: invalid root %d (intercommunicator: MPI_ROOT, MPI_PROC_NULL or a remote "
                      "rank below %d)", fn, root, c->size);
}

static int check_cbuf(const char *fn, struct MPI_ABI_Comm *c, const char *what, const void *buf,
                      size_t bytes);
static int side_bytes(const char *fn, struct MPI_ABI_Comm *c, const char *what, const void *counts,
                      const void *displs, int wide, MPI_Datatype type, const MPI_Datatype *types,
                      int w, size_t *cb, size_t *db, struct MPI_ABI_Datatype **pk, int *packed);
static size_t *arrays(struct MPI_ABI_Comm *c, int n);

/* One side (count elements of dt, n blocks) of an intercommunicator collective. */
static int inter_side(const char *fn, struct MPI_ABI_Comm *c, const char *what, const void *buf,
                      MPI_Count count, MPI_Datatype dt, int n, size_t *blk)
{
    size_t ext = 0;
    int rc;
    if ((rc = check_count(fn, c, count)) || (rc = check_ctype(fn, c, dt, &ext, NULL)) ||
        (rc = check_cbuf(fn, c, what, buf, (size_t)count * ext * (size_t)n)))
        return rc;
    *blk = (size_t)count * ext;
    return 0;
}

/* A datatype collectives can move.  *ext: bytes per element on the wire.
 * Non-contiguous derived types travel packed (data only) when the caller can
 * handle that (packed != NULL: it gets the type); otherwise they are refused. */
int check_ctype(const char *fn, struct MPI_ABI_Comm *c, MPI_Datatype dt, size_t *ext,
                       struct MPI_ABI_Datatype **packed)
{
    struct MPI_ABI_Datatype *d;
    int rc = check_dtype(fn, c, dt, &d);
    if (packed)
        *packed = NULL;
    if (rc)
        return rc;
    if (!d->contiguous && (uintptr_t)dt >= MPIR_PREDEF_BOUND) {
        if (!packed)
            return mpir_error(c, MPI_ERR_TYPE,
                              "%s: non-contiguous derived datatype %s is not supported here (only "
                              "by bcast, gather, scatter, allgather, alltoall)",
                              fn, d->name && *d->name ? d->name : "(unnamed)");
        *packed = d;
        *ext = (size_t)d->size;
        return 0;
    }
    *ext = (size_t)d->extent;
    return 0;
}

/* A packed copy of n elements of d at user (or just room for them). */
static void *packed_copy(struct MPI_ABI_Datatype *d, const void *user, int64_t n, int fill)
{
    size_t bytes = (size_t)n * d->size;
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        mpir_fatal("out of memory packing %zu bytes for a collective", bytes);
    if (fill)
        dt_copy(d, user, n, 0, p, bytes, 0);
    return p;
}

/* Reductions on a non-contiguous derived type (user ops only: op_reducer
 * refuses predefined ones) run on copies laid out as the type, count * extent
 * bytes with only the data bytes filled in: the op sees the layout it was
 * written for, nothing reads or writes the user's bytes between the pieces,
 * and the result is copied back piece by piece.  That needs every element's
 * data inside [0, extent). */
static int check_span_type(const char *fn, struct MPI_ABI_Comm *c, struct MPI_ABI_Datatype *d,
                           size_t *ext)
{
    const struct dtype_rep *t = d->rep;
    if (t->lb != 0 || t->true_lb < 0 || t->true_ub > d->extent)
        return mpir_error(c, MPI_ERR_TYPE,
                          "%s: derived datatype %s (lb %lld, true lb %lld, true ub %lld, extent "
                          "%lld) reaches outside [0, extent): not supported in reductions",
                          fn, d->name && *d->name ? d->name : "(unnamed)", (long long)t->lb,
                          (long long)t->true_lb, (long long)t->true_ub, (long long)d->extent);
    *ext = (size_t)d->extent;
    return 0;
}

static void *span_copy(struct MPI_ABI_Datatype *d, const void *user, int64_t n, int fill)
{
    size_t bytes = (size_t)n * (size_t)d->extent;
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p)
        mpir_fatal("out of memory for a %zu-byte reduction buffer", bytes);
    if (fill)
        dt_move(d, p, user, n);
    return p;
}

static int check_root(const char *fn, struct MPI_ABI_Comm *c, int root)
{
    if (likely((unsigned)root < (unsigned)c->size))
        return 0;
    return mpir_error(c, MPI_ERR_ROOT, "%s: invalid root %d (communicator size %d)", fn, root,
                      c->size);
}

static int check_cbuf(const char *fn, struct MPI_ABI_Comm *c, const char *what, const void *buf,
                      size_t bytes)
{
    if (buf == MPI_IN_PLACE)
        return mpir_error(c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed as the %s", fn, what);
    if (!buf && bytes)
        return mpir_error(c, MPI_ERR_BUFFER, "%s: NULL %s with %zu bytes of data", fn, what, bytes);
    return 0;
}

static int check_alias(const char *fn, struct MPI_ABI_Comm *c, const void *s, const void *r,
                       size_t bytes)
{
    if (s && s == r && bytes)
        return mpir_error(c, MPI_ERR_BUFFER,
                          "%s: send and receive buffers are the same (use MPI_IN_PLACE)", fn);
    return 0;
}

int prep_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
               struct MPI_ABI_Comm **c, coll_args_t *a)
{
    size_t ext;
    struct MPI_ABI_Datatype *pk;
    int rc, inter = 0;
    memset(a, 0, sizeof *a);
    if ((rc = prep_comm_any(fn, comm, c, &inter)))
        return rc;
    if (inter) {
        a->kind = C_BCAST;
        a->inter = 1;
        a->root = root;
        a->rbuf = buf;
        if ((rc = check_inter_root(fn, *c, root)))
            return rc;
        return root == MPI_PROC_NULL ? 0 : inter_side(fn, *c, "buffer", buf, count, dt, 1, &a->rbytes);
    }
    if ((rc = check_count(fn, *c, count)) ||
        (rc = check_ctype(fn, *c, dt, &ext, &pk)) || (rc = check_root(fn, *c, root)) ||
        (rc = check_cbuf(fn, *c, "buffer", buf, (size_t)count * ext)))
        return rc;
    a->kind = C_BCAST;
    a->rbuf = buf;
    if (pk && count) {
        int is_root = (*c)->rank == root;
        a->rbuf = packed_copy(pk, buf, count, is_root);
        if (is_root) {
            a->own[0] = a->rbuf;
        } else {
            a->out = (struct coll_unpack){pk, buf, a->rbuf, count, 0};
        }
    }
    a->rbytes = (size_t)count * ext;
    a->root = root;
    return 0;
}

int prep_reduce(const char *fn, int kind, const void *sbuf, void *rbuf, MPI_Count count,
                MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, struct MPI_ABI_Comm **c,
                coll_args_t *a)
{
    size_t ext = 0; /* set by check_ctype; initialised for -O3 -Werror */
    int rc, inter = 0;
    memset(a, 0, sizeof *a);
    if ((rc = prep_comm_any(fn, comm, c, &inter)))
        return rc;
    if (inter && kind != C_REDUCE && kind != C_ALLREDUCE)
        return mpir_error(*c, MPI_ERR_COMM, "%s: not defined on intercommunicators", fn);
    if (inter) {
        size_t b = 0;
        a->kind = kind;
        a->inter = 1;
        a->root = root;
        a->count = (size_t)count;
        a->sbuf = sbuf;
        a->rbuf = rbuf;
        if (kind == C_REDUCE && (rc = check_inter_root(fn, *c, root)))
            return rc;
        if (kind == C_REDUCE && root == MPI_PROC_NULL)
            return 0; /* only root is significant here (callers pass NULL, 0, MPI_BYTE...) */
        if ((rc = op_reducer(fn, *c, op, dt, &a->red)))
            return rc;
        if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
            return mpir_error(*c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed on intercommunicators", fn);
        int sends = kind == C_ALLREDUCE || (root != MPI_ROOT && root != MPI_PROC_NULL);
        int gets = kind == C_ALLREDUCE || root == MPI_ROOT;
        if ((sends && (rc = inter_side(fn, *c, "send buffer", sbuf, count, dt, 1, &b))) ||
            (gets && (rc = inter_side(fn, *c, "receive buffer", rbuf, count, dt, 1, &b))))
            return rc;
        return 0;
    }
    struct MPI_ABI_Datatype *pk = NULL;
    if ((rc = check_count(fn, *c, count)) ||
        (rc = check_ctype(fn, *c, dt, &ext, &pk)) ||
        (pk && (rc = check_span_type(fn, *c, pk, &ext))) ||
        (kind == C_REDUCE && (rc = check_root(fn, *c, root))) ||
        (rc = op_reducer(fn, *c, op, dt, &a->red)))
        return rc;
    size_t bytes = (size_t)count * ext;
    int gets_result = kind != C_REDUCE || (*c)->rank == root;
    int in_place = sbuf == MPI_IN_PLACE;
    if (in_place && kind == C_REDUCE && (*c)->rank != root)
        return mpir_error(*c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only allowed at the root", fn);
    if ((!in_place && (rc = check_cbuf(fn, *c, "send buffer", sbuf, bytes))) ||
        (gets_result && (rc = check_cbuf(fn, *c, "receive buffer", rbuf, bytes))) ||
        (gets_result && (rc = check_alias(fn, *c, sbuf, rbuf, bytes))))
        return rc;
    a->kind = kind;
    a->sbuf = in_place ? NULL : sbuf;
    a->rbuf = rbuf;
    a->count = (size_t)count;
    a->root = root;
    if (pk && count) { /* the algorithms work on copies laid out as the type (see above) */
        if (!in_place)
            a->sbuf = a->own[0] = span_copy(pk, sbuf, count, 1);
        if (gets_result) { /* exscan leaves rank 0's result alone: start from it */
            a->rbuf = span_copy(pk, rbuf, count, in_place || kind == C_EXSCAN);
            a->out = (struct coll_unpack){pk, rbuf, a->rbuf, count, 1};
        }
    }
    return 0;
}

int prep_blocks(const char *fn, int kind, const void *sbuf, MPI_Count scount,
                MPI_Datatype stype, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm,
                struct MPI_ABI_Comm **c, coll_args_t *a)
{
    int rc, inter = 0;
    memset(a, 0, sizeof *a);
    if ((rc = prep_comm_any(fn, comm, c, &inter)))
        return rc;
    int rooted = kind == C_GATHER || kind == C_SCATTER;
    if (inter) { /* blocks: one per remote rank on the side that has several */
        int R = (*c)->size;
        a->kind = kind;
        a->inter = 1;
        a->root = root;
        a->sbuf = sbuf;
        a->rbuf = rbuf;
        if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
            return mpir_error(*c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed on intercommunicators", fn);
        if (rooted && (rc = check_inter_root(fn, *c, root)))
            return rc;
        int is_root = root == MPI_ROOT, idle = rooted && root == MPI_PROC_NULL;
        int sends = !idle && (kind != C_GATHER || !is_root) && (kind != C_SCATTER || is_root);
        int gets = !idle && (kind != C_GATHER || is_root) && (kind != C_SCATTER || !is_root);
        int sn = kind == C_SCATTER || kind == C_ALLTOALL ? R : 1;
        int rn = kind == C_GATHER || kind == C_ALLGATHER || kind == C_ALLTOALL ? R : 1;
        if ((sends && (rc = inter_side(fn, *c, "send buffer", sbuf, scount, stype, sn, &a->sbytes))) ||
            (gets && (rc = inter_side(fn, *c, "receive buffer", rbuf, rcount, rtype, rn, &a->rbytes))))
            return rc;
        return 0;
    }
    if (rooted && (rc = check_root(fn, *c, root)))
        return rc;
    int is_root = !rooted || (*c)->rank == root;
    /* which side is significant here: gather's recv and scatter's send only at the root */
    int use_send = kind != C_SCATTER || is_root, use_recv = kind != C_GATHER || is_root;
    int in_place = (kind == C_SCATTER ? rbuf : sbuf) == MPI_IN_PLACE;
    if (in_place && rooted && !is_root)
        return mpir_error(*c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only allowed at the root", fn);
    size_t sext = 0, rext = 0;
    struct MPI_ABI_Datatype *spk = NULL, *rpk = NULL;
    if (use_send && !(in_place && kind != C_SCATTER) &&
        ((rc = check_count(fn, *c, scount)) || (rc = check_ctype(fn, *c, stype, &sext, &spk)) ||
         (rc = check_cbuf(fn, *c, "send buffer", sbuf, (size_t)scount * sext))))
        return rc;
    if (use_recv && !(in_place && kind == C_SCATTER) &&
        ((rc = check_count(fn, *c, rcount)) || (rc = check_ctype(fn, *c, rtype, &rext, &rpk)) ||
         (rc = check_cbuf(fn, *c, "receive buffer", rbuf, (size_t)rcount * rext)) ||
         (rc = check_alias(fn, *c, in_place ? NULL : sbuf, rbuf, (size_t)rcount * rext))))
        return rc;
    a->kind = kind;
    a->root = root;
    a->sbuf = kind == C_SCATTER || !in_place ? sbuf : NULL;
    a->rbuf = kind == C_SCATTER && in_place ? NULL : rbuf;
    a->sbytes = (size_t)scount * sext;
    a->rbytes = (size_t)rcount * rext;
    /* the root's block size stands for everyone's (equal type signatures) */
    if (kind == C_SCATTER && is_root)
        a->rbytes = a->sbytes;
    if (kind == C_GATHER && is_root)
        a->sbytes = a->rbytes;
    if (in_place && kind != C_SCATTER)
        a->sbytes = a->rbytes;
    if (kind == C_SCATTER && in_place)
        a->rbytes = a->sbytes;
    /* non-contiguous derived types: the algorithms work on packed copies */
    int P = (*c)->size;
    if (spk && scount) {
        int64_t n = (int64_t)scount * (kind == C_SCATTER || kind == C_ALLTOALL ? P : 1);
        a->sbuf = a->own[0] = packed_copy(spk, sbuf, n, 1);
    }
    if (rpk && rcount && a->rbuf) {
        int64_t n = (int64_t)rcount * (kind == C_SCATTER ? 1 : P);
        void *p = packed_copy(rpk, rbuf, n, in_place); /* in place: the input is in rbuf */
        a->out = (struct coll_unpack){rpk, rbuf, p, n, 0};
        a->rbuf = p;
    }
    return 0;
}

static size_t *arrays(struct MPI_ABI_Comm *c, int n)
{
    size_t *p = calloc((size_t)4 * (size_t)(n ? n : 1), sizeof *p);
    if (!p)
        mpir_fatal("out of memory for collective counts of %d ranks on %s", c->size, c->name);
    return p;
}

/* counts[i] elements of type (types[i] or type) at displs[i] (elements, or
 * bytes for w): cb/db in bytes.  With pk, non-contiguous types are taken too
 * (pk[i]: block i's type, for packing; cb[i] its packed bytes; *packed: one
 * was non-contiguous); without pk they are refused. */
static int side_bytes(const char *fn, struct MPI_ABI_Comm *c, const char *what, const void *counts,
                      const void *displs, int wide, MPI_Datatype type, const MPI_Datatype *types,
                      int w, size_t *cb, size_t *db, struct MPI_ABI_Datatype **pk, int *packed)
{
    if (!counts || !displs || (w && !types))
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL %s counts, displacements or types", fn, what);
    size_t ext = 0;
    struct MPI_ABI_Datatype *d = NULL, **want = pk ? &d : NULL;
    int rc;
    if (packed)
        *packed = 0;
    if (!w && (rc = check_ctype(fn, c, type, &ext, want)))
        return rc;
    for (int i = 0; i < c->size; i++) {
        int64_t count = varr_at(counts, wide, i), displ = varr_at(displs, wide, i);
        if (count < 0)
            return mpir_error(c, MPI_ERR_COUNT, "%s: %s count %lld for rank %d is negative", fn,
                              what, (long long)count, i);
        if (w && (rc = check_ctype(fn, c, types[i], &ext, want)))
            return rc;
        if (displ < 0)
            return mpir_error(c, MPI_ERR_ARG, "%s: %s displacement %lld for rank %d is negative",
                              fn, what, (long long)displ, i);
        cb[i] = (size_t)count * ext; /* packed bytes when d */
        db[i] = w ? (size_t)displ : (size_t)displ * (d ? (size_t)d->extent : ext);
        if (pk) {
            pk[i] = d ? d : dtype_of(w ? types[i] : type);
            *packed |= d != NULL;
        }
    }
    return 0;
}

/* The blocks of a v/w side travel packed, one after the other in a new
 * buffer: db becomes their offsets there.  Blocks are copied in when `in`
 * (send data, or receive blocks holding in-place input); a receive side gets
 * one unpack per block for the end of the collective. */
static void *pack_blocks(struct MPI_ABI_Comm *c, coll_args_t *a, void *user, const void *counts,
                         int wide, struct MPI_ABI_Datatype **pk, size_t *cb, size_t *db, int in,
                         int recv)
{
    int n = c->size;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += cb[i];
    char *buf = malloc(total ? total : 1);
    struct coll_unpack *u = recv ? calloc((size_t)n, sizeof *u) : NULL;
    if (!buf || (recv && !u))
        mpir_fatal("out of memory packing %zu bytes of a collective on %s", total, c->name);
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        char *at = (char *)user + db[i];
        int64_t count = varr_at(counts, wide, i);
        if (in && count)
            dt_copy(pk[i], at, count, 0, buf + off, cb[i], 0);
        if (recv && count)
            u[a->nunpack++] = (struct coll_unpack){pk[i], at, buf + off, count, 0};
        db[i] = off;
        off += cb[i];
    }
    if (recv)
        a->unpackv = u;
    return buf;
}

static int any_bytes(const size_t *b, int n)
{
    for (int i = 0; i < n; i++)
        if (b[i])
            return 1;
    return 0;
}

int prep_v(const char *fn, int kind, const vspec_t *v, MPI_Comm comm, struct MPI_ABI_Comm **c,
           coll_args_t *a)
{
    int rc, inter = 0;
    memset(a, 0, sizeof *a);
    if ((rc = prep_comm_any(fn, comm, c, &inter)))
        return rc;
    int rooted = kind == C_GATHERV || kind == C_SCATTERV;
    if (inter) {
        if (v->sbuf == MPI_IN_PLACE || v->rbuf == MPI_IN_PLACE)
            return mpir_error(*c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed on intercommunicators", fn);
        if (rooted && (rc = check_inter_root(fn, *c, v->root)))
            return rc;
        a->inter = 1;
    }
    if (inter && rooted) { /* the root's side has one block per remote rank */
        int n = (*c)->size, gv = kind == C_GATHERV;
        size_t *arr = arrays(*c, n), ext = 0;
        a->kind = kind;
        a->root = v->root;
        a->rcb = arr, a->rdb = arr + n, a->scb = arr + 2 * n, a->sdb = arr + 3 * n;
        a->sbuf = v->sbuf;
        a->rbuf = v->rbuf;
        if (v->root == MPI_ROOT)
            rc = gv ? side_bytes(fn, *c, "receive", v->rcounts, v->rdispls, v->wide, v->rtype, NULL, 0, arr, arr + n, NULL, NULL)
                    : side_bytes(fn, *c, "send", v->scounts, v->sdispls, v->wide, v->stype, NULL, 0, arr + 2 * n, arr + 3 * n, NULL, NULL);
        else if (v->root != MPI_PROC_NULL)
            rc = gv ? inter_side(fn, *c, "send buffer", v->sbuf, v->scount, v->stype, 1, &a->sbytes)
                    : inter_side(fn, *c, "receive buffer", v->rbuf, v->rcount, v->rtype, 1, &a->rbytes);
        (void)ext;
        if (rc)
            coll_args_free(a);
        return rc;
    }
    if (rooted && (rc = check_root(fn, *c, v->root)))
        return rc;
    int n = (*c)->size, is_root = !rooted || (*c)->rank == v->root, w = kind == C_ALLTOALLW;
    int in_place = (kind == C_SCATTERV ? v->rbuf : v->sbuf) == MPI_IN_PLACE;
    if (in_place && rooted && !is_root)
        return mpir_error(*c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is only allowed at the root", fn);
    size_t *arr = arrays(*c, n);
    a->kind = kind;
    a->root = v->root;
    a->rcb = arr;
    a->rdb = arr + n;
    a->scb = arr + 2 * n;
    a->sdb = arr + 3 * n;
    size_t *rcb = arr, *rdb = arr + n, *scb = arr + 2 * n, *sdb = arr + 3 * n, ext;
    /* non-contiguous derived types travel packed: one block (spk/rpk) or
     * the blocks of a v/w side (spks/rpks: the type of each block) */
    struct MPI_ABI_Datatype *spk = NULL, *rpk = NULL, **pks = calloc((size_t)n * 2, sizeof *pks);
    struct MPI_ABI_Datatype **spks = pks, **rpks = pks ? pks + n : NULL;
    int s_many = 0, r_many = 0;
    if (!pks)
        mpir_fatal("out of memory for the datatypes of a collective on %s", (*c)->name);
    switch (kind) {
    case C_GATHERV:
        if (!in_place && ((rc = check_count(fn, *c, v->scount)) ||
                          (rc = check_ctype(fn, *c, v->stype, &ext, &spk)) ||
                          (rc = check_cbuf(fn, *c, "send buffer", v->sbuf, (size_t)v->scount * ext))))
            break;
        if (!in_place)
            a->sbytes = (size_t)v->scount * ext;
        if (is_root)
            rc = side_bytes(fn, *c, "receive", v->rcounts, v->rdispls, v->wide, v->rtype, NULL, 0, rcb, rdb, rpks, &r_many);
        break;
    case C_SCATTERV:
        if (!in_place && ((rc = check_count(fn, *c, v->rcount)) ||
                          (rc = check_ctype(fn, *c, v->rtype, &ext, &rpk)) ||
                          (rc = check_cbuf(fn, *c, "receive buffer", v->rbuf, (size_t)v->rcount * ext))))
            break;
        if (!in_place)
            a->rbytes = (size_t)v->rcount * ext;
        if (is_root)
            rc = side_bytes(fn, *c, "send", v->scounts, v->sdispls, v->wide, v->stype, NULL, 0, scb, sdb, spks, &s_many);
        break;
    case C_ALLGATHERV:
        if (!in_place && ((rc = check_count(fn, *c, v->scount)) ||
                          (rc = check_ctype(fn, *c, v->stype, &ext, &spk))))
            break;
        if (!in_place)
            a->sbytes = (size_t)v->scount * ext;
        rc = side_bytes(fn, *c, "receive", v->rcounts, v->rdispls, v->wide, v->rtype, NULL, 0, rcb, rdb, rpks, &r_many);
        break;
    default: /* alltoallv, alltoallw */
        if (!in_place)
            rc = side_bytes(fn, *c, "send", v->scounts, v->sdispls, v->wide, v->stype, v->stypes, w, scb, sdb, spks, &s_many);
        if (!rc)
            rc = side_bytes(fn, *c, "receive", v->rcounts, v->rdispls, v->wide, v->rtype, v->rtypes, w, rcb, rdb, rpks, &r_many);
        break;
    }
    /* equal pointers are an error only if data moves (Python's empty arrays
     * share one address: all-zero counts with sbuf == rbuf are legal) */
    if (!rc && (kind == C_ALLGATHERV || kind == C_ALLTOALLV || kind == C_ALLTOALLW) && !in_place &&
        v->sbuf == v->rbuf && v->rbuf && (a->sbytes || any_bytes(scb, n) || any_bytes(rcb, n)))
        rc = mpir_error(*c, MPI_ERR_BUFFER,
                        "%s: send and receive buffers are the same (use MPI_IN_PLACE)", fn);
    if (rc) {
        free(pks);
        coll_args_free(a);
        return rc;
    }
    a->sbuf = in_place && kind != C_SCATTERV ? NULL : v->sbuf;
    a->rbuf = in_place && kind == C_SCATTERV ? NULL : v->rbuf;
    if (spk && v->scount)
        a->sbuf = a->own[0] = packed_copy(spk, v->sbuf, v->scount, 1);
    if (rpk && v->rcount && a->rbuf) {
        void *p = packed_copy(rpk, v->rbuf, v->rcount, 0);
        a->out = (struct coll_unpack){rpk, v->rbuf, p, v->rcount, 0};
        a->rbuf = p;
    }
    if (s_many)
        a->sbuf = a->own[0] =
            pack_blocks(*c, a, (void *)v->sbuf, v->scounts, v->wide, spks, scb, sdb, 1, 0);
    if (r_many) /* in place, the input sits in the receive blocks: pack them all */
        a->rbuf = a->own[1] =
            pack_blocks(*c, a, v->rbuf, v->rcounts, v->wide, rpks, rcb, rdb, in_place, 1);
    free(pks);
    if (kind == C_GATHERV && is_root && in_place)
        a->sbytes = rcb[(*c)->rank];
    return 0;
}

int prep_reduce_scatter(const char *fn, int kind, const void *sbuf, void *rbuf,
                        MPI_Count rcount, const void *rcounts, int wide, MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm,
                        struct MPI_ABI_Comm **c, coll_args_t *a)
{
    size_t ext = 0;
    int rc, inter = 0;
    struct MPI_ABI_Datatype *pk = NULL;
    memset(a, 0, sizeof *a);
    if ((rc = prep_comm_any(fn, comm, c, &inter)) ||
        (rc = check_ctype(fn, *c, dt, &ext, inter ? NULL : &pk)) ||
        (pk && (rc = check_span_type(fn, *c, pk, &ext))) ||
        (rc = op_reducer(fn, *c, op, dt, &a->red)))
        return rc;
    /* intercommunicator: counts are over the local group, which receives the
     * reduction of the remote group's vectors */
    int n = inter ? mpir_comm_local_size(*c) : (*c)->size;
    a->inter = inter;
    if (inter && (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE))
        return mpir_error(*c, MPI_ERR_BUFFER, "%s: MPI_IN_PLACE is not allowed on intercommunicators", fn);
    if (kind == C_REDUCE_SCATTER && !rcounts)
        return mpir_error(*c, MPI_ERR_ARG, "%s: NULL recvcounts", fn);
    if (kind == C_REDUCE_SCATTER_BLOCK && (rc = check_count(fn, *c, rcount)))
        return rc;
    size_t *arr = arrays(*c, n);
    a->rcb = arr;
    a->rdb = arr + n;
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        int64_t k = kind == C_REDUCE_SCATTER ? varr_at(rcounts, wide, i) : rcount;
        if (k < 0) {
            free(arr);
            a->rcb = a->rdb = NULL;
            return mpir_error(*c, MPI_ERR_COUNT, "%s: count %lld for rank %d is negative", fn,
                              (long long)k, i);
        }
        arr[i] = (size_t)k * ext;
        arr[n + i] = total;
        total += arr[i];
    }
    int in_place = sbuf == MPI_IN_PLACE;
    if ((!in_place && (rc = check_cbuf(fn, *c, "send buffer", sbuf, total))) ||
        (rc = check_cbuf(fn, *c, "receive buffer", rbuf, in_place ? total : arr[(*c)->rank])) ||
        (rc = check_alias(fn, *c, in_place ? NULL : sbuf, rbuf, total))) {
        coll_args_free(a);
        return rc;
    }
    a->kind = kind;
    a->sbuf = in_place ? NULL : sbuf;
    a->rbuf = rbuf;
    a->count = arr[(*c)->rank] / (ext ? ext : 1);
    if (pk) { /* copies laid out as the type, as in prep_reduce */
        int64_t all = (int64_t)(total / ext), mine = (int64_t)a->count;
        if (!in_place)
            a->sbuf = a->own[0] = span_copy(pk, sbuf, all, 1);
        a->rbuf = span_copy(pk, rbuf, in_place ? all : mine, in_place);
        a->out = (struct coll_unpack){pk, rbuf, a->rbuf, mine, 1};
    }
    return 0;
}

void coll_local_done(coll_args_t *a)
{
    if (a->out.d)
        coll_unpack_run(&a->out);
    for (int i = 0; i < a->nunpack; i++)
        coll_unpack_run(&a->unpackv[i]);
    free(a->out.packed);
    free(a->own[0]);
    free(a->own[1]);
    coll_args_free(a);
}

void coll_args_free(coll_args_t *a)
{
    free((void *)a->rcb);
    a->rcb = a->rdb = a->scb = a->sdb = NULL;
    free(a->unpackv);
    a->unpackv = NULL;
    a->nunpack = 0;
}

static int report(const char *fn, struct MPI_ABI_Comm *c, int err)
{
    if (!err)
        return MPI_SUCCESS;
    return mpir_error(c, err, "%s: %s (the ranks' counts or datatypes do not match)", fn,
                      mpir_class_string(err));
}

int coll_run(const char *fn, struct MPI_ABI_Comm *c, coll_args_t *a)
{
    sched_t *s = coll_build(c, a);
    coll_args_free(a);
    return report(fn, c, sched_run(s));
}

int coll_start(const char *fn, struct MPI_ABI_Comm *c, coll_args_t *a, MPI_Request *req)
{
    if (!req) {
        coll_args_free(a);
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL request pointer", fn);
    }
    sched_t *s = coll_build(c, a);
    coll_args_free(a);
    *req = sched_start_req(s);
    return MPI_SUCCESS;
}
