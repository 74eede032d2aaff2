/* spawn_test [nchildren] [nested]: the parents spawn nchildren copies of
 * this program; data goes both ways over the intercommunicator, the merged
 * communicator runs an allreduce; with "nested" each child job spawns one
 * grandchild.  Exit status non-zero on any wrong value. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(c, ...)                                                                        \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "spawn_test: " __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                                           \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                    \
        }                                                                                    \
    } while (0)

static void exchange(MPI_Comm inter, int am_parent)
{
    int rank, lsize, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    /* every parent sends its rank*100+j to every child j and back */
    for (int j = 0; j < rsize; j++) {
        int v = (am_parent ? 1000 : 2000) + rank * 100 + j, got;
        MPI_Request rq;
        MPI_Isend(&v, 1, MPI_INT, j, 7, inter, &rq);
        MPI_Recv(&got, 1, MPI_INT, j, 7, inter, MPI_STATUS_IGNORE);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        CHECK(got == (am_parent ? 2000 : 1000) + j * 100 + rank, "got %d from %d", got, j);
    }
    /* a large message (eager over the bridge, many frames' worth) */
    int n = 1 << 18;
    int *big = malloc((size_t)n * sizeof *big);
    if (am_parent && rank == 0) {
        for (int i = 0; i < n; i++)
            big[i] = i ^ 0x5a5a;
        MPI_Send(big, n, MPI_INT, rsize - 1, 8, inter);
    } else if (!am_parent && rank == lsize - 1) {
        MPI_Recv(big, n, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++)
            CHECK(big[i] == (i ^ 0x5a5a), "big[%d] = %d", i, big[i]);
    }
    /* a strided (derived) type, parents to children: every other int */
    MPI_Datatype vec;
    MPI_Type_vector(n / 2, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    if (am_parent && rank == lsize - 1) {
        for (int i = 0; i < n; i++)
            big[i] = i * 3;
        MPI_Send(big, 1, vec, 0, 9, inter);
    } else if (!am_parent && rank == 0) {
        MPI_Recv(big, n / 2, MPI_INT, rsize - 1, 9, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < n / 2; i++)
            CHECK(big[i] == 6 * i, "vector element %d = %d", i, big[i]);
    }
    MPI_Type_free(&vec);
    free(big);
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, am_parent ? 0 : 1, &merged);
    int mr, ms, sum = 0;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    CHECK(ms == lsize + rsize, "merged size %d", ms);
    CHECK(am_parent ? mr == rank : mr == rsize + rank, "merged rank %d", mr);
    MPI_Allreduce(&mr, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == ms * (ms - 1) / 2, "allreduce %d", sum);
    int root_val = mr == 0 ? 4242 : 0;
    MPI_Bcast(&root_val, 1, MPI_INT, 0, merged);
    CHECK(root_val == 4242, "bcast %d", root_val);
    /* a split of the merged communicator (reversed order) routes to the
     * right processes of both jobs: a ring shift checked by value */
    MPI_Comm rev;
    MPI_Comm_split(merged, 0, ms - mr, &rev);
    int rr, to_right = -1;
    MPI_Comm_rank(rev, &rr);
    CHECK(rr == ms - 1 - mr, "reversed rank %d", rr);
    MPI_Sendrecv(&rr, 1, MPI_INT, (rr + 1) % ms, 31, &to_right, 1, MPI_INT, (rr + ms - 1) % ms, 31,
                 rev, MPI_STATUS_IGNORE);
    CHECK(to_right == (rr + ms - 1) % ms, "ring shift got %d", to_right);
    MPI_Comm_free(&rev);
    /* windows across jobs are not supported: every member gets the error */
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    void *wbase = NULL;
    MPI_Win win = MPI_WIN_NULL;
    int werr = MPI_Win_allocate(64, 1, MPI_INFO_NULL, merged, &wbase, &win), wcls = -1;
    MPI_Error_class(werr, &wcls);
    CHECK(wcls == MPI_ERR_UNSUPPORTED_OPERATION && win == MPI_WIN_NULL,
          "MPI_Win_allocate across jobs: class %d", wcls);
    MPI_Barrier(merged);
    MPI_Comm_free(&merged);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int nchild = argc > 1 ? atoi(argv[1]) : 2;
    int nested = argc > 2 && strcmp(argv[2], "nested") == 0;
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        int *flagp, fl, wsize;
        MPI_Comm_size(MPI_COMM_WORLD, &wsize);
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flagp, &fl);
        CHECK(fl && *flagp >= wsize, "universe size %d", fl ? *flagp : -1);
        MPI_Comm inter;
        int errs[8];
        char *args[] = {argv[1], nested ? "child-nested" : "child", NULL};
        MPI_Comm_spawn(getenv("SPAWN_CMD") ? getenv("SPAWN_CMD") : argv[0], args, nchild, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            for (int i = 0; i < nchild; i++)
                CHECK(errs[i] == MPI_SUCCESS, "errcode %d", errs[i]);
        int rs;
        MPI_Comm_remote_size(inter, &rs);
        CHECK(rs == nchild, "remote size %d", rs);
        exchange(inter, 1);
        MPI_Comm_disconnect(&inter);
        if (rank == 0)
            printf("spawn_test: parents OK\n");
    } else {
        exchange(parent, 0);
        if (argc > 2 && strcmp(argv[2], "child-nested") == 0) {
            MPI_Comm inter;
            char *args[] = {"1", "child", NULL};
            MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                           MPI_ERRCODES_IGNORE);
            exchange(inter, 1);
            MPI_Comm_disconnect(&inter);
        }
        MPI_Comm_disconnect(&parent);
        MPI_Comm_get_parent(&parent);
        CHECK(parent == MPI_COMM_NULL, "the parent is still there after MPI_Comm_disconnect");
    }
    MPI_Finalize();
    return 0;
}
