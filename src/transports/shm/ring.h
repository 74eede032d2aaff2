/*
 * ring — one receive ring of cache-line slots in shared memory.
 *
 * A message occupies consecutive 64-byte lines (an even number: see
 * shm_lines_for).  Its first line starts with an
 * 8-byte meta word (length, source, "ready" bit) followed by the first
 * SHM_INLINE payload bytes, so a message of up to 56 bytes is one line: one
 * cache-line transfer from producer to consumer.  Larger payloads continue into
 * the following lines; a message that runs past the end of the ring continues
 * at its start and is handed to the receiver as two pieces.
 *
 * Synchronisation is through the meta word of each message (written last, with
 * release or seq_cst) and the ring's head counter (lines the consumer has
 * handed back).  A non-zero word at the consumer's head can only be a freshly
 * published meta word, never stale payload (shm_prepare_next_sp, shm_release).  Positions are absolute line
 * counters (never wrap in practice); slots are found with a mask, never a
 * division.
 *
 * Two producer disciplines share this layout:
 *  - single producer (a dedicated ring): the tail lives in the producer's
 *    private memory; no atomic RMW at all;
 *  - multiple producers (the shared ring): the tail lives in the ring's control
 *    block and producers reserve lines with a CAS.
 * In both, the producer caches the consumer's head and re-reads it only when
 * the ring looks full, and the consumer publishes its head lazily, so the
 * index lines do not bounce between the two caches on every message.
 */
#ifndef SKIFF_SHM_RING_H
#define SKIFF_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "core/copy.h"
#include "skiff.h" /* skf_pack_fn */

#define SHM_LINE 64                      /* one slot = one cache line                */
#define SHM_LINE_SHIFT 6
#define SHM_META 8                       /* meta word at the start of a message      */
#define SHM_INLINE (SHM_LINE - SHM_META) /* 56 payload bytes ride in the header line */

/* Control block at the start of every ring: two lines, so the consumer's
 * index and the producers' index never share a cache line. */
struct shm_ring_ctl {
    _Alignas(SHM_LINE) _Atomic uint64_t head; /* lines handed back (consumer writes)      */
    _Alignas(SHM_LINE) _Atomic uint64_t tail; /* lines reserved (shared ring's producers) */
    _Atomic uint64_t switch_count; /* dedicated ring: messages its sender had put on the
                                      shared ring before switching (written by it) */
};
#define SHM_RING_CTL_SIZE ((size_t)sizeof(struct shm_ring_ctl))

/* A process's view of one ring (pointers into its own mapping). */
struct shm_ring {
    struct shm_ring_ctl *ctl;
    uint8_t *data;  /* lines * SHM_LINE bytes */
    uint64_t mask;  /* lines - 1 (lines is a power of two) */
    uint64_t lines;
    uint64_t max_payload; /* largest message this ring accepts */
};

/* Meta word: bit 0 = ready, bits 1..31 = source (local index), 32..63 = length. */
static inline uint64_t shm_meta(uint32_t src_local, uint64_t len)
{
    return (len << 32) | ((uint64_t)src_local << 1) | 1u;
}
static inline uint32_t shm_meta_len(uint64_t meta) { return (uint32_t)(meta >> 32); }
static inline uint32_t shm_meta_src(uint64_t meta) { return (uint32_t)meta >> 1; }

/* Lines a message of len payload bytes occupies: whole 128-byte pairs, so a
 * message never shares a pair with the next one.  (x86 cores fetch lines in
 * aligned pairs: with 64-byte messages the consumer's read of one line drags
 * in the line the producer is writing next, and 1-line messages ran at half
 * the rate of 2-line ones — measured, docs/shm-transport.md.) */
static inline uint64_t shm_lines_for(uint64_t len)
{
    return ((SHM_META + len + 2 * SHM_LINE - 1) >> (SHM_LINE_SHIFT + 1)) << 1;
}

static inline _Atomic uint64_t *shm_ring_word(const struct shm_ring *r, uint64_t pos)
{
    return (_Atomic uint64_t *)(r->data + ((pos & r->mask) << SHM_LINE_SHIFT));
}

/* Point r at a ring laid out as control block + lines data lines. */
static inline void shm_ring_view(struct shm_ring *r, void *ctl_and_data, uint64_t lines,
                                 uint64_t max_payload)
{
    r->ctl = ctl_and_data;
    r->data = (uint8_t *)ctl_and_data + SHM_RING_CTL_SIZE;
    r->lines = lines;
    r->mask = lines - 1;
    r->max_payload = max_payload;
}

/* Payload bytes that fit in free_lines lines, capped by want and the ring's
 * maximum; 0 lines free means nothing fits (returns -1). */
static inline int64_t shm_fit(const struct shm_ring *r, int64_t free_lines, uint64_t want)
{
    if (free_lines <= 0)
        return -1;
    uint64_t room = ((uint64_t)free_lines << SHM_LINE_SHIFT) - SHM_META;
    uint64_t take = want < room ? want : room;
    return (int64_t)(take < r->max_payload ? take : r->max_payload);
}

/* Single producer: reserve room for up to want bytes at *tail.  Returns the
 * bytes taken (>= 0) or -1 when the ring is full. */
static inline int64_t shm_reserve_sp(const struct shm_ring *r, uint64_t tail, uint64_t *head_cache,
                                     uint64_t want)
{
    uint64_t need = shm_lines_for(want < r->max_payload ? want : r->max_payload);
    if (tail + need - *head_cache > r->lines) /* looks full: look at the real head */
        *head_cache = atomic_load_explicit(&r->ctl->head, memory_order_acquire);
    return shm_fit(r, (int64_t)(r->lines - (tail - *head_cache)), want);
}

/* Multiple producers: reserve lines for up to want bytes with a CAS on the
 * shared tail.  Returns the bytes taken and the position in *pos, or -1. */
static inline int64_t shm_reserve_mp(const struct shm_ring *r, uint64_t *head_cache, uint64_t want,
                                     uint64_t *pos)
{
    uint64_t goal = want < r->max_payload ? want : r->max_payload;
    uint64_t t = atomic_load_explicit(&r->ctl->tail, memory_order_relaxed);
    for (;;) {
        int64_t free_lines = (int64_t)r->lines - (int64_t)(t - *head_cache);
        int64_t take = shm_fit(r, free_lines, want);
        if (take < 0 || (uint64_t)take < goal) { /* looks short: look at the real head */
            uint64_t h = atomic_load_explicit(&r->ctl->head, memory_order_acquire);
            if (h != *head_cache) {
                *head_cache = h;
                continue;
            }
            if (take < 0)
                return -1;
        }
        if (atomic_compare_exchange_weak_explicit(&r->ctl->tail, &t,
                                                  t + shm_lines_for((uint64_t)take),
                                                  memory_order_relaxed, memory_order_relaxed)) {
            *pos = t;
            return take;
        }
    }
}

/* Copy len bytes gathered from iov into the message at pos (after its meta
 * word), wrapping at the end of the ring; big pieces with the stores pick
 * prefers (core/copy.h; NULL: ordinary ones). */
static inline void shm_fill(const struct shm_ring *r, uint64_t pos, const struct iovec *iov,
                            int iovcnt, uint64_t len, struct skf_copy_pick *pick)
{
    uint64_t ring_bytes = r->lines << SHM_LINE_SHIFT;
    uint64_t off = ((pos & r->mask) << SHM_LINE_SHIFT) + SHM_META;
    for (int i = 0; i < iovcnt && len; i++) {
        const uint8_t *src = iov[i].iov_base;
        uint64_t n = iov[i].iov_len < len ? iov[i].iov_len : len;
        len -= n;
        while (n) {
            if (off >= ring_bytes)
                off -= ring_bytes;
            uint64_t chunk = ring_bytes - off < n ? ring_bytes - off : n;
            skf_copy_to_ring(pick, r->data + off, src, chunk);
            off += chunk;
            src += chunk;
            n -= chunk;
        }
    }
}

/* The generated part of the message at pos (skf_send_pack): its bytes after
 * the first `head`, up to len, written by pack in place (a second call when
 * the message wraps at the end of the ring). */
static inline void shm_fill_generated(const struct shm_ring *r, uint64_t pos, uint64_t head,
                                      uint64_t len, skf_pack_fn pack, void *arg)
{
    if (len <= head)
        return;
    uint64_t ring_bytes = r->lines << SHM_LINE_SHIFT;
    uint64_t off = ((pos & r->mask) << SHM_LINE_SHIFT) + SHM_META + head;
    if (off >= ring_bytes)
        off -= ring_bytes;
    uint64_t n = len - head, first = ring_bytes - off < n ? ring_bytes - off : n;
    pack(arg, 0, r->data + off, first);
    if (n > first)
        pack(arg, first, r->data, n - first);
}

/* Messages of at most this many lines are "small"; larger ones "big". */
#define SHM_SMALL_LINES 2

/* Single producer, before publishing a message of len bytes that ends at line
 * next.  The consumer will look for the next header at next.  Who keeps that
 * slot free of stale payload:
 *  - the consumer zeroes the header of every message it hands back, and the
 *    whole pair of a small one;
 *  - a big message's other lines are NOT zeroed by the consumer (they stay
 *    clean in its cache, so the producer's next write needs no data back:
 *    16 KiB ping-pong 3.8 -> 1.0 us), so their old payload could later sit
 *    where a header is expected.  The producer remembers how far such lines
 *    may reach (*stale_until, one lap after its last big message) and zeroes
 *    the next header slot while below it.  If the ring is exactly full, next
 *    is the oldest unconsumed message's header: the consumer zeroes it.
 * In a stream of small messages the producer never touches the next slot
 * (touching it while the consumer polls it halved the small-message rate).
 * The shared ring cannot do this (the next slot may already belong to
 * another producer); its consumer zeroes every line (shm_release). */
static inline void shm_prepare_next_sp(const struct shm_ring *r, uint64_t len, uint64_t next,
                                       uint64_t *head_cache, uint64_t *stale_until)
{
    if (shm_lines_for(len) > SHM_SMALL_LINES)
        *stale_until = next + r->lines;
    if (next >= *stale_until)
        return;
    if (next - *head_cache >= r->lines) {
        *head_cache = atomic_load_explicit(&r->ctl->head, memory_order_acquire);
        if (next - *head_cache >= r->lines)
            return;
    }
    atomic_store_explicit(shm_ring_word(r, next), 0, memory_order_relaxed);
}

/* Consumer: the message of len bytes at pos is handed back (see above). */
static inline void shm_release(const struct shm_ring *r, uint64_t pos, uint64_t len, int shared)
{
    uint64_t n = shm_lines_for(len);
    if (shared || n <= SHM_SMALL_LINES) {
        for (uint64_t i = 0; i < n; i++)
            atomic_store_explicit(shm_ring_word(r, pos + i), 0, memory_order_relaxed);
    } else
        atomic_store_explicit(shm_ring_word(r, pos), 0, memory_order_relaxed);
}

/* A one-line message still owns its pair's second line: the producer writes
 * it too (a zero first word, which it already is), so the whole pair moves
 * to the producer's cache at once and the consumer's read and clear move it
 * back at once.  Measured: 8-byte MsgRate 30 -> 43..70 M msg/s. */
static inline void shm_own_pad(const struct shm_ring *r, uint64_t pos, uint64_t len)
{
    if (len <= SHM_INLINE)
        atomic_store_explicit(shm_ring_word(r, pos + 1), 0, memory_order_relaxed);
}

/* Hand out the message at pos as one or two pieces; returns the count. */
static inline int shm_pieces(const struct shm_ring *r, uint64_t pos, uint32_t len,
                             struct iovec *cont)
{
    uint64_t ring_bytes = r->lines << SHM_LINE_SHIFT;
    uint64_t off = ((pos & r->mask) << SHM_LINE_SHIFT) + SHM_META;
    if (len == 0)
        return 0;
    if (off + len <= ring_bytes) {
        cont[0].iov_base = r->data + off;
        cont[0].iov_len = len;
        return 1;
    }
    cont[0].iov_base = r->data + off;
    cont[0].iov_len = ring_bytes - off;
    cont[1].iov_base = r->data;
    cont[1].iov_len = len - (ring_bytes - off);
    return 2;
}

#endif /* SKIFF_SHM_RING_H */
