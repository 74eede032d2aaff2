/*
 * send.c — MPI_Send, Ssend, Rsend, Isend, Issend, Irsend, Sendrecv,
 * Sendrecv_replace: check the arguments, then hand bytes to the device.
 * Ready mode is carried as a standard send (allowed: a correct ready-mode
 * program behaves identically).
 */
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"

static inline __attribute__((always_inline)) int send_blocking(const char *fn, const void *buf,
                                                               MPI_Count count, MPI_Datatype dt,
                                                               int dest, int tag, MPI_Comm comm,
                                                               int mode)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t bytes;
    int rc = check_p2p(fn, buf, count, dt, dest, tag, comm, 0, &c, &bytes);
    if (unlikely(rc))
        return rc;
    if (unlikely(dest == MPI_PROC_NULL))
        return MPI_SUCCESS;
    if (unlikely(!dtype_of(dt)->contiguous))
        return mpir_dt_send(fn, buf, count, dtype_of(dt), dest, tag, c, mode);
    rc = mpid_send(buf, bytes, dest, tag, c, mode);
    return unlikely(rc) ? mpir_recv_error(fn, c, rc, dest, tag, 0, bytes) : MPI_SUCCESS;
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Send", buf, count, dt, dest, tag, comm, MODE_STD);
}

int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Send_c", buf, count, dt, dest, tag, comm, MODE_STD);
}

int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Ssend", buf, count, dt, dest, tag, comm, MODE_SYNC);
}

int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    return send_blocking("MPI_Ssend_c", buf, count, dt, dest, tag, comm, MODE_SYNC);
}

int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Rsend", buf, count, dt, dest, tag, comm, MODE_READY);
}

int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    return send_blocking("MPI_Rsend_c", buf, count, dt, dest, tag, comm, MODE_READY);
}

static inline __attribute__((always_inline)) int send_nonblocking(const char *fn, const void *buf,
                                                                  MPI_Count count, MPI_Datatype dt,
                                                                  int dest, int tag, MPI_Comm comm,
                                                                  int mode, MPI_Request *request)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t bytes;
    int rc = check_p2p(fn, buf, count, dt, dest, tag, comm, 0, &c, &bytes);
    if (unlikely(rc) || (rc = check_req_ptr(fn, c, request)))
        return rc;
    mpid_req_t *r = dest == MPI_PROC_NULL               ? req_proc_null()
                    : unlikely(!dtype_of(dt)->contiguous) ? mpir_dt_isend(buf, count, dtype_of(dt), dest, tag, c, mode)
                                                        : mpid_isend(buf, bytes, dest, tag, c, mode);
    r->comm = c;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    return send_nonblocking("MPI_Isend", buf, count, dt, dest, tag, comm, MODE_STD, request);
}

int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Isend_c", buf, count, dt, dest, tag, comm, MODE_STD, request);
}

int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return send_nonblocking("MPI_Issend", buf, count, dt, dest, tag, comm, MODE_SYNC, request);
}

int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Issend_c", buf, count, dt, dest, tag, comm, MODE_SYNC, request);
}

int MPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return send_nonblocking("MPI_Irsend", buf, count, dt, dest, tag, comm, MODE_READY, request);
}

int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return send_nonblocking("MPI_Irsend_c", buf, count, dt, dest, tag, comm, MODE_READY, request);
}

static int do_sendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, MPI_Status *status)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t sbytes, rbytes;
    int rc;
    if ((rc = check_p2p(fn, sendbuf, sendcount, sendtype, dest, sendtag, comm, 0, &c, &sbytes)) ||
        (rc = check_p2p(fn, recvbuf, recvcount, recvtype, source, recvtag, comm, 1, &c, &rbytes)))
        return rc;
    if (!dtype_of(sendtype)->contiguous || !dtype_of(recvtype)->contiguous)
        return mpir_dt_sendrecv(fn, sendbuf, sendcount, dtype_of(sendtype), dest, sendtag, recvbuf,
                                recvcount, dtype_of(recvtype), source, recvtag, c, status);
    mpid_req_t *s = dest == MPI_PROC_NULL ? NULL : mpid_isend(sendbuf, sbytes, dest, sendtag, c, MODE_STD);
    MPI_Status st;
    size_t sent = 0;
    int err = MPI_SUCCESS;
    if (source == MPI_PROC_NULL)
        status_proc_null(&st);
    else
        err = mpid_recv(recvbuf, rbytes, source, recvtag, c, &st, &sent);
    if (s) {
        mpid_wait(s);
        req_release(s);
    }
    if (status)
        *status = st;
    if (err)
        return mpir_recv_error(fn, c, err, st.MPI_SOURCE, st.MPI_TAG, sent, rbytes);
    return MPI_SUCCESS;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    return do_sendrecv("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, status);
}

int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return do_sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, status);
}

static int do_sendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                               int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                               MPI_Status *status)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t bytes;
    int rc;
    if ((rc = check_p2p(fn, buf, count, dt, dest, sendtag, comm, 0, &c, &bytes)) ||
        (rc = check_p2p(fn, buf, count, dt, source, recvtag, comm, 1, &c, &bytes)))
        return rc;
    if (!dtype_of(dt)->contiguous)
        return mpir_dt_sendrecv_replace(fn, buf, count, dtype_of(dt), dest, sendtag, source,
                                        recvtag, c, status);
    /* The outgoing data must stay intact until sent: receive into a copy. */
    void *tmp = malloc(bytes ? bytes : 1);
    if (!tmp)
        return mpir_error(c, MPI_ERR_NO_MEM, "%s: cannot allocate %zu bytes", fn, bytes);
    mpid_req_t *s = dest == MPI_PROC_NULL ? NULL : mpid_isend(buf, bytes, dest, sendtag, c, MODE_STD);
    MPI_Status st;
    size_t sent = 0;
    int err = MPI_SUCCESS;
    if (source == MPI_PROC_NULL)
        status_proc_null(&st);
    else
        err = mpid_recv(tmp, bytes, source, recvtag, c, &st, &sent);
    if (s) {
        mpid_wait(s);
        req_release(s);
    }
    if (source != MPI_PROC_NULL)
        memcpy(buf, tmp, sent < bytes ? sent : bytes);
    free(tmp);
    if (status)
        *status = st;
    if (err)
        return mpir_recv_error(fn, c, err, st.MPI_SOURCE, st.MPI_TAG, sent, bytes);
    return MPI_SUCCESS;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return do_sendrecv_replace("MPI_Sendrecv_replace", buf, count, dt, dest, sendtag, source,
                               recvtag, comm, status);
}

int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return do_sendrecv_replace("MPI_Sendrecv_replace_c", buf, count, dt, dest, sendtag, source,
                               recvtag, comm, status);
}
