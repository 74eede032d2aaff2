/*
 * boot_proto_test — the PMI-1 client against a scripted fake launcher.
 *
 * Each scenario forks a child that runs boot calls as a rank would, talking
 * over a socketpair to the parent, which plays the launcher from a script:
 * it checks every request line byte for byte and answers with good, reordered,
 * malformed, over-long or missing replies, or hangs up.  The child asserts
 * the return codes; the parent asserts the child's exit status and that its
 * stderr carries the expected one-line error.  Every wait is bounded.
 */
#include "boot/boot.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HANG_GUARD_MS 10000

/* Reply markers that are not text. */
#define REPLY_CLOSE "<close>"     /* hang up */
#define REPLY_NONE "<none>"       /* expect the request, answer nothing */
#define REPLY_ENDLESS "<endless>" /* 8000 bytes without a newline, stay open */
#define EXPECT_NOTHING ""         /* act without waiting for a request */

typedef struct step {
    const char *expect; /* the exact request line (without '\n') */
    const char *reply;  /* the line to answer (without '\n'), or a marker */
} step_t;

typedef struct scenario {
    const char *name;
    const char *env[6];     /* NAME=VALUE for the child, besides PMI_FD */
    step_t steps[16];       /* ends at the first step with expect == NULL */
    int (*client)(void);    /* runs in the child; 0 = all its checks held */
    int exit_status;        /* of the child */
    const char *stderr_has; /* substring its stderr must contain, or NULL */
} scenario_t;

#define MAPPING_2x2 "cmd=get_result rc=0 msg=success value=(vector,(0,2,2))"
#define NO_MAPPING "cmd=get_result rc=-1 msg=key_PMI_process_mapping_not_found value=unknown"
#define HANDSHAKE(mapping_reply)                                                              \
    {"cmd=init pmi_version=1 pmi_subversion=1",                                               \
     "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"},                             \
        {"cmd=get_maxes", "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"},         \
        {"cmd=get_my_kvsname", "cmd=my_kvsname kvsname=kvs_test"},                            \
        {"cmd=get_appnum", "cmd=appnum appnum=0"},                                            \
        {"cmd=get_universe_size", "cmd=universe_size size=4"},                                \
    {                                                                                         \
        "cmd=get kvsname=kvs_test key=PMI_process_mapping", mapping_reply                     \
    }

static boot_info_t *info;
static char got[BOOT_VAL_MAX];

/* ---- clients (run in the child) ---- */

static int client_normal(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    CHECK_EQ_INT(info->rank, 2);
    CHECK_EQ_INT(info->size, 4);
    CHECK_EQ_INT(info->singleton, 0);
    CHECK_EQ_INT(info->universe_size, 4);
    CHECK_EQ_INT(info->num_nodes, 2);
    int want_nodes[4] = {0, 0, 1, 1};
    for (int r = 0; r < 4; r++)
        CHECK_EQ_INT(info->node_of_rank[r], want_nodes[r]);
    CHECK_EQ_INT(info->local_rank, 0);
    CHECK_EQ_INT(info->local_size, 2);
    CHECK_EQ_INT(info->local_ranks[0], 2);
    CHECK_EQ_INT(info->local_ranks[1], 3);
    CHECK(strcmp(info->kvsname, "kvs_test") == 0);
    CHECK(strcmp(info->job_key, "0123456789abcdef0123456789ABCDEF") == 0);
    int fd = atoi(getenv("PMI_FD"));
    CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC); /* programs the rank runs do not inherit it */
    CHECK_EQ_INT(boot_put("k", "a b=c%"), 0);
    CHECK_EQ_INT(boot_fence(), 0);
    CHECK_EQ_INT(boot_get("k", got, sizeof got), 0); /* reply words in another order */
    CHECK(strcmp(got, "x y") == 0);
    CHECK_EQ_INT(boot_get("plain", got, sizeof got), 0); /* a value nobody escaped */
    CHECK(strcmp(got, "(vector,(0,1,1))") == 0);
    CHECK_EQ_INT(boot_get("nokey", got, sizeof got), -ENOENT);
    CHECK_EQ_INT(boot_finalize(), 0);
    return 0;
}

static int client_no_mapping(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    CHECK_EQ_INT(info->num_nodes, 1);
    CHECK_EQ_INT(info->local_size, 3);
    CHECK_EQ_INT(info->local_rank, 1);
    CHECK_EQ_INT(strlen(info->job_key), 32); /* made up here: 32 hex digits */
    CHECK_EQ_INT(strspn(info->job_key, "0123456789abcdef"), 32);
    return 0;
}

/* boot_init must fail with want, and keep failing the same way. */
static int init_fails(int want)
{
    CHECK_EQ_INT(boot_init(&info), want);
    CHECK(info == NULL);
    CHECK_EQ_INT(boot_init(&info), want);
    CHECK_EQ_INT(boot_put("k", "v"), -ENOTCONN);
    CHECK_EQ_INT(boot_fence(), -ENOTCONN);
    return 0;
}
static int client_init_eproto(void) { return init_fails(-EPROTO); }
static int client_init_epipe(void) { return init_fails(-EPIPE); }
static int client_init_emsgsize(void) { return init_fails(-EMSGSIZE); }
static int client_init_einval(void) { return init_fails(-EINVAL); }
static int client_init_ebadf(void) { return init_fails(-EBADF); }

/* After the launcher hangs up during a fence, every call fails with -EPIPE. */
static int client_eof_in_fence(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    CHECK_EQ_INT(boot_fence(), -EPIPE);
    CHECK_EQ_INT(boot_put("k", "v"), -EPIPE);
    CHECK_EQ_INT(boot_get("k", got, sizeof got), -EPIPE);
    return 0;
}

/* Sending to a launcher that is gone: -EPIPE, not death by SIGPIPE. */
static int client_send_to_closed(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    struct pollfd p = {.fd = atoi(getenv("PMI_FD")), .events = POLLIN};
    CHECK_EQ_INT(poll(&p, 1, HANG_GUARD_MS), 1); /* wait until the hang-up is visible */
    CHECK_EQ_INT(boot_put("k", "v"), -EPIPE);
    CHECK_EQ_INT(boot_fence(), -EPIPE);
    return 0;
}

static int client_put_errors(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    CHECK_EQ_INT(boot_put("k", "v"), -EIO);             /* rc=5 */
    CHECK_EQ_INT(boot_put("k", "v"), -EPROTO);          /* no rc= */
    CHECK_EQ_INT(boot_get("k", got, sizeof got), -EPROTO); /* broken since */
    return 0;
}

/* vallen_max=32, keylen_max=8: limits come from the launcher. */
static int client_small_limits(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    CHECK_EQ_INT(boot_put("1234567", "0123456789012345678901234567890"), 0); /* 7 and 31 */
    CHECK_EQ_INT(boot_put("12345678", "v"), -ENAMETOOLONG);
    CHECK_EQ_INT(boot_put("k", "01234567890123456789012345678901"), -EMSGSIZE); /* 32 */
    CHECK_EQ_INT(boot_put("k", "0123456789 123456789 123456789"), -EMSGSIZE); /* 30 -> 34 */
    CHECK_EQ_INT(boot_fence(), 0); /* nothing was sent for the refused puts */
    return 0;
}

/* An error answer keeps the stream in step: the next call works. */
static int client_refused_fence(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    CHECK_EQ_INT(boot_fence(), -EIO);
    CHECK_EQ_INT(boot_fence(), 0);
    CHECK_EQ_INT(boot_finalize(), -EIO);
    return 0;
}

static int client_bad_escape(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    CHECK_EQ_INT(boot_get("k", got, sizeof got), -EPROTO);
    CHECK_EQ_INT(boot_get("k", got, 4), -ENOSPC); /* "abcdef" does not fit in 4 */
    return 0;
}

/* A reply too many: the next call sees a reply to something else. */
static int client_extra_line(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    CHECK_EQ_INT(boot_put("k", "v"), 0);
    CHECK_EQ_INT(boot_get("k", got, sizeof got), -EPROTO);
    CHECK_EQ_INT(boot_fence(), -EPROTO);
    return 0;
}

static int client_abort(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    boot_abort(5, "why me");
}

static int client_abort_wide_code(void)
{
    CHECK_EQ_INT(boot_init(&info), 0);
    boot_abort(256, "256 must not look like success");
}

/* ---- the scripts ---- */

static const scenario_t scenarios[] = {
    {"normal session",
     {"PMI_RANK=2", "PMI_SIZE=4", "SKIFF_JOB_KEY=0123456789abcdef0123456789ABCDEF"},
     {HANDSHAKE(MAPPING_2x2),
      {"cmd=put kvsname=kvs_test key=k value=a%20b%3Dc%25", "cmd=put_result rc=0 msg=success"},
      {"cmd=barrier_in", "cmd=barrier_out"},
      {"cmd=get kvsname=kvs_test key=k", "cmd=get_result value=x%20y msg=success rc=0"},
      {"cmd=get kvsname=kvs_test key=plain", "cmd=get_result rc=0 value=(vector,(0,1,1))"},
      {"cmd=get kvsname=kvs_test key=nokey", NO_MAPPING},
      {"cmd=finalize", "cmd=finalize_ack"}},
     client_normal, 0, NULL},
    {"no mapping: one node",
     {"PMI_RANK=1", "PMI_SIZE=3", "SKIFF_VERBOSE=1"},
     {HANDSHAKE(NO_MAPPING)},
     client_no_mapping, 0, "assuming all 3 ranks share one node"},
    {"garbage reply to init",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", "this is not pmi"}},
     client_init_eproto, 0, "rank 0: malformed PMI reply to init: 'this is not pmi'"},
    {"reply to the wrong command",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init rc=0"},
      {"cmd=get_maxes", "cmd=appnum appnum=0"}},
     client_init_eproto, 0, "unexpected PMI reply to get_maxes (wanted cmd=maxes)"},
    {"init refused",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init rc=3"}},
     client_init_eproto, 0, "refused PMI init (rc=3)"},
    {"wrong PMI version",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init pmi_version=2 rc=0"}},
     client_init_eproto, 0, "pmi_version=2 is not a number in [1, 1]"},
    {"non-numeric maxes",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init rc=0"},
      {"cmd=get_maxes", "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=abc"}},
     client_init_eproto, 0,
     "(vallen_max=abc is not a number in [2, 4096]): 'cmd=maxes kvsname_max=256 keylen_max=64 "
     "vallen_max=abc'"},
    {"kvsname longer than announced",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init rc=0"},
      {"cmd=get_maxes", "cmd=maxes kvsname_max=8 keylen_max=64 vallen_max=1024"},
      {"cmd=get_my_kvsname", "cmd=my_kvsname kvsname=much_too_long"}},
     client_init_eproto, 0, "malformed PMI reply to get_my_kvsname"},
    {"malformed PMI_process_mapping",
     {"PMI_RANK=0", "PMI_SIZE=2"},
     {HANDSHAKE("cmd=get_result rc=0 value=(vector,(0,a,1))")},
     client_init_eproto, 0, "malformed PMI_process_mapping from the launcher: '(vector,(0,a,1))'"},
    {"launcher hangs up during init",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", REPLY_CLOSE}},
     client_init_epipe, 0, "closed the PMI connection (fd"},
    {"over-long reply line",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init rc=0"},
      {"cmd=get_maxes", "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"},
      {"cmd=get_my_kvsname", "cmd=my_kvsname kvsname=kvs_test"},
      {"cmd=get_appnum", REPLY_ENDLESS}},
     client_init_emsgsize, 0, "over-long PMI reply to get_appnum"},
    {"launcher hangs up during a fence",
     {"PMI_RANK=3", "PMI_SIZE=4"},
     {HANDSHAKE(NO_MAPPING), {"cmd=barrier_in", REPLY_CLOSE}},
     client_eof_in_fence, 0, "rank 3: the launcher closed the PMI connection"},
    {"put after the launcher is gone",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {HANDSHAKE(NO_MAPPING), {EXPECT_NOTHING, REPLY_CLOSE}},
     client_send_to_closed, 0, "sending PMI put to the launcher"},
    {"put refused, then a reply without rc",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {HANDSHAKE(NO_MAPPING),
      {"cmd=put kvsname=kvs_test key=k value=v", "cmd=put_result rc=5 msg=full"},
      {"cmd=put kvsname=kvs_test key=k value=v", "cmd=put_result msg=success"}},
     client_put_errors, 0, "malformed PMI reply to put (no rc=)"},
    {"launcher's small limits",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {{"cmd=init pmi_version=1 pmi_subversion=1", "cmd=response_to_init rc=0"},
      {"cmd=get_maxes", "cmd=maxes kvsname_max=256 keylen_max=8 vallen_max=32"},
      {"cmd=get_my_kvsname", "cmd=my_kvsname kvsname=kvs_test"},
      {"cmd=get_appnum", "cmd=appnum appnum=0"},
      {"cmd=get_universe_size", "cmd=universe_size size=-1"},
      {"cmd=get kvsname=kvs_test key=PMI_process_mapping", NO_MAPPING},
      {"cmd=put kvsname=kvs_test key=1234567 value=0123456789012345678901234567890",
       "cmd=put_result rc=0"},
      {"cmd=barrier_in", "cmd=barrier_out"}},
     client_small_limits, 0, "takes 34 bytes escaped; the launcher takes at most 31"},
    {"launcher answers a fence with an error",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {HANDSHAKE(NO_MAPPING),
      {"cmd=barrier_in", "cmd=barrier_out rc=-1 msg=not_now"},
      {"cmd=barrier_in", "cmd=barrier_out rc=0"},
      {"cmd=finalize", "cmd=finalize_ack rc=2"}},
     client_refused_fence, 0, "the launcher refused barrier (rc=-1): 'cmd=barrier_out rc=-1 msg=not_now'"},
    {"badly escaped value",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {HANDSHAKE(NO_MAPPING),
      {"cmd=get kvsname=kvs_test key=k", "cmd=get_result rc=0 value=%G1"},
      {"cmd=get kvsname=kvs_test key=k", "cmd=get_result rc=0 value=abcdef"}},
     client_bad_escape, 0, "value of key 'k' is not validly escaped"},
    {"one reply too many",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {HANDSHAKE(NO_MAPPING),
      {"cmd=put kvsname=kvs_test key=k value=v", "cmd=put_result rc=0\ncmd=barrier_out"}},
     client_extra_line, 0, "unexpected PMI reply to get (wanted cmd=get_result): 'cmd=barrier_out'"},
    {"abort",
     {"PMI_RANK=1", "PMI_SIZE=2"},
     {HANDSHAKE(NO_MAPPING), {"cmd=abort exitcode=5 msg=why%20me", REPLY_NONE}},
     client_abort, 5, "rank 1: abort with exit code 5: why me"},
    {"abort with a code that wraps to 0",
     {"PMI_RANK=0", "PMI_SIZE=1"},
     {HANDSHAKE(NO_MAPPING),
      {"cmd=abort exitcode=256 msg=256%20must%20not%20look%20like%20success", REPLY_NONE}},
     client_abort_wide_code, 1, NULL},
    {"PMI_RANK not a number", {"PMI_RANK=abc", "PMI_SIZE=4"}, {{NULL, NULL}},
     client_init_einval, 0, "PMI_RANK=abc is not a number in [0, 3]"},
    {"PMI_RANK out of range", {"PMI_RANK=4", "PMI_SIZE=4"}, {{NULL, NULL}},
     client_init_einval, 0, "PMI_RANK=4 is not a number in [0, 3]"},
    {"PMI_SIZE missing", {"PMI_RANK=0"}, {{NULL, NULL}},
     client_init_einval, 0, "PMI_SIZE is not set"},
    {"PMI_FD not open", {"PMI_RANK=0", "PMI_SIZE=1", "PMI_FD=999"}, {{NULL, NULL}},
     client_init_ebadf, 0, "PMI_FD=999 is not an open file descriptor"},
    /* PMI over TCP itself is tested across namespaces (tests/netns); here its
     * argument checks.  A host name is refused: no DNS. */
    {"PMI_PORT without PMI_SIZE", {"PMI_PORT=10.0.0.1:4711", "PMI_FD="}, {{NULL, NULL}},
     client_init_einval, 0, "PMI_SIZE and PMI_ID (or PMI_RANK) are missing"},
    {"PMI_PORT with a host name",
     {"PMI_PORT=node1:4711", "PMI_FD=", "PMI_SIZE=2", "PMI_ID=1", "SKIFF_JOB_KEY=abc"}, {{NULL, NULL}},
     client_init_einval, 0, "expected a numeric address and port"},
    {"bad SKIFF_JOB_KEY",
     {"PMI_RANK=0", "PMI_SIZE=1", "SKIFF_JOB_KEY=../../etc"},
     {HANDSHAKE(NO_MAPPING)},
     client_init_einval, 0, "SKIFF_JOB_KEY=../../etc is not 1 to 32 hex digits"},
};

/* ---- the fake launcher (parent) ---- */

static int read_line(int fd, char *line, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, HANG_GUARD_MS) != 1)
            return -ETIMEDOUT;
        if (read(fd, line + n, 1) != 1)
            return -EPIPE;
        if (line[n] == '\n') {
            line[n] = '\0';
            return 0;
        }
        n++;
    }
    return -EMSGSIZE;
}

static void send_text(int fd, const char *text)
{
    size_t len = strlen(text);
    CHECK_EQ_INT(send(fd, text, len, MSG_NOSIGNAL), len);
}

/* Play the script; 0 if every request came as expected. */
static int serve(const scenario_t *s, int fd)
{
    char line[8192];
    for (const step_t *st = s->steps; st->expect; st++) {
        if (*st->expect) {
            int rc = read_line(fd, line, sizeof line);
            if (rc) {
                fprintf(stderr, "[%s] server: no request '%s' (%s)\n", s->name, st->expect,
                        strerror(-rc));
                return -1;
            }
            if (strcmp(line, st->expect) != 0) {
                fprintf(stderr, "[%s] server: got request '%s', want '%s'\n", s->name, line,
                        st->expect);
                return -1;
            }
        }
        if (strcmp(st->reply, REPLY_CLOSE) == 0) {
            shutdown(fd, SHUT_RDWR);
        } else if (strcmp(st->reply, REPLY_ENDLESS) == 0) {
            static char endless[8000];
            memset(endless, 'x', sizeof endless - 1);
            send_text(fd, endless);
        } else if (strcmp(st->reply, REPLY_NONE) != 0) {
            send_text(fd, st->reply);
            send_text(fd, "\n");
        }
    }
    return 0;
}

static void run_child(const scenario_t *s, int fd, int err_fd)
{
    const char *clear[] = {"PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID",
                           "SKIFF_JOB_KEY", "SKIFF_VERBOSE"};
    for (size_t i = 0; i < sizeof clear / sizeof clear[0]; i++)
        unsetenv(clear[i]);
    char fd_text[16];
    snprintf(fd_text, sizeof fd_text, "%d", fd);
    setenv("PMI_FD", fd_text, 1);
    for (int i = 0; i < 6 && s->env[i]; i++) {
        char name[64];
        const char *eq = strchr(s->env[i], '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - s->env[i]), s->env[i]);
        if (eq[1])
            setenv(name, eq + 1, 1);
        else
            unsetenv(name); /* "NAME=": no such variable */
    }
    dup2(err_fd, 2);
    exit(s->client());
}

/* Wait for the child, at most the hang guard; kill it if it overstays. */
static int reap(pid_t pid)
{
    int status;
    for (int waited_ms = 0; waited_ms < HANG_GUARD_MS; waited_ms += 10) {
        if (waitpid(pid, &status, WNOHANG) == pid)
            return status;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

static int run(const scenario_t *s)
{
    int sv[2], err_pipe[2];
    CHECK_EQ_INT(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    CHECK_EQ_INT(pipe(err_pipe), 0);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        close(sv[0]);
        close(err_pipe[0]);
        run_child(s, sv[1], err_pipe[1]);
    }
    close(sv[1]);
    close(err_pipe[1]);
    int ok = serve(s, sv[0]) == 0;
    int status = reap(pid);
    close(sv[0]);
    char err[8192];
    ssize_t n = read(err_pipe[0], err, sizeof err - 1); /* the child is gone: no wait */
    err[n > 0 ? n : 0] = '\0';
    close(err_pipe[0]);
    if (status == -1) {
        fprintf(stderr, "[%s] child hung; killed\n", s->name);
        ok = 0;
    } else if (!WIFEXITED(status) || WEXITSTATUS(status) != s->exit_status) {
        fprintf(stderr, "[%s] child status %#x, want exit %d\n", s->name, status, s->exit_status);
        ok = 0;
    }
    if (s->stderr_has && !strstr(err, s->stderr_has)) {
        fprintf(stderr, "[%s] child stderr lacks '%s'\n", s->name, s->stderr_has);
        ok = 0;
    }
    printf("%-40s %s\n", s->name, ok ? "ok" : "FAILED");
    if (!ok)
        fprintf(stderr, "[%s] child stderr:\n%s", s->name, err);
    return ok;
}

int main(void)
{
    int failed = 0, count = (int)(sizeof scenarios / sizeof scenarios[0]);
    for (int i = 0; i < count; i++)
        failed += !run(&scenarios[i]);
    printf("boot_proto_test: %d of %d scenarios passed\n", count - failed, count);
    return failed != 0;
}
