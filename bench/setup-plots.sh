#!/bin/sh
# setup-plots.sh — install matplotlib (from PyPI) for skiff-bench's plots into
# a venv under the build dir: <builddir>/bench-venv.  skiff-bench finds it by
# itself; without it, skiff-bench still writes the CSV files and tables.
#   bench/setup-plots.sh [builddir]     (default: build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
builddir=${1:-$here/../build}
mkdir -p "$builddir"
venv=$(cd "$builddir" && pwd)/bench-venv
if [ ! -x "$venv/bin/python3" ]; then
    python3 -m venv "$venv" || {
        echo "setup-plots: 'python3 -m venv' failed (Debian: apt-get install python3-venv)" >&2
        exit 1
    }
fi
"$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$venv/bin/python3" -c 'import matplotlib; print("setup-plots: matplotlib", matplotlib.__version__, "in '"$venv"'")'
