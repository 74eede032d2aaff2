/* mpi4_isendrecv.c — MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0):
 * ring shifts of eager and rendezvous sizes and of a strided derived type,
 * every byte checked; statuses (source, tag, count); MPI_PROC_NULL on either
 * side; completion by MPI_Test polling and MPI_Waitall; error classes. */
#include "mpitest.h"

static const int sizes[] = {0, 1, 100, 4096, 70000, 1 << 20};

static void ring(int n, int round)
{
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    unsigned char *s = malloc((size_t)n + 1), *r = malloc((size_t)n + 1);
    fill(s, (size_t)n, (unsigned)(T_rank * 97 + round));
    memset(r, 0xee, (size_t)n + 1);
    MPI_Request req;
    CHECK(MPI_Isendrecv(s, n, MPI_BYTE, right, 7 + round, r, n + 1, MPI_BYTE, left, 7 + round,
                        MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    MPI_Status st;
    if (round & 1) {
        int flag = 0;
        while (!flag)
            CHECK(MPI_Test(&req, &flag, &st) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    }
    CHECK(req == MPI_REQUEST_NULL);
    CHECK_EQ_INT(st.MPI_SOURCE, left);
    CHECK_EQ_INT(st.MPI_TAG, 7 + round);
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_EQ_INT(count, n);
    CHECK_EQ_INT(verify(r, (size_t)n, (unsigned)(left * 97 + round)), -1);
    CHECK_EQ_INT(r[n], 0xee);

    /* replace: the same buffer goes out and comes back */
    fill(s, (size_t)n, (unsigned)(T_rank * 31 + round));
    CHECK(MPI_Isendrecv_replace(s, n, MPI_BYTE, left, 3, right, 3, MPI_COMM_WORLD, &req) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    CHECK_EQ_INT(st.MPI_SOURCE, right);
    CHECK_EQ_INT(verify(s, (size_t)n, (unsigned)(right * 31 + round)), -1);
    free(s);
    free(r);
}

/* A strided type: every other int of 2*n, replace and plain. */
static void strided(int n)
{
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    MPI_Datatype vec;
    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *a = malloc(sizeof(int) * 2 * (size_t)n), *b = malloc(sizeof(int) * 2 * (size_t)n);
    for (int i = 0; i < 2 * n; i++) {
        a[i] = T_rank * 1000000 + i;
        b[i] = -1;
    }
    MPI_Request req[2];
    CHECK(MPI_Isendrecv(a, 1, vec, right, 1, b, 1, vec, left, 1, MPI_COMM_WORLD, &req[0]) ==
          MPI_SUCCESS);
    MPI_Type_free(&vec); /* the operation keeps it alive */
    CHECK(MPI_Waitall(1, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < 2 * n; i++)
        CHECK_EQ_INT(b[i], i % 2 ? -1 : left * 1000000 + i);
    MPI_Type_vector(n, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    CHECK(MPI_Isendrecv_replace(a, 1, vec, left, 2, right, 2, MPI_COMM_WORLD, &req[1]) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&req[1], MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < 2 * n; i++)
        CHECK_EQ_INT(a[i], i % 2 ? T_rank * 1000000 + i : right * 1000000 + i);
    MPI_Type_free(&vec);
    free(a);
    free(b);
}

static void proc_null(void)
{
    int x = 5, y = -1;
    MPI_Request req;
    MPI_Status st;
    CHECK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
                        MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ_INT(y, -1);
    /* a self exchange with one side absent on each call */
    int me = T_rank;
    CHECK(MPI_Isendrecv(&x, 1, MPI_INT, me, 9, &y, 1, MPI_INT, MPI_PROC_NULL, 9, MPI_COMM_WORLD,
                        &req) == MPI_SUCCESS);
    MPI_Request req2;
    int z = -1;
    CHECK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 9, &z, 1, MPI_INT, me, 9, MPI_COMM_WORLD,
                        &req2) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_PROC_NULL);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_EQ_INT(count, 0);
    CHECK(MPI_Wait(&req2, &st) == MPI_SUCCESS);
    CHECK_EQ_INT(st.MPI_SOURCE, me);
    CHECK_EQ_INT(z, 5);
}

/* Cancelling the receive half, and freeing a request still in flight. */
static void cancel_free(void)
{
    int x = 1234 + T_rank, y = -1, z = -1;
    MPI_Request req;
    MPI_Status st;
    CHECK(MPI_Isendrecv(&x, 1, MPI_INT, T_rank, 50, &y, 1, MPI_INT, T_rank, 51, MPI_COMM_WORLD,
                        &req) == MPI_SUCCESS);
    CHECK(MPI_Cancel(&req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    int flag = 0;
    MPI_Test_cancelled(&st, &flag);
    CHECK(flag);
    CHECK_EQ_INT(y, -1);
    MPI_Recv(&z, 1, MPI_INT, T_rank, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(z, x);
    int w = -1;
    CHECK(MPI_Isendrecv(&x, 1, MPI_INT, T_rank, 60, &w, 1, MPI_INT, T_rank, 61, MPI_COMM_WORLD,
                        &req) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
    CHECK(req == MPI_REQUEST_NULL);
    int v = 99;
    MPI_Send(&v, 1, MPI_INT, T_rank, 61, MPI_COMM_WORLD);
    z = -1;
    MPI_Recv(&z, 1, MPI_INT, T_rank, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(z, x);
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x = 0, cls;
    MPI_Request req;
    int rc = MPI_Isendrecv(&x, 1, MPI_INT, T_size, 0, &x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_RANK);
    rc = MPI_Isendrecv(&x, 1, MPI_INT, 0, -5, &x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TAG);
    rc = MPI_Isendrecv(&x, -1, MPI_INT, 0, 0, &x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COUNT);
    rc = MPI_Isendrecv(&x, 1, MPI_INT, 0, 0, &x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Isendrecv_replace(&x, 1, MPI_DATATYPE_NULL, 0, 0, 0, 0, MPI_COMM_WORLD, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TYPE);
    rc = MPI_Isendrecv_replace(&x, 1, MPI_INT, 0, 0, 0, 0, MPI_COMM_NULL, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COMM);
    /* truncation shows at completion */
    int big[4] = {1, 2, 3, 4}, small[2];
    CHECK(MPI_Isendrecv(big, 4, MPI_INT, T_rank, 4, small, 2, MPI_INT, T_rank, 4, MPI_COMM_WORLD,
                        &req) == MPI_SUCCESS);
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    for (int round = 0; round < 4; round++)
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
            ring(sizes[i], round);
    strided(10);
    strided(100000);
    proc_null();
    cancel_free();
    errors();
    test_barrier();
    MPI_Finalize();
    return 0;
}
