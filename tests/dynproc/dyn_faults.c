/* dyn_faults multiple|missing|dying (and the child roles of these).
 * multiple: spawn_multiple of this program twice (2 + 1 ranks, different
 *   arguments): each child checks its MPI_APPNUM and argument, the parents
 *   count the appnums through the merged communicator.
 * missing: spawning a program that does not exist fails with MPI_ERR_SPAWN
 *   at every parent and errcodes all MPI_ERR_SPAWN; the job goes on.
 * unsafe-names: the name service refuses a directory others can write.
 * dying: a child exits with status 5 after MPI_Init; the whole job must end
 *   (non-zero), the parents never finish.
 * dying-return N: as dying with N children (the last one dies once told),
 *   but the parents set MPI_ERRORS_RETURN on the intercommunicator first (the
 *   spawn itself runs under MPI_COMM_WORLD's fatal handler): a receive from
 *   the dead child, a send to it and a nonblocking receive from it fail with
 *   MPI_ERR_OTHER; the parents' job goes on and finalizes with status 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL(...)                                                                            \
    do {                                                                                     \
        fprintf(stderr, "dyn_faults: " __VA_ARGS__);                                         \
        fprintf(stderr, "\n");                                                               \
        MPI_Abort(MPI_COMM_WORLD, 3);                                                        \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "";
    MPI_Comm parent, inter, merged;
    MPI_Comm_get_parent(&parent);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strncmp(mode, "child-app", 9) == 0) {
        int *app, flag, want = mode[9] - '0';
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
        if (!flag || *app != want || parent == MPI_COMM_NULL)
            FAIL("appnum %d, wanted %d", flag ? *app : -1, want);
        MPI_Intercomm_merge(parent, 1, &merged);
        int sum = 0;
        MPI_Allreduce(app, &sum, 1, MPI_INT, MPI_SUM, merged);
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&parent);
    } else if (strcmp(mode, "child-die") == 0) {
        if (rank == 1)
            exit(5);
        MPI_Barrier(parent); /* never completes: a member is gone */
    } else if (strcmp(mode, "multiple") == 0) {
        char *cmds[2] = {argv[0], argv[0]};
        char *a0[] = {"child-app0", NULL}, *a1[] = {"child-app1", NULL};
        char **argvs[2] = {a0, a1};
        int np[2] = {2, 1}, errs[3];
        MPI_Info infos[2] = {MPI_INFO_NULL, MPI_INFO_NULL};
        MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, &inter, errs);
        int rs, sum = 0, zero = 0;
        MPI_Comm_remote_size(inter, &rs);
        if (rs != 3)
            FAIL("remote size %d", rs);
        MPI_Intercomm_merge(inter, 0, &merged);
        MPI_Allreduce(&zero, &sum, 1, MPI_INT, MPI_SUM, merged);
        if (sum != 1) /* appnums 0, 0, 1 */
            FAIL("sum of appnums %d", sum);
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&inter);
        if (rank == 0)
            printf("dyn_faults multiple: OK\n");
    } else if (strcmp(mode, "missing") == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int errs[4] = {-1, -1, -1, -1};
        int rc = MPI_Comm_spawn("/nonexistent/skiff-no-such-program", MPI_ARGV_NULL, 4,
                                MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        int cls;
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_SPAWN || inter != MPI_COMM_NULL)
            FAIL("spawn of a missing program returned class %d", cls);
        for (int i = 0; rank == 0 && i < 4; i++)
            if (errs[i] != MPI_ERR_SPAWN)
                FAIL("errcode %d = %d", i, errs[i]);
        MPI_Barrier(MPI_COMM_WORLD); /* the job is still fine */
        if (rank == 0)
            printf("dyn_faults missing: OK\n");
    } else if (strcmp(mode, "child-info") == 0) { /* started in wdir /tmp */
        char cwd[4096];
        if (!getcwd(cwd, sizeof cwd) || strcmp(cwd, "/tmp") != 0)
            FAIL("child started in %s, wanted /tmp", cwd);
        MPI_Comm_disconnect(&parent);
    } else if (strcmp(mode, "info") == 0) {
        /* info keys: program found through "path", started in "wdir", on "host" */
        char dir[4096], *base = strrchr(argv[0], '/');
        if (!base)
            FAIL("run me with a path");
        snprintf(dir, sizeof dir, "%.*s", (int)(base - argv[0]), argv[0]);
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "path", dir);
        MPI_Info_set(info, "wdir", "/tmp");
        MPI_Info_set(info, "host", "localhost");
        char *args[] = {"child-info", NULL};
        int errs[2];
        MPI_Comm_spawn(base + 1, args, 2, info, 0, MPI_COMM_WORLD, &inter, errs);
        MPI_Info_free(&info);
        MPI_Comm_disconnect(&inter);
        if (rank == 0)
            printf("dyn_faults info: OK\n");
    } else if (strcmp(mode, "child-plain") == 0) {
        MPI_Comm_disconnect(&parent);
    } else if (strcmp(mode, "soft") == 0) {
        /* soft "1:2" with maxprocs 3 starts 2; errcodes say which */
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "soft", "1:2");
        char *args[] = {"child-plain", NULL};
        int errs[3] = {-1, -1, -1}, rs;
        MPI_Comm_spawn(argv[0], args, 3, info, 0, MPI_COMM_WORLD, &inter, errs);
        MPI_Comm_remote_size(inter, &rs);
        if (rs != 2)
            FAIL("soft 1:2 of 3 started %d", rs);
        if (rank == 0 && (errs[0] != MPI_SUCCESS || errs[1] != MPI_SUCCESS ||
                          errs[2] != MPI_ERR_SPAWN))
            FAIL("soft errcodes %d %d %d", errs[0], errs[1], errs[2]);
        MPI_Comm_disconnect(&inter);
        /* a soft value that allows nothing up to maxprocs: MPI_ERR_INFO_VALUE at the
         * root, an error at every other parent, nothing started, the job goes on */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Info_set(info, "soft", "5:9");
        int rc = MPI_Comm_spawn(argv[0], args, 3, info, 0, MPI_COMM_WORLD, &inter, errs), cls;
        MPI_Error_class(rc, &cls);
        if (rc == MPI_SUCCESS || inter != MPI_COMM_NULL || (rank == 0 && cls != MPI_ERR_INFO_VALUE))
            FAIL("soft 5:9 of 3: class %d", cls);
        /* maxprocs 0 at the root: MPI_ERR_ARG there, an error everywhere */
        rc = MPI_Comm_spawn(argv[0], args, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        MPI_Error_class(rc, &cls);
        if (rc == MPI_SUCCESS || (rank == 0 && cls != MPI_ERR_ARG))
            FAIL("maxprocs 0: class %d", cls);
        MPI_Info_free(&info);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            printf("dyn_faults soft: OK\n");
    } else if (strcmp(mode, "usize") == 0) { /* skiffrun -usize N: MPI_UNIVERSE_SIZE is N */
        int *u, flag;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &u, &flag);
        if (!flag || argc < 3 || *u != atoi(argv[2]))
            FAIL("MPI_UNIVERSE_SIZE %d, wanted %s", flag ? *u : -1, argc > 2 ? argv[2] : "?");
    } else if (strcmp(mode, "child-die-last") == 0) {
        int size, x;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (rank == size - 1) { /* once every parent returns errors */
            MPI_Recv(&x, 1, MPI_INT, 0, 8, parent, MPI_STATUS_IGNORE);
            exit(5);
        }
        MPI_Recv(&x, 1, MPI_INT, 0, 9, parent, MPI_STATUS_IGNORE); /* its launcher ends it */
        FAIL("a child of a failed job received a message nobody sent");
    } else if (strcmp(mode, "dying-return") == 0) {
        int nc = argc > 2 ? atoi(argv[2]) : 1, x = 0, cls, rc;
        char *args[] = {"child-die-last", NULL};
        MPI_Comm_spawn(argv[0], args, nc, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        MPI_Barrier(MPI_COMM_WORLD); /* then the last child may die */
        if (rank == 0)
            MPI_Send(&x, 1, MPI_INT, nc - 1, 8, inter);
        rc = MPI_Recv(&x, 1, MPI_INT, nc - 1, 7, inter, MPI_STATUS_IGNORE);
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_OTHER)
            FAIL("receive from a dead child: class %d", cls);
        rc = MPI_Send(&x, 1, MPI_INT, nc - 1, 7, inter);
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_OTHER)
            FAIL("send to a dead child: class %d", cls);
        MPI_Request req;
        MPI_Status st;
        rc = MPI_Irecv(&x, 1, MPI_INT, nc - 1, 7, inter, &req);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&req, &st);
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_OTHER)
            FAIL("nonblocking receive from a dead child: class %d", cls);
        MPI_Comm_free(&inter);
        int n = 1, sum = 0;
        MPI_Allreduce(&n, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD); /* the job goes on */
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        if (sum != size)
            FAIL("allreduce after the failure: %d", sum);
        if (rank == 0)
            printf("dyn_faults dying-return: OK\n");
    } else if (strcmp(mode, "unsafe-names") == 0) {
        /* SKIFF_NAME_DIR is a directory others may write (mode 0777): publishing and
         * looking up names there fail with MPI_ERR_SERVICE; nothing is written */
        char port[MPI_MAX_PORT_NAME] = "skiff-port:127.0.0.1:1:00000000000000000000000000000000";
        int cls;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Error_class(MPI_Publish_name("skiff-unsafe", MPI_INFO_NULL, port), &cls);
        if (cls != MPI_ERR_SERVICE)
            FAIL("publish in a world-writable name directory: class %d", cls);
        MPI_Error_class(MPI_Lookup_name("skiff-unsafe", MPI_INFO_NULL, port), &cls);
        if (cls != MPI_ERR_SERVICE)
            FAIL("lookup in a world-writable name directory: class %d", cls);
        if (rank == 0)
            printf("dyn_faults unsafe-names: OK\n");
    } else if (strcmp(mode, "dying") == 0) {
        char *args[] = {"child-die", NULL};
        MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
        MPI_Barrier(inter);
        FAIL("the barrier with a dead child completed");
    } else {
        FAIL("unknown mode '%s'", mode);
    }
    MPI_Finalize();
    return 0;
}
