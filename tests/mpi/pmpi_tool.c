/*
 * pmpi_tool.c — a profiling tool as users write them: it defines MPI_Init,
 * MPI_Send, MPI_Allreduce and MPI_Finalize, counts each call and forwards it
 * to the library through the PMPI_ name.  Built as a shared library, used
 * either linked before libmpi or through LD_PRELOAD (pmpi_prog.c, pmpi_cases).
 * pmpi_tool_counts() lets the program see the counters (found by dlsym).
 */
#include <mpi.h>

enum { T_INIT, T_SEND, T_ALLREDUCE, T_FINALIZE, T_BYTES_SENT, T_N };
static int counts[T_N];

const int *pmpi_tool_counts(void) { return counts; }

int MPI_Init(int *argc, char ***argv)
{
    counts[T_INIT]++;
    return PMPI_Init(argc, argv);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    int size = 0;
    counts[T_SEND]++;
    if (PMPI_Type_size(datatype, &size) == MPI_SUCCESS)
        counts[T_BYTES_SENT] += count * size;
    return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    counts[T_ALLREDUCE]++;
    return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

int MPI_Finalize(void)
{
    counts[T_FINALIZE]++;
    return PMPI_Finalize();
}
