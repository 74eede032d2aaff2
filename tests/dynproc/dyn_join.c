/* dyn_join: ranks pair up (2k, 2k+1) over a TCP socket they make themselves
 * and call MPI_Comm_join on it; data both ways over the intercommunicator,
 * then merge and allreduce, disconnect.  An odd last rank joins nobody. */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#define FAIL(...)                                                                            \
    do {                                                                                     \
        fprintf(stderr, "dyn_join: " __VA_ARGS__);                                           \
        fprintf(stderr, "\n");                                                               \
        MPI_Abort(MPI_COMM_WORLD, 3);                                                        \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int partner = rank ^ 1, fd = -1;
    if (partner < size) {
        if (rank % 2 == 0) {
            int l = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
            socklen_t len = sizeof a;
            if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) ||
                getsockname(l, (struct sockaddr *)&a, &len))
                FAIL("listen");
            int port = ntohs(a.sin_port);
            MPI_Send(&port, 1, MPI_INT, partner, 0, MPI_COMM_WORLD);
            fd = accept(l, NULL, NULL);
            close(l);
        } else {
            int port;
            MPI_Recv(&port, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                    .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
            if (connect(fd, (struct sockaddr *)&a, sizeof a))
                FAIL("connect");
        }
        if (fd < 0)
            FAIL("no socket");
        MPI_Comm inter, merged;
        MPI_Comm_join(fd, &inter);
        close(fd);
        int rs, v = 1000 + rank, got;
        MPI_Comm_remote_size(inter, &rs);
        if (rs != 1)
            FAIL("remote size %d", rs);
        MPI_Sendrecv(&v, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
        if (got != 1000 + partner)
            FAIL("got %d from %d", got, partner);
        MPI_Intercomm_merge(inter, rank % 2, &merged);
        int mr, sum;
        MPI_Comm_rank(merged, &mr);
        MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
        if (mr != rank % 2 || sum != rank + partner)
            FAIL("merged rank %d sum %d", mr, sum);
        MPI_Comm_free(&merged);
        MPI_Comm_disconnect(&inter);
    }
    /* a bad fd is refused with MPI_ERR_ARG */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm bad;
    int rc = MPI_Comm_join(-1, &bad), cls;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_ARG)
        FAIL("join on fd -1: class %d", cls);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("dyn_join: OK\n");
    MPI_Finalize();
    return 0;
}
