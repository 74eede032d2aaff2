/*
 * rma.c — put, get (typed, sized, mem; _nbi; strided; p/g), put-with-signal,
 * fence and quiet.
 *
 * Each typed function is its byte form: shmemi_put/shmemi_get (shmemi.h)
 * copy straight into a mapped heap, or come here for the data segment, the
 * channel, and the errors.  Over the channel a put of up to PUT_FLIGHT_MAX
 * bytes returns before its answer (flight.c: the source is copied first), an
 * _nbi put of any size too (sent from the source, which the caller leaves
 * alone until quiet); a larger blocking one, and every get, waits for it.
 * quiet waits for what is in flight; fence needs nothing more than a memory
 * fence, as the channel executes a PE's operations in the order started.
 */
#include "shmemi.h"

/* Blocking puts up to this size are staged (flight.c's pool) and pipelined;
 * larger ones go from the caller's buffer (no copy) and wait for their
 * answer, whose round trip they amortise themselves. */
#define PUT_FLIGHT_MAX ((size_t)128 << 10) /* an eighth of flight.c's pool */
/* Strided gets over the channel: this many elements in flight at once. */
#define IGET_BATCH 64

static void channel_fail(const char *call, int rc, int pe)
{
    shmemi_fatal(call, "reaching PE %d over the channel failed: %s", pe, skf_strerror(rc));
}

static void put_channel(const char *call, void *dest, const void *src, size_t len, int pe,
                        int how)
{
    const skf_mr_key_t *key;
    size_t off;
    if (!len) {
        shmemi_check_init(call);
        return;
    }
    char *p = shmemi_resolve(call, dest, len, pe, &key, &off);
    if (p) {
        memmove(p, src, len);
        return;
    }
    if (len <= PUT_FLIGHT_MAX || (how & SHMEMI_PUT_NOCOPY)) {
        shmemi_put_flight(call, key, off, src, len, pe, how);
        return;
    }
    shmemi_chan_enter();
    int rc = skf_put(shmemi.ch, key, off, src, len);
    shmemi_chan_leave();
    if (rc)
        channel_fail(call, rc, pe);
}

void shmemi_put_slow(const char *call, void *dest, const void *src, size_t len, int pe)
{
    put_channel(call, dest, src, len, pe, 0);
}

void shmemi_put_slow_nbi(const char *call, void *dest, const void *src, size_t len, int pe)
{
    put_channel(call, dest, src, len, pe, SHMEMI_PUT_DEFER | SHMEMI_PUT_NOCOPY);
}

void shmemi_get_slow(const char *call, void *dest, const void *src, size_t len, int pe)
{
    const skf_mr_key_t *key;
    size_t off;
    if (!len) {
        shmemi_check_init(call);
        return;
    }
    char *p = shmemi_resolve(call, src, len, pe, &key, &off);
    if (p) {
        memmove(dest, p, len);
        return;
    }
    shmemi_chan_enter();
    int rc = skf_get(shmemi.ch, key, off, dest, len);
    shmemi_chan_leave();
    if (rc)
        channel_fail(call, rc, pe);
}

/* The remote extent of a strided transfer, checked once: elements 0,
 * stride, ..., (nelems-1)*stride. */
static char *strided_target(const char *call, const void *addr, ptrdiff_t stride, size_t nelems,
                            size_t size, int pe, const skf_mr_key_t **key, size_t *off)
{
    if (stride < 1)
        shmemi_fatal(call, "stride %td must be at least 1", stride);
    size_t extent = ((nelems - 1) * (size_t)stride + 1) * size;
    return shmemi_resolve(call, addr, extent, pe, key, off);
}

void shmemi_iput(const char *call, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t size, int pe)
{
    const skf_mr_key_t *key = NULL;
    size_t off;
    if (!nelems) {
        shmemi_check_init(call);
        return;
    }
    if (sst < 1)
        shmemi_fatal(call, "source stride %td must be at least 1", sst);
    char *p = strided_target(call, dest, dst, nelems, size, pe, &key, &off);
    for (size_t i = 0; i < nelems; i++) {
        const char *s = (const char *)src + i * (size_t)sst * size;
        if (p) /* else one request per element, pipelined: a round trip per ring of them */
            memcpy(p + i * (size_t)dst * size, s, size);
        else
            shmemi_put_flight(call, key, off + i * (size_t)dst * size, s, size, pe,
                              SHMEMI_PUT_DEFER);
    }
    if (!p) /* the elements' requests leave together */
        shmemi_flight_push();
}

void shmemi_iget(const char *call, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t size, int pe)
{
    const skf_mr_key_t *key = NULL;
    size_t off;
    if (!nelems) {
        shmemi_check_init(call);
        return;
    }
    if (dst < 1)
        shmemi_fatal(call, "target stride %td must be at least 1", dst);
    char *p = strided_target(call, src, sst, nelems, size, pe, &key, &off);
    if (p) {
        for (size_t i = 0; i < nelems; i++)
            memcpy((char *)dest + i * (size_t)dst * size, p + i * (size_t)sst * size, size);
        return;
    }
    /* Over the channel: IGET_BATCH element gets started back to back (they
     * leave together and finish in order), then waited for. */
    skf_get_op_t ops[IGET_BATCH];
    shmemi_chan_enter();
    for (size_t i0 = 0; i0 < nelems; i0 += IGET_BATCH) {
        size_t n = nelems - i0 < IGET_BATCH ? nelems - i0 : IGET_BATCH;
        for (size_t k = 0; k < n; k++) {
            size_t i = i0 + k;
            int rc = skf_get_start(shmemi.ch, key, off + i * (size_t)sst * size,
                                   (char *)dest + i * (size_t)dst * size, size, &ops[k]);
            if (rc < 0)
                channel_fail(call, rc, pe);
        }
        for (size_t k = 0; k < n; k++) {
            int rc;
            while ((rc = skf_get_test(shmemi.ch, &ops[k])) == 0)
                skf_wait(shmemi.ch, SKF_GET_DONE, 1);
            if (rc < 0)
                channel_fail(call, rc, pe);
        }
    }
    shmemi_chan_leave();
}

void shmemi_signal(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    if (sig_op == SHMEM_SIGNAL_SET)
        shmemi_amo_nf(call, sig_addr, SKF_AOP_SET, 8, signal, pe);
    else if (sig_op == SHMEM_SIGNAL_ADD)
        shmemi_amo_nf(call, sig_addr, SKF_AOP_ADD, 8, signal, pe);
    else
        shmemi_fatal(call, "invalid sig_op %d (expected SHMEM_SIGNAL_SET %d or SHMEM_SIGNAL_ADD %d)",
                     sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD);
}

/* put-with-signal: the data, then (atomically, after it) the signal.  The
 * data's request leaves with the signal's, just behind it, in one send (held:
 * not on its own first, even to an idle PE); nbi: from the
 * source itself (unchanged until quiet), else staged (reusable at return). */
static void put_signal(const char *call, void *dest, const void *src, size_t len,
                       uint64_t *sig_addr, uint64_t signal, int sig_op, int pe, int nbi)
{
    if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
        shmemi_signal(call, sig_addr, signal, sig_op, pe); /* reports it */
    char *p = shmemi_mapped(dest, len, pe);
    if (SHMEMI_LIKELY(p != NULL))
        memcpy(p, src, len);
    else
        put_channel(call, dest, src, len, pe,
                    SHMEMI_PUT_DEFER | SHMEMI_PUT_HOLD | (nbi ? SHMEMI_PUT_NOCOPY : 0));
    shmemi_signal(call, sig_addr, signal, sig_op, pe);
}

/* ---- the typed, sized and mem families ----------------------------------- */

#define CTX_CHECK(ctx, name) shmemi_check_ctx(ctx, "shmem_ctx_" name)

#define RMA_TYPED(T, N)                                                                        \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe)                      \
    {                                                                                          \
        shmemi_put("shmem_" #N "_put", dest, source, nelems * sizeof(T), pe);                  \
    }                                                                                          \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_put");                                                             \
        shmemi_put("shmem_ctx_" #N "_put", dest, source, nelems * sizeof(T), pe);              \
    }                                                                                          \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe)                  \
    {                                                                                          \
        shmemi_put_nbi("shmem_" #N "_put_nbi", dest, source, nelems * sizeof(T), pe);          \
    }                                                                                          \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                 int pe)                                                       \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_put_nbi");                                                         \
        shmemi_put_nbi("shmem_ctx_" #N "_put_nbi", dest, source, nelems * sizeof(T), pe);      \
    }                                                                                          \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe)                      \
    {                                                                                          \
        shmemi_get("shmem_" #N "_get", dest, source, nelems * sizeof(T), pe);                  \
    }                                                                                          \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe) \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_get");                                                             \
        shmemi_get("shmem_ctx_" #N "_get", dest, source, nelems * sizeof(T), pe);              \
    }                                                                                          \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe)                  \
    {                                                                                          \
        shmemi_get("shmem_" #N "_get_nbi", dest, source, nelems * sizeof(T), pe);              \
    }                                                                                          \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                 int pe)                                                       \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_get_nbi");                                                         \
        shmemi_get("shmem_ctx_" #N "_get_nbi", dest, source, nelems * sizeof(T), pe);          \
    }                                                                                          \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                          size_t nelems, int pe)                                               \
    {                                                                                          \
        shmemi_iput("shmem_" #N "_iput", dest, source, dst, sst, nelems, sizeof(T), pe);       \
    }                                                                                          \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,        \
                              ptrdiff_t sst, size_t nelems, int pe)                            \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_iput");                                                            \
        shmemi_iput("shmem_ctx_" #N "_iput", dest, source, dst, sst, nelems, sizeof(T), pe);   \
    }                                                                                          \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                          size_t nelems, int pe)                                               \
    {                                                                                          \
        shmemi_iget("shmem_" #N "_iget", dest, source, dst, sst, nelems, sizeof(T), pe);       \
    }                                                                                          \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,        \
                              ptrdiff_t sst, size_t nelems, int pe)                            \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_iget");                                                            \
        shmemi_iget("shmem_ctx_" #N "_iget", dest, source, dst, sst, nelems, sizeof(T), pe);   \
    }                                                                                          \
    void shmem_##N##_p(T *dest, T value, int pe)                                               \
    {                                                                                          \
        shmemi_put("shmem_" #N "_p", dest, &value, sizeof(T), pe);                             \
    }                                                                                          \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe)                          \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_p");                                                               \
        shmemi_put("shmem_ctx_" #N "_p", dest, &value, sizeof(T), pe);                         \
    }                                                                                          \
    T shmem_##N##_g(const T *source, int pe)                                                   \
    {                                                                                          \
        T v;                                                                                   \
        shmemi_get("shmem_" #N "_g", &v, source, sizeof(T), pe);                               \
        return v;                                                                              \
    }                                                                                          \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe)                              \
    {                                                                                          \
        T v;                                                                                   \
        CTX_CHECK(ctx, #N "_g");                                                               \
        shmemi_get("shmem_ctx_" #N "_g", &v, source, sizeof(T), pe);                           \
        return v;                                                                              \
    }                                                                                          \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                uint64_t signal, int sig_op, int pe)                           \
    {                                                                                          \
        put_signal("shmem_" #N "_put_signal", dest, source, nelems * sizeof(T), sig_addr,      \
                   signal, sig_op, pe, 0);                                                     \
    }                                                                                          \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)   \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_put_signal");                                                      \
        put_signal("shmem_ctx_" #N "_put_signal", dest, source, nelems * sizeof(T), sig_addr,  \
                   signal, sig_op, pe, 0);                                                     \
    }                                                                                          \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,                   \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)   \
    {                                                                                          \
        put_signal("shmem_" #N "_put_signal_nbi", dest, source, nelems * sizeof(T), sig_addr,  \
                   signal, sig_op, pe, 1);                                                     \
    }                                                                                          \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,             \
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                        int sig_op, int pe)                                    \
    {                                                                                          \
        CTX_CHECK(ctx, #N "_put_signal_nbi");                                                  \
        put_signal("shmem_ctx_" #N "_put_signal_nbi", dest, source, nelems * sizeof(T),        \
                   sig_addr, signal, sig_op, pe, 1);                                           \
    }
SHMEMI_RMA_TYPES(RMA_TYPED)

/* Sized forms: BITS-bit elements; the mem forms are bytes (BYTES 1). */
#define RMA_BYTES(NAME, BYTES)                                                                 \
    void shmem_##NAME(void *dest, const void *source, size_t nelems, int pe)                   \
    {                                                                                          \
        shmemi_put("shmem_" #NAME, dest, source, nelems * BYTES, pe);                          \
    }                                                                                          \
    void shmem_ctx_##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,      \
                          int pe)                                                              \
    {                                                                                          \
        CTX_CHECK(ctx, #NAME);                                                                 \
        shmemi_put("shmem_ctx_" #NAME, dest, source, nelems * BYTES, pe);                      \
    }                                                                                          \
    void shmem_##NAME##_nbi(void *dest, const void *source, size_t nelems, int pe)             \
    {                                                                                          \
        shmemi_put_nbi("shmem_" #NAME "_nbi", dest, source, nelems * BYTES, pe);               \
    }                                                                                          \
    void shmem_ctx_##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source,               \
                                size_t nelems, int pe)                                         \
    {                                                                                          \
        CTX_CHECK(ctx, #NAME "_nbi");                                                          \
        shmemi_put_nbi("shmem_ctx_" #NAME "_nbi", dest, source, nelems * BYTES, pe);           \
    }                                                                                          \
    void shmem_##NAME##_signal(void *dest, const void *source, size_t nelems,                  \
                               uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)        \
    {                                                                                          \
        put_signal("shmem_" #NAME "_signal", dest, source, nelems * BYTES, sig_addr, signal,   \
                   sig_op, pe, 0);                                                             \
    }                                                                                          \
    void shmem_ctx_##NAME##_signal(shmem_ctx_t ctx, void *dest, const void *source,            \
                                   size_t nelems, uint64_t *sig_addr, uint64_t signal,         \
                                   int sig_op, int pe)                                         \
    {                                                                                          \
        CTX_CHECK(ctx, #NAME "_signal");                                                       \
        put_signal("shmem_ctx_" #NAME "_signal", dest, source, nelems * BYTES, sig_addr,       \
                   signal, sig_op, pe, 0);                                                     \
    }                                                                                          \
    void shmem_##NAME##_signal_nbi(void *dest, const void *source, size_t nelems,              \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)    \
    {                                                                                          \
        put_signal("shmem_" #NAME "_signal_nbi", dest, source, nelems * BYTES, sig_addr,       \
                   signal, sig_op, pe, 1);                                                     \
    }                                                                                          \
    void shmem_ctx_##NAME##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,        \
                                       size_t nelems, uint64_t *sig_addr, uint64_t signal,     \
                                       int sig_op, int pe)                                     \
    {                                                                                          \
        CTX_CHECK(ctx, #NAME "_signal_nbi");                                                   \
        put_signal("shmem_ctx_" #NAME "_signal_nbi", dest, source, nelems * BYTES, sig_addr,   \
                   signal, sig_op, pe, 1);                                                     \
    }
#define GET_BYTES(NAME, BYTES)                                                                 \
    void shmem_##NAME(void *dest, const void *source, size_t nelems, int pe)                   \
    {                                                                                          \
        shmemi_get("shmem_" #NAME, dest, source, nelems * BYTES, pe);                          \
    }                                                                                          \
    void shmem_ctx_##NAME(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,      \
                          int pe)                                                              \
    {                                                                                          \
        CTX_CHECK(ctx, #NAME);                                                                 \
        shmemi_get("shmem_ctx_" #NAME, dest, source, nelems * BYTES, pe);                      \
    }                                                                                          \
    void shmem_##NAME##_nbi(void *dest, const void *source, size_t nelems, int pe)             \
    {                                                                                          \
        shmemi_get("shmem_" #NAME "_nbi", dest, source, nelems * BYTES, pe);                   \
    }                                                                                          \
    void shmem_ctx_##NAME##_nbi(shmem_ctx_t ctx, void *dest, const void *source,               \
                                size_t nelems, int pe)                                         \
    {                                                                                          \
        CTX_CHECK(ctx, #NAME "_nbi");                                                          \
        shmemi_get("shmem_ctx_" #NAME "_nbi", dest, source, nelems * BYTES, pe);               \
    }
#define STRIDED_BYTES(BITS, BYTES)                                                             \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                          size_t nelems, int pe)                                               \
    {                                                                                          \
        shmemi_iput("shmem_iput" #BITS, dest, source, dst, sst, nelems, BYTES, pe);            \
    }                                                                                          \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems, int pe)                            \
    {                                                                                          \
        CTX_CHECK(ctx, "iput" #BITS);                                                          \
        shmemi_iput("shmem_ctx_iput" #BITS, dest, source, dst, sst, nelems, BYTES, pe);        \
    }                                                                                          \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                          size_t nelems, int pe)                                               \
    {                                                                                          \
        shmemi_iget("shmem_iget" #BITS, dest, source, dst, sst, nelems, BYTES, pe);            \
    }                                                                                          \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems, int pe)                            \
    {                                                                                          \
        CTX_CHECK(ctx, "iget" #BITS);                                                          \
        shmemi_iget("shmem_ctx_iget" #BITS, dest, source, dst, sst, nelems, BYTES, pe);        \
    }
#define SIZED(BITS, BYTES) RMA_BYTES(put##BITS, BYTES) GET_BYTES(get##BITS, BYTES) STRIDED_BYTES(BITS, BYTES)
SHMEMI_SIZED_RMA(SIZED)
RMA_BYTES(putmem, 1)
GET_BYTES(getmem, 1)

/* ---- ordering ------------------------------------------------------------- */

/* A full fence: my earlier stores are visible before my later loads (x86
 * reorders only those).  A locked add to the stack is that fence at about
 * half an mfence's cost (Linux's smp_mb on x86-64 does the same). */
static inline void full_fence(void)
{
#if defined(__x86_64__)
    __asm__ __volatile__("lock; orq $0, (%%rsp)" ::: "memory", "cc");
#else
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

void shmem_fence(void) { __atomic_thread_fence(__ATOMIC_RELEASE); }
void shmem_quiet(void)
{
    shmemi_quiet();
    full_fence();
}
/* On SHMEM_CTX_INVALID fence and quiet do nothing (OpenSHMEM 1.5). */
void shmem_ctx_fence(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_check_ctx(ctx, "shmem_ctx_fence");
    __atomic_thread_fence(__ATOMIC_RELEASE);
}
void shmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (ctx == SHMEM_CTX_INVALID)
        return;
    shmemi_check_ctx(ctx, "shmem_ctx_quiet");
    shmemi_quiet(); /* one flight for all contexts: quiet waits for it all */
    full_fence();
}
