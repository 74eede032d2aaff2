/*
 * slurm — hand the job to srun (see slurm.h).
 *
 * skiffrun's options map onto srun's:
 *   -n N              -n N, with --overcommit (skiffrun always lets ranks
 *                     outnumber CPUs) and --kill-on-bad-exit=1 (one failing
 *                     rank ends the job, as under skiffrun)
 *   -x/--env/-genv    set in our environment before exec: srun passes the
 *                     whole environment on (its --export list cannot carry
 *                     values with commas)
 *   -wdir DIR         --chdir=DIR
 *   --tag-output      --label (srun writes "0: line", not "[0] line")
 *   --bind-to core    --cpu-bind=cores; none: --cpu-bind=none; default: Slurm's
 * The ranks boot over PMI-2 (--mpi=pmi2); SKIFF_SRUN_MPI=pmix picks PMIx.
 * Host lists are Slurm's business, so --hosts/--hostfile are refused.
 */
#include "slurm.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int launch_slurm_wanted(const launch_opts_t *o)
{
    const char *job = getenv("SLURM_JOB_ID");
    if (o->launcher != LAUNCHER_SLURM)
        return 0;
    if (job && *job)
        return 1;
    if (getenv("SKIFF_VERBOSE") && atoi(getenv("SKIFF_VERBOSE")) > 0)
        fprintf(stderr, "skiffrun: --launcher slurm outside a Slurm allocation (no SLURM_JOB_ID): "
                        "starting the ranks here\n");
    return 0;
}

int launch_slurm_exec(const launch_opts_t *o)
{
    if (o->hosts.nhosts) {
        fprintf(stderr, "skiffrun: --launcher slurm: Slurm places the ranks; drop --hosts/--hostfile\n");
        return LAUNCH_EXIT_USAGE;
    }
    for (int i = 0; i < o->nenv; i++)
        if (putenv(o->env[i]) != 0) {
            fprintf(stderr, "skiffrun: setting %s: %s\n", o->env[i], strerror(errno));
            return LAUNCH_EXIT_INTERNAL;
        }
    const char *mpi = getenv("SKIFF_SRUN_MPI");
    static char ntasks[32], mpi_opt[64];
    snprintf(ntasks, sizeof ntasks, "%d", o->nranks);
    snprintf(mpi_opt, sizeof mpi_opt, "--mpi=%s", mpi && *mpi ? mpi : "pmi2");
    int nprog = 0;
    while (o->prog_argv[nprog])
        nprog++;
    char **argv = calloc((size_t)nprog + 16, sizeof *argv);
    char *chdir_opt = NULL;
    if (!argv)
        return LAUNCH_EXIT_INTERNAL;
    int n = 0;
    argv[n++] = "srun";
    argv[n++] = mpi_opt;
    argv[n++] = "-n";
    argv[n++] = ntasks;
    argv[n++] = "--overcommit";
    argv[n++] = "--kill-on-bad-exit=1";
    if (o->tag_output)
        argv[n++] = "--label";
    if (o->bind == BIND_CORE)
        argv[n++] = "--cpu-bind=cores";
    else if (o->bind == BIND_NONE)
        argv[n++] = "--cpu-bind=none";
    if (o->wdir) {
        size_t len = strlen(o->wdir) + sizeof "--chdir=";
        if (!(chdir_opt = malloc(len))) {
            free(argv);
            return LAUNCH_EXIT_INTERNAL;
        }
        snprintf(chdir_opt, len, "--chdir=%s", o->wdir);
        argv[n++] = chdir_opt;
    }
    argv[n++] = "--";
    argv[n++] = o->prog_path; /* resolved as the ranks would find it */
    for (int i = 1; i < nprog; i++)
        argv[n++] = o->prog_argv[i];
    argv[n] = NULL;
    fflush(NULL);
    execvp("srun", argv);
    fprintf(stderr, "skiffrun: --launcher slurm: cannot run srun: %s\n", strerror(errno));
    free(chdir_opt);
    free(argv);
    return LAUNCH_EXIT_INTERNAL;
}
