/* pmi_server — PMI-1 wire protocol server, one state machine per connection
 * (see pmi_server.h). */
#include "pmi_server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAPPING_KEY "PMI_process_mapping"

int pmi_mapping_format(const pmi_map_block_t *blocks, int nblocks, char *out, size_t cap)
{
    size_t len = 0;
    int n = snprintf(out, cap, "(vector");
    if (n < 0 || (size_t)n >= cap)
        return -1;
    len = (size_t)n;
    for (int i = 0; i < nblocks; i++) {
        n = snprintf(out + len, cap - len, ",(%d,%d,%d)", blocks[i].first_node,
                     blocks[i].num_nodes, blocks[i].ranks_per_node);
        if (n < 0 || (size_t)n >= cap - len)
            return -1;
        len += (size_t)n;
    }
    if (len + 2 > cap)
        return -1;
    out[len++] = ')';
    out[len] = '\0';
    return (int)len;
}

int pmi_server_init(pmi_server_t *s, int size, const char *kvsname, const char *process_mapping,
                    const pmi_server_ops_t *ops, void *ctx)
{
    memset(s, 0, sizeof *s);
    if (strlen(kvsname) >= sizeof s->kvsname || strlen(process_mapping) >= PMI_VAL_MAX)
        return -1;
    strcpy(s->kvsname, kvsname);
    s->size = size;
    s->ops = ops;
    s->ctx = ctx;
    s->conns = calloc((size_t)size, sizeof *s->conns);
    if (!s->conns || kvs_init(&s->kvs) != 0) {
        free(s->conns);
        return -1;
    }
    for (int r = 0; r < size; r++) {
        s->conns[r].fd = -1;
        s->conns[r].rank = r;
    }
    if (kvs_put(&s->kvs, MAPPING_KEY, process_mapping, KVS_OWNER_LAUNCHER, NULL) != KVS_OK) {
        pmi_server_destroy(s);
        return -1;
    }
    return 0;
}

void pmi_server_destroy(pmi_server_t *s)
{
    if (s->conns)
        for (int r = 0; r < s->size; r++)
            if (s->conns[r].fd >= 0)
                close(s->conns[r].fd);
    free(s->conns);
    s->conns = NULL;
    kvs_destroy(&s->kvs);
}

void pmi_server_attach(pmi_server_t *s, int rank, int fd)
{
    pmi_conn_t *c = &s->conns[rank];
    c->fd = fd;
    c->in.len = 0;
    c->in.overflow = 0;
}

/* Copy at most cap-1 bytes of text, replacing anything unprintable, so that
 * what a rank sent can be quoted on one line of the launcher's stderr. */
static void printable(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (; *in && o + 1 < cap; in++)
        out[o++] = ((unsigned char)*in < 0x20 || (unsigned char)*in == 0x7f) ? '?' : *in;
    out[o] = '\0';
}

/* One line on stderr about a protocol error of this rank (the first few only:
 * a broken client must not flood the terminal). */
__attribute__((format(printf, 4, 5))) static void report(pmi_server_t *s, pmi_conn_t *c,
                                                         const char *cmd, const char *fmt, ...)
{
    if (++c->nerrors > PMI_ERRORS_SHOWN)
        return;
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    char quoted[80] = "line";
    if (cmd) {
        memcpy(quoted, "cmd=", 4);
        printable(cmd, quoted + 4, sizeof quoted - 4);
    }
    char line[800];
    snprintf(line, sizeof line, "skiffrun: rank %d: PMI %s: %s%s", c->rank, quoted, what,
             c->nerrors == PMI_ERRORS_SHOWN ? " (further PMI errors of this rank not shown)" : "");
    s->ops->log(s->ctx, line);
}

/* Send one reply line.  PMI is request/response, so a well-behaved client
 * always has room for our answer; a client that lets replies pile up until
 * the socket buffer is full is cut off rather than allowed to block the
 * launcher's single event loop. */
__attribute__((format(printf, 3, 4))) static void reply(pmi_server_t *s, pmi_conn_t *c,
                                                        const char *fmt, ...)
{
    if (c->gone)
        return;
    char line[PMI_WIRE_LINE_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line - 1)
        n = snprintf(line, sizeof line - 1, "cmd=error rc=-1 msg=reply_too_long");
    line[n++] = '\n';
    ssize_t w;
    do
        w = send(c->fd, line, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
    while (w < 0 && errno == EINTR);
    if (w == n)
        return;
    if (w < 0 && (errno == EPIPE || errno == ECONNRESET)) {
        c->gone = 1; /* the rank went away; the read side will see EOF */
        return;
    }
    report(s, c, NULL, "rank does not read its PMI replies (socket full); connection closed");
    c->gone = 1;
    shutdown(c->fd, SHUT_RDWR); /* the loop sees EOF and detaches it */
}

static void error_reply(pmi_server_t *s, pmi_conn_t *c, const char *reply_cmd,
                        const char *msg)
{
    reply(s, c, "cmd=%s rc=-1 msg=%s", reply_cmd, msg);
}

typedef struct request {
    const char *cmd;
    pmi_kv_t kv[PMI_WIRE_MAX_WORDS];
    int nkv;
} request_t;

static const char *arg(const request_t *q, const char *key)
{
    return pmi_wire_find(q->kv, q->nkv, key);
}

/* Checks shared by put and get; answers the error itself and returns 0 when
 * the request is unusable. */
static int check_kvs_request(pmi_server_t *s, pmi_conn_t *c, const request_t *q,
                             const char *reply_cmd, const char **key)
{
    const char *kvsname = arg(q, "kvsname");
    *key = arg(q, "key");
    if (!kvsname || strcmp(kvsname, s->kvsname) != 0) {
        report(s, c, q->cmd, "unknown kvsname '%.64s' (this job's is '%s')",
               kvsname ? kvsname : "(missing)", s->kvsname);
        error_reply(s, c, reply_cmd, "unknown_kvsname");
        return 0;
    }
    if (!*key || !**key) {
        report(s, c, q->cmd, "missing key");
        error_reply(s, c, reply_cmd, "missing_key");
        return 0;
    }
    if (strlen(*key) >= PMI_KEY_MAX) {
        report(s, c, q->cmd, "key of %zu bytes is longer than keylen_max-1 = %d", strlen(*key),
               PMI_KEY_MAX - 1);
        error_reply(s, c, reply_cmd, "key_too_long");
        return 0;
    }
    return 1;
}

static void do_init(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    const char *ver = arg(q, "pmi_version");
    if (!ver || strcmp(ver, "1") != 0) {
        report(s, c, q->cmd, "unsupported pmi_version '%.16s' (only 1 is served)", ver ? ver : "");
        reply(s, c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 msg=unsupported_version");
        return;
    }
    c->initialized = 1;
    reply(s, c, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0");
}

static void do_get_maxes(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    (void)q;
    reply(s, c, "cmd=maxes rc=0 kvsname_max=%d keylen_max=%d vallen_max=%d", PMI_KVSNAME_MAX,
          PMI_KEY_MAX, PMI_VAL_MAX);
}

static void do_get_appnum(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    (void)q;
    reply(s, c, "cmd=appnum rc=0 appnum=0");
}

static void do_get_universe_size(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    (void)q;
    reply(s, c, "cmd=universe_size rc=0 size=%d", s->universe_size > 0 ? s->universe_size : s->size);
}

static void do_get_my_kvsname(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    (void)q;
    reply(s, c, "cmd=my_kvsname rc=0 kvsname=%s", s->kvsname);
}

static void do_put(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    const char *key, *value = arg(q, "value");
    if (!check_kvs_request(s, c, q, "put_result", &key))
        return;
    if (!value) {
        report(s, c, q->cmd, "key '%s': missing value", key);
        error_reply(s, c, "put_result", "missing_value");
        return;
    }
    if (strlen(value) >= PMI_VAL_MAX) {
        report(s, c, q->cmd, "key '%s': value of %zu bytes is longer than vallen_max-1 = %d", key,
               strlen(value), PMI_VAL_MAX - 1);
        error_reply(s, c, "put_result", "value_too_long");
        return;
    }
    int owner = 0;
    switch (kvs_put(&s->kvs, key, value, c->rank, &owner)) {
    case KVS_OK:
    case KVS_REPLACED:
        reply(s, c, "cmd=put_result rc=0");
        return;
    case KVS_OWNED_BY_OTHER:
        if (owner == KVS_OWNER_LAUNCHER)
            report(s, c, q->cmd, "key '%s' is reserved by the launcher", key);
        else
            report(s, c, q->cmd, "key '%s' was already put by rank %d", key, owner);
        error_reply(s, c, "put_result", "duplicate_key");
        return;
    case KVS_FULL:
        report(s, c, q->cmd, "key-value store full (%u keys)", KVS_MAX_ENTRIES);
        error_reply(s, c, "put_result", "kvs_full");
        return;
    case KVS_NO_MEMORY:
        report(s, c, q->cmd, "out of memory");
        error_reply(s, c, "put_result", "no_memory");
        return;
    }
}

static void do_get(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    const char *key;
    if (!check_kvs_request(s, c, q, "get_result", &key))
        return;
    const char *value = kvs_get(&s->kvs, key);
    if (value)
        reply(s, c, "cmd=get_result rc=0 value=%s", value);
    else
        reply(s, c, "cmd=get_result rc=-1 msg=key_not_found"); /* normal: callers probe */
}

/* Everyone is in: answer them all and start the next round. */
static void release_barrier(pmi_server_t *s)
{
    for (int r = 0; r < s->size; r++) {
        pmi_conn_t *c = &s->conns[r];
        if (!c->in_barrier)
            continue;
        c->in_barrier = 0;
        reply(s, c, "cmd=barrier_out");
        if (c->fd < 0) /* detached while waiting: from now on it is missing */
            s->ngone_outside_barrier++;
    }
    s->nin_barrier = 0;
}

/* A barrier with waiters and a member that can never come ends the job,
 * instead of leaving the waiters hanging forever. */
static void check_barrier_possible(pmi_server_t *s, int gone_rank)
{
    if (s->job_ended || s->nin_barrier == 0 || s->ngone_outside_barrier == 0)
        return;
    if (gone_rank < 0)
        for (int r = 0; r < s->size; r++)
            if (s->conns[r].fd < 0 && !s->conns[r].in_barrier) {
                gone_rank = r;
                break;
            }
    s->job_ended = 1;
    s->ops->barrier_broken(s->ctx, gone_rank, s->nin_barrier);
}

static void do_barrier_in(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    (void)q;
    c->in_barrier = 1;
    if (++s->nin_barrier == s->size)
        release_barrier(s);
    else
        check_barrier_possible(s, -1);
}

static void do_finalize(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    (void)q;
    c->finalized = 1;
    reply(s, c, "cmd=finalize_ack");
}

static void do_abort(pmi_server_t *s, pmi_conn_t *c, const request_t *q)
{
    const char *code_s = arg(q, "exitcode"), *msg = arg(q, "msg");
    char *end = NULL;
    long code = code_s ? strtol(code_s, &end, 10) : 1;
    if (code_s && (end == code_s || *end)) {
        report(s, c, q->cmd, "exitcode '%.32s' is not a number; using 1", code_s);
        code = 1;
    }
    char text[PMI_VAL_MAX], shown[PMI_VAL_MAX];
    if (msg) {
        if (pmi_wire_unescape(msg, text, sizeof text) < 0)
            snprintf(text, sizeof text, "%s", msg);
        printable(text, shown, sizeof shown);
    }
    c->aborted = 1; /* every abort is passed on: the job keeps the first (or a worse cause) */
    if (code > 1000000 || code < -1000000)
        code = 1; /* keep it an int; the job maps it to an exit status */
    s->ops->abort(s->ctx, c->rank, (int)code, msg ? shown : NULL);
}

typedef struct command {
    const char *name;
    const char *reply_cmd; /* for error replies */
    void (*serve)(pmi_server_t *, pmi_conn_t *, const request_t *);
} command_t;

static const command_t commands[] = {
    {"init", "response_to_init", do_init},
    {"get_maxes", "maxes", do_get_maxes},
    {"get_appnum", "appnum", do_get_appnum},
    {"get_universe_size", "universe_size", do_get_universe_size},
    {"get_my_kvsname", "my_kvsname", do_get_my_kvsname},
    {"put", "put_result", do_put},
    {"get", "get_result", do_get},
    {"barrier_in", "barrier_out", do_barrier_in},
    {"finalize", "finalize_ack", do_finalize},
    {"abort", NULL, do_abort},
};

static void serve_line(pmi_server_t *s, pmi_conn_t *c, char *line)
{
    request_t q;
    q.nkv = pmi_wire_parse(line, q.kv, PMI_WIRE_MAX_WORDS);
    if (q.nkv == 0)
        return; /* blank line: nothing asked */
    if (q.nkv < 0) {
        report(s, c, NULL, "malformed (a word without '=' or more than %d words)",
               PMI_WIRE_MAX_WORDS);
        error_reply(s, c, "error", "malformed_line");
        return;
    }
    q.cmd = arg(&q, "cmd");
    if (!q.cmd) {
        report(s, c, NULL, "no cmd= word (first word '%.40s=')", q.kv[0].key);
        error_reply(s, c, "error", "missing_cmd");
        return;
    }
    const command_t *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, q.cmd) == 0)
            cmd = &commands[i];
    if (!cmd) {
        report(s, c, q.cmd, "unknown command");
        error_reply(s, c, "error", "unknown_command");
        return;
    }
    if (c->finalized && cmd->serve != do_abort) {
        report(s, c, q.cmd, "command after finalize");
        error_reply(s, c, cmd->reply_cmd, "after_finalize");
        return;
    }
    if (c->in_barrier && cmd->serve != do_abort) {
        report(s, c, q.cmd, "command while waiting in barrier_in");
        error_reply(s, c, cmd->reply_cmd ? cmd->reply_cmd : "error", "in_barrier");
        return;
    }
    cmd->serve(s, c, &q);
}

int pmi_server_serve(pmi_server_t *s, int rank)
{
    pmi_conn_t *c = &s->conns[rank];
    if (c->fd < 0)
        return 0;
    long n = pmi_linebuf_fill(&c->in, c->fd);
    if (n == -EAGAIN || n == -EWOULDBLOCK)
        return 1;
    char line[PMI_WIRE_LINE_MAX];
    int rc;
    while (!c->aborted && !c->gone && (rc = pmi_linebuf_next(&c->in, line, sizeof line)) != 0) {
        if (rc < 0) {
            report(s, c, NULL, "longer than %d bytes; dropped", PMI_WIRE_LINE_MAX - 1);
            error_reply(s, c, "error", "line_too_long");
            continue;
        }
        if (!s->job_ended)
            serve_line(s, c, line);
    }
    if (n <= 0 && n != -EAGAIN) {
        if (n < 0 && n != -ECONNRESET)
            report(s, c, NULL, "read failed: %s", strerror((int)-n));
        return 0;
    }
    return !c->gone;
}

void pmi_server_detach(pmi_server_t *s, int rank)
{
    pmi_conn_t *c = &s->conns[rank];
    if (c->fd < 0 && c->gone)
        return;
    if (c->fd >= 0) /* a remote rank may end before it ever connected */
        close(c->fd);
    c->fd = -1;
    c->gone = 1;
    if (!c->in_barrier)
        s->ngone_outside_barrier++;
    check_barrier_possible(s, rank);
}
