/*
 * coll_persistent.c — persistent collectives (MPI 4.0): MPI_Barrier_init,
 * MPI_Bcast_init, ... MPI_Exscan_init (the neighbourhood ones live in
 * coll_neighbor.c and use the same machinery).
 *
 * A persistent collective is a persistent request (REQ_PERSIST, as for
 * MPI_Send_init) whose ->dtp slot holds the call's arguments and a start
 * function.  The init call checks the arguments exactly as the nonblocking
 * form does (same prep_* functions, nothing built); each MPI_Start runs the
 * nonblocking form's path again — checks, schedule built from the buffers'
 * current contents, started — and the schedule's request becomes ->active,
 * so Wait/Test/Request_free treat it like a started persistent send.  Every
 * rank starts its persistent collectives in the same order, so each start
 * takes the next collective tag on the communicator like any other
 * collective.  Datatypes and a user op are held until the request is freed
 * (the user may free their handles after init); arrays of counts,
 * displacements and types are the user's and must stay unchanged, as the
 * standard requires.
 */
#include <stdlib.h>
#include <string.h>

#include "binding/coll_check.h"
#include "datatype/dtype.h"

typedef struct pcoll {
    int kind;              /* DTP_PCOLL: shares the request's ->dtp slot */
    const char *fn;        /* the init call, for messages at start time */
    pcoll_fn *start;
    struct MPI_ABI_Datatype *held[2];
    struct MPI_ABI_Op *op;
    max_align_t args[];    /* the call's arguments (start's own struct) */
} pcoll_t;

static void hold_type(pcoll_t *p, int i, MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    if (v >= MPIR_PREDEF_BOUND) {
        p->held[i] = dtype_of(h);
        dt_retain(p->held[i]);
    }
}

int pcoll_init(const char *fn, MPI_Comm comm, pcoll_fn *start, const void *args, size_t size,
               MPI_Datatype t0, MPI_Datatype t1, MPI_Op op, MPI_Request *request)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc = check_comm(fn, comm, &c);
    if (rc || (rc = check_req_ptr(fn, c, request)) || (rc = start(fn, args, NULL)))
        return rc;
    pcoll_t *p = malloc(sizeof *p + size);
    if (!p)
        return mpir_error(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *p = (pcoll_t){.kind = DTP_PCOLL, .fn = fn, .start = start};
    memcpy(p->args, args, size);
    hold_type(p, 0, t0);
    hold_type(p, 1, t1);
    if (op != MPI_OP_NULL && (uintptr_t)op >= MPIR_PREDEF_BOUND) {
        p->op = op_of(op);
        op_hold(p->op);
    }
    mpid_req_t *r = req_alloc(REQ_PERSIST);
    r->comm = c;
    r->p_mode = MODE_PCOLL;
    r->dtp = p;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int pcoll_start(mpid_req_t *r, mpid_req_t **op)
{
    pcoll_t *p = r->dtp;
    MPI_Request h = MPI_REQUEST_NULL;
    int rc = p->start(p->fn, p->args, &h);
    *op = (mpid_req_t *)h;
    return rc;
}

void pcoll_forget(mpid_req_t *r)
{
    pcoll_t *p = r->dtp;
    r->dtp = NULL;
    for (int i = 0; i < 2; i++)
        if (p->held[i])
            dt_release(p->held[i]);
    if (p->op)
        op_release(p->op);
    free(p);
}

/* ---- the classic collectives ----------------------------------------------
 * One argument struct for all of them; each start function is the body of
 * the matching nonblocking call (coll_nb.c), with req NULL meaning "check". */
typedef struct pargs {
    MPI_Comm comm;
    int kind, root;
    MPI_Count count;
    const void *sbuf;
    void *rbuf;
    MPI_Datatype dt;
    MPI_Op op;
    MPI_Count scount, rcount;
    MPI_Datatype stype, rtype;
    vspec_t v;
    const void *rcounts; /* int[] or (wide) MPI_Count[] */
    int wide;
} pargs_t;

/* Start the schedule prep_* described, or (check only) drop it. */
static int go(const char *fn, struct MPI_ABI_Comm *c, coll_args_t *a, MPI_Request *req)
{
    if (req)
        return coll_start(fn, c, a, req);
    free(a->out.packed);
    free(a->own[0]);
    free(a->own[1]);
    coll_args_free(a);
    return MPI_SUCCESS;
}

static int start_barrier(const char *fn, const void *args, MPI_Request *req)
{
    const pargs_t *p = args;
    struct MPI_ABI_Comm *c;
    int inter, rc = prep_comm_any(fn, p->comm, &c, &inter);
    coll_args_t a = {.kind = C_BARRIER, .inter = inter};
    return rc ? rc : go(fn, c, &a, req);
}

static int start_bcast(const char *fn, const void *args, MPI_Request *req)
{
    const pargs_t *p = args;
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_bcast(fn, p->rbuf, p->count, p->dt, p->root, p->comm, &c, &a);
    return rc ? rc : go(fn, c, &a, req);
}

static int start_reduce(const char *fn, const void *args, MPI_Request *req)
{
    const pargs_t *p = args;
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce(fn, p->kind, p->sbuf, p->rbuf, p->count, p->dt, p->op, p->root, p->comm,
                         &c, &a);
    return rc ? rc : go(fn, c, &a, req);
}

static int start_blocks(const char *fn, const void *args, MPI_Request *req)
{
    const pargs_t *p = args;
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_blocks(fn, p->kind, p->sbuf, p->scount, p->stype, p->rbuf, p->rcount, p->rtype,
                         p->root, p->comm, &c, &a);
    return rc ? rc : go(fn, c, &a, req);
}

static int start_v(const char *fn, const void *args, MPI_Request *req)
{
    const pargs_t *p = args;
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_v(fn, p->kind, &p->v, p->comm, &c, &a);
    return rc ? rc : go(fn, c, &a, req);
}

static int start_reduce_scatter(const char *fn, const void *args, MPI_Request *req)
{
    const pargs_t *p = args;
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, p->kind, p->sbuf, p->rbuf, p->count, p->rcounts, p->wide,
                                 p->dt, p->op, p->comm, &c, &a);
    return rc ? rc : go(fn, c, &a, req);
}

static int init(const char *fn, pcoll_fn *start, const pargs_t *p, MPI_Datatype t0,
                MPI_Datatype t1, MPI_Request *request)
{
    return pcoll_init(fn, p->comm, start, p, sizeof *p, t0, t1, p->op, request);
}

int MPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    pargs_t p = {.comm = comm, .op = MPI_OP_NULL};
    return init("MPI_Barrier_init", start_barrier, &p, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL,
                request);
}

static int bcast_init(const char *fn, void *buffer, MPI_Count count, MPI_Datatype datatype,
                      int root, MPI_Comm comm, MPI_Request *request)
{
    pargs_t p = {.comm = comm, .rbuf = buffer, .count = count, .dt = datatype, .root = root,
                 .op = MPI_OP_NULL};
    return init(fn, start_bcast, &p, datatype, MPI_DATATYPE_NULL, request);
}

int MPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    return bcast_init("MPI_Bcast_init", buffer, count, datatype, root, comm, request);
}

int MPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return bcast_init("MPI_Bcast_init_c", buffer, count, datatype, root, comm, request);
}

/* Each macro writes the int form (sfx empty, count_t int) and the
 * large-count form (sfx _c, count_t MPI_Count) over the same body. */
#define REDUCTION(name, sfx, count_t, which, root_arg, root_val)                                \
    int MPI_##name##sfx(const void *sendbuf, void *recvbuf, count_t count, MPI_Datatype datatype, \
                        MPI_Op op root_arg, MPI_Comm comm, MPI_Info info, MPI_Request *request) \
    {                                                                                           \
        (void)info;                                                                             \
        pargs_t p = {.comm = comm, .kind = which, .sbuf = sendbuf, .rbuf = recvbuf,              \
                     .count = count, .dt = datatype, .op = op, .root = root_val};               \
        return init("MPI_" #name #sfx, start_reduce, &p, datatype, MPI_DATATYPE_NULL, request); \
    }
#define COMMA_ROOT , int root
REDUCTION(Reduce_init, , int, C_REDUCE, COMMA_ROOT, root)
REDUCTION(Reduce_init, _c, MPI_Count, C_REDUCE, COMMA_ROOT, root)
REDUCTION(Allreduce_init, , int, C_ALLREDUCE, , 0)
REDUCTION(Allreduce_init, _c, MPI_Count, C_ALLREDUCE, , 0)
REDUCTION(Scan_init, , int, C_SCAN, , 0)
REDUCTION(Scan_init, _c, MPI_Count, C_SCAN, , 0)
REDUCTION(Exscan_init, , int, C_EXSCAN, , 0)
REDUCTION(Exscan_init, _c, MPI_Count, C_EXSCAN, , 0)

#define BLOCKS(name, sfx, count_t, which, root_arg, root_val)                                   \
    int MPI_##name##sfx(const void *sendbuf, count_t sendcount, MPI_Datatype sendtype,          \
                        void *recvbuf, count_t recvcount, MPI_Datatype recvtype root_arg,      \
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)                    \
    {                                                                                           \
        (void)info;                                                                             \
        pargs_t p = {.comm = comm, .kind = which, .sbuf = sendbuf, .scount = sendcount,          \
                     .stype = sendtype, .rbuf = recvbuf, .rcount = recvcount,                   \
                     .rtype = recvtype, .root = root_val, .op = MPI_OP_NULL};                   \
        return init("MPI_" #name #sfx, start_blocks, &p, sendtype, recvtype, request);         \
    }
BLOCKS(Gather_init, , int, C_GATHER, COMMA_ROOT, root)
BLOCKS(Gather_init, _c, MPI_Count, C_GATHER, COMMA_ROOT, root)
BLOCKS(Scatter_init, , int, C_SCATTER, COMMA_ROOT, root)
BLOCKS(Scatter_init, _c, MPI_Count, C_SCATTER, COMMA_ROOT, root)
BLOCKS(Allgather_init, , int, C_ALLGATHER, , 0)
BLOCKS(Allgather_init, _c, MPI_Count, C_ALLGATHER, , 0)
BLOCKS(Alltoall_init, , int, C_ALLTOALL, , 0)
BLOCKS(Alltoall_init, _c, MPI_Count, C_ALLTOALL, , 0)

static int init_v(const char *fn, int kind, const vspec_t *v, MPI_Comm comm,
                  MPI_Request *request)
{
    pargs_t p = {.comm = comm, .kind = kind, .v = *v, .op = MPI_OP_NULL};
    return init(fn, start_v, &p, v->stype, v->rtype, request);
}

int MPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    vspec_t v = V_GATHERV(0);
    return init_v("MPI_Gatherv_init", C_GATHERV, &v, comm, request);
}

int MPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    (void)info;
    vspec_t v = V_GATHERV(1);
    return init_v("MPI_Gatherv_init_c", C_GATHERV, &v, comm, request);
}

int MPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    vspec_t v = V_SCATTERV(0);
    return init_v("MPI_Scatterv_init", C_SCATTERV, &v, comm, request);
}

int MPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                        const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    (void)info;
    vspec_t v = V_SCATTERV(1);
    return init_v("MPI_Scatterv_init_c", C_SCATTERV, &v, comm, request);
}

int MPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    vspec_t v = V_ALLGATHERV(0);
    return init_v("MPI_Allgatherv_init", C_ALLGATHERV, &v, comm, request);
}

int MPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    (void)info;
    vspec_t v = V_ALLGATHERV(1);
    return init_v("MPI_Allgatherv_init_c", C_ALLGATHERV, &v, comm, request);
}

int MPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    (void)info;
    vspec_t v = V_ALLTOALLV(0);
    return init_v("MPI_Alltoallv_init", C_ALLTOALLV, &v, comm, request);
}

int MPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    (void)info;
    vspec_t v = V_ALLTOALLV(1);
    return init_v("MPI_Alltoallv_init_c", C_ALLTOALLV, &v, comm, request);
}

int MPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    (void)info;
    vspec_t v = V_ALLTOALLW(0);
    v.stype = v.rtype = MPI_DATATYPE_NULL;
    return init_v("MPI_Alltoallw_init", C_ALLTOALLW, &v, comm, request);
}

int MPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    (void)info;
    vspec_t v = V_ALLTOALLW(1);
    v.stype = v.rtype = MPI_DATATYPE_NULL;
    return init_v("MPI_Alltoallw_init_c", C_ALLTOALLW, &v, comm, request);
}

static int reduce_scatter_init(const char *fn, int kind, const void *sendbuf, void *recvbuf,
                               MPI_Count recvcount, const void *recvcounts, int wide,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               MPI_Request *request)
{
    pargs_t p = {.comm = comm, .kind = kind, .sbuf = sendbuf, .rbuf = recvbuf,
                 .count = recvcount, .rcounts = recvcounts, .wide = wide, .dt = datatype,
                 .op = op};
    return init(fn, start_reduce_scatter, &p, datatype, MPI_DATATYPE_NULL, request);
}

int MPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                            MPI_Request *request)
{
    (void)info;
    return reduce_scatter_init("MPI_Reduce_scatter_init", C_REDUCE_SCATTER, sendbuf, recvbuf, 0,
                               recvcounts, 0, datatype, op, comm, request);
}

int MPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                              MPI_Request *request)
{
    (void)info;
    return reduce_scatter_init("MPI_Reduce_scatter_init_c", C_REDUCE_SCATTER, sendbuf, recvbuf,
                               0, recvcounts, 1, datatype, op, comm, request);
}

int MPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                  MPI_Request *request)
{
    (void)info;
    return reduce_scatter_init("MPI_Reduce_scatter_block_init", C_REDUCE_SCATTER_BLOCK, sendbuf,
                               recvbuf, recvcount, NULL, 0, datatype, op, comm, request);
}

int MPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    MPI_Info info, MPI_Request *request)
{
    (void)info;
    return reduce_scatter_init("MPI_Reduce_scatter_block_init_c", C_REDUCE_SCATTER_BLOCK,
                               sendbuf, recvbuf, recvcount, NULL, 0, datatype, op, comm, request);
}
