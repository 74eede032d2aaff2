/* copy — the vector copy behind skf_copy (copy.h says why it exists). */
#include "core/copy.h"

#include <string.h>

#include "core/config.h"

int skf_copy_skewed_ok;
int skf_copy_stream_mode = SKF_COPY_STREAM_NEVER;

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* n >= 32: unaligned 32-byte loads, stores aligned on the destination
 * (streaming ones when stream); the first and last 32 bytes are stored
 * unaligned (they may overlap the aligned body, which writes the same
 * bytes).  Inlined into both users, so `stream` is a constant there. */
__attribute__((target("avx2"), always_inline)) static inline void
copy_loop_avx2(void *dst, const void *src, size_t n, int stream)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    __m256i first = _mm256_loadu_si256((const void *)s);
    __m256i last = _mm256_loadu_si256((const void *)(s + n - 32));
    size_t skip = 32 - ((uintptr_t)d & 31);
    uint8_t *p = d + skip, *end = d + n;
    const uint8_t *q = s + skip;
#define STORE(at, v) (stream ? _mm256_stream_si256((void *)(at), (v)) : _mm256_store_si256((void *)(at), (v)))
    for (; end - p >= 128; p += 128, q += 128) { /* four loads, then four stores */
        __m256i a = _mm256_loadu_si256((const void *)q);
        __m256i b = _mm256_loadu_si256((const void *)(q + 32));
        __m256i c = _mm256_loadu_si256((const void *)(q + 64));
        __m256i e = _mm256_loadu_si256((const void *)(q + 96));
        STORE(p, a);
        STORE(p + 32, b);
        STORE(p + 64, c);
        STORE(p + 96, e);
    }
    for (; end - p >= 32; p += 32, q += 32)
        STORE(p, _mm256_loadu_si256((const void *)q));
#undef STORE
    _mm256_storeu_si256((void *)d, first);
    _mm256_storeu_si256((void *)(end - 32), last);
}

/* n >= SKF_COPY_SKEW_MIN (copy.h says why this loop exists). */
__attribute__((target("avx2"))) void skf_copy_skewed(void *dst, const void *src, size_t n)
{
    copy_loop_avx2(dst, src, n, 0);
}

/* n >= SKF_COPY_PICK_MIN: streaming stores, then a store fence. */
__attribute__((target("avx2"))) static void copy_stream_avx2(void *dst, const void *src, size_t n)
{
    copy_loop_avx2(dst, src, n, 1);
    _mm_sfence();
}

void skf_copy_picked(struct skf_copy_pick *p, void *dst, const void *src, size_t n)
{
    if (skf_copy_stream_mode == SKF_COPY_STREAM_ALWAYS) {
        copy_stream_avx2(dst, src, n);
        return;
    }
    /* the kind in use, but the other one on every PROBE-th piece and while
     * one of the two has no measure yet */
    int kind = p->stream;
    if (!p->ticks_per_kib[!kind] || ++p->count % SKF_COPY_PICK_PROBE == 0)
        kind = !kind;
    uint64_t t0 = __rdtsc();
    if (kind)
        copy_stream_avx2(dst, src, n);
    else
        skf_copy(dst, src, n);
    uint64_t per_kib = ((__rdtsc() - t0) << 10) / n + 1;
    /* a floor that follows a faster sample at once and a slower one by at
     * most 1/8 a sample: one copy slowed by an interrupt or a busy memory
     * moment does not flip the choice, a lasting change does within a few */
    uint64_t *est = &p->ticks_per_kib[kind], rise = *est + (*est >> 3);
    *est = !*est || per_kib < *est ? per_kib : per_kib < rise ? per_kib : rise;
    /* streaming only when clearly faster: with a shared cache the two run
     * about equal at the sender, but the receiver then reads memory */
    if (p->ticks_per_kib[0] && p->ticks_per_kib[1])
        p->stream = p->ticks_per_kib[0] > 2 * p->ticks_per_kib[1];
}

void skf_copy_init(void)
{
    __builtin_cpu_init();
    const char *mode = skf_param_str("SKIFF_COPY");
    int avx2 = __builtin_cpu_supports("avx2");
    skf_copy_skewed_ok = avx2 && strcmp(mode, "libc") != 0;
    skf_copy_stream_mode = !avx2 || !strcmp(mode, "libc") || !strcmp(mode, "cached")
                               ? SKF_COPY_STREAM_NEVER
                           : !strcmp(mode, "stream") ? SKF_COPY_STREAM_ALWAYS
                                                     : SKF_COPY_STREAM_AUTO;
}
#else
void skf_copy_skewed(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
void skf_copy_picked(struct skf_copy_pick *p, void *dst, const void *src, size_t n)
{
    (void)p;
    memcpy(dst, src, n);
}
void skf_copy_init(void) { skf_copy_skewed_ok = 0; }
#endif
