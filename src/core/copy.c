/* copy — the vector copy behind skf_copy (copy.h says why it exists). */
#include "core/copy.h"

#include <string.h>

#include "core/config.h"

int skf_copy_skewed_ok;
int skf_demote_ok;
int skf_copy_stream_mode = SKF_COPY_STREAM_NEVER;

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>

/* The aligned body: 32-byte loads from anywhere, stores to p (32-aligned),
 * streaming ones when stream, up to end - p rounded down to 32 bytes.
 * Inlined into both users, so `stream` is a constant there.  Returns where
 * it stopped. */
__attribute__((target("avx2"), always_inline)) static inline uint8_t *
copy_body_avx2(uint8_t *p, const uint8_t *q, const uint8_t *end, int stream)
{
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
    return p;
}

/* n >= SKF_COPY_SKEW_MIN (copy.h says why this loop exists): the aligned
 * body, and the first and last 32 bytes stored unaligned (they may overlap
 * the body, which writes the same bytes). */
__attribute__((target("avx2"))) void skf_copy_skewed(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    __m256i first = _mm256_loadu_si256((const void *)s);
    __m256i last = _mm256_loadu_si256((const void *)(s + n - 32));
    size_t skip = 32 - ((uintptr_t)d & 31);
    copy_body_avx2(d + skip, s + skip, d + n, 0);
    _mm256_storeu_si256((void *)d, first);
    _mm256_storeu_si256((void *)(d + n - 32), last);
}

/* n >= SKF_COPY_PICK_MIN: streaming stores for the whole 64-byte lines,
 * ordinary ones for the partial lines at either end (the first shares its
 * line with the message's header), then a store fence.  No line gets both
 * kinds: an ordinary store to a line a streaming store just wrote waits for
 * the write-combining buffer to drain and then fetches the line back -- two
 * such stores per piece (the old overlapping first/last 32 bytes) cost about
 * as much as the rest of a 4 KiB message without a shared cache. */
__attribute__((target("avx2"))) static void copy_stream_avx2(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    size_t head = (64 - ((uintptr_t)d & 63)) & 63, body = (n - head) & ~(size_t)63;
    memcpy(d, s, head);
    copy_body_avx2(d + head, s + head, d + head + body, 1);
    memcpy(d + head + body, s + head + body, n - head - body);
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

int skf_cpu_is_intel(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_is("intel");
}

void skf_copy_init(void)
{
    __builtin_cpu_init();
    const char *mode = skf_param_str("SKIFF_COPY");
    int avx2 = __builtin_cpu_supports("avx2");
    /* The vector loop only where rep movsb has the skew cliff (AMD Zen).
     * On Intel cores memcpy's rep movsb is the faster copy into a ring even
     * skewed: its fast-string stores take whole lines without reading them
     * from the core that last held them (measured 11 against 5.8 bytes per
     * cycle into a 16 KiB ring piece, docs/shm-transport.md "Copies on an
     * Intel core"). */
    skf_copy_skewed_ok = avx2 && strcmp(mode, "libc") != 0 && __builtin_cpu_is("amd");
    unsigned a, b, c, d;
    skf_demote_ok = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (c & (1u << 25)); /* CPUID.7.0:ECX.CLDEMOTE */
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
int skf_cpu_is_intel(void) { return 0; }
#endif
