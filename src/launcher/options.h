/*
 * options — skiffrun's command line.
 *
 * Parsing stops at the first word that is not an option (the program); every
 * word after it belongs to the program.  A usage error is reported here as one
 * line on stderr; the caller exits with LAUNCH_EXIT_USAGE.
 */
#ifndef SKIFF_LAUNCHER_OPTIONS_H
#define SKIFF_LAUNCHER_OPTIONS_H

#define LAUNCH_EXIT_USAGE 2 /* bad command line, program not found/executable */
#define LAUNCH_EXIT_INTERNAL 1 /* the launcher itself failed (fork, pipes, ...) */
#define LAUNCH_MAX_RANKS 65536
#define LAUNCH_DEFAULT_AGENT "ssh -x {host}"

#include "hosts.h"

typedef enum { BIND_AUTO, BIND_NONE, BIND_CORE } bind_policy_t;
typedef enum { ACTION_RUN, ACTION_HELP, ACTION_VERSION } launch_action_t;
typedef enum { LAUNCHER_LOCAL, LAUNCHER_SLURM } launcher_kind_t;

typedef struct launch_opts {
    launch_action_t action;
    int nranks;
    int tag_output;
    bind_policy_t bind;
    char **env;      /* "NAME=VALUE" settings for every rank, in command-line order */
    int nenv;
    char **prog_argv; /* the program and its arguments (points into argv)         */
    char *prog_path;  /* the program resolved through PATH, as execvp would        */
    int nranks_given; /* -n was on the command line (else: the hosts' slots)    */
    int ppn;          /* -ppn: ranks per host (0: the host list's slots)         */
    char *wdir;       /* -wdir: the ranks' working directory (absolute), or NULL */
    int universe_size; /* -usize: MPI_UNIVERSE_SIZE (0: the hosts' slots, else -n) */
    /* Multi-host (docs/launcher.md, "Several hosts"); nhosts == 0: this host only. */
    host_list_t hosts;
    const char *agent;         /* --launch-agent template, NULL: LAUNCH_DEFAULT_AGENT */
    const char *launcher_addr; /* --launcher-addr, NULL: first non-loopback address  */
    launcher_kind_t launcher;  /* --launcher: slurm = srun inside an allocation (slurm.h) */
} launch_opts_t;

/* Parse argv.  Returns 0, or -1 after printing a usage error. */
int launch_opts_parse(int argc, char **argv, launch_opts_t *o);
void launch_opts_free(launch_opts_t *o);
void launch_print_help(void);
void launch_print_version(void);

/* Find prog like execvp(3) would in directory wdir (NULL: the current one): a
 * name with '/' is used as is (relative to wdir), otherwise each PATH entry is
 * tried.  Returns a malloc'd path to an executable regular file, or NULL after
 * printing why not (with a hint when prog, named without '/', is in wdir). */
char *launch_resolve_program(const char *prog, const char *wdir);

#endif /* SKIFF_LAUNCHER_OPTIONS_H */
