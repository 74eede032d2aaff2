/* ring — a token goes around all ranks several times; each rank adds its rank
 * number, and rank 0 checks the sum at the end of every lap. */
#include <mpi.h>
#include <stdio.h>

#define LAPS 10

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    long token = 0, per_lap = (long)size * (size - 1) / 2;
    for (int lap = 0; lap < LAPS; lap++) {
        if (rank == 0) {
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (token != per_lap * (lap + 1)) {
                fprintf(stderr, "ring: lap %d: token %ld, expected %ld\n", lap, token,
                        per_lap * (lap + 1));
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else {
            MPI_Recv(&token, 1, MPI_LONG, prev, lap, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            token += rank;
            MPI_Send(&token, 1, MPI_LONG, next, lap, MPI_COMM_WORLD);
        }
    }
    if (rank == 0)
        printf("ring: %d laps over %d ranks, token %ld (correct)\n", LAPS, size, token);
    MPI_Finalize();
    return 0;
}
