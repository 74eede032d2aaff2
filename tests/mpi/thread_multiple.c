/* thread_multiple.c — MPI_THREAD_MULTIPLE: several threads per rank calling
 * MPI at once (docs/threads.md).  Usage: thread_multiple [THREADS] (default 4).
 *
 * Phases, each run by THREADS threads per rank, a barrier between them:
 *   levels    Init_thread gives MULTIPLE; Query_thread; Is_thread_main only
 *             on the thread that initialised
 *   pairs     blocking send/recv between rank pairs, every thread on its own
 *             communicator and on WORLD with its own tag, short to rendezvous
 *             sizes, every byte checked
 *   self      thread 2k receives from its own rank while thread 2k+1 sends
 *   race      every rank sends to every rank; all threads receive them with
 *             Mprobe/Mrecv, Improbe/Imrecv and Recv(ANY_SOURCE): each message
 *             received exactly once
 *   colls     collectives (blocking and nonblocking) on a communicator per thread
 *   handoff   a request started by one thread, waited for by another
 *   create    dup and split of per-thread parents from all threads at once
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpitest.h"

static int nthreads = 4;
static MPI_Comm *tcomm; /* [nthreads]: a communicator per thread */
static pthread_t main_tid;

static unsigned char pat(int src, int t, int iter, size_t i)
{
    return (unsigned char)(src * 131 + t * 31 + iter * 7 + (int)(i % 251) + (int)(i / 251));
}

static void fill_pat(unsigned char *b, size_t n, int src, int t, int iter)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pat(src, t, iter, i);
}

static void check_bytes(const unsigned char *b, size_t n, int src, int t, int iter)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pat(src, t, iter, i)) {
            fprintf(stderr, "rank %d thread %d: byte %zu of %zu from rank %d (iter %d) is %u, "
                            "expected %u\n", T_rank, t, i, n, src, iter, b[i], pat(src, t, iter, i));
            exit(1);
        }
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t *th = malloc((size_t)nthreads * sizeof *th);
    CHECK(th != NULL);
    for (intptr_t t = 0; t < nthreads; t++)
        CHECK(pthread_create(&th[t], NULL, fn, (void *)t) == 0);
    for (int t = 0; t < nthreads; t++)
        CHECK(pthread_join(th[t], NULL) == 0);
    free(th);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- levels ---- */
static void *levels(void *arg)
{
    (void)arg;
    int flag = -1, level = -1;
    CHECK(MPI_Is_thread_main(&flag) == MPI_SUCCESS);
    CHECK_EQ_INT(flag, 0);
    CHECK(MPI_Query_thread(&level) == MPI_SUCCESS);
    CHECK_EQ_INT(level, MPI_THREAD_MULTIPLE);
    return NULL;
}

/* ---- pairs ---- */
static const size_t sizes[] = {0, 8, 40, 1000, 9000, 70000, 300000};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void exchange(MPI_Comm c, int tag, int t, int iter, size_t n, unsigned char *out,
                     unsigned char *in)
{
    int partner = (T_rank ^ 1) < T_size ? T_rank ^ 1 : T_rank;
    MPI_Status st;
    fill_pat(out, n, T_rank, t, iter);
    memset(in, 0xee, n);
    if (partner == T_rank) {
        CHECK(MPI_Sendrecv(out, (int)n, MPI_BYTE, partner, tag, in, (int)n, MPI_BYTE, partner, tag,
                           c, &st) == MPI_SUCCESS);
    } else if (T_rank % 2 == 0) {
        CHECK(MPI_Send(out, (int)n, MPI_BYTE, partner, tag, c) == MPI_SUCCESS);
        CHECK(MPI_Recv(in, (int)n, MPI_BYTE, partner, tag, c, &st) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Recv(in, (int)n, MPI_BYTE, partner, tag, c, &st) == MPI_SUCCESS);
        CHECK(MPI_Send(out, (int)n, MPI_BYTE, partner, tag, c) == MPI_SUCCESS);
    }
    int cnt = -1;
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_EQ_INT(cnt, n);
    CHECK_EQ_INT(st.MPI_SOURCE, partner);
    CHECK_EQ_INT(st.MPI_TAG, tag);
    check_bytes(in, n, partner, t, iter);
}

static void *pairs(void *arg)
{
    int t = (int)(intptr_t)arg;
    size_t max = sizes[NSIZES - 1];
    unsigned char *out = malloc(max), *in = malloc(max);
    CHECK(out && in);
    for (int iter = 0; iter < 3; iter++)
        for (size_t k = 0; k < NSIZES; k++) {
            exchange(tcomm[t], 5, t, iter, sizes[k], out, in);
            exchange(MPI_COMM_WORLD, 100 + t, t, iter + 10, sizes[k], out, in);
        }
    free(out);
    free(in);
    return NULL;
}

/* ---- self ---- */
static void *self(void *arg)
{
    int t = (int)(intptr_t)arg;
    if ((t | 1) >= nthreads) /* odd one out */
        return NULL;
    size_t max = sizes[NSIZES - 1];
    unsigned char *b = malloc(max);
    CHECK(b != NULL);
    int tag = 200 + t / 2;
    for (int iter = 0; iter < 3; iter++)
        for (size_t k = 0; k < NSIZES; k++) {
            if (t % 2) {
                fill_pat(b, sizes[k], T_rank, t, iter);
                CHECK(MPI_Send(b, (int)sizes[k], MPI_BYTE, T_rank, tag, MPI_COMM_WORLD) ==
                      MPI_SUCCESS);
            } else {
                MPI_Status st;
                memset(b, 0, sizes[k]);
                CHECK(MPI_Recv(b, (int)max, MPI_BYTE, T_rank, tag, MPI_COMM_WORLD, &st) ==
                      MPI_SUCCESS);
                int cnt = -1;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK_EQ_INT(cnt, sizes[k]);
                check_bytes(b, sizes[k], T_rank, t + 1, iter);
            }
        }
    free(b);
    return NULL;
}

/* ---- race ---- */
#define RACE_PER_PEER 24 /* messages from each rank to each rank */
static MPI_Comm race_comm;
static atomic_int tickets;
static atomic_uchar *seen; /* [size * RACE_PER_PEER] */

static size_t race_len(int seq) { return seq % 6 == 5 ? 20000 : (size_t)(8 + seq * 13); }

static void race_got(const unsigned char *b, int cnt, const MPI_Status *st)
{
    CHECK(cnt >= 8);
    int src = b[0] | b[1] << 8, seq = b[2] | b[3] << 8;
    CHECK_EQ_INT(src, st->MPI_SOURCE);
    CHECK(seq >= 0 && seq < RACE_PER_PEER);
    CHECK_EQ_INT(cnt, race_len(seq));
    check_bytes(b + 8, (size_t)cnt - 8, src, 0, seq);
    unsigned char was = atomic_exchange(&seen[src * RACE_PER_PEER + seq], 1);
    if (was) {
        fprintf(stderr, "rank %d: message %d from rank %d received twice\n", T_rank, seq, src);
        exit(1);
    }
}

static void *race(void *arg)
{
    int t = (int)(intptr_t)arg;
    /* my share of the sends: seq % nthreads == t, to every rank */
    int nsend = 0;
    MPI_Request *rq = malloc((size_t)T_size * RACE_PER_PEER * sizeof *rq);
    unsigned char **bufs = malloc((size_t)T_size * RACE_PER_PEER * sizeof *bufs);
    CHECK(rq && bufs);
    for (int d = 0; d < T_size; d++)
        for (int seq = t; seq < RACE_PER_PEER; seq += nthreads) {
            size_t n = race_len(seq);
            unsigned char *b = malloc(n);
            CHECK(b != NULL);
            b[0] = (unsigned char)T_rank;
            b[1] = (unsigned char)(T_rank >> 8);
            b[2] = (unsigned char)seq;
            b[3] = (unsigned char)(seq >> 8);
            b[4] = b[5] = b[6] = b[7] = 0;
            fill_pat(b + 8, n - 8, T_rank, 0, seq);
            bufs[nsend] = b;
            CHECK(MPI_Isend(b, (int)n, MPI_BYTE, d, 9, race_comm, &rq[nsend++]) == MPI_SUCCESS);
        }
    int expect = T_size * RACE_PER_PEER;
    unsigned char *b = malloc(20000);
    CHECK(b != NULL);
    for (int k = 0; atomic_fetch_add(&tickets, 1) < expect; k++) {
        MPI_Status st;
        int cnt = -1;
        switch ((t + k) % 3) {
        case 0: { /* matched probe, blocking */
            MPI_Message m;
            CHECK(MPI_Mprobe(MPI_ANY_SOURCE, 9, race_comm, &m, &st) == MPI_SUCCESS);
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK(MPI_Mrecv(b, 20000, MPI_BYTE, &m, &st) == MPI_SUCCESS);
            CHECK(m == MPI_MESSAGE_NULL);
            break;
        }
        case 1: { /* matched probe, polling, nonblocking receive */
            MPI_Message m;
            int flag = 0;
            for (;;) {
                CHECK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, race_comm, &flag, &m, &st) ==
                      MPI_SUCCESS);
                if (flag)
                    break;
                sched_yield();
            }
            MPI_Request r;
            CHECK(MPI_Imrecv(b, 20000, MPI_BYTE, &m, &r) == MPI_SUCCESS);
            CHECK(MPI_Wait(&r, &st) == MPI_SUCCESS);
            break;
        }
        default:
            CHECK(MPI_Recv(b, 20000, MPI_BYTE, MPI_ANY_SOURCE, 9, race_comm, &st) == MPI_SUCCESS);
        }
        int got = -1;
        MPI_Get_count(&st, MPI_BYTE, &got);
        if (cnt >= 0)
            CHECK_EQ_INT(cnt, got);
        race_got(b, got, &st);
    }
    CHECK(MPI_Waitall(nsend, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < nsend; i++)
        free(bufs[i]);
    free(bufs);
    free(rq);
    free(b);
    return NULL;
}

/* ---- colls ---- */
static void *colls(void *arg)
{
    int t = (int)(intptr_t)arg;
    MPI_Comm c = tcomm[t];
    int n = T_size;
    int *all = malloc((size_t)n * 2 * sizeof *all);
    CHECK(all != NULL);
    for (int iter = 0; iter < 10; iter++) {
        int v = T_rank * 10 + t + iter, sum = 0, want = 0;
        for (int r = 0; r < n; r++)
            want += r * 10 + t + iter;
        CHECK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS);
        CHECK_EQ_INT(sum, want);
        int root = (t + iter) % n, b = T_rank == root ? 1000 * t + iter : -1;
        CHECK(MPI_Bcast(&b, 1, MPI_INT, root, c) == MPI_SUCCESS);
        CHECK_EQ_INT(b, 1000 * t + iter);
        int mine[2] = {T_rank, t * 100 + iter};
        CHECK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, c) == MPI_SUCCESS);
        for (int r = 0; r < n; r++) {
            CHECK_EQ_INT(all[2 * r], r);
            CHECK_EQ_INT(all[2 * r + 1], t * 100 + iter);
        }
        MPI_Request rq;
        long lv = T_rank + 1, lmax = 0;
        CHECK(MPI_Iallreduce(&lv, &lmax, 1, MPI_LONG, MPI_MAX, c, &rq) == MPI_SUCCESS);
        CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK_EQ_INT(lmax, n);
        CHECK(MPI_Barrier(c) == MPI_SUCCESS);
    }
    free(all);
    return NULL;
}

/* ---- handoff: thread 2k starts, thread 2k+1 waits ---- */
static MPI_Request *handed;
static pthread_mutex_t hand_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hand_cv = PTHREAD_COND_INITIALIZER;

static void *handoff(void *arg)
{
    int t = (int)(intptr_t)arg, pair = t / 2;
    if ((t | 1) >= nthreads)
        return NULL;
    int to = (T_rank + 1) % T_size, from = (T_rank - 1 + T_size) % T_size;
    enum { N = 70000 };
    static unsigned char bufs[16][2][N];
    CHECK(pair < 16);
    unsigned char *out = bufs[pair][0], *in = bufs[pair][1];
    for (int iter = 0; iter < 4; iter++) {
        if (t % 2 == 0) {
            size_t n = iter % 2 ? N : 24;
            memset(in, 0, n);
            fill_pat(out, n, T_rank, t, iter);
            MPI_Request r[2];
            CHECK(MPI_Irecv(in, (int)n, MPI_BYTE, from, 300 + pair, MPI_COMM_WORLD, &r[0]) ==
                  MPI_SUCCESS);
            CHECK(MPI_Isend(out, (int)n, MPI_BYTE, to, 300 + pair, MPI_COMM_WORLD, &r[1]) ==
                  MPI_SUCCESS);
            pthread_mutex_lock(&hand_mu);
            handed[2 * pair] = r[0];
            handed[2 * pair + 1] = r[1];
            pthread_cond_broadcast(&hand_cv);
            while (handed[2 * pair] != MPI_REQUEST_NULL) /* the other thread waits for them */
                pthread_cond_wait(&hand_cv, &hand_mu);
            pthread_mutex_unlock(&hand_mu);
            check_bytes(in, n, from, t, iter);
        } else {
            pthread_mutex_lock(&hand_mu);
            while (handed[2 * pair] == MPI_REQUEST_NULL)
                pthread_cond_wait(&hand_cv, &hand_mu);
            MPI_Request r[2] = {handed[2 * pair], handed[2 * pair + 1]};
            pthread_mutex_unlock(&hand_mu);
            MPI_Status st;
            CHECK(MPI_Wait(&r[0], &st) == MPI_SUCCESS);
            CHECK(r[0] == MPI_REQUEST_NULL);
            CHECK_EQ_INT(st.MPI_SOURCE, from);
            CHECK(MPI_Wait(&r[1], MPI_STATUS_IGNORE) == MPI_SUCCESS);
            pthread_mutex_lock(&hand_mu);
            handed[2 * pair] = handed[2 * pair + 1] = MPI_REQUEST_NULL;
            pthread_cond_broadcast(&hand_cv);
            pthread_mutex_unlock(&hand_mu);
        }
    }
    return NULL;
}

/* ---- create ---- */
static void *create(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int iter = 0; iter < 3; iter++) {
        MPI_Comm d, s;
        CHECK(MPI_Comm_dup(tcomm[t], &d) == MPI_SUCCESS);
        int color = (T_rank + t + iter) % 2;
        CHECK(MPI_Comm_split(d, color, -T_rank, &s) == MPI_SUCCESS);
        int want = 0, size = -1, rank = -1, sum = -1;
        for (int r = 0; r < T_size; r++)
            want += (r + t + iter) % 2 == color;
        MPI_Comm_size(s, &size);
        MPI_Comm_rank(s, &rank);
        CHECK_EQ_INT(size, want);
        int one = 1;
        CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, s) == MPI_SUCCESS);
        CHECK_EQ_INT(sum, want);
        /* a message on the new communicator, from the highest world rank of the color */
        int v = T_rank, got = -1;
        CHECK(MPI_Bcast(rank == 0 ? &v : &got, 1, MPI_INT, 0, s) == MPI_SUCCESS);
        if (rank != 0)
            CHECK(got > T_rank);
        CHECK(MPI_Comm_free(&s) == MPI_SUCCESS);
        CHECK(MPI_Comm_free(&d) == MPI_SUCCESS);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1;
    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);
    CHECK_EQ_INT(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &T_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &T_size);
    testutil_rank = T_rank;
    if (argc > 1)
        nthreads = atoi(argv[1]);
    CHECK(nthreads >= 1 && nthreads <= 32);
    main_tid = pthread_self();
    int flag = 0;
    CHECK(MPI_Is_thread_main(&flag) == MPI_SUCCESS);
    CHECK_EQ_INT(flag, 1);

    tcomm = malloc((size_t)nthreads * sizeof *tcomm);
    handed = malloc((size_t)nthreads * sizeof *handed);
    seen = calloc((size_t)T_size * RACE_PER_PEER, 1);
    CHECK(tcomm && handed && seen);
    for (int t = 0; t < nthreads; t++) {
        CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &tcomm[t]) == MPI_SUCCESS);
        handed[t] = MPI_REQUEST_NULL;
    }
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &race_comm) == MPI_SUCCESS);

    run_threads(levels);
    run_threads(pairs);
    run_threads(self);
    run_threads(race);
    for (int i = 0; i < T_size * RACE_PER_PEER; i++)
        CHECK(seen[i] == 1);
    run_threads(colls);
    run_threads(handoff);
    run_threads(create);

    for (int t = 0; t < nthreads; t++)
        MPI_Comm_free(&tcomm[t]);
    MPI_Comm_free(&race_comm);
    free(tcomm);
    free(handed);
    free(seen);
    if (T_rank == 0)
        printf("thread_multiple: %d ranks x %d threads: all phases passed\n", T_size, nthreads);
    MPI_Finalize();
    return 0;
}
