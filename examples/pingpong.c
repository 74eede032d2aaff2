/* pingpong — ranks 0 and 1 bounce messages of growing size (short, eager and
 * rendezvous protocols), check every byte and print the half round-trip time
 * and bandwidth.  Other ranks just take part in MPI_Init/Finalize. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const unsigned char *b, size_t n, int iter)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(i + (size_t)iter))
            return 0;
    return 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            printf("pingpong: needs 2 ranks, have 1 (nothing to do)\n");
        MPI_Finalize();
        return 0;
    }
    const size_t max = 4 << 20;
    unsigned char *buf = malloc(max);
    if (rank == 0)
        printf("%10s %12s %12s\n", "bytes", "usec (half)", "MB/s");
    for (size_t n = 1; n <= max; n *= 8) {
        int iters = n <= 4096 ? 2000 : n <= (1 << 18) ? 200 : 20;
        double t0 = 0;
        for (int it = -10; it < iters; it++) { /* 10 warm-up rounds */
            if (it == 0)
                t0 = MPI_Wtime();
            if (rank == 0) {
                for (size_t i = 0; i < n; i++)
                    buf[i] = (unsigned char)(i + (size_t)(it & 0xff));
                MPI_Send(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, (int)n, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (!check(buf, n, (it & 0xff) + 1)) {
                    fprintf(stderr, "pingpong: %zu bytes: wrong data back\n", n);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
            } else if (rank == 1) {
                MPI_Recv(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (!check(buf, n, it & 0xff)) {
                    fprintf(stderr, "pingpong: %zu bytes: wrong data\n", n);
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                for (size_t i = 0; i < n; i++)
                    buf[i]++;
                MPI_Send(buf, (int)n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
            }
        }
        double half = (MPI_Wtime() - t0) / iters / 2;
        if (rank == 0)
            printf("%10zu %12.2f %12.1f\n", n, half * 1e6, (double)n / half / 1e6);
    }
    if (rank == 0)
        printf("pingpong: all data checked\n");
    free(buf);
    MPI_Finalize();
    return 0;
}
