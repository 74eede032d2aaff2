/*
 * select.c — which algorithm runs a collective, the SKIFF_COLL_* thresholds
 * behind that choice, and the per-communicator state (tag sequence, node
 * shared-memory area).
 *
 * Choices (P ranks, n bytes; see docs/collectives.md for the measurements):
 *   bcast      binomial tree; n >= bcast_long and P > 2: scatter + ring allgather
 *   reduce     binomial tree (rank-0 tree + forward for non-commutative ops)
 *   allreduce  recursive doubling; n >= allreduce_long, commutative op and
 *              count >= pof2: Rabenseifner
 *   allgather  n*P < allgather_long: recursive doubling (P power of two) or
 *              Bruck; else ring
 *   alltoall   block < alltoall_short and P > 2: Bruck; else pairwise exchange
 *   reduce_scatter(_block)  commutative: pairwise; else reduce + scatterv
 *   scan/exscan  recursive doubling; gather/scatter binomial; v-variants linear
 */
#include <stdlib.h>
#include <unistd.h>

#include "coll/coll.h"
#include "core/config.h"

coll_tune_t coll_tune;

void coll_tune_init(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    coll_tune.bcast_long = (size_t)skf_param_ll("SKIFF_COLL_BCAST_LONG");
    coll_tune.allreduce_long = (size_t)skf_param_ll("SKIFF_COLL_ALLREDUCE_LONG");
    coll_tune.allgather_long = (size_t)skf_param_ll("SKIFF_COLL_ALLGATHER_LONG");
    coll_tune.alltoall_short = (size_t)skf_param_ll("SKIFF_COLL_ALLTOALL_SHORT");
    long long nm = skf_param_ll("SKIFF_COLL_NODE_MAX");
    coll_tune.node_max = nm > 0 ? (size_t)nm : 0;
    coll_tune.node_on = skf_param_ll("SKIFF_COLL_NODE") != 0 && nm > 0;
    coll_tune.hier_on = skf_param_ll("SKIFF_COLL_HIER") != 0;
    long long nl = skf_param_ll("SKIFF_COLL_NODE_ALLREDUCE_MAX");
    coll_tune.node_long_max = nl > 0 ? (size_t)nl : 0;
    long long spin = skf_param_ll("SKIFF_SPIN");
    int over = mpid.size > 0 && skf_local_size(mpid.ctx) > sysconf(_SC_NPROCESSORS_ONLN);
    coll_tune.spin = spin > 0 ? (long)spin : spin < 0 ? 0 : over ? 4 : 20000;
    long long yields = skf_param_ll("SKIFF_YIELDS");
    coll_tune.yields = yields > 0 ? (int)(yields > 1000000 ? 1000000 : yields) : yields < 0 ? 0 : over ? 2 : 0;
}

coll_comm_t *coll_comm_get(struct MPI_ABI_Comm *c)
{
    if (likely(c->coll_state != NULL))
        return c->coll_state;
    coll_tune_init();
    c->coll_state = calloc(1, sizeof *c->coll_state);
    if (!c->coll_state)
        mpir_fatal("out of memory for the collective state of %s", c->name ? c->name : "a communicator");
    return c->coll_state;
}

void coll_comm_free(struct MPI_ABI_Comm *c)
{
    coll_comm_t *cc = c->coll_state;
    if (!cc)
        return;
    if (cc->node)
        node_free(cc->node);
    if (cc->hier)
        hier_free(cc->hier);
    free(cc);
    c->coll_state = NULL;
}

int coll_next_tag(struct MPI_ABI_Comm *c)
{
    coll_comm_t *cc = coll_comm_get(c);
    return (int)(cc->seq++ & 0x3fffffff);
}

static int is_pof2(int n) { return (n & (n - 1)) == 0; }

sched_t *coll_build(struct MPI_ABI_Comm *c, const coll_args_t *a)
{
    coll_tune_init();
    sched_t *s = sched_new(c);
    int rank = c->rank, size = c->size;
    if (a->red.op)
        sched_hold_op(s, a->red.op);
    size_t rbytes = a->count * a->red.extent;
    if (a->inter) {
        coll_build_inter(s, c, a);
        return s;
    }
    switch (a->kind) {
    case C_BARRIER:
        algo_barrier_dissemination(s, rank, size);
        break;
    case C_BCAST:
        if (a->rbytes == 0)
            break;
        if (a->rbytes >= coll_tune.bcast_long && size > 2)
            algo_bcast_scatter_ring(s, rank, size, a->rbuf, a->rbytes, a->root);
        else
            algo_bcast_binomial(s, rank, size, a->rbuf, a->rbytes, a->root);
        break;
    case C_REDUCE:
        if (rbytes)
            algo_reduce_binomial(s, rank, size, a);
        break;
    case C_ALLREDUCE: {
        int pof2 = 1;
        while (pof2 * 2 <= size)
            pof2 *= 2;
        if (!rbytes)
            break;
        if (size == 1)
            sched_copy(s, a->rbuf, a->sbuf ? a->sbuf : a->rbuf, rbytes);
        else if (rbytes >= coll_tune.allreduce_long && a->red.op->commute &&
                 a->count >= (size_t)pof2)
            algo_allreduce_rabenseifner(s, rank, size, a);
        else
            algo_allreduce_recdbl(s, rank, size, a);
        break;
    }
    case C_GATHER:
        if (size == 1) {
            if (a->sbuf)
                sched_copy(s, a->rbuf, a->sbuf, a->sbytes);
        } else {
            algo_gather_binomial(s, rank, size, a);
        }
        break;
    case C_SCATTER:
        if (size == 1) {
            if (a->rbuf)
                sched_copy(s, a->rbuf, a->sbuf, a->rbytes);
        } else {
            algo_scatter_binomial(s, rank, size, a);
        }
        break;
    case C_GATHERV:
        algo_gatherv_linear(s, rank, size, a);
        break;
    case C_SCATTERV:
        algo_scatterv_linear(s, rank, size, a);
        break;
    case C_ALLGATHER:
        if (!a->rbytes)
            break;
        if (size == 1)
            sched_copy(s, a->rbuf, a->sbuf ? a->sbuf : a->rbuf, a->rbytes);
        else if (a->rbytes * (size_t)size >= coll_tune.allgather_long)
            algo_allgather_ring(s, rank, size, a);
        else if (is_pof2(size))
            algo_allgather_recdbl(s, rank, size, a);
        else
            algo_allgather_bruck(s, rank, size, a);
        break;
    case C_ALLGATHERV:
        algo_allgatherv_ring(s, rank, size, a);
        break;
    case C_ALLTOALL:
        if (!a->rbytes)
            break;
        if (a->rbytes < coll_tune.alltoall_short && size > 2)
            algo_alltoall_bruck(s, rank, size, a);
        else
            algo_alltoall_pairwise(s, rank, size, a);
        break;
    case C_ALLTOALLV:
    case C_ALLTOALLW:
        algo_alltoallv_pairwise(s, rank, size, a);
        break;
    case C_REDUCE_SCATTER:
    case C_REDUCE_SCATTER_BLOCK:
        if (a->red.op->commute)
            algo_reduce_scatter_pairwise(s, rank, size, a);
        else
            algo_reduce_scatter_via_reduce(s, rank, size, a);
        break;
    case C_SCAN:
    case C_EXSCAN:
        if (rbytes)
            algo_scan_recdbl(s, rank, size, a, a->kind == C_EXSCAN);
        break;
    }
    sched_adopt(s, a->own[0]);
    sched_adopt(s, a->own[1]);
    if (a->out.d || a->nunpack)
        sched_fence(s);
    if (a->out.d)
        sched_unpack(s, &a->out);
    for (int i = 0; i < a->nunpack; i++)
        sched_unpack_block(s, &a->unpackv[i]);
    return s;
}
