/* io_forward — line-preserving output forwarding and stdin to rank 0
 * (see io_forward.h). */
#include "io_forward.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DRAIN_READS_MAX 256 /* a dead rank's pipe holds at most a few of them */

/* Output of one pass over a source is staged here and written with as few
 * write(2) calls as possible; the launcher is single-threaded. */
static char staged[2 * IO_LINE_MAX + 64];
static size_t nstaged;

void io_sink_init(io_sink_t *k, int fd)
{
    k->fd = fd;
    k->open_rank = -1;
    k->broken = 0;
}

/* Write everything, waiting if the launcher's own stdout/stderr is a
 * non-blocking file that is full. */
static void sink_write(io_sink_t *k, const char *p, size_t n)
{
    while (n && !k->broken) {
        ssize_t w = write(k->fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EAGAIN) {
            struct pollfd pfd = {.fd = k->fd, .events = POLLOUT};
            poll(&pfd, 1, -1);
        } else if (!(w < 0 && errno == EINTR)) {
            k->broken = 1; /* EPIPE and friends: the reader is gone */
        }
    }
}

void io_sink_message(io_sink_t *k, const char *text)
{
    char line[2048];
    int n = snprintf(line, sizeof line, "%s%s\n", k->open_rank >= 0 ? "\n" : "", text);
    if (n >= (int)sizeof line) { /* cut, but still one line */
        n = (int)sizeof line - 1;
        line[n - 1] = '\n';
    }
    k->open_rank = -1;
    sink_write(k, line, (size_t)n);
}

static void flush_staged(io_sink_t *k)
{
    sink_write(k, staged, nstaged);
    nstaged = 0;
}

static void stage(io_sink_t *k, const char *p, size_t n)
{
    if (nstaged + n > sizeof staged)
        flush_staged(k);
    memcpy(staged + nstaged, p, n);
    nstaged += n;
}

/* Pass on one line, or a piece of one when ends_line is 0. */
static void emit(io_source_t *s, const char *p, size_t n, int ends_line)
{
    io_sink_t *k = s->sink;
    if (k->open_rank >= 0 && k->open_rank != s->rank) {
        stage(k, "\n", 1); /* another rank left its line unfinished: end it */
        k->open_rank = -1;
    }
    if (k->open_rank < 0 && s->tag) {
        char tag[24];
        int t = snprintf(tag, sizeof tag, "[%d] ", s->rank);
        stage(k, tag, (size_t)t);
    }
    stage(k, p, n);
    k->open_rank = ends_line ? -1 : s->rank;
}

/* Pass on the complete lines in buf; the unfinished rest too when the
 * buffer is full or at EOF. */
static void pass_lines(io_source_t *s, int at_eof)
{
    char *p = s->buf, *end = s->buf + s->len, *nl;
    while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        /* A whole line (not the end of one passed on in pieces) may be taken. */
        int whole = s->sink->open_rank != s->rank;
        if (!(whole && s->filter && s->filter(s->filter_ctx, s->rank, p, (size_t)(nl - p))))
            emit(s, p, (size_t)(nl - p) + 1, 1);
        p = nl + 1;
    }
    size_t rest = (size_t)(end - p);
    if (rest && (at_eof || rest == sizeof s->buf)) {
        emit(s, p, rest, 0);
        rest = 0;
    }
    memmove(s->buf, p, rest);
    s->len = rest;
    flush_staged(s->sink);
}

void io_source_init(io_source_t *s, int fd, int rank, int tag, io_sink_t *sink)
{
    s->fd = fd;
    s->rank = rank;
    s->tag = tag;
    s->sink = sink;
    s->len = 0;
    s->filter = NULL;
    s->filter_ctx = NULL;
}

void io_source_set_filter(io_source_t *s, io_line_filter_fn filter, void *ctx)
{
    s->filter = filter;
    s->filter_ctx = ctx;
}

void io_source_close(io_source_t *s)
{
    if (s->fd < 0)
        return;
    pass_lines(s, 1);
    close(s->fd);
    s->fd = -1;
}

/* One read: 1 data passed on, 0 EOF (closed), -1 nothing there now. */
static int read_once(io_source_t *s)
{
    if (s->fd < 0)
        return 0;
    ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return -1;
    if (n > 0) {
        s->len += (size_t)n;
        pass_lines(s, 0);
    }
    /* A broken sink ends the pipe too: once the caller closes it, the rank
     * gets EPIPE/SIGPIPE on its next write, as if it had written to the
     * closed stream itself. */
    return (n <= 0 || s->sink->broken) ? 0 : 1;
}

int io_source_read(io_source_t *s)
{
    return read_once(s) != 0;
}

int io_source_drain(io_source_t *s)
{
    for (int i = 0; i < DRAIN_READS_MAX; i++) {
        int rc = read_once(s);
        if (rc <= 0)
            return rc == 0 ? 0 : 1;
    }
    return 1;
}

void stdin_fwd_init(stdin_fwd_t *f, int in_fd, int out_fd)
{
    f->in_fd = in_fd;
    f->out_fd = out_fd;
    f->off = f->len = 0;
    f->state = out_fd >= 0 ? STDIN_WAIT_INPUT : STDIN_DONE;
}

void stdin_fwd_close(stdin_fwd_t *f)
{
    if (f->out_fd >= 0)
        close(f->out_fd);
    f->out_fd = -1;
    f->state = STDIN_DONE;
}

void stdin_fwd_pump(stdin_fwd_t *f)
{
    if (f->state == STDIN_WAIT_INPUT) {
        ssize_t n = read(f->in_fd, f->buf, sizeof f->buf);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (n <= 0) { /* EOF (or an unreadable stdin): rank 0 is to see EOF */
            f->state = STDIN_DONE;
            return;
        }
        f->off = 0;
        f->len = (size_t)n;
        f->state = STDIN_WAIT_OUTPUT;
    }
    if (f->state == STDIN_WAIT_OUTPUT) {
        ssize_t w = write(f->out_fd, f->buf + f->off, f->len - f->off);
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        if (w < 0) { /* EPIPE: rank 0 closed its stdin or exited */
            f->state = STDIN_DONE;
            return;
        }
        f->off += (size_t)w;
        if (f->off == f->len)
            f->state = STDIN_WAIT_INPUT;
    }
}
