#!/bin/bash
# slurm_case.sh DIR zero|nonzero PATTERN [--pmix] -- COMMAND...
# One test against the cluster slurm_cluster.sh started in DIR: COMMAND (an
# srun/sbatch line) runs under a timeout with SLURM_CONF set; its exit status
# must be 0 (zero) or a failure that is not the timeout (nonzero), and its
# output must match the extended regular expression PATTERN.
# Exit 77 (skipped, with the reason) when there is no cluster, or with --pmix
# when Slurm has no pmix plugin or Skiff was built without PMIx.
set -u
dir=$1 want=$2 pattern=$3
shift 3
pmix=0
[[ ${1:-} == --pmix ]] && pmix=1 && shift
[[ ${1:-} == -- ]] && shift
if [[ ! -f $dir/slurm.conf ]]; then
    echo "SKIPPED: no test Slurm in $dir (slurm_up skipped or failed: see its output)"
    exit 77
fi
export SLURM_CONF=$dir/slurm.conf
if ((pmix)); then
    [[ ${SKIFF_HAVE_PMIX:-0} == 1 ]] || { echo "SKIPPED: Skiff built without PMIx (libpmix-dev)"; exit 77; }
    timeout 20 srun --mpi=list 2>&1 | grep -qw pmix || { echo "SKIPPED: this Slurm has no mpi/pmix plugin"; exit 77; }
fi
out=$(timeout 150 "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
echo "--- exit status $rc"
if [[ $rc -eq 124 ]]; then
    echo "FAIL: timed out"
    exit 1
fi
if [[ $want == zero && $rc -ne 0 ]] || [[ $want == nonzero && $rc -eq 0 ]]; then
    echo "FAIL: exit status $rc, wanted $want"
    exit 1
fi
if [[ -n $pattern ]] && ! grep -Eq -- "$pattern" <<<"$out"; then
    echo "FAIL: output does not match '$pattern'"
    exit 1
fi
echo "ok"
