// header_cxx — mpi.h is usable from C++17: it compiles warning-free with
// -Wall -Wextra -Werror, handles keep the standard ABI values, and a small
// program built with mpicxx runs (self-send over MPI_COMM_SELF).
#include <mpi.h>

#include <cstdint>
#include <cstdio>

static_assert(sizeof(MPI_Status) == 8 * sizeof(int), "MPI_Status is 8 ints");
static_assert(sizeof(MPI_Aint) == sizeof(intptr_t), "MPI_Aint is intptr_t");
static_assert(sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8, "64-bit counts");

int main(int argc, char **argv)
{
    if (reinterpret_cast<uintptr_t>(MPI_COMM_WORLD) != 0x101 ||
        reinterpret_cast<uintptr_t>(MPI_INT) != 0x209 ||
        MPI_ANY_SOURCE != -1 || MPI_PROC_NULL != -3 || MPI_ANY_TAG != -2) {
        std::fprintf(stderr, "header_cxx: a predefined value is not the standard ABI's\n");
        return 1;
    }
    MPI_Init(&argc, &argv);
    int out = 1234, in = 0;
    MPI_Status st;
    MPI_Sendrecv(&out, 1, MPI_INT, 0, 1, &in, 1, MPI_INT, 0, 1, MPI_COMM_SELF, &st);
    MPI_Finalize();
    if (in != out) {
        std::fprintf(stderr, "header_cxx: got %d\n", in);
        return 1;
    }
    std::printf("header_cxx: passed\n");
    return 0;
}
