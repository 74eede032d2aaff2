/*
 * coll.c — the blocking collective entry points.
 *
 * Each checks its arguments (coll_check.c), tries the node shared-memory path
 * where one exists (barrier, bcast, reduce, allreduce on ranks of one node),
 * or the two-level path for a communicator spanning nodes (coll/hier.c),
 * and otherwise builds the point-to-point schedule chosen for the size and
 * rank count and runs it to completion (coll/sched.c).
 */
#include <stdlib.h>

#include "binding/coll_check.h"

/* The result of a two-level collective (coll/hier.c) as the call's return. */
static int hier_result(const char *fn, struct MPI_ABI_Comm *c, int err)
{
    return err ? mpir_error(c, err, "%s: %s (across nodes)", fn, mpir_class_string(err))
               : MPI_SUCCESS;
}

int MPI_Barrier(MPI_Comm comm)
{
    static const char fn[] = "MPI_Barrier";
    struct MPI_ABI_Comm *c;
    int inter, rc = prep_comm_any(fn, comm, &c, &inter);
    if (rc)
        return rc;
    if (!inter && (c->size == 1 || node_barrier(c)))
        return MPI_SUCCESS;
    if (!inter && hier_barrier(c, &rc))
        return hier_result(fn, c, rc);
    coll_args_t a = {.kind = C_BARRIER, .inter = inter};
    return coll_run(fn, c, &a);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Bcast";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_bcast(fn, buf, count, datatype, root, comm, &c, &a);
    if (rc)
        return rc;
    if (a.inter)
        return coll_run(fn, c, &a);
    if (c->size == 1 || a.rbytes == 0) {
        free(a.own[0]); /* packed copies of a derived type: nothing to move */
        free(a.out.packed);
        return MPI_SUCCESS;
    }
    /* the choice may not depend on this rank's datatype (the root's may differ) */
    if (node_bcast(c, a.rbuf, a.rbytes, root)) {
        coll_local_done(&a);
        return MPI_SUCCESS;
    }
    if (hier_bcast(c, a.rbuf, a.rbytes, root, &rc)) {
        coll_local_done(&a);
        return hier_result(fn, c, rc);
    }
    return coll_run(fn, c, &a);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce(fn, C_REDUCE, sendbuf, recvbuf, count, datatype, op, root, comm, &c, &a);
    if (rc)
        return rc;
    if (!a.inter && node_reduce(c, &a)) {
        coll_local_done(&a);
        return MPI_SUCCESS;
    }
    return coll_run(fn, c, &a);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    static const char fn[] = "MPI_Allreduce";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce(fn, C_ALLREDUCE, sendbuf, recvbuf, count, datatype, op, 0, comm, &c, &a);
    if (rc)
        return rc;
    if (!a.inter && node_allreduce(c, &a)) {
        coll_local_done(&a);
        return MPI_SUCCESS;
    }
    if (!a.inter && hier_allreduce(c, &a, &rc)) {
        coll_local_done(&a);
        return hier_result(fn, c, rc);
    }
    return coll_run(fn, c, &a);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    static const char fn[] = "MPI_Scan";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce(fn, C_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    static const char fn[] = "MPI_Exscan";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce(fn, C_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

#define COMMA_ROOT , int root
#define BLOCKS(name, kind, root_arg, root_val, node_path)                                       \
    int MPI_##name(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,    \
                   int recvcount, MPI_Datatype recvtype root_arg, MPI_Comm comm)              \
    {                                                                                           \
        static const char fn[] = "MPI_" #name;                                                  \
        struct MPI_ABI_Comm *c;                                                                 \
        coll_args_t a;                                                                          \
        int rc = prep_blocks(fn, kind, sendbuf, sendcount, sendtype, recvbuf, recvcount,       \
                             recvtype, root_val, comm, &c, &a);                                \
        if (rc)                                                                                 \
            return rc;                                                                          \
        if (!a.inter && c->size > 1 && node_path(c, &a)) {                                      \
            coll_local_done(&a);                                                                \
            return MPI_SUCCESS;                                                                 \
        }                                                                                       \
        return coll_run(fn, c, &a);                                                             \
    }
#define NO_NODE_PATH(c, a) 0
BLOCKS(Gather, C_GATHER, COMMA_ROOT, root, NO_NODE_PATH)
BLOCKS(Scatter, C_SCATTER, COMMA_ROOT, root, NO_NODE_PATH)
BLOCKS(Allgather, C_ALLGATHER, , 0, node_allgather)
BLOCKS(Alltoall, C_ALLTOALL, , 0, node_alltoall)

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    static const char fn[] = "MPI_Gatherv";
    vspec_t v = {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                 .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .root = root};
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_v(fn, C_GATHERV, &v, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    static const char fn[] = "MPI_Scatterv";
    vspec_t v = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = displs, .stype = sendtype,
                 .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root};
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_v(fn, C_SCATTERV, &v, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    static const char fn[] = "MPI_Allgatherv";
    vspec_t v = {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,
                 .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype};
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_v(fn, C_ALLGATHERV, &v, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallv";
    vspec_t v = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stype = sendtype,
                 .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype};
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_v(fn, C_ALLTOALLV, &v, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    static const char fn[] = "MPI_Alltoallw";
    vspec_t v = {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stypes = sendtypes,
                 .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtypes = recvtypes};
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_v(fn, C_ALLTOALLW, &v, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, C_REDUCE_SCATTER, sendbuf, recvbuf, 0, recvcounts, datatype,
                                 op, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    static const char fn[] = "MPI_Reduce_scatter_block";
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, C_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, NULL,
                                 datatype, op, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}
