#!/bin/sh
# run-mt-bench.sh — multithreaded MPI (bench/mpi_mt.c) beside the other MPIs of
# this machine (bench/peers.sh: Debian's MPICH and Open MPI, the PyPI MPICH 5,
# Open MPI 5 and Intel MPI of bench/setup-peers.sh): the same source built
# with each mpicc, runs interleaved, medians.
#
#   bench/run-mt-bench.sh [BUILD_DIR] [REPS]        (defaults: build 5)
#   LAT_ITERS (2000), RATE_ITERS (300 windows of 64): iterations per run; the
#   peers poll with every thread, which on an oversubscribed machine costs
#   them milliseconds per message, so runs are kept short.
#
# Per repetition every case runs once with each MPI, one after the other, so
# machine noise hits all alike.  2 ranks; threads are not pinned.  Cases:
# 8-byte latency with 1 thread at MPI_THREAD_SINGLE (Skiff only: the baseline
# of the MULTIPLE overhead) and with 1, 2, 4 thread pairs at MULTIPLE; 8-byte
# rate with 1, 2, 4 threads per rank, each on its own communicator.
# Raw lines stay in $OUT/raw; the table goes to stdout.
set -eu
B=$(cd "${1:-build}" && pwd)
REPS=${2:-5}
SRC=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d /tmp/skiff-mt-bench.XXXXXX)}
LAT_ITERS=${LAT_ITERS:-2000}
RATE_ITERS=${RATE_ITERS:-300}
. "$SRC/peers.sh"
PEER_TIMEOUT=120

"$B/bin/mpicc" -O2 -o "$OUT/mt_skiff" "$SRC/mpi_mt.c" -lpthread
IMPLS=skiff
for p in $(peers_present); do
    peer_build "$p" "$OUT/mt_$p" "$SRC/mpi_mt.c" -lpthread && IMPLS="$IMPLS $p" || echo "$p: build failed, left out" >&2
done

run() { # impl args...
    impl=$1
    shift
    case $impl in
    skiff) timeout 120 "$B/bin/skiffrun" -n 2 "$OUT/mt_skiff" "$@" ;;
    *) peer_run "$impl" 2 "$OUT/mt_$impl" "$@" ;;
    esac
}

: >"$OUT/raw"
for rep in $(seq "$REPS"); do
    echo "repetition $rep of $REPS ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
    run skiff latency --level single --iters "$LAT_ITERS" | sed "s/^/skiff,/" >>"$OUT/raw" || true
    for case in "latency --threads 1 --iters $LAT_ITERS" "latency --threads 2 --iters $LAT_ITERS" \
                "latency --threads 4 --iters $LAT_ITERS" "rate --threads 1 --iters $RATE_ITERS" \
                "rate --threads 2 --iters $RATE_ITERS" "rate --threads 4 --iters $RATE_ITERS"; do
        for impl in $IMPLS; do
            # shellcheck disable=SC2086
            run "$impl" $case | sed "s/^/$impl,/" >>"$OUT/raw" || true
        done
    done
done

python3 - "$OUT/raw" $IMPLS <<'PY'
import statistics, sys
impls = sys.argv[2:]
runs = {}
for line in open(sys.argv[1]):
    impl, mode, threads, size, value, unit = line.strip().split(",")
    runs.setdefault((mode, int(threads), unit), {}).setdefault(impl, []).append(float(value))
print("| case | threads | " + " | ".join(impls) + " | unit |")
print("|---|---|" + "---|" * len(impls) + "---|")
for (mode, threads, unit), by in sorted(runs.items()):
    cell = lambda i: "%.3f" % statistics.median(by[i]) if i in by else "-"
    print(f"| {mode} 8 B | {threads} | " + " | ".join(cell(i) for i in impls) + f" | {unit} |")
PY
echo "raw: $OUT/raw" >&2
