/*
 * slurm — skiffrun --launcher slurm: inside a Slurm allocation (SLURM_JOB_ID
 * set) the ranks are started by srun --mpi=pmi2 instead of by skiffrun, so the
 * same command line works on a laptop and in an allocation (docs/launcher.md,
 * "Running under Slurm").
 */
#ifndef SKIFF_LAUNCHER_SLURM_H
#define SKIFF_LAUNCHER_SLURM_H

#include "options.h"

/* Slurm should start this job: --launcher slurm inside an allocation. */
int launch_slurm_wanted(const launch_opts_t *o);
/* Replace skiffrun by srun with the equivalent options.  Returns only when
 * srun could not be started (LAUNCH_EXIT_INTERNAL, after saying why). */
int launch_slurm_exec(const launch_opts_t *o);

#endif
