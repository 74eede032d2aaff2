/*
 * io_forward — the ranks' stdout/stderr to the launcher's, and the
 * launcher's stdin to rank 0.
 *
 * Output: every rank writes into its own pipes; the launcher cuts what it
 * reads into lines and writes whole lines to its own stdout/stderr, so two
 * ranks never share a line.  A line longer than IO_LINE_MAX is passed on in
 * pieces; if another rank's output comes between two pieces (or after a last
 * line without '\n'), the launcher ends the open line with '\n' first.  With
 * tagging on, every line starts with "[rank] ".
 *
 * Input: the launcher's stdin is copied to a pipe that is rank 0's stdin,
 * with back-pressure (it stops reading while rank 0 does not drain the pipe).
 */
#ifndef SKIFF_LAUNCHER_IO_FORWARD_H
#define SKIFF_LAUNCHER_IO_FORWARD_H

#include <stddef.h>

#define IO_LINE_MAX 16384   /* longest line passed on in one piece */
#define IO_STDIN_CHUNK 65536

/* One of the launcher's own output streams (its stdout or its stderr). */
typedef struct io_sink {
    int fd;
    int open_rank; /* rank whose unfinished line ends this stream, or -1 */
    int broken;    /* writing failed (EPIPE...): discard from now on      */
} io_sink_t;

/* Offered every complete line of a source (without '\n'): returns 1 when it
 * has taken the line (it is not passed on), 0 to let it through. */
typedef int (*io_line_filter_fn)(void *ctx, int rank, const char *line, size_t len);

/* One pipe carrying a rank's stdout or stderr. */
typedef struct io_source {
    int fd;      /* read end (non-blocking), -1 once at EOF and closed */
    int rank;
    int tag;     /* prefix lines with "[rank] " */
    io_sink_t *sink;
    io_line_filter_fn filter; /* NULL: every line passes */
    void *filter_ctx;
    size_t len;  /* bytes of an unfinished line in buf */
    char buf[IO_LINE_MAX];
} io_source_t;

void io_sink_init(io_sink_t *k, int fd);
/* Write one line of the launcher's own (text without '\n'), first ending a
 * rank's unfinished line if there is one. */
void io_sink_message(io_sink_t *k, const char *text);
void io_source_init(io_source_t *s, int fd, int rank, int tag, io_sink_t *sink);
void io_source_set_filter(io_source_t *s, io_line_filter_fn filter, void *ctx);
/* Read once and pass on every complete line.  Returns 1 while the pipe stays
 * open, 0 at EOF or when the sink broke: then stop watching fd and call
 * io_source_close(). */
int io_source_read(io_source_t *s);
/* Read until the pipe is empty or at EOF (the rank has exited).  Same return. */
int io_source_drain(io_source_t *s);
/* Pass on an unfinished line and close the pipe (idempotent). */
void io_source_close(io_source_t *s);

/* Copying the launcher's stdin to rank 0. */
typedef enum {
    STDIN_WAIT_INPUT,  /* buffer empty: wait for stdin to be readable   */
    STDIN_WAIT_OUTPUT, /* data pending: wait for rank 0's pipe to drain  */
    STDIN_DONE,        /* EOF, error, or rank 0 stopped reading          */
} stdin_state_t;

typedef struct stdin_fwd {
    int in_fd, out_fd; /* out_fd: write end of rank 0's stdin pipe (non-blocking) */
    stdin_state_t state;
    size_t off, len;
    char buf[IO_STDIN_CHUNK];
} stdin_fwd_t;

void stdin_fwd_init(stdin_fwd_t *f, int in_fd, int out_fd);
/* Make progress after in_fd was readable or out_fd writable (either; the
 * state says which one to wait for next).  Never blocks on the pipe.  At
 * STDIN_DONE, stop watching both fds and call stdin_fwd_close(). */
void stdin_fwd_pump(stdin_fwd_t *f);
/* Stop forwarding and close rank 0's pipe (rank 0 then reads EOF). */
void stdin_fwd_close(stdin_fwd_t *f);

#endif /* SKIFF_LAUNCHER_IO_FORWARD_H */
