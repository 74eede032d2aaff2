/* mpi4_part.c — partitioned communication (MPI 4.0): ring exchanges with
 * different partitionings on the two sides, many rounds with new contents,
 * partitions marked in scrambled orders (Pready, Pready_range, Pready_list),
 * MPI_Parrived polled; matching in init order per (source, tag) even when the
 * two sides create their requests in different tag orders; partitioned data
 * never taken by an MPI_ANY_TAG receive; a receiver that initialises after
 * the sender has marked everything ready; a derived type; error classes. */
#include "mpitest.h"

#define ROUNDS 10
#define NS 8   /* send partitions */
#define CS 96  /* ints per send partition */
#define NR 3   /* receive partitions */
#define CR 256 /* ints per receive partition: NS * CS == NR * CR */

static int right, left;

static int val(int rank, int tag, int i, int round) { return rank * 1000003 + tag * 7919 + i * 3 + round; }

static void mark_all(MPI_Request s, int how)
{
    if (how == 0) {
        for (int i = NS - 1; i >= 0; i--)
            CHECK(MPI_Pready(i, s) == MPI_SUCCESS);
    } else if (how == 1) {
        CHECK(MPI_Pready_range(NS / 2, NS - 1, s) == MPI_SUCCESS);
        CHECK(MPI_Pready_range(0, NS / 2 - 1, s) == MPI_SUCCESS);
    } else {
        int list[NS];
        for (int i = 0; i < NS; i++)
            list[i] = (i * 5 + 3) % NS;
        CHECK(MPI_Pready_list(NS, list, s) == MPI_SUCCESS);
    }
}

/* Three channels per direction: tags 5, 9 and 9 again (init order decides). */
static void rounds(void)
{
    const int tags[3] = {5, 9, 9};
    int *sb[3], *rb[3];
    MPI_Request s[3], r[3];
    for (int k = 0; k < 3; k++) {
        sb[k] = malloc(sizeof(int) * NS * CS);
        rb[k] = malloc(sizeof(int) * NR * CR);
    }
    /* sends in order 5, 9a, 9b; receives in order 9a, 5, 9b */
    for (int k = 0; k < 3; k++)
        CHECK(MPI_Psend_init(sb[k], NS, CS, MPI_INT, right, tags[k], MPI_COMM_WORLD,
                             MPI_INFO_NULL, &s[k]) == MPI_SUCCESS);
    const int rorder[3] = {1, 0, 2};
    for (int j = 0; j < 3; j++) {
        int k = rorder[j];
        CHECK(MPI_Precv_init(rb[k], NR, CR, MPI_INT, left, tags[k], MPI_COMM_WORLD,
                             MPI_INFO_NULL, &r[k]) == MPI_SUCCESS);
    }
    int spy = -1;
    MPI_Request any;
    /* from the partitioned sender, any tag: must not take its partitioned messages */
    CHECK(MPI_Irecv(&spy, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD, &any) == 0);
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < 3; k++) {
            for (int i = 0; i < NS * CS; i++)
                sb[k][i] = val(T_rank, k, i, round);
            for (int i = 0; i < NR * CR; i++)
                rb[k][i] = -1;
        }
        CHECK(MPI_Startall(3, r) == MPI_SUCCESS);
        CHECK(MPI_Startall(3, s) == MPI_SUCCESS);
        for (int k = 2; k >= 0; k--)
            mark_all(s[k], (round + k) % 3);
        for (int k = 0; k < 3; k++) {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Parrived(r[k], (round + k) % NR, &flag) == MPI_SUCCESS);
            for (int p = 0; p < NR; p++) { /* arrived: so is every partition here */
                CHECK(MPI_Parrived(r[k], p, &flag) == MPI_SUCCESS);
                CHECK(flag);
            }
        }
        MPI_Status st[3];
        CHECK(MPI_Waitall(3, r, st) == MPI_SUCCESS);
        CHECK(MPI_Waitall(3, s, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        for (int k = 0; k < 3; k++) {
            CHECK_EQ_INT(st[k].MPI_SOURCE, left);
            CHECK_EQ_INT(st[k].MPI_TAG, tags[k]);
            int count;
            MPI_Get_count(&st[k], MPI_INT, &count);
            CHECK_EQ_INT(count, NR * CR);
            for (int i = 0; i < NR * CR; i++)
                CHECK_EQ_INT(rb[k][i], val(left, k, i, round));
        }
        int flag;
        MPI_Test(&any, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag); /* partitioned traffic is not for MPI_ANY_TAG */
    }
    int one = 1;
    MPI_Barrier(MPI_COMM_WORLD); /* everyone past the checks above */
    MPI_Send(&one, 1, MPI_INT, right, 0, MPI_COMM_WORLD);
    CHECK(MPI_Wait(&any, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK_EQ_INT(spy, 1);
    for (int k = 0; k < 3; k++) {
        CHECK(MPI_Request_free(&s[k]) == MPI_SUCCESS);
        CHECK(MPI_Request_free(&r[k]) == MPI_SUCCESS);
        free(sb[k]);
        free(rb[k]);
    }
}

/* The sender starts and marks everything before the receiver exists. */
static void late_receiver(void)
{
    MPI_Datatype vec; /* every other int */
    MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int sb[6 * 8], rb[6 * 8];
    for (int i = 0; i < 48; i++) {
        sb[i] = val(T_rank, 1, i, 0);
        rb[i] = -7;
    }
    MPI_Request s, r;
    CHECK(MPI_Psend_init(sb, 6, 1, vec, right, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &s) == 0);
    CHECK(MPI_Start(&s) == MPI_SUCCESS);
    CHECK(MPI_Pready_range(0, 5, s) == MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(MPI_Precv_init(rb, 2, 3, vec, left, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &r) == 0);
    MPI_Type_free(&vec); /* the requests keep it */
    CHECK(MPI_Start(&r) == MPI_SUCCESS);
    MPI_Request both[2] = {s, r};
    CHECK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < 48; i++) { /* element e covers ints 7e, 7e+2, 7e+4, 7e+6 */
        int covered = i < 42 && (i % 7) % 2 == 0;
        CHECK_EQ_INT(rb[i], covered ? val(left, 1, i, 0) : -7);
    }
    MPI_Request_free(&s);
    MPI_Request_free(&r);
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int b[4], cls, rc, flag;
    MPI_Request s, r, x;
    rc = MPI_Psend_init(b, 2, 2, MPI_INT, right, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &x);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_TAG);
    rc = MPI_Precv_init(b, 2, 2, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &x);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_RANK);
    rc = MPI_Psend_init(b, 0, 2, MPI_INT, right, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &x);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Psend_init(b, 2, -1, MPI_INT, right, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &x);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_COUNT);
    rc = MPI_Psend_init(b, 2, 2, MPI_INT, T_size, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &x);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_RANK);
    CHECK(MPI_Psend_init(b, 2, 2, MPI_INT, right, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &s) == 0);
    CHECK(MPI_Precv_init(b, 4, 1, MPI_INT, left, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &r) == 0);
    rc = MPI_Pready(0, s); /* not started */
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_REQUEST);
    rc = MPI_Parrived(s, 0, &flag); /* a send */
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_REQUEST);
    rc = MPI_Pready(0, r); /* a receive */
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_REQUEST);
    CHECK(MPI_Start(&r) == MPI_SUCCESS);
    CHECK(MPI_Start(&s) == MPI_SUCCESS);
    rc = MPI_Pready(2, s);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Parrived(r, 4, &flag);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    CHECK(MPI_Pready(1, s) == MPI_SUCCESS);
    rc = MPI_Pready(1, s); /* twice */
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Request_free(&s); /* active */
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_REQUEST);
    CHECK(MPI_Pready(0, s) == MPI_SUCCESS);
    CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Parrived(r, 0, &flag) == MPI_SUCCESS && flag); /* inactive */
    MPI_Request_free(&s);
    MPI_Request_free(&r);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    right = (T_rank + 1) % T_size;
    left = (T_rank + T_size - 1) % T_size;
    rounds();
    late_receiver();
    errors();
    test_barrier();
    MPI_Finalize();
    return 0;
}
