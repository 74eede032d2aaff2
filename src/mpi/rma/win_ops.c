/*
 * win_ops.c — put, get and the accumulate family, carried out at once.
 *
 * A target's bytes are reached one of three ways (struct tloc):
 *   direct   its memory is mapped here (window segment, MPI_Alloc_mem block,
 *            or my own): plain copies, CPU atomics;
 *   exposure same node, private memory: CMA through skf_get/skf_put (no help
 *            from the target), or another node: the channel over tcp.
 * Every call completes before it returns, so flush and unlock only need a
 * memory fence (docs/rma.md: what this costs and why it is still right) --
 * except contiguous puts and gets to other nodes, which are queued on the
 * channel and finished by win_settle (flush, unlock, fence, complete).
 *
 * Accumulates are atomic per element with respect to each other.  Which
 * mechanism a (window, type, op) uses is fixed, so two origins never mix
 * them on one element:
 *   - integer atomics (skf_atomic semantics: add, and, or, xor, min, max,
 *     swap, compare-and-swap on 4/8-byte integers) when every rank's memory
 *     is shared on its node (mem_shared_all): origins that map the target
 *     use CPU atomic instructions, others skf_atomic, which the target's side
 *     executes with the same instructions;
 *   - otherwise the target's accumulate mutex around read, combine, write
 *     (in place with the op's vector kernel when the memory is mapped here:
 *     512 doubles summed in a fraction of a microsecond, where one
 *     compare-and-swap per element took 7 us).
 * To another node both run at the target, in one skf_accumulate request its
 * tcp service thread executes (accumulate_remote): atomics per element, or
 * the mutex word taken by that thread itself.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "core/copy.h"
#include "datatype/dtype.h"
#include "rma/win.h"

/* Where a target buffer's origin is: ptr (direct) or key + off. */
typedef struct tloc {
    char *ptr;         /* direct: the buffer origin's address here, else NULL */
    skf_mr_key_t key;  /* exposure to reach it through */
    uint64_t off;      /* buffer origin's offset in key's region */
} tloc_t;

static int chan_error(struct MPI_ABI_Win *w, const char *fn, int target, int err)
{
    return mpir_win_error(w, err == -EINVAL ? MPI_ERR_RMA_RANGE : MPI_ERR_OTHER,
                          "%s: rank %d: one-sided access to rank %d failed: %s", fn, w->rank,
                          target, skf_strerror(err));
}

/* ---- datatypes ------------------------------------------------------------------ */

static MPI_Datatype handle_of(const struct MPI_ABI_Datatype *d)
{
    if (d >= mpir_dtype_predef && d < mpir_dtype_predef + 256)
        return (MPI_Datatype)(uintptr_t)(0x200 + (d - mpir_dtype_predef));
    return (MPI_Datatype)d;
}

/* The type whose kernels and atomics an accumulate on t uses.  MPI_CHAR
 * counts as MPI_SIGNED_CHAR: MPI-3.1 leaves it out of the integer types,
 * but MPICH and Open MPI accept it and the OSU one-sided benchmarks use it
 * by default (osu_acc_latency, osu_get_acc_latency, osu_cas_latency). */
static MPI_Datatype ops_type(MPI_Datatype t) { return t == MPI_CHAR ? MPI_SIGNED_CHAR : t; }

/* The one predefined type a type is built of, or NULL when it mixes types. */
static const struct MPI_ABI_Datatype *basic_of(const struct MPI_ABI_Datatype *d)
{
    if (d->rep->predefined)
        return d;
    const struct MPI_ABI_Datatype *b = NULL;
    for (int i = 0; i < d->rep->nd; i++) {
        const struct MPI_ABI_Datatype *x = basic_of(d->rep->types[i]);
        if (!x || (b && x != b))
            return NULL;
        b = x;
    }
    return b;
}

typedef int (*piece_fn)(void *arg, int64_t off, size_t len);

/* fn on each contiguous piece of count elements of d (offsets from the
 * buffer origin), adjacent pieces joined; stops at a non-zero return. */
static int for_pieces(const struct MPI_ABI_Datatype *d, int64_t count, piece_fn fn, void *arg)
{
    if (d->contiguous)
        return count ? fn(arg, 0, (size_t)count * d->size) : 0;
    const struct dtype_rep *rp = d->rep;
    int64_t at = 0, len = 0;
    for (int64_t i = 0; i < count; i++)
        for (int64_t r = 0; r < rp->reps; r++)
            for (int64_t k = 0; k < rp->nruns; k++) {
                int64_t o = i * d->extent + r * rp->rep_stride + rp->runs[k].off;
                if (len && o == at + len) {
                    len += rp->runs[k].len;
                    continue;
                }
                int rc = len ? fn(arg, at, (size_t)len) : 0;
                if (rc)
                    return rc;
                at = o;
                len = rp->runs[k].len;
            }
    return len ? fn(arg, at, (size_t)len) : 0;
}

/* ---- moving bytes between a packed buffer and the target --------------------------- */

struct mover {
    struct MPI_ABI_Win *w;
    const tloc_t *loc;
    char *packed; /* cursor */
    int write;
    int err;      /* negative errno of the channel */
    struct iovec r[64], l[64];
    int n;
};

static int flush_gets(struct mover *m)
{
    if (!m->n)
        return 0;
    int rc = skf_getv(mpid.ch, &m->loc->key, m->r, m->n, m->l, m->n);
    m->n = 0;
    return rc;
}

static int move_piece(void *arg, int64_t off, size_t len)
{
    struct mover *m = arg;
    uint64_t at = m->loc->off + (uint64_t)off;
    int rc;
    if (m->write) {
        rc = skf_put(mpid.ch, &m->loc->key, at, m->packed, len);
    } else {
        m->r[m->n] = (struct iovec){(void *)(uintptr_t)at, len};
        m->l[m->n] = (struct iovec){m->packed, len};
        rc = ++m->n == 64 ? flush_gets(m) : 0;
    }
    m->packed += len;
    if (rc)
        m->err = rc;
    return rc;
}

/* Target (d, count at loc) <-> packed: write 1 stores packed into the target. */
static int target_move(struct MPI_ABI_Win *w, const tloc_t *loc,
                       const struct MPI_ABI_Datatype *d, int64_t count, void *packed, size_t n,
                       int write)
{
    if (loc->ptr) {
        if (d->contiguous)
            write ? memcpy(loc->ptr, packed, n) : memcpy(packed, loc->ptr, n);
        else
            dt_copy(d, loc->ptr, count, 0, packed, n, write);
        return 0;
    }
    struct mover m = {.w = w, .loc = loc, .packed = packed, .write = write};
    int rc = for_pieces(d, count, move_piece, &m);
    if (!rc && !write)
        rc = flush_gets(&m);
    return rc ? rc : m.err;
}

/* ---- where the target buffer is ------------------------------------------------------ */

/* Regions a dynamic window's target has attached, read consistently. */
static int read_regions(struct MPI_ABI_Win *w, int target, struct win_region *out, int *n)
{
    struct win_target *t = &w->t[target];
    size_t hdr = sizeof(struct win_ctl);
    for (int tries = 0;; tries++) {
        uint64_t gen, gen2, cnt;
        if (t->ctl) {
            gen = __atomic_load_n(&t->ctl->regions_gen, __ATOMIC_ACQUIRE);
            cnt = __atomic_load_n(&t->ctl->nregions, __ATOMIC_ACQUIRE);
            if (cnt > WIN_DYN_MAX)
                cnt = WIN_DYN_MAX;
            memcpy(out, t->ctl->regions, cnt * sizeof *out);
            gen2 = __atomic_load_n(&t->ctl->regions_gen, __ATOMIC_ACQUIRE);
        } else {
            struct win_ctl head;
            int rc = skf_get(mpid.ch, &t->ctl_key, 0, &head, hdr);
            cnt = head.nregions > WIN_DYN_MAX ? WIN_DYN_MAX : head.nregions;
            gen = head.regions_gen;
            if (!rc && cnt)
                rc = skf_get(mpid.ch, &t->ctl_key, hdr, out, cnt * sizeof *out);
            if (!rc)
                rc = skf_get(mpid.ch, &t->ctl_key, offsetof(struct win_ctl, regions_gen), &gen2, 8);
            if (rc)
                return rc;
        }
        if (gen == gen2 && !(gen & 1)) {
            *n = (int)cnt;
            return 0;
        }
        if (tries > 1000)
            mpid_progress(); /* the owner is attaching right now: let things move */
    }
}

/* Find the target buffer of count elements of d at disp; MPI error class. */
static int locate(struct MPI_ABI_Win *w, const char *fn, int target, MPI_Aint disp,
                  const struct MPI_ABI_Datatype *d, int64_t count, tloc_t *loc)
{
    struct win_target *t = &w->t[target];
    int64_t lo = 0, hi = 0;
    if (count > 0) {
        lo = d->rep->true_lb;
        hi = (count - 1) * d->extent + d->rep->true_ub;
    }
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        int64_t off = (int64_t)disp * t->disp_unit;
        if (count > 0 && (off + lo < 0 || off + hi > (int64_t)t->size))
            return mpir_win_error(w, MPI_ERR_RMA_RANGE,
                                  "%s: rank %d: target rank %d bytes [%lld, %lld) are outside "
                                  "its window of %llu bytes (displacement %lld x unit %d)",
                                  fn, w->rank, target, (long long)(off + lo),
                                  (long long)(off + hi), (unsigned long long)t->size,
                                  (long long)disp, t->disp_unit);
        if (t->direct || count == 0) {
            loc->ptr = (t->direct ? t->direct : (char *)w->base) + off;
            return MPI_SUCCESS;
        }
        loc->ptr = NULL;
        loc->key = t->key;
        loc->off = (uint64_t)off;
        return MPI_SUCCESS;
    }
    /* dynamic: disp is an address in the target's process */
    uint64_t a = (uint64_t)disp + (uint64_t)lo, b = (uint64_t)disp + (uint64_t)hi;
    if (count == 0) {
        loc->ptr = (char *)(uintptr_t)disp;
        return MPI_SUCCESS;
    }
    struct win_region regs[WIN_DYN_MAX];
    int n = 0;
    if (target == w->rank) {
        for (int i = 0; i < w->natt; i++)
            regs[n++] = (struct win_region){(uint64_t)(uintptr_t)w->att[i].base, w->att[i].len,
                                            w->att[i].key.cookie};
    } else {
        int rc = read_regions(w, target, regs, &n);
        if (rc)
            return chan_error(w, fn, target, rc);
    }
    for (int i = 0; i < n; i++)
        if (a >= regs[i].base && b <= regs[i].base + regs[i].len) {
            if (target == w->rank) {
                loc->ptr = (char *)(uintptr_t)disp;
                return MPI_SUCCESS;
            }
            loc->ptr = NULL;
            loc->key = (skf_mr_key_t){regs[i].base, regs[i].len, t->world, t->ctl_key.pid,
                                      regs[i].cookie};
            loc->off = (uint64_t)disp - regs[i].base;
            return MPI_SUCCESS;
        }
    return mpir_win_error(w, MPI_ERR_RMA_RANGE,
                          "%s: rank %d: addresses [0x%llx, 0x%llx) of rank %d are not in a "
                          "region attached to the dynamic window",
                          fn, w->rank, (unsigned long long)a, (unsigned long long)b, target);
}

/* ---- element atomics ---------------------------------------------------------------- */

enum amode { A_KERNEL, A_REPLACE, A_NOOP, A_CAS };

/* One element at p (CPU atomics): old value to *old; size 1, 2, 4 or 8. */
static void cpu_element(void *p, size_t size, const void *in, const void *cmp, void *old,
                        kernel_fn *k, int mode)
{
#define ELEM(T)                                                                         \
    {                                                                                   \
        T *a = p, o = __atomic_load_n(a, __ATOMIC_SEQ_CST), v;                          \
        switch (mode) {                                                                 \
        case A_NOOP:                                                                    \
            break;                                                                      \
        case A_REPLACE:                                                                 \
            memcpy(&v, in, sizeof v);                                                   \
            o = __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                            \
            break;                                                                      \
        case A_CAS:                                                                     \
            memcpy(&o, cmp, sizeof o);                                                  \
            memcpy(&v, in, sizeof v);                                                   \
            __atomic_compare_exchange_n(a, &o, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
            break;                                                                      \
        default:                                                                        \
            do {                                                                        \
                v = o;                                                                  \
                k(in, &v, 1);                                                           \
            } while (!__atomic_compare_exchange_n(a, &o, v, 0, __ATOMIC_SEQ_CST,        \
                                                  __ATOMIC_SEQ_CST));                   \
        }                                                                               \
        if (old)                                                                        \
            memcpy(old, &o, sizeof o);                                                  \
    }
    switch (size) {
    case 1:
        ELEM(uint8_t) break;
    case 2:
        ELEM(uint16_t) break;
    case 4:
        ELEM(uint32_t) break;
    default:
        ELEM(uint64_t) break;
    }
#undef ELEM
}

/* The skf_atomic op for an MPI op on an integer type, -1 if there is none. */
static int skf_op_of(MPI_Op op, int is_signed, int mode)
{
    if (mode == A_CAS)
        return SKF_AOP_CSWAP;
    if (mode == A_REPLACE)
        return SKF_AOP_SET;
    if (mode == A_NOOP)
        return SKF_AOP_FETCH;
    switch ((uintptr_t)op) {
    case (uintptr_t)MPI_SUM:
        return SKF_AOP_ADD;
    case (uintptr_t)MPI_BAND:
        return SKF_AOP_AND;
    case (uintptr_t)MPI_BOR:
        return SKF_AOP_OR;
    case (uintptr_t)MPI_BXOR:
        return SKF_AOP_XOR;
    case (uintptr_t)MPI_MIN:
        return is_signed ? SKF_AOP_MIN : SKF_AOP_UMIN;
    case (uintptr_t)MPI_MAX:
        return is_signed ? SKF_AOP_MAX : SKF_AOP_UMAX;
    }
    return -1;
}

struct elem_walk {
    struct MPI_ABI_Win *w;
    const tloc_t *loc;
    size_t size;
    const char *in, *cmp;
    char *old;
    kernel_fn *k;
    int mode, skf_op;
    int err;
};

static int elem_piece(void *arg, int64_t off, size_t len)
{
    struct elem_walk *e = arg;
    for (size_t i = 0; i < len; i += e->size) {
        if (e->loc->ptr) {
            cpu_element(e->loc->ptr + off + i, e->size, e->in, e->cmp, e->old, e->k, e->mode);
        } else {
            uint64_t operand = 0, compare = 0, old = 0;
            if (e->in)
                memcpy(&operand, e->in, e->size);
            if (e->cmp)
                memcpy(&compare, e->cmp, e->size);
            int rc = skf_atomic(mpid.ch, &e->loc->key, e->loc->off + (uint64_t)off + i,
                                e->skf_op, (int)e->size, operand, compare, &old);
            if (rc) {
                e->err = rc;
                return rc;
            }
            if (e->old)
                memcpy(e->old, &old, e->size);
        }
        if (e->in)
            e->in += e->size;
        if (e->old)
            e->old += e->size;
    }
    return 0;
}

/* MPI_Accumulate of count predefined elements to target's memory mapped here
 * at p, by the window's rule (top of file): CPU atomics per element or the
 * kernel in place under the mutex.  1 done; 0: the caller takes the general
 * path (which also reports errors). */
int win_acc_fast(struct MPI_ABI_Win *w, int target, char *p, const void *in, int64_t count,
                 MPI_Datatype dt, MPI_Op op)
{
    const struct MPI_ABI_Datatype *d = dtype_of(dt);
    dt = ops_type(dt);
    size_t es = d->size;
    if (op == MPI_NO_OP || (int64_t)es != d->extent || ((uintptr_t)p & (es - 1)))
        return 0;
    int mode = op == MPI_REPLACE ? A_REPLACE : A_KERNEL;
    kernel_fn *k = mode == A_KERNEL ? op_kernel(op, dt) : NULL;
    if (mode == A_KERNEL && !k)
        return 0;
    int is_signed, cls = op_type_class(dt, &is_signed);
    int skf_op = cls == OPC_INT && (es == 4 || es == 8) ? skf_op_of(op, is_signed, mode) : -1;
    if (w->mem_shared_all && skf_op >= 0) {
        for (int64_t i = 0; i < count; i++)
            cpu_element(p + (size_t)i * es, es, (const char *)in + (size_t)i * es, NULL, NULL, k,
                        mode);
        return 1;
    }
    win_acc_lock(w, target);
    if (mode == A_REPLACE)
        memcpy(p, in, (size_t)count * es);
    else
        k(in, p, (size_t)count);
    win_acc_unlock(w, target);
    return 1;
}

/* ---- the entry ------------------------------------------------------------------------ */

/* Bytes of count elements of d, or report a mismatch. */
static size_t packed_bytes(const struct MPI_ABI_Datatype *d, int64_t count)
{
    return (size_t)count * d->size;
}

/* A packed copy of (buf, count, d): buf itself when contiguous. */
static void *packed_view(const void *buf, int64_t count, const struct MPI_ABI_Datatype *d, size_t n,
                         void **to_free)
{
    *to_free = NULL;
    if (d->contiguous || n == 0)
        return (void *)buf;
    void *p = malloc(n);
    if (p)
        dt_copy(d, buf, count, 0, p, n, 0);
    *to_free = p;
    return p;
}

/* A contiguous get or put to another node: start it, and let win_settle
 * finish it, so a run of them keeps the link busy instead of waiting a
 * round trip each (the channel queues them per connection, in order; the
 * origin buffer of a put stays untouched until the flush, as MPI says). */
static int rma_start(struct MPI_ABI_Win *w, const rma_op_t *op, const tloc_t *loc, size_t n,
                     int write)
{
    struct win_pending *p = malloc(sizeof *p);
    if (!p)
        return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory", op->fn);
    int rc = write ? skf_put_start(mpid.ch, &loc->key, loc->off, op->origin, n, &p->op)
                   : skf_get_start(mpid.ch, &loc->key, loc->off, op->result, n, &p->op);
    if (rc != 0) { /* done already (1) or failed */
        free(p);
        return rc < 0 ? chan_error(w, op->fn, op->target, rc) : MPI_SUCCESS;
    }
    p->target = op->target;
    p->next = w->pending;
    w->pending = p;
    return MPI_SUCCESS;
}

int win_settle(struct MPI_ABI_Win *w, const char *fn, int target)
{
    int err = 0, bad = -1;
    for (;;) {
        int left = 0;
        for (struct win_pending **pp = &w->pending; *pp;) {
            struct win_pending *p = *pp;
            int rc = target < 0 || p->target == target ? skf_get_test(mpid.ch, &p->op) : 0;
            if (rc == 0) {
                left += target < 0 || p->target == target;
                pp = &p->next;
                continue;
            }
            if (rc < 0 && !err) {
                err = rc;
                bad = p->target;
            }
            *pp = p->next;
            free(p);
        }
        if (!left)
            break;
        if (!mpid_progress())
            skf_wait(mpid.ch, SKF_GET_DONE, 1);
    }
    return err ? chan_error(w, fn, bad, err) : MPI_SUCCESS;
}

static int put_get(struct MPI_ABI_Win *w, const rma_op_t *op, const tloc_t *loc, size_t n)
{
    int write = op->kind == RMA_PUT;
    if (!loc->ptr && !op->blocking && op->otype->contiguous && op->ttype->contiguous &&
        mpid.remote[w->t[op->target].world])
        return rma_start(w, op, loc, n, write);
    if (loc->ptr && op->otype->contiguous && op->ttype->contiguous) {
        /* the common case: one copy, nothing else */
        write ? skf_copy(loc->ptr, op->origin, n) : skf_copy(op->result, loc->ptr, n);
        return MPI_SUCCESS;
    }
    void *tmp = NULL, *buf;
    if (write) {
        buf = packed_view(op->origin, op->ocount, op->otype, n, &tmp);
    } else {
        buf = op->otype->contiguous ? op->result : (tmp = malloc(n ? n : 1));
    }
    if (!buf)
        return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", op->fn, n);
    int rc = target_move(w, loc, op->ttype, op->tcount, buf, n, write);
    if (!rc && !write && tmp)
        dt_copy(op->otype, op->result, op->ocount, 0, tmp, n, 1);
    free(tmp);
    return rc ? chan_error(w, op->fn, op->target, rc) : MPI_SUCCESS;
}

/* cur = in op cur over packed elements of basic type b.  Kernels work on the
 * C layout; a pair type with padding (MPI_DOUBLE_INT: 12 bytes of data, 16
 * apart) is spread out to it and packed again.  0 when out of memory. */
static int combine(const struct MPI_ABI_Datatype *b, kernel_fn *k, const void *in, char *cur,
                   size_t n)
{
    size_t count = n / b->size;
    if ((int64_t)b->size == b->extent) {
        k(in, cur, count);
        return 1;
    }
    size_t span = count * (size_t)b->extent;
    char *a = calloc(1, span ? span : 1), *c = calloc(1, span ? span : 1); /* padding stays 0 */
    if (a && c) {
        dt_copy(b, a, (int64_t)count, 0, (void *)in, n, 1);
        dt_copy(b, c, (int64_t)count, 0, cur, n, 1);
        k(a, c, count);
        dt_copy(b, c, (int64_t)count, 0, cur, n, 0);
    }
    free(a);
    free(c);
    return a && c;
}

/* An accumulate's operand, packed (NULL for the no-op), and where the old
 * values go: the result buffer, or a temporary unpacked into it at the end. */
struct acc_bufs {
    const void *in;
    char *out;
    void *tmp_in, *tmp_out;
};

/* 0 when out of memory (nothing to free then). */
static int acc_bufs_get(const rma_op_t *op, size_t n, int mode, struct acc_bufs *b)
{
    *b = (struct acc_bufs){0};
    b->in = mode == A_NOOP ? NULL
            : op->kind == RMA_CAS ? op->origin
                                  : packed_view(op->origin, op->ocount, op->otype, n, &b->tmp_in);
    b->out = !op->result ? NULL
             : op->rtype->contiguous ? op->result
                                     : (b->tmp_out = malloc(n ? n : 1));
    if ((mode != A_NOOP && !b->in) || (op->result && !b->out)) {
        free(b->tmp_in);
        free(b->tmp_out);
        return 0;
    }
    return 1;
}

static void acc_bufs_done(const rma_op_t *op, size_t n, struct acc_bufs *b, int ok)
{
    if (b->tmp_out && ok)
        dt_copy(op->rtype, op->result, op->rcount, 0, b->tmp_out, n, 1);
    free(b->tmp_in);
    free(b->tmp_out);
}

/* The channel's accumulate op for an MPI op (mode), or -1. */
static int skf_acc_op_of(MPI_Op op, int mode)
{
    static const struct { MPI_Op mpi; int skf; } map[] = {
        {MPI_SUM, SKF_ACC_SUM},   {MPI_PROD, SKF_ACC_PROD}, {MPI_MIN, SKF_ACC_MIN},
        {MPI_MAX, SKF_ACC_MAX},   {MPI_BAND, SKF_ACC_BAND}, {MPI_BOR, SKF_ACC_BOR},
        {MPI_BXOR, SKF_ACC_BXOR}, {MPI_LAND, SKF_ACC_LAND}, {MPI_LOR, SKF_ACC_LOR},
        {MPI_LXOR, SKF_ACC_LXOR}};
    if (mode != A_KERNEL)
        return mode == A_CAS ? SKF_ACC_CSWAP : mode == A_REPLACE ? SKF_ACC_REPLACE : SKF_ACC_NOOP;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (map[i].mpi == op)
            return map[i].skf;
    return -1;
}

/* Accumulates to another node: one skf_accumulate per contiguous piece of
 * the target, executed by the target's tcp service thread in one request
 * (instead of mutex, get, put, release: four round trips).  The rule of
 * the top of the file holds there too: integer atomics per element, or
 * the target's accumulate mutex word, taken by the owner itself. */
struct remote_acc {
    struct MPI_ABI_Win *w;
    const tloc_t *loc;
    skf_acc_t a;
    size_t es;
    const char *in;
    char *old;
    int err;
};

static int remote_acc_piece(void *arg, int64_t off, size_t len)
{
    struct remote_acc *r = arg;
    r->a.count = len / r->es;
    r->a.operand = r->in;
    r->a.old = r->old;
    int rc = skf_accumulate(mpid.ch, &r->loc->key, r->loc->off + (uint64_t)off, &r->a);
    if (rc) {
        r->err = rc;
        return rc;
    }
    if (r->in && r->a.op != SKF_ACC_CSWAP)
        r->in += len;
    if (r->old)
        r->old += len;
    return 0;
}

/* 1 when done here (result in *rc, an MPI error class), 0: not a case for it. */
static int accumulate_remote(struct MPI_ABI_Win *w, const rma_op_t *op, const tloc_t *loc,
                             size_t n, const struct MPI_ABI_Datatype *tb, int mode, int atomics,
                             int *rc)
{
    int type = op_skf_type(ops_type(handle_of(tb))), aop = skf_acc_op_of(op->op, mode);
    if (loc->ptr || !mpid.remote[w->t[op->target].world] || type < 0 || aop < 0 ||
        (int64_t)tb->size != tb->extent)
        return 0;
    struct acc_bufs b;
    if (!acc_bufs_get(op, n, mode, &b)) {
        *rc = mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", op->fn, n);
        return 1;
    }
    struct remote_acc r = {.w = w, .loc = loc, .es = tb->size, .in = b.in, .old = b.out};
    r.a = (skf_acc_t){.op = aop, .type = type, .compare = op->compare};
    if (!atomics) { /* the target's accumulate mutex, as its node mates take it */
        r.a.lock = &w->t[op->target].ctl_key;
        r.a.lock_off = offsetof(struct win_ctl, acc_mutex);
        r.a.lock_val = (uint64_t)mpid.rank + 1;
    }
    for_pieces(op->ttype, op->tcount, remote_acc_piece, &r);
    acc_bufs_done(op, n, &b, !r.err);
    *rc = r.err ? chan_error(w, op->fn, op->target, r.err) : MPI_SUCCESS;
    return 1;
}

static int accumulate(struct MPI_ABI_Win *w, const rma_op_t *op, const tloc_t *loc, size_t n)
{
    const struct MPI_ABI_Datatype *tb = basic_of(op->ttype);
    int mode = op->kind == RMA_CAS                           ? A_CAS
               : op->op == MPI_REPLACE                        ? A_REPLACE
               : op->op == MPI_NO_OP                          ? A_NOOP
                                                              : A_KERNEL;
    if (!tb)
        return mpir_win_error(w, MPI_ERR_TYPE,
                              "%s: the target datatype mixes basic types (accumulates need one)",
                              op->fn);
    if (mode != A_NOOP && op->otype && basic_of(op->otype) != tb)
        return mpir_win_error(w, MPI_ERR_TYPE,
                              "%s: origin and target datatypes are built of different basic "
                              "types (%s and %s)",
                              op->fn, basic_of(op->otype) ? basic_of(op->otype)->name : "mixed",
                              tb->name);
    MPI_Datatype bh = ops_type(handle_of(tb));
    kernel_fn *k = NULL;
    if (mode == A_KERNEL && !(k = op_kernel(op->op, bh)))
        return mpir_win_error(w, MPI_ERR_OP, "%s: the operation is not defined for %s (or is "
                                             "not a predefined operation)",
                              op->fn, tb->name);
    int is_signed = 0, cls = op_type_class(bh, &is_signed);
    if (mode == A_CAS && cls != OPC_INT && cls != OPC_BITS)
        return mpir_win_error(w, MPI_ERR_TYPE,
                              "%s: %s is not an integer, logical or byte type", op->fn, tb->name);
    size_t es = tb->size;
    int skf_op = (cls == OPC_INT || (mode == A_CAS && cls == OPC_BITS)) && (es == 4 || es == 8)
                     ? skf_op_of(op->op, is_signed, mode)
                     : -1;
    int rc;
    if (accumulate_remote(w, op, loc, n, tb, mode, w->mem_shared_all && skf_op >= 0, &rc))
        return rc;
    if (w->mem_shared_all && skf_op >= 0) { /* mapped: CPU; elsewhere: skf_atomic */
        struct acc_bufs b;
        if (!acc_bufs_get(op, n, mode, &b))
            return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", op->fn, n);
        struct elem_walk e = {w, loc, es, b.in, op->compare, b.out, k, mode, skf_op, 0};
        for_pieces(op->ttype, op->tcount, elem_piece, &e);
        acc_bufs_done(op, n, &b, !e.err);
        return e.err ? chan_error(w, op->fn, op->target, e.err) : MPI_SUCCESS;
    }
    /* the accumulate mutex: read, combine, write */
    if (loc->ptr && mode != A_CAS && op->ttype->contiguous && (int64_t)es == tb->extent &&
        (mode == A_NOOP || op->otype->contiguous) && (!op->result || op->rtype->contiguous)) {
        /* mapped here, plain arrays: combine in place */
        win_acc_lock(w, op->target);
        if (op->result)
            memcpy(op->result, loc->ptr, n);
        if (mode == A_REPLACE)
            memcpy(loc->ptr, op->origin, n);
        else if (mode == A_KERNEL)
            k(op->origin, loc->ptr, n / es);
        win_acc_unlock(w, op->target);
        return MPI_SUCCESS;
    }
    void *tmp_in = NULL;
    const void *in = mode == A_NOOP ? NULL
                     : op->kind == RMA_CAS ? op->origin
                                           : packed_view(op->origin, op->ocount, op->otype, n,
                                                         &tmp_in);
    char *cur = malloc(n ? n : 1);
    if (!cur || (mode != A_NOOP && !in)) {
        free(cur);
        free(tmp_in);
        return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory (%zu bytes)", op->fn, n);
    }
    win_acc_lock(w, op->target);
    rc = target_move(w, loc, op->ttype, op->tcount, cur, n, 0);
    if (!rc && op->result)
        dt_copy(op->rtype, op->result, op->rcount, 0, cur, n, 1);
    if (!rc && mode != A_NOOP) {
        const void *out = cur;
        if (mode == A_REPLACE)
            out = in;
        else if (mode == A_KERNEL)
            rc = combine(tb, k, in, cur, n) ? 0 : -ENOMEM;
        else /* A_CAS: the new value if the old one matched, else nothing */
            out = memcmp(cur, op->compare, es) ? NULL : in;
        if (out && !rc)
            rc = target_move(w, loc, op->ttype, op->tcount, (void *)out, n, 1);
    }
    win_acc_unlock(w, op->target);
    free(cur);
    free(tmp_in);
    return rc ? chan_error(w, op->fn, op->target, rc) : MPI_SUCCESS;
}

int win_rma(struct MPI_ABI_Win *w, const rma_op_t *op)
{
    size_t n = packed_bytes(op->ttype, op->tcount);
    if (op->otype && op->kind != RMA_CAS && packed_bytes(op->otype, op->ocount) != n)
        return mpir_win_error(w, MPI_ERR_TYPE,
                              "%s: the origin holds %zu bytes, the target datatype %zu", op->fn,
                              packed_bytes(op->otype, op->ocount), n);
    if (op->rtype && op->kind != RMA_CAS && op->kind != RMA_GET &&
        packed_bytes(op->rtype, op->rcount) != n)
        return mpir_win_error(w, MPI_ERR_TYPE,
                              "%s: the result buffer holds %zu bytes, the target datatype %zu",
                              op->fn, packed_bytes(op->rtype, op->rcount), n);
    tloc_t loc;
    int rc = locate(w, op->fn, op->target, op->disp, op->ttype, op->tcount, &loc);
    if (rc)
        return rc;
    if (n == 0)
        return MPI_SUCCESS;
    if (op->kind == RMA_PUT || op->kind == RMA_GET)
        return put_get(w, op, &loc, n);
    return accumulate(w, op, &loc, n);
}
