/*
 * p2p.c — point-to-point with datatypes whose data is not one plain piece.
 *
 * The device moves bytes; here a non-contiguous send is packed into a bounce
 * buffer that travels as the message (the device frees it with the request),
 * and a non-contiguous receive lands in a bounce buffer that is unpacked into
 * the user's layout when the request completes (device hook req_complete ->
 * mpir_dt_complete).  The packed stream is the type map's data in order, so
 * any two type-signature-compatible types match.
 */
#include <stdlib.h>

#include "core/config.h"

#include "binding/check.h"
#include "datatype/dtype.h"

/* A place in a typed buffer's pieces: element e, repetition k, run j, `at`
 * bytes into the run; off is the packed-stream offset it stands for. */
typedef struct dt_cursor {
    int64_t e, k, j;
    size_t at, off;
} dt_cursor_t;

/* A receive whose bytes still have to be unpacked; or (persistent requests)
 * the typed arguments to start from. */
typedef struct dt_pending {
    int kind; /* DTP_TYPED (the ->dtp slot also carries idup states) */
    void *ubuf;
    MPI_Count count;
    struct MPI_ABI_Datatype *d;
    char *packed;
    size_t cap;    /* bytes allocated at packed */
    int delivered; /* the data went straight into ubuf (mpir_dt_pull) */
    size_t direct; /* eager bytes unpacked straight from the ring so far */
    int is_send;   /* packed holds an outgoing message: nothing to unpack */
    size_t stream; /* send packed chunk by chunk into the ring: chunk bytes (0: not so) */
    size_t pack_from; /* stream offset of the chunk being packed (mpir_dt_chunk) */
    dt_cursor_t cur; /* send from the pieces: where the channel took up to */
} dt_pending_t;

/* ---- bounce buffers ----------------------------------------------------------------
 * Large ones are kept for reuse: a fresh multi-megabyte malloc is an mmap
 * whose pages fault in (and are zeroed) on every message. */
#define BOUNCE_KEEP 2
#define BOUNCE_CACHE_MIN (64 * 1024)
static struct {
    char *p;
    size_t cap;
} cache[BOUNCE_KEEP];

static char *bounce_get(size_t n, size_t *cap)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the cache is process-wide */
    if (n >= BOUNCE_CACHE_MIN)
        for (int i = 0; i < BOUNCE_KEEP; i++)
            if (cache[i].p && cache[i].cap >= n && cache[i].cap / 4 <= n) {
                char *p = cache[i].p;
                *cap = cache[i].cap;
                cache[i].p = NULL;
                return p;
            }
    *cap = n ? n : 1;
    char *p = malloc(*cap);
    if (!p)
        mpir_fatal("out of memory for a %zu-byte datatype bounce buffer", n);
    return p;
}

static void bounce_put(char *p, size_t cap)
{
    MPID_CS_SCOPE();
    if (cap >= BOUNCE_CACHE_MIN) {
        int s = 0;
        for (int i = 0; i < BOUNCE_KEEP; i++)
            if (!cache[i].p || cache[i].cap < cache[s].cap)
                s = i;
        if (!cache[s].p || cache[s].cap < cap) { /* keep the largest ones */
            free(cache[s].p);
            cache[s].p = p;
            cache[s].cap = cap;
            return;
        }
    }
    free(p);
}

__attribute__((destructor)) static void bounce_drop(void)
{
    for (int i = 0; i < BOUNCE_KEEP; i++) {
        free(cache[i].p);
        cache[i].p = NULL;
    }
}

static char *pack_copy(const void *buf, MPI_Count count, struct MPI_ABI_Datatype *d, size_t *n,
                       size_t *cap)
{
    *n = dt_packed_size(d, count);
    char *tmp = bounce_get(*n, cap);
    dt_copy(d, buf, count, 0, tmp, *n, 0);
    return tmp;
}

static long long iov_min = -1, eager_max = -1;

/* Largest derived-type message sent eagerly (SKIFF_MPI_DTYPE_EAGER_MAX). */
static size_t dt_eager_max(void)
{
    if (eager_max < 0) {
        eager_max = skf_param_ll("SKIFF_MPI_DTYPE_EAGER_MAX");
        if (eager_max < (long long)mpid.eager_max)
            eager_max = (long long)mpid.eager_max;
        if (eager_max > (1LL << 30))
            eager_max = 1LL << 30;
    }
    return (size_t)eager_max;
}

/* Smallest average piece sent from the pieces themselves (SKIFF_MPI_DTYPE_IOV_MIN). */
static long long dt_iov_min(void)
{
    if (iov_min < 0)
        iov_min = skf_param_ll("SKIFF_MPI_DTYPE_IOV_MIN");
    return iov_min;
}

/* Few pieces, each large: send them as an iovec (eager sizes only). */
static int iov_ok(const struct MPI_ABI_Datatype *d, MPI_Count count)
{
    const struct dtype_rep *t = d->rep;
    int64_t pieces = (int64_t)count * t->reps * t->nruns;
    size_t n = dt_packed_size(d, count);
    return pieces <= MPIR_DT_IOV_MAX && n <= dt_eager_max() && (int64_t)n >= pieces * dt_iov_min();
}

/* A send packed a chunk at a time straight into the ring (skf_send_pack):
 * the receiver unpacks chunk k while I pack chunk k+1.  Eager messages (up
 * to 64 KiB) need small chunks to overlap at all: since the packer writes
 * into the ring, 4 KiB beat 16 KiB (8-byte pieces, 16 KiB message: 6.1 vs
 * 4.5 GB/s, docs/datatypes-and-communicators.md); a streamed rendezvous
 * moves more per ring message (32 vs 16 KiB: 256 KiB-4 MiB 4% faster).  To a
 * tcp peer every chunk is a frame and a system call: 32 KiB there. */
#define STREAM_CHUNK (4 * 1024)
#define STREAM_CHUNK_RNDV (32 * 1024)

static void cursor_next_run(const struct dtype_rep *t, dt_cursor_t *c)
{
    if (++c->j == t->nruns) {
        c->j = 0;
        if (++c->k == t->reps) {
            c->k = 0;
            c->e++;
        }
    }
}

/* Move p's cursor to stream offset off: forward from where it is (sends
 * only move forward), whole elements at once. */
static void cursor_seek(dt_pending_t *p, size_t off)
{
    dt_cursor_t *c = &p->cur;
    if (off < c->off)
        *c = (dt_cursor_t){0};
    const struct dtype_rep *t = p->d->rep;
    size_t left = off - c->off, esize = (size_t)p->d->size;
    if (c->k == 0 && c->j == 0 && c->at == 0 && left >= esize) {
        c->e += (int64_t)(left / esize);
        left %= esize;
    }
    while (left) {
        size_t rest = (size_t)t->runs[c->j].len - c->at;
        if (left < rest) {
            c->at += left;
            break;
        }
        left -= rest;
        c->at = 0;
        cursor_next_run(t, c);
    }
    c->off = off;
}

size_t mpir_dt_chunk(mpid_req_t *r, size_t off)
{
    dt_pending_t *p = r->dtp;
    if (!p->stream)
        return 0;
    p->pack_from = off;
    return r->cap - off < p->stream ? r->cap - off : p->stream;
}

void mpir_dt_pack_chunk(void *req, size_t off, void *dst, size_t n)
{
    dt_pending_t *p = ((mpid_req_t *)req)->dtp;
    dt_copy(p->d, p->ubuf, p->count, p->pack_from + off, dst, n, 0);
}

int mpir_dt_iov(mpid_req_t *r, size_t off, struct iovec *iov)
{
    dt_pending_t *p = r->dtp;
    if (p->packed) {
        iov[0].iov_base = p->packed + off;
        iov[0].iov_len = r->cap - off;
        return 1;
    }
    /* the pieces themselves, from where the last call left off */
    cursor_seek(p, off);
    const struct MPI_ABI_Datatype *d = p->d;
    const struct dtype_rep *t = d->rep;
    dt_cursor_t c = p->cur;
    int n = 0;
    while (n < MPIR_DT_IOV_MAX && c.e < p->count) {
        uintptr_t at = (uintptr_t)p->ubuf + (uintptr_t)(c.e * d->extent + c.k * t->rep_stride +
                                                        t->runs[c.j].off) + c.at;
        iov[n].iov_base = (void *)at;
        iov[n++].iov_len = (size_t)t->runs[c.j].len - c.at;
        c.at = 0;
        cursor_next_run(t, &c);
    }
    return n;
}

/* Blocking calls bounce small messages through the stack: no allocation. */
#define SMALL_BOUNCE 4096

int mpir_dt_send(const char *fn, const void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                 int dest, int tag, struct MPI_ABI_Comm *c, int mode)
{
    (void)fn;
    char small[SMALL_BOUNCE];
    size_t n = dt_packed_size(d, count);
    /* up to 4 KiB in several pieces, packing on the stack and the request-free
     * fast path beat the iovec: 4 x 1 KiB 4.3 vs 3.3 GB/s (one piece: 1.71 vs 1.60) */
    int several = (int64_t)count * d->rep->reps * d->rep->nruns > 1;
    if (n > sizeof small || (!several && iov_ok(d, count))) {
        mpid_req_t *r = mpir_dt_isend(buf, count, d, dest, tag, c, mode);
        mpid_wait(r);
        req_release(r);
        return MPI_SUCCESS;
    }
    dt_copy(d, buf, count, 0, small, n, 0);
    return mpid_send(small, n, dest, tag, c, mode); /* returns once the data is taken */
}

static dt_pending_t *pending_new(void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                                int with_buf)
{
    dt_pending_t *p = malloc(sizeof *p);
    if (!p)
        mpir_fatal("out of memory for a typed operation");
    p->packed = with_buf ? bounce_get(dt_packed_size(d, count), &p->cap) : NULL;
    p->kind = DTP_TYPED;
    p->delivered = 0;
    p->direct = 0;
    p->is_send = 0;
    p->stream = 0;
    p->cur = (dt_cursor_t){0};
    p->ubuf = buf;
    p->count = count;
    p->d = d;
    dt_retain(d);
    return p;
}

static void pending_free(dt_pending_t *p)
{
    dt_release(p->d);
    if (p->packed)
        bounce_put(p->packed, p->cap);
    free(p);
}

/* Send packed bytes; the bounce buffer goes back when the send completes. */
static mpid_req_t *send_packed(dt_pending_t *p, size_t n, int dest, int tag,
                               struct MPI_ABI_Comm *c, int mode)
{
    MPID_CS_SCOPE(); /* MULTIPLE: dtp set before progress can complete r */
    mpid_req_t *r = mpid_isend(p->packed, n, dest, tag, c, mode);
    r->dtp = p;
    if (r->done)
        mpir_dt_complete(r);
    return r;
}

mpid_req_t *mpir_dt_isend(const void *buf, MPI_Count count, struct MPI_ABI_Datatype *d, int dest,
                          int tag, struct MPI_ABI_Comm *c, int mode)
{
    if (d->contiguous)
        return mpid_isend(buf, dtype_bytes(d, count), dest, tag, c, mode);
    dt_pending_t *p = pending_new((void *)buf, count, d, 0);
    size_t n;
    if (iov_ok(d, count)) { /* the channel copies straight from the pieces */
        p->is_send = 1;
        /* the device knows p from the start and completes it itself */
        return mpid_isend_dt(NULL, p, dt_packed_size(d, count), dest, tag, c, mode);
    }
    p->is_send = 1;
    n = dt_packed_size(d, count);
    if ((n > mpid.eager_max || n > STREAM_CHUNK) && n <= UINT32_MAX) {
        /* into the ring a chunk at a time: eager up to the typed eager
         * limit, a streamed rendezvous (RTS, W_GO, data) above; pieces
         * averaging SKIFF_MPI_DTYPE_IOV_MIN go as they are, others packed */
        if ((int64_t)d->size < dt_iov_min() * d->rep->reps * d->rep->nruns) {
            int remote = mpid.remote[comm_world_rank(c, dest)];
            size_t chunk = n <= dt_eager_max() && !remote ? STREAM_CHUNK : STREAM_CHUNK_RNDV;
            p->stream = n < chunk ? n : chunk;
        }
        if (n <= dt_eager_max())
            return mpid_isend_dt(NULL, p, n, dest, tag, c, mode);
        return mpid_isend_stream(p, n, dest, tag, c, mode);
    }
    p->packed = pack_copy(buf, count, d, &n, &p->cap);
    return send_packed(p, n, dest, tag, c, mode);
}

void mpir_dt_complete(mpid_req_t *r)
{
    dt_pending_t *p = r->dtp;
    if (p->kind == DTP_IDUP) {
        mpir_idup_complete(r);
        return;
    }
    if (p->is_send) { /* the message is out: the bounce buffer (if any) can go */
        r->dtp = NULL;
        pending_free(p);
        return;
    }
    if (!p->packed) /* a persistent request's template: nothing arrived here */
        return;
    size_t n = r->msg_len < r->cap ? r->msg_len : r->cap;
    if (!r->cancelled && !p->delivered && p->direct < n)
        dt_copy(p->d, p->ubuf, p->count, 0, p->packed, n, 1);
    r->dtp = NULL;
    pending_free(p);
}

void mpir_dt_forget(mpid_req_t *r)
{
    if (*(int *)r->dtp == DTP_IDUP) {
        mpir_idup_forget(r);
        return;
    }
    if (*(int *)r->dtp == DTP_PCOLL) {
        pcoll_forget(r);
        return;
    }
    if (*(int *)r->dtp == DTP_PART) {
        part_forget(r);
        return;
    }
    pending_free(r->dtp);
    r->dtp = NULL;
}

mpid_req_t *mpir_dt_irecv(void *buf, MPI_Count count, struct MPI_ABI_Datatype *d, int src, int tag,
                          struct MPI_ABI_Comm *c)
{
    if (d->contiguous)
        return mpid_irecv(buf, dtype_bytes(d, count), src, tag, c);
    dt_pending_t *p = pending_new(buf, count, d, 1);
    MPID_CS_SCOPE(); /* MULTIPLE: dtp set before progress can complete r */
    mpid_req_t *r = mpid_irecv(p->packed, dt_packed_size(d, count), src, tag, c);
    r->dtp = p;
    if (r->done) /* an unexpected message completed it at once */
        mpir_dt_complete(r);
    return r;
}

void mpir_dt_attach(mpid_req_t *u, void *buf, MPI_Count count, struct MPI_ABI_Datatype *d)
{
    dt_pending_t *p = pending_new(buf, count, d, 1);
    MPID_CS_SCOPE(); /* MULTIPLE: u may still be arriving (progress delivers into it) */
    u->dtp = p; /* before attaching: attaching may complete it */
    mpid_recv_attach(u, p->packed, dt_packed_size(d, count));
}

int mpir_dt_recv(const char *fn, void *buf, MPI_Count count, struct MPI_ABI_Datatype *d, int src,
                 int tag, struct MPI_ABI_Comm *c, MPI_Status *st)
{
    size_t cap = dt_packed_size(d, count), sent = 0;
    char small[SMALL_BOUNCE];
    int rc;
    if (cap <= sizeof small) {
        rc = mpid_recv(small, cap, src, tag, c, st, &sent);
        dt_copy(d, buf, count, 0, small, sent < cap ? sent : cap, 1);
    } else { /* a rendezvous goes straight into the pieces (mpir_dt_pull) */
        mpid_req_t *r = mpir_dt_irecv(buf, count, d, src, tag, c);
        mpid_wait(r);
        req_status(r, st);
        rc = r->st_error;
        sent = r->msg_len;
        req_release(r);
    }
    if (rc)
        return mpir_recv_error(fn, c, rc, st->MPI_SOURCE, st->MPI_TAG, sent, cap);
    return MPI_SUCCESS;
}

/* Persistent requests: keep the typed arguments, start typed operations. */
void mpir_dt_persist(mpid_req_t *r, const void *buf, MPI_Count count, struct MPI_ABI_Datatype *d)
{
    r->dtp = pending_new((void *)buf, count, d, 0);
}

int mpir_dt_start(const char *fn, mpid_req_t *r, mpid_req_t **op)
{
    dt_pending_t *p = r->dtp;
    if (r->p_is_recv) {
        *op = mpir_dt_irecv(p->ubuf, p->count, p->d, r->peer, r->tag, r->comm);
        return MPI_SUCCESS;
    }
    if (r->p_mode != MODE_BUFFERED) {
        *op = mpir_dt_isend(p->ubuf, p->count, p->d, r->peer, r->tag, r->comm, r->p_mode);
        return MPI_SUCCESS;
    }
    size_t n, cap;
    char *tmp = pack_copy(p->ubuf, p->count, p->d, &n, &cap);
    int rc = mpir_bsend_start(fn, tmp, n, r->peer, r->tag, r->comm, op);
    bounce_put(tmp, cap);
    return rc;
}

int mpir_dt_bsend(const char *fn, const void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                  int dest, int tag, struct MPI_ABI_Comm *c, mpid_req_t **out)
{
    size_t n, cap;
    char *tmp = pack_copy(buf, count, d, &n, &cap);
    int rc = mpir_bsend_start(fn, tmp, n, dest, tag, c, out);
    bounce_put(tmp, cap);
    return rc;
}

int mpir_dt_sendrecv(const char *fn, const void *sbuf, MPI_Count scount,
                     struct MPI_ABI_Datatype *sd, int dest, int stag, void *rbuf, MPI_Count rcount,
                     struct MPI_ABI_Datatype *rd, int src, int rtag, struct MPI_ABI_Comm *c,
                     MPI_Status *status)
{
    mpid_req_t *s = dest == MPI_PROC_NULL ? NULL
                                          : mpir_dt_isend(sbuf, scount, sd, dest, stag, c, MODE_STD);
    MPI_Status st;
    int err = MPI_SUCCESS;
    if (src == MPI_PROC_NULL) {
        status_proc_null(&st);
    } else {
        mpid_req_t *r = mpir_dt_irecv(rbuf, rcount, rd, src, rtag, c);
        mpid_wait(r);
        req_status(r, &st);
        err = r->st_error;
        size_t sent = r->msg_len, cap = r->cap;
        req_release(r);
        if (err) {
            if (s) {
                mpid_wait(s);
                req_release(s);
            }
            if (status)
                *status = st;
            return mpir_recv_error(fn, c, err, st.MPI_SOURCE, st.MPI_TAG, sent, cap);
        }
    }
    if (s) {
        mpid_wait(s);
        req_release(s);
    }
    if (status)
        *status = st;
    return MPI_SUCCESS;
}

int mpir_dt_sendrecv_replace(const char *fn, void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                             int dest, int stag, int src, int rtag, struct MPI_ABI_Comm *c,
                             MPI_Status *status)
{
    /* the outgoing data is packed first, so receiving into buf cannot spoil it */
    mpid_req_t *s = NULL;
    if (dest != MPI_PROC_NULL) {
        dt_pending_t *p = pending_new(buf, count, d, 0);
        size_t n;
        p->packed = pack_copy(buf, count, d, &n, &p->cap);
        p->is_send = 1;
        s = send_packed(p, n, dest, stag, c, MODE_STD);
    }
    MPI_Status st;
    int err = MPI_SUCCESS;
    if (src == MPI_PROC_NULL)
        status_proc_null(&st);
    else
        err = mpir_dt_recv(fn, buf, count, d, src, rtag, c, &st);
    if (s) {
        mpid_wait(s);
        req_release(s);
    }
    if (status)
        *status = st;
    return err;
}

/* ---- rendezvous straight into the receive layout ------------------------------ */
static long long pull_min = -1;
#define PULL_WINDOW (64 * 1024) /* fits L2 beside the data it is unpacked to */

#define PULL_PIECES 1024 /* IOV_MAX: one syscall per batch on CMA */

/* Bytes [off, off+len) of the sender's contiguous data into the pieces. */
static int pull_batch(mpid_req_t *r, size_t off, size_t len, const struct iovec *piece, int np)
{
    struct iovec remote = {(void *)(uintptr_t)off, len};
    return skf_getv(mpid.ch, &r->key, &remote, 1, piece, np);
}

int mpir_dt_pull(mpid_req_t *r, size_t n)
{
    dt_pending_t *p = r->dtp;
    const struct MPI_ABI_Datatype *d = p->d;
    const struct dtype_rep *t = d->rep;
    if (pull_min < 0)
        pull_min = skf_param_ll("SKIFF_MPI_DTYPE_PULL_MIN");
    if (!p->packed)
        return 1;
    if ((int64_t)d->size < pull_min * t->reps * t->nruns) {
        /* small pieces: pull a window at a time and unpack it while it is
         * still in cache, instead of the whole message into memory first */
        for (size_t off = 0; off < n; off += PULL_WINDOW) {
            size_t w = n - off < PULL_WINDOW ? n - off : PULL_WINDOW;
            int rc = skf_get(mpid.ch, &r->key, off, p->packed, w);
            if (rc < 0)
                return rc;
            dt_copy(d, p->ubuf, p->count, off, p->packed, w, 1);
        }
        p->delivered = 1;
        return 0;
    }
    /* large pieces: the sender's contiguous data scattered straight into
     * them, up to PULL_PIECES per skf_getv (one process_vm_readv on CMA) */
    struct iovec piece[PULL_PIECES];
    int np = 0;
    size_t off = 0, batch = 0; /* batch: bytes in piece[] not yet fetched */
    for (int64_t e = 0; e < p->count && off + batch < n; e++) {
        uintptr_t base = (uintptr_t)p->ubuf + (uintptr_t)(e * d->extent);
        for (int64_t k = 0; k < t->reps && off + batch < n; k++)
            for (int64_t j = 0; j < t->nruns && off + batch < n; j++) {
                size_t len = (size_t)t->runs[j].len;
                if (len > n - off - batch)
                    len = n - off - batch;
                piece[np].iov_base = (void *)(base + (uintptr_t)(k * t->rep_stride + t->runs[j].off));
                piece[np++].iov_len = len;
                batch += len;
                if (np == PULL_PIECES) {
                    int rc = pull_batch(r, off, batch, piece, np);
                    if (rc < 0)
                        return rc;
                    off += batch;
                    batch = 0;
                    np = 0;
                }
            }
    }
    int rc = np ? pull_batch(r, off, batch, piece, np) : 0;
    if (rc < 0)
        return rc;
    p->delivered = 1;
    return 0;
}

/* ---- eager data straight from the ring ------------------------------------------ */
int mpir_dt_deliver(mpid_req_t *r, const struct iovec *cont, int ncont, size_t off, size_t at,
                    size_t n)
{
    dt_pending_t *p = r->dtp;
    if (p->is_send || !p->packed || p->direct != at)
        return 0; /* earlier bytes went to the bounce buffer: keep them together */
    for (int i = 0; i < ncont && n; i++) {
        size_t len = cont[i].iov_len;
        if (off >= len) {
            off -= len;
            continue;
        }
        size_t k = len - off < n ? len - off : n;
        dt_copy(p->d, p->ubuf, p->count, p->direct, (char *)cont[i].iov_base + off, k, 1);
        p->direct += k;
        n -= k;
        off = 0;
    }
    return 1;
}
