/*
 * pmpi_prog.c — the profiling interface seen from an application.
 *
 *   pmpi_prog tool   a tool (pmpi_tool.c) is interposed, linked before libmpi
 *                    or by LD_PRELOAD: it must see exactly the application's
 *                    own MPI_Init/MPI_Send/MPI_Allreduce/MPI_Finalize calls
 *   pmpi_prog none   no tool: the same program works, nothing counts
 *
 * Data must flow unchanged through the wrappers (a ring of MPI_Send, sums by
 * MPI_Allreduce).  The library's internal use of MPI functions must not reach
 * the tool: MPI_Win_allocate and MPI_Win_free run allreduces and sends inside
 * libmpi, and MPI_Sendrecv or a direct PMPI_Send must not count either.
 */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

enum { T_INIT, T_SEND, T_ALLREDUCE, T_FINALIZE, T_BYTES_SENT, T_N };
#define N 1000

static const int *tool_counts(void)
{
    const int *(*get)(void) = (const int *(*)(void))dlsym(RTLD_DEFAULT, "pmpi_tool_counts");
    return get ? get() : NULL;
}

int main(int argc, char **argv)
{
    int with_tool = argc > 1 && !strcmp(argv[1], "tool");
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    testutil_rank = rank;
    const int *c = tool_counts();
    CHECK(with_tool ? c != NULL : c == NULL);

    /* A ring: receive from the left, MPI_Send to the right (one call). */
    static int out[N], in[N];
    for (int i = 0; i < N; i++)
        out[i] = rank * 100000 + i;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request rq;
    MPI_Irecv(in, N, MPI_INT, left, 7, MPI_COMM_WORLD, &rq);
    CHECK_EQ_INT(MPI_Send(out, N, MPI_INT, right, 7, MPI_COMM_WORLD), MPI_SUCCESS);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    for (int i = 0; i < N; i++)
        CHECK_EQ_INT(in[i], left * 100000 + i);

    /* Three reductions through the wrapper. */
    for (int k = 1; k <= 3; k++) {
        long v = (long)(rank + 1) * k, sum = -1;
        CHECK_EQ_INT(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_EQ_INT(sum, (long)k * size * (size + 1) / 2);
    }

    /* Calls that are not the wrapped ones, but use them inside the library. */
    double *base;
    MPI_Win win;
    MPI_Win_allocate(sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    MPI_Win_free(&win);
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, right, 8, &got, 1, MPI_INT, left, 8, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK_EQ_INT(got, left);
    /* The PMPI_ name calls the library directly, bypassing any tool. */
    MPI_Irecv(&got, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &rq);
    CHECK_EQ_INT(PMPI_Send(&token, 1, MPI_INT, right, 9, MPI_COMM_WORLD), MPI_SUCCESS);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(got, left);

    if (c) {
        CHECK_EQ_INT(c[T_INIT], 1);
        CHECK_EQ_INT(c[T_SEND], 1);
        CHECK_EQ_INT(c[T_BYTES_SENT], N * (int)sizeof(int));
        CHECK_EQ_INT(c[T_ALLREDUCE], 3);
        CHECK_EQ_INT(c[T_FINALIZE], 0);
    }
    MPI_Finalize();
    if (c)
        CHECK_EQ_INT(c[T_FINALIZE], 1);
    if (rank == 0)
        printf("pmpi_prog: passed on %d ranks (%s)\n", size, c ? "tool counted 1 init, 1 send, "
                                                              "3 allreduces, 1 finalize"
                                                            : "no tool");
    return 0;
}
