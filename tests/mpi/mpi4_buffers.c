/* mpi4_buffers.c — MPI 4.1 buffered-send buffers and error-class removal:
 * MPI_Buffer_attach with MPI_BUFFER_AUTOMATIC, MPI_Buffer_flush/iflush, a
 * communicator's own buffer (MPI_Comm_attach_buffer ...) taking precedence
 * over the process's, a session's buffer serving the communicators made from
 * its process sets (and their duplicates), the flush and detach calls of each,
 * the error classes of wrong use; and MPI_Remove_error_string/code/class,
 * which must go in that order. */
#include "mpitest.h"

#define MSG 4096 /* bytes per buffered message */
#define ROOM (MSG + MPI_BSEND_OVERHEAD)

static MPI_Session the_session = MPI_SESSION_NULL;
enum flush { FLUSH_NONE, FLUSH_PROCESS, FLUSH_COMM, FLUSH_SESSION };

/* Buffered-send n messages around a ring and receive n, checking the bytes;
 * after each, the buffer it went through is flushed (so the next fits in a
 * buffer with room for one: flushing empties it). */
static void exchange_then(MPI_Comm c, int n, unsigned seed, enum flush how)
{
    int rank, size;
    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    unsigned char out[MSG], in[MSG];
    for (int i = 0; i < n; i++) {
        fill(out, MSG, seed + (unsigned)(rank * 100 + i));
        CHECK(MPI_Bsend(out, MSG, MPI_BYTE, to, i, c) == MPI_SUCCESS);
        CHECK(MPI_Recv(in, MSG, MPI_BYTE, from, i, c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK_EQ_INT(verify(in, MSG, seed + (unsigned)(from * 100 + i)), -1);
        if (how == FLUSH_PROCESS)
            CHECK(MPI_Buffer_flush() == MPI_SUCCESS);
        else if (how == FLUSH_COMM)
            CHECK(MPI_Comm_flush_buffer(c) == MPI_SUCCESS);
        else if (how == FLUSH_SESSION)
            CHECK(MPI_Session_flush_buffer(the_session) == MPI_SUCCESS);
    }
}

/* The same with a buffer that takes them all (automatic, or large). */
static void exchange(MPI_Comm c, int n, unsigned seed) { exchange_then(c, n, seed, FLUSH_NONE); }

static void process_buffer(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char dummy[MSG];
    memset(dummy, 0, sizeof dummy);
    /* nothing attached: a buffered send has no room */
    CHECK_EQ_INT(MPI_Bsend(dummy, MSG, MPI_BYTE, T_rank, 0, c), MPI_ERR_BUFFER);
    /* automatic: any size, any number */
    CHECK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0), MPI_ERR_BUFFER); /* twice */
    exchange(c, 8, 1);
    CHECK(MPI_Buffer_flush() == MPI_SUCCESS);
    void *addr = NULL;
    int size = -1;
    CHECK(MPI_Buffer_detach(&addr, &size) == MPI_SUCCESS);
    CHECK(addr == MPI_BUFFER_AUTOMATIC);
    CHECK_EQ_INT(MPI_Buffer_detach(&addr, &size), MPI_ERR_BUFFER); /* none attached */
    /* a user buffer with room for one message: flushed, it has room again */
    char *buf = malloc(ROOM);
    CHECK(MPI_Buffer_attach(buf, ROOM) == MPI_SUCCESS);
    for (int round = 0; round < 3; round++) {
        exchange(c, 1, 10 + (unsigned)round);
        MPI_Request r;
        CHECK(MPI_Buffer_iflush(&r) == MPI_SUCCESS);
        CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(r == MPI_REQUEST_NULL);
    }
    CHECK_EQ_INT(MPI_Buffer_attach(buf, -1), MPI_ERR_BUFFER); /* still attached */
    CHECK(MPI_Buffer_detach(&addr, &size) == MPI_SUCCESS);
    CHECK(addr == buf && size == ROOM);
    CHECK_EQ_INT(MPI_Buffer_attach(buf, -1), MPI_ERR_COUNT);
    CHECK_EQ_INT(MPI_Buffer_iflush(NULL), MPI_ERR_ARG);
    free(buf);
    MPI_Comm_free(&c);
}

static void comm_buffer(void)
{
    MPI_Comm c, other;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_dup(MPI_COMM_WORLD, &other);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(other, MPI_ERRORS_RETURN);
    char *cbuf = malloc(ROOM), *pbuf = malloc(4 * ROOM);
    CHECK(MPI_Buffer_attach(pbuf, 4 * ROOM) == MPI_SUCCESS);
    /* c's own buffer is too small for two messages at once: it is the one used,
     * although the process's could take them */
    CHECK(MPI_Comm_attach_buffer(c, cbuf, ROOM / 2) == MPI_SUCCESS);
    unsigned char out[MSG];
    fill(out, MSG, 3);
    CHECK_EQ_INT(MPI_Bsend(out, MSG, MPI_BYTE, T_rank, 0, c), MPI_ERR_BUFFER);
    CHECK_EQ_INT(MPI_Comm_attach_buffer(c, cbuf, ROOM), MPI_ERR_BUFFER); /* twice */
    void *addr;
    int size;
    CHECK(MPI_Comm_detach_buffer(c, &addr, &size) == MPI_SUCCESS);
    CHECK(addr == cbuf && size == ROOM / 2);
    CHECK(MPI_Comm_attach_buffer_c(c, cbuf, (MPI_Count)ROOM) == MPI_SUCCESS); /* large-count form */
    exchange_then(c, 4, 20, FLUSH_COMM); /* each fits once the previous one left */
    exchange_then(other, 3, 30, FLUSH_PROCESS); /* the others use the process's buffer */
    CHECK(MPI_Comm_flush_buffer(c) == MPI_SUCCESS);
    MPI_Request r;
    CHECK(MPI_Comm_iflush_buffer(c, &r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(MPI_Comm_iflush_buffer(other, &r) == MPI_SUCCESS); /* none of its own: done */
    int flag = 0;
    CHECK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && flag);
    MPI_Count csize = 0;
    CHECK(MPI_Comm_detach_buffer_c(c, &addr, &csize) == MPI_SUCCESS);
    CHECK(addr == cbuf && csize == ROOM);
    CHECK_EQ_INT(MPI_Comm_detach_buffer(c, &addr, &size), MPI_ERR_BUFFER);
    CHECK_EQ_INT(MPI_Comm_attach_buffer_c(c, cbuf, -1), MPI_ERR_COUNT);
    CHECK_EQ_INT(MPI_Comm_detach_buffer(c, NULL, &size), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Comm_attach_buffer(MPI_COMM_NULL, cbuf, ROOM), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Comm_flush_buffer(MPI_COMM_NULL), MPI_ERR_COMM);
    exchange_then(c, 2, 40, FLUSH_PROCESS); /* detached: the process's buffer again */
    /* automatic on a communicator; freeing it flushes and drops the buffer */
    CHECK(MPI_Comm_attach_buffer(c, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    exchange(c, 5, 50);
    MPI_Comm_free(&c);
    MPI_Comm_free(&other);
    CHECK(MPI_Buffer_detach(&addr, &size) == MPI_SUCCESS && addr == pbuf);
    free(cbuf);
    free(pbuf);
}

static void session_buffer(void)
{
    MPI_Session s;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS);
    MPI_Group g;
    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS);
    MPI_Comm c, d;
    CHECK(MPI_Comm_create_from_group(g, "org.skiff.test.buffers", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &c) == MPI_SUCCESS);
    MPI_Group_free(&g);
    MPI_Comm_dup(c, &d);
    unsigned char out[MSG];
    fill(out, MSG, 5);
    /* no buffer anywhere */
    CHECK_EQ_INT(MPI_Bsend(out, MSG, MPI_BYTE, 0, 0, c), MPI_ERR_BUFFER);
    char *sbuf = malloc(ROOM);
    CHECK(MPI_Session_attach_buffer(s, sbuf, ROOM) == MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Session_attach_buffer(s, sbuf, ROOM), MPI_ERR_BUFFER);
    the_session = s;
    exchange_then(c, 3, 60, FLUSH_SESSION); /* the session's buffer serves c ... */
    exchange_then(d, 3, 70, FLUSH_SESSION); /* ... and its duplicate */
    /* MPI_COMM_WORLD is not the session's: still no buffer there */
    CHECK_EQ_INT(MPI_Bsend(out, MSG, MPI_BYTE, T_rank, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    CHECK(MPI_Session_flush_buffer(s) == MPI_SUCCESS);
    MPI_Request r;
    CHECK(MPI_Session_iflush_buffer(s, &r) == MPI_SUCCESS);
    CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    void *addr;
    int size;
    MPI_Count csize = 0;
    CHECK(MPI_Session_detach_buffer_c(s, &addr, &csize) == MPI_SUCCESS);
    CHECK(addr == sbuf && csize == ROOM);
    CHECK_EQ_INT(MPI_Session_detach_buffer(s, &addr, &size), MPI_ERR_BUFFER);
    CHECK(MPI_Session_attach_buffer_c(s, sbuf, (MPI_Count)ROOM) == MPI_SUCCESS);
    CHECK(MPI_Session_detach_buffer(s, &addr, &size) == MPI_SUCCESS);
    CHECK(addr == sbuf && size == ROOM);
    CHECK_EQ_INT(MPI_Session_attach_buffer(MPI_SESSION_NULL, sbuf, ROOM), MPI_ERR_SESSION);
    CHECK_EQ_INT(MPI_Session_flush_buffer(MPI_SESSION_NULL), MPI_ERR_SESSION);
    CHECK_EQ_INT(MPI_Session_iflush_buffer(s, NULL), MPI_ERR_ARG);
    /* a communicator's own buffer wins over its session's */
    CHECK(MPI_Session_attach_buffer(s, MPI_BUFFER_AUTOMATIC, 0) == MPI_SUCCESS);
    CHECK(MPI_Comm_attach_buffer(d, sbuf, ROOM / 2) == MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Bsend(out, MSG, MPI_BYTE, 0, 0, d), MPI_ERR_BUFFER);
    exchange(c, 4, 80);
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
    free(sbuf);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS); /* its automatic buffer goes with it */
}

static void remove_errors(void)
{
    int cls, code, other, got, len;
    char text[MPI_MAX_ERROR_STRING];
    CHECK(MPI_Add_error_class(&cls) == MPI_SUCCESS);
    CHECK(MPI_Add_error_code(cls, &code) == MPI_SUCCESS);
    CHECK(MPI_Add_error_code(cls, &other) == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(code, "skiff test code") == MPI_SUCCESS);
    CHECK(MPI_Add_error_string(cls, "skiff test class") == MPI_SUCCESS);
    /* wrong order or wrong kind: MPI_ERR_ARG, nothing removed */
    CHECK_EQ_INT(MPI_Remove_error_code(code), MPI_ERR_ARG);     /* its string is there */
    CHECK_EQ_INT(MPI_Remove_error_class(cls), MPI_ERR_ARG);     /* its codes are there */
    CHECK_EQ_INT(MPI_Remove_error_code(cls), MPI_ERR_ARG);      /* a class */
    CHECK_EQ_INT(MPI_Remove_error_class(code), MPI_ERR_ARG);    /* a code */
    CHECK_EQ_INT(MPI_Remove_error_string(other), MPI_ERR_ARG);  /* no string */
    CHECK_EQ_INT(MPI_Remove_error_class(MPI_ERR_OTHER), MPI_ERR_ARG); /* predefined */
    CHECK_EQ_INT(MPI_Remove_error_code(MPI_ERR_LASTCODE + 100000), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Remove_error_string(MPI_ERR_TRUNCATE), MPI_ERR_ARG);
    CHECK(MPI_Error_class(code, &got) == MPI_SUCCESS && got == cls);
    /* the right order */
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS);
    CHECK(MPI_Error_string(code, text, &len) == MPI_SUCCESS && len == 0);
    CHECK_EQ_INT(MPI_Remove_error_string(code), MPI_ERR_ARG); /* gone already */
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Error_class(code, &got), MPI_ERR_ARG); /* no longer an error code */
    CHECK_EQ_INT(MPI_Add_error_string(code, "again"), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Remove_error_class(cls), MPI_ERR_ARG); /* 'other' is left */
    CHECK(MPI_Remove_error_code(other) == MPI_SUCCESS);
    CHECK(MPI_Remove_error_class(cls) == MPI_SUCCESS); /* its own string goes with it */
    CHECK_EQ_INT(MPI_Add_error_code(cls, &code), MPI_ERR_ARG); /* no longer a class */
    /* values are not reused */
    int fresh;
    CHECK(MPI_Add_error_class(&fresh) == MPI_SUCCESS);
    CHECK(fresh > other);
    CHECK(MPI_Remove_error_class(fresh) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    process_buffer();
    comm_buffer();
    session_buffer();
    remove_errors();
    test_done("mpi4_buffers");
    return 0;
}
