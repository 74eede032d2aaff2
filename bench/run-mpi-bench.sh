#!/bin/sh
# run-mpi-bench.sh — Skiff's MPI beside the other MPIs of this machine: the same
# source (bench/mpi_pt2pt.c) built with each mpicc, runs interleaved, medians.
#
#   bench/run-mpi-bench.sh [BUILD_DIR] [REPS]        (defaults: build 5)
#
# Peers (bench/peers.sh): Debian's MPICH and Open MPI, and the PyPI venvs of
# bench/setup-peers.sh — MPICH 5 (mpich5), Open MPI 5 (ompi5), Intel MPI (impi)
# — whichever are installed; PEERS="mpich5 impi" chooses.  Per repetition and
# per mode (latency, msgrate, bw, bibw) the MPIs run one after the other, so
# machine noise hits all of them alike.  Every rank r is pinned to CPU r
# (BENCH_PIN=1).  Raw lines stay in $OUT/raw.
set -eu
B=$(cd "${1:-build}" && pwd)
REPS=${2:-5}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d /tmp/skiff-mpi-bench.XXXXXX)}
export BENCH_PIN=1
. "$SRC/peers.sh"

"$B/bin/mpicc" -O2 -o "$OUT/pt_skiff" "$SRC/mpi_pt2pt.c"
IMPLS=skiff
for p in $(peers_present); do
    peer_build "$p" "$OUT/pt_$p" "$SRC/mpi_pt2pt.c" && IMPLS="$IMPLS $p" || echo "$p: build failed, left out" >&2
done
echo "MPIs: $IMPLS (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2

run() { # impl mode sizes
    case $1 in
    skiff) timeout 300 "$B/bin/skiffrun" -n 2 "$OUT/pt_skiff" "$2" --sizes "$3" ;;
    *) peer_run "$1" 2 "$OUT/pt_$1" "$2" --sizes "$3" ;;
    esac
}

: >"$OUT/raw"
for rep in $(seq "$REPS"); do
    echo "repetition $rep of $REPS" >&2
    for mode in latency:${LAT_SIZES:-0,8,64,1024,16384,65536,1048576,4194304} \
                msgrate:${MR_SIZES:-8,64,1024} bw:${BW_SIZES:-8,1024,65536,1048576,4194304} \
                bibw:${BW_SIZES:-8,1024,65536,1048576,4194304}; do
        for impl in $IMPLS; do
            run "$impl" "${mode%%:*}" "${mode#*:}" | sed "s/^/$impl,/" >>"$OUT/raw" || true
        done
    done
done

python3 - "$OUT/raw" $IMPLS <<'PY'
import sys, statistics, collections
vals = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) == 5:
        vals[(f[0], f[1], int(f[2]))].append(float(f[3]))
impls = sys.argv[2:]
names = {'skiff': 'Skiff', 'mpich': 'MPICH', 'openmpi': 'Open MPI', 'mpich5': 'MPICH 5',
         'ompi5': 'Open MPI 5', 'impi': 'Intel MPI'}
units = {'latency': 'us, lower is better', 'msgrate': 'M msg/s', 'bw': 'MB/s', 'bibw': 'MB/s'}
for mode in ['latency', 'msgrate', 'bw', 'bibw']:
    sizes = sorted({k[2] for k in vals if k[1] == mode})
    if not sizes:
        continue
    n = max(len(vals[k]) for k in vals if k[1] == mode)
    print(f"\n{mode} ({units[mode]}; median [min-max] of {n} interleaved runs)\n")
    print('| size | ' + ' | '.join(names.get(i, i) for i in impls) + ' | Skiff vs best |')
    print('|---|' + '---|' * len(impls) + '---|')
    for s in sizes:
        cells, med = [], {}
        for i in impls:
            v = vals.get((i, mode, s))
            if v:
                med[i] = statistics.median(v)
                cells.append(f"{med[i]:.3g} [{min(v):.3g}-{max(v):.3g}]")
            else:
                cells.append('-')
        others = [med[i] for i in impls[1:] if i in med]
        ratio = '-'
        if 'skiff' in med and others:
            best = min(others) if mode == 'latency' else max(others)
            ratio = f"{best / med['skiff']:.2f}x faster" if mode == 'latency' else f"{med['skiff'] / best:.2f}x"
        print(f"| {s} | " + ' | '.join(cells) + f" | {ratio} |")
PY
echo "raw results: $OUT/raw" >&2
