/*
 * coll.h — the collectives module's internal interface.
 *
 *   op.c        reduction operations: predefined op objects, the vectorised
 *               kernels (op x type table), user ops, applying an op
 *   sched.c     the schedule engine: a collective is a list of sends,
 *               receives, local reductions and copies separated by fences;
 *               blocking and nonblocking collectives run the same schedules,
 *               progressed from mpid_progress (one hook in device/progress.c)
 *   algo_*.c    schedule builders, one per algorithm family, chosen by
 *               size and rank count in select.c (thresholds: SKIFF_COLL_*)
 *   node.c      node-aware fast path: ranks of a communicator that live on
 *               one node reduce/broadcast/synchronise through a shared
 *               segment (one copy in, one copy out, sequence flags, futex
 *               sleep after a short poll)
 *   hier.c      communicators spanning nodes: node path inside each node,
 *               point-to-point among one leader per node
 *   inter.c     intercommunicator forms (local groups + leaders)
 *   (neighbourhood collectives: binding/coll_neighbor.c, on the same engine)
 *
 * Collective messages travel on the communicator's collective context
 * (c->coll, context id ctx+1), tagged with the collective's sequence number
 * on that communicator, so they never match user receives and concurrent
 * nonblocking collectives never match each other.
 */
#ifndef SKIFF_MPI_COLL_H
#define SKIFF_MPI_COLL_H

#include "device/device.h"

#pragma GCC visibility push(hidden)

/* ---- reduction operations (op.c) ---------------------------------------- */
#define MAGIC_OP 0x4f70704f

typedef void kernel_fn(const void *restrict in, void *restrict inout, size_t n);

struct MPI_ABI_Op {
    uint32_t magic;
    int commute;
    MPI_User_function *user; /* NULL for predefined ops               */
    kernel_fn *const *kernels; /* predefined: [type index] -> kernel */
    const char *name;
    int refs; /* user ops: the handle + operations still using it      */
    int fortran; /* user is a Fortran subroutine: datatype by MPI_Fint   */
    int large;   /* user is an MPI_User_function_c (MPI_Op_create_c): an MPI_Count length */
};
extern struct MPI_ABI_Op mpir_op_predef[32]; /* indexed by value - 0x20 */

static inline struct MPI_ABI_Op *op_of(MPI_Op h)
{
    uintptr_t v = (uintptr_t)h;
    return likely(v < MPIR_PREDEF_BOUND) ? &mpir_op_predef[v & 31] : (struct MPI_ABI_Op *)h;
}

/* How one reduction is done: a kernel, or the user's function on (type, count). */
typedef struct reducer {
    kernel_fn *kernel;
    MPI_User_function *user;
    MPI_Datatype dtype;
    size_t extent; /* bytes per element */
    struct MPI_ABI_Op *op;
} reducer_t;

/* Check op on dtype (fn names the call in the message) and fill *r.
 * Returns MPI_SUCCESS, MPI_ERR_OP or MPI_ERR_TYPE (already reported on c). */
int op_reducer(const char *fn, struct MPI_ABI_Comm *c, MPI_Op op, MPI_Datatype dtype,
               reducer_t *r);
/* inout[i] = in[i] op inout[i] for count elements. */
void op_apply(const reducer_t *r, const void *in, void *inout, size_t count);
void op_hold(struct MPI_ABI_Op *op);
/* The kernel of a predefined op on a predefined type, NULL where the standard
 * does not define it (one-sided accumulates: no communicator to report on). */
kernel_fn *op_kernel(MPI_Op op, MPI_Datatype basic);
/* Class of a predefined type for one-sided atomics: C integer (signedness in
 * *is_signed), logical or byte, another type, or 0 (not a predefined type). */
enum { OPC_INT = 1, OPC_BITS, OPC_OTHER };
int op_type_class(MPI_Datatype basic, int *is_signed);
/* The channel's element type (enum skf_acc_type) of a predefined integer,
 * byte or float/double type, else -1. */
int op_skf_type(MPI_Datatype basic);
void op_release(struct MPI_ABI_Op *op);

/* ---- per-communicator state --------------------------------------------- */
struct node_coll; /* node.c */
typedef struct coll_comm {
    uint32_t seq;          /* collectives started on this communicator (tags) */
    int node_state;        /* 0: not tried yet, 1: usable, -1: not usable     */
    struct node_coll *node;
    int hier_state;        /* two-level path (hier.c): 0 untried, 1 on, -1 off */
    struct coll_hier *hier;
} coll_comm_t;
coll_comm_t *coll_comm_get(struct MPI_ABI_Comm *c);
/* Next tag for a collective on c (every rank calls collectives in the same order). */
int coll_next_tag(struct MPI_ABI_Comm *c);

/* ---- schedules (sched.c) ------------------------------------------------ */
typedef struct sched sched_t;
struct coll_unpack;

sched_t *sched_new(struct MPI_ABI_Comm *c);
/* Scratch memory owned by the schedule, freed when it completes. */
void *sched_tmp(sched_t *s, size_t bytes);
/* Steps, executed in order; sends and receives between two fences run
 * concurrently; a fence waits for all of them; local steps run in place. */
void sched_send(sched_t *s, const void *buf, size_t bytes, int peer);
void sched_recv(sched_t *s, void *buf, size_t bytes, int peer);
/* The same with the tag offset by tagx (a multiple of 1 << 30: tells apart
 * messages between the same pair inside one collective). */
void sched_send_tag(sched_t *s, const void *buf, size_t bytes, int peer, int tagx);
void sched_recv_tag(sched_t *s, void *buf, size_t bytes, int peer, int tagx);
void sched_fence(sched_t *s);
void sched_copy(sched_t *s, void *dst, const void *src, size_t bytes);
/* inout = in op inout, count elements (reducer copied into the step). */
void sched_reduce(sched_t *s, const void *in, void *inout, size_t count, const reducer_t *r);
/* Free p with the schedule. */
void sched_adopt(sched_t *s, void *p);
/* Unpack n elements of d from packed into user (datatype/dt_copy), as a step;
 * the schedule frees u->packed at its end (sched_unpack_block: not). */
void sched_unpack(sched_t *s, const struct coll_unpack *u);
void sched_unpack_block(sched_t *s, const struct coll_unpack *u);
/* What such a step does: unpack (or, span, copy the data bytes) into u->user. */
void coll_unpack_run(const struct coll_unpack *u);
/* Steps added from now on talk on comm (NULL: the schedule's) with tag offset tagx. */
void sched_use(sched_t *s, struct MPI_ABI_Comm *comm, int tagx);
/* Holds a user op until the schedule ends. */
void sched_hold_op(sched_t *s, struct MPI_ABI_Op *op);

/* Run s to completion (blocking collectives); returns an MPI error class. */
int sched_run(sched_t *s);
/* Start s as a nonblocking collective; the returned request completes with it. */
mpid_req_t *sched_start_req(sched_t *s);
/* Advance every started schedule; 1 if anything moved (called by mpid_progress). */
int coll_progress(void);
extern int coll_n_active;

/* ---- argument bundle and algorithm selection (select.c) ------------------ */
enum coll_kind {
    C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_GATHER, C_GATHERV, C_SCATTER, C_SCATTERV,
    C_ALLGATHER, C_ALLGATHERV, C_ALLTOALL, C_ALLTOALLV, C_ALLTOALLW, C_REDUCE_SCATTER,
    C_REDUCE_SCATTER_BLOCK, C_SCAN, C_EXSCAN,
};

/* Everything a collective was called with, already checked and in bytes.
 * sbuf == NULL means MPI_IN_PLACE. */
typedef struct coll_args {
    int kind;
    const void *sbuf;
    void *rbuf;
    size_t sbytes, rbytes; /* one block (one rank's share) of send/recv data   */
    size_t count;          /* reductions: elements (reduce_scatter_block: per rank) */
    int root;
    /* v and w variants: bytes and byte displacements per rank (NULL if unused) */
    const size_t *scb, *sdb, *rcb, *rdb;
    int inter; /* intercommunicator form (root: MPI_ROOT, MPI_PROC_NULL or remote rank) */
    reducer_t red;
    /* non-contiguous derived types travel packed: input copies the schedule
     * frees at its end, and the packed result it unpacks into the user's buffer */
    void *own[2];
    struct coll_unpack {
        struct MPI_ABI_Datatype *d; /* NULL: nothing to unpack */
        void *user, *packed;
        int64_t n;
        int span; /* packed is laid out as d (a reduction's result), not packed */
    } out;
    /* v/w variants whose receive blocks travel packed in own[1]: one unpack
     * per block (nunpack entries, their packed pointers inside own[1]) */
    struct coll_unpack *unpackv;
    int nunpack;
} coll_args_t;

/* Intercommunicator forms (inter.c): barrier, bcast, reduce, allreduce,
 * gather, scatter, allgather, alltoall. */
void coll_build_inter(sched_t *s, struct MPI_ABI_Comm *c, const coll_args_t *a);

/* Build the schedule of a collective (algorithm chosen by size and ranks). */
sched_t *coll_build(struct MPI_ABI_Comm *c, const coll_args_t *a);

/* Algorithm builders (algo_*.c); each appends to s.  p2p context is s's comm. */
void algo_barrier_dissemination(sched_t *s, int rank, int size);
void algo_bcast_binomial(sched_t *s, int rank, int size, void *buf, size_t bytes, int root);
void algo_bcast_scatter_ring(sched_t *s, int rank, int size, void *buf, size_t bytes, int root);
void algo_reduce_binomial(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_allreduce_recdbl(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_allreduce_rabenseifner(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_gather_binomial(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_scatter_binomial(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_gatherv_linear(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_scatterv_linear(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_allgather_recdbl(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_allgather_bruck(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_allgather_ring(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_allgatherv_ring(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_alltoall_bruck(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_alltoall_pairwise(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_alltoallv_pairwise(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_reduce_scatter_pairwise(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_reduce_scatter_via_reduce(sched_t *s, int rank, int size, const coll_args_t *a);
void algo_scan_recdbl(sched_t *s, int rank, int size, const coll_args_t *a, int exclusive);

/* Thresholds (SKIFF_COLL_*), read once. */
typedef struct coll_tune {
    size_t bcast_long;       /* bcast: binomial below, scatter + ring allgather above  */
    size_t allreduce_long;   /* allreduce: recursive doubling below, Rabenseifner above */
    size_t allgather_long;   /* allgather: recursive doubling/Bruck below, ring above  */
    size_t alltoall_short;   /* alltoall: Bruck below (per-rank block), pairwise above */
    size_t node_max;         /* node shared-memory path for messages up to this       */
    size_t node_long_max;    /* allreduce: chunked node path up to this (above node_max) */
    int node_on;             /* SKIFF_COLL_NODE                                         */
    int hier_on;             /* SKIFF_COLL_HIER: two levels across nodes                */
    long spin;               /* polls before a node waiter yields/sleeps (SKIFF_SPIN)   */
    int yields;              /* sched_yield rounds before it sleeps (SKIFF_YIELDS)      */
} coll_tune_t;
extern coll_tune_t coll_tune;
void coll_tune_init(void);

/* ---- node-aware shared-memory path (node.c) ----------------------------- */
/* Each returns 1 when it did the collective, 0 when the caller must use the
 * point-to-point schedules (communicator spans nodes, message too large, ...). */
int node_barrier(struct MPI_ABI_Comm *c);
int node_bcast(struct MPI_ABI_Comm *c, void *buf, size_t bytes, int root);
int node_allreduce(struct MPI_ABI_Comm *c, const coll_args_t *a);
int node_reduce(struct MPI_ABI_Comm *c, const coll_args_t *a);
int node_allgather(struct MPI_ABI_Comm *c, const coll_args_t *a);
int node_alltoall(struct MPI_ABI_Comm *c, const coll_args_t *a);
void node_free(struct node_coll *n);

/* ---- two-level path for communicators spanning nodes (hier.c) ----------- */
/* Blocking only.  Each returns 1 when it did the collective (*rc: its MPI
 * error class), 0 when the caller must use the flat algorithms. */
int hier_barrier(struct MPI_ABI_Comm *c, int *rc);
int hier_bcast(struct MPI_ABI_Comm *c, void *buf, size_t bytes, int root, int *rc);
int hier_allreduce(struct MPI_ABI_Comm *c, const coll_args_t *a, int *rc);
void hier_free(struct coll_hier *h);

#pragma GCC visibility pop

#endif /* SKIFF_MPI_COLL_H */
