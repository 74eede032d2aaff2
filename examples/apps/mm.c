/*
 * mm.c — parallel matrix multiply C = A x B with master/worker row
 * distribution, the "mm" application of the ULFM paper: the master
 * broadcasts B, hands out rows of A one at a time to whichever worker is
 * free, collects the result rows, and finally tells every worker to stop.
 * With one rank the master does all rows itself.
 *
 * The entries are small integers, so every product is exact in double and the
 * parallel result must equal the master's serial one bit for bit.  Exit 0 when
 * it does, 1 when not (with the first wrong element), 2 on bad arguments.
 *
 *   mm [-n N] [--inject-error]     (--inject-error: one worker corrupts one
 *                                   value, to show the check catches it)
 * Prints "@ mm N ranks compute_s SECONDS" (master's time from the broadcast
 * of B to the last result row).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_STOP 0 /* tag t > 0 carries row t-1 */

static double a_at(int i, int j) { return (double)((i * 7 + j * 3) % 11 - 5); }
static double b_at(int i, int j) { return (double)((i * 5 + j * 2) % 13 - 6); }

static void row_times_b(const double *row, const double *b, double *out, int n)
{
    for (int j = 0; j < n; j++)
        out[j] = 0.0;
    for (int k = 0; k < n; k++) {
        double aik = row[k];
        const double *bk = b + (size_t)k * n;
        for (int j = 0; j < n; j++)
            out[j] += aik * bk[j];
    }
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "mm: out of memory (%zu bytes)\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static void master(int n, int nranks, const double *a, const double *b, double *c)
{
    int next = 0, busy = 0;
    if (nranks == 1) {
        for (int i = 0; i < n; i++)
            row_times_b(a + (size_t)i * n, b, c + (size_t)i * n, n);
        return;
    }
    for (int w = 1; w < nranks; w++) { /* first round: one row per worker, or stop */
        if (next < n) {
            MPI_Send(a + (size_t)next * n, n, MPI_DOUBLE, w, next + 1, MPI_COMM_WORLD);
            next++, busy++;
        } else {
            MPI_Send(NULL, 0, MPI_DOUBLE, w, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    double *row = xmalloc((size_t)n * sizeof *row);
    while (busy > 0) {
        MPI_Status st;
        MPI_Recv(row, n, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        memcpy(c + (size_t)(st.MPI_TAG - 1) * n, row, (size_t)n * sizeof *row);
        busy--;
        if (next < n) {
            MPI_Send(a + (size_t)next * n, n, MPI_DOUBLE, st.MPI_SOURCE, next + 1, MPI_COMM_WORLD);
            next++, busy++;
        } else {
            MPI_Send(NULL, 0, MPI_DOUBLE, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
        }
    }
    free(row);
}

static void worker(int n, const double *b, int inject_error)
{
    double *row = xmalloc((size_t)n * sizeof *row), *out = xmalloc((size_t)n * sizeof *out);
    for (;;) {
        MPI_Status st;
        MPI_Recv(row, n, MPI_DOUBLE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        if (st.MPI_TAG == TAG_STOP)
            break;
        row_times_b(row, b, out, n);
        if (inject_error && st.MPI_TAG == 1)
            out[n / 2] += 1.0;
        MPI_Send(out, n, MPI_DOUBLE, 0, st.MPI_TAG, MPI_COMM_WORLD);
    }
    free(row);
    free(out);
}

/* Serial product on the master; the first mismatch is reported. */
static int verify(int n, const double *a, const double *b, const double *c)
{
    double *want = xmalloc((size_t)n * sizeof *want);
    int bad = 0;
    for (int i = 0; i < n && !bad; i++) {
        row_times_b(a + (size_t)i * n, b, want, n);
        for (int j = 0; j < n; j++)
            if (c[(size_t)i * n + j] != want[j]) {
                fprintf(stderr, "mm: verification failed: C[%d][%d] = %g, want %g\n", i, j, c[(size_t)i * n + j],
                        want[j]);
                bad = 1;
                break;
            }
    }
    free(want);
    return bad;
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
                fprintf(stderr, "mm: unknown argument '%s' (usage: mm [-n N] [--inject-error])\n", argv[i]);
            MPI_Finalize();
            return 2;
        }
    }
    if (n < 1 || n > 8192) {
        if (rank == 0)
            fprintf(stderr, "mm: -n %d out of range 1..8192\n", n);
        MPI_Finalize();
        return 2;
    }
    size_t nn = (size_t)n * n;
    double *b = xmalloc(nn * sizeof *b);
    double *a = NULL, *c = NULL;
    if (rank == 0) {
        a = xmalloc(nn * sizeof *a);
        c = xmalloc(nn * sizeof *c);
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                a[(size_t)i * n + j] = a_at(i, j);
                b[(size_t)i * n + j] = b_at(i, j);
            }
        if (inject_error && nranks == 1)
            a[0] += 1.0; /* no worker to corrupt a row: corrupt the input after the fact instead */
    }
    double t0 = MPI_Wtime();
    MPI_Bcast(b, n * n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int bad = 0;
    if (rank == 0) {
        master(n, nranks, a, b, c);
        double t = MPI_Wtime() - t0;
        if (inject_error && nranks == 1)
            a[0] -= 1.0;
        bad = verify(n, a, b, c);
        if (!bad) {
            printf("mm: %dx%d product on %d ranks verified\n", n, n, nranks);
            printf("@ mm %d %d compute_s %.6f\n", n, nranks, t);
        }
    } else {
        worker(n, b, inject_error);
    }
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return bad;
}
