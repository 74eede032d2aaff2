#!/bin/sh
# run-dtype-bench.sh — non-contiguous point-to-point bandwidth, Skiff beside
# the other MPIs of this machine (bench/peers.sh: Debian's MPICH and Open MPI,
# the PyPI MPICH 5, Open MPI 5 and Intel MPI of bench/setup-peers.sh):
# bench/mpi_dtype_bw.c built with each mpicc, 2 ranks, runs interleaved (noise
# hits all alike), medians and Skiff / best.
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
. "$SRC/peers.sh"

"$B/bin/mpicc" -O2 -o "$OUT/dt_skiff" "$SRC/mpi_dtype_bw.c"
IMPLS=skiff
for p in $(peers_present); do
    peer_build "$p" "$OUT/dt_$p" "$SRC/mpi_dtype_bw.c" && IMPLS="$IMPLS $p" || echo "$p: build failed, left out" >&2
done

run() {
    case $1 in
    skiff) timeout 300 "$B/bin/skiffrun" -n 2 "$OUT/dt_skiff" ;;
    *) peer_run "$1" 2 "$OUT/dt_$1" ;;
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

python3 - "$OUT/raw" $IMPLS <<'PY'
import sys, statistics, collections
vals = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) == 4:
        vals[(f[0], f[1], int(f[2]))].append(float(f[3]))
n = max((len(v) for v in vals.values()), default=0)
print(f"MB/s, median [min-max] of {n} interleaved runs; ratio = Skiff / best of the others\n")
impls = sys.argv[2:]
print('| type | bytes | ' + ' | '.join(impls) + ' | Skiff / best |')
print('|---|---|' + '---|' * len(impls) + '---|')
for kind in ['vec-small', 'vec-mid', 'vec-large', 'struct']:
    for size in sorted({k[2] for k in vals if k[1] == kind}):
        cells, med = [], {}
        for impl in impls:
            v = vals.get((impl, kind, size))
            if v:
                med[impl] = statistics.median(v)
                cells.append(f"{med[impl]:.0f} [{min(v):.0f}-{max(v):.0f}]")
            else:
                cells.append('-')
        others = [med[i] for i in impls[1:] if i in med]
        ratio = f"{med['skiff'] / max(others):.2f}" if 'skiff' in med and others else '-'
        print(f"| {kind} | {size} | " + ' | '.join(cells) + f" | {ratio} |")
PY
echo "raw results: $OUT/raw" >&2
