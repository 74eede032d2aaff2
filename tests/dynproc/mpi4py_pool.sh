#!/bin/sh
# mpi4py_pool.sh BUILD_DIR: mpi4py.futures.MPIPoolExecutor on Skiff, from a
# plain python process (a singleton that spawns) and under skiffrun -n 1.
# mpi4py comes from PyPI into a venv outside the repository
# ($SKIFF_MPI4PY_VENV, default ~/.cache/skiff-mpi4py), built with mpicc_abi
# against Skiff's standard-ABI library (Skiff's own mpi.h has no MPI-IO, which
# mpi4py's source build needs).  Building takes ~15 minutes on 2 cores, so it
# happens only with SKIFF_TEST_MPI4PY=1 (or once the venv exists).  Exit 77
# (skipped) with a message otherwise, or when PyPI cannot be reached.
set -u
build=$(cd "$1" && pwd)
venv=${SKIFF_MPI4PY_VENV:-$HOME/.cache/skiff-mpi4py}
py=$venv/bin/python
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! "$py" -c 'import mpi4py' 2>/dev/null; then
    if [ "${SKIFF_TEST_MPI4PY:-0}" != 1 ]; then
        echo "mpi4py_pool: SKIPPED: no mpi4py in $venv; SKIFF_TEST_MPI4PY=1 builds it from PyPI (slow)"
        exit 77
    fi
    python3 -m venv "$venv" || { echo "mpi4py_pool: SKIPPED: cannot make a venv at $venv"; exit 77; }
    if ! "$venv/bin/pip" download --no-deps --no-binary :all: -d "$venv/dl" mpi4py >"$venv/pip.log" 2>&1; then
        echo "mpi4py_pool: SKIPPED: PyPI unreachable (pip download mpi4py failed, see $venv/pip.log)"
        exit 77
    fi
    if ! MPICC="$build/bin/mpicc_abi" "$venv/bin/pip" install "$venv"/dl/mpi4py-*.tar.gz \
            >>"$venv/pip.log" 2>&1; then
        echo "mpi4py_pool: SKIPPED: mpi4py did not build (see $venv/pip.log)"
        exit 77
    fi
fi
cat >"$venv/pool.py" <<'PY'
import sys
from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor
with MPIPoolExecutor(max_workers=2) as ex:
    got = list(ex.map(pow, [2] * 8, range(8)))
assert got == [2 ** i for i in range(8)], got
print("mpi4py_pool: OK", MPI.Get_library_version().split("\n")[0])
PY
# the workers' launcher and library: this build's
export SKIFF_SKIFFRUN="$build/bin/skiffrun"
timeout 120 "$py" "$venv/pool.py" || exit 1
timeout 120 "$build/bin/skiffrun" -n 1 "$py" "$venv/pool.py" || exit 1
