/*
 * coll_nb.c — the nonblocking collective entry points (MPI_Ibarrier, ...).
 *
 * Same checks and the same schedules as the blocking forms; the schedule is
 * started and the returned request completes when it finishes.  Progress
 * comes from the device's progress engine (any wait or test), so several
 * nonblocking collectives and point-to-point operations can be in flight on
 * one communicator at once: each collective has its own tag on the
 * communicator's collective context.  Nonblocking collectives never use the
 * node shared-memory path (its slots are used by one collective at a time).
 */
#include "binding/coll_check.h"

int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ibarrier";
    struct MPI_ABI_Comm *c;
    int inter, rc = prep_comm_any(fn, comm, &c, &inter);
    if (rc)
        return rc;
    coll_args_t a = {.kind = C_BARRIER, .inter = inter};
    return coll_start(fn, c, &a, request);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    static const char fn[] = "MPI_Ibcast";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_bcast(fn, buf, count, datatype, root, comm, &c, &a);
    return rc ? rc : coll_start(fn, c, &a, request);
}

#define REDUCTION(name, kind, root_arg, root_val)                                               \
    int MPI_##name(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,        \
                   MPI_Op op root_arg, MPI_Comm comm, MPI_Request *request)                   \
    {                                                                                           \
        static const char fn[] = "MPI_" #name;                                                  \
        struct MPI_ABI_Comm *c;                                                                 \
        coll_args_t a;                                                                          \
        int rc = prep_reduce(fn, kind, sendbuf, recvbuf, count, datatype, op, root_val, comm,  \
                             &c, &a);                                                           \
        return rc ? rc : coll_start(fn, c, &a, request);                                        \
    }
#define COMMA_ROOT , int root
REDUCTION(Ireduce, C_REDUCE, COMMA_ROOT, root)
REDUCTION(Iallreduce, C_ALLREDUCE, , 0)
REDUCTION(Iscan, C_SCAN, , 0)
REDUCTION(Iexscan, C_EXSCAN, , 0)

#define BLOCKS(name, kind, root_arg, root_val)                                                  \
    int MPI_##name(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,    \
                   int recvcount, MPI_Datatype recvtype root_arg, MPI_Comm comm,              \
                   MPI_Request *request)                                                        \
    {                                                                                           \
        static const char fn[] = "MPI_" #name;                                                  \
        struct MPI_ABI_Comm *c;                                                                 \
        coll_args_t a;                                                                          \
        int rc = prep_blocks(fn, kind, sendbuf, sendcount, sendtype, recvbuf, recvcount,       \
                             recvtype, root_val, comm, &c, &a);                                \
        return rc ? rc : coll_start(fn, c, &a, request);                                        \
    }
BLOCKS(Igather, C_GATHER, COMMA_ROOT, root)
BLOCKS(Iscatter, C_SCATTER, COMMA_ROOT, root)
BLOCKS(Iallgather, C_ALLGATHER, , 0)
BLOCKS(Ialltoall, C_ALLTOALL, , 0)

static int start_v(const char *fn, int kind, const vspec_t *v, MPI_Comm comm, MPI_Request *req)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_v(fn, kind, v, comm, &c, &a);
    return rc ? rc : coll_start(fn, c, &a, req);
}

int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    vspec_t v = {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                 .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .root = root};
    return start_v("MPI_Igatherv", C_GATHERV, &v, comm, request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    vspec_t v = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = displs, .stype = sendtype,
                 .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root};
    return start_v("MPI_Iscatterv", C_SCATTERV, &v, comm, request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    vspec_t v = {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                 .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype};
    return start_v("MPI_Iallgatherv", C_ALLGATHERV, &v, comm, request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    vspec_t v = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stype = sendtype,
                 .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype};
    return start_v("MPI_Ialltoallv", C_ALLTOALLV, &v, comm, request);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    vspec_t v = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stypes = sendtypes,
                 .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtypes = recvtypes};
    return start_v("MPI_Ialltoallw", C_ALLTOALLW, &v, comm, request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Ireduce_scatter";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, C_REDUCE_SCATTER, sendbuf, recvbuf, 0, recvcounts, datatype,
                                 op, comm, &c, &a);
    return rc ? rc : coll_start(fn, c, &a, request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request)
{
    static const char fn[] = "MPI_Ireduce_scatter_block";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, C_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, NULL,
                                 datatype, op, comm, &c, &a);
    return rc ? rc : coll_start(fn, c, &a, request);
}
