/*
 * mt.c — the device lock and the progress epoch for MPI_THREAD_MULTIPLE
 * (mt.h, docs/threads.md).  Nothing here runs unless mpir_mt is set.
 */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/relax.h"
#include "device/device.h"

int mpir_mt;
__thread int mpid_cs_depth;
int mpid_mt_lock_waiters; /* threads blocked in lock_slow: the sleeper must not sleep */

/* adaptive: spins a little before sleeping, the sections are short */
static pthread_mutex_t device_lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP;
static _Atomic uint32_t epoch;       /* bumped by every unlock */
static _Atomic uint32_t epoch_waiters;
static _Atomic int lock_held;
static __thread uint32_t seen_epoch; /* epoch when this thread's last wait ended */

void mpid_cs_lock_slow(void)
{
    if (mpid_cs_depth++ > 0)
        return;
    if (pthread_mutex_trylock(&device_lock) != 0) {
        __atomic_fetch_add(&mpid_mt_lock_waiters, 1, __ATOMIC_SEQ_CST);
        skf_kick(mpid.ch); /* a thread asleep in the channel holding the lock: wake it */
        pthread_mutex_lock(&device_lock);
        __atomic_fetch_sub(&mpid_mt_lock_waiters, 1, __ATOMIC_SEQ_CST);
    }
    atomic_store_explicit(&lock_held, 1, memory_order_relaxed);
}

int mpid_cs_trylock_slow(void)
{
    if (mpid_cs_depth > 0) {
        mpid_cs_depth++;
        return 1;
    }
    if (pthread_mutex_trylock(&device_lock) != 0)
        return 0;
    mpid_cs_depth = 1;
    atomic_store_explicit(&lock_held, 1, memory_order_relaxed);
    return 1;
}

void mpid_cs_unlock_slow(void)
{
    if (--mpid_cs_depth > 0)
        return;
    atomic_store_explicit(&lock_held, 0, memory_order_relaxed);
    pthread_mutex_unlock(&device_lock);
    /* seq_cst pairs with the waiter's increment of epoch_waiters before
     * its load of epoch: either it sees the new epoch or we see it. */
    atomic_fetch_add_explicit(&epoch, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&epoch_waiters, memory_order_seq_cst))
        syscall(SYS_futex, (uint32_t *)&epoch, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

#define EPOCH_SPINS 256 /* polls of the epoch before the futex: a pass is short */

void mpid_mt_wait_epoch(void)
{
    /* Most passes end within a microsecond or two: look a while before
     * paying for a futex sleep here and a wake-up syscall in every unlock. */
    for (int i = 0; i < EPOCH_SPINS; i++) {
        if (atomic_load_explicit(&epoch, memory_order_acquire) != seen_epoch ||
            !atomic_load_explicit(&lock_held, memory_order_relaxed))
            goto out;
        skf_cpu_relax();
    }
    atomic_fetch_add_explicit(&epoch_waiters, 1, memory_order_seq_cst);
    uint32_t e = atomic_load_explicit(&epoch, memory_order_seq_cst);
    /* Nothing unlocked since my last wait ended, and someone holds the lock
     * (it progresses; its unlock wakes me): sleep.  A free lock: return and
     * take it.  1 ms at most, whatever happens. */
    if (e == seen_epoch && atomic_load_explicit(&lock_held, memory_order_relaxed)) {
        struct timespec ts = {0, 1000000};
        syscall(SYS_futex, (uint32_t *)&epoch, FUTEX_WAIT_PRIVATE, e, &ts, NULL, 0);
    }
    atomic_fetch_sub_explicit(&epoch_waiters, 1, memory_order_seq_cst);
out:
    seen_epoch = atomic_load_explicit(&epoch, memory_order_seq_cst);
}

void mpid_mt_saw_epoch(void) { seen_epoch = atomic_load_explicit(&epoch, memory_order_seq_cst); }
