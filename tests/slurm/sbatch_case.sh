#!/bin/sh
# sbatch_case.sh DIR BOOT_TEST — a batch script that calls srun --mpi=pmi2,
# submitted with sbatch --wait (which returns the job's exit status).
dir=$1 prog=$2
out=$dir/sbatch-$$.out
rm -f "$out"
sbatch --wait -n 3 -O -t 2 -o "$out" --wrap "srun --mpi=pmi2 $prog 3 --one-node" || {
    rc=$?
    cat "$out" 2>/dev/null
    exit $rc
}
cat "$out"
ok=$(grep -c "boot_test: rank .* of 3 ok" "$out")
rm -f "$out"
[ "$ok" -eq 3 ] && echo "sbatch: 3 ranks ok"
