/*
 * chan — channels (ports): collective open/close, and the data-path entry
 * points, each one argument check plus one call through the peer's transport.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/core.h"

#define unlikely(x) __builtin_expect(!!(x), 0)
#define COLD __attribute__((noinline, cold))
/* Does this channel serve the one-sided fallback (mr.c) now? */
#define SERVES_FB(ch) unlikely((ch)->serve_fb && (ch)->ctx->fb_serve)

/* ... and should this data-path call do it?  For exposures alone (node
 * mates' atomics) every ctx->fb_every-th call: polling the internal port in
 * every call cost 58 of an 8-byte ping-pong's 354 ns (skf_chan_bench
 * pingpong --expose). */
static inline int serve_fb_now(skf_chan_t *ch)
{
    skf_ctx_t *ctx = ch->ctx;
    if (!SERVES_FB(ch) || ++ctx->fb_tick < ctx->fb_every)
        return 0;
    ctx->fb_tick = 0;
    return 1;
}

static void unlink_open(skf_ctx_t *ctx, skf_chan_t *ch)
{
    for (skf_chan_t **p = &ctx->open_chans; *p; p = &(*p)->next_open)
        if (*p == ch) {
            *p = ch->next_open;
            return;
        }
}

/* Transports in order of preference: each claims the peers it reaches that
 * no earlier one claimed (shm: my node; tcp or ofi: the rest). */
static const struct skf_transport_ops *const transports[] = {&skf_shm_ops, &skf_tcp_ops,
#ifdef SKIFF_HAVE_OFI
                                                             &skf_ofi_ops,
#endif
};
#define NTRANSPORTS ((int)(sizeof transports / sizeof transports[0]))
#define FAIR_STREAK 64 /* with several transports, ask the other one first after this many */
#define OTHERS_EVERY_MS 100 /* skf_wait polling a polled transport: the others' waits this often */

int skf_tcp_for_all(void) { return strcmp(skf_param_str("SKIFF_TRANSPORTS"), "tcp") == 0; }

/* SKIFF_TRANSPORTS: auto = shm,tcp (shm on my node, tcp between nodes),
 * shm,ofi (libfabric between nodes), tcp / ofi (that one for every peer of
 * user/MPI ports: testing), shm (this node only).  The internal port always
 * keeps shm: it carries only same-node fallback traffic.  Every rank decides
 * alike, so the collective opens match. */
static int transport_used(const skf_ctx_t *ctx, uint16_t port, const struct skf_transport_ops *t)
{
    const char *want = skf_param_str("SKIFF_TRANSPORTS");
    int all_tcp = strcmp(want, "tcp") == 0, all_ofi = strcmp(want, "ofi") == 0;
    int net = port != SKF_PORT_INTERNAL && strcmp(want, "shm") != 0;
    if (t == &skf_shm_ops)
        return port == SKF_PORT_INTERNAL || !(all_tcp || all_ofi);
    int ofi_wanted = all_ofi || strcmp(want, "shm,ofi") == 0;
    if (t == &skf_tcp_ops)
        return net && !ofi_wanted && (all_tcp || ctx->boot->num_nodes > 1);
    return net && ofi_wanted && (all_ofi || ctx->boot->num_nodes > 1); /* ofi */
}

static void close_transports(skf_chan_t *ch)
{
    for (int i = 0; i < ch->ntp; i++)
        ch->tops[i]->chan_close(ch->tp[i]);
    ch->ntp = 0;
}

int skf_chan_open_port(skf_ctx_t *ctx, uint16_t port, skf_chan_t **chp)
{
    skf_chan_t *ch = calloc(1, sizeof *ch);
    int *ids = malloc((size_t)ctx->size * sizeof(int));
    int rc = -ENOMEM;
    if (ch)
        ch->peer = calloc((size_t)ctx->size, sizeof *ch->peer);
    if (!ch || !ids || !ch->peer)
        goto fail;
    ch->ctx = ctx;
    ch->port = port;
    ch->size = ctx->size;
    ch->out_tp = -1;
    ch->blocked_tp = -1;
    ch->serve_fb = port != SKF_PORT_INTERNAL && ctx->boot->local_size > 1;
    rc = 0;
#ifndef SKIFF_HAVE_OFI
    if (port != SKF_PORT_INTERNAL && strstr(skf_param_str("SKIFF_TRANSPORTS"), "ofi")) {
        skf_error("skf_chan_open: SKIFF_TRANSPORTS=%s, but this Skiff was built without "
                  "libfabric (the ofi transport; docs/ofi.md)", skf_param_str("SKIFF_TRANSPORTS"));
        rc = -ENOTSUP;
    }
#endif
    for (int k = 0; k < NTRANSPORTS && !rc; k++) {
        void *tp;
        if (!transport_used(ctx, port, transports[k]))
            continue;
        for (int r = 0; r < ctx->size; r++)
            ids[r] = -1;
        rc = transports[k]->chan_open(ch, ids, &tp);
        if (rc)
            break;
        ch->tops[ch->ntp] = transports[k];
        ch->tp[ch->ntp] = tp;
        for (int r = 0; r < ctx->size; r++)
            if (ids[r] >= 0 && !ch->peer[r].ops)
                ch->peer[r] = (struct skf_peer){transports[k], tp, ids[r]};
        ch->ntp++;
    }
    /* Every rank runs the same collective opens in the same order, so this
     * counter names the same segment everywhere. */
    ctx->chan_opens++;
    if (rc) {
        close_transports(ch);
        goto fail;
    }
    free(ids);
    if (port != SKF_PORT_INTERNAL) {
        ch->next_open = ctx->open_chans;
        ctx->open_chans = ch;
    }
    *chp = ch;
    return 0;
fail:
    free(ids);
    if (ch)
        free(ch->peer);
    free(ch);
    return rc;
}

int skf_chan_open(skf_ctx_t *ctx, uint16_t port, skf_chan_t **chp)
{
    if (!ctx || !chp) {
        skf_error("skf_chan_open: %s is NULL", ctx ? "the channel pointer" : "ctx");
        return -EINVAL;
    }
    *chp = NULL;
    if (port == SKF_PORT_INTERNAL) {
        skf_error("skf_chan_open: port %u is Skiff's internal port (opened by skf_init)", port);
        return -EINVAL;
    }
    for (skf_chan_t *c = ctx->open_chans; c; c = c->next_open)
        if (c->port == port) {
            skf_error("skf_chan_open: port %u is already open", port);
            return -EBUSY;
        }
    return skf_chan_open_port(ctx, port, chp);
}

int skf_chan_close(skf_chan_t *ch)
{
    if (!ch) {
        skf_error("skf_chan_close: channel is NULL");
        return -EINVAL;
    }
    skf_ctx_t *ctx = ch->ctx;
    close_transports(ch);
    unlink_open(ctx, ch);
    free(ch->stage);
    free(ch->peer);
    free(ch);
    return boot_fence(); /* collective: nobody leaves while others still close */
}

skf_ctx_t *skf_chan_ctx(const skf_chan_t *ch) { return ch ? ch->ctx : NULL; }

static COLD int bad_addr(const skf_chan_t *ch, const char *call, skf_addr_t a)
{
    skf_error("%s: invalid address (rank %d, port %u) on port %u of a job of size %d", call,
              skf_addr_rank(a), skf_addr_port(a), ch->port, ch->size);
    return -EINVAL;
}

/* The peer that address a names on ch, or NULL (no channel, another
 * channel's port, past the ranks, no transport reaches it). */
static const struct skf_peer *peer_at(const skf_chan_t *ch, skf_addr_t a)
{
    uint64_t rank = a >> 16;
    if (!ch || rank >= (uint64_t)ch->size || (uint16_t)a != ch->port || !ch->peer[rank].ops)
        return NULL;
    return &ch->peer[rank];
}

size_t skf_max_msg(const skf_chan_t *ch, skf_addr_t dst)
{
    const struct skf_peer *p = peer_at(ch, dst);
    return p ? p->ops->max_msg(p->tp, p->id) : 0;
}

static COLD ssize_t bad_send(const char *call, const skf_chan_t *ch, skf_addr_t dst,
                             const struct iovec *iov, int iovcnt, int max_iov)
{
    if (!ch) {
        skf_error("%s: channel is NULL", call);
        return -EINVAL;
    }
    uint64_t rank = dst >> 16;
    if (rank >= (uint64_t)ch->size || (uint16_t)dst != ch->port)
        return bad_addr(ch, call, dst);
    if (iovcnt < 0 || iovcnt > max_iov || (iovcnt && !iov)) {
        skf_error("%s: invalid iovec (iov %p, iovcnt %d; 0..%d entries)", call, (const void *)iov,
                  iovcnt, max_iov);
        return -EINVAL;
    }
    skf_error("%s: no transport reaches rank %d from rank %d", call, (int)rank, ch->ctx->rank);
    return -EHOSTUNREACH;
}

/* skf_send and skf_send_bulk: the same checks and bookkeeping, bulk only
 * choosing the transport's bulk ring where it has one (a constant: inlined). */
static inline ssize_t send_to(skf_chan_t *ch, skf_addr_t dst, const struct iovec *iov,
                              int iovcnt, int bulk)
{
    uint64_t rank = dst >> 16;
    if (unlikely(!ch || rank >= (uint64_t)ch->size || (uint16_t)dst != ch->port ||
                 (unsigned)iovcnt > IOV_MAX || (!iov && iovcnt) || !ch->peer[rank].ops))
        return bad_send(bulk ? "skf_send_bulk" : "skf_send", ch, dst, iov, iovcnt, IOV_MAX);
    if (serve_fb_now(ch))
        skf_fallback_progress(ch->ctx);
    const struct skf_peer *p = &ch->peer[rank];
    ssize_t n = bulk && p->ops->send_bulk ? p->ops->send_bulk(p->tp, p->id, iov, iovcnt)
                                          : p->ops->send(p->tp, p->id, iov, iovcnt);
    if (unlikely(n == -EAGAIN))
        ch->blocked_tp = p->ops == ch->tops[0] ? 0 : 1;
    return n;
}

ssize_t skf_send(skf_chan_t *ch, skf_addr_t dst, const struct iovec *iov, int iovcnt)
{
    return send_to(ch, dst, iov, iovcnt, 0);
}

size_t skf_bulk_max(const skf_chan_t *ch, skf_addr_t dst)
{
    const struct skf_peer *p = peer_at(ch, dst);
    return p && p->ops->bulk_max ? p->ops->bulk_max(p->tp, p->id) : 0;
}

ssize_t skf_send_bulk(skf_chan_t *ch, skf_addr_t dst, const struct iovec *iov, int iovcnt)
{
    return send_to(ch, dst, iov, iovcnt, 1);
}

/* ---- direct payloads (the transport's send_direct / recv_direct) ---- */

static const struct skf_peer *direct_peer(const skf_chan_t *ch, skf_addr_t a)
{
    const struct skf_peer *p = peer_at(ch, a);
    return p && p->ops->send_direct ? p : NULL;
}

int skf_direct_ok(const skf_chan_t *ch, skf_addr_t dst)
{
    return direct_peer(ch, dst) != NULL;
}

/* skf_send_direct / skf_recv_direct: the same checks, then the transport. */
static int direct_op(skf_chan_t *ch, skf_addr_t peer, int send, uint64_t id, void *buf,
                     size_t len, skf_get_op_t *op)
{
    const struct skf_peer *p = direct_peer(ch, peer);
    if (!op || (!buf && len))
        return -EINVAL;
    if (!p)
        return -EOPNOTSUPP;
    *op = (skf_get_op_t){.async = 1};
    int rc = send ? p->ops->send_direct(p->tp, p->id, id, buf, len, op)
                  : p->ops->recv_direct(p->tp, p->id, id, buf, len, op);
    if (rc == -EAGAIN)
        op->state = SKF_GET_OP_IDLE;
    return rc;
}

int skf_send_direct(skf_chan_t *ch, skf_addr_t dst, uint64_t id, const void *buf, size_t len,
                    skf_get_op_t *op)
{
    return direct_op(ch, dst, 1, id, (void *)buf, len, op);
}

int skf_recv_direct(skf_chan_t *ch, skf_addr_t src, uint64_t id, void *buf, size_t len,
                    skf_get_op_t *op)
{
    return direct_op(ch, src, 0, id, buf, len, op);
}

/* A transport without send_pack: the generated bytes go through the
 * channel's staging buffer (grown to the largest message asked, kept). */
static ssize_t send_staged(skf_chan_t *ch, const struct skf_peer *p, const struct iovec *iov,
                           int iovcnt, size_t len, skf_pack_fn pack, void *arg)
{
    size_t head = 0, max = p->ops->max_msg(p->tp, p->id);
    for (int i = 0; i < iovcnt; i++)
        head += iov[i].iov_len;
    size_t n = head < max && max - head < len ? max - head : len; /* never more than one send takes */
    if (n > ch->stage_cap) {
        void *b = realloc(ch->stage, n);
        if (!b) {
            skf_error("skf_send_pack: no memory for a %zu-byte staging buffer (rank %d)", n,
                      ch->ctx->rank);
            return -ENOMEM;
        }
        ch->stage = b;
        ch->stage_cap = n;
    }
    if (n)
        pack(arg, 0, ch->stage, n);
    struct iovec v[IOV_MAX];
    memcpy(v, iov, (size_t)iovcnt * sizeof *v);
    v[iovcnt] = (struct iovec){ch->stage, n};
    return p->ops->send(p->tp, p->id, v, iovcnt + 1);
}

ssize_t skf_send_pack(skf_chan_t *ch, skf_addr_t dst, const struct iovec *iov, int iovcnt,
                      size_t len, skf_pack_fn pack, void *arg)
{
    uint64_t rank = dst >> 16;
    if (unlikely(!ch || rank >= (uint64_t)ch->size || (uint16_t)dst != ch->port ||
                 (unsigned)iovcnt >= IOV_MAX || (!iov && iovcnt) || !ch->peer[rank].ops))
        return bad_send("skf_send_pack", ch, dst, iov, iovcnt, IOV_MAX - 1);
    if (unlikely(!pack && len)) {
        skf_error("skf_send_pack: %zu bytes to generate but no pack function (rank %d)", len,
                  ch->ctx->rank);
        return -EINVAL;
    }
    if (serve_fb_now(ch))
        skf_fallback_progress(ch->ctx);
    const struct skf_peer *p = &ch->peer[rank];
    ssize_t n = p->ops->send_pack ? p->ops->send_pack(p->tp, p->id, iov, iovcnt, len, pack, arg)
                                  : send_staged(ch, p, iov, iovcnt, len, pack, arg);
    if (unlikely(n == -EAGAIN))
        ch->blocked_tp = p->ops == ch->tops[0] ? 0 : 1;
    return n;
}

static COLD ssize_t bad_recv(const skf_chan_t *ch, const struct iovec *cont, const int *ncont)
{
    if (ch && ch->out_tp >= 0)
        skf_error("skf_recv: port %u: the previous message was not released by skf_recv_done",
                  ch->port);
    else
        skf_error("skf_recv: %s is NULL", !ch ? "channel" : !cont ? "cont" : !ncont ? "ncont" : "?");
    return -EINVAL;
}

static COLD int bad_recv_done(const skf_chan_t *ch)
{
    skf_error("skf_recv_done: %s", ch ? "no message is held (call skf_recv first)"
                                      : "channel is NULL");
    return -EINVAL;
}

/* The transport asked first had nothing: one look at each other one (one
 * look per transport, never per peer). */
static COLD ssize_t recv_others(skf_chan_t *ch, struct iovec *cont, int *ncont, skf_addr_t *src)
{
    for (int k = 1; k < ch->ntp; k++) {
        int i = (ch->last_tp + k) % ch->ntp;
        ssize_t n = ch->tops[i]->recv(ch->tp[i], cont, ncont, &ch->src_rank);
        if (n != -EAGAIN) {
            if (n >= 0) {
                ch->out_tp = ch->last_tp = ch->woke_tp = i;
                ch->streak = 0;
                if (src)
                    *src = ((skf_addr_t)(uint32_t)ch->src_rank << 16) | ch->port;
            }
            return n;
        }
    }
    return -EAGAIN;
}

ssize_t skf_recv(skf_chan_t *ch, struct iovec cont[SKF_CONT_SIZE], int *ncont, skf_addr_t *src)
{
    if (unlikely(!ch || !cont || !ncont || ch->out_tp >= 0))
        return bad_recv(ch, cont, ncont);
    if (serve_fb_now(ch))
        skf_fallback_progress(ch->ctx);
    int i = ch->last_tp;
    ssize_t n = ch->tops[i]->recv(ch->tp[i], cont, ncont, &ch->src_rank);
    if (unlikely(n < 0))
        return n == -EAGAIN && ch->ntp > 1 ? recv_others(ch, cont, ncont, src) : n;
    ch->out_tp = ch->woke_tp = i;
    if (src)
        *src = ((skf_addr_t)(uint32_t)ch->src_rank << 16) | ch->port;
    if (unlikely(ch->ntp > 1) && ++ch->streak >= FAIR_STREAK) { /* let the other one go first */
        ch->streak = 0;
        ch->last_tp = i ? 0 : 1;
    }
    return n;
}

int skf_recv_done(skf_chan_t *ch)
{
    if (unlikely(!ch || ch->out_tp < 0))
        return bad_recv_done(ch);
    ch->tops[ch->out_tp]->recv_done(ch->tp[ch->out_tp]);
    ch->out_tp = -1;
    return 0;
}

int skf_chan_lost(skf_chan_t *ch, char *desc, size_t cap)
{
    if (!ch || (!desc && cap)) {
        skf_error("skf_chan_lost: invalid arguments (channel %p, desc %p, cap %zu)", (const void *)ch,
                  (const void *)desc, cap);
        return -EINVAL;
    }
    char none[1];
    if (!cap) { /* the rank alone */
        desc = none;
        cap = sizeof none;
    }
    desc[0] = '\0';
    for (int i = 0; i < ch->ntp; i++) {
        int r = ch->tops[i]->lost_peer ? ch->tops[i]->lost_peer(ch->tp[i], desc, cap) : -1;
        if (r >= 0)
            return r;
    }
    return -1;
}

void skf_kick(skf_chan_t *ch)
{
    if (!ch)
        return;
    __atomic_store_n(&ch->kicked, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < ch->ntp; i++)
        if (ch->tops[i]->kick)
            ch->tops[i]->kick(ch->tp[i]);
}

int skf_wait(skf_chan_t *ch, int events, int timeout_ms)
{
    if (!ch || events <= 0 || (events & ~(SKF_READABLE | SKF_WRITABLE | SKF_GET_DONE)) ||
        timeout_ms < -1) {
        skf_error("skf_wait: invalid arguments (channel %p, events %d, timeout %d ms)",
                  (const void *)ch, events, timeout_ms);
        return -EINVAL;
    }
    skf_ctx_t *ctx = ch->ctx;
    if (ch->ntp == 1 && !SERVES_FB(ch))
        return ch->tops[0]->wait(ch->tp[0], events, timeout_ms);
    if (ch->ntp == 1 && ctx->fb_every > 1) {
        /* Memory exposed (node mates' atomics to serve): the transport's own
         * wait, in 1 ms slices with the requests served between them; the
         * generic loop below cost an 8-byte ping-pong 26 ns more. */
        for (int waited = 0;; waited++) {
            int slice = timeout_ms >= 0 && timeout_ms - waited < 1 ? timeout_ms - waited : 1;
            int r = ch->tops[0]->wait(ch->tp[0], events, slice);
            if (r != 0)
                return r;
            skf_fallback_progress(ctx);
            if (timeout_ms >= 0 && waited + slice >= timeout_ms)
                return 0;
        }
    }
    /* Several transports, or one-sided requests to serve.  WRITABLE is asked
     * only of the transport whose send said -EAGAIN.  Poll them all
     * (SKIFF_SPIN rounds), then sleep in 1 ms slices in the own sleep of one
     * transport (shm's futex doorbell, tcp's epoll): the one a blocked send
     * waits for, else the one whose started gets (or direct payloads) are
     * awaited (GET_DONE: only a transport with rma_start reports it), else
     * the one that delivered last (it keeps serving its traffic, e.g. tcp
     * answering gets, at full speed); the others are looked at between
     * slices, so their messages wait at most one slice.  Not last_tp: after
     * a streak of 64 tcp messages (a window of RTSs) it names shm, and the
     * payloads that followed were read only between 1 ms futex slices. */
    if ((events & SKF_WRITABLE) && ch->blocked_tp < 0)
        return SKF_WRITABLE;
    int turn = ch->woke_tp;
    if (events & SKF_WRITABLE)
        turn = ch->blocked_tp;
    else if (events & SKF_GET_DONE)
        for (int i = 0; i < ch->ntp; i++)
            if (ch->tops[i]->rma_start) {
                turn = i;
                break;
            }
    /* A transport that moves data only while polled (ofi over a provider
     * with manual progress): with a core of my own, poll every transport
     * until something is ready instead of sleeping in one of them (a 1 ms
     * sleep in shm's doorbell stalled a peer's fi_read of my memory, and
     * the polled transport's own wait would leave shm unread for 1 ms).
     * skf_kick ends it through ch->kicked. */
    int keep_polling = -1;
    for (int i = 0; i < ch->ntp && !ctx->oversubscribed; i++)
        if (ch->tops[i]->polled)
            keep_polling = i;
    long long poll_start = 0, others_at = OTHERS_EVERY_MS;
    /* Several transports means tcp among them: its polls are system calls,
     * and SKIFF_SPIN of them would spin for milliseconds.  The polling phase
     * also ends after SKIFF_TCP_SPIN_US (clock read from the 16th poll on;
     * why: tcp.c, spin_ready). */
    long spin = ctx->shm.spin;
    long long spin_until = 0;
    unsigned long moved = ctx->io_moved;
    for (long polls = 0, waited = 0;; polls++) {
        if (ctx->io_moved != moved) { /* a transfer is streaming in: poll on */
            moved = ctx->io_moved;
            spin_until = 0;
            spin = polls + ctx->shm.spin;
        }
        if (polls < spin && (polls & 15) == 15 && ch->ntp > 1 && ctx->shm.tcp_spin_ns > 0 &&
            skf_spin_over(&spin_until, ctx->shm.tcp_spin_ns))
            spin = polls;
        if (polls < spin || keep_polling >= 0 ? serve_fb_now(ch) : SERVES_FB(ch)) /* each slice once asleep */
            skf_fallback_progress(ctx);
        for (int i = 0; i < ch->ntp; i++) {
            int ev = events & (SKF_READABLE | SKF_GET_DONE | (i == ch->blocked_tp ? SKF_WRITABLE : 0));
            int r = ev ? ch->tops[i]->ready(ch->tp[i], ev) : 0;
            if (r) {
                if (r & SKF_WRITABLE)
                    ch->blocked_tp = -1;
                return r;
            }
        }
        if (polls < spin)
            continue;
        if (timeout_ms >= 0 && waited >= timeout_ms)
            return 0;
        if (keep_polling >= 0) {
            if (__atomic_exchange_n(&ch->kicked, 0, __ATOMIC_ACQ_REL))
                return 0;
            if ((polls & 15) == 0) {
                if (ch->tops[keep_polling]->lost_peer(ch->tp[keep_polling], NULL, 0) >= 0)
                    return -EPIPE;
                long long now = skf_now_ms();
                if (!poll_start)
                    poll_start = now;
                waited = now - poll_start;
            }
            if (waited < others_at)
                continue;
            /* now and then one slice in the other transports' own waits: shm
             * notices a node mate that died only there */
            others_at = waited + OTHERS_EVERY_MS;
            for (int i = 0; i < ch->ntp; i++) {
                int ev = i == keep_polling ? 0 : events & (SKF_READABLE | SKF_GET_DONE |
                                                           (i == ch->blocked_tp ? SKF_WRITABLE : 0));
                int r = ev ? ch->tops[i]->wait(ch->tp[i], ev, 1) : 0;
                if (r != 0) {
                    if (r > 0 && (r & SKF_WRITABLE))
                        ch->blocked_tp = -1;
                    return r;
                }
            }
            continue;
        }
        int ev = events & (SKF_READABLE | SKF_GET_DONE | (turn == ch->blocked_tp ? SKF_WRITABLE : 0));
        int r = ev ? ch->tops[turn]->wait(ch->tp[turn], ev, 1) : 0;
        if (r != 0) {
            if (r > 0 && (r & SKF_WRITABLE))
                ch->blocked_tp = -1;
            return r;
        }
        /* A peer of another transport died while this one slept: as that
         * transport's own wait would, fail the wait (a rank waiting for a
         * node mate never learnt that its tcp peer was cut off, and the job
         * hung: tests/mpi/fault_quiet_link.c). */
        if (events & SKF_READABLE)
            for (int i = 0; i < ch->ntp; i++)
                if (i != turn && ch->tops[i]->peer_died && ch->tops[i]->peer_died(ch->tp[i]))
                    return -EPIPE;
        waited++;
    }
}
