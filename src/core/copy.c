/* copy — the vector copy behind skf_copy (copy.h says why it exists). */
#include "core/copy.h"

#include <string.h>

#include "core/config.h"

int skf_copy_skewed_ok;

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* n >= SKF_COPY_SKEW_MIN: unaligned 32-byte loads, stores aligned on the
 * destination; the first and last 32 bytes are stored unaligned (they may
 * overlap the aligned body, which writes the same bytes). */
__attribute__((target("avx2"))) static void copy_avx2(void *dst, const void *src, size_t n)
{
    uint8_t *d = dst;
    const uint8_t *s = src;
    __m256i first = _mm256_loadu_si256((const void *)s);
    __m256i last = _mm256_loadu_si256((const void *)(s + n - 32));
    size_t skip = 32 - ((uintptr_t)d & 31);
    uint8_t *p = d + skip, *end = d + n;
    const uint8_t *q = s + skip;
    for (; end - p >= 128; p += 128, q += 128) {
        __m256i a = _mm256_loadu_si256((const void *)q);
        __m256i b = _mm256_loadu_si256((const void *)(q + 32));
        __m256i c = _mm256_loadu_si256((const void *)(q + 64));
        __m256i e = _mm256_loadu_si256((const void *)(q + 96));
        _mm256_store_si256((void *)p, a);
        _mm256_store_si256((void *)(p + 32), b);
        _mm256_store_si256((void *)(p + 64), c);
        _mm256_store_si256((void *)(p + 96), e);
    }
    for (; end - p >= 32; p += 32, q += 32)
        _mm256_store_si256((void *)p, _mm256_loadu_si256((const void *)q));
    _mm256_storeu_si256((void *)d, first);
    _mm256_storeu_si256((void *)(end - 32), last);
}

void skf_copy_skewed(void *dst, const void *src, size_t n) { copy_avx2(dst, src, n); }

void skf_copy_init(void)
{
    __builtin_cpu_init();
    skf_copy_skewed_ok =
        __builtin_cpu_supports("avx2") && strcmp(skf_param_str("SKIFF_COPY"), "libc") != 0;
}
#else
void skf_copy_skewed(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }
void skf_copy_init(void) { skf_copy_skewed_ok = 0; }
#endif
