/*
 * isendrecv.c — MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0).
 *
 * Both halves are ordinary point-to-point operations started at once (the
 * same device paths as MPI_Isend/MPI_Irecv, derived types included).  The
 * receive is the request the user gets: its status is the receive's, and the
 * device counts it done only when the send half is done too (request.c:
 * ->pair), so no extra request kind and no progress hook are needed.
 */
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"

/* Start the receive half (source may be MPI_PROC_NULL). */
static mpid_req_t *recv_half(void *buf, MPI_Count count, MPI_Datatype dt, size_t bytes, int source,
                             int tag, struct MPI_ABI_Comm *c)
{
    if (source == MPI_PROC_NULL)
        return req_proc_null();
    return dtype_of(dt)->contiguous ? mpid_irecv(buf, bytes, source, tag, c)
                                    : mpir_dt_irecv(buf, count, dtype_of(dt), source, tag, c);
}

static mpid_req_t *send_half(const void *buf, MPI_Count count, MPI_Datatype dt, size_t bytes,
                             int dest, int tag, struct MPI_ABI_Comm *c)
{
    return dtype_of(dt)->contiguous ? mpid_isend(buf, bytes, dest, tag, c, MODE_STD)
                                    : mpir_dt_isend(buf, count, dtype_of(dt), dest, tag, c, MODE_STD);
}

/* Join the halves: one request, done when both are. */
static mpid_req_t *join(mpid_req_t *s, mpid_req_t *r)
{
    MPID_CS_SCOPE(); /* MULTIPLE: progress may complete either half meanwhile */
    if (!s)
        return r;
    if (r->kind != REQ_RECV) { /* receive from MPI_PROC_NULL: the send carries its status */
        s->st_source = MPI_PROC_NULL;
        s->st_tag = MPI_ANY_TAG;
        req_release(r);
        return s;
    }
    if (s->done) {
        req_release(s);
        return r;
    }
    if (r->done) { /* arrived while posting: now it waits for the send */
        r->done = 0;
        r->pair_arrived = 1;
    }
    r->pair = s;
    s->pair = r;
    return r;
}

static int do_isendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                        MPI_Comm comm, MPI_Request *request)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t sbytes, rbytes;
    int rc;
    if ((rc = check_p2p(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, &c, &sbytes)) ||
        (rc = check_p2p(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, 1, &c, &rbytes)) ||
        (rc = check_req_ptr(fn, c, request)))
        return rc;
    mpid_req_t *s = dest == MPI_PROC_NULL
                        ? NULL
                        : send_half(sendbuf, sendcount, sendtype, sbytes, dest, sendtag, c);
    mpid_req_t *r = join(s, recv_half(recvbuf, recvcount, recvtype, rbytes, source, recvtag, c));
    r->comm = c;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Request *request)
{
    return do_isendrecv("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, comm, request);
}

int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return do_isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, comm, request);
}

static int do_isendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                                int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                                MPI_Request *request)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t bytes;
    int rc;
    if ((rc = check_p2p(fn, buf, count, dt, dest, sendtag, comm, 0, &c, &bytes)) ||
        (rc = check_p2p(fn, buf, count, dt, source, recvtag, comm, 1, &c, &bytes)) ||
        (rc = check_req_ptr(fn, c, request)))
        return rc;
    mpid_req_t *s = NULL;
    if (dest != MPI_PROC_NULL) {
        /* The outgoing data must survive the receive into buf: send from a
         * copy of the span the elements cover (laid out as the type), which
         * the send half owns (->tmp, freed with it). */
        struct MPI_ABI_Datatype *d = dtype_of(dt);
        int64_t lb = d->contiguous ? 0 : d->rep->true_lb;
        size_t span = !count ? 0
                      : d->contiguous
                          ? bytes
                          : (size_t)(d->rep->true_ub - d->rep->true_lb) +
                                (size_t)(count - 1) * (size_t)d->extent;
        char *copy = malloc(span ? span : 1);
        if (!copy)
            return mpir_error(c, MPI_ERR_NO_MEM, "%s: cannot allocate %zu bytes", fn, span);
        memcpy(copy, (char *)buf + lb, span);
        s = send_half(copy - lb, count, dt, bytes, dest, sendtag, c);
        s->tmp = copy;
    }
    mpid_req_t *r = join(s, recv_half(buf, count, dt, bytes, source, recvtag, c));
    r->comm = c;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return do_isendrecv_replace("MPI_Isendrecv_replace", buf, count, dt, dest, sendtag, source,
                                recvtag, comm, request);
}

int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int sendtag,
                            int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return do_isendrecv_replace("MPI_Isendrecv_replace_c", buf, count, dt, dest, sendtag, source,
                                recvtag, comm, request);
}
