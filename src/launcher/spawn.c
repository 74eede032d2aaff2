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
 * inherited PMI_xxx and PMIX_xxx ones (an outer launcher's) are dropped, since they
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
        int *cpus, ncpus = available_cpus(&cpus);
        if (ncpus >= o->nranks)
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

void spawn_plan_free(spawn_plan_t *p)
{
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
    fcntl(pmi_child, F_SETFD, 0); /* the one descriptor the rank keeps */
    /* The launcher blocks and ignores signals for its event loop; a rank
     * starts with the defaults. */
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (p->cpu_of_rank) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(p->cpu_of_rank[rank], &set);
        sched_setaffinity(0, sizeof set, &set);
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
    int e = 0;
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || (want_stdin && pipe2(in, O_CLOEXEC)) ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pmi) ||
        set_nonblocking(out[0]) || set_nonblocking(err[0]) ||
        (want_stdin && set_nonblocking(in[1])) || set_nonblocking(pmi[0])) {
        e = -errno;
        goto fail;
    }
    snprintf(p->slot_fd, sizeof p->slot_fd, "PMI_FD=%d", pmi[1]);
    snprintf(p->slot_rank, sizeof p->slot_rank, "PMI_RANK=%d", rank);
    pid_t pid = fork();
    if (pid < 0) {
        e = -errno;
        goto fail;
    }
    if (pid == 0)
        become_rank(p, rank, want_stdin ? in[0] : p->devnull_fd, out[1], err[1], pmi[1]);
    setpgid(pid, pid); /* also here: no window where a signal misses the group */
    close(out[1]);
    close(err[1]);
    close(pmi[1]);
    if (want_stdin)
        close(in[0]);
    rp->rank = rank;
    rp->pid = pid;
    rp->reaped = 0;
    rp->status = 0;
    rp->out_fd = out[0];
    rp->err_fd = err[0];
    rp->pmi_fd = pmi[0];
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
