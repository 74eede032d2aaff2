#!/bin/sh
# env_choice_test.sh BOOT_TEST HAVE_PMIX — boot picks its PMI client from the
# environment (src/boot/boot_env.c) and refuses half-set ones with one line.
# Each case: the exit status must be non-zero and stderr must name the problem.
t=$1
have_pmix=$2
fails=0
clean="env -u PMI_FD -u PMI_PORT -u PMI_RANK -u PMI_SIZE -u PMI_JOBID -u PMIX_NAMESPACE -u PMIX_RANK \
 -u SKIFF_PMI -u SLURM_STEP_ID -u SLURM_NTASKS -u SLURM_STEP_NUM_TASKS -u SKIFF_JOB_KEY"

refused() { # refused "what" "expected text" VAR=VAL...
    what=$1 want=$2
    shift 2
    err=$($clean "$@" "$t" 1 --singleton 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 0 ] || ! printf '%s' "$err" | grep -q -- "$want"; then
        echo "FAIL: $what: exit $rc, stderr: $err (wanted: $want)"
        fails=$((fails + 1))
    else
        echo "ok: $what: $(printf '%s' "$err" | grep -- "$want" | head -1)"
    fi
}

refused "srun without --mpi" "Use srun --mpi=pmi2" SLURM_STEP_ID=0 SLURM_NTASKS=4
refused "PMIx half set" "PMIX_RANK missing" PMIX_NAMESPACE=job.0
refused "PMIx half set (rank only)" "PMIX_NAMESPACE missing" PMIX_RANK=0
refused "unknown SKIFF_PMI" "SKIFF_PMI=pmi3: expected pmi1, pmi2, pmix or singleton" SKIFF_PMI=pmi3
refused "SKIFF_PMI=pmi2 without PMI_FD" "SKIFF_PMI=pmi2 but PMI_FD is not set" SKIFF_PMI=pmi2
refused "PMI_RANK/SIZE without PMI_FD" "neither PMI_FD nor PMI_PORT" PMI_RANK=1 PMI_SIZE=4
if [ "$have_pmix" != 1 ]; then
    refused "PMIx launcher, no PMIx built in" "built without PMIx" PMIX_NAMESPACE=job.0 PMIX_RANK=0
fi

# One task of srun is a singleton; so is SKIFF_PMI=singleton anywhere.
for ok in "SLURM_STEP_ID=0 SLURM_NTASKS=1" "SKIFF_PMI=singleton SLURM_STEP_ID=0 SLURM_NTASKS=4"; do
    # shellcheck disable=SC2086
    if ! $clean $ok "$t" 1 --singleton --one-node >/dev/null; then
        echo "FAIL: $ok should start a singleton"
        fails=$((fails + 1))
    else
        echo "ok: $ok: singleton"
    fi
done
[ $fails -eq 0 ] && echo "env_choice: all cases passed" && exit 0
echo "env_choice: $fails case(s) failed"
exit 1
