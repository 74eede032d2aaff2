/* mpi_mix.c <mpi-first|shmem-first> — MPI and OpenSHMEM in one program,
 * either initialised first: one job, one boot, one channel context; ranks and
 * PEs agree; messages, one-sided puts, atomics and both barriers interleave. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "shtest.h"

static long box[8], counter;

int main(int argc, char **argv)
{
    int mpi_first = argc > 1 && !strcmp(argv[1], "mpi-first");
    if (mpi_first)
        MPI_Init(&argc, &argv);
    test_init();
    if (!mpi_first)
        MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(rank == me && size == npes);
    for (int round = 0; round < 20; round++) {
        int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
        shmem_long_p(&box[round % 8], 100L * round + me, right);
        shmem_long_atomic_add(&counter, 1, 0);
        shmem_barrier_all();
        CHECK(box[round % 8] == 100L * round + left);
        long token = me * 10 + round, got = -1;
        MPI_Sendrecv(&token, 1, MPI_LONG, right, round, &got, 1, MPI_LONG, left, round,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == left * 10 + round);
        long sum = 0;
        MPI_Allreduce(&token, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(sum == 10L * npes * (npes - 1) / 2 + (long)round * npes);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(counter == 20L * npes);
    if (mpi_first) {
        shmem_finalize();
        MPI_Finalize();
    } else {
        MPI_Finalize();
        shmem_finalize();
    }
    if (me == 0)
        printf("mpi_mix (%s): %d PEs: every check passed\n", mpi_first ? "MPI first" : "SHMEM first",
               npes);
    return 0;
}
