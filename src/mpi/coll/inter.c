/*
 * inter.c — collectives on intercommunicators: barrier, bcast, reduce,
 * allreduce, gather, scatter, allgather, alltoall (the v/w variants and
 * reduce_scatter are not provided on intercommunicators).
 *
 * Each group works inside its own local intracommunicator (ext->local, made
 * with the intercommunicator) with the intracommunicator algorithms, and the
 * two groups meet through their local rank 0 ("leader") or, for the rooted
 * and all-to-all forms, rank to rank.  Local messages carry the
 * intercommunicator's collective tag + 2^30 on the local group's collective
 * context, so they can meet nothing else.  Roots follow the standard:
 * MPI_ROOT in the root's own group, MPI_PROC_NULL for its group's other
 * ranks, the root's remote rank in the other group.
 */
#include "coll/coll.h"
#include "comm_create.h"

#define LOCAL_TAGX (1 << 30)

/* Local phases run on the group's own intracommunicator. */
static void local(sched_t *s, struct MPI_ABI_Comm *loc) { sched_use(s, loc->coll, LOCAL_TAGX); }
static void across(sched_t *s) { sched_use(s, NULL, 0); }

/* Reduce my group's data to local rank 0, into its tmp (rank order kept). */
static void local_reduce(sched_t *s, struct MPI_ABI_Comm *loc, const coll_args_t *a, void *tmp)
{
    coll_args_t r = *a;
    r.root = 0;
    r.rbuf = tmp;
    local(s, loc);
    algo_reduce_binomial(s, loc->rank, loc->size, &r);
    sched_fence(s);
}

void coll_build_inter(sched_t *s, struct MPI_ABI_Comm *c, const coll_args_t *a)
{
    struct MPI_ABI_Comm *loc = c->ext->local;
    int R = c->size, me = loc->rank, L = loc->size, leader = me == 0;
    size_t bytes = a->count * a->red.extent;
    char *sb = (char *)a->sbuf, *rb = a->rbuf;
    switch (a->kind) {
    case C_BARRIER: /* everyone in my group is here; leaders swap; tell the group */
        local(s, loc);
        algo_barrier_dissemination(s, me, L);
        across(s);
        if (leader) {
            sched_send(s, NULL, 0, 0);
            sched_recv(s, NULL, 0, 0);
            sched_fence(s);
        }
        local(s, loc);
        algo_bcast_binomial(s, me, L, NULL, 0, 0);
        break;
    case C_BCAST:
        if (a->root == MPI_ROOT) {
            if (a->rbytes)
                sched_send(s, rb, a->rbytes, 0);
        } else if (a->root != MPI_PROC_NULL && a->rbytes) {
            if (leader) {
                sched_recv(s, rb, a->rbytes, a->root);
                sched_fence(s);
            }
            local(s, loc);
            algo_bcast_binomial(s, me, L, rb, a->rbytes, 0);
        }
        break;
    case C_REDUCE: /* the other group reduces to its leader, which sends to the root */
        if (!bytes || a->root == MPI_PROC_NULL)
            break;
        if (a->root == MPI_ROOT) {
            sched_recv(s, rb, bytes, 0);
        } else {
            void *tmp = leader ? sched_tmp(s, bytes) : NULL;
            local_reduce(s, loc, a, tmp);
            across(s);
            if (leader)
                sched_send(s, tmp, bytes, a->root);
        }
        break;
    case C_ALLREDUCE: { /* each group gets the reduction of the other group's data */
        if (!bytes)
            break;
        void *tmp = leader ? sched_tmp(s, bytes) : NULL;
        local_reduce(s, loc, a, tmp);
        across(s);
        if (leader) {
            sched_send(s, tmp, bytes, 0);
            sched_recv(s, rb, bytes, 0);
            sched_fence(s);
        }
        local(s, loc);
        algo_bcast_binomial(s, me, L, rb, bytes, 0);
        break;
    }
    case C_GATHER:
        if (a->root == MPI_ROOT) {
            for (int i = 0; i < R && a->rbytes; i++)
                sched_recv(s, rb + (size_t)i * a->rbytes, a->rbytes, i);
        } else if (a->root != MPI_PROC_NULL && a->sbytes) {
            sched_send(s, sb, a->sbytes, a->root);
        }
        break;
    case C_SCATTER:
        if (a->root == MPI_ROOT) {
            for (int i = 0; i < R && a->sbytes; i++)
                sched_send(s, sb + (size_t)i * a->sbytes, a->sbytes, i);
        } else if (a->root != MPI_PROC_NULL && a->rbytes) {
            sched_recv(s, rb, a->rbytes, a->root);
        }
        break;
    case C_ALLGATHER: { /* gather my group's blocks at the leader, leaders swap, bcast */
        size_t blk = a->sbytes;
        char *mine = leader && blk ? sched_tmp(s, (size_t)L * blk) : NULL;
        if (blk) {
            coll_args_t g = *a;
            g.root = 0;
            g.rbuf = mine;
            g.rbytes = blk;
            local(s, loc);
            if (L == 1)
                sched_copy(s, mine, sb, blk);
            else
                algo_gather_binomial(s, me, L, &g);
            sched_fence(s);
        }
        across(s);
        if (leader) {
            if (blk)
                sched_send(s, mine, (size_t)L * blk, 0);
            if (a->rbytes)
                sched_recv(s, rb, (size_t)R * a->rbytes, 0);
            sched_fence(s);
        }
        if (a->rbytes) {
            local(s, loc);
            algo_bcast_binomial(s, me, L, rb, (size_t)R * a->rbytes, 0);
        }
        break;
    }
    case C_ALLTOALL:
        for (int i = 0; i < R; i++) {
            if (a->rbytes)
                sched_recv(s, rb + (size_t)i * a->rbytes, a->rbytes, i);
            if (a->sbytes)
                sched_send(s, sb + (size_t)i * a->sbytes, a->sbytes, i);
        }
        break;    case C_GATHERV:
        if (a->root == MPI_ROOT) {
            for (int i = 0; i < R; i++)
                if (a->rcb[i])
                    sched_recv(s, rb + a->rdb[i], a->rcb[i], i);
        } else if (a->root != MPI_PROC_NULL && a->sbytes) {
            sched_send(s, sb, a->sbytes, a->root);
        }
        break;
    case C_SCATTERV:
        if (a->root == MPI_ROOT) {
            for (int i = 0; i < R; i++)
                if (a->scb[i])
                    sched_send(s, sb + a->sdb[i], a->scb[i], i);
        } else if (a->root != MPI_PROC_NULL && a->rbytes) {
            sched_recv(s, rb, a->rbytes, a->root);
        }
        break;
    case C_ALLGATHERV: /* my block to every remote rank, theirs from each */
    case C_ALLTOALLV:
    case C_ALLTOALLW:
        for (int i = 0; i < R; i++) {
            if (a->rcb[i])
                sched_recv(s, rb + a->rdb[i], a->rcb[i], i);
            size_t n = a->kind == C_ALLGATHERV ? a->sbytes : a->scb[i];
            if (n)
                sched_send(s, sb + (a->kind == C_ALLGATHERV ? 0 : a->sdb[i]), n, i);
        }
        break;
    case C_REDUCE_SCATTER:
    case C_REDUCE_SCATTER_BLOCK: { /* reduce my group's vectors at the leader, leaders
                                    * swap, each leader scatters what it got */
        size_t total = a->rdb[L - 1] + a->rcb[L - 1];
        if (!total)
            break;
        char *mine = leader ? sched_tmp(s, total) : NULL, *theirs = leader ? sched_tmp(s, total) : NULL;
        coll_args_t r = *a;
        r.count = total / a->red.extent;
        local_reduce(s, loc, &r, mine);
        across(s);
        if (leader) {
            sched_send(s, mine, total, 0);
            sched_recv(s, theirs, total, 0);
            sched_fence(s);
        }
        coll_args_t sc = *a;
        sc.root = 0;
        sc.sbuf = theirs;
        sc.scb = a->rcb;
        sc.sdb = a->rdb;
        sc.rbytes = a->rcb[me];
        local(s, loc);
        algo_scatterv_linear(s, me, L, &sc);
        break;
    }
    }
    across(s);
    sched_fence(s);
}
