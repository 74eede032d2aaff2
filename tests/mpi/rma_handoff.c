/* rma_handoff — one-sided requests to a target that keeps entering and
 * leaving MPI.
 *
 * Across nodes a request is answered either by the target's service thread
 * (target outside MPI) or by the target's own thread while it polls or
 * sleeps inside MPI (docs/rma.md, "Progress"); the two hand the reading of
 * each connection to each other.  Here every other rank fires ITERS
 * MPI_Fetch_and_op(SUM, +1) at one counter of rank 0 and, every 4th op,
 * a MPI_Compare_and_swap on a word of its own and a MPI_Get of it, while
 * rank 0 alternates three phases until every origin is done:
 *   - computing outside MPI (plain loads for ~1 ms, then ~1 ms asleep),
 *   - polling inside MPI (MPI_Iprobe for ~1 ms),
 *   - blocked inside MPI (MPI_Recv of a ping the last rank sends every
 *     PING_EVERY ops; PINGS of them).
 * Checked: every fetched counter value unique per origin and rising, the
 * counter exactly (n-1)*ITERS at the end, each CAS saw the value it set
 * last, each get the value of the last CAS; in an allocated window and one
 * on malloc memory. */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "rmatest.h"

#define ITERS 600
#define PING_EVERY 100
#define PINGS (ITERS / PING_EVERY)
#define TAG_PING 7
enum { W_COUNT, W_DONE, W_OWN }; /* int64 words; W_OWN + r: origin r's CAS word */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void origin(struct twin *w, int me, int n)
{
    int64_t one = 1, old = -1, prev = -1, mine = 0;
    MPI_Aint own = tdisp(w, 0, (size_t)(W_OWN + me) * sizeof(int64_t));
    CHECK_EQ_INT(MPI_Win_lock_all(0, w->win), MPI_SUCCESS);
    for (int i = 0; i < ITERS; i++) {
        CHECK_EQ_INT(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, tdisp(w, 0, 0), MPI_SUM,
                                      w->win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
        CHECK(old > prev && old < (int64_t)(n - 1) * ITERS); /* unique, rising, in range */
        prev = old;
        if (i % 4 == 3) {
            int64_t next = mine + 1, seen = -1, got = -1;
            CHECK_EQ_INT(MPI_Compare_and_swap(&next, &mine, &seen, MPI_INT64_T, 0, own, w->win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
            CHECK(seen == mine);
            mine = next;
            CHECK_EQ_INT(MPI_Get(&got, 1, MPI_INT64_T, 0, own, 1, MPI_INT64_T, w->win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(0, w->win), MPI_SUCCESS);
            CHECK(got == mine);
        }
        if (me == n - 1 && i % PING_EVERY == PING_EVERY - 1) {
            int ping = i;
            CHECK_EQ_INT(MPI_Send(&ping, 1, MPI_INT, 0, TAG_PING, MPI_COMM_WORLD), MPI_SUCCESS);
        }
    }
    CHECK_EQ_INT(MPI_Accumulate(&one, 1, MPI_INT64_T, 0, tdisp(w, 0, W_DONE * sizeof(int64_t)), 1,
                                MPI_INT64_T, MPI_SUM, w->win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock_all(w->win), MPI_SUCCESS);
}

/* Rank 0: outside, polling inside, blocked inside, ... until every origin is done. */
static void target(struct twin *w, int n)
{
    volatile int64_t *m = w->base;
    int pings = 0, phase = 0;
    double t0 = now();
    while (__atomic_load_n(&m[W_DONE], __ATOMIC_ACQUIRE) < n - 1 || pings < PINGS) {
        if (now() - t0 > 120.0) {
            fprintf(stderr, "rank 0: after 120 s %d of %d origins are done, %d of %d pings\n",
                    (int)m[W_DONE], n - 1, pings, PINGS);
            CHECK(0);
        }
        double until = now() + 0.001;
        switch (phase++ % 3) {
        case 0: { /* computing outside MPI */
            int64_t sum = 0;
            while (now() < until)
                sum += m[W_COUNT];
            (void)sum;
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
            break;
        }
        case 1: /* polling inside MPI */
            while (now() < until) {
                int flag;
                CHECK_EQ_INT(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag,
                                        MPI_STATUS_IGNORE),
                             MPI_SUCCESS);
            }
            break;
        default: /* blocked inside MPI until the next ping */
            if (pings < PINGS) {
                int ping;
                CHECK_EQ_INT(MPI_Recv(&ping, 1, MPI_INT, n - 1, TAG_PING, MPI_COMM_WORLD,
                                      MPI_STATUS_IGNORE),
                             MPI_SUCCESS);
                CHECK_EQ_INT(ping, pings * PING_EVERY + PING_EVERY - 1);
                pings++;
            }
        }
    }
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    const int flavours[2] = {FL_ALLOCATE, FL_CREATE};
    size_t bytes = (size_t)(W_OWN + T_size) * sizeof(int64_t);
    for (int f = 0; f < 2; f++) {
        struct twin w;
        twin_create(&w, flavours[f], bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        if (T_size > 1) {
            if (T_rank == 0)
                target(&w, T_size);
            else
                origin(&w, T_rank, T_size);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (T_rank == 0) {
            twin_local_begin_read(&w);
            const int64_t *m = w.base;
            CHECK(m[W_COUNT] == (int64_t)(T_size - 1) * ITERS);
            CHECK(m[W_DONE] == T_size - 1);
            for (int r = 1; r < T_size; r++)
                CHECK(m[W_OWN + r] == ITERS / 4);
            twin_local_end_read(&w);
        }
        twin_free(&w);
    }
    test_done("rma_handoff");
    return 0;
}
