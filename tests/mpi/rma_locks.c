/* rma_locks — passive-target locks under contention from every rank.
 *
 *  - mutual exclusion: every rank K times takes MPI_LOCK_EXCLUSIVE on rank 0
 *    and does a non-atomic read-modify-write of a counter (Get, flush, +1,
 *    Put) plus a "holder" word it must find free (-1) and leave free; the
 *    counter must end at n*K exactly;
 *  - no starvation: each rank's own tally (incremented inside its critical
 *    sections) must be K: every rank got the lock K times;
 *  - readers and writers: writers put a pair (a, b) in two steps under an
 *    exclusive lock; readers under shared locks and under lock_all must
 *    never see a != b;
 *  - shared locks coexist: every rank holds a shared lock on rank 0 while
 *    all meet in a barrier (a shared lock that excluded would hang here);
 *  - every window flavour. */
#include <sched.h>

#include "rmatest.h"

#define K_LOCK 60
#define K_RW 40

/* Window words: 0 counter, 1 holder, 2 a, 3 b, 4.. tallies per rank. */
static void init_words(struct twin *w, void *arg)
{
    (void)arg;
    int *m = w->base;
    memset(m, 0, w->bytes);
    m[1] = -1;
}

static MPI_Aint word(struct twin *w, int t, int i) { return tdisp(w, t, (size_t)i * sizeof(int)); }

static void mutual_exclusion(struct twin *w)
{
    int minus = -1, me = w->rank, old;
    for (int k = 0; k < K_LOCK; k++) {
        CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win), MPI_SUCCESS);
        /* nobody else may be inside: the holder word is free */
        CHECK_EQ_INT(MPI_Compare_and_swap(&me, &minus, &old, MPI_INT, 0, word(w, 0, 1), w->win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
        if (old != -1)
            fprintf(stderr, "rank %d: %s: exclusive lock on rank 0 while rank %d holds it (round %d)\n",
                    T_rank, flavour_name[w->flavour], old, k);
        CHECK_EQ_INT(old, -1);
        int v[2] = {-1, -1};
        CHECK_EQ_INT(MPI_Get(&v[0], 1, MPI_INT, 0, word(w, 0, 0), 1, MPI_INT, w->win), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Get(&v[1], 1, MPI_INT, 0, word(w, 0, 4 + me), 1, MPI_INT, w->win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
        if (k % 4 == 0)
            sched_yield(); /* widen the window for a second holder, if any */
        v[0]++, v[1]++;
        CHECK_EQ_INT(MPI_Put(&v[0], 1, MPI_INT, 0, word(w, 0, 0), 1, MPI_INT, w->win), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Put(&v[1], 1, MPI_INT, 0, word(w, 0, 4 + me), 1, MPI_INT, w->win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Compare_and_swap(&minus, &me, &old, MPI_INT, 0, word(w, 0, 1), w->win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Win_unlock(0, w->win), MPI_SUCCESS);
        CHECK_EQ_INT(old, me);
    }
    MPI_Barrier(w->comm);
    if (w->rank == 0) {
        twin_local_begin_read(w);
        const int *m = w->base;
        CHECK_EQ_INT(m[0], K_LOCK * w->size);
        CHECK_EQ_INT(m[1], -1);
        for (int r = 0; r < w->size; r++)
            if (m[4 + r] != K_LOCK) {
                fprintf(stderr, "%s: rank %d got the lock %d times, want %d\n",
                        flavour_name[w->flavour], r, m[4 + r], K_LOCK);
                CHECK_EQ_INT(m[4 + r], K_LOCK);
            }
        twin_local_end_read(w);
    }
    MPI_Barrier(w->comm);
}

/* Even ranks write (a, b) = (v, v) in two flushed steps under an exclusive
 * lock; odd ranks (and rank 0 when alone) read under a shared lock or
 * lock_all and must see a == b. */
static void readers_writers(struct twin *w)
{
    int writer = w->rank % 2 == 0 && w->size > 1;
    for (int k = 0; k < K_RW; k++) {
        if (writer) {
            int v = 1000 * w->rank + k + 1;
            CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Put(&v, 1, MPI_INT, 0, word(w, 0, 2), 1, MPI_INT, w->win), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
            sched_yield();
            CHECK_EQ_INT(MPI_Put(&v, 1, MPI_INT, 0, word(w, 0, 3), 1, MPI_INT, w->win), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_unlock(0, w->win), MPI_SUCCESS);
        } else {
            int ab[2] = {-1, -2};
            if (k % 2)
                CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win), MPI_SUCCESS);
            else
                CHECK_EQ_INT(MPI_Win_lock_all(0, w->win), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Get(ab, 2, MPI_INT, 0, word(w, 0, 2), 2, MPI_INT, w->win), MPI_SUCCESS);
            if (k % 2)
                CHECK_EQ_INT(MPI_Win_unlock(0, w->win), MPI_SUCCESS);
            else
                CHECK_EQ_INT(MPI_Win_unlock_all(w->win), MPI_SUCCESS);
            if (ab[0] != ab[1])
                fprintf(stderr, "rank %d: %s: read a torn pair (%d, %d) under a %s\n", T_rank,
                        flavour_name[w->flavour], ab[0], ab[1], k % 2 ? "shared lock" : "lock_all");
            CHECK_EQ_INT(ab[0], ab[1]);
        }
    }
    MPI_Barrier(w->comm);
}

/* Every rank holds a shared lock on rank 0 (and then lock_all) through a
 * barrier: shared locks never exclude each other. */
static void shared_together(struct twin *w)
{
    int v = -1;
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get(&v, 1, MPI_INT, 0, word(w, 0, 0), 1, MPI_INT, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS); /* the lock is surely taken now */
    MPI_Barrier(w->comm);
    CHECK_EQ_INT(MPI_Win_unlock(0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(v, K_LOCK * w->size);
    CHECK_EQ_INT(MPI_Win_lock_all(0, w->win), MPI_SUCCESS);
    for (int t = 0; t < w->size; t++)
        CHECK_EQ_INT(MPI_Get(&v, 1, MPI_INT, t, word(w, t, 1), 1, MPI_INT, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush_all(w->win), MPI_SUCCESS);
    MPI_Barrier(w->comm);
    CHECK_EQ_INT(MPI_Win_unlock_all(w->win), MPI_SUCCESS);
    MPI_Barrier(w->comm);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    for (int f = 0; f < FL_COUNT; f++) {
        struct twin w;
        twin_create(&w, f, (size_t)(4 + T_size) * sizeof(int), (int)sizeof(int), MPI_INFO_NULL,
                    MPI_COMM_WORLD);
        twin_local_write(&w, init_words, NULL);
        mutual_exclusion(&w);
        shared_together(&w);
        readers_writers(&w);
        twin_free(&w);
    }
    test_done("rma_locks");
    return 0;
}
