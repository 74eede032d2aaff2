/* hello — every rank reports in; rank 0 collects one message from each other
 * rank and checks that all of them arrived with the right contents. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(host, &len);
    if (rank != 0) {
        MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else {
        int seen = 1;
        for (int i = 1; i < size; i++) {
            int who;
            MPI_Status st;
            MPI_Recv(&who, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &st);
            if (who != st.MPI_SOURCE) {
                fprintf(stderr, "hello: rank %d claims to be %d\n", st.MPI_SOURCE, who);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            seen++;
        }
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        MPI_Get_library_version(lib, &len);
        printf("hello: %d of %d ranks reported on %s (%s)\n", seen, size, host, lib);
        if (seen != size)
            return 1;
    }
    MPI_Finalize();
    return 0;
}
