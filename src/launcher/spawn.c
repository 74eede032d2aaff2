/* spawn — start one rank (see spawn.h). */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

extern char **environ;

/* Variables the launcher sets per rank; the user cannot override them, and
 * inherited PMI_* and PMIX_* ones (an outer launcher's) are dropped, since they
 * would point the rank's PMI client at the wrong server. */
#define NRESERVED 4
static int reserved_name(const char *var)
{
    return strncmp(var, "PMI_", 4) == 0 || strncmp(var, "PMIX_", 5) == 0 ||
           strncmp(var, "SKIFF_JOB_KEY=", 14) == 0;
}

static size_t name_len(const char *var)
{
    const char *eq = strchr(var, '=');
    return eq ? (size_t)(eq - var) : strlen(var);
}

/* Is the variable var set again by a later user setting (settings[from..])? */
static int overridden(const char *var, char **settings, int from, int n)
{
    size_t len = name_len(var);
    for (int i = from; i < n; i++)
        if (name_len(settings[i]) == len && strncmp(settings[i], var, len) == 0)
            return 1;
    return 0;
}

static int build_env(spawn_plan_t *p, const launch_opts_t *o, const char *job_key)
{
    int ninherit = 0;
    while (environ[ninherit])
        ninherit++;
    p->envp = calloc((size_t)(NRESERVED + ninherit + o->nenv + 1), sizeof *p->envp);
    if (!p->envp)
        return -1;
    snprintf(p->slot_size, sizeof p->slot_size, "PMI_SIZE=%d", o->nranks);
    snprintf(p->slot_key, sizeof p->slot_key, "SKIFF_JOB_KEY=%s", job_key);
    int n = 0;
    p->envp[n++] = p->slot_fd; /* PMI_FD and PMI_RANK are filled in per rank */
    p->envp[n++] = p->slot_rank;
    p->envp[n++] = p->slot_size;
    p->envp[n++] = p->slot_key;
    for (int i = 0; i < ninherit; i++)
        if (!reserved_name(environ[i]) && !overridden(environ[i], o->env, 0, o->nenv))
            p->envp[n++] = environ[i];
    for (int i = 0; i < o->nenv; i++) {
        if (reserved_name(o->env[i])) {
            fprintf(stderr, "skiffrun: warning: %.*s is set by the launcher; ignored\n",
                    (int)name_len(o->env[i]), o->env[i]);
            continue;
        }
        if (!overridden(o->env[i], o->env, i + 1, o->nenv))
            p->envp[n++] = o->env[i];
    }
    p->envp[n] = NULL;
    return 0;
}

/* CPUs this process may run on, in ascending order.  Returns how many. */
static int available_cpus(int **cpus)
{
    cpu_set_t set;
    *cpus = NULL;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    int n = CPU_COUNT(&set), k = 0;
    *cpus = malloc((size_t)(n ? n : 1) * sizeof **cpus);
    if (!*cpus)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && k < n; c++)
        if (CPU_ISSET(c, &set))
            (*cpus)[k++] = c;
    return k;
}

int spawn_plan_init(spawn_plan_t *p, const launch_opts_t *o, const char *job_key,
                    int forward_stdin)
{
    memset(p, 0, sizeof *p);
    p->path = o->prog_path;
    p->wdir = o->wdir;
    p->argv = o->prog_argv;
    p->size = o->nranks;
    p->forward_stdin = forward_stdin;
    p->launcher_pid = getpid();
    p->devnull_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (p->devnull_fd < 0 || build_env(p, o, job_key) != 0) {
        fprintf(stderr, "skiffrun: cannot prepare the ranks' environment: %s\n", strerror(errno));
        return -1;
    }
    if (o->bind != BIND_NONE) {
        /* By default only a job that fills the node is pinned, as hydra does:
         * two smaller jobs pinned alike would share the first CPUs (two
         * "-n 1" jobs both ran on CPU 0) while the others idle. */
        int *cpus, ncpus = available_cpus(&cpus);
        if (ncpus >= o->nranks && (o->bind == BIND_CORE || ncpus == o->nranks))
            p->cpu_of_rank = cpus; /* rank i -> i-th available CPU */
        else {
            if (o->bind == BIND_CORE)
                fprintf(stderr,
                        "skiffrun: warning: --bind-to core ignored: %d ranks > %d available "
                        "CPUs (oversubscribed ranks are never bound)\n",
                        o->nranks, ncpus);
            free(cpus);
        }
    }
    return 0;
}

/* ---- remote ranks -------------------------------------------------------- */

/* Variables a remote rank gets besides the PMI ones: every -x/-genv/--env
 * setting, and the launcher's SKIFF_*, PATH and LD_LIBRARY_PATH (a remote
 * login has its own environment; copying all of ours would be wrong there). */
static int remote_worthy(const char *var)
{
    return strncmp(var, "SKIFF_", 6) == 0 || strncmp(var, "PATH=", 5) == 0 ||
           strncmp(var, "LD_LIBRARY_PATH=", 16) == 0;
}

static int split_words(const char *tmpl, char ***out)
{
    char *copy = strdup(tmpl), *save;
    int n = 0;
    *out = calloc(strlen(tmpl) / 2 + 2, sizeof **out);
    if (!copy || !*out) {
        free(copy);
        return -1;
    }
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        (*out)[n++] = strdup(w);
    free(copy);
    return n;
}

int spawn_plan_hosts(spawn_plan_t *p, const launch_opts_t *o, const int *node_of_rank,
                     const char *pmi_port)
{
    const char *tmpl = o->agent ? o->agent : LAUNCH_DEFAULT_AGENT;
    p->node_of_rank = node_of_rank;
    p->hosts = &o->hosts;
    p->pmi_port = pmi_port;
    p->remote = calloc((size_t)o->hosts.nhosts, 1);
    int ninherit = 0;
    while (environ[ninherit])
        ninherit++;
    p->remote_env = calloc((size_t)(o->nenv + ninherit + 1), sizeof *p->remote_env);
    if (!p->remote || !p->remote_env || (p->nagent = split_words(tmpl, &p->agent)) <= 0) {
        fprintf(stderr, "skiffrun: cannot prepare the remote starts: %s\n", strerror(errno));
        return -1;
    }
    const char *base = strrchr(p->agent[0], '/');
    base = base ? base + 1 : p->agent[0];
    p->agent_is_ssh = strcmp(base, "ssh") == 0;
    for (int i = 0; i < o->hosts.nhosts; i++)
        p->remote[i] = o->agent != NULL || !hosts_is_self(o->hosts.hosts[i].name);
    for (int i = 0; i < ninherit; i++)
        if (remote_worthy(environ[i]) && !reserved_name(environ[i]) &&
            !overridden(environ[i], o->env, 0, o->nenv))
            p->remote_env[p->nremote_env++] = environ[i];
    for (int i = 0; i < o->nenv; i++)
        if (!reserved_name(o->env[i]) && !overridden(o->env[i], o->env, i + 1, o->nenv))
            p->remote_env[p->nremote_env++] = o->env[i];
    return 0;
}

int spawn_is_remote(const spawn_plan_t *p, int rank)
{
    return p->node_of_rank && p->remote[p->node_of_rank[rank]];
}

/* 'word' for a POSIX shell: ssh hands the remote side one command string. */
static char *shell_quote(const char *w)
{
    size_t n = 3;
    for (const char *c = w; *c; c++)
        n += *c == '\'' ? 4 : 1;
    char *q = malloc(n), *o = q;
    if (!q)
        return NULL;
    *o++ = '\'';
    for (const char *c = w; *c; c++) {
        if (*c == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else
            *o++ = *c;
    }
    *o++ = '\'';
    *o = '\0';
    return q;
}

/* A remote rank reads the job key from the first line of its stdin (the
 * launcher writes it there before anything else), so it never shows on a
 * command line (ps, /proc/PID/cmdline) on either host.  $1 is the working
 * directory ("." when -wdir is not given: the agent's). */
static const char key_from_stdin[] =
    "IFS= read -r SKIFF_JOB_KEY && export SKIFF_JOB_KEY && cd \"$1\" && shift && exec \"$@\"";

/* agent words ({host} replaced; the host appended when no word names it),
 * then: sh -c KEY_FROM_STDIN skiff-rank env PMI_...=... settings... program args... */
static char **remote_argv(const spawn_plan_t *p, int rank)
{
    const char *host = p->hosts->hosts[p->node_of_rank[rank]].name;
    int nargs = 0;
    while (p->argv[nargs])
        nargs++;
    size_t cap = (size_t)(p->nagent + 1 + 10 + p->nremote_env + 1 + nargs + 1);
    char **av = calloc(cap, sizeof *av);
    int n = 0, named = 0;
    if (!av)
        return NULL;
    for (int i = 0; i < p->nagent; i++) {
        const char *w = p->agent[i], *at = strstr(w, "{host}");
        if (!at) {
            av[n++] = strdup(w);
            continue;
        }
        named = 1;
        char *x = malloc(strlen(w) + strlen(host) + 1);
        if (x)
            sprintf(x, "%.*s%s%s", (int)(at - w), w, host, at + 6);
        av[n++] = x;
    }
    if (!named)
        av[n++] = strdup(host);
    int first_remote = n;
    char buf[160];
    av[n++] = strdup("sh");
    av[n++] = strdup("-c");
    av[n++] = strdup(key_from_stdin);
    av[n++] = strdup("skiff-rank"); /* $0 of that script */
    av[n++] = strdup(p->wdir ? p->wdir : ".");
    av[n++] = strdup("env");
    snprintf(buf, sizeof buf, "PMI_PORT=%s", p->pmi_port);
    av[n++] = strdup(buf);
    snprintf(buf, sizeof buf, "PMI_ID=%d", rank);
    av[n++] = strdup(buf);
    snprintf(buf, sizeof buf, "PMI_RANK=%d", rank);
    av[n++] = strdup(buf);
    av[n++] = strdup(p->slot_size);
    for (int i = 0; i < p->nremote_env; i++)
        av[n++] = strdup(p->remote_env[i]);
    av[n++] = strdup(p->path);
    for (int i = 1; i < nargs; i++)
        av[n++] = strdup(p->argv[i]);
    for (int i = 0; i < n; i++)
        if (!av[i])
            return NULL; /* out of memory in the child: it exits */
    if (p->agent_is_ssh)
        for (int i = first_remote; i < n; i++)
            av[i] = shell_quote(av[i]);
    return av;
}

void spawn_plan_free(spawn_plan_t *p)
{
    if (p->agent)
        for (int i = 0; i < p->nagent; i++)
            free(p->agent[i]);
    free(p->agent);
    free(p->remote);
    free(p->remote_env);
    p->agent = NULL;
    p->remote = NULL;
    p->remote_env = NULL;
    free(p->envp);
    free(p->cpu_of_rank);
    if (p->devnull_fd >= 0)
        close(p->devnull_fd);
    p->envp = NULL;
    p->cpu_of_rank = NULL;
    p->devnull_fd = -1;
}

static int set_nonblocking(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* In the child, between fork and exec.  Never returns. */
static void become_rank(const spawn_plan_t *p, int rank, int stdin_src, int out_w, int err_w,
                        int pmi_child)
{
    setpgid(0, 0);
    /* Die with the launcher; if it died before prctl took effect, go now. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != p->launcher_pid)
        _exit(127);
    if (dup2(stdin_src, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        _exit(127);
    if (pmi_child >= 0)
        fcntl(pmi_child, F_SETFD, 0); /* the one descriptor the rank keeps */
    /* The launcher blocks signals for its event loop and ignores SIGPIPE; a
     * rank starts with the defaults.  Dispositions survive exec only as
     * "ignored", and a script's '&' hands the launcher SIGINT and SIGQUIT
     * ignored: reset, or a forwarded Ctrl-C would do nothing. */
    static const int forwarded[] = {SPAWN_FORWARDED_SIGNALS};
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++) {
        struct sigaction old;
        if (forwarded[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 &&
            old.sa_handler == SIG_IGN)
            continue; /* nohup: the user asked for it */
        signal(forwarded[i], SIG_DFL);
    }
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (spawn_is_remote(p, rank)) { /* the agent, which starts the rank on its host */
        char **av = remote_argv(p, rank);
        if (!av)
            _exit(127);
        execvpe(av[0], av, p->envp + NRESERVED);
        dprintf(2, "skiffrun: rank %d: cannot execute the launch agent '%s': %s\n", rank, av[0],
                strerror(errno));
        _exit(127);
    }
    if (p->cpu_of_rank) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(p->cpu_of_rank[rank], &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    if (p->wdir && chdir(p->wdir) != 0) {
        dprintf(2, "skiffrun: rank %d: cannot change to the working directory %s: %s\n", rank,
                p->wdir, strerror(errno));
        _exit(127);
    }
    execve(p->path, p->argv, p->envp);
    if (errno == ENOEXEC) { /* a script without "#!": run it with sh, as execvp does */
        int argc = 0;
        while (p->argv[argc])
            argc++;
        char **sh_argv = calloc((size_t)argc + 2, sizeof *sh_argv);
        if (sh_argv) {
            sh_argv[0] = "sh";
            sh_argv[1] = (char *)p->path;
            for (int i = 1; i < argc; i++)
                sh_argv[i + 1] = p->argv[i];
            execve("/bin/sh", sh_argv, p->envp);
        }
        errno = ENOEXEC;
    }
    dprintf(2, "skiffrun: rank %d: cannot execute %s: %s\n", rank, p->path, strerror(errno));
    _exit(127);
}

int spawn_rank(spawn_plan_t *p, int rank, rank_proc_t *rp)
{
    int out[2] = {-1, -1}, err[2] = {-1, -1}, in[2] = {-1, -1}, pmi[2] = {-1, -1};
    int want_stdin = p->forward_stdin && rank == 0;
    int remote = spawn_is_remote(p, rank); /* PMI comes over TCP, not a socketpair */
    int stdin_pipe = want_stdin || remote;  /* remote: the job key comes first */
    int e = 0;
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || (stdin_pipe && pipe2(in, O_CLOEXEC)) ||
        (!remote && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pmi)) ||
        set_nonblocking(out[0]) || set_nonblocking(err[0]) ||
        (want_stdin && set_nonblocking(in[1])) || (!remote && set_nonblocking(pmi[0]))) {
        e = -errno;
        goto fail;
    }
    if (remote) { /* a 33-byte line always fits the empty pipe */
        const char *key = p->slot_key + strlen("SKIFF_JOB_KEY=");
        if (dprintf(in[1], "%s\n", key) != (int)strlen(key) + 1) {
            e = -EIO;
            goto fail;
        }
        if (!want_stdin) { /* then end of input */
            close(in[1]);
            in[1] = -1;
        }
    }
    snprintf(p->slot_fd, sizeof p->slot_fd, "PMI_FD=%d", pmi[1]);
    snprintf(p->slot_rank, sizeof p->slot_rank, "PMI_RANK=%d", rank);
    pid_t pid = fork();
    if (pid < 0) {
        e = -errno;
        goto fail;
    }
    if (pid == 0)
        become_rank(p, rank, stdin_pipe ? in[0] : p->devnull_fd, out[1], err[1], pmi[1]);
    setpgid(pid, pid); /* also here: no window where a signal misses the group */
    close(out[1]);
    close(err[1]);
    if (pmi[1] >= 0)
        close(pmi[1]);
    if (stdin_pipe)
        close(in[0]);
    rp->rank = rank;
    rp->pid = pid;
    rp->reaped = 0;
    rp->status = 0;
    rp->out_fd = out[0];
    rp->err_fd = err[0];
    rp->pmi_fd = pmi[0];
    rp->remote = remote;
    rp->stdin_fd = want_stdin ? in[1] : -1;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        int *fds[] = {&out[i], &err[i], &in[i], &pmi[i]};
        for (int k = 0; k < 4; k++)
            if (*fds[k] >= 0)
                close(*fds[k]);
    }
    return e ? e : -EIO;
}

void spawn_signal(const rank_proc_t *rp, int sig)
{
    if (rp->pid <= 0 || rp->reaped)
        return;
    if (kill(-rp->pid, sig) != 0)
        kill(rp->pid, sig);
}
