/* mpi_dtype_bw — non-contiguous point-to-point bandwidth for any MPI:
 * ping-pong between ranks 0 and 1 of
 *   vec-small  vector of doubles, 1 every 2 (8-byte blocks)
 *   vec-mid    vector of doubles, 128 every 256 (1 KiB blocks)
 *   vec-large  vector of doubles, 1024 every 2048 (8 KiB blocks)
 *   struct     array of struct {double; char; int} (13 data bytes in 16)
 * at data sizes from 64 B to 4 MiB.  Prints "kind bytes MB/s" (data bytes,
 * both directions counted once per round trip).  Build with any mpicc.
 *   mpi_dtype_bw [KIND [BYTES]]     one kind, one size (BYTES = 64 * 4^k) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
    double d;
    char c;
    int i;
};

static double run(MPI_Datatype t, int count, void *buf, int rank, int iters)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int k = 0; k < iters; k++) {
        if (rank == 0) {
            MPI_Send(buf, count, t, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(buf, count, t, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(buf, count, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, count, t, 0, 0, MPI_COMM_WORLD);
        }
    }
    return (MPI_Wtime() - t0) / iters / 2; /* one way */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "mpi_dtype_bw: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const char *only = argc > 1 ? argv[1] : NULL;             /* one kind */
    size_t only_bytes = argc > 2 ? (size_t)atol(argv[2]) : 0; /* one size of it */
    size_t maxb = 4 << 20;
    void *buf = calloc(1, 4 * maxb + 65536);
    MPI_Datatype elem[4];
    MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &elem[0]); /* 1 double every 2 */
    MPI_Datatype blk;
    MPI_Type_contiguous(1024, MPI_DOUBLE, &blk);
    MPI_Type_create_resized(blk, 0, 2048 * 8, &elem[1]); /* 1024 doubles every 2048 */
    MPI_Aint disp[3] = {0, 8, 12};
    MPI_Datatype st;
    MPI_Type_create_struct(3, (int[]){1, 1, 1}, disp, (MPI_Datatype[]){MPI_DOUBLE, MPI_CHAR, MPI_INT},
                           &st);
    MPI_Type_create_resized(st, 0, sizeof(struct rec), &elem[2]);
    MPI_Datatype mid;
    MPI_Type_contiguous(128, MPI_DOUBLE, &mid);
    MPI_Type_create_resized(mid, 0, 256 * 8, &elem[3]); /* 128 doubles every 256 */
    const char *names[4] = {"vec-small", "vec-large", "struct", "vec-mid"};
    for (int k = 0; k < 4; k++)
        MPI_Type_commit(&elem[k]);
    for (int k = 0; k < 4; k++) {
        if (only && strcmp(only, names[k]) != 0)
            continue;
        int esize;
        MPI_Type_size(elem[k], &esize);
        for (size_t bytes = 64; bytes <= maxb; bytes *= 4) {
            int count = (int)(bytes / (size_t)esize);
            if (count == 0 || (only_bytes && bytes != only_bytes))
                continue;
            int iters = bytes < 65536 ? 2000 : bytes < (1 << 20) ? 200 : 30;
            run(elem[k], count, buf, rank, iters / 2 + 1); /* warm up (rings, waiters) */
            double t = run(elem[k], count, buf, rank, iters);
            if (rank == 0)
                printf("%s %zu %.1f\n", names[k], (size_t)count * (size_t)esize,
                       (double)count * esize / t / 1e6);
        }
    }
    MPI_Finalize();
    return 0;
}
