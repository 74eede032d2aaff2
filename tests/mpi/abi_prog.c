/*
 * abi_prog.c — one program for both directions of the standard-ABI test
 * (abi_cases.sh): compiled by MPICH 5's mpicc_abi it runs on Skiff's
 * libmpi_abi.so.1, compiled by Skiff's mpicc_abi it runs on MPICH's.  It
 * leans on the values the ABI fixes: predefined handles (communicators,
 * datatypes, ops, error handlers), MPI_Status fields, error classes,
 * attribute keys, and the MPI_Abi_* queries.  Rank 0 ends with
 * "abi_prog: N ranks passed, library <first line of the library version>".
 * Only standard C and MPI here: no Skiff helper.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank = -1;

#define CHECK(cond)                                                                              \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "abi_prog: rank %d: line %d: check failed: %s\n", rank, __LINE__,    \
                    #cond);                                                                      \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

static void check_abi_info(void)
{
    MPI_Info info;
    CHECK(MPI_Abi_get_info(&info) == MPI_SUCCESS && info != MPI_INFO_NULL);
    static const char *const keys[] = {"mpi_aint_size", "mpi_count_size", "mpi_offset_size"};
    const int sizes[] = {(int)sizeof(MPI_Aint), (int)sizeof(MPI_Count), (int)sizeof(MPI_Offset)};
    for (int k = 0; k < 3; k++) {
        char v[MPI_MAX_INFO_VAL];
        int flag = 0;
        CHECK(MPI_Info_get(info, keys[k], MPI_MAX_INFO_VAL - 1, v, &flag) == MPI_SUCCESS);
        CHECK(flag && atoi(v) == sizes[k]);
    }
    MPI_Info_free(&info);
}

int main(int argc, char **argv)
{
    int major = -1, minor = -1;
    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS); /* allowed before MPI_Init */
    CHECK(major == MPI_ABI_VERSION && minor == MPI_ABI_SUBVERSION);
    check_abi_info();
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* MPI_ERRORS_RETURN by value: an invalid rank must come back as MPI_ERR_RANK
     * (with MPI_ERRORS_ABORT's value instead, the job would end here). */
    MPI_Errhandler eh;
    CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
    CHECK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh) == MPI_SUCCESS && eh == MPI_ERRORS_RETURN);
    int x = 1, cls = -1;
    int rc = MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    CHECK(rc != MPI_SUCCESS && MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_RANK);
    rc = MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD);
    CHECK(MPI_Error_class(rc, &cls) == MPI_SUCCESS && cls == MPI_ERR_TYPE);

    /* Predefined attributes by key value. */
    int *val, flag = 0;
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag) == MPI_SUCCESS);
    CHECK(flag && *val >= 32767);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &val, &flag) == MPI_SUCCESS);
    CHECK(!flag || *val == 0);
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &val, &flag) == MPI_SUCCESS);
    CHECK(!flag || *val >= size);

    /* A ring with MPI_ANY_SOURCE: the status fields where the ABI puts them. */
    double out[5], in[5];
    for (int i = 0; i < 5; i++)
        out[i] = rank + i / 10.0;
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request rq;
    MPI_Status st;
    CHECK(MPI_Irecv(in, 5, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq) == 0);
    CHECK(MPI_Send(out, 4, MPI_DOUBLE, right, 100 + rank, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Wait(&rq, &st) == MPI_SUCCESS && rq == MPI_REQUEST_NULL);
    int count = -1;
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 100 + left);
    CHECK(MPI_Get_count(&st, MPI_DOUBLE, &count) == MPI_SUCCESS && count == 4);
    CHECK(in[3] == left + 0.3);
    CHECK(MPI_Sendrecv(out, 1, MPI_DOUBLE, MPI_PROC_NULL, 0, in, 1, MPI_DOUBLE, MPI_PROC_NULL, 0,
                       MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);

    /* Datatypes and ops. */
    long long s = rank + 1, sum = 0;
    CHECK(MPI_Allreduce(&s, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(sum == (long long)size * (size + 1) / 2);
    struct {
        int v, r;
    } mine = {rank % 3, rank}, best;
    CHECK(MPI_Allreduce(&mine, &best, 1, MPI_2INT, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(best.v == (size > 2 ? 2 : size - 1) && best.r == best.v);
    unsigned short bits = (unsigned short)(1u << (rank % 16));
    CHECK(MPI_Allreduce(MPI_IN_PLACE, &bits, 1, MPI_UNSIGNED_SHORT, MPI_BOR, MPI_COMM_WORLD) == 0);
    CHECK(bits == (size >= 16 ? 0xffff : (1u << size) - 1));
    int tsize = 0;
    CHECK(MPI_Type_size(MPI_INT64_T, &tsize) == MPI_SUCCESS && tsize == 8);
    CHECK(MPI_Type_size(MPI_C_DOUBLE_COMPLEX, &tsize) == MPI_SUCCESS && tsize == 16);

    /* Communicators: MPI_UNDEFINED gives MPI_COMM_NULL, comparisons. */
    MPI_Comm half, dup;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2 ? MPI_UNDEFINED : 0, rank, &half) == 0);
    CHECK((rank % 2 == 1) == (half == MPI_COMM_NULL));
    if (half != MPI_COMM_NULL)
        MPI_Comm_free(&half);
    int cmp = -1;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS);
    CHECK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp) == MPI_SUCCESS && cmp == MPI_CONGRUENT);
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL);
    CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    MPI_Finalize();
    CHECK(MPI_Abi_get_version(&major, &minor) == MPI_SUCCESS && major == 1); /* and after */
    if (rank == 0)
        printf("abi_prog: %d ranks passed, library %s\n", size, lib);
    return 0;
}
