/*
 * boot_pmi1 — client of the simple PMI-1 wire protocol over an inherited
 * socket (PMI_FD), as served by skiffrun and MPICH's hydra.
 *
 * Every request gets exactly one reply line (abort gets none).  A reply is
 * checked before use: its cmd must be the one expected, each field is looked
 * up by name (servers differ in word order) and numbers are parsed strictly.
 * Anything else — a malformed or over-long line, the launcher hanging up —
 * leaves the stream in an unknown state, so the connection is marked broken
 * and every later call fails at once with the same error instead of reading
 * someone else's reply.
 */
#include "boot/boot_internal.h"
#include "pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static struct {
    pthread_mutex_t lock; /* one request/reply exchange at a time */
    int fd;
    int broken;           /* 0, or the negative errno every call now returns */
    char kvsname[BOOT_VAL_MAX];
    pmi_linebuf_t in;
    char request[PMI_WIRE_LINE_MAX];
    char reply[PMI_WIRE_LINE_MAX]; /* as received, for error messages */
    char words[PMI_WIRE_LINE_MAX]; /* the same, cut up by pmi_wire_parse */
    pmi_kv_t kv[PMI_WIRE_MAX_WORDS];
    int nkv;
} pmi = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

#define QUOTE_MAX 128

/* Text from the launcher made fit for a one-line message: short, printable. */
static const char *quoted(const char *line, char out[QUOTE_MAX])
{
    size_t i = 0;
    for (; line[i] && i < QUOTE_MAX - 4; i++)
        out[i] = (line[i] >= ' ' && line[i] < 0x7f) ? line[i] : '?';
    strcpy(out + i, line[i] ? "..." : "");
    return out;
}

/* Write all of buf.  A launcher that has gone away must give -EPIPE, not a
 * SIGPIPE that kills the rank, so sockets use MSG_NOSIGNAL; a pipe (not what
 * launchers hand out, but allowed) is written with SIGPIPE held back. */
/* The current reply, quoted. */
static const char *reply_quoted(void)
{
    static char out[QUOTE_MAX];
    return quoted(pmi.reply, out);
}

int boot_send_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK) {
            sigset_t pipe_only, old;
            sigemptyset(&pipe_only);
            sigaddset(&pipe_only, SIGPIPE);
            pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
            int rc = pmi_wire_write_all(fd, buf, len);
            if (rc == -EPIPE) {
                struct timespec zero = {0, 0};
                sigtimedwait(&pipe_only, NULL, &zero); /* consume the pending SIGPIPE */
            }
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            return rc;
        }
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                struct pollfd p = {.fd = fd, .events = POLLOUT};
                poll(&p, 1, -1);
                continue;
            }
            return -errno;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int fail(int err)
{
    pmi.broken = err;
    return err;
}

/* Read the next reply line into pmi.reply. */
static int read_reply(const char *what)
{
    for (;;) {
        int rc = pmi_linebuf_next(&pmi.in, pmi.reply, sizeof pmi.reply);
        if (rc == 1)
            return 0;
        if (rc < 0 || pmi.in.overflow) {
            boot_error("over-long PMI reply to %s (more than %d bytes)", what, PMI_WIRE_LINE_MAX);
            return fail(-EMSGSIZE);
        }
        long n = pmi_linebuf_fill(&pmi.in, pmi.fd);
        if (n == -EAGAIN) {
            struct pollfd p = {.fd = pmi.fd, .events = POLLIN};
            poll(&p, 1, -1);
            continue;
        }
        if (n == 0) {
            boot_error("the launcher closed the PMI connection (fd %d) before replying to %s",
                       pmi.fd, what);
            return fail(-EPIPE);
        }
        if (n < 0) {
            boot_error("reading the PMI reply to %s from fd %d: %s", what, pmi.fd, strerror((int)-n));
            return fail((int)n);
        }
        if (pmi.in.overflow) {
            boot_error("over-long PMI reply to %s (more than %d bytes)", what, PMI_WIRE_LINE_MAX);
            return fail(-EMSGSIZE);
        }
    }
}

/* Send one request (printf-style) and read its reply, which must carry
 * cmd=expect; the reply's words are then in pmi.kv.  what names the request
 * in messages.  expect NULL: no reply is awaited (abort). */
static int exchange(const char *what, const char *expect, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int exchange(const char *what, const char *expect, const char *fmt, ...)
{
    if (pmi.broken)
        return pmi.broken;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(pmi.request, sizeof pmi.request, fmt, ap);
    va_end(ap);
    if (len < 0 || (size_t)len >= sizeof pmi.request) {
        boot_error("PMI %s request longer than one line (%d bytes)", what, PMI_WIRE_LINE_MAX);
        return -EMSGSIZE; /* nothing was sent: the connection is still fine */
    }
    int rc = boot_send_all(pmi.fd, pmi.request, (size_t)len);
    if (rc) {
        boot_error("sending PMI %s to the launcher (fd %d): %s", what, pmi.fd, strerror(-rc));
        return fail(rc == -ECONNRESET ? -EPIPE : rc);
    }
    if (!expect)
        return 0;
    if ((rc = read_reply(what)))
        return rc;
    memcpy(pmi.words, pmi.reply, sizeof pmi.words);
    pmi.nkv = pmi_wire_parse(pmi.words, pmi.kv, PMI_WIRE_MAX_WORDS);
    const char *cmd = pmi.nkv > 0 ? pmi_wire_find(pmi.kv, pmi.nkv, "cmd") : NULL;
    if (!cmd) {
        boot_error("malformed PMI reply to %s: '%s'", what, reply_quoted());
        return fail(-EPROTO);
    }
    if (strcmp(cmd, expect) != 0) {
        boot_error("unexpected PMI reply to %s (wanted cmd=%s): '%s'", what, expect,
                   reply_quoted());
        return fail(-EPROTO);
    }
    return 0;
}

/* Field of the current reply as text; a missing field breaks the protocol. */
static int field_str(const char *what, const char *key, const char **out)
{
    *out = pmi_wire_find(pmi.kv, pmi.nkv, key);
    if (*out)
        return 0;
    boot_error("malformed PMI reply to %s (no %s=): '%s'", what, key, reply_quoted());
    return fail(-EPROTO);
}

/* Field of the current reply as an integer in [lo, hi]. */
static int field_int(const char *what, const char *key, long lo, long hi, int *out)
{
    const char *s;
    int rc = field_str(what, key, &s);
    if (rc)
        return rc;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        char value[QUOTE_MAX];
        boot_error("malformed PMI reply to %s (%s=%s is not a number in [%ld, %ld]): '%s'", what,
                   key, quoted(s, value), lo, hi, reply_quoted());
        return fail(-EPROTO);
    }
    *out = (int)v;
    return 0;
}

/* The rc= field every *_result reply carries (0: the launcher did it). */
static int reply_rc(const char *what, int *server_rc)
{
    return field_int(what, "rc", INT_MIN, INT_MAX, server_rc);
}

/* Replies without a result of their own (maxes, barrier_out, ...) may still
 * carry rc= with an error from the launcher; the stream stays in step. */
static int check_accepted(const char *what)
{
    int server_rc = 0;
    if (!pmi_wire_find(pmi.kv, pmi.nkv, "rc"))
        return 0;
    int rc = reply_rc(what, &server_rc);
    if (rc || server_rc == 0)
        return rc;
    boot_error("the launcher refused %s (rc=%d): '%s'", what, server_rc, reply_quoted());
    return -EIO;
}

static int pmi1_get_locked(const char *key, char *out, size_t cap)
{
    int rc, server_rc;
    const char *value;
    if ((rc = exchange("get", "get_result", "cmd=get kvsname=%s key=%s\n", pmi.kvsname, key)) ||
        (rc = reply_rc("get", &server_rc)))
        return rc;
    if (server_rc != 0)
        return -ENOENT;
    if ((rc = field_str("get", "value", &value)))
        return rc;
    size_t len = strlen(value);
    if (len >= cap)
        return -ENOSPC;
    memcpy(out, value, len + 1);
    return 0;
}

int boot_pmi1_init(int fd, boot_info_t *info, boot_limits_t *limits, char *mapping, size_t cap)
{
    int rc, v;
    const char *s;
    pthread_mutex_lock(&pmi.lock);
    pmi.fd = fd;
    /* init: the launcher must speak version 1. */
    if ((rc = exchange("init", "response_to_init", "cmd=init pmi_version=1 pmi_subversion=1\n")) ||
        (rc = reply_rc("init", &v)))
        goto out;
    if (v != 0) {
        boot_error("the launcher refused PMI init (rc=%d): '%s'", v, reply_quoted());
        rc = fail(-EPROTO);
        goto out;
    }
    if (pmi_wire_find(pmi.kv, pmi.nkv, "pmi_version") &&
        ((rc = field_int("init", "pmi_version", 1, 1, &v))))
        goto out;

    int kvsname_max, keylen_max, vallen_max;
    if ((rc = exchange("get_maxes", "maxes", "cmd=get_maxes\n")) ||
        (rc = check_accepted("get_maxes")) ||
        (rc = field_int("get_maxes", "kvsname_max", 2, PMI_WIRE_LINE_MAX, &kvsname_max)) ||
        (rc = field_int("get_maxes", "keylen_max", 2, PMI_WIRE_LINE_MAX, &keylen_max)) ||
        (rc = field_int("get_maxes", "vallen_max", 2, PMI_WIRE_LINE_MAX, &vallen_max)))
        goto out;
    /* The launcher's limits count the NUL, as ours do (hydra keeps 1023 bytes
     * of a value when it says vallen_max=1024). */
    limits->key_max = keylen_max < BOOT_KEY_MAX ? (size_t)keylen_max : BOOT_KEY_MAX;
    limits->wire_max = (size_t)vallen_max;

    if ((rc = exchange("get_my_kvsname", "my_kvsname", "cmd=get_my_kvsname\n")) ||
        (rc = check_accepted("get_my_kvsname")) ||
        (rc = field_str("get_my_kvsname", "kvsname", &s)))
        goto out;
    if (!*s || strlen(s) >= (size_t)kvsname_max || strlen(s) >= sizeof pmi.kvsname) {
        boot_error("malformed PMI reply to get_my_kvsname (name empty or longer than %d): '%s'",
                   kvsname_max, reply_quoted());
        rc = fail(-EPROTO);
        goto out;
    }
    strcpy(pmi.kvsname, s);
    strcpy(info->kvsname, s);

    if ((rc = exchange("get_appnum", "appnum", "cmd=get_appnum\n")) ||
        (rc = check_accepted("get_appnum")) ||
        (rc = field_int("get_appnum", "appnum", -1, INT_MAX, &info->appnum)))
        goto out;
    if ((rc = exchange("get_universe_size", "universe_size", "cmd=get_universe_size\n")) ||
        (rc = check_accepted("get_universe_size")) ||
        (rc = field_int("get_universe_size", "size", INT_MIN, INT_MAX, &v)))
        goto out;
    info->universe_size = v > 0 ? v : info->size; /* hydra says -1: unknown */

    rc = pmi1_get_locked("PMI_process_mapping", mapping, cap);
    if (rc == -ENOENT) {
        mapping[0] = '\0';
        rc = 0;
    } else if (rc == -ENOSPC) {
        boot_error("PMI_process_mapping longer than %zu bytes", cap - 1);
        rc = -EPROTO;
    }
out:
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

static int pmi1_put(const char *key, const char *wire_value)
{
    int rc, server_rc;
    pthread_mutex_lock(&pmi.lock);
    if (!(rc = exchange("put", "put_result", "cmd=put kvsname=%s key=%s value=%s\n", pmi.kvsname,
                        key, wire_value)) &&
        !(rc = reply_rc("put", &server_rc)) && server_rc != 0) {
        boot_error("the launcher refused put of key '%s' (rc=%d): '%s'", key, server_rc,
                   reply_quoted());
        rc = -EIO;
    }
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

static int pmi1_get(const char *key, char *out, size_t cap)
{
    pthread_mutex_lock(&pmi.lock);
    int rc = pmi1_get_locked(key, out, cap);
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

static int pmi1_fence(void)
{
    pthread_mutex_lock(&pmi.lock);
    int rc = exchange("barrier", "barrier_out", "cmd=barrier_in\n");
    if (!rc)
        rc = check_accepted("barrier");
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

static int pmi1_finalize(void)
{
    pthread_mutex_lock(&pmi.lock);
    int rc = exchange("finalize", "finalize_ack", "cmd=finalize\n");
    if (!rc)
        rc = check_accepted("finalize");
    pthread_mutex_unlock(&pmi.lock);
    return rc;
}

/* No lock: abort may be called from anywhere, even while another thread
 * waits in a fence; a torn line only costs the launcher the message. */
static void pmi1_abort(int code, const char *why)
{
    char msg[512];
    if (pmi_wire_escape(why ? why : "", msg, sizeof msg) < 0)
        strcpy(msg, "(reason too long)");
    char line[700];
    int len = snprintf(line, sizeof line, "cmd=abort exitcode=%d msg=%s\n", code, msg);
    if (pmi.fd >= 0 && len > 0 && (size_t)len < sizeof line)
        boot_send_all(pmi.fd, line, (size_t)len);
}

const boot_backend_t boot_pmi1_backend = {
    .name = "pmi1",
    .put = pmi1_put,
    .get = pmi1_get,
    .fence = pmi1_fence,
    .finalize = pmi1_finalize,
    .abort = pmi1_abort,
};
