#!/bin/bash
# pmpi_symbols.sh CC INCLUDE_DIR LIB... — the profiling interface, mechanically:
#   - every MPI_ function each library exports has a PMPI_ twin at the same
#     address (an alias: no extra call), and no PMPI_ is without its MPI_;
#   - every function mpi.h declares is exported by each library, under both names;
#   - mpi.h declares every PMPI_ function with the type of its MPI_ function.
set -u
CC=$1 INC=$2
shift 2
CASE=pmpi-symbols
T=$(mktemp -d /tmp/skiff-pmpi.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../common/cases_lib.sh" || exit 1

# The functions mpi.h declares, as the compiler sees them.
echo '#include <mpi.h>' | "$CC" -E -P -I "$INC" -x c - >"$T/pp" || fail "cannot preprocess mpi.h"
grep -v '^typedef' "$T/pp" | grep -oE '\bMPI_[A-Za-z0-9_]+ *\(' | tr -d ' (' | sort -u >"$T/declared"
grep -oE '\bPMPI_[A-Za-z0-9_]+ *\(' "$T/pp" | tr -d ' (' | sed 's/^P//' | sort -u >"$T/declared_p"
[ -s "$T/declared" ] || fail "no function found in mpi.h"
cmp -s "$T/declared" "$T/declared_p" ||
    fail "mpi.h: MPI_ and PMPI_ declarations differ: $(diff "$T/declared" "$T/declared_p" | grep '^[<>]' | head -5 | tr '\n' ' ')"

for lib in "$@"; do
    nm -D --defined-only "$lib" >"$T/nm" || fail "nm $lib"
    awk '$2 == "T" && $3 ~ /^MPI_/ { print $3, $1 }' "$T/nm" | sort >"$T/mpi"
    awk '$2 == "T" && $3 ~ /^PMPI_/ { print substr($3, 2), $1 }' "$T/nm" | sort >"$T/pmpi"
    cmp -s "$T/mpi" "$T/pmpi" ||
        fail "$lib: MPI_/PMPI_ pairs differ: $(diff "$T/mpi" "$T/pmpi" | grep '^[<>]' | head -5 | tr '\n' ' ')"
    missing=$(cut -d' ' -f1 "$T/mpi" | comm -13 - "$T/declared")
    [ -z "$missing" ] || fail "$lib does not export what mpi.h declares: $missing"
    echo "$(basename "$lib"): $(wc -l <"$T/mpi") MPI_ functions, each with its PMPI_ alias"
done

# Same types: one static assertion per function.
{
    echo '#include <mpi.h>'
    while read -r f; do
        echo "_Static_assert(__builtin_types_compatible_p(__typeof__($f), __typeof__(P$f)), \"$f\");"
    done <"$T/declared"
} >"$T/types.c"
"$CC" -std=gnu11 -Wall -Werror -fsyntax-only -I "$INC" "$T/types.c" 2>"$T/err" ||
    fail "PMPI_ declarations differ from the MPI_ ones"
echo "pmpi_symbols: $(wc -l <"$T/declared") declared functions, PMPI_ twins declared, typed and exported"
