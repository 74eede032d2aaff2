/* mpi_comm_create — communicator creation time for any MPI: the mean time of
 * MPI_Comm_dup + MPI_Comm_free and of MPI_Comm_split (2 colours) + free over
 * the whole job, as rank 0 sees it after a barrier.  Prints "op ranks us". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, iters = 200;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int op = 0; op < 2; op++) {
        for (int warm = 0; warm < 2; warm++) {
            int n = warm ? iters : 20;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int k = 0; k < n; k++) {
                MPI_Comm c;
                if (op == 0)
                    MPI_Comm_dup(MPI_COMM_WORLD, &c);
                else
                    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c);
                MPI_Comm_free(&c);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            double us = (MPI_Wtime() - t0) / n * 1e6;
            if (warm && rank == 0)
                printf("%s %d %.1f\n", op ? "split" : "dup", size, us);
        }
    }
    MPI_Finalize();
    return 0;
}
