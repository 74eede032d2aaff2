/*
 * minipmi — a tiny PMI-1 server for tests that must outlive a rank's death.
 *
 * Real launchers (skiffrun, hydra) end the whole job when a rank dies, so a
 * test of what the *survivors* see needs a launcher that does not: this one
 * forks N copies of the test program with PMI_FD/PMI_RANK/PMI_SIZE and a job
 * key, answers the PMI-1 commands boot uses, and completes a barrier once
 * every rank that is still connected has entered it (a dead rank no longer
 * counts).  It returns each rank's wait status.
 */
#ifndef SKIFF_MINIPMI_H
#define SKIFF_MINIPMI_H

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmi_wire.h"

#define MINIPMI_MAX 16
#define MINIPMI_KVS 256

struct minipmi {
    int n;
    int fd[MINIPMI_MAX];
    pid_t pid[MINIPMI_MAX];
    int in_barrier[MINIPMI_MAX];
    pmi_linebuf_t lb[MINIPMI_MAX];
    char *key[MINIPMI_KVS], *val[MINIPMI_KVS];
    int nkv;
};

static void minipmi_reply(struct minipmi *m, int r, const char *fmt, const char *a)
{
    char line[PMI_WIRE_LINE_MAX];
    int len = snprintf(line, sizeof line, fmt, a);
    if (m->fd[r] >= 0)
        pmi_wire_write_all(m->fd[r], line, (size_t)len);
}

static void minipmi_barrier_check(struct minipmi *m)
{
    int alive = 0, waiting = 0;
    for (int r = 0; r < m->n; r++)
        if (m->fd[r] >= 0) {
            alive++;
            waiting += m->in_barrier[r];
        }
    if (!alive || waiting < alive)
        return;
    for (int r = 0; r < m->n; r++)
        if (m->fd[r] >= 0) {
            m->in_barrier[r] = 0;
            minipmi_reply(m, r, "cmd=barrier_out rc=0%s\n", "");
        }
}

static void minipmi_line(struct minipmi *m, int r, char *line)
{
    pmi_kv_t kv[PMI_WIRE_MAX_WORDS];
    int n = pmi_wire_parse(line, kv, PMI_WIRE_MAX_WORDS);
    const char *cmd = n > 0 ? pmi_wire_find(kv, n, "cmd") : NULL;
    char num[32];
    if (!cmd)
        return;
    if (!strcmp(cmd, "init"))
        minipmi_reply(m, r, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0%s\n", "");
    else if (!strcmp(cmd, "get_maxes"))
        minipmi_reply(m, r, "cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024 rc=0%s\n", "");
    else if (!strcmp(cmd, "get_my_kvsname"))
        minipmi_reply(m, r, "cmd=my_kvsname kvsname=minipmi rc=0%s\n", "");
    else if (!strcmp(cmd, "get_appnum"))
        minipmi_reply(m, r, "cmd=appnum appnum=0 rc=0%s\n", "");
    else if (!strcmp(cmd, "get_universe_size")) {
        snprintf(num, sizeof num, "%d", m->n);
        minipmi_reply(m, r, "cmd=universe_size size=%s rc=0\n", num);
    } else if (!strcmp(cmd, "put")) {
        const char *k = pmi_wire_find(kv, n, "key"), *v = pmi_wire_find(kv, n, "value");
        if (k && v && m->nkv < MINIPMI_KVS) {
            m->key[m->nkv] = strdup(k);
            m->val[m->nkv++] = strdup(v);
        }
        minipmi_reply(m, r, "cmd=put_result rc=0%s\n", "");
    } else if (!strcmp(cmd, "get")) {
        const char *k = pmi_wire_find(kv, n, "key");
        char mapping[64];
        const char *v = NULL;
        snprintf(mapping, sizeof mapping, "(vector,(0,1,%d))", m->n);
        if (k && !strcmp(k, "PMI_process_mapping"))
            v = mapping;
        for (int i = m->nkv - 1; k && !v && i >= 0; i--)
            if (!strcmp(m->key[i], k))
                v = m->val[i];
        if (v)
            minipmi_reply(m, r, "cmd=get_result rc=0 value=%s\n", v);
        else
            minipmi_reply(m, r, "cmd=get_result rc=-1%s\n", "");
    } else if (!strcmp(cmd, "barrier_in")) {
        m->in_barrier[r] = 1;
        minipmi_barrier_check(m);
    } else if (!strcmp(cmd, "finalize"))
        minipmi_reply(m, r, "cmd=finalize_ack rc=0%s\n", "");
}

/* Start n copies of argv (PMI_FD etc. in their environment), serve them
 * until all have exited, and store their wait statuses. */
static int minipmi_run(int n, char *const argv[], const char *job_key, int *status)
{
    struct minipmi m;
    memset(&m, 0, sizeof m);
    m.n = n;
    for (int r = 0; r < n; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            return -1;
        pid_t pid = fork();
        if (pid == 0) {
            char v[32];
            int fd = dup(sv[1]); /* without CLOEXEC */
            snprintf(v, sizeof v, "%d", fd);
            setenv("PMI_FD", v, 1);
            snprintf(v, sizeof v, "%d", r);
            setenv("PMI_RANK", v, 1);
            snprintf(v, sizeof v, "%d", n);
            setenv("PMI_SIZE", v, 1);
            setenv("SKIFF_JOB_KEY", job_key, 1);
            unsetenv("PMI_PORT");
            execv("/proc/self/exe", argv);
            _exit(127);
        }
        close(sv[1]);
        m.fd[r] = sv[0];
        m.pid[r] = pid;
    }
    for (int left = n; left > 0;) {
        struct pollfd p[MINIPMI_MAX];
        for (int r = 0; r < n; r++)
            p[r] = (struct pollfd){.fd = m.fd[r], .events = POLLIN};
        if (poll(p, (nfds_t)n, -1) < 0)
            continue;
        for (int r = 0; r < n; r++) {
            if (m.fd[r] < 0 || !p[r].revents)
                continue;
            long got = pmi_linebuf_fill(&m.lb[r], m.fd[r]);
            char line[PMI_WIRE_LINE_MAX];
            while (got > 0 && pmi_linebuf_next(&m.lb[r], line, sizeof line) == 1)
                minipmi_line(&m, r, line);
            if (got <= 0) { /* the rank exited (or died) */
                close(m.fd[r]);
                m.fd[r] = -1;
                m.in_barrier[r] = 0;
                left--;
                minipmi_barrier_check(&m);
            }
        }
    }
    for (int r = 0; r < n; r++)
        waitpid(m.pid[r], &status[r], 0);
    for (int i = 0; i < m.nkv; i++) {
        free(m.key[i]);
        free(m.val[i]);
    }
    return 0;
}

#endif
