/*
 * acc — skf_accumulate: an element-wise accumulate (op, element type,
 * count, operand) that the owner of the memory executes, in one request
 * over tcp (docs/skiff-api.md, docs/rma.md "Accumulates between nodes").
 *
 * Two ways to be atomic per element, chosen by the caller, so it can keep
 * them consistent with what other ranks do to the same memory:
 *   - no lock word: each element is one atomic read-modify-write (the
 *     __atomic builtins, as skf_atomic): 4/8-byte integers and the ops a
 *     CPU has an atomic for (sum, band, bor, bxor, min, max, replace,
 *     no-op, compare-and-swap);
 *   - a lock word (an 8-byte word in an exposure of the owner, e.g. MPI's
 *     accumulate mutex): compare-and-swap 0 -> lock_val, the plain kernel
 *     over all elements, store 0.  A lock held by someone else is waited
 *     for only briefly; then -EAGAIN and the caller asks again (the owner's
 *     one service thread may be the only one who can serve the holder).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "core/core.h"

static const uint8_t acc_size[SKF_T_NTYPES] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};

size_t skf_acc_type_size(int type)
{
    return type >= 0 && type < SKF_T_NTYPES ? acc_size[type] : 0;
}

static int is_float(int type) { return type == SKF_T_F32 || type == SKF_T_F64; }
static int is_signed(int type) { return type == SKF_T_I8 || type == SKF_T_I16 || type == SKF_T_I32 || type == SKF_T_I64; }

/* The skf_atomic op doing one element of op atomically, or -1. */
static int word_op(int op, int type)
{
    if (is_float(type) || acc_size[type] < 4)
        return -1;
    switch (op) {
    case SKF_ACC_SUM:
        return SKF_AOP_ADD;
    case SKF_ACC_BAND:
        return SKF_AOP_AND;
    case SKF_ACC_BOR:
        return SKF_AOP_OR;
    case SKF_ACC_BXOR:
        return SKF_AOP_XOR;
    case SKF_ACC_MIN:
        return is_signed(type) ? SKF_AOP_MIN : SKF_AOP_UMIN;
    case SKF_ACC_MAX:
        return is_signed(type) ? SKF_AOP_MAX : SKF_AOP_UMAX;
    case SKF_ACC_REPLACE:
        return SKF_AOP_SET;
    case SKF_ACC_NOOP:
        return SKF_AOP_FETCH;
    case SKF_ACC_CSWAP:
        return SKF_AOP_CSWAP;
    }
    return -1;
}

int skf_acc_valid(int op, int type, size_t count, int locked)
{
    if (type < 0 || type >= SKF_T_NTYPES || op < 0 || op >= SKF_ACC_NOPS || count == 0 ||
        count * acc_size[type] > SKF_ACC_MAX_BYTES)
        return 0;
    if (op == SKF_ACC_CSWAP && (count != 1 || is_float(type)))
        return 0;
    if (is_float(type) && op >= SKF_ACC_BAND && op <= SKF_ACC_LXOR)
        return 0;
    return locked || word_op(op, type) >= 0;
}

/* ---- plain kernels (under the lock): io[i] = in[i] op io[i] ---- */

#define KERN(T, s, name, expr)                                                     \
    static void name##_##s(const void *in_, void *io_, size_t n)                   \
    {                                                                              \
        const T *a = in_;                                                          \
        T *b = io_;                                                                \
        for (size_t i = 0; i < n; i++)                                             \
            b[i] = (T)(expr);                                                      \
    }
/* integer sums and products wrap (computed unsigned: no signed overflow) */
#define INTK(T, U, s)                                                              \
    KERN(T, s, sum, (U)a[i] + (U)b[i])                                             \
    KERN(T, s, prod, (U)a[i] * (U)b[i])                                            \
    KERN(T, s, min, a[i] < b[i] ? a[i] : b[i])                                     \
    KERN(T, s, max, a[i] > b[i] ? a[i] : b[i])                                     \
    KERN(T, s, band, a[i] & b[i])                                                  \
    KERN(T, s, bor, a[i] | b[i])                                                   \
    KERN(T, s, bxor, a[i] ^ b[i])                                                  \
    KERN(T, s, land, a[i] && b[i])                                                 \
    KERN(T, s, lor, a[i] || b[i])                                                  \
    KERN(T, s, lxor, !a[i] != !b[i])
#define FLTK(T, s)                                                                 \
    KERN(T, s, sum, a[i] + b[i])                                                   \
    KERN(T, s, prod, a[i] * b[i])                                                  \
    KERN(T, s, min, a[i] < b[i] ? a[i] : b[i])                                     \
    KERN(T, s, max, a[i] > b[i] ? a[i] : b[i])

INTK(int8_t, uint8_t, i8)
INTK(uint8_t, uint8_t, u8)
INTK(int16_t, uint16_t, i16)
INTK(uint16_t, uint16_t, u16)
INTK(int32_t, uint32_t, i32)
INTK(uint32_t, uint32_t, u32)
INTK(int64_t, uint64_t, i64)
INTK(uint64_t, uint64_t, u64)
FLTK(float, f32)
FLTK(double, f64)

typedef void kern_fn(const void *, void *, size_t);
#define ROW(s)                                                                           \
    {sum_##s, prod_##s, min_##s, max_##s, band_##s, bor_##s, bxor_##s, land_##s, lor_##s, \
     lxor_##s}
#define FROW(s) {sum_##s, prod_##s, min_##s, max_##s}
/* [type][op] for SKF_ACC_SUM .. SKF_ACC_LXOR */
static kern_fn *const kernels[SKF_T_NTYPES][SKF_ACC_LXOR + 1] = {
    ROW(i8), ROW(u8), ROW(i16), ROW(u16), ROW(i32), ROW(u32), ROW(i64), ROW(u64), FROW(f32),
    FROW(f64)};

/* The lock: compare-and-swap 0 -> val, a few hundred tries (a holder on the
 * owner's node keeps it for a kernel's length), then give up. */
static int lock_try(uint64_t *w, uint64_t val)
{
    for (int i = 0; i < 256; i++) {
        uint64_t zero = 0;
        if (__atomic_compare_exchange_n(w, &zero, val, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            return 1;
        if (i >= 64)
            sched_yield();
        else
            __builtin_ia32_pause();
    }
    return 0;
}

int skf_acc_exec(skf_ctx_t *ctx, uint64_t cookie, uint64_t addr, int op, int type, size_t count,
                 const void *operand, const void *compare, void *old, uint64_t lock_cookie,
                 uint64_t lock_addr, uint64_t lock_val)
{
    int locked = lock_addr != 0;
    size_t es = skf_acc_type_size(type);
    if (!skf_acc_valid(op, type, count, locked) || addr % es || (locked && (lock_addr % 8 || !lock_val)))
        return -EINVAL;
    int rc = 0;
    pthread_mutex_lock(&ctx->mr_lock); /* the exposures stay while their words change */
    if (!skf_mr_range_ok_locked(ctx, cookie, addr, count * es) ||
        (locked && !skf_mr_range_ok_locked(ctx, lock_cookie, lock_addr, 8))) {
        rc = -EINVAL;
        goto out;
    }
    char *p = (char *)(uintptr_t)addr;
    if (!locked) { /* one atomic instruction per element */
        int aop = word_op(op, type);
        for (size_t i = 0; i < count; i++) {
            uint64_t v = 0, c = 0;
            if (operand)
                memcpy(&v, (const char *)operand + i * es, es);
            if (compare)
                memcpy(&c, compare, es);
            uint64_t o = skf_aop_word(p + i * es, aop, (int)es, v, c);
            if (old)
                memcpy((char *)old + i * es, &o, es); /* little-endian: the low bytes */
        }
        goto out;
    }
    uint64_t *lw = (uint64_t *)(uintptr_t)lock_addr;
    if (!lock_try(lw, lock_val)) {
        rc = -EAGAIN;
        goto out;
    }
    if (old)
        memcpy(old, p, count * es);
    if (op == SKF_ACC_REPLACE)
        memcpy(p, operand, count * es);
    else if (op == SKF_ACC_CSWAP) {
        if (!memcmp(p, compare, es))
            memcpy(p, operand, es);
    } else if (op != SKF_ACC_NOOP)
        kernels[type][op](operand, p, count);
    __atomic_store_n(lw, 0, __ATOMIC_RELEASE);
out:
    pthread_mutex_unlock(&ctx->mr_lock);
    return rc;
}

int skf_accumulate(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, const skf_acc_t *a)
{
    if (!ch || !key || !a) {
        skf_error("skf_accumulate: invalid arguments (channel %p, key %p, acc %p)", (void *)ch,
                  (const void *)key, (const void *)a);
        return -EINVAL;
    }
    skf_ctx_t *ctx = ch->ctx;
    size_t es = skf_acc_type_size(a->type);
    int locked = a->lock != NULL;
    const char *bad =
        !es || a->op < 0 || a->op >= SKF_ACC_NOPS || !a->count ? "unknown op or type, or no elements"
        : !skf_acc_valid(a->op, a->type, 1, locked)
            ? "op not defined for the type (without a lock word: no atomic instruction for it)"
        : a->op != SKF_ACC_NOOP && !a->operand                    ? "no operand"
        : a->op == SKF_ACC_CSWAP && (a->count != 1 || !a->compare) ? "compare-and-swap needs one element and a compare value"
        : key->owner < 0 || key->owner >= ctx->size                ? "no such rank"
        : off > key->len || a->count > (key->len - off) / es       ? "outside the region"
        : (key->base + off) % es                                   ? "not naturally aligned"
        : locked && (a->lock->owner != key->owner || a->lock_off > a->lock->len ||
                     a->lock->len - a->lock_off < 8 || (a->lock->base + a->lock_off) % 8 ||
                     !a->lock_val)
            ? "bad lock word (8 aligned bytes of the same owner, a non-zero value)"
            : NULL;
    if (bad) {
        skf_error("skf_accumulate: rank %d: op %d type %d x %zu at offset %zu of the %llu-byte "
                  "region of rank %d: %s", ctx->rank, a->op, a->type, a->count, off,
                  (unsigned long long)key->len, key->owner, bad);
        return -EINVAL;
    }
    const struct skf_peer *via = &ch->peer[key->owner];
    int remote = key->owner != ctx->rank;
    if (remote && !(via->ops && via->ops->acc)) {
        skf_error("skf_accumulate: rank %d: rank %d is reached by no transport that executes "
                  "accumulates (same node over shm: use memory both map)", ctx->rank, key->owner);
        return -EOPNOTSUPP;
    }
    uint64_t lock_cookie = locked ? a->lock->cookie : 0;
    uint64_t lock_addr = locked ? a->lock->base + a->lock_off : 0;
    size_t chunk = SKF_ACC_MAX_BYTES / es; /* atomic per element, so requests may split anywhere */
    for (size_t done = 0; done < a->count;) {
        size_t n = a->count - done < chunk ? a->count - done : chunk;
        uint64_t addr = key->base + off + done * es;
        const void *in = a->operand ? (const char *)a->operand + done * es : NULL;
        void *old = a->old ? (char *)a->old + done * es : NULL;
        int rc;
        for (unsigned tries = 0;; tries++) { /* -EAGAIN: the lock is held; ask again */
            rc = remote ? via->ops->acc(via->tp, via->id, key, addr, a->op, a->type, n, in,
                                        a->compare, old, lock_cookie, lock_addr, a->lock_val)
                        : skf_acc_exec(ctx, key->cookie, addr, a->op, a->type, n, in, a->compare,
                                       old, lock_cookie, lock_addr, a->lock_val);
            if (rc != -EAGAIN)
                break;
            if (ctx->fb_serve)
                skf_fallback_progress(ctx);
            if (tries < 16) {
                sched_yield();
            } else {
                struct timespec ts = {0, tries < 256 ? 5000 : 50000};
                nanosleep(&ts, NULL);
            }
        }
        if (rc)
            return rc;
        done += n;
    }
    return 0;
}
