#!/bin/sh
# sbatch_case.sh DIR N COMMAND... — a batch job of N tasks whose script runs
# COMMAND (which starts boot_test N, e.g. through srun), submitted with
# sbatch --wait (which returns the job's exit status).  Every one of the N
# ranks must report ok; the output must also show them booting over PMI-2.
dir=$1 n=$2
shift 2
out=$dir/sbatch-$$.out
rm -f "$out"
sbatch --wait -n "$n" -O -t 2 -o "$out" --export=ALL,SKIFF_VERBOSE=1 --wrap "$*"
rc=$?
cat "$out" 2>/dev/null
ok=$(grep -c "boot_test: rank .* of $n ok" "$out" 2>/dev/null)
pmi2=$(grep -c "boot via pmi2: rank .* of $n," "$out" 2>/dev/null)
rm -f "$out"
[ "$rc" -eq 0 ] || exit "$rc"
[ "$ok" -eq "$n" ] && [ "$pmi2" -eq "$n" ] && echo "sbatch: $n ranks ok over pmi2"
