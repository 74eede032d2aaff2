/* p2p_errors — with MPI_ERRORS_RETURN every bad argument gives the right
 * class and a message naming the call and the values; truncation reports both
 * sizes and the job goes on; a user error handler is called. */
#include <stdio.h>

#include "mpitest.h"

static char last[MPI_MAX_ERROR_STRING];

/* Expect class cls from rc and a message containing want. */
#define EXPECT_ERR(call, cls, want)                                                   \
    do {                                                                              \
        int rc_ = (call);                                                             \
        int c_ = -1, len_;                                                            \
        MPI_Error_class(rc_, &c_);                                                    \
        MPI_Error_string(rc_, last, &len_);                                           \
        if (c_ != (cls) || !strstr(last, want))                                       \
            fprintf(stderr, "rank %d: %s -> class %d, \"%s\"\n", T_rank, #call, c_, last); \
        CHECK_EQ_INT(c_, cls);                                                        \
        CHECK(strstr(last, want) != NULL);                                            \
    } while (0)

static int handler_calls, handler_code;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int peer = test_partner();
    int x = 1;
    char want[256];
    MPI_Request r;
    MPI_Status st;

    snprintf(want, sizeof want, "MPI_Send: invalid rank %d (communicator size %d)", T_size, T_size);
    EXPECT_ERR(MPI_Send(&x, 1, MPI_INT, T_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK, want);
    EXPECT_ERR(MPI_Send(&x, 1, MPI_INT, -7, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "invalid rank -7");
    EXPECT_ERR(MPI_Send(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send");
    EXPECT_ERR(MPI_Irecv(&x, 1, MPI_INT, T_size + 3, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK, "MPI_Irecv: invalid rank");
    EXPECT_ERR(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send: invalid tag -5");
    EXPECT_ERR(MPI_Isend(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r), MPI_ERR_TAG, "MPI_Isend: invalid tag");
    EXPECT_ERR(MPI_Recv(&x, 1, MPI_INT, 0, -9, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "MPI_Recv: invalid tag -9");
    EXPECT_ERR(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send: invalid count -1");
    EXPECT_ERR(MPI_Ssend(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Ssend: invalid datatype MPI_DATATYPE_NULL");
    EXPECT_ERR(MPI_Send(&x, 1, (MPI_Datatype)MPI_COMM_WORLD, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "invalid datatype");
    EXPECT_ERR(MPI_Send(NULL, 5, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Send: NULL buffer with count 5");
    EXPECT_ERR(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send: invalid communicator MPI_COMM_NULL");
    EXPECT_ERR(MPI_Comm_size((MPI_Comm)MPI_INT, &x), MPI_ERR_COMM, "MPI_Comm_size: invalid communicator");
    EXPECT_ERR(MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK, "MPI_Send: invalid rank 1 (communicator size 1)");
    EXPECT_ERR(MPI_Isend(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "NULL request");
    MPI_Request nul = MPI_REQUEST_NULL;
    EXPECT_ERR(MPI_Request_free(&nul), MPI_ERR_REQUEST, "MPI_Request_free: request is MPI_REQUEST_NULL");
    static uint64_t junk[64]; /* not a request object */
    MPI_Request bogus = (MPI_Request)(void *)junk;
    EXPECT_ERR(MPI_Wait(&bogus, &st), MPI_ERR_REQUEST, "MPI_Wait: invalid request handle");
    EXPECT_ERR(MPI_Start(&bogus), MPI_ERR_REQUEST, "MPI_Start");
    EXPECT_ERR(MPI_Buffer_detach(&bogus, &x), MPI_ERR_BUFFER, "no buffer attached");
    EXPECT_ERR(MPI_Bsend(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bsend: attached buffer too small");
    MPI_Message msg = MPI_MESSAGE_NULL;
    EXPECT_ERR(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st), MPI_ERR_REQUEST, "MPI_Mrecv: invalid message handle");
    /* A wait on MPI_REQUEST_NULL is fine and gives an empty status. */
    CHECK_EQ_INT(MPI_Wait(&nul, &st), MPI_SUCCESS);
    CHECK_EQ_INT(st.MPI_SOURCE, MPI_ANY_SOURCE);

    /* Truncation, blocking (short, eager, rendezvous), then the job goes on. */
    static const int lens[] = {10, 3000, 200000};
    int *big = malloc(200000 * sizeof(int)), *in = malloc(200000 * sizeof(int));
    for (int i = 0; i < 200000; i++)
        big[i] = i;
    for (int k = 0; k < 3; k++) {
        int n = lens[k];
        MPI_Isend(big, n, MPI_INT, peer, 50 + k, MPI_COMM_WORLD, &r);
        snprintf(want, sizeof want, "MPI_Recv: message truncated: rank %d sent %zu bytes (tag %d), the receive buffer holds %zu bytes",
                 peer, (size_t)n * 4, 50 + k, (size_t)(n / 2) * 4);
        EXPECT_ERR(MPI_Recv(in, n / 2, MPI_INT, peer, 50 + k, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE, want);
        CHECK_EQ_INT(st.MPI_ERROR, MPI_ERR_TRUNCATE);
        CHECK_EQ_INT(in[n / 2 - 1], n / 2 - 1);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        /* Nonblocking: the error comes from MPI_Wait. */
        MPI_Request rr;
        MPI_Irecv(in, n / 3, MPI_INT, peer, 60 + k, MPI_COMM_WORLD, &rr);
        MPI_Send(big, n, MPI_INT, peer, 60 + k, MPI_COMM_WORLD);
        EXPECT_ERR(MPI_Wait(&rr, &st), MPI_ERR_TRUNCATE, "MPI_Wait: message truncated");
        CHECK(rr == MPI_REQUEST_NULL);
        /* Waitall reports MPI_ERR_IN_STATUS and the per-request error. */
        MPI_Request two[2];
        MPI_Status sts[2];
        MPI_Irecv(in, n, MPI_INT, peer, 70 + k, MPI_COMM_WORLD, &two[0]);
        int one;
        MPI_Irecv(&one, 1, MPI_INT, peer, 71 + k, MPI_COMM_WORLD, &two[1]);
        MPI_Send(big, n, MPI_INT, peer, 70 + k, MPI_COMM_WORLD);
        MPI_Send(big, 2, MPI_INT, peer, 71 + k, MPI_COMM_WORLD);
        EXPECT_ERR(MPI_Waitall(2, two, sts), MPI_ERR_IN_STATUS, "MPI_Waitall");
        CHECK_EQ_INT(sts[0].MPI_ERROR, MPI_SUCCESS);
        CHECK_EQ_INT(sts[1].MPI_ERROR, MPI_ERR_TRUNCATE);
    }
    /* The job goes on: a normal exchange still works. */
    int v = T_rank, w = -1;
    CHECK_EQ_INT(MPI_Sendrecv(&v, 1, MPI_INT, peer, 80, &w, 1, MPI_INT, peer, 80, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    CHECK_EQ_INT(w, peer);

    /* A user error handler is called with the class, then the call returns it. */
    MPI_Errhandler eh, got;
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    CHECK(got == eh);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh);
    CHECK(eh == MPI_ERRHANDLER_NULL);
    CHECK_EQ_INT(MPI_Send(&x, 1, MPI_INT, T_size + 1, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    CHECK_EQ_INT(handler_calls, 1);
    CHECK_EQ_INT(handler_code, MPI_ERR_RANK);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got);
    CHECK(got == MPI_ERRORS_RETURN);

    /* Class texts and version information. */
    int len, ver, sub, cls;
    MPI_Error_string(MPI_SUCCESS, last, &len);
    CHECK(strcmp(last, "no error") == 0);
    CHECK_EQ_INT(MPI_Error_class(MPI_ERR_TAG, &cls), MPI_SUCCESS);
    CHECK_EQ_INT(cls, MPI_ERR_TAG);
    MPI_Get_version(&ver, &sub);
    CHECK(ver == MPI_VERSION && sub == MPI_SUBVERSION);
    int init, fin, prov, main_;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    CHECK(init && !fin);
    MPI_Query_thread(&prov);
    CHECK_EQ_INT(prov, MPI_THREAD_SINGLE);
    MPI_Is_thread_main(&main_);
    CHECK(main_);
    CHECK(MPI_Wtick() > 0 && MPI_Wtick() < 1e-3);
    double t0 = MPI_Wtime();
    CHECK(MPI_Wtime() >= t0);
    void *mem;
    CHECK_EQ_INT(MPI_Alloc_mem(1000, MPI_INFO_NULL, &mem), MPI_SUCCESS);
    memset(mem, 1, 1000);
    CHECK_EQ_INT(MPI_Free_mem(mem), MPI_SUCCESS);
    EXPECT_ERR(MPI_Alloc_mem(-1, MPI_INFO_NULL, &mem), MPI_ERR_ARG, "MPI_Alloc_mem: invalid size -1");
    free(big);
    free(in);
    test_done("p2p_errors");
    MPI_Finalized(&fin);
    CHECK(fin);
    return 0;
}
