/*
 * hier.c — two-level collectives for communicators that span several nodes:
 * inside each node through the shared-memory node path (node.c), across
 * nodes among one leader per node (the lowest rank there) with the
 * point-to-point schedules.  Barrier, bcast, allreduce (commutative ops).
 *
 * The node and leader communicators are made once per communicator, inside
 * the first such collective (every rank is in it), by the ordinary split
 * (context ids agreed as for MPI_Comm_split); they go with the communicator.
 * Blocking collectives only: nonblocking ones keep the flat schedules.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "comm_create.h"

struct coll_hier {
    struct MPI_ABI_Comm *node;   /* my node's ranks of c, ordered as in c     */
    struct MPI_ABI_Comm *leaders; /* local rank 0 of each node; NULL elsewhere */
    int *leader_of;  /* c rank -> leaders rank of its node's leader        */
    int *local_of;   /* c rank -> rank in its node communicator            */
};

/* Spans > 1 node and some node holds more than one of c's ranks. */
static int worth_it(struct MPI_ABI_Comm *c)
{
    int first = mpid_node_of(comm_world_rank(c, 0)), several = 0, shared = 0;
    int *seen = calloc((size_t)mpid.size, sizeof *seen);
    if (!seen)
        return 0;
    for (int r = 0; r < c->size; r++) {
        int node = mpid_node_of(comm_world_rank(c, r));
        if (node < 0 || node >= mpid.size) {
            free(seen);
            return 0;
        }
        several |= node != first;
        shared |= seen[node]++ > 0;
    }
    free(seen);
    return several && shared;
}

/* Local maps: each rank's node leader (in leaders order) and local rank. */
static int fill_maps(struct MPI_ABI_Comm *c, struct coll_hier *h)
{
    int P = c->size;
    int *lead_idx = malloc((size_t)mpid.size * sizeof *lead_idx);
    int *count = calloc((size_t)mpid.size, sizeof *count);
    h->leader_of = malloc((size_t)P * sizeof *h->leader_of);
    h->local_of = malloc((size_t)P * sizeof *h->local_of);
    if (!lead_idx || !count || !h->leader_of || !h->local_of) {
        free(lead_idx);
        free(count);
        return -1;
    }
    int nleaders = 0;
    for (int r = 0; r < P; r++) {
        int node = mpid_node_of(comm_world_rank(c, r));
        if (count[node] == 0)
            lead_idx[node] = nleaders++; /* first rank met on a node leads it */
        h->leader_of[r] = lead_idx[node];
        h->local_of[r] = count[node]++;
    }
    free(lead_idx);
    free(count);
    return 0;
}

static void hier_setup(struct MPI_ABI_Comm *c, coll_comm_t *cc)
{
    cc->hier_state = -1;
    if (!coll_tune.hier_on || !worth_it(c))
        return;
    struct coll_hier *h = calloc(1, sizeof *h);
    if (!h || fill_maps(c, h))
        mpir_fatal("out of memory for the node/leader communicators of %s",
                   c->name ? c->name : "a communicator");
    int node = skf_node_id(mpid.ctx, mpid.rank);
    if (mpir_comm_split(c, node, c->rank, &h->node) ||
        mpir_comm_split(c, h->local_of[c->rank] == 0 ? 0 : MPI_UNDEFINED, c->rank, &h->leaders))
        mpir_fatal("cannot make the node/leader communicators of %s",
                   c->name ? c->name : "a communicator");
    cc->hier = h;
    cc->hier_state = 1;
}

static struct coll_hier *hier_get(struct MPI_ABI_Comm *c)
{
    coll_comm_t *cc = coll_comm_get(c);
    if (cc->hier_state == 0)
        hier_setup(c, cc);
    return cc->hier_state > 0 ? cc->hier : NULL;
}

void hier_free(struct coll_hier *h)
{
    struct MPI_ABI_Comm *sub[2] = {h->node, h->leaders};
    for (int i = 0; i < 2; i++)
        if (sub[i]) {
            mpir_comm_free_ext(sub[i]);
            comm_destroy(sub[i]);
        }
    free(h->leader_of);
    free(h->local_of);
    free(h);
}

/* Run a point-to-point schedule for a on sub (a owns no buffers). */
static int run_on(struct MPI_ABI_Comm *sub, const coll_args_t *a)
{
    return sched_run(coll_build(sub, a));
}

static int node_level_bcast(struct coll_hier *h, void *buf, size_t bytes, int root)
{
    if (h->node->size == 1 || node_bcast(h->node, buf, bytes, root))
        return MPI_SUCCESS;
    coll_args_t b = {.kind = C_BCAST, .rbuf = buf, .rbytes = bytes, .root = root};
    return run_on(h->node, &b);
}

int hier_barrier(struct MPI_ABI_Comm *c, int *rc)
{
    struct coll_hier *h = hier_get(c);
    if (!h)
        return 0;
    coll_args_t b = {.kind = C_BARRIER};
    *rc = MPI_SUCCESS;
    if (h->node->size > 1 && !node_barrier(h->node))
        *rc = run_on(h->node, &b);
    if (!*rc && h->leaders)
        *rc = run_on(h->leaders, &b);
    if (!*rc && h->node->size > 1 && !node_barrier(h->node))
        *rc = run_on(h->node, &b);
    return 1;
}

int hier_bcast(struct MPI_ABI_Comm *c, void *buf, size_t bytes, int root, int *rc)
{
    struct coll_hier *h = hier_get(c);
    if (!h)
        return 0;
    int root_lead = h->leader_of[root], my_lead = h->leader_of[c->rank];
    *rc = MPI_SUCCESS;
    if (my_lead == root_lead) /* the root's node first: its leader gets the data */
        *rc = node_level_bcast(h, buf, bytes, h->local_of[root]);
    if (!*rc && h->leaders) {
        coll_args_t b = {.kind = C_BCAST, .rbuf = buf, .rbytes = bytes, .root = root_lead};
        *rc = run_on(h->leaders, &b);
    }
    if (!*rc && my_lead != root_lead)
        *rc = node_level_bcast(h, buf, bytes, 0);
    return 1;
}

int hier_allreduce(struct MPI_ABI_Comm *c, const coll_args_t *a, int *rc)
{
    if (!a->red.op->commute) /* rank order across nodes: keep the flat algorithms */
        return 0;
    struct coll_hier *h = hier_get(c);
    if (!h)
        return 0;
    size_t bytes = a->count * a->red.extent;
    int leader = h->leaders != NULL;
    coll_args_t r = *a;
    r.kind = C_REDUCE;
    r.root = 0;
    r.own[0] = r.own[1] = NULL;
    r.out.d = NULL;
    r.scb = r.sdb = r.rcb = r.rdb = NULL;
    if (!leader && !r.sbuf)
        r.sbuf = r.rbuf; /* in place off the root: my input is rbuf */
    *rc = MPI_SUCCESS;
    if (h->node->size == 1) {
        if (r.sbuf)
            memcpy(r.rbuf, r.sbuf, bytes);
    } else if (!node_reduce(h->node, &r))
        *rc = run_on(h->node, &r);
    if (!*rc && leader && h->leaders->size > 1) {
        coll_args_t l = r;
        l.kind = C_ALLREDUCE;
        l.sbuf = NULL;
        *rc = run_on(h->leaders, &l);
    }
    if (!*rc)
        *rc = node_level_bcast(h, a->rbuf, bytes, 0);
    return 1;
}
