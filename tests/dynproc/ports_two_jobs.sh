#!/bin/sh
# ports_two_jobs.sh SKIFFRUN DYN_PORTS: a server job of 2 ranks and a client
# job of 3, started separately, meet through the name service.
set -u
run=$1
prog=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export SKIFF_NAME_DIR="$dir"
"$run" -n 2 "$prog" server &
srv=$!
"$run" -n 3 "$prog" client
crc=$?
wait $srv
src=$?
echo "server $src client $crc"
test $src -eq 0 && test $crc -eq 0
