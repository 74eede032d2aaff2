/* mpi4_queries.c — MPI 4.1's small calls: status accessors on a real
 * receive's status and on a status the program builds (a generalized-request
 * style use), MPI_Type_get_value_index (pairs usable with MPI_MAXLOC,
 * MPI_DATATYPE_NULL where none exists), MPI_Get_hw_resource_info; errors. */
#include <unistd.h>

#include "mpitest.h"

static void statuses(void)
{
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    int x = T_rank, y = -1, v;
    MPI_Status st;
    MPI_Sendrecv(&x, 1, MPI_INT, right, 40 + T_rank, &y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &st);
    CHECK(MPI_Status_get_source(&st, &v) == MPI_SUCCESS);
    CHECK_EQ_INT(v, left);
    CHECK(MPI_Status_get_tag(&st, &v) == MPI_SUCCESS);
    CHECK_EQ_INT(v, 40 + left);
    CHECK_EQ_INT(y, left);

    MPI_Status made;
    memset(&made, 0, sizeof made);
    CHECK(MPI_Status_set_source(&made, 3) == MPI_SUCCESS);
    CHECK(MPI_Status_set_tag(&made, 77) == MPI_SUCCESS);
    CHECK(MPI_Status_set_error(&made, MPI_ERR_TRUNCATE) == MPI_SUCCESS);
    CHECK(MPI_Status_set_elements(&made, MPI_INT, 5) == MPI_SUCCESS);
    CHECK_EQ_INT(made.MPI_SOURCE, 3);
    CHECK_EQ_INT(made.MPI_TAG, 77);
    CHECK(MPI_Status_get_error(&made, &v) == MPI_SUCCESS);
    CHECK_EQ_INT(v, MPI_ERR_TRUNCATE);
    int count;
    MPI_Get_count(&made, MPI_INT, &count);
    CHECK_EQ_INT(count, 5); /* the setters leave the count alone */

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Status_get_source(NULL, &v);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Status_get_tag(&st, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Status_set_error(NULL, 0);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void value_index(void)
{
    MPI_Datatype t;
    CHECK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(t == MPI_DOUBLE_INT);
    CHECK(MPI_Type_get_value_index(MPI_FLOAT, MPI_INT, &t) == MPI_SUCCESS && t == MPI_FLOAT_INT);
    CHECK(MPI_Type_get_value_index(MPI_LONG, MPI_INT, &t) == MPI_SUCCESS && t == MPI_LONG_INT);
    CHECK(MPI_Type_get_value_index(MPI_INT, MPI_INT, &t) == MPI_SUCCESS && t == MPI_2INT);
    CHECK(MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &t) == MPI_SUCCESS && t == MPI_SHORT_INT);
    CHECK(MPI_Type_get_value_index(MPI_LONG_DOUBLE, MPI_INT, &t) == MPI_SUCCESS &&
          t == MPI_LONG_DOUBLE_INT);
    CHECK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_LONG, &t) == MPI_SUCCESS);
    CHECK(t == MPI_DATATYPE_NULL);
    CHECK(MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &t) == MPI_SUCCESS);
    CHECK(t == MPI_DATATYPE_NULL);
    /* the pair it gives works with MAXLOC */
    struct {
        double v;
        int i;
    } in = {(double)(T_rank % 3), T_rank}, out;
    CHECK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t) == MPI_SUCCESS);
    MPI_Allreduce(&in, &out, 1, t, MPI_MAXLOC, MPI_COMM_WORLD);
    int want = T_size >= 3 ? 2 : T_size - 1;
    CHECK(out.v == (double)want);
    CHECK_EQ_INT(out.i, want);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &t);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TYPE);
    rc = MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void hw_info(void)
{
    MPI_Info hw;
    CHECK(MPI_Get_hw_resource_info(&hw) == MPI_SUCCESS);
    char v[256];
    int len = sizeof v, flag;
    CHECK(MPI_Info_get_string(hw, "mpi_hw_resource_type", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag && strcmp(v, "mpi_shared_memory") == 0);
    len = sizeof v;
    CHECK(MPI_Info_get_string(hw, "skiff_hw_cpus_online", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag);
    CHECK_EQ_INT(atol(v), sysconf(_SC_NPROCESSORS_ONLN));
    len = sizeof v;
    CHECK(MPI_Info_get_string(hw, "skiff_hw_cpus_allowed", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag && atoi(v) >= 1 && atol(v) <= sysconf(_SC_NPROCESSORS_CONF));
    len = sizeof v;
    CHECK(MPI_Info_get_string(hw, "skiff_hw_memory_bytes", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag && atoll(v) > 0);
    CHECK(MPI_Info_free(&hw) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Get_hw_resource_info(NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    statuses();
    value_index();
    hw_info();
    test_barrier();
    MPI_Finalize();
    return 0;
}
