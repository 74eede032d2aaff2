/*
 * boot_pmi2 — client of the PMI-2 wire protocol over an inherited socket
 * (PMI_FD), as served by Slurm's `srun --mpi=pmi2` plugin and by MPICH's hydra
 * (which speaks PMI-2 to any client that asks for version 2 at init).
 *
 * Framing, as both servers implement it:
 *   - one PMI-1 style line first: "cmd=init pmi_version=2 pmi_subversion=0\n",
 *     answered by "cmd=response_to_init ... rc=0\n";
 *   - from then on every message is a 6-character decimal length, left
 *     aligned and space padded ("42    "), followed by that many bytes of
 *     "key=value;" pairs starting with "cmd=...;".
 * Neither server unescapes ";;" (the specification's escape for ';'), so a ';'
 * in a value is sent as %3B — boot.c's unescape turns it back.
 *
 * As in boot_pmi1.c, every reply is checked (its cmd, rc=, fields by name,
 * numbers strictly); after a protocol error the stream position is unknown and
 * every later call fails at once with the same errno.
 */
#include "boot/boot_internal.h"
#include "pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PMI2_HEADER 6 /* length field of every message after init */
#define PMI2_MAX_PAIRS 32
#define QUOTE_MAX 128

static struct {
    pthread_mutex_t lock; /* one request/reply exchange at a time */
    int fd;
    int broken; /* 0, or the negative errno every call now returns */
    char jobid[BOOT_VAL_MAX];
    char request[PMI_WIRE_LINE_MAX + PMI2_HEADER + 1];
    char reply[PMI_WIRE_LINE_MAX]; /* body as received, for messages */
    char words[PMI_WIRE_LINE_MAX]; /* the same, cut up into kv */
    pmi_kv_t kv[PMI2_MAX_PAIRS];
    int nkv;
} pmi2 = {.lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

static const char *reply_quoted(void)
{
    static char out[QUOTE_MAX];
    size_t i = 0;
    for (; pmi2.reply[i] && i < QUOTE_MAX - 4; i++)
        out[i] = (pmi2.reply[i] >= ' ' && pmi2.reply[i] < 0x7f) ? pmi2.reply[i] : '?';
    strcpy(out + i, pmi2.reply[i] ? "..." : "");
    return out;
}

static int fail(int err)
{
    pmi2.broken = err;
    return err;
}

/* Read exactly len bytes (the server sends nothing unasked, so reading a
 * message's exact size never takes bytes of the next one). */
static int read_exact(char *buf, size_t len, const char *what)
{
    while (len) {
        ssize_t n = read(pmi2.fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            struct pollfd p = {.fd = pmi2.fd, .events = POLLIN};
            poll(&p, 1, -1);
            continue;
        }
        if (n < 0) {
            int err = errno;
            boot_error("reading the PMI-2 reply to %s from fd %d: %s", what, pmi2.fd,
                       strerror(err));
            return fail(-err);
        }
        if (n == 0) {
            boot_error("the launcher closed the PMI connection (fd %d) before replying to %s",
                       pmi2.fd, what);
            return fail(-EPIPE);
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Cut "k1=v1;k2=v2;" (in pmi2.words) into pmi2.kv.  -1 if malformed. */
static int split_pairs(void)
{
    char *p = pmi2.words;
    pmi2.nkv = 0;
    while (*p) {
        char *end = strchr(p, ';');
        char *eq = strchr(p, '=');
        if (!end || !eq || eq > end || eq == p || pmi2.nkv == PMI2_MAX_PAIRS)
            return -1;
        *eq = *end = '\0';
        pmi2.kv[pmi2.nkv].key = p;
        pmi2.kv[pmi2.nkv].val = eq + 1;
        pmi2.nkv++;
        p = end + 1;
    }
    return pmi2.nkv ? 0 : -1;
}

/* Read one length-prefixed message into pmi2.reply / pmi2.kv; its cmd must be
 * expect. */
static int read_message(const char *what, const char *expect)
{
    char header[PMI2_HEADER + 1];
    int rc = read_exact(header, PMI2_HEADER, what);
    if (rc)
        return rc;
    header[PMI2_HEADER] = '\0';
    char *end;
    errno = 0;
    long len = strtol(header, &end, 10);
    end += strspn(end, " ");
    if (errno || end == header || *end || len <= 0) {
        snprintf(pmi2.reply, sizeof pmi2.reply, "%s", header);
        boot_error("malformed PMI-2 length field in the reply to %s: '%s'", what, reply_quoted());
        return fail(-EPROTO);
    }
    if (len >= PMI_WIRE_LINE_MAX) {
        boot_error("over-long PMI reply to %s (more than %d bytes)", what, PMI_WIRE_LINE_MAX);
        return fail(-EMSGSIZE);
    }
    if ((rc = read_exact(pmi2.reply, (size_t)len, what)))
        return rc;
    pmi2.reply[len] = '\0';
    if (memchr(pmi2.reply, '\0', (size_t)len)) {
        boot_error("PMI-2 reply to %s holds a NUL byte", what);
        return fail(-EPROTO);
    }
    memcpy(pmi2.words, pmi2.reply, (size_t)len + 1);
    const char *cmd = split_pairs() ? NULL : pmi_wire_find(pmi2.kv, pmi2.nkv, "cmd");
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

/* Send one request (printf-style body, length prefix added here) and, unless
 * expect is NULL, read its reply. */
static int exchange(const char *what, const char *expect, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int exchange(const char *what, const char *expect, const char *fmt, ...)
{
    if (pmi2.broken)
        return pmi2.broken;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(pmi2.request + PMI2_HEADER, sizeof pmi2.request - PMI2_HEADER, fmt, ap);
    va_end(ap);
    if (len < 0 || len >= PMI_WIRE_LINE_MAX) {
        boot_error("PMI-2 %s request longer than %d bytes", what, PMI_WIRE_LINE_MAX);
        return -EMSGSIZE; /* nothing was sent: the connection is still fine */
    }
    char header[PMI2_HEADER + 1];
    snprintf(header, sizeof header, "%-6d", len);
    memcpy(pmi2.request, header, PMI2_HEADER);
    int rc = boot_send_all(pmi2.fd, pmi2.request, (size_t)len + PMI2_HEADER);
    if (rc) {
        boot_error("sending PMI %s to the launcher (fd %d): %s", what, pmi2.fd, strerror(-rc));
        return fail(rc == -ECONNRESET ? -EPIPE : rc);
    }
    return expect ? read_message(what, expect) : 0;
}

static int field_str(const char *what, const char *key, const char **out)
{
    *out = pmi_wire_find(pmi2.kv, pmi2.nkv, key);
    if (*out)
        return 0;
    boot_error("malformed PMI reply to %s (no %s=): '%s'", what, key, reply_quoted());
    return fail(-EPROTO);
}

static int parse_int(const char *s, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

static int field_int(const char *what, const char *key, long lo, long hi, int *out)
{
    const char *s;
    int rc = field_str(what, key, &s);
    if (rc)
        return rc;
    if (parse_int(s, lo, hi, out) == 0)
        return 0;
    boot_error("malformed PMI reply to %s (%s=%.40s is not a number in [%ld, %ld]): '%s'", what,
               key, s, lo, hi, reply_quoted());
    return fail(-EPROTO);
}

/* Every PMI-2 reply carries rc=; non-zero means the launcher refused (the
 * stream stays in step). */
static int check_rc(const char *what)
{
    int server_rc, rc = field_int(what, "rc", INT_MIN, INT_MAX, &server_rc);
    if (rc || server_rc == 0)
        return rc;
    boot_error("the launcher refused %s (rc=%d): '%s'", what, server_rc, reply_quoted());
    return -EIO;
}

/* found=TRUE|FALSE of a lookup reply: 1, 0, or a negative errno. */
static int found_field(const char *what)
{
    const char *found;
    int rc = field_str(what, "found", &found);
    if (rc)
        return rc;
    if (strcmp(found, "TRUE") == 0 || strcmp(found, "true") == 0)
        return 1;
    if (strcmp(found, "FALSE") == 0 || strcmp(found, "false") == 0)
        return 0;
    boot_error("malformed PMI reply to %s (found=%.20s): '%s'", what, found, reply_quoted());
    return fail(-EPROTO);
}

/* value= of the current reply into out[cap]. */
static int copy_value(const char *what, char *out, size_t cap)
{
    const char *value;
    int rc = field_str(what, "value", &value);
    if (rc)
        return rc;
    size_t len = strlen(value);
    if (len >= cap)
        return -ENOSPC;
    memcpy(out, value, len + 1);
    return 0;
}

/* A job attribute (info-getjobattr) into out[cap]; -ENOENT if the launcher has none. */
static int job_attr_locked(const char *key, char *out, size_t cap)
{
    int rc, found;
    if ((rc = exchange("info-getjobattr", "info-getjobattr-response",
                       "cmd=info-getjobattr;key=%s;", key)) ||
        (rc = check_rc("info-getjobattr")) || (found = found_field("info-getjobattr")) < 0)
        return rc ? rc : found;
    return found ? copy_value("info-getjobattr", out, cap) : -ENOENT;
}

/* The PMI-1 style line that selects version 2, read a byte at a time so that
 * nothing of the framed stream after it is taken. */
static int version_handshake(void)
{
    static const char hello[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    int rc = boot_send_all(pmi2.fd, hello, sizeof hello - 1);
    if (rc) {
        boot_error("sending PMI init to the launcher (fd %d): %s", pmi2.fd, strerror(-rc));
        return fail(rc == -ECONNRESET ? -EPIPE : rc);
    }
    size_t n = 0;
    for (;;) {
        if (n == sizeof pmi2.reply - 1) {
            boot_error("over-long PMI reply to init (more than %zu bytes)", n);
            return fail(-EMSGSIZE);
        }
        if ((rc = read_exact(pmi2.reply + n, 1, "init")))
            return rc;
        if (pmi2.reply[n] == '\n')
            break;
        n++;
    }
    pmi2.reply[n] = '\0';
    memcpy(pmi2.words, pmi2.reply, n + 1);
    pmi2.nkv = pmi_wire_parse(pmi2.words, pmi2.kv, PMI2_MAX_PAIRS);
    const char *cmd = pmi2.nkv > 0 ? pmi_wire_find(pmi2.kv, pmi2.nkv, "cmd") : NULL;
    int v;
    if (!cmd || strcmp(cmd, "response_to_init") != 0) {
        boot_error("unexpected PMI reply to init (wanted cmd=response_to_init): '%s'",
                   reply_quoted());
        return fail(-EPROTO);
    }
    if ((rc = field_int("init", "rc", INT_MIN, INT_MAX, &v)))
        return rc;
    if (v != 0 || (rc = field_int("init", "pmi_version", 0, INT_MAX, &v)) || v != 2) {
        boot_error("the launcher does not speak PMI-2 (it answered '%s'); with srun use "
                   "--mpi=pmi2, or unset SKIFF_PMI",
                   reply_quoted());
        return fail(-EPROTO);
    }
    return 0;
}

int boot_pmi2_init(int fd, boot_info_t *info, boot_limits_t *limits, char *mapping, size_t cap)
{
    int rc, v;
    const char *s;
    pthread_mutex_lock(&pmi2.lock);
    pmi2.fd = fd;
    if ((rc = version_handshake()))
        goto out;
    /* Slurm requires pmijobid (its PMI_JOBID); hydra ignores it. */
    const char *jobid = getenv("PMI_JOBID");
    if ((rc = exchange("fullinit", "fullinit-response",
                       "cmd=fullinit;pmijobid=%.64s;pmirank=%d;threaded=FALSE;",
                       jobid && *jobid ? jobid : "0", info->rank)) ||
        (rc = check_rc("fullinit")) ||
        (rc = field_int("fullinit", "size", 1, INT_MAX, &v)))
        goto out;
    if (v != info->size) {
        boot_error("the launcher says the job has %d ranks, PMI_SIZE says %d", v, info->size);
        rc = fail(-EPROTO);
        goto out;
    }
    if ((rc = field_int("fullinit", "rank", 0, info->size - 1, &v)))
        goto out;
    if (v != info->rank) {
        boot_error("the launcher says this is rank %d, PMI_RANK says %d", v, info->rank);
        rc = fail(-EPROTO);
        goto out;
    }
    info->appnum = 0;
    if ((s = pmi_wire_find(pmi2.kv, pmi2.nkv, "appnum")) && parse_int(s, -1, INT_MAX, &v) == 0)
        info->appnum = v < 0 ? 0 : v; /* Slurm says -1: not known */

    if ((rc = exchange("job-getid", "job-getid-response", "cmd=job-getid;")) ||
        (rc = check_rc("job-getid")) || (rc = field_str("job-getid", "jobid", &s)))
        goto out;
    if (!*s || strlen(s) >= sizeof pmi2.jobid) {
        boot_error("malformed PMI reply to job-getid (empty or over-long jobid): '%s'",
                   reply_quoted());
        rc = fail(-EPROTO);
        goto out;
    }
    strcpy(pmi2.jobid, s);
    strcpy(info->kvsname, s);

    char universe[32];
    info->universe_size = info->size;
    rc = job_attr_locked("universeSize", universe, sizeof universe);
    if (!rc && parse_int(universe, 1, INT_MAX, &v) == 0)
        info->universe_size = v;
    else if (rc && rc != -ENOENT && rc != -ENOSPC)
        goto out;

    rc = job_attr_locked("PMI_process_mapping", mapping, cap);
    if (rc == -ENOENT) {
        mapping[0] = '\0';
        rc = 0;
    } else if (rc == -ENOSPC) {
        boot_error("PMI_process_mapping longer than %zu bytes", cap - 1);
        rc = -EPROTO;
    }
    /* Both servers keep keys and values of up to 1024 bytes (PMI2_MAX_KEYLEN/VALLEN). */
    limits->key_max = BOOT_KEY_MAX;
    limits->wire_max = BOOT_VAL_MAX;
out:
    pthread_mutex_unlock(&pmi2.lock);
    return rc;
}

static int pmi2_put(const char *key, const char *wire_value)
{
    /* ';' ends a value on this wire: send it %-escaped (boot_get unescapes). */
    char value[BOOT_VAL_MAX];
    size_t n = 0;
    for (const char *p = wire_value; *p; p++) {
        const char *piece = *p == ';' ? "%3B" : (char[2]){*p, '\0'};
        size_t len = strlen(piece);
        if (n + len >= sizeof value) {
            boot_error("boot_put: value of key '%s' takes more than %d bytes with ';' escaped",
                       key, BOOT_VAL_MAX - 1);
            return -EMSGSIZE;
        }
        memcpy(value + n, piece, len);
        n += len;
    }
    value[n] = '\0';
    pthread_mutex_lock(&pmi2.lock);
    int rc = exchange("kvs-put", "kvs-put-response", "cmd=kvs-put;key=%s;value=%s;", key, value);
    if (!rc)
        rc = check_rc("kvs-put");
    pthread_mutex_unlock(&pmi2.lock);
    return rc;
}

static int pmi2_get(const char *key, char *out, size_t cap)
{
    int rc, found = 0;
    pthread_mutex_lock(&pmi2.lock);
    if (!(rc = exchange("kvs-get", "kvs-get-response", "cmd=kvs-get;jobid=%s;srcid=-1;key=%s;",
                        pmi2.jobid, key)) &&
        !(rc = check_rc("kvs-get")) && (found = found_field("kvs-get")) >= 0)
        rc = found ? copy_value("kvs-get", out, cap) : -ENOENT;
    pthread_mutex_unlock(&pmi2.lock);
    return rc ? rc : (found < 0 ? found : 0);
}

/* A command without arguments whose answer carries only rc: kvs-fence, finalize. */
static int simple_command(const char *cmd)
{
    char expect[32];
    snprintf(expect, sizeof expect, "%s-response", cmd);
    pthread_mutex_lock(&pmi2.lock);
    int rc = exchange(cmd, expect, "cmd=%s;", cmd);
    if (!rc)
        rc = check_rc(cmd);
    pthread_mutex_unlock(&pmi2.lock);
    return rc;
}

static int pmi2_fence(void)
{
    return simple_command("kvs-fence");
}

static int pmi2_finalize(void)
{
    return simple_command("finalize");
}

/* No lock (see boot_pmi1.c).  PMI-2's abort carries no exit code: Slurm kills
 * the step, hydra the job; the rank's own _exit(code) (boot.c) gives the code. */
static void pmi2_abort(int code, const char *why)
{
    (void)code;
    char msg[512];
    if (pmi_wire_escape(why ? why : "", msg, sizeof msg) < 0)
        strcpy(msg, "(reason too long)");
    for (char *p = msg; *p; p++)
        if (*p == ';')
            *p = ','; /* no escape for ';' on this wire; the text is only shown */
    char line[700];
    int len = snprintf(line + PMI2_HEADER, sizeof line - PMI2_HEADER, "cmd=abort;isworld=TRUE;msg=%s;",
                   msg);
    if (pmi2.fd < 0 || len <= 0 || (size_t)len >= sizeof line - PMI2_HEADER)
        return;
    char header[PMI2_HEADER + 1];
    snprintf(header, sizeof header, "%-6d", len);
    memcpy(line, header, PMI2_HEADER);
    boot_send_all(pmi2.fd, line, (size_t)len + PMI2_HEADER);
}

const boot_backend_t boot_pmi2_backend = {
    .name = "pmi2",
    .put = pmi2_put,
    .get = pmi2_get,
    .fence = pmi2_fence,
    .finalize = pmi2_finalize,
    .abort = pmi2_abort,
};
