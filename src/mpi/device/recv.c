/*
 * recv.c — the receive side: what happens when a message arrives, how a
 * receive meets its message, and the blocking-receive fast path.
 *
 * An arriving envelope first looks for a posted receive (match.c).  Found:
 * the payload is copied from the ring straight into the user's buffer.  Not
 * found: it becomes an unexpected request holding a copy (inline for short
 * messages, malloc'd for eager ones, nothing but the key for rendezvous) — the
 * buffering that keeps any sender from blocking a receiver forever.  A later
 * receive adopts that request as its own (mpid_recv_attach).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "core/copy.h"
#include "datatype/dtype.h"
#include "device/device.h"
#include "dynproc/bridge.h"

void mpid_copy_out(void *dst, const struct iovec *cont, int ncont, size_t off, size_t len)
{
    char *d = dst;
    for (int i = 0; i < ncont && len; i++) {
        size_t n = cont[i].iov_len;
        if (off >= n) {
            off -= n;
            continue;
        }
        size_t k = n - off < len ? n - off : len;
        skf_copy(d, (char *)cont[i].iov_base + off, k);
        d += k;
        len -= k;
        off = 0;
    }
}

static void recv_complete(mpid_req_t *r)
{
    if (r->msg_len > r->cap)
        r->st_error = MPI_ERR_TRUNCATE;
    req_complete(r);
}

/* Bytes [at, at+n) of r's message are in the pieces at offset off: store them. */
static void deliver(mpid_req_t *r, const struct iovec *cont, int ncont, size_t off, size_t at,
                    size_t n)
{
    if (r->attached) {
        size_t m = n < r->cap - at ? n : r->cap - at;
        if (at < r->cap && !(unlikely(r->dtp != NULL) && mpir_dt_deliver(r, cont, ncont, off, at, m)))
            mpid_copy_out((char *)r->buf + at, cont, ncont, off, m);
    } else {
        mpid_copy_out(r->tmp + at, cont, ncont, off, n);
    }
    r->got = at + n;
}

/* Split rendezvous (n >= SKIFF_MPI_RNDV_SPLIT, contiguous receive, another
 * process on my node): expose the second half of my buffer and tell the
 * sender (W_CTS); it process_vm_writev's that half while I read the first.
 * My W_FIN follows the CTS on the same channel, so the sender has finished
 * its put before it sees FIN and lets its buffer go; my receive completes on
 * its W_PUTDONE.  Both cores copy: the sender is waiting in MPI anyway. */
static int rndv_split(mpid_req_t *r, size_t n)
{
    size_t split = (n / 2 + 4095) & ~(size_t)4095;
    int rc = skf_mr_expose(mpid.ctx, (char *)r->buf + split, n - split, &r->rkey);
    if (rc < 0)
        return 0; /* pull it all myself */
    mpid_send_cts(r->world, r->sreq, (uint64_t)(uintptr_t)r, split, &r->rkey);
    rc = skf_get(mpid.ch, &r->key, 0, r->buf, split);
    if (rc < 0)
        mpir_fatal("rendezvous get of %zu bytes from rank %d failed: %s", split, r->world,
                   skf_strerror(rc));
    r->got = split;
    mpid_send_ctl(r->world, W_FIN, r->sreq);
    return 1;
}

/* The rendezvous data is in my buffer: release the sender (a direct
 * payload's sender is done once its bytes are in the stream). */
static void pull_done(mpid_req_t *r)
{
    r->got = r->msg_len;
    if (!r->direct)
        mpid_send_ctl(r->world, W_FIN, r->sreq);
    recv_complete(r);
}

static void rndv_pull(mpid_req_t *r)
{
    if (r->stream) {
        /* A large contiguous one from a tcp peer: my buffer is posted for
         * its direct payload, which the sender pushes on my W_GO (the
         * sender's RTS offered one: W_FLAG_DIRECT, proto.c); else the
         * data follows my W_GO through the ring (on_data). */
        size_t n = r->msg_len < r->cap ? r->msg_len : r->cap;
        if (r->stream == 2 && n && !r->dtp && r->world < mpid.size && mpid.direct_to[r->world] &&
            skf_recv_direct(mpid.ch, mpid.addr[r->world], (uint64_t)(uintptr_t)r, r->buf, n,
                            &r->pull) == 0) {
            r->direct = 1;
            r->next_pull = mpid.pulls;
            mpid.pulls = r;
            mpid_send_go(r->world, r->sreq, (uint64_t)(uintptr_t)r, n, 1);
            return;
        }
        mpid_send_go(r->world, r->sreq, (uint64_t)(uintptr_t)r, 0, 0);
        return;
    }
    size_t n = r->msg_len < r->cap ? r->msg_len : r->cap;
    /* Not when I send rendezvous data to that peer too (bidirectional): its
     * core is then busy pulling from me, and splitting measured slower. */
    if (mpid.rndv_split && n >= mpid.rndv_split && !r->dtp && r->world != mpid.rank &&
        !mpid.rndv_out[r->world] && mpid_node_of(r->world) == mpid.node &&
        rndv_split(r, n))
        return; /* completes on W_PUTDONE */
    if (n) {
        int rc;
        if (unlikely(r->dtp)) { /* a typed receive with large pieces pulls straight into them */
            rc = mpir_dt_pull(r, n);
            if (rc > 0)
                rc = skf_get(mpid.ch, &r->key, 0, r->buf, n);
        } else {
            /* Same node: CMA copies now (1).  Over tcp the get is queued (0)
             * and this receive completes in mpid_progress_pulls: the next
             * rendezvous asks for its data at once, and the owner's answers
             * follow each other without a round trip of idle link between. */
            rc = skf_get_start(mpid.ch, &r->key, 0, r->buf, n, &r->pull);
            if (rc == 0) {
                r->next_pull = mpid.pulls;
                mpid.pulls = r;
                return;
            }
        }
        if (rc < 0)
            mpir_fatal("rendezvous get of %zu bytes from rank %d failed: %s", n, r->world,
                       skf_strerror(rc));
    }
    pull_done(r);
}

int mpid_progress_pulls(void)
{
    int moved = 0;
    for (mpid_req_t **p = &mpid.pulls, *r; (r = *p);) {
        int rc = skf_get_test(mpid.ch, &r->pull);
        if (rc == 0) {
            p = &r->next_pull;
            continue;
        }
        if (rc < 0)
            mpir_fatal("rendezvous get of %zu bytes from rank %d failed: %s",
                       r->msg_len < r->cap ? r->msg_len : r->cap, r->world, skf_strerror(rc));
        *p = r->next_pull;
        pull_done(r);
        moved = 1;
    }
    return moved;
}

static void take_envelope(mpid_req_t *r, int world, const wire_hdr_t *h)
{
    r->world = world;
    r->st_source = h->src;
    r->st_tag = h->tag;
    r->wire = h->kind;
}

static void on_rts(int world, const wire_rts_t *m)
{
    struct MPI_ABI_Comm *c = comm_from_ctx(m->h.ctx);
    mpid_req_t *r = match_take_posted(c, m->h.src, m->h.tag);
    if (!r) {
        r = req_alloc(REQ_RECV);
        r->comm = c;
    }
    take_envelope(r, world, &m->h);
    r->stream = (m->h.flags & W_FLAG_STREAM) ? 1 + ((m->h.flags & W_FLAG_DIRECT) != 0) : 0;
    r->msg_len = r->stream ? m->h.len : m->key.len;
    r->sreq = m->sreq;
    r->key = m->key;
    if (r->attached)
        rndv_pull(r);
    else
        match_add_unexp(c, r);
}

static void on_eager(int world, const wire_hdr_t *h, size_t hlen, const struct iovec *cont,
                     int ncont, size_t total)
{
    struct MPI_ABI_Comm *c = comm_from_ctx(h->ctx);
    mpid_req_t *r = match_take_posted(c, h->src, h->tag);
    if (!r) {
        r = req_alloc(REQ_RECV);
        r->comm = c;
        r->tmp = h->len <= MPID_SHORT_MAX ? r->inline_buf : malloc(h->len ? h->len : 1);
        if (!r->tmp)
            mpir_fatal("out of memory buffering a %u-byte unexpected message", h->len);
    }
    take_envelope(r, world, h);
    r->msg_len = h->len;
    if (h->flags & W_FLAG_SYNC) {
        r->sync = 1;
        r->sreq = ((const wire_sync_t *)h)->sreq;
    }
    deliver(r, cont, ncont, hlen, 0, total - hlen);
    if (r->got < r->msg_len)
        mpid.inflight[world] = r;
    if (r->attached) {
        if (r->sync)
            mpid_send_ctl(world, W_ACK, r->sreq);
        if (r->got == r->msg_len)
            recv_complete(r);
    } else {
        match_add_unexp(c, r);
    }
}

/* First piece of a streamed rendezvous for my matched request r. */
static void on_data(int world, mpid_req_t *r, const struct iovec *cont, int ncont, size_t total)
{
    deliver(r, cont, ncont, sizeof(wire_ctl_t), 0, total - sizeof(wire_ctl_t));
    if (r->got < r->msg_len)
        mpid.inflight[world] = r;
    else
        recv_complete(r);
}

/* A piece of a stream through the bulk ring: it names its receive and place. */
static void on_bdata(const wire_bdata_t *m, const struct iovec *cont, int ncont, size_t total)
{
    mpid_req_t *r = (mpid_req_t *)(uintptr_t)m->rreq;
    deliver(r, cont, ncont, sizeof *m, (size_t)m->off, total - sizeof *m);
    if (r->got >= r->msg_len)
        recv_complete(r);
}

static void on_cont(int world, const struct iovec *cont, int ncont, size_t total)
{
    mpid_req_t *r = mpid.inflight[world];
    if (!r)
        mpir_fatal("stray continuation from rank %d", world);
    deliver(r, cont, ncont, sizeof(wire_cont_t), r->got, total - sizeof(wire_cont_t));
    if (r->got >= r->msg_len) {
        mpid.inflight[world] = NULL;
        if (r->attached)
            recv_complete(r);
    }
}

/* Sender: put the tail the receiver asked for (before its FIN, which
 * follows on the same channel, lets this request complete). */
static void on_cts(int world, const wire_cts_t *m)
{
    mpid_req_t *s = (mpid_req_t *)(uintptr_t)m->sreq;
    size_t split = (size_t)m->split_kib << 10;
    int rc = skf_put(mpid.ch, &m->key, 0, (const char *)(uintptr_t)s->key.base + split, m->key.len);
    if (rc < 0)
        mpir_fatal("rendezvous put of %llu bytes to rank %d failed: %s",
                   (unsigned long long)m->key.len, world, skf_strerror(rc));
    mpid_send_ctl(world, W_PUTDONE, m->rreq);
}

/* Receiver: the sender's half is in place. */
static void on_putdone(mpid_req_t *r)
{
    skf_mr_release(mpid.ctx, &r->rkey);
    r->got = r->msg_len;
    recv_complete(r);
}

static void on_ctl(const wire_ctl_t *m)
{
    mpid_req_t *s = (mpid_req_t *)(uintptr_t)m->sreq;
    if (m->kind == W_FIN) {
        skf_mr_release(mpid.ctx, &s->key);
        mpid.rndv_out[s->world]--;
        s->need &= (uint8_t)~NEED_FIN;
    } else if (m->kind == W_CANCEL_OK) { /* the receiver dropped it: no ACK, GO or FIN comes */
        if (s->need & NEED_FIN) {
            if (!(s->hdr.h.flags & W_FLAG_STREAM))
                skf_mr_release(mpid.ctx, &s->key);
            mpid.rndv_out[s->world]--;
        }
        s->cancelled = 1;
        s->need = 0;
    } else if (m->kind == W_CANCEL_NO) {
        s->need &= (uint8_t)~NEED_CANCEL_REPLY;
    } else {
        s->need &= (uint8_t)~NEED_ACK;
    }
    if (!s->need)
        req_complete(s);
}

/* Receiver: a sender cancels a message; drop it unless it is matched (or
 * still arriving), and say which. */
static void on_cancel(int world, const wire_cancel_t *m)
{
    struct MPI_ABI_Comm *c = comm_from_ctx(m->ctx);
    /* one whose W_CONTs are still coming stays: too late */
    mpid_req_t *u = match_take_unexp_sreq(c, m->src, m->sreq, mpid.inflight[world]);
    if (u)
        req_release(u);
    mpid_send_ctl(world, u ? W_CANCEL_OK : W_CANCEL_NO, m->sreq);
}

void mpid_on_message(int world, struct iovec *cont, int ncont, size_t total)
{
    wire_any_t m;
    size_t hlen = total < sizeof m ? total : sizeof m;
    if (likely(cont[0].iov_len >= hlen))
        memcpy(&m, cont[0].iov_base, hlen);
    else
        mpid_copy_out(&m, cont, ncont, 0, hlen);
    switch (m.h.kind) {
    case W_SHORT:
    case W_EAGER: {
        size_t h = m.h.flags & W_FLAG_SYNC ? sizeof(wire_sync_t) : sizeof(wire_hdr_t);
        on_eager(world, &m.h, h, cont, ncont, total);
        mpid_recv_done();
        break;
    }
    case W_CONT:
        on_cont(world, cont, ncont, total);
        mpid_recv_done();
        break;
    case W_RTS:
        /* Hand the ring space back before pulling: skf_get may drive the channel. */
        mpid_recv_done();
        on_rts(world, &m.r);
        break;
    case W_ACK:
    case W_FIN:
    case W_CANCEL_OK:
    case W_CANCEL_NO:
        mpid_recv_done();
        on_ctl(&m.c);
        break;
    case W_CANCEL:
        mpid_recv_done();
        on_cancel(world, &m.cancel);
        break;
    case W_CTS:
        mpid_recv_done(); /* before the put, as for RTS */
        on_cts(world, &m.cts);
        break;
    case W_GO:
        mpid_recv_done();
        mpid_on_go(&m.go);
        break;
    case W_DATA:
        on_data(world, (mpid_req_t *)(uintptr_t)m.c.sreq, cont, ncont, total);
        mpid_recv_done();
        break;
    case W_BDATA:
        on_bdata(&m.bd, cont, ncont, total);
        mpid_recv_done();
        break;
    case W_PUTDONE:
        mpid_recv_done();
        on_putdone((mpid_req_t *)(uintptr_t)m.c.sreq);
        break;
    default:
        mpir_fatal("malformed message (kind %d) from rank %d", m.h.kind, world);
    }
}

void mpid_recv_attach(mpid_req_t *u, void *buf, size_t cap)
{
    MPID_CS_SCOPE();
    u->buf = buf;
    u->cap = cap;
    u->attached = 1;
    if (u->wire == W_RTS) {
        rndv_pull(u);
        return;
    }
    if (u->got && cap)
        memcpy(buf, u->tmp, u->got < cap ? u->got : cap);
    if (u->tmp != u->inline_buf)
        free(u->tmp);
    u->tmp = NULL;
    if (u->sync)
        mpid_send_ctl(u->world, W_ACK, u->sreq);
    if (u->got == u->msg_len)
        recv_complete(u);
}

mpid_req_t *mpid_irecv(void *buf, size_t cap, int src, int tag, struct MPI_ABI_Comm *c)
{
    MPID_CS_SCOPE();
    mpid_req_t *u = match_find_unexp(c, src, tag, 1);
    if (u) {
        u->kind = REQ_RECV;
        mpid_recv_attach(u, buf, cap);
        return u;
    }
    mpid_req_t *r = req_alloc(REQ_RECV);
    r->comm = c;
    r->peer = src;
    r->tag = tag;
    r->buf = buf;
    r->cap = cap;
    r->attached = 1;
    if (unlikely(dyn_active) && src >= 0 && dyn_gone(comm_world_rank(c, src))) {
        r->st_source = src; /* it has ended: nothing more comes (request.c) */
        r->st_error = MPI_ERR_OTHER;
        req_complete(r);
        return r;
    }
    match_post(c, r);
    return r;
}

/* Fast path of a blocking receive: with no receive posted anywhere, the next
 * matching message can be copied from the ring head without a request.
 * Returns 1 when done, 0 when the slow path must take over. */
static inline __attribute__((always_inline)) int
recv_in_place(void *buf, size_t cap, int src, int tag, struct MPI_ABI_Comm *c, MPI_Status *st,
              size_t *sent, int *err, int blocking)
{
    for (;;) {
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t from;
        if (mpid.n_active)
            mpid_progress_sends();
        ssize_t total = skf_recv(mpid.ch, cont, &ncont, &from);
        if (total == -EAGAIN) {
            if (!blocking) /* MULTIPLE: the caller holds the device lock */
                return 0;
            mpid_idle();
            continue;
        }
        if (total < 0)
            mpir_fatal("receive failed: %s", skf_strerror((int)total));
        int world = skf_addr_rank(from);
        wire_hdr_t h;
        const wire_hdr_t *hp = &h;
        if (likely(cont[0].iov_len >= sizeof h))
            hp = cont[0].iov_base; /* read the envelope where it lies */
        else
            mpid_copy_out(&h, cont, ncont, 0, sizeof h);
        int mine = (hp->kind == W_SHORT || hp->kind == W_EAGER || hp->kind == W_RTS) &&
                   hp->ctx == c->ctx && (src == MPI_ANY_SOURCE || src == hp->src) &&
                   match_tag(tag, hp->tag);
        size_t hlen = hp->flags & W_FLAG_SYNC ? sizeof(wire_sync_t) : sizeof h;
        if (mine && hp->kind != W_RTS && (size_t)total == hlen + hp->len) {
            size_t len = hp->len, n = len < cap ? len : cap;
            if (likely(cont[0].iov_len >= hlen + n))
                skf_copy(buf, (char *)cont[0].iov_base + hlen, n);
            else
                mpid_copy_out(buf, cont, ncont, hlen, n);
            st->MPI_SOURCE = hp->src;
            st->MPI_TAG = hp->tag;
            if (unlikely(hp->flags & W_FLAG_SYNC)) {
                uint64_t sreq;
                mpid_copy_out(&sreq, cont, ncont, offsetof(wire_sync_t, sreq), sizeof sreq);
                mpid_recv_done();
                mpid_send_ctl(world, W_ACK, sreq);
            } else {
                mpid_recv_done();
            }
            *err = len > cap ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
            *sent = len;
            st->MPI_ERROR = *err;
            st->MPI_internal[0] = (int)n;
            st->MPI_internal[1] = 0;
            st->MPI_internal[2] = 0;
            return 1;
        }
        mpid_on_message(world, cont, ncont, (size_t)total);
        if (mine)
            return 0; /* it is now unexpected (or partly arrived): slow path adopts it */
    }
}

/* The fast path applies when nothing else waits for a message (not with
 * gets in flight: only mpid_progress finishes them). */
static inline int recv_fast_ok(int src, int tag, struct MPI_ABI_Comm *c)
{
    return mpid.n_posted == 0 && !coll_n_active && !part_n_pending && !mpid.pulls && !dyn_active &&
           (c->n_unexp == 0 || !match_find_unexp(c, src, tag, 0));
}

/* 1: done.  Under ThreadSanitizer out of line, so that no load of the
 * counters is hoisted above the thread-level test (a harmless load whose
 * value is not used, but TSan reports it). */
#ifdef __SANITIZE_THREAD__
#define FAST_INLINE __attribute__((noinline))
#else
#define FAST_INLINE inline __attribute__((always_inline))
#endif
static FAST_INLINE int recv_fast(void *buf, size_t cap, int src, int tag,
                                               struct MPI_ABI_Comm *c, MPI_Status *st,
                                               size_t *sent, int *err)
{
    return recv_fast_ok(src, tag, c) && recv_in_place(buf, cap, src, tag, c, st, sent, err, 1);
}


/* The receive posted, waited for and released. */
static int recv_posted(void *buf, size_t cap, int src, int tag, struct MPI_ABI_Comm *c,
                       MPI_Status *st, size_t *sent)
{
    mpid_req_t *r = mpid_irecv(buf, cap, src, tag, c);
    mpid_wait(r);
    req_status(r, st);
    *sent = r->msg_len;
    int err = r->st_error;
    req_release(r);
    return err;
}

/* MULTIPLE: out of line, so the single-threaded path below keeps its shape.
 * While no other thread wants the device (no receive posted, nobody waiting
 * for the lock) the blocking receive waits in the channel itself and takes
 * its message from the ring head, as at the lower levels; otherwise (a kick,
 * a timeout, others' receives) it posts and waits like any request. */
static __attribute__((noinline)) int recv_mt(void *buf, size_t cap, int src, int tag,
                                             struct MPI_ABI_Comm *c, MPI_Status *st, size_t *sent)
{
    int err, got = 0, rc = 1;
    mpid_cs_lock_slow();
    while (rc > 0 && recv_fast_ok(src, tag, c)) {
        if ((got = recv_in_place(buf, cap, src, tag, c, st, sent, &err, 0)))
            break;
        rc = mpid_mt_wait_locked();
    }
    mpid_cs_unlock_slow();
    return got ? err : recv_posted(buf, cap, src, tag, c, st, sent);
}

int mpid_recv(void *buf, size_t cap, int src, int tag, struct MPI_ABI_Comm *c, MPI_Status *st,
              size_t *sent)
{
    /* (recv_fast reads the device's counters without the lock: never under
     * MPI_THREAD_MULTIPLE) */
    if (unlikely(mpir_mt))
        return recv_mt(buf, cap, src, tag, c, st, sent);
    int err;
    if (recv_fast(buf, cap, src, tag, c, st, sent, &err))
        return err;
    return recv_posted(buf, cap, src, tag, c, st, sent);
}

/* MULTIPLE: the lock around each look; a message found is the caller's
 * (mprobe removed it) or stays in the queue, where only the envelope and
 * length are read, which no other thread changes while the lock is held. */
static mpid_req_t *find_unexp_locked(struct MPI_ABI_Comm *c, int src, int tag,
                                     mpid_req_t **msg, MPI_Status *st)
{
    MPID_CS_SCOPE();
    mpid_req_t *u = match_find_unexp(c, src, tag, msg != NULL);
    if (u && st) {
        st->MPI_SOURCE = u->st_source;
        st->MPI_TAG = u->st_tag;
        st->MPI_ERROR = MPI_SUCCESS;
        st->MPI_internal[0] = (int)(u->msg_len & 0xffffffff);
        st->MPI_internal[1] = (int)(u->msg_len >> 32);
        st->MPI_internal[2] = 0;
    }
    return u;
}

int mpid_iprobe(int src, int tag, struct MPI_ABI_Comm *c, MPI_Status *st, mpid_req_t **msg)
{
    mpid_req_t *u = find_unexp_locked(c, src, tag, msg, st);
    if (!u) {
        mpid_progress();
        u = find_unexp_locked(c, src, tag, msg, st);
    }
    if (!u)
        return 0;
    if (msg)
        *msg = u;
    return 1;
}

int mpid_cancel(mpid_req_t *r)
{
    MPID_CS_SCOPE();
    if (r->kind == REQ_RECV && r->posted && match_unpost(r->comm, r)) {
        r->cancelled = 1;
        req_complete(r);
        return 1;
    }
    /* a synchronous or rendezvous send waits for its receiver: ask it to
     * drop the message (the answer comes after its ACK/GO/FIN, if any) */
    if (r->kind == REQ_SEND && (r->need & (NEED_ACK | NEED_FIN)) && !(r->need & NEED_CANCEL_REPLY) &&
        (r->wire == W_RTS || (r->hdr.h.flags & W_FLAG_SYNC))) {
        r->need |= NEED_CANCEL_REPLY;
        mpid_send_cancel(r->world, &r->hdr.h, (uint64_t)(uintptr_t)r);
    }
    return 0; /* matched receives and eager sends run to completion */
}
