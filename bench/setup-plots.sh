#!/bin/sh
# setup-plots.sh — prepare skiff-bench's plotting venv now: <builddir>/bench-venv
# with matplotlib from PyPI.  Not needed: skiff-bench makes it on first use.
#   bench/setup-plots.sh [builddir]     (default: build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
builddir=${1:-$here/../build}
mkdir -p "$builddir"
SKIFF_BENCH_VENV=$(cd "$builddir" && pwd)/bench-venv exec python3 "$here/skiff-bench" setup-plots
