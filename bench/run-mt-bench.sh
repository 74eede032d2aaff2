#!/bin/sh
# run-mt-bench.sh — multithreaded MPI (bench/mpi_mt.c) beside MPICH and Open
# MPI: the same source built with each mpicc, runs interleaved, medians.
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
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

"$B/bin/mpicc" -O2 -o "$OUT/mt_skiff" "$SRC/mpi_mt.c" -lpthread
mpicc.mpich -O2 -w -o "$OUT/mt_mpich" "$SRC/mpi_mt.c" -lpthread
mpicc.openmpi -O2 -w -o "$OUT/mt_openmpi" "$SRC/mpi_mt.c" -lpthread

run() { # impl args...
    impl=$1
    shift
    case $impl in
    skiff) timeout 120 "$B/bin/skiffrun" -n 2 "$OUT/mt_skiff" "$@" ;;
    mpich) timeout 120 mpiexec.mpich -n 2 "$OUT/mt_mpich" "$@" ;;
    openmpi) timeout 120 mpirun.openmpi -n 2 --bind-to none "$OUT/mt_openmpi" "$@" ;;
    esac
}

: >"$OUT/raw"
for rep in $(seq "$REPS"); do
    echo "repetition $rep of $REPS ($(cut -d' ' -f1-3 /proc/loadavg))" >&2
    run skiff latency --level single --iters "$LAT_ITERS" | sed "s/^/skiff,/" >>"$OUT/raw" || true
    for case in "latency --threads 1 --iters $LAT_ITERS" "latency --threads 2 --iters $LAT_ITERS" \
                "latency --threads 4 --iters $LAT_ITERS" "rate --threads 1 --iters $RATE_ITERS" \
                "rate --threads 2 --iters $RATE_ITERS" "rate --threads 4 --iters $RATE_ITERS"; do
        for impl in skiff mpich openmpi; do
            # shellcheck disable=SC2086
            run "$impl" $case | sed "s/^/$impl,/" >>"$OUT/raw" || true
        done
    done
done

python3 - "$OUT/raw" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    impl, mode, threads, size, value, unit = line.strip().split(",")
    runs.setdefault((mode, int(threads), unit), {}).setdefault(impl, []).append(float(value))
print("| case | threads | Skiff | MPICH | Open MPI | unit |")
print("|---|---|---|---|---|---|")
for (mode, threads, unit), by in sorted(runs.items()):
    cell = lambda i: "%.3f" % statistics.median(by[i]) if i in by else "-"
    print(f"| {mode} 8 B | {threads} | {cell('skiff')} | {cell('mpich')} | {cell('openmpi')} | {unit} |")
PY
echo "raw: $OUT/raw" >&2
