/* p2p_requests — request handling: thousands outstanding, Waitany/Waitsome/
 * Testany/Testsome/Testall, persistent requests, cancel, Request_free,
 * Request_get_status, MPI_PROC_NULL and MPI_COMM_SELF. */
#include <stdio.h>

#include "mpitest.h"

#define MANY 4000

static void many_outstanding(int peer)
{
    int *in = malloc(MANY * sizeof(int)), *out = malloc(MANY * sizeof(int));
    MPI_Request *r = malloc(2 * MANY * sizeof *r);
    for (int i = 0; i < MANY; i++) {
        in[i] = -1;
        MPI_Irecv(&in[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[i]);
    }
    for (int i = MANY - 1; i >= 0; i--) { /* tags in reverse: matching searches */
        out[i] = i * 3 + T_rank;
        MPI_Isend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[MANY + i]);
    }
    MPI_Status *st = malloc(2 * MANY * sizeof *st);
    CHECK_EQ_INT(MPI_Waitall(2 * MANY, r, st), MPI_SUCCESS);
    for (int i = 0; i < MANY; i++) {
        CHECK_EQ_INT(in[i], i * 3 + peer);
        CHECK_EQ_INT(st[i].MPI_TAG, i);
        CHECK_EQ_INT(st[i].MPI_SOURCE, peer);
    }
    free(in);
    free(out);
    free(r);
    free(st);
}

static void any_and_some(int peer)
{
    enum { N = 500 };
    int in[N], out[N], seen[N] = {0};
    MPI_Request r[N], s[N];
    for (int i = 0; i < N; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[i]);
    for (int i = 0; i < N; i++) {
        out[i] = i + 1000 * peer;
        MPI_Isend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &s[i]);
    }
    /* Waitany until all are done, then one more: MPI_UNDEFINED. */
    for (int k = 0; k < N; k++) {
        int idx;
        MPI_Status st;
        MPI_Waitany(N, r, &idx, &st);
        CHECK(idx >= 0 && idx < N && !seen[idx]);
        CHECK(r[idx] == MPI_REQUEST_NULL);
        CHECK_EQ_INT(st.MPI_TAG, idx);
        CHECK_EQ_INT(in[idx], idx + 1000 * T_rank);
        seen[idx] = 1;
    }
    int idx, flag;
    MPI_Waitany(N, r, &idx, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(idx, MPI_UNDEFINED);
    MPI_Testany(N, r, &idx, &flag, MPI_STATUS_IGNORE);
    CHECK(flag && idx == MPI_UNDEFINED);
    /* Waitsome over the sends. */
    int done = 0, outcount, indices[N];
    MPI_Status sts[N];
    while (done < N) {
        MPI_Waitsome(N, s, &outcount, indices, sts);
        CHECK(outcount >= 1);
        done += outcount;
    }
    CHECK_EQ_INT(done, N);
    MPI_Waitsome(N, s, &outcount, indices, sts);
    CHECK_EQ_INT(outcount, MPI_UNDEFINED);
    test_barrier();

    /* Testsome / Testany / Testall polling loops. */
    for (int i = 0; i < N; i++) {
        seen[i] = 0;
        MPI_Irecv(&in[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[i]);
    }
    for (int i = 0; i < N; i++)
        MPI_Isend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &s[i]);
    done = 0;
    while (done < N / 2) {
        MPI_Testsome(N, r, &outcount, indices, sts);
        for (int k = 0; k < outcount && done < N; k++, done++) {
            CHECK(!seen[indices[k]]);
            seen[indices[k]] = 1;
            CHECK_EQ_INT(sts[k].MPI_TAG, indices[k]);
        }
    }
    while (done < N) {
        MPI_Testany(N, r, &idx, &flag, MPI_STATUS_IGNORE);
        if (flag) {
            CHECK(idx != MPI_UNDEFINED && !seen[idx]);
            seen[idx] = 1;
            done++;
        }
    }
    flag = 0;
    while (!flag)
        MPI_Testall(N, s, &flag, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i++)
        CHECK(s[i] == MPI_REQUEST_NULL && r[i] == MPI_REQUEST_NULL);
}

static void persistent(int peer)
{
    enum { ROUNDS = 100, LEN = 20000 };
    int *sb = malloc(LEN * sizeof(int)), *rb = malloc(LEN * sizeof(int));
    MPI_Request p[2];
    MPI_Recv_init(rb, LEN, MPI_INT, peer, 3, MPI_COMM_WORLD, &p[0]);
    MPI_Send_init(sb, LEN, MPI_INT, peer, 3, MPI_COMM_WORLD, &p[1]);
    /* An inactive persistent request completes at once with an empty status. */
    MPI_Status st;
    MPI_Wait(&p[0], &st);
    CHECK(p[0] != MPI_REQUEST_NULL);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_ANY_SOURCE);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < LEN; i++)
            sb[i] = round * 7 + i + T_rank;
        MPI_Startall(2, p);
        MPI_Waitall(2, p, MPI_STATUSES_IGNORE);
        CHECK(p[0] != MPI_REQUEST_NULL && p[1] != MPI_REQUEST_NULL);
        for (int i = 0; i < LEN; i += 997)
            CHECK_EQ_INT(rb[i], round * 7 + i + peer);
    }
    /* Ssend_init / Rsend_init / Bsend_init, one round each. */
    MPI_Request q[4];
    int bsz = LEN * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
    void *bb = malloc((size_t)bsz);
    MPI_Buffer_attach(bb, bsz);
    MPI_Ssend_init(sb, 10, MPI_INT, peer, 4, MPI_COMM_WORLD, &q[0]);
    MPI_Rsend_init(sb, 10, MPI_INT, peer, 5, MPI_COMM_WORLD, &q[1]);
    MPI_Bsend_init(sb, LEN, MPI_INT, peer, 6, MPI_COMM_WORLD, &q[2]);
    int r4[10], r5[10];
    MPI_Request rr[3];
    MPI_Irecv(r4, 10, MPI_INT, peer, 4, MPI_COMM_WORLD, &rr[0]);
    MPI_Irecv(r5, 10, MPI_INT, peer, 5, MPI_COMM_WORLD, &rr[1]);
    MPI_Irecv(rb, LEN, MPI_INT, peer, 6, MPI_COMM_WORLD, &rr[2]);
    test_barrier();
    MPI_Startall(3, q);
    MPI_Waitall(3, q, MPI_STATUSES_IGNORE);
    MPI_Waitall(3, rr, MPI_STATUSES_IGNORE);
    CHECK_EQ_INT(r4[9], sb[9] - T_rank + peer);
    CHECK_EQ_INT(r5[0], sb[0] - T_rank + peer);
    CHECK_EQ_INT(rb[LEN - 1], sb[LEN - 1] - T_rank + peer);
    void *det;
    int dsz;
    MPI_Buffer_detach(&det, &dsz);
    free(bb);
    for (int i = 0; i < 3; i++) {
        MPI_Request_free(&q[i]);
        CHECK(q[i] == MPI_REQUEST_NULL);
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    free(sb);
    free(rb);
}

static void cancel_and_free(int peer)
{
    /* A receive that nothing matches is cancelled. */
    int x = 0;
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, peer, 999, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    int flag;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag);
    /* A matched receive is not cancelled. */
    int v = 42 + T_rank;
    MPI_Irecv(&x, 1, MPI_INT, peer, 998, MPI_COMM_WORLD, &r);
    MPI_Send(&v, 1, MPI_INT, peer, 998, MPI_COMM_WORLD);
    int ready = 0;
    while (!ready)
        MPI_Request_get_status(r, &ready, &st); /* does not free the request */
    CHECK(r != MPI_REQUEST_NULL);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag);
    CHECK_EQ_INT(x, 42 + peer);
    /* Sends are never cancelled: the message still arrives. */
    MPI_Isend(&v, 1, MPI_INT, peer, 997, MPI_COMM_WORLD, &r);
    MPI_Cancel(&r);
    MPI_Wait(&r, &st);
    MPI_Test_cancelled(&st, &flag);
    CHECK(!flag);
    MPI_Recv(&x, 1, MPI_INT, peer, 997, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(x, 42 + peer);
    /* Request_free on a send in flight (rendezvous size): the data still arrives. */
    enum { BIG = 300000 };
    char *big = malloc(BIG), *in = malloc(BIG);
    fill((unsigned char *)big, BIG, (unsigned)T_rank);
    MPI_Isend(big, BIG, MPI_BYTE, peer, 996, MPI_COMM_WORLD, &r);
    MPI_Request_free(&r);
    CHECK(r == MPI_REQUEST_NULL);
    MPI_Recv(in, BIG, MPI_BYTE, peer, 996, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(verify((unsigned char *)in, BIG, (unsigned)peer) < 0);
    test_barrier(); /* the peer has pulled my buffer before I free it */
    free(big);
    free(in);
}

static void proc_null_and_self(void)
{
    MPI_Status st;
    int x = 5;
    CHECK_EQ_INT(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ_INT(st.MPI_TAG, MPI_ANY_TAG);
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_EQ_INT(cnt, 0);
    CHECK_EQ_INT(x, 5);
    MPI_Request r[2];
    MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Status sts[2];
    MPI_Waitall(2, r, sts);
    CHECK_EQ_INT(sts[1].MPI_SOURCE, MPI_PROC_NULL);
    MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, &x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    /* MPI_COMM_SELF: a world of one. */
    int rank, size;
    MPI_Comm_rank(MPI_COMM_SELF, &rank);
    MPI_Comm_size(MPI_COMM_SELF, &size);
    CHECK(rank == 0 && size == 1);
    int y = 0;
    x = 77 + T_rank;
    MPI_Sendrecv(&x, 1, MPI_INT, 0, 3, &y, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &st);
    CHECK_EQ_INT(y, 77 + T_rank);
    CHECK_EQ_INT(st.MPI_SOURCE, 0);
    /* Sendrecv_replace with the neighbours. */
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    int buf[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = T_rank * 1000 + i;
    MPI_Sendrecv_replace(buf, 1000, MPI_INT, right, 8, left, 8, MPI_COMM_WORLD, &st);
    for (int i = 0; i < 1000; i++)
        CHECK_EQ_INT(buf[i], left * 1000 + i);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int peer = test_partner();
    many_outstanding(peer);
    test_barrier();
    any_and_some(peer);
    test_barrier();
    persistent(peer);
    test_barrier();
    cancel_and_free(peer);
    proc_null_and_self();
    test_done("p2p_requests");
    return 0;
}
