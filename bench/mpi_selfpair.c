/*
 * mpi_selfpair — instructions per 8-byte MPI_Send + MPI_Recv pair without any
 * waiting: one rank sends 8 bytes to itself and receives them, N times.  Run
 * under callgrind with two values of N; the difference of the totals divided
 * by the difference of N is the cost of one pair, start-up excluded.  Plain
 * MPI: builds with any mpicc (docs/benchmarks.md).
 *
 *   valgrind --tool=callgrind ./mpi_selfpair N [multiple]
 *
 * multiple: MPI_Init_thread asks MPI_THREAD_MULTIPLE (the cost of its locks
 * with one thread; docs/threads.md).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv,
                    argc > 2 && !strcmp(argv[2], "multiple") ? MPI_THREAD_MULTIPLE
                                                            : MPI_THREAD_SINGLE,
                    &provided);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    long out = 0, in = -1;
    for (long i = 0; i < n; i++) {
        out = i;
        MPI_Send(&out, 8, MPI_BYTE, me, 1, MPI_COMM_WORLD);
        MPI_Recv(&in, 8, MPI_BYTE, me, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (in != i) {
            fprintf(stderr, "mpi_selfpair: got %ld, expected %ld\n", in, i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Finalize();
    return 0;
}
