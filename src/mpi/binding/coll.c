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

static int do_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                    MPI_Comm comm)
{
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

int MPI_Bcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return do_bcast("MPI_Bcast", buf, count, datatype, root, comm);
}

int MPI_Bcast_c(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return do_bcast("MPI_Bcast_c", buf, count, datatype, root, comm);
}

static int do_reduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
{
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

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    return do_reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm);
}

int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, int root, MPI_Comm comm)
{
    return do_reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm);
}

static int do_allreduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
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

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    return do_allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm)
{
    return do_allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm);
}

static int do_scan(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce(fn, C_SCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    return do_scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
               MPI_Op op, MPI_Comm comm)
{
    return do_scan("MPI_Scan_c", sendbuf, recvbuf, count, datatype, op, comm);
}

static int do_exscan(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce(fn, C_EXSCAN, sendbuf, recvbuf, count, datatype, op, 0, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    return do_exscan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op, MPI_Comm comm)
{
    return do_exscan("MPI_Exscan_c", sendbuf, recvbuf, count, datatype, op, comm);
}

#define COMMA_ROOT , int root
/* One macro per family writes the int form (sfx empty, count_t int) and
 * the large-count form (sfx _c, count_t MPI_Count) over the same body. */
#define BLOCKS(name, sfx, count_t, kind, root_arg, root_val, node_path)                         \
    int MPI_##name##sfx(const void *sendbuf, count_t sendcount, MPI_Datatype sendtype,          \
                        void *recvbuf, count_t recvcount, MPI_Datatype recvtype root_arg,      \
                        MPI_Comm comm)                                                         \
    {                                                                                           \
        static const char fn[] = "MPI_" #name #sfx;                                             \
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
BLOCKS(Gather, , int, C_GATHER, COMMA_ROOT, root, NO_NODE_PATH)
BLOCKS(Gather, _c, MPI_Count, C_GATHER, COMMA_ROOT, root, NO_NODE_PATH)
BLOCKS(Scatter, , int, C_SCATTER, COMMA_ROOT, root, NO_NODE_PATH)
BLOCKS(Scatter, _c, MPI_Count, C_SCATTER, COMMA_ROOT, root, NO_NODE_PATH)
BLOCKS(Allgather, , int, C_ALLGATHER, , 0, node_allgather)
BLOCKS(Allgather, _c, MPI_Count, C_ALLGATHER, , 0, node_allgather)
BLOCKS(Alltoall, , int, C_ALLTOALL, , 0, node_alltoall)
BLOCKS(Alltoall, _c, MPI_Count, C_ALLTOALL, , 0, node_alltoall)

static int run_v(const char *fn, int kind, const vspec_t *v, MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_v(fn, kind, v, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    vspec_t v = V_GATHERV(0);
    return run_v("MPI_Gatherv", C_GATHERV, &v, comm);
}

int MPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                  int root, MPI_Comm comm)
{
    vspec_t v = V_GATHERV(1);
    return run_v("MPI_Gatherv_c", C_GATHERV, &v, comm);
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    vspec_t v = V_SCATTERV(0);
    return run_v("MPI_Scatterv", C_SCATTERV, &v, comm);
}

int MPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                   MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    vspec_t v = V_SCATTERV(1);
    return run_v("MPI_Scatterv_c", C_SCATTERV, &v, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    vspec_t v = V_ALLGATHERV(0);
    return run_v("MPI_Allgatherv", C_ALLGATHERV, &v, comm);
}

int MPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                     MPI_Datatype recvtype, MPI_Comm comm)
{
    vspec_t v = V_ALLGATHERV(1);
    return run_v("MPI_Allgatherv_c", C_ALLGATHERV, &v, comm);
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    vspec_t v = V_ALLTOALLV(0);
    return run_v("MPI_Alltoallv", C_ALLTOALLV, &v, comm);
}

int MPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    vspec_t v = V_ALLTOALLV(1);
    return run_v("MPI_Alltoallv_c", C_ALLTOALLV, &v, comm);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    vspec_t v = V_ALLTOALLW(0);
    return run_v("MPI_Alltoallw", C_ALLTOALLW, &v, comm);
}

int MPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    vspec_t v = V_ALLTOALLW(1);
    return run_v("MPI_Alltoallw_c", C_ALLTOALLW, &v, comm);
}

static int reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                          const void *recvcounts, int wide, MPI_Datatype datatype, MPI_Op op,
                          MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, C_REDUCE_SCATTER, sendbuf, recvbuf, 0, recvcounts, wide,
                                 datatype, op, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, recvcounts, 0, datatype, op,
                          comm);
}

int MPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, recvcounts, 1, datatype, op,
                          comm);
}

static int do_reduce_scatter_block(const char *fn, const void *sendbuf, void *recvbuf,
                                   MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                   MPI_Comm comm)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, C_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, NULL, 0,
                                 datatype, op, comm, &c, &a);
    return rc ? rc : coll_run(fn, c, &a);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return do_reduce_scatter_block("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount,
                                   datatype, op, comm);
}

int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return do_reduce_scatter_block("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, recvcount,
                                   datatype, op, comm);
}
