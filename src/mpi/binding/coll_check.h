/*
 * coll_check.h — argument checking for the collective entry points, shared
 * by the blocking (coll.c) and nonblocking (coll_nb.c) forms: each prep_*
 * checks one family's arguments (error -> MPI error class with a message
 * naming the call and the values) and turns them into a coll_args_t in bytes.
 */
#ifndef SKIFF_MPI_COLL_CHECK_H
#define SKIFF_MPI_COLL_CHECK_H

#include "binding/check.h"
#include "coll/coll.h"

#pragma GCC visibility push(hidden)

/* Initialised, a valid intracommunicator (intercommunicators: MPI_ERR_COMM). */
int prep_comm(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **c);
/* The same for collectives with an intercommunicator form (*inter: which it is). */
int prep_comm_any(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **c, int *inter);
/* A datatype collectives can move; *ext = wire bytes per element.  packed ==
 * NULL refuses non-contiguous derived types, else gets them (they travel packed). */
int check_ctype(const char *fn, struct MPI_ABI_Comm *c, MPI_Datatype dt, size_t *ext,
                struct MPI_ABI_Datatype **packed);
int prep_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype dt, int root, MPI_Comm comm,
               struct MPI_ABI_Comm **c, coll_args_t *a);
/* reduce (root used), allreduce, scan, exscan */
int prep_reduce(const char *fn, int kind, const void *sbuf, void *rbuf, MPI_Count count,
                MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm, struct MPI_ABI_Comm **c,
                coll_args_t *a);
/* gather, scatter, allgather, alltoall (root ignored by the all* forms) */
int prep_blocks(const char *fn, int kind, const void *sbuf, MPI_Count scount,
                MPI_Datatype stype, void *rbuf, MPI_Count rcount, MPI_Datatype rtype, int root,
                MPI_Comm comm,
                struct MPI_ABI_Comm **c, coll_args_t *a);
/* A counts or displacements array of an int collective (int[]) or of its
 * large-count twin (MPI_Count[] / MPI_Aint[], one 64-bit type here): wide
 * says which, and one body reads both. */
static inline int64_t varr_at(const void *a, int wide, int i)
{
    return wide ? ((const int64_t *)a)[i] : ((const int *)a)[i];
}

/* gatherv, scatterv, allgatherv, alltoallv, alltoallw: arrays may be NULL
 * where the form has none; w forms pass type arrays and byte displacements.
 * wide: the arrays are the _c forms' (MPI_Count counts, MPI_Aint displs). */
typedef struct vspec {
    const void *sbuf;
    MPI_Count scount;
    const void *scounts, *sdispls;
    MPI_Datatype stype;
    const MPI_Datatype *stypes;
    void *rbuf;
    MPI_Count rcount;
    const void *rcounts, *rdispls;
    MPI_Datatype rtype;
    const MPI_Datatype *rtypes;
    int root;
    int wide;
} vspec_t;
/* The v/w forms, int and large-count (_c) alike: V_* fill a vspec_t from
 * the standard argument names. */
#define V_GATHERV(w)                                                                               \
    {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,                     \
     .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .root = root, .wide = w}
#define V_SCATTERV(w)                                                                              \
    {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = displs, .stype = sendtype,                 \
     .rbuf = recvbuf, .rcount = recvcount, .rtype = recvtype, .root = root, .wide = w}
#define V_ALLGATHERV(w)                                                                            \
    {.sbuf = sendbuf, .scount = sendcount, .stype = sendtype, .rbuf = recvbuf,                     \
     .rcounts = recvcounts, .rdispls = displs, .rtype = recvtype, .wide = w}
#define V_ALLTOALLV(w)                                                                             \
    {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stype = sendtype,                \
     .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtype = recvtype, .wide = w}
#define V_ALLTOALLW(w)                                                                             \
    {.sbuf = sendbuf, .scounts = sendcounts, .sdispls = sdispls, .stypes = sendtypes,              \
     .rbuf = recvbuf, .rcounts = recvcounts, .rdispls = rdispls, .rtypes = recvtypes, .wide = w}

int prep_v(const char *fn, int kind, const vspec_t *v, MPI_Comm comm, struct MPI_ABI_Comm **c,
           coll_args_t *a);
/* reduce_scatter (rcounts) and reduce_scatter_block (rcount) */
int prep_reduce_scatter(const char *fn, int kind, const void *sbuf, void *rbuf,
                        MPI_Count rcount, const void *rcounts, int wide, MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm,
                        struct MPI_ABI_Comm **c, coll_args_t *a);
/* A collective done without a schedule (node path): unpack a derived-type
 * result, free the packed copies and the byte arrays. */
void coll_local_done(coll_args_t *a);
/* Free the byte arrays a prep_* allocated (after the schedule is built). */
void coll_args_free(coll_args_t *a);

/* Run a built schedule and report a failure (truncation: mismatched counts). */
int coll_run(const char *fn, struct MPI_ABI_Comm *c, coll_args_t *a);
int coll_start(const char *fn, struct MPI_ABI_Comm *c, coll_args_t *a, MPI_Request *req);

/* ---- persistent collectives (coll_persistent.c) ----
 * start(fn, args, req) does what the nonblocking form does with the saved
 * arguments args: checks them, builds and starts the schedule into *req;
 * req NULL: only checks.  pcoll_init checks once, then makes the persistent
 * request that holds a copy of args (size bytes), the datatypes t0, t1 and
 * the op (MPI_DATATYPE_NULL / MPI_OP_NULL: none). */
typedef int pcoll_fn(const char *fn, const void *args, MPI_Request *req);
int pcoll_init(const char *fn, MPI_Comm comm, pcoll_fn *start, const void *args, size_t size,
               MPI_Datatype t0, MPI_Datatype t1, MPI_Op op, MPI_Request *request);

#pragma GCC visibility pop

#endif
