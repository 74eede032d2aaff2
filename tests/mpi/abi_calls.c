/*
 * abi_calls.c — the MPI 5.0 ABI query calls in Skiff: MPI_Abi_get_version
 * and MPI_Abi_get_info before MPI_Init, after it and after MPI_Finalize; the
 * Fortran registration (nothing known until a Fortran layer sets it, then a
 * copy of what was set; only the first setting counts, later ones fail with
 * MPI_ERR_ABI); argument errors.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static void expect_info(MPI_Info info, const char *key, const char *value)
{
    char v[MPI_MAX_INFO_VAL];
    int flag = 0;
    CHECK_EQ_INT(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, v, &flag), MPI_SUCCESS);
    CHECK(flag);
    CHECK(!strcmp(v, value));
}

static void check_version_and_info(void)
{
    int major = -1, minor = -1, nkeys = 0;
    CHECK_EQ_INT(MPI_Abi_get_version(&major, &minor), MPI_SUCCESS);
    CHECK_EQ_INT(major, 1);
    CHECK_EQ_INT(minor, 0);
    MPI_Info info = MPI_INFO_NULL;
    CHECK_EQ_INT(MPI_Abi_get_info(&info), MPI_SUCCESS);
    CHECK(info != MPI_INFO_NULL);
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK_EQ_INT(nkeys, 3);
    expect_info(info, "mpi_aint_size", sizeof(MPI_Aint) == 8 ? "8" : "4");
    expect_info(info, "mpi_count_size", "8");
    expect_info(info, "mpi_offset_size", "8");
    MPI_Info_free(&info);
}

static int error_class(int rc)
{
    int cls = -1;
    CHECK(rc != MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Error_class(rc, &cls), MPI_SUCCESS);
    return cls;
}

int main(int argc, char **argv)
{
    check_version_and_info();
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    testutil_rank = rank;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    check_version_and_info();

    /* Fortran information: unknown, then what was registered, once. */
    MPI_Info f = (MPI_Info)0x1234, set;
    CHECK_EQ_INT(MPI_Abi_get_fortran_info(&f), MPI_SUCCESS);
    CHECK(f == MPI_INFO_NULL);
    MPI_Info_create(&set);
    MPI_Info_set(set, "mpi_integer_size", "8");
    MPI_Info_set(set, "mpi_logical_size", "4");
    CHECK_EQ_INT(MPI_Abi_set_fortran_info(set), MPI_SUCCESS);
    MPI_Info_set(set, "mpi_integer_size", "4"); /* the library keeps its own copy */
    CHECK_EQ_INT(error_class(MPI_Abi_set_fortran_info(set)), MPI_ERR_ABI);
    MPI_Info_free(&set);
    CHECK_EQ_INT(MPI_Abi_get_fortran_info(&f), MPI_SUCCESS);
    CHECK(f != MPI_INFO_NULL);
    expect_info(f, "mpi_integer_size", "8");
    expect_info(f, "mpi_logical_size", "4");
    MPI_Info_free(&f);
    CHECK_EQ_INT(error_class(MPI_Abi_set_fortran_info(MPI_INFO_NULL)), MPI_ERR_INFO);

    /* LOGICAL values, per size. */
    int t4 = 1, f4 = 0, gt = 7, gf = 7, is_set = -1;
    CHECK_EQ_INT(MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set), MPI_SUCCESS);
    CHECK_EQ_INT(is_set, 0);
    CHECK(gt == 7 && gf == 7);
    CHECK_EQ_INT(MPI_Abi_set_fortran_booleans(4, &t4, &f4), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set), MPI_SUCCESS);
    CHECK(is_set == 1 && gt == 1 && gf == 0);
    int minus_one = -1;
    CHECK_EQ_INT(error_class(MPI_Abi_set_fortran_booleans(4, &minus_one, &f4)), MPI_ERR_ABI);
    CHECK_EQ_INT(MPI_Abi_get_fortran_booleans(4, &gt, &gf, &is_set), MPI_SUCCESS);
    CHECK_EQ_INT(gt, 1);
    char c1 = 'T', c0 = 'F', g1 = 0, g0 = 0;
    CHECK_EQ_INT(MPI_Abi_get_fortran_booleans(1, &g1, &g0, &is_set), MPI_SUCCESS);
    CHECK_EQ_INT(is_set, 0);
    CHECK_EQ_INT(MPI_Abi_set_fortran_booleans(1, &c1, &c0), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Abi_get_fortran_booleans(1, &g1, &g0, &is_set), MPI_SUCCESS);
    CHECK(is_set == 1 && g1 == 'T' && g0 == 'F');

    /* Argument errors. */
    CHECK_EQ_INT(error_class(MPI_Abi_get_fortran_booleans(3, &gt, &gf, &is_set)), MPI_ERR_ARG);
    CHECK_EQ_INT(error_class(MPI_Abi_get_fortran_booleans(4, &gt, &gf, NULL)), MPI_ERR_ARG);
    CHECK_EQ_INT(error_class(MPI_Abi_set_fortran_booleans(8, &t4, NULL)), MPI_ERR_ARG);
    long long same = 5;
    CHECK_EQ_INT(error_class(MPI_Abi_set_fortran_booleans(8, &same, &same)), MPI_ERR_ARG);
    CHECK_EQ_INT(error_class(MPI_Abi_get_version(NULL, &is_set)), MPI_ERR_ARG);
    CHECK_EQ_INT(error_class(MPI_Abi_get_info(NULL)), MPI_ERR_ARG);
    CHECK_EQ_INT(error_class(MPI_Abi_get_fortran_info(NULL)), MPI_ERR_ARG);
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    CHECK_EQ_INT(MPI_Error_string(MPI_ERR_ABI, msg, &len), MPI_SUCCESS);
    CHECK(len > 0);

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    check_version_and_info(); /* "at any time" */
    if (rank == 0)
        printf("abi_calls: passed\n");
    return 0;
}
