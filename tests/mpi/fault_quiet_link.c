/* fault_quiet_link — a rank learns that its tcp peer is gone while it waits
 * for a node mate through shared memory alone: the job must end, not hang
 * (tests/netns/netns_test.sh, case linkquiet).  3 ranks on hosts h1:2,h2:1:
 * rank 0 and rank 2 exchange a message (their connection exists), rank 1
 * then sends rank 0 one message (rank 0's last delivery, the transport its
 * waits sleep in, is shm), then rank 0
 * waits for a second one from rank 1 that never comes, rank 1 for one from
 * rank 2, and rank 2 sleeps outside MPI.  The script takes h2's link down
 * after a second: rank 0's keepalive ends the connection, and its shm wait
 * must then fail (MPI: "a peer process is gone; ending the job").  Until
 * 2026-12-06 the shm+tcp wait slept in shm's doorbell and never asked tcp. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int me, n, v = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != 3) {
        fprintf(stderr, "fault_quiet_link: run 3 ranks on hosts h1:2,h2:1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (me == 0) {
        MPI_Send(&v, 1, MPI_INT, 2, 1, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 2, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&v, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never sent */
    } else if (me == 1) {
        usleep(300000); /* after rank 0's tcp exchange: its last delivery is this one */
        MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_INT, 2, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never sent */
    } else {
        MPI_Recv(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        for (;;)
            sleep(1); /* outside MPI: only rank 0's tcp side can learn of the cut */
    }
    fprintf(stderr, "fault_quiet_link: rank %d got a message nobody sent\n", me);
    MPI_Abort(MPI_COMM_WORLD, 3);
    return 0;
}
