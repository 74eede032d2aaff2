/* rma_counter — a distributed work counter with one-sided communication.
 *
 * Rank 0's window holds one counter.  Every rank, inside one MPI_Win_lock_all
 * epoch, claims the next task with MPI_Fetch_and_op(+1) until the counter
 * passes the number of tasks; nobody coordinates, and rank 0 works like the
 * others.  Each rank marks the tasks it did; an MPI_Allreduce then checks
 * that every task was done exactly once and that the sum of the task results
 * equals the serial sum.
 *
 *   rma_counter [TASKS]        (default 2000)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A task: some arithmetic whose result depends on its number. */
static long work(long task)
{
    long x = task + 1;
    for (int i = 0; i < 2000; i++)
        x = (x * 1103515245 + 12345) % 2147483647;
    return x % 1000;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long ntasks = argc > 1 ? atol(argv[1]) : 2000;
    if (ntasks < 1) {
        if (rank == 0)
            fprintf(stderr, "rma_counter: TASKS must be at least 1, got '%s'\n", argv[1]);
        MPI_Finalize();
        return 2;
    }

    /* the counter: one long on rank 0, nothing on the others */
    long *counter;
    MPI_Win win;
    MPI_Win_allocate(rank == 0 ? sizeof(long) : 0, sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
                     &counter, &win);
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        *counter = 0;
        MPI_Win_unlock(0, win);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    int *done = calloc((size_t)ntasks, sizeof *done);
    long mine = 0, sum = 0, one = 1, task;
    double t0 = MPI_Wtime();
    MPI_Win_lock_all(0, win);
    for (;;) {
        MPI_Fetch_and_op(&one, &task, MPI_LONG, 0, 0, MPI_SUM, win);
        MPI_Win_flush(0, win); /* the fetched value is here */
        if (task >= ntasks)
            break;
        done[task]++;
        sum += work(task);
        mine++;
    }
    MPI_Win_unlock_all(win);
    double elapsed = MPI_Wtime() - t0;

    /* every task exactly once, and the results add up */
    MPI_Allreduce(MPI_IN_PLACE, done, (int)ntasks, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    long total = 0, claimed = 0;
    MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&mine, &claimed, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    long *per_rank = rank == 0 ? malloc(sizeof(long) * (size_t)size) : NULL;
    MPI_Gather(&mine, 1, MPI_LONG, per_rank, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    int bad = 0;
    for (long t = 0; t < ntasks; t++)
        if (done[t] != 1) {
            if (rank == 0 && bad < 5)
                fprintf(stderr, "rma_counter: task %ld was done %d times\n", t, done[t]);
            bad++;
        }
    if (rank == 0) {
        long serial = 0;
        for (long t = 0; t < ntasks; t++)
            serial += work(t);
        printf("rma_counter: %ld tasks on %d ranks in %.3f s; tasks per rank:", ntasks, size,
               elapsed);
        for (int r = 0; r < size; r++)
            printf(" %ld", per_rank[r]);
        printf("\nrma_counter: every task done once: %s; result %ld, serial %ld: %s\n",
               bad ? "NO" : "yes", total, serial, total == serial ? "match" : "MISMATCH");
        if (bad || total != serial || claimed != ntasks)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    free(per_rank);
    free(done);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
