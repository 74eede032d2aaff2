/* dyn_shm server|client CYCLES [die|die-return]: two separately started jobs
 * on one machine meet through a port (docs/dynamic-processes.md: same-node
 * processes of different jobs talk over a pair of shared-memory rings).
 *
 * Every pair exchanges 8 B, 64 KiB and 4 MiB both ways (bytes checked), the
 * groups merge and allreduce (one int, and 256 Ki ints), disconnect; then
 * CYCLES-1 more connect / exchange / disconnect rounds, after which the number
 * of open descriptors must be what it was after the first (no leak per
 * cycle).
 * die: after the first connect the client's last rank kills itself (SIGKILL);
 * the server, with the default handler, must end (its job fails).
 * die-server: the same with the server's last rank killed, the client failing.
 * die-return: the same with MPI_ERRORS_RETURN on the server's
 * intercommunicator: a receive from the dead process fails with
 * MPI_ERR_OTHER, the server frees the communicator and finalizes (status 0).
 * join: as the first cycle, but the two (one-process) jobs meet by
 * MPI_Comm_join over a socket (port number in $SKIFF_NAME_DIR/join-port).
 * In all three dying modes the dying process first sends each remote one a message that
 * is still in the ring when it dies: that one must arrive. */
#include <arpa/inet.h>
#include <dirent.h>
#include <mpi.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL(...)                                                                            \
    do {                                                                                     \
        fprintf(stderr, "dyn_shm: " __VA_ARGS__);                                            \
        fprintf(stderr, "\n");                                                               \
        MPI_Abort(MPI_COMM_WORLD, 3);                                                        \
    } while (0)

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static unsigned char pattern(int from_server, int from, int to, size_t len, size_t i)
{
    return (unsigned char)(i * 131 + len + (size_t)from * 7 + (size_t)to * 13 + (size_t)from_server * 29);
}

/* Every pair: each size both ways, the lower side sending first. */
static void exchange(MPI_Comm inter, int server, int rank, int rsize, unsigned char *buf,
                     unsigned char *got)
{
    static const size_t sizes[] = {8, 64 << 10, 4 << 20};
    for (int j = 0; j < rsize; j++)
        for (int s = 0; s < 3; s++) {
            size_t len = sizes[s];
            for (size_t i = 0; i < len; i++)
                buf[i] = pattern(server, rank, j, len, i);
            MPI_Sendrecv(buf, (int)len, MPI_BYTE, j, s, got, (int)len, MPI_BYTE, j, s, inter,
                         MPI_STATUS_IGNORE);
            for (size_t i = 0; i < len; i++)
                if (got[i] != pattern(!server, j, rank, len, i))
                    FAIL("%s rank %d: byte %zu of %zu from remote %d is %u, wanted %u",
                         server ? "server" : "client", rank, i, len, j, got[i],
                         pattern(!server, j, rank, len, i));
        }
}

/* MPI_Comm_join's socket: the server listens and writes its port into a
 * file, the client reads it and connects. */
static int join_socket(int server)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/join-port", getenv("SKIFF_NAME_DIR"));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;
    if (server) {
        if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 1) ||
            getsockname(fd, (struct sockaddr *)&a, &alen))
            FAIL("join: cannot listen");
        char tmp[4200];
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%d\n", ntohs(a.sin_port)) < 0 || fclose(f) || rename(tmp, path))
            FAIL("join: cannot write %s", path);
        int c = accept(fd, NULL, NULL);
        close(fd);
        return c;
    }
    while (port <= 0) {
        FILE *f = fopen(path, "r");
        if (!f || fscanf(f, "%d", &port) != 1)
            usleep(20000); /* the server is still starting */
        if (f)
            fclose(f);
    }
    a.sin_port = htons((unsigned short)port);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a))
        FAIL("join: cannot connect to port %d", port);
    return fd;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int server = argc > 1 && strcmp(argv[1], "server") == 0, rank, size;
    int cycles = argc > 2 ? atoi(argv[2]) : 1;
    const char *die = argc > 3 ? argv[3] : "";
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char *buf = malloc(4 << 20), *got = malloc(4 << 20);
    int *big = malloc((256 << 10) * sizeof *big), *bsum = malloc((256 << 10) * sizeof *bsum);
    if (!buf || !got || !big || !bsum)
        FAIL("out of memory");
    char port[MPI_MAX_PORT_NAME];
    int join = strcmp(die, "join") == 0;
    if (join) {
        die = "";
        cycles = 1;
    }
    if (join) {
    } else if (server && rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name("skiff-dyn-shm", MPI_INFO_NULL, port);
    } else if (!server && rank == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        while (MPI_Lookup_name("skiff-dyn-shm", MPI_INFO_NULL, port) != MPI_SUCCESS)
            usleep(20000); /* the server job is still starting */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    int fds1 = 0;
    for (int cycle = 0; cycle < cycles; cycle++) {
        MPI_Comm inter, merged;
        if (join) {
            int fd = join_socket(server);
            MPI_Comm_join(fd, &inter);
            close(fd);
        } else if (server)
            MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        else
            MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        int rsize;
        MPI_Comm_remote_size(inter, &rsize);
        if (*die) {
            /* the victims' side: the client's, or the server's for die-server */
            int victims = strcmp(die, "die-server") == 0 ? server : !server;
            if (!victims && strcmp(die, "die-return") == 0)
                MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
            exchange(inter, server, rank, rsize, buf, got);
            int v, rc = MPI_SUCCESS;
            if (victims && rank == size - 1) {
                /* its last words sit in the rings when it dies: still delivered */
                for (int j = 0; j < rsize; j++) {
                    v = 4242 + j;
                    MPI_Send(&v, 1, MPI_INT, j, 98, inter);
                }
                raise(SIGKILL); /* mid-run: the rest of its job waits below */
            }
            if (!victims) { /* then it sends nothing: the receive must fail */
                rc = MPI_Recv(&v, 1, MPI_INT, rsize - 1, 98, inter, MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS || v != 4242 + rank)
                    FAIL("rank %d: the killed process's last message: error %d, value %d", rank,
                         rc, v);
                rc = MPI_Recv(&v, 1, MPI_INT, rsize - 1, 99, inter, MPI_STATUS_IGNORE);
                int cls;
                MPI_Error_class(rc, &cls);
                if (cls != MPI_ERR_OTHER)
                    FAIL("rank %d: receive from the killed process gave class %d, "
                         "wanted MPI_ERR_OTHER (%d)", rank, cls, MPI_ERR_OTHER);
                MPI_Comm_free(&inter);
                if (rank == 0)
                    printf("dyn_shm die-return: OK (class MPI_ERR_OTHER)\n");
                break;
            }
            MPI_Recv(&v, 1, MPI_INT, 0, 99, inter, MPI_STATUS_IGNORE); /* never comes */
            FAIL("rank %d: a message nobody sent arrived", rank);
        }
        if (cycle == 0 || cycle == cycles - 1) {
            exchange(inter, server, rank, rsize, buf, got);
            MPI_Intercomm_merge(inter, !server, &merged);
            int one = 1, sum, mrank;
            MPI_Comm_rank(merged, &mrank);
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
            if (sum != size + rsize)
                FAIL("allreduce %d, wanted %d", sum, size + rsize);
            for (int i = 0; i < 256 << 10; i++)
                big[i] = i + mrank;
            MPI_Allreduce(big, bsum, 256 << 10, MPI_INT, MPI_SUM, merged);
            int n = size + rsize;
            for (int i = 0; i < 256 << 10; i++)
                if (bsum[i] != n * i + n * (n - 1) / 2)
                    FAIL("allreduce element %d is %d, wanted %d", i, bsum[i],
                         n * i + n * (n - 1) / 2);
            MPI_Comm_free(&merged);
        } else {
            for (int j = 0; j < rsize; j++) {
                int v = rank, w;
                MPI_Sendrecv(&v, 1, MPI_INT, j, 5, &w, 1, MPI_INT, j, 5, inter, MPI_STATUS_IGNORE);
                if (w != j)
                    FAIL("cycle %d: %d from remote %d", cycle, w, j);
            }
        }
        MPI_Comm_disconnect(&inter);
        if (cycle == 0)
            fds1 = open_fds();
        else if (cycle == cycles - 1 && open_fds() > fds1)
            FAIL("rank %d: %d open descriptors after %d connect/disconnect cycles, %d after "
                 "the first", rank, open_fds(), cycles, fds1);
    }
    if (server && rank == 0 && !join) {
        MPI_Unpublish_name("skiff-dyn-shm", MPI_INFO_NULL, port);
        MPI_Close_port(port);
    }
    if (rank == 0 && !*die)
        printf("dyn_shm %s: OK (%d + remote processes, %d cycles, %d descriptors)\n",
               server ? "server" : "client", size, cycles, fds1);
    free(buf);
    free(got);
    free(big);
    free(bsum);
    MPI_Finalize();
    return 0;
}
