/* barrier.c — no PE leaves a barrier before every member has entered it.
 * Each round every member adds 1 to a counter on the team's first member
 * (a non-fetching AMO: pipelined over the channel, complete at the barrier),
 * then the barrier, then reads it: it must hold every member's add of this
 * round, and none of the round after next.  One member (a different one each
 * round) is late, so a PE that left early would read the counter short.
 * Run on one node, over tcp and on two hosts of unequal sizes: the node,
 * dissemination and node-aware shapes (docs/shmem.md).  Teams: world
 * (barrier_all, sync_all), the odd PEs (team_sync), an active set of every
 * second PE (shmem_barrier). */
#include <stdio.h>
#include <time.h>

#include "shtest.h"

#define ROUNDS 200

enum how { BARRIER_ALL, SYNC_ALL, TEAM_SYNC };

static void late(int round, int rank, int n)
{
    if (round % n == rank) {
        struct timespec ts = {0, 200000}; /* 0.2 ms */
        nanosleep(&ts, NULL);
    }
}

/* ROUNDS rounds on the team of n members (my rank in it: rank), whose first
 * member is world PE first. */
static void rounds(enum how how, shmem_team_t team, int first, int rank, int n, long *count)
{
    for (int r = 0; r < ROUNDS; r++) {
        late(r, rank, n);
        shmem_long_atomic_add(count, 1, first);
        switch (how) {
        case BARRIER_ALL: shmem_barrier_all(); break;
        case SYNC_ALL: shmem_quiet(); shmem_sync_all(); break;
        case TEAM_SYNC: shmem_quiet(); CHECK(shmem_team_sync(team) == 0); break;
        }
        long v = shmem_long_atomic_fetch(count, first);
        long lo = (long)n * (r + 1), hi = (long)n * (r + 2);
        if (v < lo || v > hi) {
            fprintf(stderr, "PE %d: barrier kind %d, round %d: counter %ld, expected %ld..%ld "
                            "(a PE left the barrier before all arrived)\n", me, how, r, v, lo, hi);
            exit(1);
        }
    }
    /* everyone has read the last round before the next test resets */
    switch (how) {
    case TEAM_SYNC: CHECK(shmem_team_sync(team) == 0); break;
    default: shmem_barrier_all(); break;
    }
}

int main(void)
{
    test_init();
    long *count = shmem_calloc(4, sizeof(long));
    long *psync = shmem_calloc(SHMEM_BARRIER_SYNC_SIZE, sizeof(long));
    CHECK(count && psync);
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();

    rounds(BARRIER_ALL, SHMEM_TEAM_WORLD, 0, me, npes, &count[0]);
    rounds(SYNC_ALL, SHMEM_TEAM_WORLD, 0, me, npes, &count[1]);

    shmem_team_t odd = SHMEM_TEAM_INVALID;
    if (npes > 1)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    if (odd != SHMEM_TEAM_INVALID)
        rounds(TEAM_SYNC, odd, 1, shmem_team_my_pe(odd), shmem_team_n_pes(odd), &count[2]);
    shmem_barrier_all();

    /* active set: PEs 0, 2, 4, ... */
    int n2 = (npes + 1) / 2;
    if (me % 2 == 0)
        for (int r = 0; r < ROUNDS; r++) {
            late(r, me / 2, n2);
            shmem_long_atomic_add(&count[3], 1, 0);
            shmem_barrier(0, 1, n2, psync);
            long v = shmem_long_atomic_fetch(&count[3], 0);
            long lo = (long)n2 * (r + 1), hi = (long)n2 * (r + 2);
            if (v < lo || v > hi) {
                fprintf(stderr, "PE %d: active set, round %d: counter %ld, expected %ld..%ld "
                                "(a PE left the barrier before all arrived)\n", me, r, v, lo, hi);
                exit(1);
            }
        }
    shmem_barrier_all();
    if (odd != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd);
    if (me == 0)
        printf("barrier: %d PEs: every check passed\n", npes);
    shmem_free(psync);
    shmem_free(count);
    shmem_finalize();
    return 0;
}
