/*
 * spawn — starting one rank: its environment, pipes, PMI socket, CPU binding,
 * process group and the guard that kills it when the launcher dies.
 *
 * Every rank leads its own process group, so the launcher can signal a rank
 * together with anything it started, and a terminal's Ctrl-C reaches only the
 * launcher, which forwards it once.  The child side of every descriptor is
 * created close-on-exec, so no rank inherits another rank's pipes.
 */
#ifndef SKIFF_LAUNCHER_SPAWN_H
#define SKIFF_LAUNCHER_SPAWN_H

#include <sys/types.h>

#include "options.h"

/* Signals the launcher passes on to every rank (SIGINT, SIGQUIT, SIGTERM and
 * SIGHUP a second time kill them all).  A rank starts with the default action
 * for each and none blocked; only a SIGHUP ignored by nohup stays ignored
 * (and is then not forwarded). */
#define SPAWN_FORWARDED_SIGNALS SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2

typedef struct rank_proc {
    int rank;
    pid_t pid;     /* 0 until started                                  */
    int reaped;    /* exit status collected                             */
    int status;    /* wait(2) status once reaped                        */
    int pmi_fd;    /* launcher's end of the PMI socketpair (non-blocking) */
    int out_fd;    /* read end of the rank's stdout pipe (non-blocking) */
    int err_fd;    /* read end of the rank's stderr pipe (non-blocking) */
    int stdin_fd;  /* rank 0 when stdin is forwarded: write end, else -1 */
    int remote;    /* started through the launch agent; PMI comes over TCP */
} rank_proc_t;

typedef struct spawn_plan {
    const char *path;       /* resolved program */
    const char *wdir;       /* -wdir: the ranks start there (NULL: where I am) */
    char *const *argv;
    char **envp;            /* reserved slots first, then inherited + user settings */
    int size;
    int *cpu_of_rank;       /* [size] CPU to pin each rank to, or NULL: no binding */
    int devnull_fd;         /* stdin of ranks that get no input */
    int forward_stdin;      /* rank 0 gets a pipe fed by the launcher */
    pid_t launcher_pid;
    char slot_fd[32], slot_rank[32], slot_size[32], slot_key[64];
    /* Multi-host: ranks on hosts other than this one start through the
     * launch agent (docs/launcher.md, "Several hosts"). */
    const int *node_of_rank;  /* [size] host index, or NULL: all local        */
    const host_list_t *hosts;
    unsigned char *remote;    /* [nhosts] 1: start through the agent          */
    char **agent;             /* the template split into words                */
    int nagent, agent_is_ssh; /* ssh runs the remote words through a shell    */
    char **remote_env;        /* NAME=VALUE words given to remote ranks       */
    int nremote_env;
    const char *pmi_port;     /* PMI_PORT for remote ranks                    */
} spawn_plan_t;

/* Build the environment and binding plan.  Returns 0 or -1 (message printed). */
int spawn_plan_init(spawn_plan_t *p, const launch_opts_t *o, const char *job_key,
                    int forward_stdin);
void spawn_plan_free(spawn_plan_t *p);

/* Set up remote starts: hosts that are not this one (or every host, when an
 * agent was given explicitly) start through the agent.  0 or -1 (printed). */
int spawn_plan_hosts(spawn_plan_t *p, const launch_opts_t *o, const int *node_of_rank,
                     const char *pmi_port);
/* 1 when rank starts through the agent (then it has no PMI_FD). */
int spawn_is_remote(const spawn_plan_t *p, int rank);

/* Start rank `rank`.  Returns 0, or -errno (nothing left open). */
int spawn_rank(spawn_plan_t *p, int rank, rank_proc_t *rp);

/* Signal a rank and its process group (if it was started and not reaped). */
void spawn_signal(const rank_proc_t *rp, int sig);

#endif /* SKIFF_LAUNCHER_SPAWN_H */
