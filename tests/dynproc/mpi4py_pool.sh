#!/bin/sh
# mpi4py_pool.sh BUILD_DIR: mpi4py.futures.MPIPoolExecutor on Skiff, from a
# plain python process (a singleton that spawns) and under skiffrun -n 1.
#
# mpi4py's source build needs MPI-IO (MPI_File), which Skiff's mpi.h lacks, so
# it is built for the standard MPI ABI with MPICH's mpicc_abi (PyPI package
# mpich) and run on Skiff's libmpi_abi.so.1 (LD_LIBRARY_PATH).  Python then
# loads it with lazy binding (sitecustomize below): mpi4py links every MPI 4.1
# call, Skiff resolves the ones it has when they are called.  All of it lives
# in a venv outside the repository ($SKIFF_MPI4PY_VENV, default
# ~/.cache/skiff-mpi4py).  Building takes 15-40 minutes on 2 cores, so it
# happens only with SKIFF_TEST_MPI4PY=1 (or once the venv exists).  Exit 77
# (skipped) with a message otherwise, or when PyPI cannot be reached.
set -u
build=$(cd "$1" && pwd)
venv=${SKIFF_MPI4PY_VENV:-$HOME/.cache/skiff-mpi4py}
# python is not built with the sanitizers: it cannot load a sanitized libmpi
if ldd "$build/lib/libmpi_abi.so.1" 2>/dev/null | grep -q -e libasan -e libtsan -e libubsan; then
    echo "mpi4py_pool: SKIPPED: $build is a sanitizer build (python cannot load it)"
    exit 77
fi
py=$venv/bin/python
if ! "$py" -c 'import mpi4py' 2>/dev/null; then
    if [ "${SKIFF_TEST_MPI4PY:-0}" != 1 ]; then
        echo "mpi4py_pool: SKIPPED: no mpi4py in $venv; SKIFF_TEST_MPI4PY=1 builds it from PyPI (slow)"
        exit 77
    fi
    python3 -m venv "$venv" || { echo "mpi4py_pool: SKIPPED: cannot make a venv at $venv"; exit 77; }
    if ! "$venv/bin/pip" install --retries 1 --timeout 20 mpich >"$venv/pip.log" 2>&1; then
        echo "mpi4py_pool: SKIPPED: PyPI unreachable (pip install mpich failed, see $venv/pip.log)"
        exit 77
    fi
    if ! MPI4PY_BUILD_MPIABI=1 MPICC="$venv/bin/mpicc_abi" "$venv/bin/pip" install \
            --no-binary mpi4py mpi4py >>"$venv/pip.log" 2>&1; then
        echo "mpi4py_pool: SKIPPED: mpi4py did not build (see $venv/pip.log)"
        exit 77
    fi
fi
mkdir -p "$venv/skiff-lazy"
echo 'import os, sys; sys.setdlopenflags(os.RTLD_LAZY | os.RTLD_GLOBAL)' \
    >"$venv/skiff-lazy/sitecustomize.py"
cat >"$venv/pool.py" <<'PY'
from mpi4py import MPI
from mpi4py.futures import MPIPoolExecutor
if __name__ == "__main__":  # the workers import this script as __mp_main__
    with MPIPoolExecutor(max_workers=2) as ex:
        got = list(ex.map(pow, [2] * 8, range(8)))
    assert got == [2 ** i for i in range(8)], got
    print("mpi4py_pool: OK", MPI.Get_library_version().split("\n")[0])
PY
# Skiff's library, launcher and the lazy loading, for the workers too
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export SKIFF_SKIFFRUN="$build/bin/skiffrun"
export PYTHONPATH="$venv/skiff-lazy${PYTHONPATH:+:$PYTHONPATH}"
timeout 120 "$py" "$venv/pool.py" || exit 1
timeout 120 "$build/bin/skiffrun" -n 1 "$py" "$venv/pool.py" || exit 1
