/* p2p_fatal — under the default MPI_ERRORS_ARE_FATAL an invalid rank prints
 * one line naming the call, the values and the rank, and ends the job with a
 * non-zero status (checked by the ctest regular expression). */
#include "mpitest.h"

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int x = 0;
    if (T_rank == T_size - 1)
        MPI_Send(&x, 1, MPI_INT, 7 + T_size, 0, MPI_COMM_WORLD);
    else
        MPI_Recv(&x, 1, MPI_INT, T_size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fprintf(stderr, "rank %d: not reached\n", T_rank);
    MPI_Finalize();
    return 0;
}
