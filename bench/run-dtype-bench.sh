#!/bin/sh
# run-dtype-bench.sh — non-contiguous point-to-point bandwidth, Skiff beside
# MPICH and Open MPI: bench/mpi_dtype_bw.c built with each mpicc, 2 ranks,
# runs interleaved (noise hits all three alike), medians and Skiff / best.
#
#   bench/run-dtype-bench.sh [BUILD_DIR] [REPS]      (defaults: build 5)
#
# Raw "impl,kind,bytes,MB/s" lines stay in $OUT/raw.
set -eu
B=$(cd "${1:-build}" && pwd)
REPS=${2:-5}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d /tmp/skiff-dtype-bench.XXXXXX)}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

"$B/bin/mpicc" -O2 -o "$OUT/dt_skiff" "$SRC/mpi_dtype_bw.c"
have() { command -v "$1" >/dev/null 2>&1; }
IMPLS=skiff
if have mpicc.mpich && mpicc.mpich -O2 -w -o "$OUT/dt_mpich" "$SRC/mpi_dtype_bw.c"; then IMPLS="$IMPLS mpich"; fi
if have mpicc.openmpi && mpicc.openmpi -O2 -w -o "$OUT/dt_openmpi" "$SRC/mpi_dtype_bw.c"; then IMPLS="$IMPLS openmpi"; fi

run() {
    case $1 in
    skiff) timeout 300 "$B/bin/skiffrun" -n 2 "$OUT/dt_skiff" ;;
    mpich) timeout 300 mpiexec.mpich -n 2 "$OUT/dt_mpich" ;;
    openmpi) timeout 300 mpirun.openmpi -n 2 --bind-to none "$OUT/dt_openmpi" ;;
    esac
}

: >"$OUT/raw"
for rep in $(seq "$REPS"); do
    echo "repetition $rep of $REPS ($(cut -d' ' -f1 /proc/loadavg) load)" >&2
    for impl in $IMPLS; do
        run "$impl" 2>/dev/null | awk -v i="$impl" 'NF == 3 && $2 ~ /^[0-9]+$/ { print i "," $1 "," $2 "," $3 }' \
            >>"$OUT/raw" || echo "$impl failed in repetition $rep" >&2
    done
done

python3 - "$OUT/raw" <<'PY'
import sys, statistics, collections
vals = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) == 4:
        vals[(f[0], f[1], int(f[2]))].append(float(f[3]))
n = max((len(v) for v in vals.values()), default=0)
print(f"MB/s, median [min-max] of {n} interleaved runs; ratio = Skiff / best of the others\n")
print('| type | bytes | Skiff | MPICH | Open MPI | Skiff / best |')
print('|---|---|---|---|---|---|')
for kind in ['vec-small', 'vec-mid', 'vec-large', 'struct']:
    for size in sorted({k[2] for k in vals if k[1] == kind}):
        cells, med = [], {}
        for impl in ['skiff', 'mpich', 'openmpi']:
            v = vals.get((impl, kind, size))
            if v:
                med[impl] = statistics.median(v)
                cells.append(f"{med[impl]:.0f} [{min(v):.0f}-{max(v):.0f}]")
            else:
                cells.append('-')
        others = [med[i] for i in ('mpich', 'openmpi') if i in med]
        ratio = f"{med['skiff'] / max(others):.2f}" if 'skiff' in med and others else '-'
        print(f"| {kind} | {size} | " + ' | '.join(cells) + f" | {ratio} |")
PY
echo "raw results: $OUT/raw" >&2
