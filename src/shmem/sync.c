/*
 * sync.c — waiting, and the barriers every collective stands on.
 *
 * A team barrier is a dissemination barrier over one-sided atomics: in round
 * k member i adds one to its own slot (sync_in[my PE]) on member i+2^k and
 * waits until its slot for member i-2^k has reached the count it expects from
 * that PE.  The counters only grow, so nothing is reset between barriers and
 * no barrier can meet another's signal early, provided every pair of PEs
 * calls the collectives of their common teams in the same order (as the
 * standard requires of each team).  Node mates signal with a CPU atomic on
 * the mapped heap, other PEs with skf_atomic (answered by their tcp service
 * thread): no PE has to be inside SHMEM for another to progress.
 */
#include <sched.h>
#include <time.h>

#include "core/relax.h"
#include "shmemi.h"


/* Drive the channel while waiting: over tcp a message or a request can sit in
 * my send ring until progress runs (a fresh connection's first frames wait
 * for its handshake), and a peer may be waiting for exactly those bytes.
 * Nothing arrives on the SHMEM port after start-up; anything that does is
 * dropped. */
static void channel_progress(void)
{
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    if (shmemi.thread_level == SHMEM_THREAD_MULTIPLE &&
        pthread_mutex_trylock(&shmemi.chan_lock) != 0)
        return; /* another thread is in the channel: it drives it */
    if (skf_recv(shmemi.ch, cont, &ncont, NULL) >= 0)
        skf_recv_done(shmemi.ch);
    if (shmemi.thread_level == SHMEM_THREAD_MULTIPLE)
        pthread_mutex_unlock(&shmemi.chan_lock);
}

void shmemi_poll_pause(unsigned *round)
{
    unsigned r = (*round)++;
    if (shmemi.channel_peers && (r >= 64 || r % 16 == 15))
        channel_progress();
    if (r < 64) {
        skf_cpu_relax();
    } else if (r < (1u << 16)) {
        sched_yield(); /* PEs may outnumber cores: let the one we wait for run */
    } else {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

void shmemi_team_sync(const struct shmemi_team *t)
{
    int n = t->n, i = t->my, me = shmemi.me;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* my puts before my signals */
    for (int d = 1; d < n; d <<= 1) {
        int to = shmemi_member(t, (i + d) % n), from = shmemi_member(t, (i - d + n) % n);
        shmemi_amo("shmem barrier", &shmemi.sync_in[me], SKF_AOP_ADD, 8, 1, 0, to);
        uint64_t want = ++shmemi.sync_expect[from];
        unsigned round = 0;
        while (__atomic_load_n(&shmemi.sync_in[from], __ATOMIC_ACQUIRE) < want)
            shmemi_poll_pause(&round);
    }
}

void shmem_barrier_all(void)
{
    shmemi_check_init("shmem_barrier_all");
    shmemi_team_sync(&shmemi_team_world);
}

void shmem_sync_all(void)
{
    shmemi_check_init("shmem_sync_all");
    shmemi_team_sync(&shmemi_team_world);
}

int shmem_team_sync(shmem_team_t team)
{
    shmemi_check_init("shmem_team_sync");
    if (!team || team->my < 0)
        return -1;
    shmemi_team_sync(team);
    return 0;
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct shmemi_team t;
    (void)pSync;
    shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_barrier");
    shmemi_team_sync(&t);
}

void shmemi_sync_active_set(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct shmemi_team t;
    (void)pSync;
    shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_sync");
    shmemi_team_sync(&t);
}

#undef shmem_sync
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shmemi_sync_active_set(PE_start, logPE_stride, PE_size, pSync);
}
