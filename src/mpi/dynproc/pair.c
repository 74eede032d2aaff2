/*
 * pair.c — the shared-memory ring between two processes of different jobs
 * (pair.h).  The ring itself is the shm transport's (ring.h: single-producer
 * reserve, fill, publish by meta word, pieces, release).
 */
#include "dynproc/pair.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define PAIR_MAGIC 0x736b6966667061ULL /* "skiffpa" */

/* Each flag has its own line: who writes it differs. */
struct pair_hdr {
    _Alignas(SHM_LINE) uint64_t magic;
    uint64_t lines;            /* ring lines (power of two) */
    _Atomic uint32_t attached; /* the receiver mapped the region */
    _Atomic uint64_t gate;     /* messages sent over TCP before the ring (written once) */
    _Alignas(SHM_LINE) _Atomic uint32_t rx_sleep; /* the receiver is going to sleep */
    _Alignas(SHM_LINE) _Atomic uint32_t tx_wait;  /* the sender waits for room */
};

static size_t region_size(uint64_t lines)
{
    return sizeof(struct pair_hdr) + SHM_RING_CTL_SIZE + (size_t)lines * SHM_LINE;
}

static void view(pair_t *p, void *base, uint64_t lines)
{
    p->base = base;
    p->h = base;
    p->size = region_size(lines);
    shm_ring_view(&p->ring, (char *)base + sizeof(struct pair_hdr), lines,
                  lines * SHM_LINE / 4);
    p->pos = p->head_cache = p->stale_until = 0;
}

int pair_offer(pair_t *p, skf_ctx_t *ctx, size_t ring_bytes, char *why, size_t cap)
{
    if (strcmp(skf_node_shm_where(), "memory") != 0) {
        /* a named /dev/shm object would outlive a kill between creation and unlink */
        snprintf(why, cap, "shared-memory objects live in %s here (SKIFF_SHM_OBJECTS), "
                 "the pair ring takes memfd only", skf_node_shm_where());
        return -ENOTSUP;
    }
    uint64_t lines = ring_bytes / SHM_LINE;
    void *base;
    int rc = skf_node_shm_try_create(ctx, region_size(lines), p->name, &base);
    if (rc) {
        snprintf(why, cap, "cannot create a %zu-byte ring: %s", region_size(lines), strerror(-rc));
        return rc;
    }
    view(p, base, lines);
    p->h->lines = lines;
    p->h->magic = PAIR_MAGIC;
    p->state = PAIR_OFFERED;
    return 0;
}

int pair_accept(pair_t *p, const char *name, uint64_t lines, char *why, size_t cap)
{
    void *base;
    int rc;
    if (!lines || (lines & (lines - 1)) || lines > ((uint64_t)1 << 26)) {
        snprintf(why, cap, "the offered ring of %llu lines is malformed", (unsigned long long)lines);
        return -EPROTO;
    }
    /* quiet: a creator that already left is normal; the caller stays on TCP
     * and says why under SKIFF_VERBOSE */
    if ((rc = skf_node_shm_try_attach(name, region_size(lines), &base))) {
        snprintf(why, cap, "cannot map the ring '%s': %s", name, strerror(-rc));
        return rc;
    }
    if (((struct pair_hdr *)base)->magic != PAIR_MAGIC ||
        ((struct pair_hdr *)base)->lines != lines) {
        skf_node_shm_detach(base, region_size(lines));
        snprintf(why, cap, "the region '%s' is not a pair ring", name);
        return -EPROTO;
    }
    view(p, base, lines);
    p->state = PAIR_LIVE;
    atomic_store_explicit(&p->h->attached, 1, memory_order_release);
    return 0;
}

int pair_live(pair_t *p, uint64_t tcp_sent)
{
    if (!atomic_load_explicit(&p->h->attached, memory_order_acquire))
        return 0;
    skf_node_shm_unlink(p->name); /* from now on only the two mappings hold it */
    atomic_store_explicit(&p->h->gate, tcp_sent, memory_order_relaxed); /* before any publish */
    p->state = PAIR_LIVE;
    return 1;
}

ssize_t pair_send(pair_t *p, const struct iovec *iov, int iovcnt, int *kick)
{
    uint64_t want = 0;
    for (int i = 0; i < iovcnt; i++)
        want += iov[i].iov_len;
    int64_t take = shm_reserve_sp(&p->ring, p->pos, &p->head_cache, want);
    if (take < 0) {
        /* ask for a kick, then look once more (the receiver's mirror image:
         * store head, then load tx_wait, both seq_cst) */
        atomic_store_explicit(&p->h->tx_wait, 1, memory_order_seq_cst);
        p->head_cache = atomic_load_explicit(&p->ring.ctl->head, memory_order_seq_cst);
        take = shm_reserve_sp(&p->ring, p->pos, &p->head_cache, want);
        if (take < 0) {
            p->full = 1;
            return -EAGAIN;
        }
    }
    p->full = 0;
    uint64_t pos = p->pos;
    shm_fill(&p->ring, pos, iov, iovcnt, (uint64_t)take, NULL);
    shm_own_pad(&p->ring, pos, (uint64_t)take);
    p->pos += shm_lines_for((uint64_t)take);
    shm_prepare_next_sp(&p->ring, (uint64_t)take, p->pos, &p->head_cache, &p->stale_until);
    /* publish, then look whether the receiver sleeps (seq_cst both: it sets
     * its flag and then looks at the ring) */
    atomic_store_explicit(shm_ring_word(&p->ring, pos), shm_meta(0, (uint64_t)take),
                          memory_order_seq_cst);
    *kick = atomic_load_explicit(&p->h->rx_sleep, memory_order_seq_cst) &&
            atomic_exchange_explicit(&p->h->rx_sleep, 0, memory_order_seq_cst);
    return (ssize_t)take;
}

int pair_room(const pair_t *p)
{
    return atomic_load_explicit(&p->ring.ctl->head, memory_order_acquire) != p->head_cache;
}

ssize_t pair_recv(pair_t *p, uint64_t tcp_recvd, struct iovec *cont, int *ncont)
{
    uint64_t meta = atomic_load_explicit(shm_ring_word(&p->ring, p->pos), memory_order_acquire);
    if (!meta || tcp_recvd < atomic_load_explicit(&p->h->gate, memory_order_relaxed))
        return -1;
    p->cur_len = shm_meta_len(meta);
    *ncont = shm_pieces(&p->ring, p->pos, p->cur_len, cont);
    return p->cur_len;
}

int pair_pending(const pair_t *p)
{
    return atomic_load_explicit(shm_ring_word(&p->ring, p->pos), memory_order_acquire) != 0;
}

int pair_recv_done(pair_t *p)
{
    shm_release(&p->ring, p->pos, p->cur_len, 0);
    p->pos += shm_lines_for(p->cur_len);
    atomic_store_explicit(&p->ring.ctl->head, p->pos, memory_order_seq_cst);
    return atomic_load_explicit(&p->h->tx_wait, memory_order_seq_cst) &&
           atomic_exchange_explicit(&p->h->tx_wait, 0, memory_order_seq_cst);
}

int pair_sleep(pair_t *p, int on)
{
    atomic_store_explicit(&p->h->rx_sleep, (uint32_t)on, memory_order_seq_cst);
    return on && atomic_load_explicit(shm_ring_word(&p->ring, p->pos), memory_order_seq_cst) != 0;
}

void pair_close(pair_t *p)
{
    if (p->state == PAIR_NONE)
        return;
    if (p->state == PAIR_OFFERED)
        skf_node_shm_unlink(p->name);
    skf_node_shm_detach(p->base, p->size);
    memset(p, 0, sizeof *p);
}
