/*
 * win_sync.c — epochs: fence, post/start/complete/wait, passive-target locks.
 *
 * Operations complete when they return (win_ops.c), so closing an epoch is
 * a memory fence plus whatever tells the other side:
 *   fence      a barrier on the window's private communicator;
 *   PSCW       counters in the control blocks between ranks of a node,
 *              zero-byte messages (POST, DONE) with the others
 *              (MPI_MODE_NOCHECK skips POST);
 *   locks      words in the target's control block, changed with CPU
 *              atomics on the node and skf_atomic from other nodes, so the
 *              target's CPU never takes part:
 *                exclusive: take a ticket (fetch-add), wait until serving
 *                           reaches it and no shared holder is left; release
 *                           by advancing serving — first come, first served,
 *                           so no exclusive locker starves;
 *                shared:    add myself to readers, and back out again while
 *                           any exclusive locker holds or waits (ticket !=
 *                           serving), so shared lockers cannot starve them.
 *   accumulate mutex  compare-and-swap 0 -> my world rank + 1.
 * Waiting polls the word, drives MPI progress (the target may need mine)
 * and yields the CPU (ranks may outnumber cores).
 */
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <time.h>

#include "core/node_shared.h"
#include "device/device.h"
#include "rma/win.h"

#define TAG_POST 12
#define TAG_DONE 13

#define CTL(field) offsetof(struct win_ctl, field)

uint64_t win_ctl_atomic(struct MPI_ABI_Win *w, int target, size_t field, int op, uint64_t operand,
                        uint64_t compare)
{
    struct win_target *t = &w->t[target];
    if (t->ctl) {
        uint64_t *p = (uint64_t *)((char *)t->ctl + field), old = compare;
        switch (op) {
        case SKF_AOP_FETCH:
            return __atomic_load_n(p, __ATOMIC_SEQ_CST);
        case SKF_AOP_SET:
            return __atomic_exchange_n(p, operand, __ATOMIC_SEQ_CST);
        case SKF_AOP_ADD:
            return __atomic_fetch_add(p, operand, __ATOMIC_SEQ_CST);
        case SKF_AOP_CSWAP:
            __atomic_compare_exchange_n(p, &old, operand, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            return old;
        }
        mpir_fatal("win_ctl_atomic: op %d", op);
    }
    uint64_t old = 0;
    int rc = skf_atomic(mpid.ch, &t->ctl_key, field, op, 8, operand, compare, &old);
    if (rc)
        mpir_fatal("one-sided synchronisation with rank %d (world rank %d) failed: %s", target,
                   t->world, skf_strerror(rc));
    return old;
}

/* A rank of w on this node that died while I wait for a word it may hold
 * (a lock, the accumulate mutex) would leave me polling forever when no
 * launcher ends the job: look for one every 1024 polls (~50 ms). */
static void check_node_mates(struct MPI_ABI_Win *w)
{
    for (int r = 0; r < w->size; r++) {
        int pid;
        if (r != w->rank && skf_node_rank_dead(mpid.ctx, w->t[r].world, &pid))
            mpir_fatal("a peer process is gone: rank %d (pid %d, this node), rank %d of a window "
                       "whose lock or accumulate mutex this rank waits for",
                       w->t[r].world, pid, r);
    }
}

/* Between two polls of a remote word: progress, then yield or sleep a little
 * longer each time (up to 50 us) once the wait is not short. */
static void poll_pause(struct MPI_ABI_Win *w, unsigned *n)
{
    mpid_progress();
    if (++*n < 64) {
        sched_yield();
        return;
    }
    if ((*n & 1023) == 0)
        check_node_mates(w);
    unsigned us = *n < 1024 ? 2 : 50;
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}

static void wait_until_equal(struct MPI_ABI_Win *w, int target, size_t field, uint64_t want)
{
    unsigned n = 0;
    while (win_ctl_atomic(w, target, field, SKF_AOP_FETCH, 0, 0) != want)
        poll_pause(w, &n);
}

static void lock_exclusive(struct MPI_ABI_Win *w, int target)
{
    uint64_t my = win_ctl_atomic(w, target, CTL(ticket), SKF_AOP_ADD, 1, 0);
    wait_until_equal(w, target, CTL(serving), my);
    wait_until_equal(w, target, CTL(readers), 0);
}

static void lock_shared(struct MPI_ABI_Win *w, int target)
{
    unsigned n = 0;
    for (;;) {
        win_ctl_atomic(w, target, CTL(readers), SKF_AOP_ADD, 1, 0);
        uint64_t tk = win_ctl_atomic(w, target, CTL(ticket), SKF_AOP_FETCH, 0, 0);
        if (win_ctl_atomic(w, target, CTL(serving), SKF_AOP_FETCH, 0, 0) == tk)
            return; /* no exclusive locker holds or waits */
        win_ctl_atomic(w, target, CTL(readers), SKF_AOP_ADD, (uint64_t)-1, 0);
        while (win_ctl_atomic(w, target, CTL(serving), SKF_AOP_FETCH, 0, 0) !=
               win_ctl_atomic(w, target, CTL(ticket), SKF_AOP_FETCH, 0, 0))
            poll_pause(w, &n);
    }
}

static void unlock_target(struct MPI_ABI_Win *w, int target, int type)
{
    if (type == MPI_LOCK_EXCLUSIVE)
        win_ctl_atomic(w, target, CTL(serving), SKF_AOP_ADD, 1, 0);
    else
        win_ctl_atomic(w, target, CTL(readers), SKF_AOP_ADD, (uint64_t)-1, 0);
}

/* The accumulate mutex word is what the tcp service thread's requests try
 * (skf_accumulate: compare-and-swap 0 -> holder, never waiting).  Node mates
 * queue for it in ticket order first: a bare spin lock starved a rank whose
 * polls, spaced by poll_pause's sleeps, kept losing to ranks retrying at once
 * (rma_contend without CMA: minutes).  With nobody queued a rank takes the
 * word directly (two loads more than a bare spin lock); once it holds the
 * word it passes the turn on, so unlocking stays one store. */
void win_acc_lock(struct MPI_ABI_Win *w, int target)
{
    uint64_t me = (uint64_t)mpid.rank + 1;
    unsigned n = 0;
    struct win_ctl *c = w->t[target].ctl;
    if (c && __atomic_load_n(&c->acc_ticket, __ATOMIC_ACQUIRE) ==
                 __atomic_load_n(&c->acc_serving, __ATOMIC_ACQUIRE)) {
        uint64_t free_word = 0;
        if (__atomic_compare_exchange_n(&c->acc_mutex, &free_word, me, 0, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST))
            return;
    }
    if (c) {
        uint64_t my = __atomic_fetch_add(&c->acc_ticket, 1, __ATOMIC_SEQ_CST);
        while (__atomic_load_n(&c->acc_serving, __ATOMIC_ACQUIRE) != my)
            poll_pause(w, &n);
    }
    while (win_ctl_atomic(w, target, CTL(acc_mutex), SKF_AOP_CSWAP, me, 0) != 0)
        poll_pause(w, &n);
    if (c)
        __atomic_fetch_add(&c->acc_serving, 1, __ATOMIC_SEQ_CST);
}

void win_acc_unlock(struct MPI_ABI_Win *w, int target)
{
    win_ctl_atomic(w, target, CTL(acc_mutex), SKF_AOP_SET, 0, 0);
}

/* ---- fence ----------------------------------------------------------------------- */

int win_fence(const char *fn, struct MPI_ABI_Win *w, int assert)
{
    if (w->lock_all || w->nlocks || w->nstart || w->npost)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC,
                              "%s: rank %d is inside a %s epoch on this window", fn, w->rank,
                              w->nstart || w->npost ? "post/start" : "passive-target (lock)");
    int rc = w->pending ? win_settle(w, fn, -1) : MPI_SUCCESS;
    if (rc)
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    /* NOPRECEDE: nothing to complete; still a barrier, since others' epoch
     * may start right after and must not touch my memory before I am here */
    if ((rc = MPI_Barrier((MPI_Comm)w->comm)))
        return rc;
    w->fence_open = !(assert & MPI_MODE_NOSUCCEED);
    return MPI_SUCCESS;
}

/* ---- post / start / complete / wait ------------------------------------------------ */

int win_group_ranks(const char *fn, struct MPI_ABI_Win *w, struct MPI_ABI_Group *g, int **ranks,
                    int *n)
{
    int *r = malloc((size_t)(g->size ? g->size : 1) * sizeof *r);
    if (!r)
        return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < g->size; i++) {
        r[i] = -1;
        for (int k = 0; k < w->size; k++)
            if (w->t[k].world == g->world[i]) {
                r[i] = k;
                break;
            }
        if (r[i] < 0) {
            free(r);
            return mpir_win_error(w, MPI_ERR_GROUP,
                                  "%s: rank %d: member %d of the group (world rank %d) is not "
                                  "in the window",
                                  fn, w->rank, i, g->world[i]);
        }
    }
    *ranks = r;
    *n = g->size;
    return MPI_SUCCESS;
}

/* PSCW between ranks of one node runs on counters in the control blocks: a
 * target's post adds one to posted[its slot] in the origin's block, an
 * origin's complete adds one to done[its slot] in the target's; each side
 * counts what it has consumed per peer (posts_seen, dones_seen), so an early
 * post for a later epoch is never taken for another peer's.  Ranks on other
 * nodes exchange zero-byte messages instead (TAG_POST, TAG_DONE). */
enum { PSCW_POSTED, PSCW_DONE };
static char pscw_note[1]; /* buffer of the zero-byte messages (never NULL: memcpy of 0 bytes) */
static uint64_t *pscw_word(struct MPI_ABI_Win *w, int owner, int which, int from_slot)
{
    return (uint64_t *)((char *)w->t[owner].ctl + w->pscw_off +
                        ((size_t)which * (size_t)w->nlocal + (size_t)from_slot) * 8);
}

static int pscw_arrived(struct MPI_ABI_Win *w, int which, int from, uint64_t want)
{
    return __atomic_load_n(pscw_word(w, w->rank, which, w->t[from].slot), __ATOMIC_ACQUIRE) >=
           want;
}

/* Waiting for a node mate's counter: spin a little (the other side is
 * usually a few hundred nanoseconds away), then poll_pause. */
static void pscw_pause(struct MPI_ABI_Win *w, unsigned *k, unsigned *n)
{
    if (++*k < 4096) {
        __builtin_ia32_pause();
        if ((*k & 255) == 0)
            mpid_progress();
        return;
    }
    poll_pause(w, n);
}

int win_post(const char *fn, struct MPI_ABI_Win *w, struct MPI_ABI_Group *g, int assert)
{
    if (w->npost || w->post_ranks || w->lock_all || w->nlocks)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC,
                              "%s: rank %d already has an exposure epoch or a lock open", fn,
                              w->rank);
    int *ranks, n, rc = win_group_ranks(fn, w, g, &ranks, &n);
    if (rc)
        return rc;
    MPI_Request *done = malloc((size_t)(n ? n : 1) * sizeof *done);
    if (!done) {
        free(ranks);
        return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    MPI_Comm h = (MPI_Comm)w->comm;
    int me = w->t[w->rank].slot;
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < n; i++) {
        done[i] = MPI_REQUEST_NULL;
        if (!w->t[ranks[i]].ctl)
            MPI_Irecv(pscw_note, 0, MPI_BYTE, ranks[i], TAG_DONE, h, &done[i]);
    }
    if (!(assert & MPI_MODE_NOCHECK))
        for (int i = 0; i < n; i++) {
            if (w->t[ranks[i]].ctl)
                __atomic_fetch_add(pscw_word(w, ranks[i], PSCW_POSTED, me), 1, __ATOMIC_SEQ_CST);
            else
                MPI_Send(pscw_note, 0, MPI_BYTE, ranks[i], TAG_POST, h);
        }
    w->post_ranks = ranks;
    w->npost = n ? n : -1; /* -1: an empty exposure epoch is still open */
    w->post_done = done;
    return MPI_SUCCESS;
}

int win_start(const char *fn, struct MPI_ABI_Win *w, struct MPI_ABI_Group *g, int assert)
{
    if (w->start_ranks || w->lock_all || w->nlocks)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC,
                              "%s: rank %d already has an access epoch or a lock open", fn,
                              w->rank);
    int *ranks, n, rc = win_group_ranks(fn, w, g, &ranks, &n);
    if (rc)
        return rc;
    if (!(assert & MPI_MODE_NOCHECK))
        for (int i = 0; i < n; i++) {
            struct win_target *t = &w->t[ranks[i]];
            if (!t->ctl) {
                MPI_Recv(pscw_note, 0, MPI_BYTE, ranks[i], TAG_POST, (MPI_Comm)w->comm,
                         MPI_STATUS_IGNORE);
                continue;
            }
            uint64_t want = ++t->posts_seen;
            for (unsigned k = 0, m = 0; !pscw_arrived(w, PSCW_POSTED, ranks[i], want);)
                pscw_pause(w, &k, &m);
        }
    w->start_ranks = ranks;
    w->nstart = n;
    return MPI_SUCCESS;
}

int win_complete(const char *fn, struct MPI_ABI_Win *w)
{
    if (!w->start_ranks)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC,
                              "%s: rank %d has no access epoch (no MPI_Win_start)", fn, w->rank);
    int rc = w->pending ? win_settle(w, fn, -1) : MPI_SUCCESS;
    if (rc)
        return rc;
    int me = w->t[w->rank].slot;
    atomic_thread_fence(memory_order_seq_cst);
    for (int i = 0; i < w->nstart; i++) {
        int r = w->start_ranks[i];
        if (w->t[r].ctl)
            __atomic_fetch_add(pscw_word(w, r, PSCW_DONE, me), 1, __ATOMIC_SEQ_CST);
        else
            MPI_Send(pscw_note, 0, MPI_BYTE, r, TAG_DONE, (MPI_Comm)w->comm);
    }
    free(w->start_ranks);
    w->start_ranks = NULL;
    w->nstart = 0;
    return MPI_SUCCESS;
}

/* Have all origins of my exposure epoch on this node completed? */
static int local_dones_in(struct MPI_ABI_Win *w)
{
    for (int i = 0; i < w->npost; i++) {
        struct win_target *t = &w->t[w->post_ranks[i]];
        if (t->ctl && !pscw_arrived(w, PSCW_DONE, w->post_ranks[i], t->dones_seen + 1))
            return 0;
    }
    return 1;
}

int win_wait(const char *fn, struct MPI_ABI_Win *w, int test, int *flag)
{
    if (!w->post_ranks)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC,
                              "%s: rank %d has no exposure epoch (no MPI_Win_post)", fn, w->rank);
    int n = w->npost < 0 ? 0 : w->npost, all = 1;
    if (test) {
        mpid_progress(); /* a test loop must move things (node mates' requests to me too) */
        MPI_Testall(n, w->post_done, &all, MPI_STATUSES_IGNORE);
        all = all && local_dones_in(w);
    } else {
        for (unsigned k = 0, m = 0; !local_dones_in(w);)
            pscw_pause(w, &k, &m);
        MPI_Waitall(n, w->post_done, MPI_STATUSES_IGNORE);
    }
    if (flag)
        *flag = all;
    if (!all)
        return MPI_SUCCESS;
    for (int i = 0; i < n; i++)
        if (w->t[w->post_ranks[i]].ctl)
            w->t[w->post_ranks[i]].dones_seen++;
    atomic_thread_fence(memory_order_seq_cst);
    free(w->post_ranks);
    free(w->post_done);
    w->post_ranks = NULL;
    w->post_done = NULL;
    w->npost = 0;
    return MPI_SUCCESS;
}

/* ---- passive target ------------------------------------------------------------------ */

int win_lock(const char *fn, struct MPI_ABI_Win *w, int type, int target, int assert)
{
    struct win_target *t = &w->t[target];
    if (t->lock || w->lock_all)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC, "%s: rank %d already holds a lock on rank %d",
                              fn, w->rank, target);
    if (!(assert & MPI_MODE_NOCHECK)) {
        if (type == MPI_LOCK_EXCLUSIVE)
            lock_exclusive(w, target);
        else
            lock_shared(w, target);
    }
    t->lock = type;
    t->lock_nocheck = !!(assert & MPI_MODE_NOCHECK);
    w->nlocks++;
    return MPI_SUCCESS;
}

int win_unlock(const char *fn, struct MPI_ABI_Win *w, int target)
{
    struct win_target *t = &w->t[target];
    if (!t->lock)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC, "%s: rank %d holds no lock on rank %d", fn,
                              w->rank, target);
    int rc = w->pending ? win_settle(w, fn, target) : MPI_SUCCESS;
    if (rc)
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    if (!t->lock_nocheck)
        unlock_target(w, target, t->lock);
    t->lock = 0;
    w->nlocks--;
    return MPI_SUCCESS;
}

int win_lock_all(const char *fn, struct MPI_ABI_Win *w, int assert)
{
    if (w->lock_all || w->nlocks)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC, "%s: rank %d already holds %s", fn, w->rank,
                              w->lock_all ? "lock_all" : "a lock on the window");
    w->lock_all_nocheck = !!(assert & MPI_MODE_NOCHECK);
    if (!w->lock_all_nocheck)
        for (int r = 0; r < w->size; r++)
            lock_shared(w, r);
    w->lock_all = 1;
    return MPI_SUCCESS;
}

int win_unlock_all(const char *fn, struct MPI_ABI_Win *w)
{
    if (!w->lock_all)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC, "%s: rank %d does not hold lock_all", fn,
                              w->rank);
    int rc = w->pending ? win_settle(w, fn, -1) : MPI_SUCCESS;
    if (rc)
        return rc;
    atomic_thread_fence(memory_order_seq_cst);
    if (!w->lock_all_nocheck)
        for (int r = 0; r < w->size; r++)
            unlock_target(w, r, MPI_LOCK_SHARED);
    w->lock_all = 0;
    return MPI_SUCCESS;
}
