#!/bin/sh
# run-rma-bench.sh — Skiff's one-sided communication beside other MPIs: the
# same source (bench/mpi_rma.c, every mode) built with each mpicc and run
# interleaved by skiff-bench compare; medians, ratios and the raw CSV in $OUT.
#
#   bench/run-rma-bench.sh [BUILD_DIR] [RUNS]          (defaults: build 5)
#
# Peers: Debian's MPICH (mpicc.mpich) and the PyPI venvs of bench/setup-peers.sh
# (MPICH 5, Open MPI 5, Intel MPI), whichever are installed; a missing one is
# reported as skipped.  Debian's Open MPI 4.1.4 is left out: it crashes in
# passive-target epochs on this kind of machine.  QUICK=1 runs the short size lists.
set -eu
B=$(cd "${1:-build}" && pwd)
RUNS=${2:-5}
OUT=${OUT:-$(mktemp -d /tmp/skiff-rma-bench.XXXXXX)}
ONLY=rma_put_lat,rma_get_lat,rma_put_bw,rma_get_bw,rma_acc_lat,rma_fop_lat,rma_cas_lat,rma_fence_lat,rma_pscw_lat

set -- compare --out "$OUT" --runs "$RUNS" --only "$ONLY" --with mpich,mpich5,ompi5,impi
[ "${QUICK:-0}" = 1 ] && set -- "$@" --quick
export BENCH_PIN=1
exec "$B/bin/skiff-bench" "$@"
