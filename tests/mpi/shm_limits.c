/*
 * shm_limits — ranks under hostile shared-memory conditions (driven by
 * shm_cases.sh, which sets up the conditions and judges the outcome).
 *
 *   comms N BYTES  create N communicators (dups and splits), each kept alive
 *                  to the end, each running bcasts and allreduces of BYTES
 *                  (through every slot generation of its node-collective
 *                  region), an allreduce and a barrier; every value checked
 *   hold FILE      print "rank R pid P", then on the node-local communicator
 *                  (MPI_COMM_TYPE_SHARED) run a first collective that the
 *                  node's last rank joins only once FILE exists: meanwhile the
 *                  node-collective region is created but not everyone has
 *                  attached (the state a crash or another user sees)
 *   hello          init, one allreduce, finalize
 *   hello-nodump   the same in a process made non-dumpable first (its peers
 *                  cannot open its /proc/<pid>/fd unless root)
 *   huge-window    MPI_Win_allocate_shared of 1 TiB per rank (more than any
 *                  test machine has): must fail at once, not later by OOM
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "testutil.h"

static void comms(int n, int bytes)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm *c = calloc((size_t)n, sizeof *c);
    unsigned char *buf = malloc((size_t)bytes);
    CHECK(c && buf);
    for (int i = 0; i < n; i++) {
        if (i % 2 == 0)
            CHECK_EQ_INT(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]), MPI_SUCCESS);
        else /* reversed order: a different rank 0 creates the region */
            CHECK_EQ_INT(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &c[i]), MPI_SUCCESS);
        int me, root = i % size;
        MPI_Comm_rank(c[i], &me);
        for (int g = 0; g < 20; g++) { /* more rounds than slot generations */
            for (int k = 0; k < bytes; k++)
                buf[k] = me == root ? (unsigned char)(i + g + k) : 0;
            CHECK_EQ_INT(MPI_Bcast(buf, bytes, MPI_BYTE, root, c[i]), MPI_SUCCESS);
            for (int k = 0; k < bytes; k++)
                if (buf[k] != (unsigned char)(i + g + k)) {
                    fprintf(stderr, "rank %d: comm %d round %d: byte %d is %d, expected %d\n", rank,
                            i, g, k, buf[k], (unsigned char)(i + g + k));
                    exit(1);
                }
        }
        int n4 = bytes / 4;
        int *mine = malloc((size_t)n4 * sizeof *mine), *all = malloc((size_t)n4 * sizeof *all);
        CHECK(mine && all);
        for (int g = 0; g < 8; g++) { /* every rank fills its slot of each generation */
            for (int k = 0; k < n4; k++)
                mine[k] = rank + k + g;
            CHECK_EQ_INT(MPI_Allreduce(mine, all, n4, MPI_INT, MPI_SUM, c[i]), MPI_SUCCESS);
            for (int k = 0; k < n4; k++)
                if (all[k] != size * (size - 1) / 2 + size * (k + g)) {
                    fprintf(stderr, "rank %d: comm %d allreduce %d: element %d is %d\n", rank, i,
                            g, k, all[k]);
                    exit(1);
                }
        }
        free(mine);
        free(all);
        long v = rank + i, sum = 0;
        CHECK_EQ_INT(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, c[i]), MPI_SUCCESS);
        CHECK_EQ_INT(sum, (long)size * (size - 1) / 2 + (long)size * i);
        CHECK_EQ_INT(MPI_Barrier(c[i]), MPI_SUCCESS);
    }
    for (int i = 0; i < n; i++)
        MPI_Comm_free(&c[i]);
    free(c);
    free(buf);
    if (rank == 0)
        printf("shm_limits: %d communicators ok on %d ranks\n", n, size);
}

static void hold(const char *file)
{
    int rank, me, nlocal;
    MPI_Comm node;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("rank %d pid %d\n", rank, (int)getpid());
    fflush(stdout);
    CHECK_EQ_INT(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                 MPI_SUCCESS);
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &nlocal);
    /* Waiting inside MPI (Iprobe drives progress): a rank that sleeps outside
     * it would leave its tcp peers' handshakes (other "hosts") unanswered. */
    int flag;
    if (me == nlocal - 1 && nlocal > 1)
        while (access(file, F_OK) != 0) {
            MPI_Iprobe(MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            usleep(20000);
        }
    long v = 1, sum = 0;
    CHECK_EQ_INT(MPI_Allreduce(&v, &sum, 1, MPI_LONG, MPI_SUM, node), MPI_SUCCESS);
    CHECK_EQ_INT(sum, nlocal);
    MPI_Comm_free(&node);
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "hello-nodump")) {
        prctl(PR_SET_DUMPABLE, 0);
        argv[1] = "hello";
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &testutil_rank);
    if (argc >= 4 && !strcmp(argv[1], "comms"))
        comms(atoi(argv[2]), atoi(argv[3]));
    else if (argc >= 3 && !strcmp(argv[1], "hold"))
        hold(argv[2]);
    else if (argc >= 2 && !strcmp(argv[1], "hello")) {
        int size, one = 1, sum = 0;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK_EQ_INT(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_EQ_INT(sum, size);
        if (testutil_rank == 0)
            printf("shm_limits: hello from %d ranks\n", size);
    } else if (argc >= 2 && !strcmp(argv[1], "huge-window")) {
        void *base;
        MPI_Win win;
        MPI_Win_allocate_shared((MPI_Aint)1 << 40, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
        printf("shm_limits: a 1 TiB window was made\n"); /* not reached: errors are fatal */
    } else {
        fprintf(stderr, "usage: shm_limits comms N BYTES | hold FILE | hello | hello-nodump | huge-window\n");
        return 2;
    }
    MPI_Finalize();
    return 0;
}
