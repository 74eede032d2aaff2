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

static int do_ibcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, int root,
                     MPI_Comm comm, MPI_Request *request)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_bcast(fn, buf, count, datatype, root, comm, &c, &a);
    return rc ? rc : coll_start(fn, c, &a, request);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request *request)
{
    return do_ibcast("MPI_Ibcast", buf, count, datatype, root, comm, request);
}

int MPI_Ibcast_c(void *buf, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request *request)
{
    return do_ibcast("MPI_Ibcast_c", buf, count, datatype, root, comm, request);
}

/* Each macro writes the int form (sfx empty, count_t int) and the
 * large-count form (sfx _c, count_t MPI_Count) over the same body. */
#define REDUCTION(name, sfx, count_t, kind, root_arg, root_val)                                 \
    int MPI_##name##sfx(const void *sendbuf, void *recvbuf, count_t count, MPI_Datatype datatype, \
                        MPI_Op op root_arg, MPI_Comm comm, MPI_Request *request)              \
    {                                                                                           \
        static const char fn[] = "MPI_" #name #sfx;                                             \
        struct MPI_ABI_Comm *c;                                                                 \
        coll_args_t a;                                                                          \
        int rc = prep_reduce(fn, kind, sendbuf, recvbuf, count, datatype, op, root_val, comm,  \
                             &c, &a);                                                           \
        return rc ? rc : coll_start(fn, c, &a, request);                                        \
    }
#define COMMA_ROOT , int root
REDUCTION(Ireduce, , int, C_REDUCE, COMMA_ROOT, root)
REDUCTION(Ireduce, _c, MPI_Count, C_REDUCE, COMMA_ROOT, root)
REDUCTION(Iallreduce, , int, C_ALLREDUCE, , 0)
REDUCTION(Iallreduce, _c, MPI_Count, C_ALLREDUCE, , 0)
REDUCTION(Iscan, , int, C_SCAN, , 0)
REDUCTION(Iscan, _c, MPI_Count, C_SCAN, , 0)
REDUCTION(Iexscan, , int, C_EXSCAN, , 0)
REDUCTION(Iexscan, _c, MPI_Count, C_EXSCAN, , 0)

#define BLOCKS(name, sfx, count_t, kind, root_arg, root_val)                                   \
    int MPI_##name##sfx(const void *sendbuf, count_t sendcount, MPI_Datatype sendtype,          \
                        void *recvbuf, count_t recvcount, MPI_Datatype recvtype root_arg,      \
                        MPI_Comm comm, MPI_Request *request)                                   \
    {                                                                                           \
        static const char fn[] = "MPI_" #name #sfx;                                             \
        struct MPI_ABI_Comm *c;                                                                 \
        coll_args_t a;                                                                          \
        int rc = prep_blocks(fn, kind, sendbuf, sendcount, sendtype, recvbuf, recvcount,       \
                             recvtype, root_val, comm, &c, &a);                                \
        return rc ? rc : coll_start(fn, c, &a, request);                                        \
    }

BLOCKS(Igather, , int, C_GATHER, COMMA_ROOT, root)
BLOCKS(Igather, _c, MPI_Count, C_GATHER, COMMA_ROOT, root)
BLOCKS(Iscatter, , int, C_SCATTER, COMMA_ROOT, root)
BLOCKS(Iscatter, _c, MPI_Count, C_SCATTER, COMMA_ROOT, root)
BLOCKS(Iallgather, , int, C_ALLGATHER, , 0)
BLOCKS(Iallgather, _c, MPI_Count, C_ALLGATHER, , 0)
BLOCKS(Ialltoall, , int, C_ALLTOALL, , 0)
BLOCKS(Ialltoall, _c, MPI_Count, C_ALLTOALL, , 0)

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
    vspec_t v = V_GATHERV(0);
    return start_v("MPI_Igatherv", C_GATHERV, &v, comm, request);
}

int MPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                   void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                   MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    vspec_t v = V_GATHERV(1);
    return start_v("MPI_Igatherv_c", C_GATHERV, &v, comm, request);
}

int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request *request)
{
    vspec_t v = V_SCATTERV(0);
    return start_v("MPI_Iscatterv", C_SCATTERV, &v, comm, request);
}

int MPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    vspec_t v = V_SCATTERV(1);
    return start_v("MPI_Iscatterv_c", C_SCATTERV, &v, comm, request);
}

int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    vspec_t v = V_ALLGATHERV(0);
    return start_v("MPI_Iallgatherv", C_ALLGATHERV, &v, comm, request);
}

int MPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    vspec_t v = V_ALLGATHERV(1);
    return start_v("MPI_Iallgatherv_c", C_ALLGATHERV, &v, comm, request);
}

int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request *request)
{
    vspec_t v = V_ALLTOALLV(0);
    return start_v("MPI_Ialltoallv", C_ALLTOALLV, &v, comm, request);
}

int MPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    vspec_t v = V_ALLTOALLV(1);
    return start_v("MPI_Ialltoallv_c", C_ALLTOALLV, &v, comm, request);
}

int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request *request)
{
    vspec_t v = V_ALLTOALLW(0);
    return start_v("MPI_Ialltoallw", C_ALLTOALLW, &v, comm, request);
}

int MPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request *request)
{
    vspec_t v = V_ALLTOALLW(1);
    return start_v("MPI_Ialltoallw_c", C_ALLTOALLW, &v, comm, request);
}

static int ireduce_scatter(const char *fn, const void *sendbuf, void *recvbuf,
                           const void *recvcounts, int wide, MPI_Datatype datatype, MPI_Op op,
                           MPI_Comm comm, MPI_Request *request)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, C_REDUCE_SCATTER, sendbuf, recvbuf, 0, recvcounts, wide,
                                 datatype, op, comm, &c, &a);
    return rc ? rc : coll_start(fn, c, &a, request);
}

int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return ireduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, 0, datatype, op,
                           comm, request);
}

int MPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    return ireduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf, recvcounts, 1, datatype,
                           op, comm, request);
}

static int do_ireduce_scatter_block(const char *fn, const void *sendbuf, void *recvbuf,
                                    MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op,
                                    MPI_Comm comm, MPI_Request *request)
{
    struct MPI_ABI_Comm *c;
    coll_args_t a;
    int rc = prep_reduce_scatter(fn, C_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount, NULL, 0,
                                 datatype, op, comm, &c, &a);
    return rc ? rc : coll_start(fn, c, &a, request);
}

int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request *request)
{
    return do_ireduce_scatter_block("MPI_Ireduce_scatter_block", sendbuf, recvbuf, recvcount,
                                    datatype, op, comm, request);
}

int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request *request)
{
    return do_ireduce_scatter_block("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, recvcount,
                                    datatype, op, comm, request);
}
