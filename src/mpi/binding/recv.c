/*
 * recv.c — MPI_Recv, Irecv, Probe, Iprobe, Mprobe, Improbe, Mrecv, Imrecv.
 */
#include "binding/check.h"

int mpir_recv_error(const char *fn, struct MPI_ABI_Comm *c, int err, int src, int tag, size_t sent,
                    size_t cap)
{
    if (err == MPI_ERR_TRUNCATE)
        return mpir_error(c, err,
                          "%s: message truncated: rank %d sent %zu bytes (tag %d), the receive "
                          "buffer holds %zu bytes",
                          fn, src, sent, tag, cap);
    const char *gone = c && src >= 0 && src < c->size ? dyn_gone(comm_world_rank(c, src)) : NULL;
    if (gone)
        return mpir_error(c, err, "%s: rank %d (tag %d) is a process of another job that has "
                          "ended: %s", fn, src, tag, gone);
    return mpir_error(c, err, "%s: receive from rank %d failed", fn, src);
}

static inline __attribute__((always_inline)) int do_recv(const char *fn, void *buf,
                                                         MPI_Count count, MPI_Datatype dt,
                                                         int source, int tag, MPI_Comm comm,
                                                         MPI_Status *status)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t bytes, sent;
    int rc = check_p2p(fn, buf, count, dt, source, tag, comm, 1, &c, &bytes);
    if (unlikely(rc))
        return rc;
    if (unlikely(source == MPI_PROC_NULL)) {
        status_proc_null(status);
        return MPI_SUCCESS;
    }
    MPI_Status local, *st = status ? status : &local;
    if (unlikely(!dtype_of(dt)->contiguous))
        return mpir_dt_recv(fn, buf, count, dtype_of(dt), source, tag, c, st);
    rc = mpid_recv(buf, bytes, source, tag, c, st, &sent);
    if (unlikely(rc))
        return mpir_recv_error(fn, c, rc, st->MPI_SOURCE, st->MPI_TAG, sent, bytes);
    return MPI_SUCCESS;
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    return do_recv("MPI_Recv", buf, count, dt, source, tag, comm, status);
}

int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Status *status)
{
    return do_recv("MPI_Recv_c", buf, count, dt, source, tag, comm, status);
}

static inline __attribute__((always_inline)) int do_irecv(const char *fn, void *buf,
                                                          MPI_Count count, MPI_Datatype dt,
                                                          int source, int tag, MPI_Comm comm,
                                                          MPI_Request *request)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t bytes;
    int rc = check_p2p(fn, buf, count, dt, source, tag, comm, 1, &c, &bytes);
    if (unlikely(rc) || (rc = check_req_ptr(fn, c, request)))
        return rc;
    mpid_req_t *r = source == MPI_PROC_NULL ? req_proc_null()
                    : unlikely(!dtype_of(dt)->contiguous) ? mpir_dt_irecv(buf, count, dtype_of(dt), source, tag, c)
                                                        : mpid_irecv(buf, bytes, source, tag, c);
    r->comm = c;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    return do_irecv("MPI_Irecv", buf, count, dt, source, tag, comm, request);
}

int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return do_irecv("MPI_Irecv_c", buf, count, dt, source, tag, comm, request);
}

static int check_probe(const char *fn, int source, int tag, MPI_Comm comm, struct MPI_ABI_Comm **c)
{
    int rc;
    if ((rc = check_comm(fn, comm, c)) || (rc = check_rank(fn, *c, source, 1)) ||
        (rc = check_tag(fn, *c, tag, 1)))
        return rc;
    return 0;
}

static int probe(const char *fn, int source, int tag, MPI_Comm comm, int blocking, int mprobe,
                 int *flag, MPI_Message *message, MPI_Status *status)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc = check_probe(fn, source, tag, comm, &c);
    if (rc)
        return rc;
    if ((!blocking && !flag) || (mprobe && !message))
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL output argument", fn);
    if (source == MPI_PROC_NULL) {
        status_proc_null(status);
        if (flag)
            *flag = 1;
        if (message)
            *message = MPI_MESSAGE_NO_PROC;
        return MPI_SUCCESS;
    }
    mpid_req_t *m = NULL;
    int found;
    while (!(found = mpid_iprobe(source, tag, c, status, message ? &m : NULL)) && blocking)
        mpid_idle();
    if (flag)
        *flag = found;
    if (message)
        *message = found ? (MPI_Message)m : MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return probe("MPI_Probe", source, tag, comm, 1, 0, NULL, NULL, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    return probe("MPI_Iprobe", source, tag, comm, 0, 0, flag, NULL, status);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    return probe("MPI_Mprobe", source, tag, comm, 1, 1, NULL, message, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status)
{
    return probe("MPI_Improbe", source, tag, comm, 0, 1, flag, message, status);
}

/* Resolve a message handle from Mprobe; NULL with *rc set when invalid. */
static mpid_req_t *check_message(const char *fn, MPI_Message *message, int *rc)
{
    *rc = 0;
    if (!message || *message == MPI_MESSAGE_NULL || (uintptr_t)*message < MPIR_PREDEF_BOUND ||
        ((mpid_req_t *)*message)->magic != MAGIC_REQ || ((mpid_req_t *)*message)->attached) {
        if (message && *message == MPI_MESSAGE_NO_PROC)
            return NULL;
        *rc = mpir_error(NULL, MPI_ERR_REQUEST, "%s: invalid message handle%s", fn,
                         message && *message == MPI_MESSAGE_NULL ? " MPI_MESSAGE_NULL" : "");
        return NULL;
    }
    return (mpid_req_t *)*message;
}

static int check_mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                       struct MPI_ABI_Comm *c, size_t *bytes)
{
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_count(fn, c, count)) || (rc = check_dtype(fn, c, dt, &d)) ||
        (!buf && !dt_is_derived(d) && (rc = check_buf(fn, c, buf, count))))
        return rc;
    *bytes = dtype_bytes(d, count);
    return 0;
}

static int do_mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                    MPI_Message *message, MPI_Status *status)
{
    CHECK_INIT(fn);
    int rc;
    size_t bytes;
    mpid_req_t *u = check_message(fn, message, &rc);
    if (rc)
        return rc;
    if (!u) { /* MPI_MESSAGE_NO_PROC */
        status_proc_null(status);
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    if ((rc = check_mrecv(fn, buf, count, dt, u->comm, &bytes)))
        return rc;
    *message = MPI_MESSAGE_NULL;
    if (!dtype_of(dt)->contiguous)
        mpir_dt_attach(u, buf, count, dtype_of(dt));
    else
        mpid_recv_attach(u, buf, bytes);
    mpid_wait(u);
    req_status(u, status);
    int err = u->st_error;
    int src = u->st_source, tag = u->st_tag;
    size_t sent = u->msg_len;
    struct MPI_ABI_Comm *c = u->comm;
    req_release(u);
    return err ? mpir_recv_error(fn, c, err, src, tag, sent, bytes) : MPI_SUCCESS;
}

int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    return do_mrecv("MPI_Mrecv", buf, count, dt, message, status);
}

int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                MPI_Status *status)
{
    return do_mrecv("MPI_Mrecv_c", buf, count, dt, message, status);
}

static int do_imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt,
                     MPI_Message *message, MPI_Request *request)
{
    CHECK_INIT(fn);
    int rc;
    size_t bytes;
    mpid_req_t *u = check_message(fn, message, &rc);
    if (rc || (rc = check_req_ptr(fn, NULL, request)))
        return rc;
    if (!u) {
        *request = (MPI_Request)req_proc_null();
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    if ((rc = check_mrecv(fn, buf, count, dt, u->comm, &bytes)))
        return rc;
    *message = MPI_MESSAGE_NULL;
    if (!dtype_of(dt)->contiguous)
        mpir_dt_attach(u, buf, count, dtype_of(dt));
    else
        mpid_recv_attach(u, buf, bytes);
    *request = (MPI_Request)u;
    return MPI_SUCCESS;
}

int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request)
{
    return do_imrecv("MPI_Imrecv", buf, count, dt, message, request);
}

int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                 MPI_Request *request)
{
    return do_imrecv("MPI_Imrecv_c", buf, count, dt, message, request);
}
