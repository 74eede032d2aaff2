/* rma_halo — a 1-D halo exchange with MPI_Put and MPI_Win_fence.
 *
 * A rod of N cells is split into equal blocks, one per rank.  Each step every
 * cell becomes the average of itself and its two neighbours (the two ends
 * are held at fixed temperatures).  A rank's block lives in a window with one
 * halo cell on each side; before a step each rank puts its first cell into
 * its left neighbour's right halo and its last cell into its right
 * neighbour's left halo (MPI_PROC_NULL at the ends), between two fences.
 * At the end rank 0 gathers the rod and compares it with the same
 * computation done serially: the result must be identical to the bit.
 *
 *   rma_halo [CELLS_PER_RANK [STEPS]]        (defaults 1000 and 500)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEFT_END 1.0  /* fixed temperatures beyond the rod's ends */
#define RIGHT_END 0.0

static double initial(long i, long n) { return (i % 17) / 17.0 + (double)i / (double)n; }

/* One smoothing step of cells 1..n of u (u[0], u[n+1] are the halos) into v. */
static void step(const double *u, double *v, long n)
{
    for (long i = 1; i <= n; i++)
        v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long steps = argc > 2 ? atol(argv[2]) : 500;
    if (n < 1 || steps < 0) {
        if (rank == 0)
            fprintf(stderr, "rma_halo: want CELLS_PER_RANK >= 1 and STEPS >= 0\n");
        MPI_Finalize();
        return 2;
    }
    long total = n * size;

    /* u: the window (halo, n cells, halo); v: the next step */
    double *u = malloc(sizeof(double) * (size_t)(n + 2)), *v = malloc(sizeof(double) * (size_t)(n + 2));
    for (long i = 1; i <= n; i++)
        u[i] = initial(rank * n + i - 1, total);
    u[0] = v[0] = LEFT_END;
    u[n + 1] = v[n + 1] = RIGHT_END;
    MPI_Win win;
    MPI_Win_create(u, sizeof(double) * (MPI_Aint)(n + 2), sizeof(double), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &win);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;

    double t0 = MPI_Wtime();
    MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
    for (long s = 0; s < steps; s++) {
        /* my edge cells into my neighbours' halos: left's u[n+1], right's u[0] */
        MPI_Put(&u[1], 1, MPI_DOUBLE, left, n + 1, 1, MPI_DOUBLE, win);
        MPI_Put(&u[n], 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win);
        MPI_Win_fence(0, win); /* halos in place */
        step(u, v, n);
        memcpy(&u[1], &v[1], sizeof(double) * (size_t)n);
        MPI_Win_fence(0, win); /* everyone is done reading before the next puts */
    }
    MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
    double elapsed = MPI_Wtime() - t0;

    double *rod = rank == 0 ? malloc(sizeof(double) * (size_t)total) : NULL;
    MPI_Gather(&u[1], (int)n, MPI_DOUBLE, rod, (int)n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double *a = malloc(sizeof(double) * (size_t)(total + 2)), *b = malloc(sizeof(double) * (size_t)(total + 2));
        for (long i = 1; i <= total; i++)
            a[i] = initial(i - 1, total);
        a[0] = b[0] = LEFT_END;
        a[total + 1] = b[total + 1] = RIGHT_END;
        for (long s = 0; s < steps; s++) {
            step(a, b, total);
            double *t = a;
            a = b, b = t;
        }
        long wrong = 0, first = -1;
        for (long i = 0; i < total; i++)
            if (rod[i] != a[i + 1] && wrong++ == 0)
                first = i;
        printf("rma_halo: %ld cells on %d ranks, %ld steps in %.3f s; cell %ld = %.6f; "
               "identical to the serial computation: %s\n",
               total, size, steps, elapsed, total / 2, rod[total / 2], wrong ? "NO" : "yes");
        if (wrong) {
            fprintf(stderr, "rma_halo: %ld cells differ, first %ld: %.17g vs serial %.17g\n", wrong,
                    first, rod[first], a[first + 1]);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        free(a);
        free(b);
    }
    free(rod);
    MPI_Win_free(&win);
    free(u);
    free(v);
    MPI_Finalize();
    return 0;
}
