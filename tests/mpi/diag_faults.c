/* diag_faults — the faults whose messages diag_cases.sh checks:
 *   before-init     the last rank calls MPI_Send before MPI_Init
 *   after-finalize  the last rank calls MPI_Send after MPI_Finalize
 *   peer-exit       rank 1 prints its pid and exits 0 without MPI_Finalize
 *                   while the others wait to receive from it
 *   all-fatal       every rank sends to an invalid rank (one fatal error each;
 *                   SIGTERM blocked, so each rank gets to say it before the
 *                   launcher's SIGKILL)
 * The ranks print "pid R P" first so the script can match pids to ranks. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank = -1, size = 0, x = 0;
    const char *env_rank = getenv("PMI_RANK"), *env_size = getenv("PMI_SIZE");
    int last = env_rank && env_size && atoi(env_rank) == atoi(env_size) - 1;
    if (strcmp(mode, "before-init") == 0 && last)
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("pid %d %d\n", rank, (int)getpid());
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD); /* every pid is out before anything fails */
    if (strcmp(mode, "peer-exit") == 0 && size > 1) {
        if (rank == 1)
            _exit(0);
        MPI_Recv(&x, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (strcmp(mode, "all-fatal") == 0) {
        sigset_t term;
        sigemptyset(&term);
        sigaddset(&term, SIGTERM);
        sigprocmask(SIG_BLOCK, &term, NULL);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (strcmp(mode, "all-fatal") == 0)
        MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    if (strcmp(mode, "after-finalize") == 0 && rank == size - 1)
        MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    return 0;
}
