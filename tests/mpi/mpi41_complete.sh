#!/bin/bash
# MPI 4.1 completeness of Skiff's C API outside I/O and process creation
# (issue 16 item 4: MPI_VERSION names the highest level whose C functions
# outside those two chapters are all present):
#   mpi41_complete.sh VENV SRC_DIR CC
# Every MPI_ function MPICH 5.0's mpi_abi.h declares (VENV/include, else
# /work/ext/mpich5/include) minus MPI-IO (MPI_File_*, MPI_Register_datarep*),
# process creation and management (spawn, ports, names, join, disconnect),
# the ABI's own MPI_Abi_* and the MPI 5.0 handle conversions (*_toint,
# *_fromint) must be declared by SRC_DIR/include/mpi.h: a C file taking each
# one's address is compiled against it, and every name the compiler reports
# undeclared is listed.  Without an mpi_abi.h the test is skipped (exit 77).
set -u
VENV=$1 SRC=$2 CC=$3
T=$(mktemp -d /tmp/skiff-mpi41.XXXXXX)
trap 'rm -rf "$T"' EXIT
HDR=
for d in "$VENV/include" /work/ext/mpich5/include; do
    [ -f "$d/mpi_abi.h" ] && { HDR=$d/mpi_abi.h; break; }
done
[ -n "$HDR" ] || { echo "SKIP: no mpi_abi.h of MPICH 5 (in $VENV/include or /work/ext/mpich5/include)"; exit 77; }

EXCLUDED='^MPI_(File_|Register_datarep|Abi_)|_(toint|fromint)$'
EXCLUDED+='|^MPI_(Comm_spawn|Comm_spawn_multiple|Comm_get_parent|Open_port|Close_port|Comm_accept|Comm_connect|Publish_name|Unpublish_name|Lookup_name|Comm_join|Comm_disconnect)$'
# A declaration: return type, then the name, then "(" (typedefs start with "typedef").
sed -nE 's/^[A-Za-z_][A-Za-z0-9_ ]*[ *](MPI_[A-Za-z0-9_]+)\(.*/\1/p' "$HDR" | grep -v '^typedef' |
    sort -u | grep -Ev "$EXCLUDED" >"$T/names"
n=$(wc -l <"$T/names")
[ "$n" -gt 400 ] || { echo "FAIL: only $n functions read from $HDR"; exit 1; }
{
    echo '#include <mpi.h>'
    echo 'void (*addresses[])(void) = {'
    sed 's/.*/    (void (*)(void))&, /' "$T/names"
    echo '};'
} >"$T/all.c"
LC_ALL=C "$CC" -fsyntax-only -I"$SRC/include" "$T/all.c" >"$T/err" 2>&1
grep -oE "'MPI_[A-Za-z0-9_]+' undeclared" "$T/err" | cut -d"'" -f2 | sort -u >"$T/missing"
if [ -s "$T/missing" ]; then
    echo "FAIL: $(wc -l <"$T/missing") of $n MPI 4.1 functions (outside I/O and process creation) missing from mpi.h:"
    sed 's/^/  /' "$T/missing"
    exit 1
fi
if grep -q 'error' "$T/err"; then
    echo "FAIL: compiling the function list against mpi.h:"; head -20 "$T/err"; exit 1
fi
echo "mpi41_complete: all $n MPI 4.1 functions outside I/O and process creation are declared"
