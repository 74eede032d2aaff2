/*
 * persistent.c — Send_init, Ssend_init, Bsend_init, Rsend_init, Recv_init,
 * Start, Startall.  A persistent request keeps the arguments; each Start runs
 * them as a fresh device operation held in ->active.
 */
#include "binding/check.h"

static int make(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt, int peer,
                int tag, MPI_Comm comm, int is_recv, int mode, MPI_Request *request)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t bytes;
    int rc = check_p2p(fn, buf, count, dt, peer, tag, comm, is_recv, &c, &bytes);
    if (rc || (rc = check_req_ptr(fn, c, request)))
        return rc;
    mpid_req_t *r = req_alloc(REQ_PERSIST);
    r->comm = c;
    r->buf = (void *)buf;
    r->cap = bytes;
    r->peer = peer;
    r->tag = tag;
    r->p_is_recv = is_recv;
    r->p_mode = mode;
    if (!dtype_of(dt)->contiguous)
        mpir_dt_persist(r, buf, count, dtype_of(dt));
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int MPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return make("MPI_Send_init", buf, count, dt, dest, tag, comm, 0, MODE_STD, request);
}

int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Send_init_c", buf, count, dt, dest, tag, comm, 0, MODE_STD, request);
}

int MPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return make("MPI_Ssend_init", buf, count, dt, dest, tag, comm, 0, MODE_SYNC, request);
}

int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Ssend_init_c", buf, count, dt, dest, tag, comm, 0, MODE_SYNC, request);
}

int MPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return make("MPI_Bsend_init", buf, count, dt, dest, tag, comm, 0, MODE_BUFFERED, request);
}

int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Bsend_init_c", buf, count, dt, dest, tag, comm, 0, MODE_BUFFERED, request);
}

int MPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return make("MPI_Rsend_init", buf, count, dt, dest, tag, comm, 0, MODE_READY, request);
}

int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Rsend_init_c", buf, count, dt, dest, tag, comm, 0, MODE_READY, request);
}

int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                  MPI_Request *request)
{
    return make("MPI_Recv_init", buf, count, dt, source, tag, comm, 1, MODE_STD, request);
}

int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype dt, int source, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    return make("MPI_Recv_init_c", buf, count, dt, source, tag, comm, 1, MODE_STD, request);
}

static int start(const char *fn, MPI_Request h)
{
    mpid_req_t *r = (mpid_req_t *)h;
    if ((uintptr_t)h < MPIR_PREDEF_BOUND || r->magic != MAGIC_REQ || r->kind != REQ_PERSIST)
        return mpir_error(NULL, MPI_ERR_REQUEST, "%s: not a persistent request", fn);
    if (r->active)
        return mpir_error(r->comm, MPI_ERR_REQUEST, "%s: request is already active", fn);
    mpid_req_t *op;
    if (r->p_mode == MODE_PCOLL || r->p_mode == MODE_PART) { /* coll_persistent.c, partitioned.c */
        int rc = r->p_mode == MODE_PCOLL ? pcoll_start(r, &op) : part_start(r, &op);
        if (rc)
            return rc;
    } else if (r->peer == MPI_PROC_NULL)
        op = req_proc_null();
    else if (r->dtp) {
        int rc = mpir_dt_start(fn, r, &op);
        if (rc)
            return rc;
    } else if (r->p_is_recv)
        op = mpid_irecv(r->buf, r->cap, r->peer, r->tag, r->comm);
    else if (r->p_mode == MODE_BUFFERED) {
        int rc = mpir_bsend_start(fn, r->buf, r->cap, r->peer, r->tag, r->comm, &op);
        if (rc)
            return rc;
    } else
        op = mpid_isend(r->buf, r->cap, r->peer, r->tag, r->comm, r->p_mode);
    op->comm = r->comm;
    r->active = op;
    return MPI_SUCCESS;
}

int MPI_Start(MPI_Request *request)
{
    CHECK_INIT("MPI_Start");
    if (!request)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Start: NULL request pointer");
    return start("MPI_Start", *request);
}

int MPI_Startall(int count, MPI_Request reqs[])
{
    CHECK_INIT("MPI_Startall");
    if (count < 0 || (count > 0 && !reqs))
        return mpir_error(NULL, count < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG,
                          "MPI_Startall: invalid arguments (count %d)", count);
    for (int i = 0; i < count; i++) {
        int rc = start("MPI_Startall", reqs[i]);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}
