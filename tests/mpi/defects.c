/* defects — valid programs that hung, crashed or computed wrong data, found
 * by building public MPI tests against Skiff (issue 15, item 5).  One case
 * per run, named by argv[1], so ctest shows which one fails; a hang fails by
 * the test's TIMEOUT.  Cases that need more ranks than the run has pass
 * without checking (each is also registered at rank counts that do check). */
#include <complex.h>
#include <stddef.h>
#include <stdio.h>

#include "mpitest.h"

/* ---- communicators ------------------------------------------------------- */

/* MPI_Comm_free with a receive still pending on the communicator: the
 * receive still matches the message sent on it afterwards (a small one and a
 * rendezvous one); the sender frees its copy with the sends still pending. */
#define BIG (1 << 20)
static void comm_free_pending(void)
{
    int peer = test_partner(), receiver = T_rank <= peer, sender = T_rank >= peer;
    MPI_Comm d;
    CHECK_EQ_INT(MPI_Comm_dup(MPI_COMM_WORLD, &d), MPI_SUCCESS);
    unsigned char *big = malloc(BIG), *out = malloc(BIG);
    int small = -1, mine = 1000 + T_rank;
    fill(out, BIG, (unsigned)T_rank);
    MPI_Request r[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    if (receiver) {
        CHECK_EQ_INT(MPI_Irecv(&small, 1, MPI_INT, peer, 3, d, &r[0]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Irecv(big, BIG, MPI_BYTE, peer, 4, d, &r[1]), MPI_SUCCESS);
    }
    if (sender && peer == T_rank) { /* alone: send to myself before the free */
        CHECK_EQ_INT(MPI_Isend(&mine, 1, MPI_INT, peer, 3, d, &r[2]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Isend(out, BIG, MPI_BYTE, peer, 4, d, &r[3]), MPI_SUCCESS);
    }
    if (receiver) {
        CHECK_EQ_INT(MPI_Comm_free(&d), MPI_SUCCESS);
        CHECK(d == MPI_COMM_NULL);
    }
    /* the receiver's handle is gone before anything is sent to it */
    MPI_Barrier(MPI_COMM_WORLD);
    if (sender && peer != T_rank) {
        CHECK_EQ_INT(MPI_Isend(&mine, 1, MPI_INT, peer, 3, d, &r[2]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Isend(out, BIG, MPI_BYTE, peer, 4, d, &r[3]), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Comm_free(&d), MPI_SUCCESS);
    }
    /* a communicator made meanwhile must not take over the freed one's context */
    MPI_Comm d2;
    CHECK_EQ_INT(MPI_Comm_dup(MPI_COMM_WORLD, &d2), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Waitall(4, r, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    if (receiver) {
        CHECK_EQ_INT(small, 1000 + peer);
        CHECK_EQ_INT(verify(big, BIG, (unsigned)peer), -1);
    }
    int x = -1, y = T_rank;
    MPI_Sendrecv(&y, 1, MPI_INT, peer, 3, &x, 1, MPI_INT, peer, 3, d2, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(x, peer);
    MPI_Comm_free(&d2);
    free(big);
    free(out);
}

static const struct test_case {
    const char *name;
    void (*run)(void);
} cases[] = {
    {"comm_free_pending", comm_free_pending},
};

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    const char *name = argc > 1 ? argv[1] : "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (!strcmp(cases[i].name, name)) {
            cases[i].run();
            char label[96];
            snprintf(label, sizeof label, "defects %s", name);
            test_done(label);
            return 0;
        }
    fprintf(stderr, "defects: no case '%s'\n", name);
    return 2;
}
