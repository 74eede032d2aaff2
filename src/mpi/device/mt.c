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
__thread int mpid_cs_depth __attribute__((tls_model("initial-exec")));
int mpid_mt_lock_waiters; /* threads blocked in lock_slow: the sleeper must not sleep */

static _Atomic uint32_t epoch;       /* bumped by every unlock */
static _Atomic uint32_t epoch_waiters;
static __thread uint32_t seen_epoch
    __attribute__((tls_model("initial-exec"))); /* epoch when this thread's last wait ended */

static void futex(_Atomic uint32_t *w, int op, uint32_t val, const struct timespec *ts)
{
    syscall(SYS_futex, (uint32_t *)w, op, val, ts, NULL, 0);
}

#ifdef __SANITIZE_THREAD__
/* ThreadSanitizer knows pthread mutexes, not the futex word below. */
static pthread_mutex_t device_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int lock_held;
static int dl_trylock(void)
{
    if (pthread_mutex_trylock(&device_lock) != 0)
        return 0;
    atomic_store_explicit(&lock_held, 1, memory_order_relaxed);
    return 1;
}
static void dl_lock(void)
{
    pthread_mutex_lock(&device_lock);
    atomic_store_explicit(&lock_held, 1, memory_order_relaxed);
}
static void dl_unlock(void)
{
    atomic_store_explicit(&lock_held, 0, memory_order_seq_cst);
    pthread_mutex_unlock(&device_lock);
}
static int dl_held(void) { return atomic_load_explicit(&lock_held, memory_order_relaxed); }
#else
/* The device lock word: 0 free, 1 held, 2 held and someone sleeps on it.
 * Trylock is one compare-and-swap, unlock one exchange (a pthread mutex
 * cost 60 instructions per pair more, measured with bench/mpi_selfpair). */
static _Atomic uint32_t dl_word;
#define LOCK_SPINS 128

static int dl_trylock(void)
{
    uint32_t free_ = 0;
    return atomic_compare_exchange_strong_explicit(&dl_word, &free_, 1, memory_order_acquire,
                                                   memory_order_relaxed);
}
static void dl_lock(void)
{
    for (int i = 0; i < LOCK_SPINS; i++) { /* sections are short: spin first */
        if (!atomic_load_explicit(&dl_word, memory_order_relaxed) && dl_trylock())
            return;
        skf_cpu_relax();
    }
    while (atomic_exchange_explicit(&dl_word, 2, memory_order_acquire) != 0)
        futex(&dl_word, FUTEX_WAIT_PRIVATE, 2, NULL);
}
static void dl_unlock(void)
{
    if (atomic_exchange_explicit(&dl_word, 0, memory_order_seq_cst) == 2)
        futex(&dl_word, FUTEX_WAKE_PRIVATE, 1, NULL);
}
static int dl_held(void) { return atomic_load_explicit(&dl_word, memory_order_relaxed) != 0; }
#endif

void mpid_cs_lock_slow(void)
{
    if (mpid_cs_depth++ > 0)
        return;
    if (!dl_trylock()) {
        __atomic_fetch_add(&mpid_mt_lock_waiters, 1, __ATOMIC_SEQ_CST);
        skf_kick(mpid.ch); /* a thread asleep in the channel holding the lock: wake it */
        dl_lock();
        __atomic_fetch_sub(&mpid_mt_lock_waiters, 1, __ATOMIC_SEQ_CST);
    }
}

int mpid_cs_trylock_slow(void)
{
    if (mpid_cs_depth > 0) {
        mpid_cs_depth++;
        return 1;
    }
    if (!dl_trylock())
        return 0;
    mpid_cs_depth = 1;
    return 1;
}

void mpid_cs_unlock_slow(void)
{
    if (--mpid_cs_depth > 0)
        return;
    /* Only the holder writes the epoch: a plain increment, no locked
     * instruction.  The unlock's exchange orders it before the load of
     * epoch_waiters (Dekker with the waiter's increment of epoch_waiters
     * before its load of epoch: either it sees the new epoch or we see it). */
    atomic_store_explicit(&epoch, atomic_load_explicit(&epoch, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    dl_unlock();
    if (atomic_load_explicit(&epoch_waiters, memory_order_seq_cst))
        futex(&epoch, FUTEX_WAKE_PRIVATE, INT_MAX, NULL);
}

#define EPOCH_SPINS 256 /* polls of the epoch before the futex: a pass is short */

void mpid_mt_wait_epoch(void)
{
    /* Most passes end within a microsecond or two: look a while before
     * paying for a futex sleep here and a wake-up syscall in every unlock. */
    for (int i = 0; i < EPOCH_SPINS; i++) {
        if (atomic_load_explicit(&epoch, memory_order_acquire) != seen_epoch ||
            !dl_held())
            goto out;
        skf_cpu_relax();
    }
    atomic_fetch_add_explicit(&epoch_waiters, 1, memory_order_seq_cst);
    uint32_t e = atomic_load_explicit(&epoch, memory_order_seq_cst);
    /* Nothing unlocked since my last wait ended, and someone holds the lock
     * (it progresses; its unlock wakes me): sleep.  A free lock: return and
     * take it.  1 ms at most, whatever happens. */
    if (e == seen_epoch && dl_held()) {
        struct timespec ts = {0, 1000000};
        futex(&epoch, FUTEX_WAIT_PRIVATE, e, &ts);
    }
    atomic_fetch_sub_explicit(&epoch_waiters, 1, memory_order_seq_cst);
out:
    seen_epoch = atomic_load_explicit(&epoch, memory_order_seq_cst);
}

int mpid_mt_sleepers(void) { return (int)atomic_load_explicit(&epoch_waiters, memory_order_relaxed); }

void mpid_mt_saw_epoch(void) { seen_epoch = atomic_load_explicit(&epoch, memory_order_seq_cst); }
