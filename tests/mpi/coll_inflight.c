/* coll_inflight — many nonblocking collectives in flight at once on one
 * communicator, mixed with point-to-point traffic that uses MPI_ANY_SOURCE and
 * MPI_ANY_TAG on the same communicator (which must never see collective
 * messages), completed in an order different from the start order; blocking
 * collectives interleaved with pending nonblocking ones (MPI allows a blocking
 * collective while a nonblocking one is outstanding); MPI_Test polling and
 * refused MPI_Request_free/MPI_Cancel of an active collective; plus error classes of bad arguments. */
#include "mpitest.h"

#define ROUNDS 20
#define N 64

static int V(int r, int i) { return r * 1009 + i; }

static void mixed_round(int round)
{
    int P = T_size, me = T_rank;
    MPI_Request rq[16];
    int nr = 0;
    int bc[N], ar_in[N], ar[N], sc[N], ex[N];
    int *ag = malloc((size_t)P * (N / 8) * sizeof(int));
    int *a2a_s = malloc((size_t)P * 4 * sizeof(int)), *a2a_r = malloc((size_t)P * 4 * sizeof(int));
    CHECK(a2a_s && a2a_r && ag);
    int root = round % P;
    for (int i = 0; i < N; i++) {
        bc[i] = me == root ? V(round, i) : -1;
        ar_in[i] = V(me, i);
    }
    for (int i = 0; i < P * 4; i++)
        a2a_s[i] = V(me * P + i / 4, round);
    /* point-to-point ring with wildcards, posted before the collectives */
    int token_in = -1, token_out = me * 100 + round;
    MPI_Request p2p[2];
    MPI_Irecv(&token_in, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &p2p[0]);
    CHECK_EQ_INT(MPI_Ibcast(bc, N, MPI_INT, root, MPI_COMM_WORLD, &rq[nr++]), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Iallreduce(ar_in, ar, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[nr++]), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Ibarrier(MPI_COMM_WORLD, &rq[nr++]), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Iallgather(ar_in, N / 8, MPI_INT, ag, N / 8, MPI_INT, MPI_COMM_WORLD, &rq[nr++]),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Ialltoall(a2a_s, 4, MPI_INT, a2a_r, 4, MPI_INT, MPI_COMM_WORLD, &rq[nr++]),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Iscan(ar_in, sc, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[nr++]), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Iexscan(ar_in, ex, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq[nr++]), MPI_SUCCESS);
    MPI_Isend(&token_out, 1, MPI_INT, (me + 1) % P, round, MPI_COMM_WORLD, &p2p[1]);
    /* a blocking collective while the others are pending */
    int sum = 0, one = 1;
    CHECK_EQ_INT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_EQ_INT(sum, P);
    /* poll some with MPI_Test, then wait for the rest in reverse order */
    for (int spins = 0; spins < 100; spins++) {
        int flag;
        MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE);
        if (flag)
            break;
    }
    for (int i = nr - 1; i >= 0; i--)
        CHECK_EQ_INT(MPI_Wait(&rq[i], MPI_STATUS_IGNORE), MPI_SUCCESS);
    MPI_Status st;
    MPI_Wait(&p2p[0], &st);
    MPI_Wait(&p2p[1], MPI_STATUS_IGNORE);
    int left = (me - 1 + P) % P;
    CHECK_EQ_INT(st.MPI_SOURCE, left);
    CHECK_EQ_INT(st.MPI_TAG, round);
    CHECK_EQ_INT(token_in, left * 100 + round);
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(bc[i], V(round, i));
        int s = 0, pre = 0, mx = -1;
        for (int q = 0; q < P; q++) {
            s += V(q, i);
            if (q <= me)
                pre += V(q, i);
            if (q < me)
                mx = V(q, i);
        }
        CHECK_EQ_INT(ar[i], s);
        CHECK_EQ_INT(sc[i], pre);
        if (me > 0)
            CHECK_EQ_INT(ex[i], mx);
    }
    for (int q = 0; q < P; q++)
        for (int i = 0; i < N / 8; i++)
            CHECK_EQ_INT(ag[q * (N / 8) + i], V(q, i));
    for (int i = 0; i < P * 4; i++)
        CHECK_EQ_INT(a2a_r[i], V((i / 4) * P + me, round));
    free(a2a_s);
    free(a2a_r);
    free(ag);
}

/* Freeing or cancelling an active nonblocking collective is erroneous (MPI 3.1
 * section 5.12): both are refused with MPI_ERR_REQUEST and the request stays
 * usable, so the collective still completes with the right result. */
static void freed_request(void)
{
    MPI_Request rq;
    int x = T_rank, y = -1;
    CHECK_EQ_INT(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &rq), MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int flag = 0;
    MPI_Test(&rq, &flag, MPI_STATUS_IGNORE);
    if (!flag) {
        CHECK_EQ_INT(MPI_Request_free(&rq), MPI_ERR_REQUEST);
        CHECK_EQ_INT(MPI_Cancel(&rq), MPI_ERR_REQUEST);
        CHECK(rq != MPI_REQUEST_NULL);
        CHECK_EQ_INT(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_SUCCESS);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK(rq == MPI_REQUEST_NULL);
    CHECK_EQ_INT(y, T_size - 1);
    CHECK_EQ_INT(MPI_Barrier(MPI_COMM_WORLD), MPI_SUCCESS);
}

static void bad_arguments(void)
{
    int x = 0, y = 0;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Bcast(&x, 1, MPI_INT, T_size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    CHECK_EQ_INT(MPI_Bcast(&x, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_EQ_INT(MPI_Allreduce(&x, &y, 1, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Allreduce(&x, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_EQ_INT(MPI_Allreduce(&x, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK_EQ_INT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Ibarrier(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Reduce(&x, &y, 1, MPI_INT, MPI_SUM, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    CHECK_EQ_INT(MPI_Allgatherv(&x, 1, MPI_INT, &y, NULL, NULL, MPI_INT, MPI_COMM_WORLD), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Reduce_scatter_block(&x, &y, -2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    for (int round = 0; round < ROUNDS; round++)
        mixed_round(round);
    freed_request();
    bad_arguments();
    test_done("coll_inflight");
    return 0;
}
