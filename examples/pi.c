/* pi — the ULFM paper's parallel pi: integrate 4/(1+x^2) over [0,1] with the
 * midpoint rule, each rank taking every size-th interval; the partial sums go
 * to rank 0 point-to-point, which checks the result against M_PI. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const long n = 10000000;
    const double h = 1.0 / (double)n;
    double t0 = MPI_Wtime(), part = 0;
    for (long i = rank; i < n; i += size) {
        double x = h * ((double)i + 0.5);
        part += 4.0 / (1.0 + x * x);
    }
    part *= h;
    if (rank != 0) {
        MPI_Send(&part, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    } else {
        double pi = part;
        for (int r = 1; r < size; r++) {
            double p;
            MPI_Recv(&p, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            pi += p;
        }
        double err = fabs(pi - M_PI);
        printf("pi: %.12f with %ld intervals on %d ranks, error %.2e, %.3f s\n", pi, n, size, err,
               MPI_Wtime() - t0);
        if (err > 1e-9) {
            fprintf(stderr, "pi: error %.3e is too large\n", err);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Finalize();
    return 0;
}
