/*
 * proto.c — the send side of the three protocols and the per-destination
 * send FIFOs.
 *
 *   short      payload <= MPID_SHORT_MAX: header and data in one 64-byte line
 *   eager      payload <= eager_max: copied into the receiver's ring; when the
 *              channel takes only part (ring space, skf_max_msg), the rest
 *              follows as W_CONT messages
 *   rendezvous larger: W_RTS carries a memory key, the receiver pulls the data
 *              with skf_get straight into its buffer and answers W_FIN
 *   streamed   derived types above their eager limit, and contiguous ones to a
 *              rank reached over tcp up to SKIFF_MPI_RNDV_STREAM (to a node
 *              mate: all of them when there is no CMA): W_RTS, no key;
 *              on the receiver's W_GO the data follows as W_DATA + W_CONTs,
 *              packed chunk by chunk into the ring (both cores copy at once)
 *
 * A send that cannot go out at once (ring full, or earlier sends to the same
 * destination still queued) waits in that destination's FIFO; progress pushes
 * FIFOs in order, so messages to one destination never overtake each other.
 * Nothing here ever spins: a caller that must wait goes through mpid_wait,
 * which keeps draining arrivals (no two senders can block each other).
 */
#include <errno.h>
#include <string.h>

#include "core/core.h" /* skf_now_ns */
#include "datatype/dtype.h"
#include "device/device.h"

static const wire_cont_t cont_hdr = {.kind = W_CONT};

/* Most payload bytes one ring message of a total-byte message to world
 * carries.  To a node mate a large payload goes in pieces of pipe_chunk:
 * the receiver copies piece k out while I copy piece k+1 in, so the two
 * copies overlap instead of following each other (docs/shm-transport.md). */
static inline size_t piece_max(int world, size_t total)
{
    if (mpid.pipe_chunk && total > mpid.pipe_chunk && world < mpid.size && !mpid.remote[world])
        return mpid.pipe_chunk;
    return SIZE_MAX;
}

static void sendq_append(int world, mpid_req_t *r)
{
    req_list_t *q = &mpid.sendq[world];
    r->next = NULL;
    if (q->tail) {
        q->tail->next = r;
    } else {
        q->head = r;
        mpid.active[mpid.n_active++] = world;
    }
    q->tail = r;
}

/* SKIFF_MPI_BULK_MAX=auto, a stream fully in the ring: one that ran below
 * MPID_BULK_STARVED GB/s from its first piece in the ring to its last had a
 * rank without its CPU (a stream needs both running; measured with busy
 * loops beside the ranks: a 1 MiB ping-pong 480 us streamed against 90 us by
 * CMA, which needs only the receiver).  Not timed from the W_GO: in a window
 * of sends that counted the streams queued before it, and bandwidth runs
 * backed off for nothing.  The next eligible sends then take CMA, twice as
 * many each time it repeats; a stream at speed resets that (docs/mpi.md
 * "Bulk rings"). */
static void bulk_judge(const mpid_req_t *r)
{
    long long ns = skf_now_ns() - r->bulk_t0;
    if (ns > 0 && (long long)r->cap < MPID_BULK_STARVED * ns) {
        mpid.bulk_skip = mpid.bulk_backoff;
        if (mpid.bulk_backoff < MPID_BULK_BACKOFF_MAX)
            mpid.bulk_backoff *= 2;
    } else
        mpid.bulk_backoff = MPID_BULK_BACKOFF_MIN;
}

/* An eligible send may stream unless a starved stream asked for CMA (above). */
static inline int bulk_allowed(void)
{
    if (likely(!mpid.bulk_skip))
        return 1;
    mpid.bulk_skip--;
    return 0;
}

/* A stream through the bulk ring (mpid_on_go): every piece with its own
 * W_BDATA header naming the receive and the offset.  1: all taken. */
static int push_bulk(mpid_req_t *r)
{
    while (r->sent < r->cap) {
        size_t piece = mpid.bulk_piece[r->world], left = r->cap - r->sent;
        r->hdr.bd.off = r->sent;
        struct iovec iov[2] = {{&r->hdr.bd, sizeof r->hdr.bd},
                               {(char *)r->buf + r->sent, left < piece ? left : piece}};
        ssize_t k = skf_send_bulk(mpid.ch, mpid.addr[r->world], iov, 2);
        if (k == -EAGAIN)
            return 0;
        if (k < 0)
            mpir_fatal("sending to rank %d failed: %s", r->world, skf_strerror((int)k));
        if ((size_t)k < sizeof r->hdr.bd)
            mpir_fatal("channel split a %zu-byte header (took %zd)", sizeof r->hdr.bd, k);
        r->sent += (size_t)k - sizeof r->hdr.bd;
        if (!r->bulk_t0 && mpid.bulk_auto)
            r->bulk_t0 = skf_now_ns();
    }
    if (mpid.bulk_auto)
        bulk_judge(r);
    return 1;
}

/* A direct payload (the receiver's W_GO said so): straight from the user's
 * buffer into the receiver's, after everything sent to it before.  1: all
 * of it is in the stream (the send is done), 0: under way or waiting for
 * the one before it to leave. */
static int push_direct(mpid_req_t *r)
{
    int rc;
    if (!r->sent) {
        rc = skf_send_direct(mpid.ch, mpid.addr[r->world], r->hdr.c.sreq, r->buf, r->cap, &r->pull);
        if (rc == -EAGAIN)
            return 0;
        if (rc < 0)
            mpir_fatal("sending %zu bytes to rank %d failed: %s", r->cap, r->world,
                       skf_strerror(rc));
        r->sent = 1; /* started */
        if (rc == 1)
            return 1;
        mpid.direct_out++;
    }
    rc = skf_get_test(mpid.ch, &r->pull);
    if (rc < 0)
        mpir_fatal("sending %zu bytes to rank %d failed: %s", r->cap, r->world, skf_strerror(rc));
    if (rc)
        mpid.direct_out--;
    return rc;
}

/* Move as much of r into the ring as fits.  1: everything taken, 0: blocked. */
static int push(mpid_req_t *r)
{
    if (r->bulk)
        return push_bulk(r);
    if (r->direct)
        return push_direct(r);
    skf_addr_t dst = mpid.addr[r->world];
    size_t total = r->hdr_len + r->cap;
    while (r->sent < total) {
        struct iovec iov[1 + MPIR_DT_IOV_MAX];
        size_t off;
        int first = r->sent == 0;
        if (first) {
            iov[0].iov_base = &r->hdr;
            iov[0].iov_len = r->hdr_len;
            off = 0;
        } else {
            iov[0].iov_base = (void *)&cont_hdr;
            iov[0].iov_len = sizeof cont_hdr;
            off = r->sent - r->hdr_len;
        }
        int n = 1;
        size_t chunk = 0;
        if (unlikely(r->dtp != NULL) && off < r->cap) {
            /* a derived type: packed straight into the ring, or its pieces */
            if (!(chunk = mpir_dt_chunk(r, off)))
                n = 1 + mpir_dt_iov(r, off, iov + 1);
        } else if (off < r->cap) {
            size_t piece = piece_max(r->world, r->cap);
            iov[1].iov_base = (char *)r->buf + off;
            iov[1].iov_len = r->cap - off < piece ? r->cap - off : piece;
            n = 2;
        }
        if (chunk && unlikely(r->world >= mpid.size)) { /* the bridge takes pieces */
            chunk = 0;
            n = 1 + mpir_dt_iov(r, off, iov + 1);
        }
        ssize_t k = chunk ? skf_send_pack(mpid.ch, dst, iov, 1, chunk, mpir_dt_pack_chunk, r)
                          : mpid_chan_send(r->world, iov, n);
        if (k == -EAGAIN)
            return 0;
        if (k < 0)
            mpir_fatal("sending to rank %d failed: %s", r->world, skf_strerror((int)k));
        if ((size_t)k < iov[0].iov_len)
            mpir_fatal("channel split a %zu-byte header (took %zd)", iov[0].iov_len, k);
        r->sent += first ? (size_t)k : (size_t)k - sizeof cont_hdr;
    }
    return 1;
}

/* All of r is in the ring: what that means depends on the protocol. */
void mpid_send_pushed(mpid_req_t *r)
{
    if (r->kind == REQ_CTL) {
        req_release(r);
        return;
    }
    r->need &= (uint8_t)~NEED_PUSH;
    if (!r->need)
        req_complete(r);
}

int mpid_progress_sends(void)
{
    int moved = 0;
    for (int i = 0; i < mpid.n_active;) {
        int w = mpid.active[i];
        req_list_t *q = &mpid.sendq[w];
        while (q->head) {
            mpid_req_t *r = q->head;
            size_t before = r->sent;
            int all = push(r);
            moved |= r->sent != before;
            if (!all)
                break;
            q->head = r->next;
            if (!q->head)
                q->tail = NULL;
            mpid_send_pushed(r);
        }
        if (!q->head)
            mpid.active[i] = mpid.active[--mpid.n_active];
        else
            i++;
    }
    return moved;
}

/* Start r: straight into the ring when nothing is queued for its destination. */
static void start(mpid_req_t *r)
{
    if (!mpid.sendq[r->world].head && push(r))
        mpid_send_pushed(r);
    else
        sendq_append(r->world, r);
}

void mpid_send_ctl(int world, int kind, uint64_t sreq)
{
    mpid_req_t *r = req_alloc(REQ_CTL);
    r->world = world;
    r->hdr.c.kind = (uint8_t)kind;
    r->hdr.c.sreq = sreq;
    r->hdr_len = sizeof(wire_ctl_t);
    start(r);
}

void mpid_send_cancel(int world, const wire_hdr_t *envelope, uint64_t sreq)
{
    mpid_req_t *r = req_alloc(REQ_CTL);
    r->world = world;
    r->hdr.cancel = (wire_cancel_t){
        .kind = W_CANCEL, .ctx = envelope->ctx, .src = envelope->src, .sreq = sreq};
    r->hdr_len = sizeof(wire_cancel_t);
    start(r);
}

void mpid_send_cts(int world, uint64_t sreq, uint64_t rreq, size_t split, const skf_mr_key_t *key)
{
    mpid_req_t *r = req_alloc(REQ_CTL);
    r->world = world;
    r->hdr.cts.kind = W_CTS;
    r->hdr.cts.split_kib = (uint32_t)(split >> 10);
    r->hdr.cts.sreq = sreq;
    r->hdr.cts.rreq = rreq;
    r->hdr.cts.key = *key;
    r->hdr_len = sizeof(wire_cts_t);
    start(r);
}

void mpid_send_go(int world, uint64_t sreq, uint64_t rreq, size_t direct_len, int direct)
{
    mpid_req_t *r = req_alloc(REQ_CTL);
    r->world = world;
    r->hdr.go = (wire_go_t){.kind = W_GO, .direct = (uint8_t)direct, .len = (uint32_t)direct_len,
                            .sreq = sreq, .rreq = rreq};
    r->hdr_len = sizeof(wire_go_t);
    start(r);
}

static void fill_envelope(wire_hdr_t *h, int kind, struct MPI_ABI_Comm *c, int tag, size_t len)
{
    h->kind = (uint8_t)kind;
    h->flags = 0;
    h->ctx = (uint16_t)c->ctx;
    h->src = c->rank;
    h->tag = tag;
    h->len = (uint32_t)len;
}

mpid_req_t *mpid_isend(const void *buf, size_t len, int dest, int tag, struct MPI_ABI_Comm *c,
                       int mode)
{
    return mpid_isend_dt(buf, NULL, len, dest, tag, c, mode);
}

enum isend_how { SEND_AUTO, SEND_STREAM };
static mpid_req_t *isend(const void *buf, void *dtp, size_t len, int dest, int tag,
                         struct MPI_ABI_Comm *c, int mode, int how);

mpid_req_t *mpid_isend_dt(const void *buf, void *dtp, size_t len, int dest, int tag,
                          struct MPI_ABI_Comm *c, int mode)
{
    MPID_CS_SCOPE();
    return isend(buf, dtp, len, dest, tag, c, mode, SEND_AUTO);
}

mpid_req_t *mpid_isend_stream(void *dtp, size_t len, int dest, int tag, struct MPI_ABI_Comm *c,
                              int mode)
{
    MPID_CS_SCOPE();
    return isend(NULL, dtp, len, dest, tag, c, mode, SEND_STREAM);
}

void mpid_on_go(const wire_go_t *m)
{
    mpid_req_t *r = (mpid_req_t *)(uintptr_t)m->sreq;
    mpid.rndv_out[r->world]--;
    if (m->direct) { /* the receiver posted its buffer: push straight into it */
        r->direct = 1;
        r->hdr.c.sreq = m->rreq;
        r->cap = m->len < r->msg_len ? m->len : r->msg_len;
        r->sent = 0;
        r->need = NEED_PUSH | (r->need & NEED_CANCEL_REPLY);
        start(r);
        return;
    }
    if (r->buf && !r->dtp && mpid.bulk_piece[r->world]) {
        r->bulk = 1; /* through the pair's bulk ring */
        r->bulk_t0 = 0; /* set by its first piece in the ring (push_bulk) */
        r->hdr.bd = (wire_bdata_t){.kind = W_BDATA, .rreq = m->rreq};
    } else {
        r->hdr.c.kind = W_DATA;
        r->hdr.c.sreq = m->rreq;
    }
    r->hdr_len = sizeof(wire_ctl_t);
    r->cap = r->msg_len;
    r->sent = 0;
    /* done once the data is in the ring, as an eager send (and a cancel's
     * answer, if one is due) */
    r->need = NEED_PUSH | (r->need & NEED_CANCEL_REPLY);
    start(r);
}

static mpid_req_t *isend(const void *buf, void *dtp, size_t len, int dest, int tag,
                         struct MPI_ABI_Comm *c, int mode, int how)
{
    int world = comm_world_rank(c, dest);
    size_t eager_max = mpid.eager_to[world];
    /* Over tcp a mid-size rendezvous streams the data once the receiver has
     * matched (its W_GO): measured faster there than the get's request and
     * answer; large ones keep the get, which copies less (docs/tcp.md).  To
     * a node mate without CMA every rendezvous streams (init.c), and so does
     * one up to SKIFF_MPI_BULK_MAX when the pair has a bulk ring: through it,
     * in large pieces, both cores copying (docs/mpi.md, "Bulk rings").  The
     * envelope's length is 32 bits: larger ones keep the get. */
    if (how == SEND_AUTO && buf && !dtp && len > eager_max && len <= UINT32_MAX &&
        world != mpid.rank &&
        (world >= mpid.size || /* another job's process: no memory keys cross */
         (mpid.remote[world] ? len <= mpid.stream_remote_max || mpid.direct_to[world]
                             : mpid.stream_local || (len <= mpid.bulk_max && mpid.bulk_piece[world] && bulk_allowed()))))
        how = SEND_STREAM;
    mpid_req_t *r = req_alloc(REQ_SEND);
    r->dtp = dtp; /* before the first push: it supplies the payload pieces */
    r->comm = c;
    r->peer = dest;
    r->tag = tag;
    r->world = world;
    r->buf = (void *)buf;
    r->cap = len;
    r->st_source = dest;
    r->st_tag = tag;
    r->need = NEED_PUSH;
    if (unlikely(world >= mpid.size) && dyn_gone(world)) { /* fails at once (request.c) */
        r->need = 0;
        r->st_error = MPI_ERR_OTHER;
        req_complete(r);
        return r;
    }
    if (how == SEND_STREAM) {
        r->wire = W_RTS;
        fill_envelope(&r->hdr.h, W_RTS, c, tag, len);
        r->hdr.h.flags = W_FLAG_STREAM;
        /* a contiguous buffer larger than what streams through the ring,
         * to a tcp peer: the receiver may ask for it as a direct payload */
        if (buf && !dtp && world < mpid.size && mpid.direct_to[world] && len > mpid.stream_remote_max)
            r->hdr.h.flags |= W_FLAG_DIRECT;
        r->hdr.r.sreq = (uint64_t)(uintptr_t)r;
        r->hdr_len = sizeof(wire_rts_t);
        r->msg_len = len;
        r->cap = 0; /* nothing but the RTS until W_GO */
        r->need |= NEED_FIN; /* "waiting for W_GO" */
        mpid.rndv_out[r->world]++;
    } else if (len <= eager_max || (dtp && !buf)) {
        /* a typed send without a buffer is eager whatever its size
         * (datatype/p2p.c chose that: it packs into the ring chunk by chunk) */
        r->wire = len <= MPID_SHORT_MAX && mode != MODE_SYNC ? W_SHORT : W_EAGER;
        fill_envelope(&r->hdr.h, r->wire, c, tag, len);
        r->hdr_len = sizeof(wire_hdr_t);
        if (mode == MODE_SYNC) {
            r->hdr.h.flags = W_FLAG_SYNC;
            r->hdr.s.sreq = (uint64_t)(uintptr_t)r;
            r->hdr_len = sizeof(wire_sync_t);
            r->need |= NEED_ACK;
        }
    } else {
        if (unlikely(world >= mpid.size))
            mpir_fatal("a %zu-byte message to a process of another job: more than the 4 GiB "
                       "a message between jobs can have (docs/dynamic-processes.md)", len);
        r->wire = W_RTS;
        int rc = skf_mr_expose(mpid.ctx, (void *)buf, len, &r->key);
        if (rc < 0)
            mpir_fatal("exposing a %zu-byte send buffer failed: %s", len, skf_strerror(rc));
        fill_envelope(&r->hdr.h, W_RTS, c, tag, 0);
        r->hdr.r.sreq = (uint64_t)(uintptr_t)r;
        r->hdr.r.key = r->key;
        r->hdr_len = sizeof(wire_rts_t);
        r->cap = 0; /* the payload is pulled, not pushed */
        r->need |= NEED_FIN;
        mpid.rndv_out[r->world]++;
    }
    start(r);
    return r;
}

/* held: MULTIPLE, the caller took the device lock; it goes before any wait.
 * Inlined twice, so the single-threaded copy has no trace of it. */
static inline __attribute__((always_inline)) int send_body(const void *buf, size_t len, int dest,
                                                          int tag, struct MPI_ABI_Comm *c,
                                                          int mode, int held)
{
    int world = comm_world_rank(c, dest);
    if (unlikely(world >= mpid.size) && dyn_gone(world)) {
        mpid_cs_exit(held);
        return MPI_ERR_OTHER; /* a process of another job that has ended */
    }
    mpid_req_t *r;
    if (likely(len <= mpid.eager_to[world] && mode != MODE_SYNC && !mpid.sendq[world].head)) {
        /* LAM's fast path: no request unless the ring refuses part of it. */
        wire_hdr_t h;
        fill_envelope(&h, len <= MPID_SHORT_MAX ? W_SHORT : W_EAGER, c, tag, len);
        size_t piece = piece_max(world, len);
        struct iovec iov[2] = {{&h, sizeof h}, {(void *)buf, len < piece ? len : piece}};
        ssize_t k = mpid_chan_send(world, iov, 2);
        if (likely((size_t)k == sizeof h + len)) {
            mpid_cs_exit(held);
            return MPI_SUCCESS;
        }
        if (k != -EAGAIN && k < (ssize_t)sizeof h)
            mpir_fatal("sending to rank %d failed: %s", world,
                       k < 0 ? skf_strerror((int)k) : "channel split a header");
        r = req_alloc(REQ_SEND);
        r->comm = c;
        r->world = world;
        r->buf = (void *)buf;
        r->cap = len;
        r->wire = h.kind;
        r->hdr.h = h;
        r->hdr_len = sizeof h;
        r->sent = k > 0 ? (size_t)k : 0;
        r->need = NEED_PUSH;
        sendq_append(world, r);
    } else {
        r = mpid_isend(buf, len, dest, tag, c, mode);
    }
    mpid_cs_exit(held);
    mpid_wait(r);
    int err = r->st_error; /* a process of another job may end meanwhile */
    req_release(r);
    return err;
}

static __attribute__((noinline)) int send_mt(const void *buf, size_t len, int dest, int tag,
                                             struct MPI_ABI_Comm *c, int mode)
{
    mpid_cs_lock_slow();
    return send_body(buf, len, dest, tag, c, mode, 1);
}

int mpid_send(const void *buf, size_t len, int dest, int tag, struct MPI_ABI_Comm *c, int mode)
{
    if (unlikely(mpir_mt))
        return send_mt(buf, len, dest, tag, c, mode);
    return send_body(buf, len, dest, tag, c, mode, 0);
}
