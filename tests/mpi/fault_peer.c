/*
 * fault_peer — one rank fails while the others wait for it; the job must end.
 *
 *   fault_peer OP FATE            (under a launcher: skiffrun, hydra)
 *   fault_peer --alone N OP FATE  (its own launcher, tests/skiff/minipmi.h)
 *
 * All ranks do OP once together (so node-collective segments, connections
 * and rings exist), then the victim (the last rank) meets its FATE and the
 * survivors repeat OP forever: only the library noticing the dead peer, or
 * the launcher, can end them.
 *   OP    p2p (receive from the victim), rndv (the victim's last act is a
 *         1 MiB MPI_Isend to rank 0), barrier, bcast (root: the victim),
 *         reduce, gather (root 0), scatter (root: the victim), allreduce,
 *         allgather, alltoall, alltoallv, scan, reduce_scatter, ibarrier,
 *         iallreduce, split, dup, create (communicator creation)
 *   FATE  exit0 (returns from main without MPI_Finalize), kill (SIGKILL),
 *         segv (dies of SIGSEGV)
 * With FAULT_PEER_DIR set, each rank writes DIR/rank<r>: its pid, then the
 * /dev/shm objects it has mapped (fault_matrix.sh checks that no process and
 * none of those objects outlive the job).
 *
 * --alone is the library's own test: minipmi, unlike real launchers, leaves
 * the survivors running when a rank dies, so they must see it themselves:
 * each must exit with status 1 (MPI's fatal error), and with
 * FAULT_PEER_EXPECT_NAMED=1 one of them must name the victim in its line
 * about the gone peer.
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "minipmi.h"
#include "testutil.h"

#define BLK 64          /* ints per rank in the collectives' buffers */
#define MAXR 16
#define RNDV_BYTES (1 << 20)

static int me, np, victim;
static int sbuf[MAXR * BLK], rbuf[MAXR * BLK];

static void record(const char *dir)
{
    char path[4096], line[4096];
    snprintf(path, sizeof path, "%s/rank%d", dir, me);
    FILE *out = fopen(path, "w"), *maps = fopen("/proc/self/maps", "r");
    CHECK(out && maps);
    fprintf(out, "%d\n", (int)getpid());
    while (fgets(line, sizeof line, maps)) {
        char *shm = strstr(line, "/dev/shm/");
        if (shm)
            fprintf(out, "%s", shm);
    }
    fclose(maps);
    fclose(out);
}

static void new_comm(const char *op)
{
    MPI_Comm c = MPI_COMM_NULL;
    if (!strcmp(op, "split")) {
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, np - me, &c);
    } else if (!strcmp(op, "dup")) {
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
    } else {
        MPI_Group world, evens;
        int range[1][3] = {{0, np - 1, 2}};
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_range_incl(world, 1, range, &evens);
        MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
        MPI_Group_free(&evens);
        MPI_Group_free(&world);
    }
    if (c != MPI_COMM_NULL) {
        MPI_Barrier(c); /* the new communicator's first collective */
        MPI_Comm_free(&c);
    }
}

/* One round of OP; 0 when OP is unknown. */
static int run(const char *op, char *big)
{
    int counts[MAXR], displs[MAXR];
    for (int r = 0; r < np; r++) {
        counts[r] = 1 + (me + r) % BLK; /* what I send to r is what r expects from me */
        displs[r] = r * BLK;
    }
    MPI_Request rq;
    if (!strcmp(op, "p2p") || !strcmp(op, "rndv")) {
        if (me == 0 && big) /* the victim's last act: a rendezvous send */
            MPI_Recv(big, RNDV_BYTES, MPI_CHAR, victim, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (me == victim) { /* the warm-up: one message to everyone */
            for (int r = 0; r < np; r++)
                if (r != me)
                    MPI_Send(sbuf, BLK, MPI_INT, r, 9, MPI_COMM_WORLD);
        } else {
            MPI_Recv(rbuf, BLK, MPI_INT, victim, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else if (!strcmp(op, "barrier")) {
        MPI_Barrier(MPI_COMM_WORLD);
    } else if (!strcmp(op, "bcast")) {
        MPI_Bcast(rbuf, BLK, MPI_INT, victim, MPI_COMM_WORLD);
    } else if (!strcmp(op, "reduce")) {
        MPI_Reduce(sbuf, rbuf, BLK, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    } else if (!strcmp(op, "gather")) {
        MPI_Gather(sbuf, BLK, MPI_INT, rbuf, BLK, MPI_INT, 0, MPI_COMM_WORLD);
    } else if (!strcmp(op, "scatter")) {
        MPI_Scatter(sbuf, BLK, MPI_INT, rbuf, BLK, MPI_INT, victim, MPI_COMM_WORLD);
    } else if (!strcmp(op, "allreduce")) {
        MPI_Allreduce(sbuf, rbuf, BLK, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(op, "allgather")) {
        MPI_Allgather(sbuf, BLK, MPI_INT, rbuf, BLK, MPI_INT, MPI_COMM_WORLD);
    } else if (!strcmp(op, "alltoall")) {
        MPI_Alltoall(sbuf, BLK, MPI_INT, rbuf, BLK, MPI_INT, MPI_COMM_WORLD);
    } else if (!strcmp(op, "alltoallv")) {
        MPI_Alltoallv(sbuf, counts, displs, MPI_INT, rbuf, counts, displs, MPI_INT, MPI_COMM_WORLD);
    } else if (!strcmp(op, "scan")) {
        MPI_Scan(sbuf, rbuf, BLK, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(op, "reduce_scatter")) {
        MPI_Reduce_scatter_block(sbuf, rbuf, BLK, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (!strcmp(op, "ibarrier")) {
        MPI_Ibarrier(MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (!strcmp(op, "iallreduce")) {
        MPI_Iallreduce(sbuf, rbuf, BLK, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    } else if (!strcmp(op, "split") || !strcmp(op, "dup") || !strcmp(op, "create")) {
        new_comm(op);
    } else {
        return 0;
    }
    return 1;
}

static int rank_main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    testutil_rank = me;
    const char *op = argv[1], *fate = argv[2], *dir = getenv("FAULT_PEER_DIR");
    CHECK(np >= 2 && np <= MAXR);
    victim = np - 1;
    for (int i = 0; i < MAXR * BLK; i++)
        sbuf[i] = me + i;
    char *big = !strcmp(op, "rndv") ? calloc(1, RNDV_BYTES) : NULL;
    if (!run(op, NULL)) {
        fprintf(stderr, "fault_peer: unknown OP '%s'\n", op);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (dir) { /* everyone has recorded itself before anything fails */
        record(dir);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (me == victim) {
        if (big) {
            MPI_Request rq;
            MPI_Isend(big, RNDV_BYTES, MPI_CHAR, 0, 10, MPI_COMM_WORLD, &rq);
        }
        if (!strcmp(fate, "kill"))
            raise(SIGKILL);
        if (!strcmp(fate, "segv")) {
            signal(SIGSEGV, SIG_DFL); /* past a sanitizer's handler */
            raise(SIGSEGV);
        }
        return 0; /* exit0: no MPI_Finalize */
    }
    for (;;)
        run(op, big);
}

/* A line about a gone peer that names world rank v ("a peer process is gone:
 * rank v (pid ...", "sending to rank v failed: peer gone", "get ... from rank v
 * failed: peer gone"). */
static int names_gone(const char *line, int v)
{
    char want[32];
    int len = snprintf(want, sizeof want, "rank %d", v);
    if (!strstr(line, "gone"))
        return 0;
    for (const char *p = line; (p = strstr(p, want)); p += len)
        if (p[len] < '0' || p[len] > '9')
            return 1;
    return 0;
}

/* Its own launcher: the survivors must notice the victim themselves. */
static int alone(char *self, int n, char *op, char *fate)
{
    char key[33], errfile[] = "/tmp/fault_peer.XXXXXX";
    int status[MINIPMI_MAX], fd = mkstemp(errfile), saved = dup(2);
    CHECK(n >= 2 && n <= MINIPMI_MAX && fd >= 0 && saved >= 0);
    snprintf(key, sizeof key, "%08x%08x", (unsigned)getpid(), (unsigned)time(NULL));
    char *args[] = {self, op, fate, NULL};
    fflush(stderr);
    dup2(fd, 2); /* the ranks' stderr, to look for the line naming the victim */
    int rc = minipmi_run(n, args, key, status);
    dup2(saved, 2);
    CHECK_EQ_INT(rc, 0);
    char line[2048];
    int named = 0;
    FILE *f = fdopen(fd, "r");
    CHECK(f != NULL);
    rewind(f);
    while (fgets(line, sizeof line, f)) {
        fputs(line, stderr);
        named |= names_gone(line, n - 1);
    }
    fclose(f);
    unlink(errfile);
    int v = status[n - 1], ok = 1;
    if (!strcmp(fate, "exit0"))
        ok &= WIFEXITED(v) && WEXITSTATUS(v) == 0;
    else
        ok &= WIFSIGNALED(v) && WTERMSIG(v) == (!strcmp(fate, "kill") ? SIGKILL : SIGSEGV);
    for (int r = 0; r < n - 1; r++) {
        if (!WIFEXITED(status[r]) || WEXITSTATUS(status[r]) != 1) {
            fprintf(stderr, "fault_peer --alone %d %s %s: survivor rank %d: wait status %#x, "
                    "expected exit status 1\n", n, op, fate, r, status[r]);
            ok = 0;
        }
    }
    const char *node = getenv("FAULT_PEER_EXPECT_NAMED");
    if (node && atoi(node) && !named) {
        fprintf(stderr, "fault_peer --alone %d %s %s: no survivor named world rank %d\n", n, op,
                fate, n - 1);
        ok = 0;
    }
    printf("fault_peer --alone %d %s %s: %s\n", n, op, fate, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--alone"))
        return alone(argv[0], atoi(argv[2]), argv[3], argv[4]);
    if (argc != 3) {
        fprintf(stderr, "usage: fault_peer OP FATE | fault_peer --alone N OP FATE\n");
        return 2;
    }
    return rank_main(argc, argv);
}
