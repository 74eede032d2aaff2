/*
 * lock.c — distributed locks (shmem_set_lock, shmem_test_lock,
 * shmem_clear_lock) on a symmetric long.
 *
 * The lock is the word on PE 0 (every PE names the same symmetric address):
 * 0 when free, holder PE + 1 when held, taken by compare-and-swap and freed
 * by an atomic store — AMOs, so PEs on other nodes take it through PE 0's
 * service thread without PE 0 calling SHMEM.  Waiting backs off (yield,
 * then short sleeps), so PEs outnumbering cores still make progress.
 */
#include "shmemi.h"

#define LOCK_HOME 0

static long try_take(const char *call, long *lock)
{
    return (long)shmemi_amo(call, lock, SKF_AOP_CSWAP, 8, (uint64_t)shmemi.me + 1, 0, LOCK_HOME);
}

void shmem_set_lock(long *lock)
{
    shmemi_check_init("shmem_set_lock");
    unsigned round = 0;
    long holder;
    while ((holder = try_take("shmem_set_lock", lock)) != 0) {
        if (holder == shmemi.me + 1)
            shmemi_fatal("shmem_set_lock", "PE %d already holds the lock at %p", shmemi.me,
                         (void *)lock);
        shmemi_poll_pause(&round);
    }
}

int shmem_test_lock(long *lock)
{
    shmemi_check_init("shmem_test_lock");
    return try_take("shmem_test_lock", lock) != 0;
}

void shmem_clear_lock(long *lock)
{
    shmemi_check_init("shmem_clear_lock");
    shmemi_quiet(); /* the critical section's puts are done */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    long holder = (long)shmemi_amo("shmem_clear_lock", lock, SKF_AOP_CSWAP, 8, 0,
                                   (uint64_t)shmemi.me + 1, LOCK_HOME);
    if (holder != shmemi.me + 1)
        shmemi_fatal("shmem_clear_lock", "PE %d does not hold the lock at %p (holder: %s %ld)",
                     shmemi.me, (void *)lock, holder ? "PE" : "none", holder - 1);
}
