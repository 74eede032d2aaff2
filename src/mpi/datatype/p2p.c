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

/* A receive whose bytes still have to be unpacked; or (persistent requests)
 * the typed arguments to start from. */
typedef struct dt_pending {
    void *ubuf;
    int count;
    struct MPI_ABI_Datatype *d;
    char *packed;
    int delivered; /* the data went straight into ubuf (mpir_dt_pull) */
} dt_pending_t;

static char *pack_copy(const void *buf, int count, struct MPI_ABI_Datatype *d, size_t *n)
{
    *n = dt_packed_size(d, count);
    char *tmp = malloc(*n ? *n : 1);
    if (!tmp)
        mpir_fatal("out of memory packing a %zu-byte message", *n);
    dt_copy(d, buf, count, 0, tmp, *n, 0);
    return tmp;
}

/* Blocking calls bounce small messages through the stack: no allocation. */
#define SMALL_BOUNCE 4096

int mpir_dt_send(const char *fn, const void *buf, int count, struct MPI_ABI_Datatype *d, int dest,
                 int tag, struct MPI_ABI_Comm *c, int mode)
{
    (void)fn;
    char small[SMALL_BOUNCE];
    size_t n = dt_packed_size(d, count);
    if (n <= sizeof small) {
        dt_copy(d, buf, count, 0, small, n, 0);
        return mpid_send(small, n, dest, tag, c, mode); /* returns once the data is taken */
    }
    char *tmp = pack_copy(buf, count, d, &n);
    int rc = mpid_send(tmp, n, dest, tag, c, mode);
    free(tmp);
    return rc;
}

mpid_req_t *mpir_dt_isend(const void *buf, int count, struct MPI_ABI_Datatype *d, int dest,
                          int tag, struct MPI_ABI_Comm *c, int mode)
{
    if (d->contiguous)
        return mpid_isend(buf, dtype_bytes(d, count), dest, tag, c, mode);
    size_t n;
    char *tmp = pack_copy(buf, count, d, &n);
    mpid_req_t *r = mpid_isend(tmp, n, dest, tag, c, mode);
    r->tmp = tmp; /* a send request's tmp is free: released with the request */
    return r;
}

static dt_pending_t *pending_new(void *buf, int count, struct MPI_ABI_Datatype *d, int with_buf)
{
    dt_pending_t *p = malloc(sizeof *p);
    size_t n = dt_packed_size(d, count);
    if (!p || (with_buf && !(p->packed = malloc(n ? n : 1))))
        mpir_fatal("out of memory for a %zu-byte typed receive", n);
    if (!with_buf)
        p->packed = NULL;
    p->delivered = 0;
    p->ubuf = buf;
    p->count = count;
    p->d = d;
    dt_retain(d);
    return p;
}

static void pending_free(dt_pending_t *p)
{
    dt_release(p->d);
    free(p->packed);
    free(p);
}

void mpir_dt_complete(mpid_req_t *r)
{
    dt_pending_t *p = r->dtp;
    if (!p->packed) /* a persistent request's template: nothing arrived here */
        return;
    size_t n = r->msg_len < r->cap ? r->msg_len : r->cap;
    if (!r->cancelled && !p->delivered)
        dt_copy(p->d, p->ubuf, p->count, 0, p->packed, n, 1);
    r->dtp = NULL;
    pending_free(p);
}

void mpir_dt_forget(mpid_req_t *r)
{
    pending_free(r->dtp);
    r->dtp = NULL;
}

mpid_req_t *mpir_dt_irecv(void *buf, int count, struct MPI_ABI_Datatype *d, int src, int tag,
                          struct MPI_ABI_Comm *c)
{
    if (d->contiguous)
        return mpid_irecv(buf, dtype_bytes(d, count), src, tag, c);
    dt_pending_t *p = pending_new(buf, count, d, 1);
    mpid_req_t *r = mpid_irecv(p->packed, dt_packed_size(d, count), src, tag, c);
    r->dtp = p;
    if (r->done) /* an unexpected message completed it at once */
        mpir_dt_complete(r);
    return r;
}

void mpir_dt_attach(mpid_req_t *u, void *buf, int count, struct MPI_ABI_Datatype *d)
{
    dt_pending_t *p = pending_new(buf, count, d, 1);
    u->dtp = p; /* before attaching: attaching may complete it */
    mpid_recv_attach(u, p->packed, dt_packed_size(d, count));
}

int mpir_dt_recv(const char *fn, void *buf, int count, struct MPI_ABI_Datatype *d, int src,
                 int tag, struct MPI_ABI_Comm *c, MPI_Status *st)
{
    size_t cap = dt_packed_size(d, count), sent = 0;
    char small[SMALL_BOUNCE];
    char *tmp = cap <= sizeof small ? small : malloc(cap);
    if (!tmp)
        return mpir_error(c, MPI_ERR_NO_MEM, "%s: no memory for a %zu-byte typed receive", fn,
                          cap);
    int rc = mpid_recv(tmp, cap, src, tag, c, st, &sent);
    dt_copy(d, buf, count, 0, tmp, sent < cap ? sent : cap, 1);
    if (tmp != small)
        free(tmp);
    if (rc)
        return mpir_recv_error(fn, c, rc, st->MPI_SOURCE, st->MPI_TAG, sent, cap);
    return MPI_SUCCESS;
}

/* Persistent requests: keep the typed arguments, start typed operations. */
void mpir_dt_persist(mpid_req_t *r, const void *buf, int count, struct MPI_ABI_Datatype *d)
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
    size_t n;
    char *tmp = pack_copy(p->ubuf, p->count, p->d, &n);
    int rc = mpir_bsend_start(fn, tmp, n, r->peer, r->tag, r->comm, op);
    free(tmp);
    return rc;
}

int mpir_dt_bsend(const char *fn, const void *buf, int count, struct MPI_ABI_Datatype *d,
                  int dest, int tag, struct MPI_ABI_Comm *c, mpid_req_t **out)
{
    size_t n;
    char *tmp = pack_copy(buf, count, d, &n);
    int rc = mpir_bsend_start(fn, tmp, n, dest, tag, c, out);
    free(tmp);
    return rc;
}

int mpir_dt_sendrecv(const char *fn, const void *sbuf, int scount, struct MPI_ABI_Datatype *sd,
                     int dest, int stag, void *rbuf, int rcount, struct MPI_ABI_Datatype *rd,
                     int src, int rtag, struct MPI_ABI_Comm *c, MPI_Status *status)
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

int mpir_dt_sendrecv_replace(const char *fn, void *buf, int count, struct MPI_ABI_Datatype *d,
                             int dest, int stag, int src, int rtag, struct MPI_ABI_Comm *c,
                             MPI_Status *status)
{
    /* the outgoing data is packed first, so receiving into buf cannot spoil it */
    size_t n;
    char *tmp = pack_copy(buf, count, d, &n);
    mpid_req_t *s = dest == MPI_PROC_NULL ? NULL : mpid_isend(tmp, n, dest, stag, c, MODE_STD);
    if (s)
        s->tmp = tmp;
    else
        free(tmp);
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

int mpir_dt_pull(mpid_req_t *r, size_t n)
{
    dt_pending_t *p = r->dtp;
    const struct MPI_ABI_Datatype *d = p->d;
    const struct dtype_rep *t = d->rep;
    if (pull_min < 0)
        pull_min = skf_param_ll("SKIFF_MPI_DTYPE_PULL_MIN");
    /* one get per piece: worth it only when pieces are large */
    if (!p->packed || (int64_t)d->size < pull_min * t->reps * t->nruns)
        return 1;
    size_t off = 0;
    for (int64_t e = 0; e < p->count && off < n; e++) {
        uintptr_t base = (uintptr_t)p->ubuf + (uintptr_t)(e * d->extent);
        for (int64_t k = 0; k < t->reps && off < n; k++)
            for (int64_t j = 0; j < t->nruns && off < n; j++) {
                size_t len = (size_t)t->runs[j].len;
                if (len > n - off)
                    len = n - off;
                void *dst = (void *)(base + (uintptr_t)(k * t->rep_stride + t->runs[j].off));
                int rc = skf_get(mpid.ch, &r->key, off, dst, len);
                if (rc < 0)
                    return rc;
                off += len;
            }
    }
    p->delivered = 1;
    return 0;
}
