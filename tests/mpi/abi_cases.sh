#!/bin/bash
# Skiff against the MPI 5.0 standard ABI as MPICH 5 implements it (PyPI's
# `mpich` wheel: mpi_abi.h, libmpi_abi.so.1, mpicc_abi, mpiexec):
#   abi_cases.sh CASE VENV SRC_DIR BUILD_DIR CC [SANITIZER_RUNTIME]
# header:          include/mpi.h against mpi_abi.h (abi_header_check.py)
# mpich-on-skiff:  abi_prog.c built by MPICH's mpicc_abi runs under Skiff's
#                  skiffrun on Skiff's libmpi_abi.so.1 (first on LD_LIBRARY_PATH)
# skiff-on-mpich:  abi_prog.c built by Skiff's mpicc_abi runs under MPICH's
#                  mpiexec on MPICH's libmpi_abi.so.1
# Both runs at 1, 2, 3 and 5 ranks.  VENV is created (python3 -m venv, pip
# install mpich) when it has no mpicc_abi yet; without python3, network or
# PyPI the case is skipped (exit 77) and says why.  SANITIZER_RUNTIME (a
# sanitizer build's libasan) is preloaded into the MPICH-built program so
# Skiff's instrumented library can run in it.
set -u
CASE=$1 VENV=$2 SRC=$3 BUILD=$4 CC=$5 SAN_RT=${6:-}
T=$(mktemp -d /tmp/skiff-abi.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../common/cases_lib.sh" || exit 1
skip() { echo "SKIP: $*"; exit 77; }
NPROCS="1 2 3 5"

# One creator at a time (ctest runs the cases in parallel).
ensure_venv() {
    [ -x "$VENV/bin/mpicc_abi" ] && [ -f "$VENV/include/mpi_abi.h" ] && return 0
    command -v python3 >/dev/null || skip "python3 not found: cannot install MPICH 5 from PyPI"
    mkdir -p "$(dirname "$VENV")" || skip "cannot create $(dirname "$VENV")"
    exec 9>"$VENV.lock"
    flock 9
    if [ ! -x "$VENV/bin/mpicc_abi" ]; then
        local created=no
        [ -d "$VENV" ] || created=yes
        python3 -m venv "$VENV" >"$T/venv.log" 2>&1 ||
            skip "python3 -m venv $VENV failed: $(tail -1 "$T/venv.log")"
        if ! timeout 900 "$VENV/bin/pip" install --disable-pip-version-check -q 'mpich>=5,<6' \
            >>"$T/venv.log" 2>&1; then
            [ $created = yes ] && rm -rf "$VENV"
            skip "pip install mpich (5.x) failed — no network or PyPI? $(tail -1 "$T/venv.log")"
        fi
    fi
    flock -u 9
    [ -x "$VENV/bin/mpicc_abi" ] && [ -f "$VENV/include/mpi_abi.h" ] ||
        skip "$VENV has no mpicc_abi or mpi_abi.h (not MPICH 5?)"
}

# runs_on WHO LAUNCHER...: abi_prog passes on every rank count, on WHO's library.
runs_on() {
    local who=$1 n
    shift
    for n in $NPROCS; do
        run timeout 120 "$@" -n "$n" ${PROG_PREFIX:-} "$T/abi_prog"
        expect_rc 0
        expect_out "^abi_prog: $n ranks passed, library $who"
    done
}

ensure_venv
case "$CASE" in
header)
    run python3 "$SRC/tests/mpi/abi_header_check.py" "$CC" "$SRC/include" "$VENV/include"
    cat "$T/out"
    expect_rc 0
    ;;
mpich-on-skiff)
    run "$VENV/bin/mpicc_abi" -Wall -Werror "$SRC/tests/mpi/abi_prog.c" -o "$T/abi_prog"
    expect_rc 0
    readelf -d "$T/abi_prog" | grep -q 'NEEDED.*\[libmpi_abi\.so\.1\]' ||
        fail "the MPICH-built program does not need libmpi_abi.so.1"
    PROG_PREFIX="env LD_LIBRARY_PATH=$BUILD/lib${SAN_RT:+ LD_PRELOAD=$SAN_RT}"
    runs_on "Skiff MPI" "$BUILD/bin/skiffrun"
    echo "MPICH-built abi_prog ran on Skiff's libmpi_abi.so.1 at $NPROCS ranks"
    ;;
skiff-on-mpich)
    run "$BUILD/bin/mpicc_abi" -Wall -Werror "$SRC/tests/mpi/abi_prog.c" -o "$T/abi_prog"
    expect_rc 0
    readelf -d "$T/abi_prog" | grep -q 'NEEDED.*\[libmpi_abi\.so\.1\]' ||
        fail "the program built by Skiff's mpicc_abi does not need libmpi_abi.so.1"
    # MPICH's memory at exit is not ours to judge.
    export LD_LIBRARY_PATH=$VENV/lib ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
    # Control: MPICH's own build of the program under its own launcher.  If
    # that fails, this machine cannot run MPICH (hostname, hydra): skipped.
    "$VENV/bin/mpicc_abi" "$SRC/tests/mpi/abi_prog.c" -o "$T/abi_prog_mpich" >"$T/out" 2>&1 &&
        timeout 120 "$VENV/bin/mpiexec" -n 2 "$T/abi_prog_mpich" >"$T/out" 2>&1 ||
        skip "MPICH's own abi_prog does not run under its mpiexec here: $(tail -2 "$T/out" | tr '\n' ' ')"
    runs_on "MPICH Version: +5\." "$VENV/bin/mpiexec"
    echo "Skiff-built abi_prog ran on MPICH's libmpi_abi.so.1 at $NPROCS ranks"
    ;;
*) fail "unknown case" ;;
esac
