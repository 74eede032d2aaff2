/*
 * boot_env — which PMI client the environment asks for.
 *
 *   SKIFF_PMI=pmi1|pmi2|pmix|singleton   forces a client (for tests and odd setups)
 *   PMI_FD + PMI_JOBID, no SKIFF_JOB_KEY  PMI-2 (Slurm's --mpi=pmi2 sets PMI_JOBID)
 *   PMI_FD                                PMI-1 (skiffrun, hydra)
 *   PMI_PORT                              PMI-1 over TCP (skiffrun's remote ranks)
 *   PMIX_NAMESPACE + PMIX_RANK            PMIx (srun --mpi=pmix, prterun, Open MPI 5 mpirun)
 *   SLURM_STEP_ID with several tasks      error: srun started the ranks without PMI
 *   nothing of the above                  singleton
 *
 * skiffrun strips inherited PMI_* and sets SKIFF_JOB_KEY, so a skiffrun job
 * inside an allocation still gets PMI-1; hydra speaks PMI-2 too, so a stray
 * PMI_JOBID there does no harm.  The nearest launcher wins: PMI_FD over PMIX_*.
 * Half-set environments are refused with one line that names what is missing.
 */
#include "boot/boot_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Set and not empty. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int has_pmix(void)
{
#ifdef SKIFF_HAVE_PMIX
    return 1;
#else
    return 0;
#endif
}

static int pmix_method(boot_method_t *method)
{
    if (!env("PMIX_NAMESPACE") || !env("PMIX_RANK")) {
        boot_error("PMIx environment is half set: PMIX_NAMESPACE %s, PMIX_RANK %s (both come "
                   "from a PMIx launcher such as srun --mpi=pmix or prterun)",
                   env("PMIX_NAMESPACE") ? "set" : "missing", env("PMIX_RANK") ? "set" : "missing");
        return -EINVAL;
    }
    if (!has_pmix()) {
        boot_error("started by a PMIx launcher (PMIX_NAMESPACE=%.60s) but this Skiff was built "
                   "without PMIx: install libpmix-dev and rebuild, or start it with skiffrun, "
                   "srun --mpi=pmi2 or mpiexec.hydra",
                   env("PMIX_NAMESPACE"));
        return -ENOTSUP;
    }
    *method = BOOT_PMIX;
    return 0;
}

static int forced(const char *want, boot_method_t *method)
{
    if (strcmp(want, "singleton") == 0) {
        *method = BOOT_SINGLETON;
        return 0;
    }
    if (strcmp(want, "pmix") == 0)
        return pmix_method(method);
    if (strcmp(want, "pmi1") == 0 || strcmp(want, "pmi2") == 0) {
        if (env("PMI_FD")) {
            *method = want[3] == '2' ? BOOT_PMI2_FD : BOOT_PMI1_FD;
            return 0;
        }
        if (want[3] == '1' && env("PMI_PORT")) {
            *method = BOOT_PMI1_TCP;
            return 0;
        }
        boot_error("SKIFF_PMI=%s but PMI_FD%s is not set: no launcher to talk to", want,
                   want[3] == '1' ? " (or PMI_PORT)" : "");
        return -EINVAL;
    }
    boot_error("SKIFF_PMI=%.40s: expected pmi1, pmi2, pmix or singleton", want);
    return -EINVAL;
}

/* Slurm started this process as one of several tasks, without any PMI. */
static int slurm_without_pmi(void)
{
    const char *ntasks = env("SLURM_STEP_NUM_TASKS") ? env("SLURM_STEP_NUM_TASKS") : env("SLURM_NTASKS");
    if (!env("SLURM_STEP_ID") || !ntasks || atoi(ntasks) <= 1)
        return 0;
    boot_error("started by srun as one of %s tasks (SLURM_STEP_ID=%s) without a PMI: every task "
               "would be a singleton.  Use srun --mpi=pmi2%s (or set MpiDefault=pmi2 in "
               "slurm.conf)",
               ntasks, env("SLURM_STEP_ID"), has_pmix() ? " or --mpi=pmix" : "");
    return -ENOTSUP;
}

int boot_choose_method(boot_method_t *method)
{
    const char *want = env("SKIFF_PMI");
    if (want)
        return forced(want, method);
    if (env("PMI_FD")) {
        *method = env("PMI_JOBID") && !getenv("SKIFF_JOB_KEY") ? BOOT_PMI2_FD : BOOT_PMI1_FD;
        return 0;
    }
    if (env("PMI_PORT")) {
        *method = BOOT_PMI1_TCP;
        return 0;
    }
    if (env("PMIX_NAMESPACE") || env("PMIX_RANK"))
        return pmix_method(method);
    if (env("PMI_RANK") && env("PMI_SIZE") && atoi(env("PMI_SIZE")) > 1) {
        boot_error("PMI_RANK and PMI_SIZE=%s are set but neither PMI_FD nor PMI_PORT: the "
                   "launcher did not pass its PMI connection",
                   env("PMI_SIZE"));
        return -EINVAL;
    }
    int rc = slurm_without_pmi();
    if (rc)
        return rc;
    *method = BOOT_SINGLETON;
    return 0;
}
