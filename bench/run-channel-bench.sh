#!/bin/sh
# run-channel-bench.sh — Skiff's raw channel beside MPICH and Open MPI on this
# machine, interleaved, several repetitions, medians and ratios.
#
#   bench/run-channel-bench.sh [BUILD_DIR] [REPS]      (defaults: build 5)
#
# Per repetition, in this order: the cache-line ping-pong probe, the raw
# channel (skf_chan_bench msgrate + pingpong), then bench/mpi_pt2pt.c built
# with every peer's mpicc (bench/peers.sh: Debian's MPICH and Open MPI, the
# PyPI MPICH 5, Open MPI 5 and Intel MPI of bench/setup-peers.sh, whichever
# are installed) and Skiff's own (if BUILD_DIR/bin/mpicc exists) in msgrate
# and latency mode.  Every program pins rank r to CPU r.
# Then the oversubscription probe: a token around 4 and 8 ranks on this
# machine's cores (skf_chan_bench tokenring / mpi_pt2pt tokenring; MPICH gets
# fewer laps, it needs milliseconds per hop there).
# Raw lines are kept in $OUT (printed at the end); the tables show medians.
set -eu
B=$(cd "${1:-build}" && pwd)
REPS=${2:-5}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d /tmp/skiff-chan-bench.XXXXXX)}
MR_SIZES=${MR_SIZES:-1,8,64,256,1024,4096,16384,65536}
LAT_SIZES=${LAT_SIZES:-0,8,64,1024,4096,16384,65536}
export BENCH_PIN=1
. "$SRC/peers.sh"

IMPLS=
for p in $(peers_present); do
    peer_build "$p" "$OUT/pt_$p" "$SRC/mpi_pt2pt.c" && IMPLS="$IMPLS $p" || echo "$p: build failed, left out" >&2
done
if [ -x "$B/bin/mpicc" ] && "$B/bin/mpicc" -O2 -w -o "$OUT/pt_skiff" "$SRC/mpi_pt2pt.c" 2>/dev/null; then
    IMPLS="$IMPLS skiff"
fi

run_mpi() { # impl mode sizes [np] [extra args]
    np=${4:-2}
    case $1 in
    skiff) timeout 300 "$B/bin/skiffrun" -n "$np" "$OUT/pt_skiff" "$2" --sizes "$3" ${5:-} ;;
    *) peer_run "$1" "$np" "$OUT/pt_$1" "$2" --sizes "$3" ${5:-} ;;
    esac
}

: >"$OUT/raw"
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)" >"$OUT/meta"
for rep in $(seq "$REPS"); do
    echo "repetition $rep of $REPS" >&2
    "$B/bin/cacheline_pingpong" 300000 3 2>/dev/null | sed 's/^/probe,/' >>"$OUT/raw"
    timeout 300 "$B/bin/skiffrun" -n 2 "$B/bin/skf_chan_bench" msgrate --pin --sizes "$MR_SIZES" |
        sed 's/^skf_msgrate/skiff-chan,msgrate/' >>"$OUT/raw"
    timeout 300 "$B/bin/skiffrun" -n 2 "$B/bin/skf_chan_bench" pingpong --pin --sizes "$LAT_SIZES" |
        sed 's/^skf_pingpong/skiff-chan,latency/' >>"$OUT/raw"
    for impl in $IMPLS; do
        run_mpi "$impl" msgrate "$MR_SIZES" | sed "s/^/mpi-$impl,/" >>"$OUT/raw" || true
        run_mpi "$impl" latency "$LAT_SIZES" | sed "s/^/mpi-$impl,/" >>"$OUT/raw" || true
    done
done

for rep in 1 2 3; do
    for np in 4 8; do
        timeout 300 "$B/bin/skiffrun" -n $np "$B/bin/skf_chan_bench" tokenring --iters 3000 |
            sed 's/^skf_tokenring_np[0-9]*/skiff-chan,tokenring/; s/,8,/,'$np',/' >>"$OUT/raw"
        for impl in $IMPLS; do
            laps=3000
            case $impl in mpich|mpich5|impi) laps=30 ;; esac
            BENCH_PIN=0 run_mpi "$impl" tokenring 8 $np "--iters $laps" |
                sed "s/^tokenring_np[0-9]*/mpi-$impl,tokenring/; s/,8,/,$np,/" >>"$OUT/raw" || true
        done
    done
done

echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUT/meta"
cat "$OUT/meta"

python3 - "$OUT/raw" <<'EOF'
import sys, statistics, collections
vals = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) == 5:
        vals[(f[0], f[1], int(f[2]))].append(float(f[3]))
med = {k: statistics.median(v) for k, v in vals.items()}
impls = sorted({k[0] for k in vals if k[0].startswith('mpi-')})
def row(cells): print('| ' + ' | '.join(cells) + ' |')
n = len(vals.get(('skiff-chan', 'msgrate', 8), []))
print(f"\nMsgRate (M msg/s, medians of {n} runs; rank 0 only sends, rank 1 only receives)\n")
row(['size', 'skiff-chan'] + impls + ['chan / best MPI'])
row(['---'] * (3 + len(impls)))
for s in sorted({k[2] for k in vals if k[1] == 'msgrate'}):
    c = med.get(('skiff-chan', 'msgrate', s))
    m = [med.get((i, 'msgrate', s)) for i in impls]
    best = max([x for x in m if x] or [0])
    row([str(s), f"{c:.2f}" if c else '-'] + [f"{x:.2f}" if x else '-' for x in m] +
        [f"{c / best:.2f}x" if c and best else '-'])
probe = med.get(('probe', 'cacheline_pingpong', 8))
print(f"\nPing-pong half round trip (us, medians); cache-line probe (same runs): "
      f"{probe:.1f} ns\n" if probe else "\nPing-pong half round trip (us)\n")
row(['size', 'skiff-chan'] + impls + ['chan / probe'])
row(['---'] * (3 + len(impls)))
for s in sorted({k[2] for k in vals if k[1] == 'latency'}):
    c = med.get(('skiff-chan', 'latency', s))
    m = [med.get((i, 'latency', s)) for i in impls]
    ratio = f"{c * 1000 / probe:.2f}x" if c and probe and s <= 8 else ''
    row([str(s), f"{c:.3f}" if c else '-'] + [f"{x:.3f}" if x else '-' for x in m] + [ratio])
print("\nToken around all ranks, oversubscribed (us per hop, medians of 3)\n")
row(['ranks', 'skiff-chan'] + impls)
row(['---'] * (2 + len(impls)))
for s in sorted({k[2] for k in vals if k[1] == 'tokenring'}):
    c = med.get(('skiff-chan', 'tokenring', s))
    m = [med.get((i, 'tokenring', s)) for i in impls]
    row([str(s), f"{c:.2f}" if c else '-'] + [f"{x:.2f}" if x else '-' for x in m])
EOF
echo "raw results: $OUT/raw" >&2
