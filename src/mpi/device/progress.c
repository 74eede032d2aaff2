/*
 * progress.c — the device's engine: push queued sends, drain arrivals, and
 * wait without burning a core.
 *
 * One pass of mpid_progress takes a bounded number of messages so a flood
 * from one peer cannot starve the send FIFOs.  When a pass moves nothing the
 * caller goes to mpid_idle, i.e. skf_wait: it polls briefly and then sleeps
 * on the channel's doorbell, which is what keeps oversubscribed runs usable.
 */
#include <errno.h>

#include "coll/coll.h"
#include "device/device.h"
#include "dynproc/bridge.h"

#define ARRIVALS_PER_PASS 64

static int progress_bridge(void)
{
    int moved = 0;
    dyn_poll(0);
    for (int i = 0; i < ARRIVALS_PER_PASS; i++) {
        struct iovec cont[SKF_CONT_SIZE]; /* a ring's message can wrap: two pieces */
        int ncont, world;
        ssize_t total = dyn_recv(cont, &ncont, &world);
        if (total == -EAGAIN)
            break;
        mpid.dyn_cur = 1;
        mpid_on_message(world, cont, ncont, (size_t)total);
        if (mpid.dyn_cur) /* every path gives the message back; be sure */
            mpid_recv_done();
        moved = 1;
    }
    return moved;
}

static int progress_pass(void)
{
    int moved = 0;
    if (mpid.n_active)
        moved = mpid_progress_sends();
    for (int i = 0; i < ARRIVALS_PER_PASS; i++) {
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t from;
        ssize_t total = skf_recv(mpid.ch, cont, &ncont, &from);
        if (total == -EAGAIN)
            break;
        if (total < 0)
            mpir_fatal("receive failed: %s", skf_strerror((int)total));
        mpid_on_message(skf_addr_rank(from), cont, ncont, (size_t)total);
        moved = 1;
    }
    if (unlikely(dyn_active)) /* processes of other jobs (dynproc/bridge.c) */
        moved |= progress_bridge();
    if (mpid.pulls) /* rendezvous gets in flight (skf_recv above moved them) */
        moved |= mpid_progress_pulls();
    if (coll_n_active) /* started collectives advance with everything else */
        moved |= coll_progress();
    if (part_n_pending) /* partitioned sends (binding/partitioned.c) */
        moved |= part_progress();
    return moved;
}

/* MULTIPLE: one thread drives progress at a time; the others find the lock
 * taken and go on waiting for their own flags (mt.h). */
static __attribute__((noinline)) int progress_mt(void)
{
    if (!mpid_cs_trylock_slow())
        return 0;
    int moved = progress_pass();
    mpid_cs_unlock_slow();
    return moved;
}

int mpid_progress(void)
{
    if (unlikely(mpir_mt))
        return progress_mt();
    return progress_pass();
}

void mpid_peer_gone(void)
{
    char desc[128];
    int r = skf_chan_lost(mpid.ch, desc, sizeof desc);
    if (r >= 0)
        mpir_fatal("a peer process is gone: rank %d (%s); ending the job", r, desc);
    mpir_fatal("a peer process is gone; ending the job");
}

static int idle_events(void)
{
    /* a send FIFO whose head is a direct payload leaving waits for its end
     * (GET_DONE: the socket took the last byte), not for room in a ring:
     * a full socket then sleeps on EPOLLOUT instead of spinning */
    int writable = mpid.n_active > mpid.direct_out;
    if (unlikely(dyn_rings) && writable) {
        /* sends that wait only for rings of other jobs (dynproc/pair.c): their
         * receivers kick when they make room; the channel's "writable" would
         * not sleep at all */
        writable = 0;
        for (int i = 0; i < mpid.n_active && !writable; i++)
            writable = mpid.active[i] < mpid.size;
    }
    return SKF_READABLE | (writable ? SKF_WRITABLE : 0) |
           (mpid.pulls || mpid.direct_out ? SKF_GET_DONE : 0);
}

static void idle_rc(int rc)
{
    if (rc == -EPIPE)
        mpid_peer_gone();
    if (rc < 0 && rc != -EINTR && rc != -EAGAIN)
        mpir_fatal("waiting for messages failed: %s", skf_strerror(rc));
}

/* MULTIPLE: the thread that gets the lock sleeps in the channel (1 ms at
 * most, cut short by skf_kick when another thread needs the lock); the
 * others sleep until an unlock (mt.c). */
static __attribute__((noinline)) void idle_mt(void)
{
    if (mpid_cs_depth > 0) /* waiting inside the device (should not happen): just poll */
        return;
    if (!mpid_cs_trylock_slow()) {
        mpid_mt_wait_epoch();
        return;
    }
    int rc = 0;
    if (!__atomic_load_n(&mpid_mt_lock_waiters, __ATOMIC_RELAXED))
        rc = skf_wait(mpid.ch, idle_events(), 1);
    mpid_cs_unlock_slow();
    mpid_mt_saw_epoch();
    idle_rc(rc);
}

int mpid_mt_wait_locked(void)
{
    /* others want the lock, or sleep until it is dropped (what this thread
     * drained from the channel may have completed their requests) */
    if (__atomic_load_n(&mpid_mt_lock_waiters, __ATOMIC_RELAXED) || mpid_mt_sleepers())
        return 0;
    int rc = skf_wait(mpid.ch, idle_events(), 1);
    idle_rc(rc);
    return rc;
}

void mpid_idle(void)
{
    if (unlikely(mpir_mt)) {
        idle_mt();
        return;
    }
    /* with other jobs connected their sockets are polled between short waits,
     * unless the bridge's watcher wakes the wait (dynproc/bridge.c) */
    /* rings from processes of other jobs (dynproc/pair.c): a message, or room */
    if (unlikely(dyn_rings) && dyn_idle_begin())
        return;
    int rc = skf_wait(mpid.ch, idle_events(),
                      (dyn_active && (!dyn_wakes || dyn_backlog)) ||
                              __atomic_load_n(&mpir_greq_open, __ATOMIC_RELAXED)
                          ? 1
                          : 1000);
    if (unlikely(dyn_rings))
        dyn_idle_end();
    idle_rc(rc);
}

void mpid_wait(mpid_req_t *r)
{
    while (!REQ_DONE(r))
        if (!mpid_progress() && !REQ_DONE(r))
            mpid_idle();
}
