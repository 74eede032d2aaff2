#!/bin/sh
# bindings_table.sh — the table of every MPI-3.1 C binding in docs/mpi.md:
# which ones include/mpi.h declares, and why the others are absent.
#
#   bindings_table.sh SRC_DIR           print the table
#   bindings_table.sh SRC_DIR --update  rewrite it in docs/mpi.md
#   bindings_table.sh SRC_DIR --check   fail when docs/mpi.md's table is stale
#                                       (the ctest mpi_bindings_table)
# The list of bindings is tests/mpi/mpi31_c_bindings.txt; a binding counts as
# present when mpi.h declares it (mpi.h declares only what works).
set -eu
src=${1:?usage: bindings_table.sh SRC_DIR [--update|--check]}
mode=${2:-print}
list=$src/tests/mpi/mpi31_c_bindings.txt
header=$src/include/mpi.h
doc=$src/docs/mpi.md
begin='<!-- bindings-table:begin (tests/mpi/bindings_table.sh --update) -->'
end='<!-- bindings-table:end -->'

table() {
    declared=$(grep -oE '\bMPI_[A-Za-z0-9_]+\(' "$header" | tr -d '(' | sort -u)
    grep -v '^#' "$list" | grep . | awk -v declared="$declared" '
    BEGIN { n = split(declared, d, "\n"); for (i = 1; i <= n; i++) have[d[i]] = 1 }
    function why(f) {
        if (f ~ /^MPI_File_/ || f == "MPI_Register_datarep")
            return "MPI-IO is not built"
        if (f ~ /^MPI_Comm_(spawn|accept|connect|disconnect|join)/ ||
            f ~ /^MPI_(Open|Close)_port$/ || f ~ /^MPI_(Un)?[Pp]ublish_name$/ ||
            f == "MPI_Lookup_name")
            return "dynamic processes (issue 22)"
        if (f ~ /c2f|f2c|c2f08|f082c/ || f ~ /^MPI_Type_create_f90_/ || f == "MPI_Type_match_size")
            return "Fortran interoperability"
        if (f ~ /^MPI_T_/)
            return "tool information interface"
        return "missing"
    }
    { total++; if (have[$1]) { yes++; rows[total] = "| `" $1 "` | yes | |" }
      else { rows[total] = "| `" $1 "` | absent | " why($1) " |"; gone[why($1)]++ } }
    END {
        printf "%d of %d MPI-3.1 C bindings exist.", yes, total
        sep = " Absent:"
        nr = split("MPI-IO is not built|dynamic processes (issue 22)|Fortran interoperability|tool information interface|missing", reason, "|")
        for (i = 1; i <= nr; i++)
            if (gone[reason[i]]) { printf "%s %s %d", sep, reason[i], gone[reason[i]]; sep = "," }
        printf "\n\n| binding | in Skiff | absent because |\n|---|---|---|\n"
        for (i = 1; i <= total; i++) print rows[i]
    }'
}

case $mode in
print) table ;;
--update | --check)
    tmp=$(mktemp)
    trap 'rm -f "$tmp" "$tmp.doc"' EXIT
    table > "$tmp"
    awk -v begin="$begin" -v end="$end" -v tbl="$tmp" '
        $0 == begin { print; while ((getline l < tbl) > 0) print l; skip = 1; next }
        $0 == end { skip = 0 }
        !skip' "$doc" > "$tmp.doc"
    if ! grep -qF "$begin" "$doc"; then
        echo "bindings_table.sh: $doc has no table markers" >&2
        exit 1
    fi
    if [ "$mode" = --update ]; then
        cat "$tmp.doc" > "$doc"
    elif ! cmp -s "$tmp.doc" "$doc"; then
        echo "docs/mpi.md's table of MPI-3.1 bindings is stale; run tests/mpi/bindings_table.sh . --update" >&2
        diff "$doc" "$tmp.doc" | head -20 >&2
        exit 1
    fi
    ;;
*) echo "usage: bindings_table.sh SRC_DIR [--update|--check]" >&2; exit 2 ;;
esac
