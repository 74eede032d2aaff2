/* job — the launcher's event loop over one job's ranks (see job.h). */
#include "job.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "shm_name.h"
#include "io_forward.h"
#include "pmi_server.h"
#include "pmi_tcp.h"
#include "spawn.h"
#include "summary.h"

#define PMI_DRAIN_READS 64 /* lines a dead rank may have left in its socket */
/* A PMI abort is often the consequence of another rank's death: the aborting
 * rank saw its peer's connection close, which happens while the dead one is
 * still exiting, before the launcher can reap it.  While such a rank is on
 * its way out (at most this long), the abort waits, so the line and the exit
 * status name the cause. */
#define ABORT_WAIT_MS 2000
#define PF_EXITING_FLAG 0x4 /* the kernel's PF_EXITING in /proc/PID/stat's flags */

/* What an epoll event is about: kind in the low byte, rank above it. */
enum { EV_SIGNAL = 1, EV_STDIN_IN, EV_STDIN_OUT, EV_PMI, EV_OUT, EV_ERR, EV_PMI_LISTEN, EV_PMI_AUTH };
#define EV(kind, rank) (((uint64_t)(rank) << 8) | (uint64_t)(kind))

typedef struct pid_rank {
    pid_t pid;
    int rank;
} pid_rank_t;

typedef struct job {
    const launch_opts_t *opts;
    int size;
    rank_proc_t *ranks;
    io_source_t *out, *err;    /* [size] the ranks' stdout and stderr pipes */
    unsigned char *pmi_watched; /* [size] PMI fd still in the epoll set     */
    pid_rank_t *by_pid;        /* started ranks sorted by pid, for reaping  */
    int nby_pid;
    io_sink_t sink_out, sink_err;
    pmi_server_t pmi;
    stdin_fwd_t in;
    int in_pollable;           /* 0: stdin is a file or /dev/null (always ready) */
    int in_watched, out_watched;
    int epfd, sigfd;
    int nlive;                 /* ranks started and not yet reaped */
    int ended;                 /* the job is being ended: verdict set */
    char verdict[1600];        /* why it ended: printed last, after the ranks' summary */
    summary_t summary;         /* the ranks' Skiff lines, one per distinct message */
    int killed;                /* SIGKILL sent to every rank */
    int nterm;                 /* SIGINT/SIGQUIT/SIGTERM/SIGHUP received */
    int hup_ignored;           /* started under nohup: SIGHUP is not passed on */
    int exit_code;
    struct timespec kill_at;   /* when ended: SIGKILL then */
    struct pending_abort {     /* a PMI abort waiting for a dying rank (ABORT_WAIT_MS) */
        int set, rank, code;
        char *msg;
        struct timespec at;    /* when it ends the job */
    } abort;
    char key[JOB_KEY_HEX + 1];
    int *node_of_rank;         /* [size] host index (multi-host), else NULL */
    pmi_tcp_t tcp;             /* PMI service for remote ranks              */
    int have_tcp;
} job_t;

/* One line of the launcher's own on stderr, never inside a rank's line. */
__attribute__((format(printf, 2, 3))) static void job_say(job_t *j, const char *fmt, ...)
{
    char line[1600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    io_sink_message(&j->sink_err, line);
}

static void watch(job_t *j, int fd, uint32_t events, uint64_t tag)
{
    struct epoll_event ev = {.events = events, .data.u64 = tag};
    if (epoll_ctl(j->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        job_say(j, "skiffrun: internal error: epoll_ctl(ADD, fd %d): %s", fd, strerror(errno));
}

static void unwatch(job_t *j, int fd)
{
    epoll_ctl(j->epfd, EPOLL_CTL_DEL, fd, NULL);
}

static void signal_ranks(job_t *j, int sig)
{
    for (int r = 0; r < j->size; r++)
        spawn_signal(&j->ranks[r], sig);
}

static void kill_ranks_now(job_t *j)
{
    signal_ranks(j, SIGKILL);
    j->killed = 1;
}

static struct timespec ms_from_now(long ms)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    t.tv_nsec += ms * 1000000L;
    t.tv_sec += t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    return t;
}

/* End the job (first caller only): the verdict line (printed once every rank
 * is gone, after what the ranks said), the exit status, and SIGTERM to every
 * rank; SIGKILL follows after JOB_KILL_GRACE_MS. */
__attribute__((format(printf, 3, 4))) static void job_end(job_t *j, int code, const char *fmt, ...)
{
    if (j->ended)
        return;
    j->ended = 1;
    j->pmi.job_ended = 1; /* serve no more PMI requests */
    j->exit_code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->verdict, sizeof j->verdict, fmt, ap);
    va_end(ap);
    signal_ranks(j, SIGTERM);
    j->kill_at = ms_from_now(JOB_KILL_GRACE_MS);
}

static const char *signame(int sig, char *buf, size_t cap)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, cap, "SIG%s", abbrev);
    else
        snprintf(buf, cap, "signal %d", sig);
    return buf;
}

/* --- PMI server callbacks ------------------------------------------------ */

/* Is rank r's process exiting, or dead and not yet reaped? */
static int rank_dying(const job_t *j, int r)
{
    const rank_proc_t *rp = &j->ranks[r];
    if (rp->pid <= 0 || rp->reaped || rp->remote)
        return 0;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)rp->pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char state;
    unsigned long flags;
    const char *p = strrchr(buf, ')'); /* state, ppid, pgrp, session, tty, tpgid, flags */
    if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
        return 0;
    return state == 'Z' || state == 'X' || (flags & PF_EXITING_FLAG);
}

/* A rank that did not abort itself is on its way out: it may be the cause. */
static int cause_still_dying(const job_t *j)
{
    for (int r = 0; r < j->size; r++)
        if (!j->pmi.conns[r].aborted && rank_dying(j, r))
            return 1;
    return 0;
}

static void abort_now(job_t *j);

static void on_pmi_abort(void *ctx, int rank, int exitcode, const char *msg)
{
    job_t *j = ctx;
    if (j->ended || j->abort.set)
        return;
    j->abort = (struct pending_abort){.set = 1, .rank = rank, .code = exitcode,
                                      .msg = msg ? strdup(msg) : NULL};
    j->abort.at = ms_from_now(ABORT_WAIT_MS);
    if (!cause_still_dying(j))
        abort_now(j);
}

/* The first abort stands: no rank died of something worse meanwhile. */
static void abort_now(job_t *j)
{
    struct pending_abort *a = &j->abort;
    int code = (a->code >= 0 && a->code <= 255) ? a->code : 1;
    job_end(j, code, "skiffrun: rank %d (pid %d) called PMI abort with exit code %d%s%s — job aborted",
            a->rank, (int)j->ranks[a->rank].pid, a->code, a->msg ? ": " : "", a->msg ? a->msg : "");
    a->set = 0;
}

static void on_barrier_broken(void *ctx, int gone_rank, int nwaiting)
{
    job_t *j = ctx;
    if (j->pmi.conns[gone_rank].aborted)
        return; /* it said why: its pending abort is the verdict */
    job_end(j, 1,
            "skiffrun: rank %d (pid %d) closed its PMI connection while %d rank%s wait%s in a "
            "PMI barrier it can no longer join — job aborted",
            gone_rank, (int)j->ranks[gone_rank].pid, nwaiting, nwaiting == 1 ? "" : "s",
            nwaiting == 1 ? "s" : "");
}

static void on_pmi_log(void *ctx, const char *line)
{
    io_sink_message(&((job_t *)ctx)->sink_err, line);
}

static const pmi_server_ops_t pmi_ops = {on_pmi_abort, on_barrier_broken, on_pmi_log};

static void on_pmi_listen(job_t *j);
static void on_pmi_auth(job_t *j, int slot);

/* --- stdin --------------------------------------------------------------- */

/* Keep the epoll set in line with what the stdin forwarder waits for. */
static void update_stdin_watch(job_t *j)
{
    stdin_fwd_t *f = &j->in;
    int want_in = f->state == STDIN_WAIT_INPUT && j->in_pollable;
    int want_out = f->state == STDIN_WAIT_OUTPUT || (f->state == STDIN_WAIT_INPUT && !j->in_pollable);
    if (want_in != j->in_watched) {
        if (want_in)
            watch(j, f->in_fd, EPOLLIN, EV(EV_STDIN_IN, 0));
        else
            unwatch(j, f->in_fd);
        j->in_watched = want_in;
    }
    if (want_out != j->out_watched) {
        if (want_out)
            watch(j, f->out_fd, EPOLLOUT, EV(EV_STDIN_OUT, 0));
        else
            unwatch(j, f->out_fd);
        j->out_watched = want_out;
    }
    if (f->state == STDIN_DONE)
        stdin_fwd_close(f);
}

static void stop_stdin(job_t *j)
{
    j->in.state = STDIN_DONE;
    update_stdin_watch(j);
}

/* Forward stdin only when reading it cannot stop the launcher: a terminal
 * read from a background process group would get SIGTTIN. */
static int stdin_is_forwardable(void)
{
    if (!isatty(0))
        return 1;
    pid_t fg = tcgetpgrp(0);
    return fg < 0 || fg == getpgrp();
}

static void start_stdin(job_t *j)
{
    stdin_fwd_init(&j->in, 0, j->ranks[0].stdin_fd);
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV(EV_STDIN_IN, 0)};
    /* epoll refuses regular files and /dev/null: those are always readable. */
    if (epoll_ctl(j->epfd, EPOLL_CTL_ADD, 0, &ev) == 0) {
        j->in_pollable = 1;
        j->in_watched = 1;
    }
    update_stdin_watch(j);
}

/* --- ranks --------------------------------------------------------------- */

static void close_output(job_t *j, io_source_t *s)
{
    if (s->fd >= 0)
        unwatch(j, s->fd);
    io_source_close(s);
}

static void stop_pmi_watch(job_t *j, int r)
{
    if (j->pmi_watched[r])
        unwatch(j, j->ranks[r].pmi_fd);
    j->pmi_watched[r] = 0;
}

/* A rank that joined the job over PMI and left without saying goodbye
 * before the others finished: they may be waiting for it (ranks that never
 * called PMI init, e.g. plain programs, may exit whenever they like).
 * Returns how many others have not finished (0: no fault). */
static int left_without_finalize(const job_t *j, int r)
{
    const pmi_conn_t *c = &j->pmi.conns[r];
    int unfinished = 0;
    if (!c->initialized || c->finalized || c->aborted)
        return 0;
    for (int o = 0; o < j->size; o++)
        unfinished += o != r && j->pmi.conns[o].initialized && !j->pmi.conns[o].finalized;
    return unfinished;
}

static void rank_exited(job_t *j, int r, int status)
{
    rank_proc_t *rp = &j->ranks[r];
    rp->reaped = 1;
    rp->status = status;
    j->nlive--;
    /* The rank's last words come before any verdict on it. */
    if (!io_source_drain(&j->out[r]))
        close_output(j, &j->out[r]);
    if (!io_source_drain(&j->err[r]))
        close_output(j, &j->err[r]);
    /* A PMI abort sent just before dying decides the message. */
    for (int i = 0; i < PMI_DRAIN_READS && j->pmi_watched[r]; i++)
        if (!pmi_server_serve(&j->pmi, r))
            break;
    stop_pmi_watch(j, r);
    /* A rank that called PMI abort exits as it said: its pending abort is the verdict. */
    if (!j->ended && !j->pmi.conns[r].aborted) {
        char sn[32];
        int others;
        if (WIFSIGNALED(status))
            job_end(j, 128 + WTERMSIG(status), "skiffrun: rank %d (pid %d) killed by %s — job aborted",
                    r, (int)rp->pid, signame(WTERMSIG(status), sn, sizeof sn));
        else if (WEXITSTATUS(status) != 0)
            job_end(j, WEXITSTATUS(status),
                    "skiffrun: rank %d (pid %d) exited with status %d — job aborted", r,
                    (int)rp->pid, WEXITSTATUS(status));
        else if ((others = left_without_finalize(j, r)) > 0)
            job_end(j, 1,
                    "skiffrun: rank %d (pid %d) exited with status 0 without MPI_Finalize (PMI "
                    "finalize) before %d other rank%s finished — job aborted",
                    r, (int)rp->pid, others, others == 1 ? "" : "s");
    }
    pmi_server_detach(&j->pmi, r); /* may find a barrier it can no longer join */
    if (r == 0 && j->in.out_fd >= 0)
        stop_stdin(j);
}

static int cmp_pid(const void *a, const void *b)
{
    pid_t x = ((const pid_rank_t *)a)->pid, y = ((const pid_rank_t *)b)->pid;
    return (x > y) - (x < y);
}

/* After the spawn: the index that makes every reap O(log N), not O(N). */
static void index_pids(job_t *j)
{
    for (int r = 0; r < j->size; r++)
        if (j->ranks[r].pid > 0)
            j->by_pid[j->nby_pid++] = (pid_rank_t){j->ranks[r].pid, r};
    qsort(j->by_pid, (size_t)j->nby_pid, sizeof *j->by_pid, cmp_pid);
}

static int rank_of_pid(const job_t *j, pid_t pid)
{
    pid_rank_t key = {pid, -1};
    const pid_rank_t *hit = bsearch(&key, j->by_pid, (size_t)j->nby_pid, sizeof key, cmp_pid);
    return (hit && !j->ranks[hit->rank].reaped) ? hit->rank : -1;
}

static void reap_children(job_t *j)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int r = rank_of_pid(j, pid);
        if (r >= 0)
            rank_exited(j, r, status);
    }
}

/* --- signals ------------------------------------------------------------- */

static void on_signal(job_t *j, int sig)
{
    char sn[32];
    switch (sig) {
    case SIGCHLD:
        reap_children(j);
        return;
    case SIGHUP:
        if (j->hup_ignored)
            return;
        /* fall through */
    case SIGINT:
    case SIGQUIT:
    case SIGTERM:
        if (++j->nterm >= 2) {
            /* Asked twice: the user means it. */
            if (!j->killed)
                job_end(j, 128 + sig, "skiffrun: %s received again — killing all ranks",
                        signame(sig, sn, sizeof sn));
            kill_ranks_now(j);
            return;
        }
        signal_ranks(j, sig);
        return;
    default: /* SIGUSR1, SIGUSR2: for the ranks */
        signal_ranks(j, sig);
        return;
    }
}

static void read_signals(job_t *j)
{
    struct signalfd_siginfo si;
    while (read(j->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
        on_signal(j, (int)si.ssi_signo);
}

/* --- the loop ------------------------------------------------------------ */

static int ms_until(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ms = (long long)(t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
    return ms < 0 ? 0 : (int)ms + 1;
}

static void dispatch(job_t *j, uint64_t tag)
{
    int kind = (int)(tag & 0xff), r = (int)(tag >> 8);
    switch (kind) {
    case EV_SIGNAL:
        read_signals(j);
        break;
    case EV_STDIN_IN:
    case EV_STDIN_OUT:
        if (j->in.state != STDIN_DONE) {
            stdin_fwd_pump(&j->in);
            update_stdin_watch(j);
        }
        break;
    case EV_PMI:
        if (j->pmi_watched[r] && !pmi_server_serve(&j->pmi, r))
            stop_pmi_watch(j, r); /* detached once the rank is reaped */
        break;
    case EV_PMI_LISTEN:
        on_pmi_listen(j);
        break;
    case EV_PMI_AUTH:
        on_pmi_auth(j, r);
        break;
    case EV_OUT:
    case EV_ERR: {
        io_source_t *s = kind == EV_OUT ? &j->out[r] : &j->err[r];
        if (s->fd >= 0 && !io_source_read(s))
            close_output(j, s);
        break;
    }
    }
}

static void event_loop(job_t *j)
{
    struct epoll_event evs[64];
    while (j->nlive > 0) {
        int timeout = (j->ended && !j->killed) ? ms_until(&j->kill_at)
                      : j->abort.set                ? ms_until(&j->abort.at)
                                                    : -1;
        int held = j->ended ? -1 : summary_ms_left(&j->summary); /* ended: held to the end */
        if (held >= 0 && (timeout < 0 || held < timeout))
            timeout = held;
        int n = epoll_wait(j->epfd, evs, 64, timeout);
        if (n < 0 && errno != EINTR) {
            job_say(j, "skiffrun: internal error: epoll_wait: %s", strerror(errno));
            kill_ranks_now(j);
            sleep(1); /* the ranks are being killed; reap what we can and go */
            reap_children(j);
            return;
        }
        for (int i = 0; i < n; i++)
            dispatch(j, evs[i].data.u64);
        if (j->abort.set && !j->ended && (ms_until(&j->abort.at) == 0 || !cause_still_dying(j)))
            abort_now(j);
        if (j->ended && !j->killed && ms_until(&j->kill_at) == 0)
            kill_ranks_now(j);
        if (!j->ended && summary_ms_left(&j->summary) == 0)
            summary_flush(&j->summary);
    }
}

/* --- set-up and tear-down ------------------------------------------------ */

static int setup_signals(job_t *j)
{
    sigset_t set;
    sigemptyset(&set);
    int sigs[] = {SIGCHLD, SPAWN_FORWARDED_SIGNALS};
    struct sigaction hup;
    j->hup_ignored = sigaction(SIGHUP, NULL, &hup) == 0 && hup.sa_handler == SIG_IGN;
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaddset(&set, sigs[i]);
    /* Blocked before the first fork: a child that dies at once is still seen. */
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout or rank pipe is an error return */
    /* An inherited SIG_IGN for SIGCHLD would make the kernel reap the ranks
     * itself and hide their exit status. */
    signal(SIGCHLD, SIG_DFL);
    j->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    return j->sigfd < 0 ? -1 : 0;
}

static int setup_pmi(job_t *j)
{
    char kvsname[32], mapping[PMI_VAL_MAX], tag[SHM_TAG_HEX + 1];
    /* From the key's public tag: the kvsname travels in clear (PMI over TCP,
     * error lines), and digits of the key itself would be a part of it given away. */
    shm_name_tag(j->key, tag);
    snprintf(kvsname, sizeof kvsname, "skiff_%.8s", tag);
    if (j->opts->hosts.nhosts) { /* blocks of ranks per host, from the host list */
        j->node_of_rank = calloc((size_t)j->size, sizeof *j->node_of_rank);
        if (!j->node_of_rank ||
            hosts_place(&j->opts->hosts, j->size, j->node_of_rank, mapping, sizeof mapping) < 0) {
            fprintf(stderr, "skiffrun: the process mapping of %d ranks on %d hosts is too long\n",
                    j->size, j->opts->hosts.nhosts);
            return -1;
        }
    } else { /* one host: all ranks on node 0 */
        pmi_map_block_t block = {0, 1, j->size};
        if (pmi_mapping_format(&block, 1, mapping, sizeof mapping) < 0)
            return -1;
    }
    int rc = pmi_server_init(&j->pmi, j->size, kvsname, mapping, &pmi_ops, j);
    j->pmi.universe_size = j->opts->universe_size; /* -usize; else the slots, else -n */
    if (!j->pmi.universe_size)
        for (int h = 0; h < j->opts->hosts.nhosts; h++)
            j->pmi.universe_size += j->opts->hosts.hosts[h].slots;
    return rc;
}

/* Remote ranks reach the PMI server over TCP (pmi_tcp.h). */
static void on_pmi_listen(job_t *j)
{
    int slot;
    while ((slot = pmi_tcp_accept(&j->tcp, on_pmi_log, j)) >= 0)
        watch(j, j->tcp.pend[slot].fd, EPOLLIN, EV(EV_PMI_AUTH, slot));
}

static void on_pmi_auth(job_t *j, int slot)
{
    int rank, fd;
    if (pmi_tcp_step(&j->tcp, slot, &rank, &fd, j->size, on_pmi_log, j) != 1)
        return;
    rank_proc_t *rp = &j->ranks[rank];
    if (!rp->remote || rp->pmi_fd >= 0 || rp->reaped || rp->pid <= 0) {
        job_say(j, "skiffrun: PMI connection for rank %d dropped: that rank is not waiting for "
                   "one (already connected, local, or gone)", rank);
        close(fd);
        return;
    }
    struct epoll_event ev = {.events = EPOLLIN, .data.u64 = EV(EV_PMI, rank)};
    epoll_ctl(j->epfd, EPOLL_CTL_MOD, fd, &ev);
    rp->pmi_fd = fd;
    pmi_server_attach(&j->pmi, rank, fd);
    j->pmi_watched[rank] = 1;
}

/* Host list given: find which hosts start through the agent; if any, open
 * the PMI TCP service they will call back. */
static int setup_remote(job_t *j, spawn_plan_t *plan)
{
    int any = 0;
    if (spawn_plan_hosts(plan, j->opts, j->node_of_rank, "") != 0)
        return -1;
    for (int h = 0; h < j->opts->hosts.nhosts; h++)
        any |= plan->remote[h];
    if (!any)
        return 0;
    if (pmi_tcp_open(&j->tcp, j->opts->launcher_addr, j->key) != 0)
        return -1;
    j->have_tcp = 1;
    plan->pmi_port = j->tcp.port_env;
    watch(j, j->tcp.lfd, EPOLLIN, EV(EV_PMI_LISTEN, 0));
    return 0;
}

static int take_skiff_line(void *summary, int rank, const char *line, size_t len)
{
    return summary_take(summary, rank, line, len);
}

static void start_ranks(job_t *j, spawn_plan_t *plan)
{
    for (int r = 0; r < j->size; r++) {
        int rc = spawn_rank(plan, r, &j->ranks[r]);
        if (rc < 0) {
            job_end(j, LAUNCH_EXIT_INTERNAL, "skiffrun: cannot start rank %d of %d: %s", r, j->size,
                    strerror(-rc));
            kill_ranks_now(j);
            return;
        }
        rank_proc_t *rp = &j->ranks[r];
        j->nlive++;
        io_source_init(&j->out[r], rp->out_fd, r, j->opts->tag_output, &j->sink_out);
        io_source_init(&j->err[r], rp->err_fd, r, j->opts->tag_output, &j->sink_err);
        io_source_set_filter(&j->err[r], take_skiff_line, &j->summary);
        watch(j, rp->out_fd, EPOLLIN, EV(EV_OUT, r));
        watch(j, rp->err_fd, EPOLLIN, EV(EV_ERR, r));
        if (rp->pmi_fd < 0)
            continue; /* a remote rank: its PMI connection comes over TCP */
        pmi_server_attach(&j->pmi, r, rp->pmi_fd);
        watch(j, rp->pmi_fd, EPOLLIN, EV(EV_PMI, r));
        j->pmi_watched[r] = 1;
    }
    if (j->ranks[0].pid > 0 && j->ranks[0].stdin_fd >= 0)
        start_stdin(j);
}

static void finish(job_t *j)
{
    for (int r = 0; r < j->size; r++) {
        if (j->ranks[r].pid <= 0)
            continue;
        io_source_drain(&j->out[r]);
        io_source_drain(&j->err[r]);
        io_source_close(&j->out[r]);
        io_source_close(&j->err[r]);
    }
    if (j->in.out_fd >= 0)
        stdin_fwd_close(&j->in);
    summary_flush(&j->summary);
    if (j->verdict[0])
        io_sink_message(&j->sink_err, j->verdict);
    pmi_server_destroy(&j->pmi);
    if (j->have_tcp) {
        pmi_tcp_summary(&j->tcp, on_pmi_log, j);
        pmi_tcp_close(&j->tcp);
    }
    /* Every rank is gone: nothing can create another segment of this job. */
    job_shm_cleanup(j->key);
}

int job_run(const launch_opts_t *o)
{
    job_t *j = calloc(1, sizeof *j);
    int size = o->nranks;
    if (!j || !(j->ranks = calloc((size_t)size, sizeof *j->ranks)) ||
        !(j->out = calloc((size_t)size, sizeof *j->out)) ||
        !(j->err = calloc((size_t)size, sizeof *j->err)) ||
        !(j->pmi_watched = calloc((size_t)size, 1)) ||
        !(j->by_pid = calloc((size_t)size, sizeof *j->by_pid))) {
        fprintf(stderr, "skiffrun: out of memory for %d ranks\n", size);
        return LAUNCH_EXIT_INTERNAL;
    }
    j->opts = o;
    j->size = size;
    j->in.out_fd = -1;
    j->in.state = STDIN_DONE;
    io_sink_init(&j->sink_out, 1);
    io_sink_init(&j->sink_err, 2);
    summary_init(&j->summary, size, &j->sink_err);
    int rc = job_key_make(j->key);
    if (rc < 0) {
        fprintf(stderr, "skiffrun: cannot make a job key: getrandom: %s\n", strerror(-rc));
        return LAUNCH_EXIT_INTERNAL;
    }
    spawn_plan_t plan;
    if (setup_pmi(j) != 0 || setup_signals(j) != 0 ||
        (j->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
        spawn_plan_init(&plan, o, j->key, stdin_is_forwardable()) != 0) {
        fprintf(stderr, "skiffrun: cannot set up the job: %s\n", strerror(errno));
        return LAUNCH_EXIT_INTERNAL;
    }
    watch(j, j->sigfd, EPOLLIN, EV(EV_SIGNAL, 0));
    if (o->hosts.nhosts && setup_remote(j, &plan) != 0)
        return LAUNCH_EXIT_INTERNAL;
    start_ranks(j, &plan);
    spawn_plan_free(&plan);
    index_pids(j);
    event_loop(j);
    if (j->abort.set && !j->ended) /* the aborting ranks were the last ones */
        abort_now(j);
    free(j->abort.msg);
    finish(j);
    int code = j->ended ? j->exit_code : 0;
    close(j->epfd);
    close(j->sigfd);
    free(j->ranks);
    free(j->out);
    free(j->err);
    free(j->pmi_watched);
    free(j->by_pid);
    free(j->node_of_rank);
    free(j);
    return code;
}
