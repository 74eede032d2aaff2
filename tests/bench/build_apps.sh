#!/bin/sh
# build_apps.sh — compile the papers' applications with an MPI compiler wrapper
# (the test fixture of tests/bench: ctest builds them once with Skiff's mpicc).
#   build_apps.sh MPICC OUTDIR SOURCE...
set -eu
cc=$1 out=$2
shift 2
if [ ! -x "$cc" ]; then
    echo "build_apps: compiler wrapper $cc not found (is Skiff's MPI built?)" >&2
    exit 1
fi
mkdir -p "$out"
for src in "$@"; do
    exe=$out/$(basename "$src" .c)
    echo "$cc -O2 $src -o $exe -lm"
    "$cc" -O2 "$src" -o "$exe" -lm
done
