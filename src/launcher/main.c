/*
 * skiffrun — Skiff's launcher (also installed as mpiexec and mpirun).
 *
 * main only wires the pieces together: read the command line, make sure the
 * standard descriptors and the open-file limit are sane, run the job.
 * docs/launcher.md describes the behaviour.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "job.h"
#include "options.h"
#include "slurm.h"

/* Descriptors 0-2 closed by the caller would be reused by our pipes and then
 * clobbered by the dup2()s that set up a rank's stdio. */
static void ensure_std_fds(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0)
            open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY); /* takes the lowest free: fd */
}

/* Each rank costs the launcher three descriptors; use all we are allowed. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int main(int argc, char **argv)
{
    ensure_std_fds();
    launch_opts_t opts;
    if (launch_opts_parse(argc, argv, &opts) != 0) {
        launch_opts_free(&opts);
        return LAUNCH_EXIT_USAGE;
    }
    if (opts.action == ACTION_HELP) {
        launch_print_help();
        return 0;
    }
    if (opts.action == ACTION_VERSION) {
        launch_print_version();
        return 0;
    }
    if (launch_slurm_wanted(&opts)) { /* srun starts the ranks */
        int code = launch_slurm_exec(&opts);
        launch_opts_free(&opts);
        return code;
    }
    raise_fd_limit();
    int code = job_run(&opts);
    launch_opts_free(&opts);
    return code;
}
