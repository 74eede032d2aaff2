/* p2p_late_peer — a first message between two ranks on different hosts
 * (tcp) while one of them computes outside MPI for longer than
 * SKIFF_TCP_TIMEOUT (the test sets 1 s; each side sleeps 2.5 s):
 *   1. the receiver is the busy one: the sender's connection waits for its
 *      challenge (until 2026-12-06 the dialler gave up after the timeout,
 *      took the peer for gone, and the receiver waited forever);
 *   2. the sender is: it starts the dial in MPI_Isend and leaves MPI, so
 *      the receiver's side of the handshake waits for its hello (the
 *      acceptor dropped it after the timeout, and then the dialler).
 * Run with --hosts a:3,b:N (N >= 2): ranks 1 and 2 on a, the last two on
 * b, four ranks that talk to nobody across the hosts before this. */
#include <stdio.h>
#include <unistd.h>

#include "mpitest.h"

#define BUSY_US 2500000

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    CHECK(T_size >= 5);
    int v = -1;
    /* 1. the receiver busy */
    if (T_rank == 1) {
        usleep(BUSY_US);
        MPI_Recv(&v, 1, MPI_INT, T_size - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(v, 1001);
    } else if (T_rank == T_size - 1) {
        v = 1001;
        MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    }
    /* 2. the sender busy right after starting its send */
    if (T_rank == 2) {
        MPI_Recv(&v, 1, MPI_INT, T_size - 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(v, 2002);
    } else if (T_rank == T_size - 2) {
        MPI_Request r;
        v = 2002;
        MPI_Isend(&v, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, &r);
        usleep(BUSY_US);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    /* everyone still reaches everyone */
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ_INT(sum, T_size);
    if (T_rank == 0)
        printf("p2p_late_peer: ok (%d ranks)\n", T_size);
    MPI_Finalize();
    return 0;
}
