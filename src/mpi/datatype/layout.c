/*
 * layout.c — building derived types: bounds, signature and the flattened
 * run list of every constructor, reference counting.
 *
 * A constructor's arguments decode into blocks (displacement in bytes, count
 * of consecutive copies, old type); bounds and runs follow from the blocks.
 * Regular constructors (contiguous, vector, hvector) keep their repetition as
 * reps/rep_stride instead of listing every block, so their representation is
 * as small as one block of the old type.
 */
#include <stdlib.h>
#include <string.h>

#include "datatype/dtype.h"
#include "device/mt.h"

int dt_check(const char *fn, MPI_Datatype h, struct MPI_ABI_Datatype **out)
{
    uintptr_t v = (uintptr_t)h;
    struct MPI_ABI_Datatype *d = NULL;
    if (v - 0x200 < 0x100)
        d = &mpir_dtype_predef[v & 0xff];
    else if (v >= MPIR_PREDEF_BOUND)
        d = (struct MPI_ABI_Datatype *)h;
    if (d && (d->magic == MAGIC_DTYPE || d->magic == MAGIC_DTYPE_NEW) && d->rep) {
        *out = d;
        return 0;
    }
    *out = NULL;
    return mpir_error(NULL, MPI_ERR_TYPE, "%s: invalid datatype %s", fn,
                      v == 0x200 ? "MPI_DATATYPE_NULL" : "(not a datatype handle)");
}

void dt_retain(struct MPI_ABI_Datatype *d)
{
    if (!d->rep->predefined)
        mpid_ref_add(&d->rep->refs, 1);
}

void dt_release(struct MPI_ABI_Datatype *d)
{
    struct dtype_rep *t = d->rep;
    if (t->predefined || mpid_ref_add(&t->refs, -1) > 0)
        return;
    for (int i = 0; i < t->nd; i++)
        dt_release(t->types[i]);
    if (t->inner)
        dt_release(t->inner);
    free(t->ints);
    free(t->aints);
    free(t->types);
    free(t->runs);
    d->magic = 0;
    free(t);
    free(d);
}

/* ---- run lists ----------------------------------------------------------- */
typedef struct runbuf {
    dt_run_t *runs;
    int64_t n, cap;
    int oom;
} runbuf_t;

static void rb_add(runbuf_t *b, int64_t off, int64_t len)
{
    if (len <= 0)
        return;
    if (b->n && b->runs[b->n - 1].off + b->runs[b->n - 1].len == off) {
        b->runs[b->n - 1].len += len; /* coalesce with the previous run */
        return;
    }
    if (b->n == b->cap) {
        int64_t cap = b->cap ? 2 * b->cap : 8;
        dt_run_t *r = realloc(b->runs, (size_t)cap * sizeof *r);
        if (!r) {
            b->oom = 1;
            return;
        }
        b->runs = r;
        b->cap = cap;
    }
    b->runs[b->n].off = off;
    b->runs[b->n].len = len;
    b->n++;
}

static int64_t extent_of(const struct dtype_rep *t) { return t->ub - t->lb; }

/* One run whose copies touch: n copies are one longer run. */
static int dense(const struct dtype_rep *t)
{
    return t->nruns == 1 && t->reps == 1 && t->runs[0].len == extent_of(t);
}

/* Append n consecutive copies of t placed at disp. */
static void rb_add_copies(runbuf_t *b, const struct dtype_rep *t, int64_t disp, int64_t n)
{
    if (n <= 0 || t->nruns == 0)
        return;
    if (dense(t)) {
        rb_add(b, disp + t->runs[0].off, n * t->runs[0].len);
        return;
    }
    int64_t ext = extent_of(t);
    for (int64_t c = 0; c < n && !b->oom; c++)
        for (int64_t r = 0; r < t->reps; r++)
            for (int64_t k = 0; k < t->nruns; k++)
                rb_add(b, disp + c * ext + r * t->rep_stride + t->runs[k].off, t->runs[k].len);
}

/* ---- bounds -------------------------------------------------------------- */
typedef struct acc {
    int any, any_data;
    int64_t lb, ub, tlb, tub;
    int64_t size, nbasic, basic_size; /* basic_size -1: none seen yet */
    int align, explicit_bounds;
} acc_t;

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* n consecutive copies of t at disp join the type. */
static void acc_block(acc_t *a, const struct dtype_rep *t, int64_t disp, int64_t n)
{
    /* copies of a type without data add no entries to the type map; only
     * explicitly set bounds (resized) still count, like MPICH */
    if (n <= 0 || (!t->nbasic && !t->explicit_bounds))
        return;
    int64_t last = disp + (n - 1) * extent_of(t);
    int64_t lo = min64(disp, last), hi = max64(disp, last);
    if (!a->any) {
        a->lb = lo + t->lb;
        a->ub = hi + t->ub;
    } else {
        a->lb = min64(a->lb, lo + t->lb);
        a->ub = max64(a->ub, hi + t->ub);
    }
    a->any = 1;
    if (t->nbasic) {
        if (!a->any_data) {
            a->tlb = lo + t->true_lb;
            a->tub = hi + t->true_ub;
        } else {
            a->tlb = min64(a->tlb, lo + t->true_lb);
            a->tub = max64(a->tub, hi + t->true_ub);
        }
        a->any_data = 1;
    }
    a->nbasic += n * t->nbasic;
    if (t->nbasic) {
        if (a->basic_size == -1)
            a->basic_size = t->basic_size;
        else if (a->basic_size != t->basic_size)
            a->basic_size = 0;
    }
    if (t->align > a->align)
        a->align = t->align;
    a->explicit_bounds |= t->explicit_bounds;
}

/* ---- constructor arguments as blocks --------------------------------------- */
typedef void (*block_fn)(void *ctx, int64_t disp, int64_t n, struct MPI_ABI_Datatype *t);

/* Call fn for every block of a constructor, in type-map order.  Regular
 * constructors (contiguous/vector/hvector) are not decoded here. */
static void decode(int combiner, const int64_t *ints, const MPI_Aint *aints,
                   struct MPI_ABI_Datatype *const *types, block_fn fn, void *ctx)
{
    int64_t count = ints ? ints[0] : 0;
    int64_t ext = types && count > 0 ? extent_of(types[0]->rep) : 0; /* count 0: maybe no types */
    switch (combiner) {
    case MPI_COMBINER_INDEXED:
        for (int64_t i = 0; i < count; i++)
            fn(ctx, (int64_t)ints[1 + count + i] * ext, ints[1 + i], types[0]);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int64_t i = 0; i < count; i++)
            fn(ctx, aints[i], ints[1 + i], types[0]);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int64_t i = 0; i < count; i++)
            fn(ctx, (int64_t)ints[2 + i] * ext, ints[1], types[0]);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int64_t i = 0; i < count; i++)
            fn(ctx, aints[i], ints[1], types[0]);
        break;
    case MPI_COMBINER_STRUCT:
        for (int64_t i = 0; i < count; i++)
            fn(ctx, aints[i], ints[1 + i], types[i]);
        break;
    default:
        break;
    }
}

/* Regular constructors: count blocks of bl copies, stride bytes apart. */
static int regular(int combiner, const int64_t *ints, const MPI_Aint *aints,
                   struct MPI_ABI_Datatype *const *types, int64_t *count, int64_t *bl,
                   int64_t *stride)
{
    switch (combiner) { /* (a struct of count 0 has no types[0]) */
    case MPI_COMBINER_CONTIGUOUS:
        *count = 1, *bl = ints[0], *stride = 0;
        return 1;
    case MPI_COMBINER_VECTOR:
        *count = ints[0], *bl = ints[1], *stride = (int64_t)ints[2] * extent_of(types[0]->rep);
        return 1;
    case MPI_COMBINER_HVECTOR:
        *count = ints[0], *bl = ints[1], *stride = aints[0];
        return 1;
    }
    return 0;
}

typedef struct build {
    acc_t acc;
    runbuf_t rb;
} build_t;

static void build_block(void *ctx, int64_t disp, int64_t n, struct MPI_ABI_Datatype *t)
{
    build_t *b = ctx;
    acc_block(&b->acc, t->rep, disp, n);
    rb_add_copies(&b->rb, t->rep, disp, n);
}

static int64_t *dup_ints(const int64_t *p, int n)
{
    int64_t *q = malloc((size_t)(n ? n : 1) * sizeof *q);
    if (q && n)
        memcpy(q, p, (size_t)n * sizeof *q);
    return q;
}

/* Publish sizes on the object and decide whether it is one plain piece. */
static void finish_object(struct MPI_ABI_Datatype *d)
{
    struct dtype_rep *t = d->rep;
    int64_t size = 0;
    for (int64_t k = 0; k < t->nruns; k++)
        size += t->runs[k].len;
    d->size = (uint64_t)(size * t->reps);
    d->extent = extent_of(t);
    d->contiguous = t->lb == 0 && ((t->nruns == 1 && t->reps == 1 && t->runs[0].off == 0 &&
                                    (int64_t)d->size == d->extent) ||
                                   (t->nruns == 0 && d->extent == 0));
    d->name = t->name;
}

struct MPI_ABI_Datatype *dt_create(int combiner, int ni, const int64_t *ints, int na,
                                   const MPI_Aint *aints, int nd,
                                   struct MPI_ABI_Datatype *const *types, int *err)
{
    struct MPI_ABI_Datatype *d = calloc(1, sizeof *d);
    struct dtype_rep *t = calloc(1, sizeof *t);
    build_t b = {.acc = {.basic_size = -1, .align = 1}};
    if (!d || !t)
        goto oom;
    d->rep = t;
    t->refs = 1;
    t->combiner = combiner;
    t->ni = ni, t->na = na, t->nd = nd;
    t->ints = dup_ints(ints, ni);
    t->aints = malloc((size_t)(na ? na : 1) * sizeof *t->aints);
    t->types = malloc((size_t)(nd ? nd : 1) * sizeof *t->types);
    if (!t->ints || !t->aints || !t->types)
        goto oom;
    if (na)
        memcpy(t->aints, aints, (size_t)na * sizeof *aints);
    t->reps = 1;
    int64_t count, bl, stride;
    if (combiner == MPI_COMBINER_DUP || combiner == MPI_COMBINER_RESIZED) {
        const struct dtype_rep *o = types[0]->rep;
        build_block(&b, 0, 1, types[0]);
        if (o->reps > 1) { /* keep the compact form */
            free(b.rb.runs);
            b.rb.runs = malloc((size_t)(o->nruns ? o->nruns : 1) * sizeof *b.rb.runs);
            if (!b.rb.runs)
                goto oom;
            memcpy(b.rb.runs, o->runs, (size_t)o->nruns * sizeof *o->runs);
            b.rb.n = o->nruns;
            t->reps = o->reps;
            t->rep_stride = o->rep_stride;
        }
        if (combiner == MPI_COMBINER_RESIZED) {
            b.acc.lb = aints[0];
            b.acc.ub = aints[0] + aints[1];
            b.acc.explicit_bounds = 1;
        }
    } else if (regular(combiner, ints, aints, types, &count, &bl, &stride)) {
        /* one block, repeated */
        if (count > 0 && bl > 0) {
            acc_block(&b.acc, types[0]->rep, 0, bl);
            acc_t tail = b.acc;
            acc_block(&tail, types[0]->rep, (count - 1) * stride, bl);
            b.acc.lb = min64(b.acc.lb, tail.lb);
            b.acc.ub = max64(b.acc.ub, tail.ub);
            if (b.acc.any_data) {
                b.acc.tlb = min64(b.acc.tlb, tail.tlb);
                b.acc.tub = max64(b.acc.tub, tail.tub);
            }
            b.acc.nbasic *= count;
            rb_add_copies(&b.rb, types[0]->rep, 0, bl);
            if (count > 1) {
                if (b.rb.n == 1 && b.rb.runs[0].len == stride)
                    b.rb.runs[0].len *= count; /* blocks touch: one run */
                else if (b.rb.n) {
                    t->reps = count;
                    t->rep_stride = stride;
                }
            }
        }
    } else {
        decode(combiner, ints, aints, types, build_block, &b);
    }
    if (b.rb.oom)
        goto oom;
    t->runs = b.rb.runs;
    t->nruns = b.rb.n;
    t->lb = b.acc.any ? b.acc.lb : 0;
    t->ub = b.acc.any ? b.acc.ub : 0;
    t->true_lb = b.acc.any_data ? b.acc.tlb : 0;
    t->true_ub = b.acc.any_data ? b.acc.tub : 0;
    t->nbasic = b.acc.nbasic;
    t->basic_size = b.acc.basic_size > 0 ? b.acc.basic_size : 0;
    t->align = b.acc.align;
    t->explicit_bounds = b.acc.explicit_bounds;
    if (combiner == MPI_COMBINER_STRUCT && !t->explicit_bounds && t->align > 1) {
        int64_t ext = t->ub - t->lb, a = t->align; /* pad like a C struct */
        if (ext % a)
            t->ub += a - ext % a;
    }
    for (int i = 0; i < nd; i++) {
        t->types[i] = types[i];
        dt_retain(types[i]);
    }
    d->magic = MAGIC_DTYPE_NEW;
    finish_object(d);
    return d;
oom:
    *err = MPI_ERR_NO_MEM;
    if (t) {
        free(t->ints);
        free(t->aints);
        free(t->types);
        free(t);
    }
    free(b.rb.runs);
    free(d);
    return NULL;
}

/* ---- subarray and darray: composed from the simpler constructors ----------- */
static struct MPI_ABI_Datatype *mk_hvector(int64_t count, int64_t bl, int64_t stride,
                                           struct MPI_ABI_Datatype *old, int *err)
{
    int64_t ints[2] = {count, bl};
    MPI_Aint a = (MPI_Aint)stride;
    return dt_create(MPI_COMBINER_HVECTOR, 2, ints, 1, &a, 1, &old, err);
}

static struct MPI_ABI_Datatype *mk_resized(struct MPI_ABI_Datatype *old, int64_t lb, int64_t ext,
                                           int *err)
{
    MPI_Aint a[2] = {(MPI_Aint)lb, (MPI_Aint)ext};
    return dt_create(MPI_COMBINER_RESIZED, 0, NULL, 2, a, 1, &old, err);
}

/* One block of old at displacement disp (a struct of one member). */
static struct MPI_ABI_Datatype *mk_shift(struct MPI_ABI_Datatype *old, int64_t disp, int *err)
{
    int64_t ints[2] = {1, 1};
    MPI_Aint a = (MPI_Aint)disp;
    return dt_create(MPI_COMBINER_HINDEXED, 2, ints, 1, &a, 1, &old, err);
}

/* Replace *cur by next (dropping our reference to *cur); 0 on failure. */
static int step(struct MPI_ABI_Datatype **cur, struct MPI_ABI_Datatype *next)
{
    if (*cur)
        dt_release(*cur);
    *cur = next;
    return next != NULL;
}

/* The outer type keeps the composed one as `inner` and copies its layout. */
static struct MPI_ABI_Datatype *wrap(int combiner, int ni, const int64_t *ints,
                                     struct MPI_ABI_Datatype *old, struct MPI_ABI_Datatype *inner,
                                     int *err)
{
    struct MPI_ABI_Datatype *d = dt_create(MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &inner, err);
    dt_release(inner); /* the caller's reference: d (if any) holds its own */
    if (!d)
        return NULL;
    struct dtype_rep *t = d->rep;
    /* turn the DUP into the real constructor; inner keeps the reference
     * dt_create took for types[0] */
    int64_t *copy = dup_ints(ints, ni);
    if (!copy) {
        *err = MPI_ERR_NO_MEM;
        dt_release(d);
        return NULL;
    }
    t->inner = inner;
    free(t->ints);
    t->ints = copy;
    t->ni = ni;
    t->combiner = combiner;
    t->types[0] = old;
    dt_retain(old);
    return d;
}

struct MPI_ABI_Datatype *dt_create_subarray(int ndims, const int64_t *sizes,
                                            const int64_t *subsizes, const int64_t *starts,
                                            int order,
                                            struct MPI_ABI_Datatype *old, int *err)
{
    int64_t ext = extent_of(old->rep), stride = ext, disp = 0, full = ext;
    struct MPI_ABI_Datatype *cur = old;
    dt_retain(old);
    /* innermost (fastest varying) dimension first */
    for (int k = 0; k < ndims; k++) {
        int dim = order == MPI_ORDER_C ? ndims - 1 - k : k;
        if (!step(&cur, mk_hvector(subsizes[dim], 1, stride, cur, err)))
            return NULL;
        disp += (int64_t)starts[dim] * stride;
        stride *= sizes[dim];
        full *= sizes[dim];
    }
    if (!step(&cur, mk_shift(cur, disp, err)) || !step(&cur, mk_resized(cur, 0, full, err)))
        return NULL;
    int64_t ints[2 + 3 * 32];
    ints[0] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[1 + i] = sizes[i];
        ints[1 + ndims + i] = subsizes[i];
        ints[1 + 2 * ndims + i] = starts[i];
    }
    ints[1 + 3 * ndims] = order;
    return wrap(MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints, old, cur, err);
}

/* One dimension of a darray: my part of gsize elements (each `stride` bytes
 * apart in the global array) over psize processes at coordinate coord. */
static struct MPI_ABI_Datatype *darray_dim(struct MPI_ABI_Datatype *cur, int64_t gsize, int distrib,
                                           int darg, int psize, int coord, int64_t stride,
                                           int *err)
{
    if (distrib == MPI_DISTRIBUTE_NONE) {
        psize = 1;
        coord = 0;
        distrib = MPI_DISTRIBUTE_BLOCK;
        darg = MPI_DISTRIBUTE_DFLT_DARG;
    }
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        int64_t start = blk * coord, n = gsize - start;
        if (n > blk)
            n = blk;
        if (n < 0)
            n = 0;
        struct MPI_ABI_Datatype *v = mk_hvector(n, 1, stride, cur, err);
        if (!v)
            return NULL;
        struct MPI_ABI_Datatype *s = mk_shift(v, start * stride, err);
        dt_release(v);
        return s;
    }
    /* cyclic(darg): blocks of blk elements dealt round-robin */
    int64_t blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    int64_t nblocks = (gsize + blk - 1) / blk;
    int64_t mine = nblocks > coord ? (nblocks - coord + psize - 1) / psize : 0;
    int64_t nb = mine;
    int64_t *ints = malloc((size_t)(2 * nb + 1) * sizeof *ints);
    MPI_Aint *disps = malloc((size_t)(nb ? nb : 1) * sizeof *disps);
    if (!ints || !disps) {
        free(ints);
        free(disps);
        *err = MPI_ERR_NO_MEM;
        return NULL;
    }
    ints[0] = nb;
    for (int64_t i = 0; i < nb; i++) {
        int64_t first = (coord + (int64_t)i * psize) * blk;
        int64_t n = gsize - first < blk ? gsize - first : blk;
        ints[1 + i] = n;
        disps[i] = (MPI_Aint)(first * stride);
    }
    /* a block's n elements follow each other `stride` bytes apart: cur (the
     * inner dimensions, fewer than all of them on a process grid) is
     * resized to that extent, or a block would step by its own extent */
    struct MPI_ABI_Datatype *row = mk_resized(cur, 0, stride, err), *h = NULL;
    if (row)
        h = dt_create(MPI_COMBINER_HINDEXED, (int)nb + 1, ints, (int)nb, disps, 1, &row, err);
    if (row)
        dt_release(row);
    free(ints);
    free(disps);
    return h;
}

struct MPI_ABI_Datatype *dt_create_darray(int size, int rank, int ndims, const int64_t *gsizes,
                                          const int *distribs, const int *dargs,
                                          const int *psizes, int order,
                                          struct MPI_ABI_Datatype *old, int *err)
{
    (void)size;
    int coords[32];
    for (int i = ndims - 1, r = rank; i >= 0; i--) { /* process grid is row-major */
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    int64_t ext = extent_of(old->rep), stride = ext, full = ext;
    struct MPI_ABI_Datatype *cur = old;
    dt_retain(old);
    for (int k = 0; k < ndims; k++) {
        int dim = order == MPI_ORDER_C ? ndims - 1 - k : k;
        if (!step(&cur, darray_dim(cur, gsizes[dim], distribs[dim], dargs[dim], psizes[dim],
                                   coords[dim], stride, err)))
            return NULL;
        stride *= gsizes[dim];
        full *= gsizes[dim];
    }
    if (!step(&cur, mk_resized(cur, 0, full, err)))
        return NULL;
    int64_t ints[4 + 4 * 32];
    ints[0] = size;
    ints[1] = rank;
    ints[2] = ndims;
    for (int i = 0; i < ndims; i++) {
        ints[3 + i] = gsizes[i];
        ints[3 + ndims + i] = distribs[i];
        ints[3 + 2 * ndims + i] = dargs[i];
        ints[3 + 3 * ndims + i] = psizes[i];
    }
    ints[3 + 4 * ndims] = order;
    return wrap(MPI_COMBINER_DARRAY, 4 * ndims + 4, ints, old, cur, err);
}
