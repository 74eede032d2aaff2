/* dyn_ports server|client: two separately started jobs meet through a port
 * published under a name; data both ways, merge and allreduce, disconnect. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define FAIL(...)                                                                            \
    do {                                                                                     \
        fprintf(stderr, "dyn_ports: " __VA_ARGS__);                                          \
        fprintf(stderr, "\n");                                                               \
        MPI_Abort(MPI_COMM_WORLD, 3);                                                        \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int server = argc > 1 && strcmp(argv[1], "server") == 0, rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm inter, merged;
    if (server) {
        if (rank == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Publish_name("skiff-dyn-test", MPI_INFO_NULL, port);
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        if (rank == 0) {
            MPI_Unpublish_name("skiff-dyn-test", MPI_INFO_NULL, port);
            MPI_Close_port(port);
        }
    } else {
        if (rank == 0) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            while (MPI_Lookup_name("skiff-dyn-test", MPI_INFO_NULL, port) != MPI_SUCCESS)
                usleep(20000); /* the server job is still starting */
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    }
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    for (int j = 0; j < rsize; j++) {
        int v = (server ? 100 : 200) * 1000 + rank * 100 + j, got;
        MPI_Sendrecv(&v, 1, MPI_INT, j, 1, &got, 1, MPI_INT, j, 1, inter, MPI_STATUS_IGNORE);
        if (got != (server ? 200 : 100) * 1000 + j * 100 + rank)
            FAIL("got %d from %d", got, j);
    }
    MPI_Intercomm_merge(inter, !server, &merged);
    int one = 1, sum;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    if (sum != size + rsize)
        FAIL("allreduce %d, wanted %d", sum, size + rsize);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    if (rank == 0)
        printf("dyn_ports %s: OK (%d + %d processes)\n", server ? "server" : "client", size,
               rsize);
    MPI_Finalize();
    return 0;
}
