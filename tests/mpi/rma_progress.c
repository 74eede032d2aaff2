/* rma_progress — passive target progresses while the target computes.
 *
 * Rank 0 leaves MPI for at least 2 s (a loop of plain loads and short
 * sleeps, no MPI call) while every other rank locks rank 0's windows
 * (exclusive, shared, lock_all), puts, gets, accumulates, fetches-and-adds
 * and compares-and-swaps on them, checks what it fetched, and finally adds 1
 * to a "done" word on rank 0.  Rank 0 watches that word with plain loads: it
 * must reach n-1 while rank 0 is still outside MPI (a hang guard of 60 s
 * turns "never" into a failure instead of a hung job).  The windows: one
 * allocated (node shared memory), one created on malloc memory, one dynamic
 * - so the shared-memory, single-copy and (over tcp) channel paths all have
 * to work without the target. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "rmatest.h"

#define WORDS 64 /* per origin: 8 ints; words 0..7 common */
enum { W_DONE, W_SUM, W_FOP };

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void init_target(struct twin *w, void *arg)
{
    (void)arg;
    int *m = w->base;
    for (int i = 0; i < (int)(w->bytes / sizeof(int)); i++)
        m[i] = 5000 + i;
    m[W_DONE] = m[W_SUM] = m[W_FOP] = 0;
}

/* Origin side: every operation on rank 0 of window w, values checked. */
static void hammer(struct twin *w, int me)
{
    MPI_Aint mine = tdisp(w, 0, (size_t)(8 * me) * sizeof(int));
    int in[4] = {me, me + 1, me + 2, me + 3}, got[4], one = 1, old = -1, cmp, swp;
    /* exclusive: put 4 ints, get them back, CAS on my first word */
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Put(in, 4, MPI_INT, 0, mine, 4, MPI_INT, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get(got, 4, MPI_INT, 0, mine, 4, MPI_INT, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
    for (int i = 0; i < 4; i++)
        CHECK_EQ_INT(got[i], in[i]);
    cmp = me, swp = -me;
    CHECK_EQ_INT(MPI_Compare_and_swap(&swp, &cmp, &old, MPI_INT, 0, mine, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock(0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(old, me);
    /* shared: accumulate into a common word, fetch_and_op another */
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Accumulate(&me, 1, MPI_INT, 0, tdisp(w, 0, W_SUM * sizeof(int)), 1, MPI_INT,
                                MPI_SUM, w->win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Fetch_and_op(&one, &old, MPI_INT, 0, tdisp(w, 0, W_FOP * sizeof(int)), MPI_SUM,
                                  w->win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get(got, 1, MPI_INT, 0, tdisp(w, 0, (size_t)(8 * me + 5) * sizeof(int)), 1,
                         MPI_INT, w->win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock(0, w->win), MPI_SUCCESS);
    CHECK(old >= 0 && old < T_size - 1);
    CHECK_EQ_INT(got[0], 5000 + 8 * me + 5); /* untouched */
    /* lock_all: accumulate onto my words, flush, get_accumulate them */
    CHECK_EQ_INT(MPI_Win_lock_all(0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Accumulate(in, 2, MPI_INT, 0, tdisp(w, 0, (size_t)(8 * me + 6) * sizeof(int)),
                                2, MPI_INT, MPI_SUM, w->win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get_accumulate(NULL, 0, MPI_INT, got, 2, MPI_INT, 0,
                                    tdisp(w, 0, (size_t)(8 * me + 6) * sizeof(int)), 2, MPI_INT,
                                    MPI_NO_OP, w->win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock_all(w->win), MPI_SUCCESS);
    CHECK_EQ_INT(got[0], 5000 + 8 * me + 6 + in[0]);
    CHECK_EQ_INT(got[1], 5000 + 8 * me + 7 + in[1]);
}

static void check_target(struct twin *w)
{
    const int *m = w->base;
    int sum = 0;
    for (int r = 1; r < w->size; r++) {
        const int *s = m + 8 * r;
        CHECK_EQ_INT(s[0], -r);
        CHECK_EQ_INT(s[1], r + 1);
        CHECK_EQ_INT(s[3], r + 3);
        CHECK_EQ_INT(s[6], 5000 + 8 * r + 6 + r);
        sum += r;
    }
    CHECK_EQ_INT(m[W_SUM], sum);
    CHECK_EQ_INT(m[W_FOP], w->size - 1);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    struct twin w[3];
    const int flavours[3] = {FL_ALLOCATE, FL_CREATE, FL_DYNAMIC};
    size_t bytes = (size_t)(8 * (T_size + 1)) * sizeof(int);
    for (int i = 0; i < 3; i++) {
        twin_create(&w[i], flavours[i], bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
        twin_local_write(&w[i], init_target, NULL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (T_rank == 0 && T_size > 1) {
        /* outside MPI: plain loads of the done word, short sleeps */
        volatile int *done = w[0].base;
        double t0 = now();
        int seen = 0;
        while ((seen = __atomic_load_n(done, __ATOMIC_ACQUIRE)) < T_size - 1 || now() - t0 < 2.0) {
            if (now() - t0 > 60.0) {
                fprintf(stderr, "rank 0: only %d of %d origins finished their epochs while rank 0 "
                                "stayed outside MPI for 60 s: passive target does not progress\n",
                        seen, T_size - 1);
                CHECK_EQ_INT(seen, T_size - 1);
            }
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    } else if (T_rank != 0) {
        for (int i = 0; i < 3; i++)
            hammer(&w[i], T_rank);
        int one = 1;
        CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w[0].win), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Accumulate(&one, 1, MPI_INT, 0, tdisp(&w[0], 0, W_DONE * sizeof(int)), 1,
                                    MPI_INT, MPI_SUM, w[0].win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Win_unlock(0, w[0].win), MPI_SUCCESS);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (T_rank == 0)
        for (int i = 0; i < 3; i++) {
            twin_local_begin_read(&w[i]);
            check_target(&w[i]);
            twin_local_end_read(&w[i]);
        }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 3; i++)
        twin_free(&w[i]);
    test_done("rma_progress");
    return 0;
}
