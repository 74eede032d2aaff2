/* copy.h — copies of message payloads into and out of shared memory.
 *
 * glibc's memcpy moves large blocks with `rep movsb`.  On some cores that
 * instruction collapses when source and destination sit at different
 * offsets within a cache line: on an AMD EPYC (Zen 4, KVM) a 16 KiB copy ran
 * at 3-4 GB/s instead of ~100 GB/s when the destination was 8 bytes past the
 * source's line offset (docs/shm-transport.md, "Copies").  A ring message's
 * payload starts 8 + header bytes into a line, so which offsets meet is up to
 * the user's buffers.  skf_copy keeps memcpy where the two line offsets agree
 * and otherwise copies with a vector loop whose speed does not depend on
 * them.  SKIFF_COPY=libc: memcpy always. */
#ifndef SKIFF_COPY_H
#define SKIFF_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Below this glibc copies with vector loops itself (its rep movsb
 * threshold is 2 KiB and above on x86-64). */
#define SKF_COPY_SKEW_MIN 2048

extern int skf_copy_skewed_ok; /* 1: the vector loop is available and not turned off */
void skf_copy_skewed(void *dst, const void *src, size_t n);
void skf_copy_init(void); /* reads SKIFF_COPY once (skf_init) */

static inline void skf_copy(void *dst, const void *src, size_t n)
{
    if (n >= SKF_COPY_SKEW_MIN && (((uintptr_t)dst - (uintptr_t)src) & 63) && skf_copy_skewed_ok)
        skf_copy_skewed(dst, src, n);
    else
        memcpy(dst, src, n);
}

#endif
