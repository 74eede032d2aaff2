/*
 * shm — the shared-memory transport: receiver-managed rings (IPUSH) in one
 * segment per node per channel.
 *
 * Every local rank owns, inside the segment, a receive area:
 *   - a control line: the ready bitmap (bit i: ring i had a message since the
 *     owner last slept), the futex doorbell word it sleeps on, and the bitmap
 *     of senders waiting for room in its rings;
 *   - a mapping table map[sender] -> ring (0 = the shared multi-producer
 *     ring, 1..D = dedicated single-producer rings), written only by the owner;
 *   - the shared ring and a pool of D dedicated rings.
 * A sender's path: look at map[me] (a read-mostly line), reserve lines, copy
 * the iovec, publish the meta word, then one look at the receiver's control
 * line to set the ready bit if it is clear and ring the doorbell if the
 * receiver sleeps.  A receiver's path: look at the ring it read last; only
 * when that is empty, walk the ready bitmap.  In a ping-pong both sides touch
 * one ring line each way and nothing else.
 *
 * Bulk rings (skf_send_bulk): on nodes of at most SKIFF_SHM_BULK_RANKS ranks
 * every receive area also holds one larger single-producer ring per sender
 * (SKIFF_SHM_BULK_SIZE), with its own ready bit, for large messages in large
 * pieces (MPI's streamed rendezvous) without growing the ring every small
 * message walks through.  Messages on it are not ordered with the sender's
 * others: its user must not need that.
 *
 * Dedicated rings: at open when the node has at most SKIFF_SHM_DEDICATED_MAX
 * peers, otherwise to the first senders whose shared-ring traffic reaches
 * SKIFF_SHM_DEDICATED_AFTER messages.  Order across the switch: the sender
 * writes into the dedicated ring's control block how many messages it had put
 * on the shared ring; the receiver leaves the dedicated ring alone ("gated")
 * until it has handed out that many of the sender's shared-ring messages.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/relax.h"
#include "core/core.h"
#include "transports/shm/ring.h"
#include "transports/shm/shm.h"
#include "transports/shm/shm_seg.h"

#define SHM_MAGIC 0x736b69666673686dull /* "skiffshm" */
#define SHM_SLEEP_SLICE_MS 100          /* a sleeper checks for dead peers this often */
#define SHM_DEAD_CHECK_EVERY 0x3fff     /* -EAGAIN streak length between liveness checks */

enum { SHM_MEMBER_OPEN = 1, SHM_MEMBER_CLOSED = 2 };

/* Segment header, written by the creator; everyone lays out from it. */
struct shm_seg_hdr {
    uint64_t magic;
    uint32_t nlocal, ndedicated;
    uint64_t ring_lines, ring_stride, rx_stride, members_off, rx_off, total;
    uint64_t bulk_lines, bulk_stride, bulk_off; /* bulk rings (0 lines: none), at
                                                   bulk_off in a receive area */
};

/* One line per local rank. */
struct shm_member {
    _Alignas(SHM_LINE) _Atomic int32_t pid;
    _Atomic int32_t state;
};

/* The receiver's control line (see the file comment). */
struct shm_rx_ctl {
    _Alignas(SHM_LINE) _Atomic uint64_t ready;
    _Atomic uint32_t sleep;         /* futex: 1 while the owner sleeps in skf_wait */
    _Atomic uint32_t space_waiters; /* bit (sender % 32): sleeps until my rings have room */
};

/* Sender side, per destination on the node. */
struct shm_tx {
    struct shm_ring ring;   /* the ring I put messages on (shared or dedicated) */
    uint64_t tail;          /* dedicated ring: my private tail                 */
    uint64_t tail_seen;     /* dedicated: the tail at my last wait (shm_wait)  */
    uint64_t head_cache;    /* last head I read from the ring                  */
    uint64_t stale_until;   /* dedicated: see shm_prepare_next_sp              */
    uint64_t ready_bit;     /* my ring's bit in the receiver's ready bitmap    */
    struct shm_rx_ctl *rxc;
    _Atomic uint8_t *map_slot; /* receiver's map[me]                          */
    uint8_t *rx_area;
    uint64_t shared_sent;   /* messages I put on its shared ring               */
    uint32_t full_streak;
    int dedicated;
    int touched; /* bulk: its pages are mapped (prefault) */
    struct skf_copy_pick pick; /* ordinary or streaming stores into its ring */
};

/* Receiver side, per ring of mine. */
struct shm_rxq {
    struct shm_ring ring;
    uint64_t head, head_pub, bit;
    int sender; /* dedicated: its producer (local index); -1 = free or shared */
    int gated;  /* dedicated: sender's shared-ring messages not all handed out yet */
};

struct shm_tp {
    skf_ctx_t *ctx;
    uint16_t port;
    struct shm_seg seg;
    struct shm_seg_hdr *hdr;
    int me, nlocal;
    const int *world; /* local index -> world rank */
    struct shm_member *members;
    struct shm_rx_ctl *rxc;
    _Atomic uint8_t *map;
    struct shm_rxq *q; /* [1 + ndedicated + nbulk], q[0] = shared, then the
                          dedicated rings, then the bulk ring of each sender */
    int nq, next_free, nbulk;
    struct shm_rxq *last;
    struct shm_rxq *out; /* handed out by recv, not yet done */
    uint64_t out_len;    /* its payload length */
    uint64_t *shared_count; /* [nlocal] messages handed out from the shared ring */
    struct shm_tx *tx;      /* [nlocal] */
    struct shm_tx *txb;     /* [nlocal] bulk rings (nbulk), else NULL */
    int blocked;            /* destination of the last -EAGAIN, or -1 */
    struct shm_tx *blocked_tx; /* the ring that said it (tx or txb)     */
    int fenced;             /* senders fence each publish (see notify)  */
    uint64_t batch;         /* publish head after this many lines */
    long dedicated_after, spin;
    int yields;
    /* What this process does when it next waits (shm_wait) with what it
     * put on its dedicated rings since it last waited (docs/shm-transport.md):
     *  - demote those lines, but the first header line, to the shared L3, so
     *    the receiver reads them from there (cldemote; "Demoting the last
     *    message").  Not at once: in a stream nobody waits for them and each
     *    cldemote costs the sender;
     *  - take ownership of the ring lines as many messages will fill next,
     *    but the header slot the receiver polls, so their stores need no
     *    line transfers ("Owning the next lines").
     * Found at the wait from each ring's tail (tx.tail_seen): a store per
     * send to remember the last message cost 8-byte bandwidth 15%. */
    uint64_t demote_max, own_next_lines;
    _Atomic int kicked; /* skf_kick from another thread: the wait returns */
};

/* ---- layout ---------------------------------------------------------------- */

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

/* Bytes from a receive area's start to its first ring: control line and
 * mapping table, rounded so every ring's data starts on a 128-byte pair. */
static uint64_t rings_off(uint64_t nlocal)
{
    return align_up(sizeof(struct shm_rx_ctl) + nlocal, 2 * SHM_LINE);
}

static void layout(struct shm_seg_hdr *h, int nlocal, int ndedicated, uint64_t ring_lines,
                   uint64_t bulk_lines)
{
    h->magic = SHM_MAGIC;
    h->nlocal = (uint32_t)nlocal;
    h->ndedicated = (uint32_t)ndedicated;
    h->ring_lines = ring_lines;
    h->ring_stride = SHM_RING_CTL_SIZE + ring_lines * SHM_LINE;
    h->bulk_lines = bulk_lines;
    h->bulk_stride = bulk_lines ? SHM_RING_CTL_SIZE + bulk_lines * SHM_LINE : 0;
    h->bulk_off = align_up(rings_off((uint64_t)nlocal) + (uint64_t)(1 + ndedicated) * h->ring_stride,
                           4096);
    h->rx_stride = align_up(h->bulk_off + (bulk_lines ? (uint64_t)nlocal * h->bulk_stride : 0), 4096);
    h->members_off = align_up(sizeof *h, SHM_LINE);
    h->rx_off = align_up(h->members_off + (uint64_t)nlocal * sizeof(struct shm_member), 4096);
    h->total = h->rx_off + (uint64_t)nlocal * h->rx_stride;
}

static uint8_t *rx_area(const struct shm_tp *t, int local)
{
    return (uint8_t *)t->seg.obj.base + t->hdr->rx_off + (uint64_t)local * t->hdr->rx_stride;
}

static _Atomic uint8_t *rx_map(uint8_t *area)
{
    return (_Atomic uint8_t *)(area + sizeof(struct shm_rx_ctl));
}

static void ring_at(const struct shm_tp *t, uint8_t *area, int idx, struct shm_ring *r)
{
    uint8_t *p = area + rings_off(t->hdr->nlocal) + (uint64_t)idx * t->hdr->ring_stride;
    /* A message may fill at most a quarter of a ring, so a big sender cannot
     * starve the others sharing it and a stream keeps 4 messages in flight. */
    shm_ring_view(r, p, t->hdr->ring_lines, (t->hdr->ring_lines * SHM_LINE) / 4);
}

/* The bulk ring in area that sender fills (same quarter rule). */
static void bulk_at(const struct shm_tp *t, uint8_t *area, int sender, struct shm_ring *r)
{
    uint8_t *p = area + t->hdr->bulk_off + (uint64_t)sender * t->hdr->bulk_stride;
    shm_ring_view(r, p, t->hdr->bulk_lines, (t->hdr->bulk_lines * SHM_LINE) / 4);
}

/* Map the pages of a ring (or a receive area) into this process now.  Left
 * to first touch, the first pass through a fresh ring takes a page fault
 * every 64 messages (1-2 us in a VM), the partner's spin runs out, it
 * sleeps, and every message then pays a futex wake-up: measured 8-byte MPI
 * ping-pong 0.6-1 us for the first 4096 messages of a 256 KiB ring, 0.25 us
 * after.  Done by the sender when it switches to a dedicated ring (only the
 * pairs that talk pay, ~64 pages once); that allocates the pages, and the
 * receiver's own first reads then cost a cheap mapping fault.  Populating
 * every receive area at open measured +5.6 ms in MPI_Init at 8 ranks. */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
static void prefault(void *p, size_t len)
{
    uintptr_t a = (uintptr_t)p & ~(uintptr_t)4095;
    len += (uintptr_t)p - a;
    (void)madvise((void *)a, len, MADV_POPULATE_WRITE); /* older kernels: faults as before */
}

static void copy_hdr(void *base, void *arg) { memcpy(base, arg, sizeof(struct shm_seg_hdr)); }

/* Local rank 0, default ring size: halve the rings until the segment takes at
 * most 3/4 of the room there is (the rest for node-collective regions and
 * other jobs), down to 4 KiB; say so once.  64 MB of /dev/shm holds 29 ranks
 * of 256 KiB rings no more (9 rings per receiver).  Returns the ring lines. */
static uint64_t fit_rings(const skf_ctx_t *ctx, int nlocal, int ndedicated, uint64_t lines,
                          uint64_t *bulk_lines)
{
    static int told;
    uint64_t room = shm_seg_room(), want = lines;
    struct shm_seg_hdr h;
    layout(&h, nlocal, ndedicated, lines, *bulk_lines);
    if (*bulk_lines && room != UINT64_MAX && h.total > room / 4 * 3) {
        *bulk_lines = 0; /* the bulk rings go first: large messages keep CMA */
        skf_verbose(ctx, "rank %d: too little shared memory for bulk rings: none", ctx->rank);
        layout(&h, nlocal, ndedicated, lines, 0);
    }
    while (lines > 64 && room != UINT64_MAX && h.total > room / 4 * 3)
        layout(&h, nlocal, ndedicated, lines /= 2, 0);
    if (lines != want && !told) {
        told = 1;
        skf_error("rank %d: %s has %llu MiB free: shm rings of %llu KiB instead of %llu KiB for "
                  "%d ranks on this node (more room, e.g. docker run --shm-size=1g, restores them)",
                  ctx->rank, skf_shm_where(skf_shm_kind()), (unsigned long long)(room >> 20),
                  (unsigned long long)(lines * SHM_LINE >> 10),
                  (unsigned long long)(want * SHM_LINE >> 10), nlocal);
    }
    return lines;
}

/* ---- doorbells --------------------------------------------------------------- */

static void futex_wake_one(_Atomic uint32_t *w)
{
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAKE, 1, NULL, NULL, 0);
}

static void futex_sleep(_Atomic uint32_t *w, uint32_t val, int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    syscall(SYS_futex, (uint32_t *)w, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* Wake the owner of w if it said it sleeps (only one of several ringers pays). */
static void ring_bell(_Atomic uint32_t *w)
{
    if (atomic_exchange_explicit(w, 0, memory_order_seq_cst) == 1)
        futex_wake_one(w);
}

static void wake_writers(struct shm_tp *t)
{
    uint32_t w = atomic_exchange_explicit(&t->rxc->space_waiters, 0, memory_order_seq_cst);
    for (int s = 0; w && s < t->nlocal; s++)
        if (w & (1u << (s & 31))) {
            struct shm_rx_ctl *c = (struct shm_rx_ctl *)rx_area(t, s);
            ring_bell(&c->sleep);
        }
}

/* Hand consumed lines back to the producers; wake any that sleep for room. */
static __attribute__((noinline)) void publish_head(struct shm_tp *t, struct shm_rxq *q)
{
    atomic_store_explicit(&q->ring.ctl->head, q->head, memory_order_seq_cst);
    q->head_pub = q->head;
    if (atomic_load_explicit(&t->rxc->space_waiters, memory_order_seq_cst))
        wake_writers(t);
}

static void publish_all(struct shm_tp *t)
{
    for (int i = 0; i < t->nq + t->nbulk; i++)
        if (t->q[i].head != t->q[i].head_pub && &t->q[i] != t->out)
            publish_head(t, &t->q[i]);
}

/* ---- peers --------------------------------------------------------------------- */

/* A local peer that died while it still had the channel open. */
static int peer_lost(const struct shm_tp *t, int local)
{
    if (local == t->me)
        return 0;
    int st = atomic_load_explicit(&t->members[local].state, memory_order_acquire);
    if (st == SHM_MEMBER_CLOSED)
        return 1;
    return skf_local_dead(t->ctx, local);
}

static int any_peer_lost(const struct shm_tp *t)
{
    for (int s = 0; s < t->nlocal; s++)
        if (s != t->me && atomic_load_explicit(&t->members[s].state, memory_order_acquire) ==
                              SHM_MEMBER_OPEN && skf_local_dead(t->ctx, s))
            return 1;
    return 0;
}

static int shm_lost_peer(void *tpv, char *desc, size_t cap)
{
    const struct shm_tp *t = tpv;
    for (int s = 0; s < t->nlocal; s++) {
        if (s == t->me || !peer_lost(t, s))
            continue;
        int closed = atomic_load_explicit(&t->members[s].state, memory_order_acquire) ==
                     SHM_MEMBER_CLOSED;
        snprintf(desc, cap, "pid %d, this node, %s", (int)t->ctx->local_pid[s],
                 closed ? "closed the channel" : "exited");
        return t->world[s];
    }
    return -1;
}

/* ---- dedicated rings ----------------------------------------------------------- */

static __attribute__((noinline)) void assign_dedicated(struct shm_tp *t, int sender)
{
    struct shm_rxq *q = &t->q[t->next_free];
    q->sender = sender;
    q->gated = 1;
    atomic_store_explicit(&t->map[sender], (uint8_t)t->next_free, memory_order_release);
    skf_verbose(t->ctx, "rank %d: port %u: sender rank %d gets dedicated ring %d after %llu messages",
                t->ctx->rank, t->port, t->world[sender], t->next_free,
                (unsigned long long)t->shared_count[sender]);
    t->next_free++;
}

/* The receiver gave me a dedicated ring: move there, telling it how many
 * messages it must take from the shared ring first. */
static void switch_to_dedicated(struct shm_tp *t, struct shm_tx *x, int idx)
{
    ring_at(t, x->rx_area, idx, &x->ring);
    prefault(x->ring.data, x->ring.lines * SHM_LINE);
    atomic_store_explicit(&x->ring.ctl->switch_count, x->shared_sent, memory_order_relaxed);
    x->tail = 0;
    x->head_cache = 0;
    x->stale_until = 0;
    x->ready_bit = 1ull << idx;
    x->dedicated = 1;
}

static int ungate(const struct shm_tp *t, struct shm_rxq *q)
{
    uint64_t need = atomic_load_explicit(&q->ring.ctl->switch_count, memory_order_relaxed);
    if (t->shared_count[q->sender] < need)
        return 0;
    q->gated = 0;
    return 1;
}

/* ---- send ---------------------------------------------------------------------- */

static __attribute__((noinline)) ssize_t send_full(struct shm_tp *t, struct shm_tx *x, int dst)
{
    t->blocked = dst;
    t->blocked_tx = x;
    if ((++x->full_streak & SHM_DEAD_CHECK_EVERY) == 0 && peer_lost(t, dst))
        return -EPIPE;
    return -EAGAIN;
}

/* After the meta word is out: make sure the receiver will look at my ring
 * (ready bit) and is awake (doorbell).  The publish must be ordered before
 * these two loads (else: I read "awake", it falls asleep without seeing my
 * message).  Two ways, chosen per node at start-up:
 *  - fenced: the publish is seq_cst (an xchg on x86) and so are the loads;
 *    the receiver does the mirror image (store, fence, look again);
 *  - asymmetric: no fence here at all; a receiver about to sleep issues
 *    membarrier(GLOBAL_EXPEDITED), which puts a full barrier into every
 *    sender, then looks again.  Measured: the fence cost the 8-byte MsgRate
 *    ~25% and ping-pong ~0.09 us (docs/shm-transport.md). */
static inline void notify(struct shm_tp *t, struct shm_tx *x, uint64_t pos, uint64_t meta)
{
    struct shm_rx_ctl *c = x->rxc;
    uint64_t ready;
    uint32_t sleep;
    if (t->fenced) {
        atomic_store_explicit(shm_ring_word(&x->ring, pos), meta, memory_order_seq_cst);
        ready = atomic_load_explicit(&c->ready, memory_order_seq_cst);
        sleep = atomic_load_explicit(&c->sleep, memory_order_seq_cst);
    } else {
        atomic_store_explicit(shm_ring_word(&x->ring, pos), meta, memory_order_release);
        atomic_signal_fence(memory_order_seq_cst); /* keep the compiler's order */
        ready = atomic_load_explicit(&c->ready, memory_order_relaxed);
        sleep = atomic_load_explicit(&c->sleep, memory_order_relaxed);
    }
    if (__builtin_expect(!(ready & x->ready_bit), 0))
        atomic_fetch_or_explicit(&c->ready, x->ready_bit, memory_order_seq_cst);
    if (__builtin_expect(sleep != 0, 0))
        ring_bell(&c->sleep);
}

static inline void publish(struct shm_tp *t, struct shm_tx *x, uint64_t pos, uint64_t len)
{
    notify(t, x, pos, shm_meta((uint32_t)t->me, len));
    x->full_streak = 0;
    t->blocked = -1;
}

/* Any message: shared or dedicated ring, gathered, cut, wrapped; `extra`
 * bytes generated by pack after the iovec's (0 and NULL for skf_send). */
static __attribute__((noinline)) ssize_t send_general(struct shm_tp *t, struct shm_tx *x, int dst, const struct iovec *iov,
                            int iovcnt, uint64_t extra, skf_pack_fn pack, void *arg)
{
    uint64_t want = extra, pos;
    int64_t take;
    if (!x->dedicated) {
        uint8_t idx = atomic_load_explicit(x->map_slot, memory_order_acquire);
        if (idx)
            switch_to_dedicated(t, x, idx);
    }
    for (int i = 0; i < iovcnt; i++)
        want += iov[i].iov_len;
    if (x->dedicated) {
        take = shm_reserve_sp(&x->ring, x->tail, &x->head_cache, want);
        pos = x->tail;
        if (take >= 0) {
            x->tail += shm_lines_for((uint64_t)take);
            shm_prepare_next_sp(&x->ring, (uint64_t)take, x->tail, &x->head_cache, &x->stale_until);
        }
    } else {
        take = shm_reserve_mp(&x->ring, &x->head_cache, want, &pos);
        x->shared_sent += take >= 0;
    }
    if (take < 0)
        return send_full(t, x, dst);
    shm_fill(&x->ring, pos, iov, iovcnt, (uint64_t)take, &x->pick);
    if (extra)
        shm_fill_generated(&x->ring, pos, want - extra, (uint64_t)take, pack, arg);
    shm_own_pad(&x->ring, pos, (uint64_t)take);
    publish(t, x, pos, (uint64_t)take);
    return (ssize_t)take;
}

/* The common case first: one or two iovec entries (MPI's header + payload)
 * to a dedicated ring, room known from the cached head, no wrap: the copies
 * and the publish.  Measured (callgrind, MPI 8-byte stream): the general
 * path cost ~230 instructions per 2-piece message, this one ~60. */
static inline ssize_t send_on(struct shm_tp *t, struct shm_tx *x, int dst,
                              const struct iovec *iov, int iovcnt)
{
    if (__builtin_expect(x->dedicated && (unsigned)(iovcnt - 1) < 2, 1)) {
        uint64_t len0 = iov[0].iov_len, len1 = iovcnt == 2 ? iov[1].iov_len : 0;
        uint64_t len = len0 + len1, pos = x->tail, n = shm_lines_for(len);
        uint64_t off = (pos & x->ring.mask) << SHM_LINE_SHIFT;
        if (len <= x->ring.max_payload && len >= len0 && pos + n - x->head_cache <= x->ring.lines &&
            off + SHM_META + len <= (x->ring.lines << SHM_LINE_SHIFT)) {
            uint8_t *d = x->ring.data + off + SHM_META;
            if (len > SHM_INLINE && len0 <= SHM_INLINE) {
                /* The header line last: the receiver is polling it, so
                 * each store there takes the line back from the receiver's
                 * core.  The lines behind it first, then its bytes right
                 * before the meta word: one transfer of that line, not two.
                 * (1 KiB ping-pong 0.88 -> 0.84 us, docs/shm-transport.md) */
                uint64_t in_head = SHM_INLINE - len0;
                const uint8_t *p = iov[1].iov_base;
                skf_copy_to_ring(&x->pick, d + SHM_INLINE, p + in_head, len1 - in_head);
                if (len0)
                    memcpy(d, iov[0].iov_base, len0);
                memcpy(d + len0, p, in_head);
            } else {
                if (len0) /* an empty piece may come with a NULL base */
                    memcpy(d, iov[0].iov_base, len0);
                if (len1)
                    skf_copy_to_ring(&x->pick, d + len0, iov[1].iov_base, len1);
            }
            shm_own_pad(&x->ring, pos, len);
            x->tail = pos + n;
            shm_prepare_next_sp(&x->ring, len, x->tail, &x->head_cache, &x->stale_until);
            publish(t, x, pos, len);
            return (ssize_t)len;
        }
    }
    return send_general(t, x, dst, iov, iovcnt, 0, NULL, NULL);
}

static ssize_t shm_send(void *tpv, int dst, const struct iovec *iov, int iovcnt)
{
    struct shm_tp *t = tpv;
    return send_on(t, &t->tx[dst], dst, iov, iovcnt);
}

/* skf_send_bulk: onto the pair's bulk ring (the ordinary one without). */
static ssize_t shm_send_bulk(void *tpv, int dst, const struct iovec *iov, int iovcnt)
{
    struct shm_tp *t = tpv;
    if (!t->nbulk || dst == t->me)
        return send_on(t, &t->tx[dst], dst, iov, iovcnt);
    struct shm_tx *x = &t->txb[dst];
    if (__builtin_expect(!x->touched, 0)) { /* map its pages once, as for a dedicated ring */
        prefault(x->ring.data, x->ring.lines * SHM_LINE);
        x->touched = 1;
    }
    return send_on(t, x, dst, iov, iovcnt);
}

static size_t shm_bulk_max(void *tpv, int peer)
{
    struct shm_tp *t = tpv;
    return t->nbulk && peer != t->me ? t->txb[peer].ring.max_payload : 0;
}

static ssize_t shm_send_pack(void *tpv, int dst, const struct iovec *iov, int iovcnt, size_t len,
                             skf_pack_fn pack, void *arg)
{
    struct shm_tp *t = tpv;
    return send_general(t, &t->tx[dst], dst, iov, iovcnt, len, pack, arg);
}

/* ---- receive ------------------------------------------------------------------- */

static inline uint64_t peek(const struct shm_rxq *q, memory_order mo)
{
    return atomic_load_explicit(shm_ring_word(&q->ring, q->head), mo);
}

/* Walk the ready bitmap (all rings but the one read last, already looked
 * at).  A bit means "this ring had a message since I last slept"; bits of
 * rings found empty are cleared only on the way to sleep (prepare_sleep),
 * where a barrier makes that safe, so a busy receiver looks at no more rings
 * than it has active partners, and never at all peers. */
static __attribute__((noinline)) struct shm_rxq *find_slow(struct shm_tp *t, uint64_t *meta)
{
    uint64_t bits = atomic_load_explicit(&t->rxc->ready, memory_order_relaxed) & ~t->last->bit;
    while (bits) {
        struct shm_rxq *q = &t->q[__builtin_ctzll(bits)];
        bits &= bits - 1;
        if ((*meta = peek(q, memory_order_acquire)) && (!q->gated || ungate(t, q))) {
            t->last = q;
            return q;
        }
    }
    return NULL;
}

/* On the way to sleep: forget rings that are empty, say I sleep, then the
 * barrier (see notify), then look at every ring in use once more: a sender
 * that missed my "asleep" has its message visible now. */
static void prepare_sleep(struct shm_tp *t, int *slice_ms)
{
    uint64_t bits = atomic_load_explicit(&t->rxc->ready, memory_order_relaxed);
    for (uint64_t b = bits; b; b &= b - 1) {
        struct shm_rxq *q = &t->q[__builtin_ctzll(b)];
        if (!peek(q, memory_order_relaxed) && q != t->out)
            atomic_fetch_and_explicit(&t->rxc->ready, ~q->bit, memory_order_seq_cst);
    }
    atomic_store_explicit(&t->rxc->sleep, 1, memory_order_seq_cst);
    if (t->fenced)
        atomic_thread_fence(memory_order_seq_cst);
    else if (skf_membarrier() != 0)
        *slice_ms = 1; /* cannot be sure: do not sleep long */
    for (int i = 0; i < t->nq + t->nbulk; i = i + 1 == t->next_free ? t->nq : i + 1)
        if (peek(&t->q[i], memory_order_acquire) &&
            !(atomic_load_explicit(&t->rxc->ready, memory_order_relaxed) & t->q[i].bit))
            atomic_fetch_or_explicit(&t->rxc->ready, t->q[i].bit, memory_order_relaxed);
}

static __attribute__((noinline)) struct shm_rxq *find(struct shm_tp *t, uint64_t *meta)
{
    struct shm_rxq *q = t->last;
    if ((*meta = peek(q, memory_order_acquire)) && (!q->gated || ungate(t, q)))
        return q;
    return find_slow(t, meta);
}

static ssize_t shm_recv(void *tpv, struct iovec *cont, int *ncont, int *src_rank)
{
    struct shm_tp *t = tpv;
    struct shm_rxq *q = t->last;
    uint64_t meta = peek(q, memory_order_acquire);
    if (__builtin_expect(!meta || q->gated, 0) && !(q = find(t, &meta)))
        return -EAGAIN;
    uint32_t len = shm_meta_len(meta), src = shm_meta_src(meta);
    uint64_t off = ((q->head & q->ring.mask) << SHM_LINE_SHIFT) + SHM_META;
    if (__builtin_expect(off + len <= (q->ring.lines << SHM_LINE_SHIFT), 1)) {
        cont[0].iov_base = q->ring.data + off;
        cont[0].iov_len = len;
        *ncont = len != 0;
    } else
        *ncont = shm_pieces(&q->ring, q->head, len, cont);
    *src_rank = t->world[src];
    t->out = q;
    t->out_len = len;
    if (q == t->q && ++t->shared_count[src] == (uint64_t)t->dedicated_after &&
        t->next_free < t->nq && !atomic_load_explicit(&t->map[src], memory_order_relaxed))
        assign_dedicated(t, (int)src);
    return (ssize_t)len;
}

static void shm_recv_done(void *tpv)
{
    struct shm_tp *t = tpv;
    struct shm_rxq *q = t->out;
    shm_release(&q->ring, q->head, t->out_len, q == t->q);
    q->head += shm_lines_for(t->out_len);
    t->out = NULL;
    /* Publish lazily: every `batch` lines (producers then see at most that
     * much phantom use, never a full ring that is really drained), or at
     * once when someone sleeps for room. */
    if (q->head - q->head_pub >= t->batch ||
        atomic_load_explicit(&t->rxc->space_waiters, memory_order_relaxed))
        publish_head(t, q);
}

static size_t shm_max_msg(void *tpv, int peer)
{
    struct shm_tp *t = tpv;
    return t->tx[peer].ring.max_payload;
}

/* ---- readiness and waiting ----------------------------------------------------- */

static int room(struct shm_tx *x)
{
    if (!x->dedicated && atomic_load_explicit(x->map_slot, memory_order_acquire))
        return 1; /* the next send moves to an empty dedicated ring */
    uint64_t tail = x->dedicated ? x->tail
                                 : atomic_load_explicit(&x->ring.ctl->tail, memory_order_relaxed);
    /* seq_cst: pairs with publish_head's store and load of space_waiters
     * (a waiter's fetch_or, its own sleep flag, then this load) */
    x->head_cache = atomic_load_explicit(&x->ring.ctl->head, memory_order_seq_cst);
    return tail - x->head_cache < x->ring.lines;
}

static int shm_ready(void *tpv, int events)
{
    struct shm_tp *t = tpv;
    int r = 0;
    uint64_t meta;
    if ((events & SKF_READABLE) && (t->out || find(t, &meta)))
        r |= SKF_READABLE;
    if ((events & SKF_WRITABLE) && (t->blocked < 0 || room(t->blocked_tx)))
        r |= SKF_WRITABLE;
    return r;
}

static long elapsed_ms(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t0->tv_sec) * 1000 + (now.tv_nsec - t0->tv_nsec) / 1000000;
}


/* Poll (spin, then yield when oversubscribed), then sleep on my doorbell in
 * slices, checking for dead peers between slices. */
static int kicked(struct shm_tp *t)
{
    return atomic_load_explicit(&t->kicked, memory_order_relaxed) &&
           atomic_exchange_explicit(&t->kicked, 0, memory_order_relaxed);
}

/* Another thread of this process wants the waiter back (MPI_THREAD_MULTIPLE). */
static void shm_kick(void *tpv)
{
    struct shm_tp *t = tpv;
    atomic_store_explicit(&t->kicked, 1, memory_order_seq_cst);
    ring_bell(&t->rxc->sleep);
}

/* The lines after the next header slot of x's ring, as many as the last
 * message took (at most own_next_lines), when they are free. */
static void own_next(const struct shm_tp *t, const struct shm_tx *x, uint64_t lines)
{
    uint64_t k = lines < t->own_next_lines ? lines : t->own_next_lines;
    if (x->tail + k - x->head_cache > x->ring.lines) /* the receiver may still read them */
        return;
    for (uint64_t i = 1; i < k; i++)
        skf_prefetch_for_write(shm_ring_word(&x->ring, x->tail + i));
}

/* What a sender does, when it starts to wait, with what it put on its
 * dedicated rings since it last waited (lines tail_seen..tail of each):
 * in a ping-pong that is the one message the partner is about to read.
 * Messages take pairs of lines (shm_lines_for), so even a one-line message
 * has its pad line demoted and the next pair's second line owned (8-byte
 * ping-pong 0.241 -> 0.190 us). */
static void before_waiting(struct shm_tp *t)
{
    for (int i = 0; i < t->nlocal; i++) {
        struct shm_tx *x = &t->tx[i];
        uint64_t from = x->tail_seen, lines = x->tail - from;
        if (!lines)
            continue;
        x->tail_seen = x->tail;
        if (!x->dedicated)
            continue;
        if ((lines - 1) * SHM_LINE <= t->demote_max) /* not the first header line: the receiver polls it */
            for (uint64_t k = 1; k < lines; k++)
                skf_demote(shm_ring_word(&x->ring, from + k), SHM_LINE);
        if (t->own_next_lines)
            own_next(t, x, lines);
    }
}

static int shm_wait(void *tpv, int events, int timeout_ms)
{
    struct shm_tp *t = tpv;
    int r;
    if (t->demote_max | t->own_next_lines)
        before_waiting(t);
    for (long i = 0; i < t->spin; i++) {
        if ((r = shm_ready(t, events)))
            return r;
        if (kicked(t))
            return 0;
        skf_cpu_relax();
    }
    for (int i = 0; i < t->yields; i++) {
        if ((r = shm_ready(t, events)))
            return r;
        if (kicked(t))
            return 0;
        sched_yield();
    }
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        int slice = SHM_SLEEP_SLICE_MS;
        publish_all(t); /* senders blocked on my rings must see all the room I have */
        if ((events & SKF_WRITABLE) && t->blocked >= 0)
            atomic_fetch_or_explicit(&t->tx[t->blocked].rxc->space_waiters, 1u << (t->me & 31),
                                     memory_order_seq_cst);
        prepare_sleep(t, &slice);
        if ((r = shm_ready(t, events))) {
            atomic_store_explicit(&t->rxc->sleep, 0, memory_order_relaxed);
            return r;
        }
        long left = timeout_ms < 0 ? slice : timeout_ms - elapsed_ms(&t0);
        if (left <= 0 || kicked(t)) {
            atomic_store_explicit(&t->rxc->sleep, 0, memory_order_relaxed);
            return 0;
        }
        futex_sleep(&t->rxc->sleep, 1, left < slice ? (int)left : slice);
        atomic_store_explicit(&t->rxc->sleep, 0, memory_order_relaxed);
        if ((r = shm_ready(t, events)))
            return r;
        if (kicked(t))
            return 0;
        if ((events & SKF_READABLE) ? any_peer_lost(t)
                                    : (t->blocked >= 0 && peer_lost(t, t->blocked)))
            return -EPIPE;
    }
}

/* ---- open / close -------------------------------------------------------------- */

static int setup_local(struct shm_tp *t)
{
    const struct shm_seg_hdr *h = t->hdr;
    if (h->magic != SHM_MAGIC || h->nlocal != (uint32_t)t->nlocal || h->total > t->seg.obj.size) {
        skf_error("skf_chan_open(port %u): segment %s has an unexpected layout", t->port,
                  t->seg.obj.name);
        return -EPROTO;
    }
    t->members = (struct shm_member *)((uint8_t *)t->seg.obj.base + h->members_off);
    uint8_t *mine = rx_area(t, t->me);
    t->rxc = (struct shm_rx_ctl *)mine;
    t->map = rx_map(mine);
    t->nq = 1 + (int)h->ndedicated;
    t->nbulk = h->bulk_lines ? t->nlocal : 0;
    if (t->nq + t->nbulk > 64) {
        skf_error("skf_chan_open(port %u): %d rings per receiver: more than the 64 of the ready bitmap",
                  t->port, t->nq + t->nbulk);
        return -EPROTO;
    }
    t->next_free = 1;
    t->q = calloc((size_t)(t->nq + t->nbulk), sizeof *t->q);
    t->shared_count = calloc((size_t)t->nlocal, sizeof *t->shared_count);
    t->tx = calloc((size_t)t->nlocal, sizeof *t->tx);
    t->txb = t->nbulk ? calloc((size_t)t->nlocal, sizeof *t->txb) : NULL;
    if (!t->q || !t->shared_count || !t->tx || (t->nbulk && !t->txb))
        return -ENOMEM;
    for (int i = 0; i < t->nq + t->nbulk; i++) {
        if (i < t->nq)
            ring_at(t, mine, i, &t->q[i].ring);
        else
            bulk_at(t, mine, i - t->nq, &t->q[i].ring);
        t->q[i].bit = 1ull << i;
        t->q[i].sender = i < t->nq ? -1 : i - t->nq;
    }
    t->last = &t->q[0];
    t->batch = h->ring_lines / 8;
    for (int s = 0; s < t->nlocal; s++) {
        struct shm_tx *x = &t->tx[s];
        x->rx_area = rx_area(t, s);
        x->rxc = (struct shm_rx_ctl *)x->rx_area;
        x->map_slot = rx_map(x->rx_area) + t->me;
        ring_at(t, x->rx_area, 0, &x->ring);
        x->ready_bit = 1;
        if (t->nbulk) { /* my bulk ring in s's area: single producer from the start */
            struct shm_tx *b = &t->txb[s];
            *b = (struct shm_tx){.rxc = x->rxc, .rx_area = x->rx_area, .dedicated = 1,
                                 .ready_bit = 1ull << (t->nq + t->me)};
            bulk_at(t, x->rx_area, t->me, &b->ring);
        }
    }
    /* Few enough peers: everybody gets a dedicated ring now. */
    if (t->nlocal - 1 <= (int)h->ndedicated)
        for (int s = 0; s < t->nlocal; s++)
            if (s != t->me)
                assign_dedicated(t, s);
    atomic_store_explicit(&t->members[t->me].pid, (int32_t)getpid(), memory_order_relaxed);
    atomic_store_explicit(&t->members[t->me].state, SHM_MEMBER_OPEN, memory_order_release);
    return 0;
}

static void free_tp(struct shm_tp *t)
{
    shm_seg_detach(&t->seg);
    free(t->q);
    free(t->shared_count);
    free(t->tx);
    free(t->txb);
    free(t);
}

static int shm_chan_open(skf_chan_t *ch, int *peer_id, void **tpp)
{
    skf_ctx_t *ctx = ch->ctx;
    const boot_info_t *b = ctx->boot;
    struct shm_tp *t = calloc(1, sizeof *t);
    struct shm_seg_hdr want;
    int rc;
    if (!t)
        return -ENOMEM; /* a local malloc failure: the job is in trouble anyway */
    t->ctx = ctx;
    t->port = ch->port;
    t->me = b->local_rank;
    t->nlocal = b->local_size;
    t->world = b->local_ranks;
    t->blocked = -1;
    t->fenced = !ctx->asym_fence;
    t->dedicated_after = ctx->shm.dedicated_after;
    t->spin = ctx->shm.spin;
    t->demote_max = ctx->shm.demote_max;
    t->own_next_lines = ctx->shm.own_next_lines;
    t->yields = ctx->shm.yields;
    uint64_t lines = skf_shm_ring_bytes(ctx, ch->port, t->nlocal) / SHM_LINE;
    int ndedicated = ctx->shm.dedicated_max < t->nlocal - 1 ? ctx->shm.dedicated_max : t->nlocal - 1;
    /* Bulk rings on the MPI port only (its streamed rendezvous is their one
     * user), for few ranks (nlocal^2 rings; pages only for pairs that use
     * them) and while the ready bitmap has a bit for each. */
    uint64_t bulk = ch->port == SKF_PORT_MPI && t->nlocal > 1 &&
                            t->nlocal <= ctx->shm.bulk_ranks && 1 + ndedicated + t->nlocal <= 64
                        ? ctx->shm.bulk_bytes / SHM_LINE
                        : 0;
    if (ch->port == SKF_PORT_INTERNAL) { /* control traffic: one small shared ring */
        lines = 1024;
        ndedicated = 0;
    } else if (t->me == 0 && !ctx->shm.ring_bytes_set) /* only the creator's layout counts */
        lines = fit_rings(ctx, t->nlocal, ndedicated, lines, &bulk);
    layout(&want, t->nlocal, ndedicated, lines, bulk);
    rc = shm_seg_attach(ctx, ch->port, want.total, copy_hdr, &want, &t->seg);
    if (!rc) {
        t->hdr = t->seg.obj.base;
        rc = setup_local(t);
    }
    int crc = shm_seg_commit(&t->seg);
    if (!rc)
        rc = crc;
    if (rc) {
        free_tp(t);
        return rc;
    }
    for (int r = 0; r < ch->size; r++)
        peer_id[r] = ctx->local_of_rank[r];
    skf_verbose(ctx, "rank %d: port %u: shm segment %zu bytes, %d local ranks, %d dedicated "
                "rings of %llu bytes + 1 shared per receiver, %d bulk rings of %llu bytes; in %s",
                ctx->rank, ch->port, t->seg.obj.size, t->nlocal, (int)t->hdr->ndedicated,
                (unsigned long long)(t->hdr->ring_lines * SHM_LINE), t->nbulk,
                (unsigned long long)(t->hdr->bulk_lines * SHM_LINE),
                t->seg.obj.name[0] == '@' ? "a memfd" : "/dev/shm");
    *tpp = t;
    return 0;
}

static int shm_chan_close(void *tpv)
{
    struct shm_tp *t = tpv;
    atomic_store_explicit(&t->members[t->me].state, SHM_MEMBER_CLOSED, memory_order_release);
    free_tp(t);
    return 0;
}

/* Ring bytes on port for a node of nlocal ranks.  Unless SKIFF_SHM_RING_SIZE
 * is given, MPI traffic on a node of few ranks gets rings of twice the L2
 * (few_ring_bytes): a sender then writes lines that have long left the
 * receiver's private cache (fetched from the shared L3, not taken from the
 * other core), and mid-size messages move 2-3x faster (docs/shm-transport.md,
 * "Ring size").  Many ranks keep the small default: rings are per pair. */
uint64_t skf_shm_ring_bytes(const skf_ctx_t *ctx, unsigned port, int nlocal)
{
    if (!ctx->shm.ring_bytes_set && port == SKF_PORT_MPI && nlocal > 1 &&
        nlocal <= SKF_SHM_RING_FEW_RANKS)
        return ctx->shm.few_ring_bytes;
    return ctx->shm.ring_bytes;
}

uint64_t skf_shm_bulk_bytes(const skf_ctx_t *ctx)
{
    return ctx->shm.bulk_bytes;
}

size_t skf_shm_segment_bytes(int nlocal, int ndedicated, uint64_t ring_bytes)
{
    struct shm_seg_hdr h;
    layout(&h, nlocal, ndedicated, ring_bytes / SHM_LINE, 0);
    return h.total;
}

const struct skf_transport_ops skf_shm_ops = {
    .name = "shm",
    .chan_open = shm_chan_open,
    .chan_close = shm_chan_close,
    .max_msg = shm_max_msg,
    .send = shm_send,
    .send_pack = shm_send_pack,
    .send_bulk = shm_send_bulk,
    .bulk_max = shm_bulk_max,
    .recv = shm_recv,
    .recv_done = shm_recv_done,
    .ready = shm_ready,
    .wait = shm_wait,
    .kick = shm_kick,
    .lost_peer = shm_lost_peer,
};
