#!/bin/sh
# dyn_shm.sh SKIFFRUN DYN_SHM NP NC MODE: a server job of NP ranks and a
# client job of NC, started separately on this machine, meet through a port
# (tests/dynproc/dyn_shm.c).  MODE:
#   shm         data, merge, 50 connect/disconnect cycles; every pair must be
#               reached over the shared-memory rings (SKIFF_VERBOSE lines)
#   tcp         the same with SKIFF_TRANSPORTS=tcp: every pair over tcp
#   small-ring  as shm with 16 KiB rings (full rings: senders wait for room)
#   devshm      SKIFF_SHM_OBJECTS=dev-shm: the rings (memfd only) fall back to
#               tcp with a reason, and nothing is left in /dev/shm
#   join        1x1 only: the two meet by MPI_Comm_join (over shm, as shm)
#   die         a client rank kills itself: the server job must fail
#   die-server  a server rank kills itself: the client job must fail
#   die-return  the same with MPI_ERRORS_RETURN: the server job ends with 0
# Always: nothing of Skiff's is left in /dev/shm afterwards.
set -u
run=$1 prog=$2 np=$3 nc=$4 mode=$5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export SKIFF_NAME_DIR="$dir" SKIFF_VERBOSE=1
shm_before=$(ls /dev/shm 2>/dev/null | grep -c skiff)
cycles=50 arg=
case $mode in
  tcp) export SKIFF_TRANSPORTS=tcp ;;
  small-ring) export SKIFF_DYN_SHM_RING=16K ;;
  devshm) export SKIFF_SHM_OBJECTS=dev-shm ;;
  die|die-server|die-return|join) cycles=1 arg=$mode ;;
esac
timeout 100 "$run" -n "$np" "$prog" server $cycles $arg >"$dir/srv.out" 2>"$dir/srv.err" &
srv=$!
timeout 100 "$run" -n "$nc" "$prog" client $cycles $arg >"$dir/cli.out" 2>"$dir/cli.err"
crc=$?
wait $srv
src=$?
cat "$dir/srv.out" "$dir/cli.out"
grep -v "^skiff boot\|^skiff: \|^skiff MPI: ranks\? [0-9,-]*: \(to\|from\) " "$dir/srv.err" "$dir/cli.err"
fail() { echo "dyn_shm.sh $mode ${np}x$nc: $*"; exit 1; }
shm_after=$(ls /dev/shm 2>/dev/null | grep -c skiff)
test "$shm_after" -le "$shm_before" || fail "left in /dev/shm: $(ls /dev/shm | grep skiff)"
# skiffrun groups equal lines of several ranks ("ranks 0-1,4: ..."): count
# one per rank
paths=$(cat "$dir/srv.err" "$dir/cli.err" | grep "^skiff MPI: ranks\? [0-9,-]*: \(to\|from\) .*: over ")
count() {
  echo "$paths" | grep ": over $1" | awk '{ n = 0; split($4, parts, ",")
    for (i in parts) { sub(":", "", parts[i]); k = split(parts[i], ab, "-")
      n += k == 2 ? ab[2] - ab[1] + 1 : 1 }
    total += n } END { print total + 0 }'
}
nshm=$(count shm)
ntcp=$(count tcp)
pairs=$((4 * np * nc)) # each process names each remote one, "to" and "from"
echo "server $src client $crc; paths: $nshm shm, $ntcp tcp (lines wanted: $pairs)"
case $mode in
  shm|small-ring|join) test $src -eq 0 && test $crc -eq 0 || fail "exit status server $src client $crc"
       test "$nshm" -eq $pairs && test "$ntcp" -eq 0 || fail "not every pair over shm: $paths" ;;
  tcp|devshm) test $src -eq 0 && test $crc -eq 0 || fail "exit status server $src client $crc"
       test "$nshm" -eq 0 && test "$ntcp" -ge $((pairs / 2)) || fail "not every pair over tcp: $paths" ;;
  die|die-server) test $src -ne 0 && test $src -ne 124 && test $crc -ne 0 && test $crc -ne 124 ||
         fail "exit status server $src client $crc (both must fail, neither time out)"
       test "$nshm" -gt 0 || fail "the rings were not in use: $paths" ;;
  die-return) test $src -eq 0 && test $crc -ne 0 && test $crc -ne 124 ||
         fail "exit status server $src client $crc (server 0, client failed)"
       grep -q "die-return: OK" "$dir/srv.out" || fail "the server did not see the error"
       test "$nshm" -gt 0 || fail "the rings were not in use: $paths" ;;
esac
echo "dyn_shm.sh $mode ${np}x$nc: OK"
