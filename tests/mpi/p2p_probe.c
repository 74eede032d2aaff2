/* p2p_probe — Probe/Iprobe report the next matching message without taking
 * it; Mprobe/Improbe take it out of matching so only Mrecv/Imrecv gets it,
 * for short, eager and rendezvous messages. */
#include <stdio.h>

#include "mpitest.h"

static const int lens[] = {3, 5000, 250000}; /* bytes: short, eager, rendezvous */

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int peer = test_partner();
    unsigned char *buf = malloc(250000), *in = malloc(250000);
    for (int k = 0; k < 3; k++) {
        int n = lens[k];
        fill(buf, (size_t)n, (unsigned)(T_rank + k));
        MPI_Request sr[2];
        MPI_Isend(buf, n, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD, &sr[0]);
        MPI_Isend(buf, n, MPI_BYTE, peer, 20 + k, MPI_COMM_WORLD, &sr[1]);
        /* Probe: size and envelope, message stays. */
        MPI_Status st;
        MPI_Probe(peer, 10 + k, MPI_COMM_WORLD, &st);
        int cnt;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_EQ_INT(cnt, n);
        CHECK_EQ_INT(st.MPI_SOURCE, peer);
        int flag = 0;
        while (!flag)
            MPI_Iprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        CHECK_EQ_INT(st.MPI_TAG, 10 + k); /* the older one first */
        /* Mprobe takes the tag-10 message; a wildcard receive then gets tag 20. */
        MPI_Message m;
        MPI_Mprobe(peer, 10 + k, MPI_COMM_WORLD, &m, &st);
        CHECK(m != MPI_MESSAGE_NULL);
        MPI_Recv(in, n, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        CHECK_EQ_INT(st.MPI_TAG, 20 + k);
        CHECK(verify(in, (size_t)n, (unsigned)(peer + k)) < 0);
        memset(in, 0, (size_t)n);
        MPI_Mrecv(in, n, MPI_BYTE, &m, &st);
        CHECK(m == MPI_MESSAGE_NULL);
        CHECK_EQ_INT(st.MPI_TAG, 10 + k);
        CHECK(verify(in, (size_t)n, (unsigned)(peer + k)) < 0);
        MPI_Waitall(2, sr, MPI_STATUSES_IGNORE);
        test_barrier();

        /* Improbe + Imrecv. */
        MPI_Isend(buf, n, MPI_BYTE, peer, 30 + k, MPI_COMM_WORLD, &sr[0]);
        flag = 0;
        while (!flag)
            MPI_Improbe(peer, 30 + k, MPI_COMM_WORLD, &flag, &m, &st);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_EQ_INT(cnt, n);
        /* Nothing else matches tag 30 any more. */
        MPI_Iprobe(peer, 30 + k, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag);
        MPI_Request rr;
        memset(in, 0, (size_t)n);
        MPI_Imrecv(in, n, MPI_BYTE, &m, &rr);
        MPI_Wait(&rr, &st);
        CHECK(verify(in, (size_t)n, (unsigned)(peer + k)) < 0);
        MPI_Wait(&sr[0], MPI_STATUS_IGNORE);
        test_barrier();
    }
    /* Iprobe with nothing there; PROC_NULL probes. */
    int flag = 1;
    MPI_Iprobe(peer, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    CHECK(!flag);
    MPI_Status st;
    MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    MPI_Message m;
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
    CHECK(m == MPI_MESSAGE_NO_PROC);
    MPI_Mrecv(in, 1, MPI_BYTE, &m, &st);
    CHECK(m == MPI_MESSAGE_NULL);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    free(buf);
    free(in);
    test_done("p2p_probe");
    return 0;
}
