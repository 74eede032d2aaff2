/*
 * amo.c — atomic memory operations for every standard AMO type, their ctx and
 * _nbi forms, and the deprecated 1.3 names.
 *
 * One mechanism per word whatever the origin, so AMOs from all PEs are atomic
 * with respect to each other: the word's owner executes every channel AMO
 * (skf_atomic: the tcp RMA service thread runs the same __atomic builtins),
 * node mates run those builtins on their mapping (shmemi_amo_local).  Values
 * travel as their bits in a 64-bit word (little-endian: the low bytes).
 */
#include "shmemi.h"

/* Where PE pe's word dest is (shmemi_resolve), checked for alignment. */
static char *resolve_word(const char *call, void *dest, int size, int pe,
                          const skf_mr_key_t **key, size_t *off)
{
    char *p = shmemi_resolve(call, dest, (size_t)size, pe, key, off);
    if ((uintptr_t)dest & (uintptr_t)(size - 1))
        shmemi_fatal(call, "address %p is not aligned to its %d-byte type", dest, size);
    return p;
}

uint64_t shmemi_amo_slow(const char *call, void *dest, int op, int size, uint64_t v,
                         uint64_t cmp, int pe)
{
    const skf_mr_key_t *key;
    size_t off;
    char *p = resolve_word(call, dest, size, pe, &key, &off);
    if (p)
        return shmemi_amo_local(p, op, size, v, cmp);
    uint64_t old = 0;
    shmemi_chan_enter();
    int rc = skf_atomic(shmemi.ch, key, off, op, size, v, cmp, &old);
    shmemi_chan_leave();
    if (rc)
        shmemi_fatal(call, "atomic on PE %d over the channel failed: %s", pe, skf_strerror(rc));
    return old;
}

void shmemi_amo_nf_slow(const char *call, void *dest, int op, int size, uint64_t v, int pe)
{
    const skf_mr_key_t *key;
    size_t off;
    char *p = resolve_word(call, dest, size, pe, &key, &off);
    if (p)
        (void)shmemi_amo_local(p, op, size, v, 0);
    else
        shmemi_amo_flight(call, key, off, op, size, v, pe);
}

static inline uint64_t bits64(const void *v, size_t size)
{
    uint64_t b = 0;
    memcpy(&b, v, size);
    return b;
}

#define AMO(call, dest, op, T, v, c, pe)                                                       \
    ({                                                                                         \
        T v_ = (v), c_ = (c), r_;                                                              \
        uint64_t o_ = shmemi_amo(call, (void *)(dest), op, (int)sizeof(T), bits64(&v_, sizeof(T)), \
                                 bits64(&c_, sizeof(T)), pe);                                  \
        memcpy(&r_, &o_, sizeof(T));                                                           \
        r_;                                                                                    \
    })
/* A non-fetching AMO: no answer waited for over the channel (flight.c). */
#define AMO_NF(call, dest, op, T, v, pe)                                                       \
    do {                                                                                       \
        T v_ = (v);                                                                            \
        shmemi_amo_nf(call, (void *)(dest), op, (int)sizeof(T), bits64(&v_, sizeof(T)), pe);   \
    } while (0)
#define CTX_CHECK(ctx, name) shmemi_check_ctx(ctx, "shmem_ctx_" name)

/* One fetching AMO in its four forms: plain, ctx, _nbi, ctx _nbi. ARGS is the
 * parameter list after dest, VAL and CMP the operand and comparand. */
#define AMO_FETCHING(T, N, FN, OP, ARGS, VAL, CMP)                                             \
    T shmem_##N##_atomic_##FN(T *dest ARGS, int pe)                                            \
    {                                                                                          \
        return AMO("shmem_" #N "_atomic_" #FN, dest, OP, T, VAL, CMP, pe);                     \
    }                                                                                          \
    T shmem_ctx_##N##_atomic_##FN(shmem_ctx_t ctx, T *dest ARGS, int pe)                       \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_atomic_" #FN);                                                     \
        return AMO("shmem_ctx_" #N "_atomic_" #FN, dest, OP, T, VAL, CMP, pe);                 \
    }                                                                                          \
    void shmem_##N##_atomic_##FN##_nbi(T *fetch, T *dest ARGS, int pe)                         \
    {                                                                                          \
        *fetch = AMO("shmem_" #N "_atomic_" #FN "_nbi", dest, OP, T, VAL, CMP, pe);            \
    }                                                                                          \
    void shmem_ctx_##N##_atomic_##FN##_nbi(shmem_ctx_t ctx, T *fetch, T *dest ARGS, int pe)    \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_atomic_" #FN "_nbi");                                              \
        *fetch = AMO("shmem_ctx_" #N "_atomic_" #FN "_nbi", dest, OP, T, VAL, CMP, pe);        \
    }
#define AMO_NONFETCHING(T, N, FN, OP, ARGS, VAL)                                               \
    void shmem_##N##_atomic_##FN(T *dest ARGS, int pe)                                         \
    {                                                                                          \
        AMO_NF("shmem_" #N "_atomic_" #FN, dest, OP, T, VAL, pe);                              \
    }                                                                                          \
    void shmem_ctx_##N##_atomic_##FN(shmem_ctx_t ctx, T *dest ARGS, int pe)                    \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_atomic_" #FN);                                                     \
        AMO_NF("shmem_ctx_" #N "_atomic_" #FN, dest, OP, T, VAL, pe);                          \
    }
#define COMMA ,

/* fetch takes a const source: its own four forms. */
#define AMO_EXT(T, N)                                                                          \
    T shmem_##N##_atomic_fetch(const T *source, int pe)                                        \
    {                                                                                          \
        return AMO("shmem_" #N "_atomic_fetch", source, SKF_AOP_FETCH, T, 0, 0, pe);           \
    }                                                                                          \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe)                   \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_atomic_fetch");                                                    \
        return AMO("shmem_ctx_" #N "_atomic_fetch", source, SKF_AOP_FETCH, T, 0, 0, pe);       \
    }                                                                                          \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe)                       \
    {                                                                                          \
        *fetch = AMO("shmem_" #N "_atomic_fetch_nbi", source, SKF_AOP_FETCH, T, 0, 0, pe);     \
    }                                                                                          \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe)  \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_atomic_fetch_nbi");                                                \
        *fetch = AMO("shmem_ctx_" #N "_atomic_fetch_nbi", source, SKF_AOP_FETCH, T, 0, 0, pe); \
    }                                                                                          \
    AMO_NONFETCHING(T, N, set, SKF_AOP_SET, COMMA T value, value)                              \
    AMO_FETCHING(T, N, swap, SKF_AOP_SWAP, COMMA T value, value, 0)
#define AMO_STD(T, N)                                                                          \
    AMO_FETCHING(T, N, compare_swap, SKF_AOP_CSWAP, COMMA T cond COMMA T value, value, cond)   \
    AMO_FETCHING(T, N, fetch_inc, SKF_AOP_ADD, , 1, 0)                                         \
    AMO_NONFETCHING(T, N, inc, SKF_AOP_ADD, , 1)                                               \
    AMO_FETCHING(T, N, fetch_add, SKF_AOP_ADD, COMMA T value, value, 0)                        \
    AMO_NONFETCHING(T, N, add, SKF_AOP_ADD, COMMA T value, value)
#define AMO_BIT(T, N)                                                                          \
    AMO_FETCHING(T, N, fetch_and, SKF_AOP_AND, COMMA T value, value, 0)                        \
    AMO_NONFETCHING(T, N, and, SKF_AOP_AND, COMMA T value, value)                              \
    AMO_FETCHING(T, N, fetch_or, SKF_AOP_OR, COMMA T value, value, 0)                          \
    AMO_NONFETCHING(T, N, or, SKF_AOP_OR, COMMA T value, value)                                \
    AMO_FETCHING(T, N, fetch_xor, SKF_AOP_XOR, COMMA T value, value, 0)                        \
    AMO_NONFETCHING(T, N, xor, SKF_AOP_XOR, COMMA T value, value)
SHMEMI_AMO_EXT_TYPES(AMO_EXT)
SHMEMI_AMO_STD_TYPES(AMO_STD)
SHMEMI_AMO_BIT_TYPES(AMO_BIT)

/* ---- deprecated names (OpenSHMEM 1.3) ---- */
#define AMO_DEPR(T, N)                                                                         \
    T shmem_##N##_swap(T *dest, T value, int pe)                                               \
    {                                                                                          \
        return AMO("shmem_" #N "_swap", dest, SKF_AOP_SWAP, T, value, 0, pe);                  \
    }                                                                                          \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe)                                      \
    {                                                                                          \
        return AMO("shmem_" #N "_cswap", dest, SKF_AOP_CSWAP, T, value, cond, pe);             \
    }                                                                                          \
    T shmem_##N##_fadd(T *dest, T value, int pe)                                               \
    {                                                                                          \
        return AMO("shmem_" #N "_fadd", dest, SKF_AOP_ADD, T, value, 0, pe);                   \
    }                                                                                          \
    T shmem_##N##_finc(T *dest, int pe)                                                        \
    {                                                                                          \
        return AMO("shmem_" #N "_finc", dest, SKF_AOP_ADD, T, 1, 0, pe);                       \
    }                                                                                          \
    void shmem_##N##_add(T *dest, T value, int pe)                                             \
    {                                                                                          \
        AMO_NF("shmem_" #N "_add", dest, SKF_AOP_ADD, T, value, pe);                     \
    }                                                                                          \
    void shmem_##N##_inc(T *dest, int pe)                                                      \
    {                                                                                          \
        AMO_NF("shmem_" #N "_inc", dest, SKF_AOP_ADD, T, 1, pe);                         \
    }                                                                                          \
    T shmem_##N##_fetch(const T *source, int pe)                                               \
    {                                                                                          \
        return AMO("shmem_" #N "_fetch", source, SKF_AOP_FETCH, T, 0, 0, pe);                  \
    }                                                                                          \
    void shmem_##N##_set(T *dest, T value, int pe)                                             \
    {                                                                                          \
        AMO_NF("shmem_" #N "_set", dest, SKF_AOP_SET, T, value, pe);                     \
    }
SHMEMI_DEPR_AMO_TYPES(AMO_DEPR)
float shmem_float_swap(float *dest, float value, int pe)
{
    return AMO("shmem_float_swap", dest, SKF_AOP_SWAP, float, value, 0, pe);
}
double shmem_double_swap(double *dest, double value, int pe)
{
    return AMO("shmem_double_swap", dest, SKF_AOP_SWAP, double, value, 0, pe);
}
float shmem_float_fetch(const float *source, int pe)
{
    return AMO("shmem_float_fetch", source, SKF_AOP_FETCH, float, 0, 0, pe);
}
double shmem_double_fetch(const double *source, int pe)
{
    return AMO("shmem_double_fetch", source, SKF_AOP_FETCH, double, 0, 0, pe);
}
void shmem_float_set(float *dest, float value, int pe)
{
    AMO_NF("shmem_float_set", dest, SKF_AOP_SET, float, value, pe);
}
void shmem_double_set(double *dest, double value, int pe)
{
    AMO_NF("shmem_double_set", dest, SKF_AOP_SET, double, value, pe);
}
long shmem_swap(long *dest, long value, int pe)
{
    return AMO("shmem_swap", dest, SKF_AOP_SWAP, long, value, 0, pe);
}
