/* p2p_flood — nobody can block a receiver forever: 100k messages sent before
 * the receiver posts anything, both directions at once, everybody to rank 0,
 * storms of sends to oneself, and buffered-mode sends. */
#include <stdio.h>

#include "mpitest.h"

#define FLOOD 100000

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int peer = test_partner();

    /* 1. One-way flood: the receiver sits in a receive for the final message
     * (tag 1) while 100k tag-0 messages pile up as unexpected, then takes
     * them in order. */
    if (peer != T_rank) {
        if (T_rank < peer) {
            for (int i = 0; i < FLOOD; i++)
                MPI_Send(&i, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            MPI_Send(&peer, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
        } else {
            int x;
            MPI_Recv(&x, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK_EQ_INT(x, T_rank);
            for (int i = 0; i < FLOOD; i++) {
                MPI_Recv(&x, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                CHECK_EQ_INT(x, i);
            }
        }
    }
    test_barrier();

    /* 2. Both directions at once with eager messages: both ranks are in
     * MPI_Send with full rings; progress inside Send drains the other way. */
    enum { BOTH = 20000, LEN = 2000 };
    char *out = malloc(LEN), *in = malloc(LEN);
    for (int i = 0; i < BOTH; i++) {
        out[0] = (char)i;
        out[LEN - 1] = (char)(i * 3);
        MPI_Send(out, i % 2 ? LEN : 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD);
    }
    for (int i = 0; i < BOTH; i++) {
        MPI_Status st;
        MPI_Recv(in, LEN, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &st);
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_EQ_INT(cnt, i % 2 ? LEN : 8);
        CHECK_EQ_INT(in[0], (char)i);
        if (i % 2)
            CHECK_EQ_INT(in[LEN - 1], (char)(i * 3));
    }
    test_barrier();

    /* 3. Everybody floods rank 0, which receives with ANY_SOURCE. */
    enum { EACH = 10000 };
    if (T_rank == 0) {
        int *next = calloc((size_t)T_size, sizeof(int));
        for (long m = 0; m < (long)EACH * (T_size - 1); m++) {
            int v;
            MPI_Status st;
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
            CHECK_EQ_INT(v, next[st.MPI_SOURCE]++);
        }
        for (int s = 1; s < T_size; s++)
            CHECK_EQ_INT(next[s], EACH);
        free(next);
    } else {
        for (int i = 0; i < EACH; i++)
            MPI_Send(&i, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
    test_barrier();

    /* 4. Send-to-self storm: blocking sends to myself, far more than a ring
     * holds, then receive them all; then a rendezvous-size Isend to myself. */
    enum { SELF = 30000 };
    for (int i = 0; i < SELF; i++)
        MPI_Send(out, i % 7 == 0 ? LEN : 4, MPI_BYTE, T_rank, 4, MPI_COMM_WORLD);
    for (int i = 0; i < SELF; i++) {
        MPI_Status st;
        MPI_Recv(in, LEN, MPI_BYTE, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &st);
        CHECK_EQ_INT(st.MPI_SOURCE, T_rank);
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_EQ_INT(cnt, i % 7 == 0 ? LEN : 4);
    }
    enum { HUGE = 3 << 20 };
    unsigned char *h = malloc(HUGE), *g = malloc(HUGE);
    fill(h, HUGE, 9);
    MPI_Request r;
    MPI_Isend(h, HUGE, MPI_BYTE, T_rank, 5, MPI_COMM_WORLD, &r);
    MPI_Recv(g, HUGE, MPI_BYTE, T_rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(verify(g, HUGE, 9) < 0);

    /* 5. Buffered sends: 1000 of them complete at once; the receiver takes
     * them later; detach waits until all have left. */
    int bsize = 1000 * (64 + MPI_BSEND_OVERHEAD);
    void *bb = malloc((size_t)bsize);
    MPI_Buffer_attach(bb, bsize);
    for (int i = 0; i < 1000; i++) {
        out[0] = (char)i;
        MPI_Bsend(out, 64, MPI_BYTE, peer, 6, MPI_COMM_WORLD);
    }
    for (int i = 0; i < 1000; i++) {
        MPI_Recv(in, 64, MPI_BYTE, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(in[0], (char)i);
    }
    void *det;
    int dsz;
    MPI_Buffer_detach(&det, &dsz);
    CHECK(det == bb && dsz == bsize);
    free(bb);
    free(out);
    free(in);
    free(h);
    free(g);
    test_done("p2p_flood");
    return 0;
}
