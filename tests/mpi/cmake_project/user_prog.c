/* user_prog — says which MPI library it got and that an allreduce works. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int rank, size, len, sum = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(lib, &len);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("user_prog: %d ranks, sum %d, library %.40s\n", size, sum, lib);
    MPI_Finalize();
    return sum == size * (size - 1) / 2 ? 0 : 1;
}
