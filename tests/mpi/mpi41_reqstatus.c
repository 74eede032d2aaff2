/* mpi41_reqstatus.c — MPI 4.1's MPI_Request_get_status_all/any/some: they
 * report completion and statuses like the Test forms but leave every request
 * allocated and active (a later MPI_Waitall still completes them and the data
 * is there); null and inactive persistent requests count as complete with an
 * empty status; MPI_STATUSES_IGNORE; a truncated receive gives
 * MPI_ERR_IN_STATUS with the status's MPI_ERR_TRUNCATE and is still there
 * for MPI_Wait; argument errors. */
#include "mpitest.h"

enum { TAG_EARLY = 1, TAG_LATE = 2, TAG_TRUNC = 3 };

static void results(void)
{
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    int early = -1, late = -1, out_early = 100 + T_rank, out_late = 200 + T_rank, pbuf;
    MPI_Request pers, reqs[4];
    MPI_Recv_init(&pbuf, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &pers); /* never started */
    reqs[0] = MPI_REQUEST_NULL;
    MPI_Irecv(&late, 1, MPI_INT, left, TAG_LATE, MPI_COMM_WORLD, &reqs[1]);
    MPI_Irecv(&early, 1, MPI_INT, left, TAG_EARLY, MPI_COMM_WORLD, &reqs[2]);
    reqs[3] = pers;
    MPI_Send(&out_early, 1, MPI_INT, right, TAG_EARLY, MPI_COMM_WORLD);

    int index = -5, flag = 0;
    MPI_Status st;
    while (!flag)
        CHECK(MPI_Request_get_status_any(4, reqs, &index, &flag, &st) == MPI_SUCCESS);
    CHECK_EQ_INT(index, 2);
    CHECK_EQ_INT(st.MPI_SOURCE, left);
    CHECK_EQ_INT(st.MPI_TAG, TAG_EARLY);
    CHECK_EQ_INT(early, 100 + left);
    CHECK(reqs[2] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL && reqs[3] == pers);
    /* asked again: the same request, still there */
    CHECK(MPI_Request_get_status_any(4, reqs, &index, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(flag && index == 2);

    MPI_Status sts[4];
    int outcount = -5, indices[4];
    CHECK(MPI_Request_get_status_some(4, reqs, &outcount, indices, sts) == MPI_SUCCESS);
    CHECK_EQ_INT(outcount, 1);
    CHECK_EQ_INT(indices[0], 2);
    CHECK_EQ_INT(sts[0].MPI_SOURCE, left);
    flag = 1;
    CHECK(MPI_Request_get_status_all(4, reqs, &flag, sts) == MPI_SUCCESS);
    CHECK_EQ_INT(flag, 0); /* the late receive is still pending */

    test_barrier(); /* everyone has seen its late receive pending */
    MPI_Send(&out_late, 1, MPI_INT, right, TAG_LATE, MPI_COMM_WORLD);
    flag = 0;
    while (!flag)
        CHECK(MPI_Request_get_status_all(4, reqs, &flag, sts) == MPI_SUCCESS);
    CHECK_EQ_INT(sts[1].MPI_SOURCE, left);
    CHECK_EQ_INT(sts[1].MPI_TAG, TAG_LATE);
    CHECK_EQ_INT(sts[2].MPI_TAG, TAG_EARLY);
    CHECK_EQ_INT(sts[0].MPI_SOURCE, MPI_ANY_SOURCE); /* null: empty status */
    CHECK_EQ_INT(sts[3].MPI_TAG, MPI_ANY_TAG);       /* inactive: empty status */
    int cnt = -1;
    MPI_Get_count(&sts[1], MPI_INT, &cnt);
    CHECK_EQ_INT(cnt, 1);
    CHECK_EQ_INT(late, 200 + left);
    CHECK(MPI_Request_get_status_all(4, reqs, &flag, MPI_STATUSES_IGNORE) == MPI_SUCCESS && flag);
    CHECK(MPI_Request_get_status_some(4, reqs, &outcount, indices, MPI_STATUSES_IGNORE) ==
          MPI_SUCCESS);
    CHECK_EQ_INT(outcount, 2);
    CHECK(indices[0] == 1 && indices[1] == 2);
    CHECK(reqs[1] != MPI_REQUEST_NULL && reqs[2] != MPI_REQUEST_NULL);
    /* the requests are still the caller's to complete */
    CHECK(MPI_Waitall(4, reqs, sts) == MPI_SUCCESS);
    CHECK(reqs[1] == MPI_REQUEST_NULL && reqs[2] == MPI_REQUEST_NULL && reqs[3] == pers);
    CHECK_EQ_INT(sts[1].MPI_TAG, TAG_LATE);
    MPI_Request_free(&pers);

    /* nothing active */
    MPI_Request none[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    CHECK(MPI_Request_get_status_any(2, none, &index, &flag, &st) == MPI_SUCCESS);
    CHECK(flag == 1 && index == MPI_UNDEFINED);
    CHECK(MPI_Request_get_status_some(2, none, &outcount, indices, sts) == MPI_SUCCESS);
    CHECK_EQ_INT(outcount, MPI_UNDEFINED);
    CHECK(MPI_Request_get_status_all(0, NULL, &flag, NULL) == MPI_SUCCESS && flag);
}

static void truncated(void)
{
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    int two[2] = {T_rank, T_rank}, one = -1, flag = 0, cls;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&one, 1, MPI_INT, left, TAG_TRUNC, MPI_COMM_WORLD, &r);
    MPI_Send(two, 2, MPI_INT, right, TAG_TRUNC, MPI_COMM_WORLD);
    int rc = MPI_SUCCESS;
    while (!flag)
        rc = MPI_Request_get_status_all(1, &r, &flag, &st);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_IN_STATUS);
    CHECK_EQ_INT(st.MPI_ERROR, MPI_ERR_TRUNCATE);
    CHECK(r != MPI_REQUEST_NULL);
    int index;
    rc = MPI_Request_get_status_any(1, &r, &index, &flag, &st);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE);
    CHECK(flag && index == 0 && r != MPI_REQUEST_NULL);
    rc = MPI_Wait(&r, &st);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE);
    CHECK(r == MPI_REQUEST_NULL);

    /* argument errors */
    static uint64_t junk[64]; /* memory that is no request */
    MPI_Request bad = (MPI_Request)(void *)junk, nul = MPI_REQUEST_NULL;
    int outcount, indices[1];
    MPI_Error_class(MPI_Request_get_status_all(-1, &nul, &flag, NULL), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COUNT);
    MPI_Error_class(MPI_Request_get_status_all(1, &nul, NULL, NULL), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Error_class(MPI_Request_get_status_any(1, NULL, &index, &flag, NULL), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Error_class(MPI_Request_get_status_any(1, &nul, NULL, &flag, NULL), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Error_class(MPI_Request_get_status_some(1, &nul, &outcount, NULL, NULL), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Error_class(MPI_Request_get_status_some(1, &bad,
                                                &outcount, indices, NULL),
                    &cls);
    CHECK_EQ_INT(cls, MPI_ERR_REQUEST);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    results();
    test_barrier();
    truncated();
    test_done("mpi41_reqstatus");
    return 0;
}
