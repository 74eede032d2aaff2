/*
 * lu.c — parallel LU decomposition with partial pivoting, PA = LU, the "lu"
 * application of the ULFM paper.  Columns are dealt out cyclically (column j
 * lives on rank j mod P).  At step k the owner of column k picks the pivot
 * row, computes the multipliers and broadcasts (pivot, multipliers); every
 * rank swaps the two rows in its own columns and updates its columns right of
 * k.  Afterwards rank 0 gathers the columns and checks PA = LU.
 *
 * Exit 0 when max |PA - LU| <= 1e-10 * n * max|A|, 1 when not, 2 on bad
 * arguments.
 *   lu [-n N] [--inject-error]     (--inject-error: the owner of column 0
 *                                   corrupts one multiplier before the check)
 * Prints "@ lu N ranks compute_s SECONDS" (rank 0: factorization + gather).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_COLUMN 11

/* A reproducible matrix that needs pivoting (its diagonal is not dominant). */
static double a_at(int i, int j)
{
    unsigned x = (unsigned)(i * 2654435761u) ^ (unsigned)(j * 40503u + 12345u);
    x ^= x >> 13, x *= 0x5bd1e995u, x ^= x >> 15;
    return (double)(x % 2001) / 1000.0 - 1.0;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "lu: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

struct layout {
    int n, rank, nranks, ncols; /* ncols: columns this rank owns */
};

static int owner(const struct layout *l, int j) { return j % l->nranks; }
static int local_of(const struct layout *l, int j) { return j / l->nranks; }

/* Factor in place: col[c] is local column c (global c*P + rank), n values.
 * perm[k] = row swapped with k at step k. */
static int factor(const struct layout *l, double *col, int *perm)
{
    int n = l->n;
    double *msg = xmalloc((size_t)(n + 1) * sizeof *msg);
    for (int k = 0; k < n; k++) {
        int count = n - k; /* pivot index + (n - k - 1) multipliers */
        if (owner(l, k) == l->rank) {
            double *ck = col + (size_t)local_of(l, k) * n;
            int piv = k;
            for (int i = k + 1; i < n; i++)
                if (fabs(ck[i]) > fabs(ck[piv]))
                    piv = i;
            msg[0] = piv;
            double d = ck[piv] != 0.0 ? ck[piv] : 1.0; /* singular: the check will say so */
            ck[piv] = ck[k], ck[k] = d;
            for (int i = k + 1; i < n; i++)
                msg[i - k] = ck[i] /= d;
        }
        MPI_Bcast(msg, count, MPI_DOUBLE, owner(l, k), MPI_COMM_WORLD);
        int piv = (int)msg[0];
        perm[k] = piv;
        for (int c = 0; c < l->ncols; c++) {
            int j = c * l->nranks + l->rank;
            if (j == k)
                continue;
            double *cj = col + (size_t)c * n;
            double t = cj[piv];
            cj[piv] = cj[k], cj[k] = t; /* L part (j < k) swaps too, as LAPACK's dgetrf */
            if (j > k)
                for (int i = k + 1; i < n; i++)
                    cj[i] -= msg[i - k] * cj[k];
        }
    }
    free(msg);
    return 0;
}

/* Rank 0: max |PA - LU| relative to n * max|A|; lu is column-major n x n. */
static double residual(int n, const double *lu, const int *perm)
{
    double *pa = xmalloc((size_t)n * n * sizeof *pa), amax = 0.0, err = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            pa[(size_t)j * n + i] = a_at(i, j);
            amax = fmax(amax, fabs(a_at(i, j)));
        }
    for (int k = 0; k < n; k++) /* apply the row swaps in order */
        for (int j = 0; j < n; j++) {
            double t = pa[(size_t)j * n + k];
            pa[(size_t)j * n + k] = pa[(size_t)j * n + perm[k]], pa[(size_t)j * n + perm[k]] = t;
        }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = 0.0;
            int m = i < j ? i : j;
            for (int p = 0; p < m; p++)
                s += lu[(size_t)p * n + i] * lu[(size_t)j * n + p]; /* L[i][p] * U[p][j] */
            s += (i <= j) ? lu[(size_t)j * n + i] : lu[(size_t)j * n + i] * lu[(size_t)j * n + j];
            err = fmax(err, fabs(pa[(size_t)j * n + i] - s));
        }
    free(pa);
    return err / (n * (amax > 0 ? amax : 1.0));
}

int main(int argc, char **argv)
{
    int n = 256, inject_error = 0, rank, nranks;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            n = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--inject-error")) {
            inject_error = 1;
        } else {
            if (rank == 0)
                fprintf(stderr, "lu: unknown argument '%s' (usage: lu [-n N] [--inject-error])\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (n < 2 || n > 8192) {
        if (rank == 0)
            fprintf(stderr, "lu: -n %d out of range 2..8192\n", n);
        MPI_Finalize();
        return 2;
    }
    struct layout l = {n, rank, nranks, 0};
    l.ncols = n / nranks + (rank < n % nranks);
    double *col = xmalloc((size_t)(l.ncols ? l.ncols : 1) * n * sizeof *col);
    int *perm = xmalloc((size_t)n * sizeof *perm);
    for (int c = 0; c < l.ncols; c++)
        for (int i = 0; i < n; i++)
            col[(size_t)c * n + i] = a_at(i, c * nranks + rank);

    double t0 = MPI_Wtime();
    factor(&l, col, perm);
    if (inject_error && rank == owner(&l, 0))
        col[n - 1] *= 1.5; /* a multiplier of column 0 */
    int bad = 0;
    if (rank == 0) {
        double *lu = xmalloc((size_t)n * n * sizeof *lu);
        for (int j = 0; j < n; j++) {
            if (owner(&l, j) == 0)
                memcpy(lu + (size_t)j * n, col + (size_t)local_of(&l, j) * n, (size_t)n * sizeof *lu);
            else
                MPI_Recv(lu + (size_t)j * n, n, MPI_DOUBLE, owner(&l, j), TAG_COLUMN, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        }
        double t = MPI_Wtime() - t0;
        double err = residual(n, lu, perm);
        bad = !(err <= 1e-10);
        if (bad) {
            fprintf(stderr, "lu: verification failed: max|PA-LU| / (n max|A|) = %.3g > 1e-10\n", err);
        } else {
            printf("lu: %dx%d PA=LU on %d ranks verified (relative residual %.2g)\n", n, n, nranks, err);
            printf("@ lu %d %d compute_s %.6f\n", n, nranks, t);
        }
        free(lu);
    } else {
        for (int c = 0; c < l.ncols; c++)
            MPI_Send(col + (size_t)c * n, n, MPI_DOUBLE, 0, TAG_COLUMN, MPI_COMM_WORLD);
    }
    free(col);
    free(perm);
    MPI_Finalize();
    return bad;
}
