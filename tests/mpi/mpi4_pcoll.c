/* mpi4_pcoll.c — persistent collectives (MPI 4.0 MPI_*_init): each one is
 * initialised once and started many times with new buffer contents every
 * round, results checked against serial references computed here, for every
 * root; MPI_Start/MPI_Startall, MPI_Wait/MPI_Test/MPI_Waitall, the request
 * inactive (and still valid) after completion, freed inactive; neighbourhood
 * forms on a periodic ring; error classes for bad arguments at init. */
#include "mpitest.h"

#define ROUNDS 6
#define N 37 /* elements per block: odd, so nothing lines up by accident */

static int val(int rank, int i, int round) { return rank * 1000 + i * 7 + round * 100003; }

/* Complete req by one of several ways, then check it is inactive, not freed. */
static void complete(MPI_Request *req, int round)
{
    MPI_Request keep = *req;
    if (round % 3 == 0) {
        CHECK(MPI_Wait(req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else if (round % 3 == 1) {
        int flag = 0;
        while (!flag)
            CHECK(MPI_Test(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Waitall(1, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    }
    CHECK(*req == keep); /* persistent: the handle stays */
    int flag = 0;
    CHECK(MPI_Test(req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS); /* inactive: complete at once */
    CHECK(flag);
}

static void rooted(int root)
{
    int n = T_size;
    int *sb = malloc(sizeof(int) * N * (size_t)n), *rb = malloc(sizeof(int) * N * (size_t)n);
    int *bb = malloc(sizeof(int) * N);
    MPI_Request req[4];
    CHECK(MPI_Bcast_init(bb, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]) ==
          MPI_SUCCESS);
    CHECK(MPI_Reduce_init(sb, rb, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req[1]) == MPI_SUCCESS);
    CHECK(MPI_Gather_init(sb, N, MPI_INT, rb, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                          &req[2]) == MPI_SUCCESS);
    CHECK(MPI_Scatter_init(sb, N, MPI_INT, rb, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &req[3]) == MPI_SUCCESS);
    for (int round = 0; round < ROUNDS; round++) {
        /* bcast */
        for (int i = 0; i < N; i++)
            bb[i] = T_rank == root ? val(root, i, round) : -1;
        CHECK(MPI_Start(&req[0]) == MPI_SUCCESS);
        complete(&req[0], round);
        for (int i = 0; i < N; i++)
            CHECK_EQ_INT(bb[i], val(root, i, round));
        /* reduce */
        for (int i = 0; i < N; i++) {
            sb[i] = val(T_rank, i, round);
            rb[i] = -1;
        }
        CHECK(MPI_Start(&req[1]) == MPI_SUCCESS);
        complete(&req[1], round);
        if (T_rank == root)
            for (int i = 0; i < N; i++) {
                int want = 0;
                for (int r = 0; r < n; r++)
                    want += val(r, i, round);
                CHECK_EQ_INT(rb[i], want);
            }
        /* gather */
        for (int i = 0; i < N * n; i++)
            rb[i] = -1;
        CHECK(MPI_Start(&req[2]) == MPI_SUCCESS);
        complete(&req[2], round);
        if (T_rank == root)
            for (int r = 0; r < n; r++)
                for (int i = 0; i < N; i++)
                    CHECK_EQ_INT(rb[r * N + i], val(r, i, round));
        /* scatter */
        for (int i = 0; i < N * n; i++)
            sb[i] = T_rank == root ? val(i / N, i % N, round + 7) : -2;
        for (int i = 0; i < N; i++)
            rb[i] = -1;
        CHECK(MPI_Start(&req[3]) == MPI_SUCCESS);
        complete(&req[3], round);
        for (int i = 0; i < N; i++)
            CHECK_EQ_INT(rb[i], val(T_rank, i, round + 7));
    }
    for (int k = 0; k < 4; k++) {
        CHECK(MPI_Request_free(&req[k]) == MPI_SUCCESS);
        CHECK(req[k] == MPI_REQUEST_NULL);
    }
    free(sb);
    free(rb);
    free(bb);
}

/* Rootless ones started together with MPI_Startall, many rounds. */
static void rootless(void)
{
    int n = T_size;
    size_t all = (size_t)N * (size_t)n;
    int *as = malloc(sizeof(int) * all), *ar = malloc(sizeof(int) * all);
    int *gs = malloc(sizeof(int) * N), *gr = malloc(sizeof(int) * all);
    int *ts = malloc(sizeof(int) * all), *tr = malloc(sizeof(int) * all);
    int *ss = malloc(sizeof(int) * N), *sr = malloc(sizeof(int) * N), *er = malloc(sizeof(int) * N);
    int *rs = malloc(sizeof(int) * all), *rr = malloc(sizeof(int) * N), *rbr = malloc(sizeof(int) * N);
    int *vcounts = malloc(sizeof(int) * (size_t)n), *vdispls = malloc(sizeof(int) * (size_t)n);
    int *vr = malloc(sizeof(int) * all);
    for (int r = 0; r < n; r++) {
        vcounts[r] = (r % 3) + 1; /* 1..3 ints from rank r */
        vdispls[r] = r * 4;
    }
    int *rscounts = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++)
        rscounts[r] = N;
    MPI_Request req[9];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "some_hint", "ignored");
    CHECK(MPI_Allreduce_init(as, ar, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, info, &req[0]) == 0);
    MPI_Info_free(&info);
    CHECK(MPI_Allgather_init(gs, N, MPI_INT, gr, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &req[1]) == 0);
    CHECK(MPI_Alltoall_init(ts, N, MPI_INT, tr, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &req[2]) == 0);
    CHECK(MPI_Scan_init(ss, sr, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[3]) == 0);
    CHECK(MPI_Exscan_init(ss, er, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req[4]) == 0);
    CHECK(MPI_Reduce_scatter_init(rs, rr, rscounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &req[5]) == 0);
    CHECK(MPI_Reduce_scatter_block_init(rs, rbr, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                        MPI_INFO_NULL, &req[6]) == 0);
    CHECK(MPI_Allgatherv_init(gs, (T_rank % 3) + 1, MPI_INT, vr, vcounts, vdispls, MPI_INT,
                              MPI_COMM_WORLD, MPI_INFO_NULL, &req[7]) == 0);
    CHECK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req[8]) == 0);
    for (int round = 0; round < ROUNDS * 3; round++) {
        for (size_t i = 0; i < all; i++) {
            as[i] = val(T_rank, (int)i, round) * (T_rank % 2 ? -1 : 1);
            ts[i] = val(T_rank, (int)i, round);
            rs[i] = val(T_rank, (int)i, round + 1);
            gr[i] = tr[i] = vr[i] = -1;
        }
        for (int i = 0; i < N; i++) {
            gs[i] = val(T_rank, i, round + 2);
            ss[i] = val(T_rank, i, round + 3);
            sr[i] = er[i] = rr[i] = rbr[i] = -1;
        }
        CHECK(MPI_Startall(9, req) == MPI_SUCCESS);
        if (round % 2)
            CHECK(MPI_Waitall(9, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        else
            for (int k = 8; k >= 0; k--)
                complete(&req[k], k);
        for (int i = 0; i < N; i++) {
            int mx = -2147483647, sum = 0, ex = 0, red = 0;
            for (int r = 0; r < n; r++) {
                int v = val(r, i, round) * (r % 2 ? -1 : 1);
                mx = v > mx ? v : mx;
                if (r < T_rank)
                    ex += val(r, i, round + 3);
                if (r <= T_rank)
                    sum += val(r, i, round + 3);
                red += val(r, T_rank * N + i, round + 1);
            }
            CHECK_EQ_INT(ar[i], mx);
            CHECK_EQ_INT(sr[i], sum);
            if (T_rank > 0)
                CHECK_EQ_INT(er[i], ex);
            CHECK_EQ_INT(rr[i], red);
            CHECK_EQ_INT(rbr[i], red);
        }
        for (int r = 0; r < n; r++)
            for (int i = 0; i < N; i++) {
                CHECK_EQ_INT(gr[r * N + i], val(r, i, round + 2));
                CHECK_EQ_INT(tr[r * N + i], val(r, T_rank * N + i, round));
            }
        for (int r = 0; r < n; r++)
            for (int i = 0; i < 4 && r * 4 + i < (int)all; i++)
                CHECK_EQ_INT(vr[r * 4 + i], i < vcounts[r] ? val(r, i, round + 2) : -1);
    }
    for (int k = 0; k < 9; k++)
        CHECK(MPI_Request_free(&req[k]) == MPI_SUCCESS);
    free(as), free(ar), free(gs), free(gr), free(ts), free(tr), free(ss), free(sr), free(er);
    free(rs), free(rr), free(rbr), free(vcounts), free(vdispls), free(vr), free(rscounts);
}

/* A derived type and a user op freed right after init: the request keeps them. */
static void my_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len * 2; i += 2) /* pairs: only the first of each is summed */
        ((int *)inout)[i] += ((int *)in)[i];
}

static void held_objects(void)
{
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op op;
    MPI_Op_create(my_sum, 1, &op);
    int s[2 * N], r[2 * N];
    MPI_Request req;
    CHECK(MPI_Allreduce_init(s, r, N, pair, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req) == 0);
    MPI_Type_free(&pair);
    MPI_Op_free(&op);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < 2 * N; i++)
            s[i] = val(T_rank, i, round);
        CHECK(MPI_Start(&req) == MPI_SUCCESS);
        complete(&req, round);
        for (int i = 0; i < 2 * N; i += 2) {
            int want = 0;
            for (int k = 0; k < T_size; k++)
                want += val(k, i, round);
            CHECK_EQ_INT(r[i], want);
        }
    }
    MPI_Request_free(&req);

    /* a non-contiguous type (every other int), packed anew at each start */
    MPI_Datatype vec;
    MPI_Type_vector(N, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *g = malloc(sizeof(int) * 2 * N * (size_t)T_size), b[2 * N];
    MPI_Request rq[2];
    CHECK(MPI_Bcast_init(b, 1, vec, T_size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]) == 0);
    CHECK(MPI_Allgather_init(s, 1, vec, g, 1, vec, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]) == 0);
    MPI_Type_free(&vec);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < 2 * N; i++) {
            b[i] = T_rank == T_size - 1 ? val(T_rank, i, round) : -1;
            s[i] = val(T_rank, i, round + 1);
        }
        for (int i = 0; i < 2 * N * T_size; i++)
            g[i] = -1;
        CHECK(MPI_Startall(2, rq) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < 2 * N; i++)
            CHECK_EQ_INT(b[i], i % 2 ? (T_rank == T_size - 1 ? val(T_rank, i, round) : -1)
                                     : val(T_size - 1, i, round));
        /* rank r's block starts at r * extent (2N - 1 ints) */
        for (int r = 0; r < T_size; r++)
            for (int j = 0; j < N; j++)
                CHECK_EQ_INT(g[r * (2 * N - 1) + 2 * j], val(r, 2 * j, round + 1));
    }
    MPI_Request_free(&rq[0]);
    MPI_Request_free(&rq[1]);
    free(g);
}

static void neighbors(void)
{
    MPI_Comm ring;
    int dims[1] = {T_size}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int me, left, right;
    MPI_Comm_rank(ring, &me);
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    int s[2 * N], r[2 * N], g[N];
    int counts[2] = {N, N}, displs[2] = {0, N};
    MPI_Aint wdispls[2] = {0, N * (MPI_Aint)sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Request req[5];
    CHECK(MPI_Neighbor_allgather_init(g, N, MPI_INT, r, N, MPI_INT, ring, MPI_INFO_NULL, &req[0]) == 0);
    CHECK(MPI_Neighbor_alltoall_init(s, N, MPI_INT, r, N, MPI_INT, ring, MPI_INFO_NULL, &req[1]) == 0);
    CHECK(MPI_Neighbor_allgatherv_init(g, N, MPI_INT, r, counts, displs, MPI_INT, ring,
                                       MPI_INFO_NULL, &req[2]) == 0);
    CHECK(MPI_Neighbor_alltoallv_init(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, ring,
                                      MPI_INFO_NULL, &req[3]) == 0);
    CHECK(MPI_Neighbor_alltoallw_init(s, counts, wdispls, types, r, counts, wdispls, types, ring,
                                      MPI_INFO_NULL, &req[4]) == 0);
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < 5; k++) {
            for (int i = 0; i < N; i++) {
                g[i] = val(me, i, round + k);
                s[i] = val(me, i, round + k) + 1;      /* towards left  */
                s[N + i] = val(me, i, round + k) + 2;  /* towards right */
            }
            for (int i = 0; i < 2 * N; i++)
                r[i] = -1;
            CHECK(MPI_Start(&req[k]) == MPI_SUCCESS);
            complete(&req[k], round);
            int gather = k == 0 || k == 2;
            for (int i = 0; i < N; i++) {
                /* block 0 from the left neighbour, block 1 from the right one */
                CHECK_EQ_INT(r[i], val(left, i, round + k) + (gather ? 0 : 2));
                CHECK_EQ_INT(r[N + i], val(right, i, round + k) + (gather ? 0 : 1));
            }
        }
    for (int k = 0; k < 5; k++)
        MPI_Request_free(&req[k]);
    MPI_Comm_free(&ring);
}

/* Intercommunicator forms: evens and odds, bcast from each side's rank 0 in
 * turn (MPI_ROOT / MPI_PROC_NULL / the remote root) and a barrier. */
static void inter(void)
{
    if (T_size < 2)
        return;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, T_rank % 2, T_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, T_rank % 2 ? 0 : 1, 77, &ic);
    int me, side = T_rank % 2, buf[N];
    MPI_Comm_rank(half, &me);
    MPI_Request req[3];
    for (int from = 0; from < 2; from++) { /* side `from` sends */
        int root = side == from ? (me == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        CHECK(MPI_Bcast_init(buf, N, MPI_INT, root, ic, MPI_INFO_NULL, &req[from]) == 0);
    }
    CHECK(MPI_Barrier_init(ic, MPI_INFO_NULL, &req[2]) == 0);
    for (int round = 0; round < ROUNDS; round++)
        for (int from = 0; from < 2; from++) {
            for (int i = 0; i < N; i++)
                buf[i] = side == from && me == 0 ? val(from, i, round) : -1;
            CHECK(MPI_Start(&req[from]) == MPI_SUCCESS);
            complete(&req[from], round);
            CHECK(MPI_Start(&req[2]) == MPI_SUCCESS);
            complete(&req[2], round + 1);
            if (side != from)
                for (int i = 0; i < N; i++)
                    CHECK_EQ_INT(buf[i], val(from, i, round));
        }
    for (int k = 0; k < 3; k++)
        MPI_Request_free(&req[k]);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int x[4] = {0}, cls, rc;
    MPI_Request req = MPI_REQUEST_NULL;
    rc = MPI_Bcast_init(x, 1, MPI_INT, T_size, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ROOT);
    rc = MPI_Allreduce_init(x, x + 1, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_OP);
    rc = MPI_Gather_init(x, -1, MPI_INT, x, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COUNT);
    rc = MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COMM);
    rc = MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Neighbor_allgather_init(x, 1, MPI_INT, x, 1, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                     &req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TOPOLOGY);
    CHECK(req == MPI_REQUEST_NULL); /* nothing made by a failed init */
    /* starting an active one */
    CHECK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req) == MPI_SUCCESS);
    CHECK(MPI_Start(&req) == MPI_SUCCESS);
    rc = MPI_Start(&req);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_REQUEST);
    if (T_size > 1) { /* (on one rank it may be done already) */
        /* freeing or cancelling it while active is refused, the request stays usable */
        int flag;
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        if (!flag) {
            rc = MPI_Request_free(&req);
            MPI_Error_class(rc, &cls);
            CHECK_EQ_INT(cls, MPI_ERR_REQUEST);
            CHECK(req != MPI_REQUEST_NULL);
        }
    }
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    for (int root = 0; root < T_size; root++)
        rooted(root);
    rootless();
    held_objects();
    neighbors();
    inter();
    errors();
    MPI_Finalize();
    return 0;
}
