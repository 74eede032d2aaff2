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
extern int skf_copy_stream_mode; /* SKF_COPY_STREAM_*: may big ring copies bypass the caches */
void skf_copy_skewed(void *dst, const void *src, size_t n);
void skf_copy_init(void); /* reads SKIFF_COPY once (skf_init) */

extern int skf_demote_ok;  /* the core has cldemote (skf_demote) */
int skf_cpu_is_intel(void); /* where "auto" choices were measured on Intel only */

/* prefetchw: fetch the line at p for writing (a no-op hint where absent). */
static inline void skf_prefetch_for_write(const void *p)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
#else
    (void)p;
#endif
}
/* cldemote: move the lines of [p, p+n) from this core's L1/L2 to the shared
 * L3, where another core reads them faster than from this core's caches.
 * A hint, a no-op where absent (docs/shm-transport.md, "Demoting the last
 * message"). */
static inline void skf_demote(const void *p, size_t n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63), *end = (const char *)p + n;
    for (; c < end; c += 64)
        __asm__ volatile("cldemote %0" ::"m"(*c));
#else
    (void)p, (void)n;
#endif
}

static inline void skf_copy(void *dst, const void *src, size_t n)
{
    if (n >= SKF_COPY_SKEW_MIN && (((uintptr_t)dst - (uintptr_t)src) & 63) && skf_copy_skewed_ok)
        skf_copy_skewed(dst, src, n);
    else
        memcpy(dst, src, n);
}

/* Out-of-cache copies into a ring (docs/shm-transport.md, "Copies that
 * bypass the caches").  When sender and receiver sit on cores that share no
 * cache (another CCX or die: on the 2-vCPU VMs of this project that changes
 * from minute to minute), every line a sender writes was last read by the
 * receiver and the store must fetch it across the fabric: a 16 KiB piece went
 * into the ring at ~5 GB/s and the receiver then pulled it back across.
 * Non-temporal stores write the lines to memory without fetching them
 * (~20 GB/s in either placement), and the receiver reads memory: 64 KiB
 * ping-pong 15.5 -> 6.8 us.  With a shared L3 the ordinary copy is the faster
 * one (3.7 vs 7.2 us), so the sender picks per destination, by timing its own
 * copies: ordinary stores there run at ~23 GB/s with a shared cache and
 * ~5 GB/s without, streaming ones ~20 GB/s in both. */
#define SKF_COPY_PICK_MIN 4096 /* smaller pieces: always the ordinary copy      */
#define SKF_COPY_PICK_PROBE 256 /* every this many big pieces try the other kind */
enum { SKF_COPY_STREAM_AUTO, SKF_COPY_STREAM_NEVER, SKF_COPY_STREAM_ALWAYS };

struct skf_copy_pick {       /* one per destination ring of a sender          */
    uint64_t ticks_per_kib[2]; /* recent cost (a floor): [0] ordinary, [1] streaming */
    uint32_t count;
    uint8_t stream;          /* the kind in use: 1 = streaming stores         */
};

/* Copy n bytes into shared memory with the kind of stores p currently
 * prefers (and, now and then, the other kind, to notice a change).
 * A streaming copy ends with a store fence: the caller's release store that
 * publishes the message is then ordered after it. */
void skf_copy_picked(struct skf_copy_pick *p, void *dst, const void *src, size_t n);

static inline void skf_copy_to_ring(struct skf_copy_pick *p, void *dst, const void *src, size_t n)
{
    if (n >= SKF_COPY_PICK_MIN && p && skf_copy_stream_mode != SKF_COPY_STREAM_NEVER)
        skf_copy_picked(p, dst, src, n);
    else
        skf_copy(dst, src, n);
}

#endif
