/* p2p_order — MPI's ordering rules: messages from one sender on one
 * communicator and tag never overtake each other, whatever their protocol;
 * ANY_SOURCE / ANY_TAG receives pick messages in order per sender; posted
 * receives are matched in the order they were posted, across specific and
 * wildcard sources. */
#include <stdio.h>

#include "mpitest.h"

#define N 600
#define BIG 100000 /* rendezvous size */

/* Message i to a neighbour: a mix of short, eager and rendezvous sizes. */
static int msg_len(int i)
{
    return i % 50 == 7 ? BIG : i % 3 == 0 ? 4 : i % 3 == 1 ? 1000 : 30000;
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;

    /* 1. Non-overtaking with mixed protocols, tags cycling 0..3. Receive first
     * by ANY_TAG (global order), then the same again per tag, in reverse tag order. */
    for (int pass = 0; pass < 2; pass++) {
        MPI_Request *reqs = malloc(N * sizeof *reqs);
        int **bufs = malloc(N * sizeof *bufs);
        for (int i = 0; i < N; i++) {
            bufs[i] = calloc((size_t)msg_len(i) / sizeof(int) + 1, sizeof(int));
            bufs[i][0] = i;
            MPI_Isend(bufs[i], msg_len(i), MPI_BYTE, right, i % 4, MPI_COMM_WORLD, &reqs[i]);
        }
        int *rb = malloc(BIG);
        if (pass == 0) {
            for (int i = 0; i < N; i++) {
                MPI_Status st;
                MPI_Recv(rb, BIG, MPI_BYTE, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                CHECK_EQ_INT(rb[0], i);
                CHECK_EQ_INT(st.MPI_TAG, i % 4);
                int cnt;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK_EQ_INT(cnt, msg_len(i));
            }
        } else {
            for (int tag = 3; tag >= 0; tag--)
                for (int i = tag; i < N; i += 4) {
                    MPI_Recv(rb, BIG, MPI_BYTE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    CHECK_EQ_INT(rb[0], i);
                }
        }
        MPI_Waitall(N, reqs, MPI_STATUSES_IGNORE);
        for (int i = 0; i < N; i++)
            CHECK(reqs[i] == MPI_REQUEST_NULL);
        for (int i = 0; i < N; i++)
            free(bufs[i]);
        free(bufs);
        free(reqs);
        free(rb);
        test_barrier();
    }

    /* 2. Many senders, one receiver with ANY_SOURCE/ANY_TAG: every sender's
     * messages come in its own order, and all of them come. */
    const int K = 300;
    if (T_rank == 0) {
        int *next = calloc((size_t)T_size, sizeof(int));
        for (int m = 0; m < K * (T_size - 1); m++) {
            int v[2];
            MPI_Status st;
            MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < T_size);
            CHECK_EQ_INT(v[0], st.MPI_SOURCE);
            CHECK_EQ_INT(v[1], next[st.MPI_SOURCE]);
            CHECK_EQ_INT(st.MPI_TAG, v[1] % 5);
            next[st.MPI_SOURCE]++;
        }
        for (int s = 1; s < T_size; s++)
            CHECK_EQ_INT(next[s], K);
        free(next);
        /* Release the senders only now: their barrier messages would match ANY_TAG. */
        for (int s = 1; s < T_size; s++)
            MPI_Send(&K, 1, MPI_INT, s, 99, MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < K; i++) {
            int v[2] = {T_rank, i};
            MPI_Send(v, 2, MPI_INT, 0, i % 5, MPI_COMM_WORLD);
        }
        int k;
        MPI_Recv(&k, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    test_barrier();

    /* 3. Posting order decides between wildcard and specific receives:
     * irecv(ANY_SOURCE, 7), irecv(left, 7), irecv(ANY_SOURCE, 7) get the
     * left neighbour's messages 1, 2, 3 in that order.  (No ANY_TAG here: the
     * barrier's messages would match it.) */
    int a = -1, b = -1, c = -1;
    MPI_Request r3[3];
    {
        MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r3[0]);
        MPI_Irecv(&b, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &r3[1]);
        MPI_Irecv(&c, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r3[2]);
        test_barrier();
        for (int v = 1; v <= 3; v++)
            MPI_Send(&v, 1, MPI_INT, right, 7, MPI_COMM_WORLD);
        MPI_Waitall(3, r3, MPI_STATUSES_IGNORE);
        CHECK_EQ_INT(a, 1);
        CHECK_EQ_INT(b, 2);
        CHECK_EQ_INT(c, 3);
    }

    /* 4. Unexpected messages are taken in order by later wildcard receives,
     * and a specific-tag receive skips over earlier other-tag messages.  Only
     * messages from `left` can match ANY_TAG here: its barrier message comes
     * after its data. */
    for (int v = 0; v < 10; v++)
        MPI_Send(&v, 1, MPI_INT, right, v < 5 ? 20 : 21, MPI_COMM_WORLD);
    test_barrier(); /* all are unexpected by now or still in the ring */
    int x;
    MPI_Recv(&x, 1, MPI_INT, left, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(x, 5);
    for (int v = 0; v < 5; v++) {
        MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(x, v);
    }
    for (int v = 6; v < 10; v++) {
        MPI_Recv(&x, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(x, v);
    }
    test_done("p2p_order");
    return 0;
}
