/* api_grequest.c — generalized requests: completed on the same thread before
 * the wait, and from another thread while this one waits in MPI_Wait,
 * MPI_Waitall (mixed with a real receive), MPI_Waitany, MPI_Waitsome; the
 * Test forms; status and count from query_fn, free_fn after it, MPI_Cancel's
 * cancel_fn with its complete flag, MPI_Request_get_status, MPI_Request_free
 * before completion, errors returned by query_fn. */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "mpitest.h"

typedef struct job {
    int id;
    int queries, frees, cancels, cancel_complete;
    int query_rc, free_rc;
    int delay_ms; /* worker thread waits this long before completing */
    MPI_Request req;    /* the application's handle (MPI_REQUEST_NULL once freed) */
    MPI_Request handle; /* what the worker completes: the same, never cleared */
} job_t;

static int query_fn(void *extra, MPI_Status *st)
{
    job_t *j = extra;
    j->queries++;
    st->MPI_SOURCE = 1000 + j->id;
    st->MPI_TAG = 2000 + j->id;
    MPI_Status_set_elements(st, MPI_INT, 10 + j->id);
    MPI_Status_set_cancelled(st, 0);
    return j->query_rc;
}

static int free_fn(void *extra)
{
    ((job_t *)extra)->frees++;
    return ((job_t *)extra)->free_rc;
}

static int cancel_fn(void *extra, int complete)
{
    job_t *j = extra;
    j->cancels++;
    j->cancel_complete = complete;
    return MPI_SUCCESS;
}

static void start(job_t *j, int id)
{
    memset(j, 0, sizeof *j);
    j->id = id;
    CHECK_EQ_INT(MPI_Grequest_start(query_fn, free_fn, cancel_fn, j, &j->req), MPI_SUCCESS);
    CHECK(j->req != MPI_REQUEST_NULL);
    j->handle = j->req;
}

static void check_status(const MPI_Status *st, int id)
{
    CHECK_EQ_INT(st->MPI_SOURCE, 1000 + id);
    CHECK_EQ_INT(st->MPI_TAG, 2000 + id);
    int n = -1, cancelled = -1;
    MPI_Get_count(st, MPI_INT, &n);
    CHECK_EQ_INT(n, 10 + id);
    MPI_Test_cancelled(st, &cancelled);
    CHECK_EQ_INT(cancelled, 0);
}

static void *worker(void *arg)
{
    job_t *j = arg;
    struct timespec ts = {0, (long)j->delay_ms * 1000000L};
    nanosleep(&ts, NULL);
    CHECK_EQ_INT(MPI_Grequest_complete(j->handle), MPI_SUCCESS);
    return NULL;
}

static pthread_t complete_later(job_t *j, int delay_ms)
{
    pthread_t t;
    j->delay_ms = delay_ms;
    CHECK_EQ_INT(pthread_create(&t, NULL, worker, j), 0);
    return t;
}

static void same_thread(void)
{
    job_t j;
    MPI_Status st;
    int flag = -1;

    /* Test before completion: not done, no callback */
    start(&j, 1);
    CHECK_EQ_INT(MPI_Test(&j.req, &flag, &st), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 0);
    CHECK_EQ_INT(j.queries + j.frees, 0);
    CHECK_EQ_INT(MPI_Request_get_status(j.req, &flag, &st), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 0);
    /* cancel before completion: complete = 0 */
    CHECK_EQ_INT(MPI_Cancel(&j.req), MPI_SUCCESS);
    CHECK_EQ_INT(j.cancels, 1);
    CHECK_EQ_INT(j.cancel_complete, 0);
    CHECK_EQ_INT(MPI_Grequest_complete(j.req), MPI_SUCCESS);
    /* get_status: query only, the request stays */
    CHECK_EQ_INT(MPI_Request_get_status(j.req, &flag, &st), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 1);
    CHECK_EQ_INT(j.queries, 1);
    CHECK_EQ_INT(j.frees, 0);
    check_status(&st, 1);
    /* cancel after completion: complete = 1 */
    CHECK_EQ_INT(MPI_Cancel(&j.req), MPI_SUCCESS);
    CHECK_EQ_INT(j.cancel_complete, 1);
    CHECK_EQ_INT(MPI_Test(&j.req, &flag, &st), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 1);
    CHECK(j.req == MPI_REQUEST_NULL);
    CHECK_EQ_INT(j.queries, 2);
    CHECK_EQ_INT(j.frees, 1);
    check_status(&st, 1);

    /* MPI_Wait with MPI_STATUS_IGNORE: query_fn still gets a status */
    start(&j, 2);
    MPI_Grequest_complete(j.req);
    CHECK_EQ_INT(MPI_Wait(&j.req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    CHECK_EQ_INT(j.queries, 1);
    CHECK_EQ_INT(j.frees, 1);

    /* freed before completion: free_fn runs at completion, query_fn never */
    start(&j, 3);
    MPI_Request h = j.req;
    CHECK_EQ_INT(MPI_Request_free(&j.req), MPI_SUCCESS);
    CHECK(j.req == MPI_REQUEST_NULL);
    CHECK_EQ_INT(j.frees, 0);
    CHECK_EQ_INT(MPI_Grequest_complete(h), MPI_SUCCESS);
    CHECK_EQ_INT(j.frees, 1);
    CHECK_EQ_INT(j.queries, 0);
    /* freed after completion: free_fn at once */
    start(&j, 4);
    MPI_Grequest_complete(j.req);
    CHECK_EQ_INT(MPI_Request_free(&j.req), MPI_SUCCESS);
    CHECK_EQ_INT(j.frees, 1);
    CHECK_EQ_INT(j.queries, 0);

    /* Testall / Testany / Testsome over several */
    job_t k[3];
    MPI_Request reqs[3];
    MPI_Status sts[3];
    for (int i = 0; i < 3; i++) {
        start(&k[i], 10 + i);
        reqs[i] = k[i].req;
    }
    CHECK_EQ_INT(MPI_Testall(3, reqs, &flag, sts), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 0);
    int idx = -1, outcount = -1, indices[3];
    CHECK_EQ_INT(MPI_Testany(3, reqs, &idx, &flag, &st), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 0);
    CHECK_EQ_INT(idx, MPI_UNDEFINED);
    MPI_Grequest_complete(reqs[1]);
    CHECK_EQ_INT(MPI_Testany(3, reqs, &idx, &flag, &st), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 1);
    CHECK_EQ_INT(idx, 1);
    check_status(&st, 11);
    CHECK(reqs[1] == MPI_REQUEST_NULL);
    CHECK_EQ_INT(MPI_Testsome(3, reqs, &outcount, indices, sts), MPI_SUCCESS);
    CHECK_EQ_INT(outcount, 0);
    MPI_Grequest_complete(reqs[2]);
    MPI_Grequest_complete(reqs[0]);
    CHECK_EQ_INT(MPI_Testsome(3, reqs, &outcount, indices, sts), MPI_SUCCESS);
    CHECK_EQ_INT(outcount, 2);
    CHECK_EQ_INT(indices[0], 0);
    CHECK_EQ_INT(indices[1], 2);
    check_status(&sts[0], 10);
    check_status(&sts[1], 12);
    for (int i = 0; i < 3; i++)
        CHECK(k[i].queries == 1 && k[i].frees == 1);
    for (int i = 0; i < 3; i++) {
        start(&k[i], 20 + i);
        reqs[i] = k[i].req;
        MPI_Grequest_complete(reqs[i]);
    }
    CHECK_EQ_INT(MPI_Testall(3, reqs, &flag, sts), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 1);
    for (int i = 0; i < 3; i++)
        check_status(&sts[i], 20 + i);

    /* query_fn's error: MPI_Wait returns it, MPI_Waitall says MPI_ERR_IN_STATUS
     * and puts it in that request's status */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    start(&j, 5);
    j.query_rc = MPI_ERR_OTHER;
    MPI_Grequest_complete(j.req);
    CHECK_EQ_INT(MPI_Wait(&j.req, &st), MPI_ERR_OTHER);
    CHECK(j.req == MPI_REQUEST_NULL);
    CHECK_EQ_INT(j.frees, 1);
    for (int i = 0; i < 2; i++) {
        start(&k[i], 30 + i);
        reqs[i] = k[i].req;
        MPI_Grequest_complete(reqs[i]);
    }
    k[1].query_rc = MPI_ERR_INTERN;
    CHECK_EQ_INT(MPI_Waitall(2, reqs, sts), MPI_ERR_IN_STATUS);
    CHECK_EQ_INT(sts[0].MPI_ERROR, MPI_SUCCESS);
    CHECK_EQ_INT(sts[1].MPI_ERROR, MPI_ERR_INTERN);
    CHECK(k[0].frees == 1 && k[1].frees == 1);
    /* free_fn's error: the same, in MPI_Wait and in MPI_Testall's status */
    start(&j, 7);
    j.free_rc = MPI_ERR_UNKNOWN;
    MPI_Grequest_complete(j.req);
    CHECK_EQ_INT(MPI_Wait(&j.req, &st), MPI_ERR_UNKNOWN);
    check_status(&st, 7);
    for (int i = 0; i < 2; i++) {
        start(&k[i], 32 + i);
        reqs[i] = k[i].req;
        MPI_Grequest_complete(reqs[i]);
    }
    k[0].free_rc = MPI_ERR_UNKNOWN;
    CHECK_EQ_INT(MPI_Testall(2, reqs, &flag, sts), MPI_ERR_IN_STATUS);
    CHECK_EQ_INT(flag, 1);
    CHECK_EQ_INT(sts[0].MPI_ERROR, MPI_ERR_UNKNOWN);
    CHECK_EQ_INT(sts[1].MPI_ERROR, MPI_SUCCESS);
    check_status(&sts[1], 33);
    /* what is refused */
    start(&j, 6);
    MPI_Grequest_complete(j.req);
    CHECK_EQ_INT(MPI_Grequest_complete(j.req), MPI_ERR_REQUEST); /* twice */
    MPI_Wait(&j.req, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    MPI_Request other;
    int buf = 0;
    MPI_Irecv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &other);
    CHECK_EQ_INT(MPI_Grequest_complete(other), MPI_ERR_REQUEST); /* not a generalized one */
    MPI_Wait(&other, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(MPI_Grequest_start(NULL, free_fn, cancel_fn, NULL, &other), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, NULL), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void other_thread(void)
{
    job_t j, k[3];
    MPI_Status st, sts[4];
    MPI_Request reqs[4];

    /* MPI_Wait while a worker completes it */
    start(&j, 40);
    pthread_t t = complete_later(&j, 20);
    CHECK_EQ_INT(MPI_Wait(&j.req, &st), MPI_SUCCESS);
    pthread_join(t, NULL);
    check_status(&st, 40);
    CHECK(j.queries == 1 && j.frees == 1);

    /* MPI_Waitall over grequests and a real message from the left neighbour */
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    int out = T_rank * 3 + 1, in = -1;
    pthread_t ts[3];
    for (int i = 0; i < 3; i++) {
        start(&k[i], 50 + i);
        reqs[i] = k[i].req;
    }
    MPI_Irecv(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[3]);
    for (int i = 0; i < 3; i++)
        ts[i] = complete_later(&k[i], 5 * (3 - i));
    MPI_Send(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD);
    CHECK_EQ_INT(MPI_Waitall(4, reqs, sts), MPI_SUCCESS);
    for (int i = 0; i < 3; i++) {
        pthread_join(ts[i], NULL);
        check_status(&sts[i], 50 + i);
        CHECK(reqs[i] == MPI_REQUEST_NULL && k[i].frees == 1);
    }
    CHECK_EQ_INT(in, left * 3 + 1);
    CHECK_EQ_INT(sts[3].MPI_SOURCE, left);

    /* MPI_Waitany: the one the worker completes */
    for (int i = 0; i < 3; i++) {
        start(&k[i], 60 + i);
        reqs[i] = k[i].req;
    }
    t = complete_later(&k[2], 10);
    int idx = -1;
    CHECK_EQ_INT(MPI_Waitany(3, reqs, &idx, &st), MPI_SUCCESS);
    pthread_join(t, NULL);
    CHECK_EQ_INT(idx, 2);
    check_status(&st, 62);
    /* MPI_Waitsome: both others, completed by two workers */
    ts[0] = complete_later(&k[0], 10);
    ts[1] = complete_later(&k[1], 1);
    int done = 0, outcount, indices[3];
    while (done < 2) {
        CHECK_EQ_INT(MPI_Waitsome(3, reqs, &outcount, indices, sts), MPI_SUCCESS);
        CHECK(outcount >= 1 && outcount <= 2);
        for (int i = 0; i < outcount; i++)
            check_status(&sts[i], 60 + indices[i]);
        done += outcount;
    }
    CHECK_EQ_INT(MPI_Waitsome(3, reqs, &outcount, indices, sts), MPI_SUCCESS);
    CHECK_EQ_INT(outcount, MPI_UNDEFINED);
    pthread_join(ts[0], NULL);
    pthread_join(ts[1], NULL);

    /* freed by this thread, completed by the worker: free_fn runs there */
    start(&j, 70);
    t = complete_later(&j, 5);
    CHECK_EQ_INT(MPI_Request_free(&j.req), MPI_SUCCESS);
    pthread_join(t, NULL);
    CHECK_EQ_INT(j.frees, 1);
    CHECK_EQ_INT(j.queries, 0);

    /* MPI_Test polled until the worker completes it */
    start(&j, 80);
    t = complete_later(&j, 5);
    int flag = 0;
    while (!flag)
        CHECK_EQ_INT(MPI_Test(&j.req, &flag, &st), MPI_SUCCESS);
    pthread_join(t, NULL);
    check_status(&st, 80);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    same_thread();
    other_thread();
    test_done("api_grequest");
    return 0;
}
