#!/bin/sh
# run_app.sh — run one of the papers' applications and judge it by exit code and
# its own verdict line.
#   run_app.sh ok  PATTERN CMD...   pass if CMD exits 0 and prints PATTERN
#   run_app.sh bad PATTERN CMD...   pass if CMD exits non-zero and prints PATTERN
#                                   (an injected error must be caught, not crash)
# PATTERN may be empty ("") to judge by exit code alone.
mode=$1 pattern=$2
shift 2
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
found=1
if [ -n "$pattern" ]; then
    printf '%s\n' "$out" | grep -q -- "$pattern" || found=0
fi
case $mode in
ok)  [ $rc -eq 0 ] && [ $found -eq 1 ] && exit 0
     echo "run_app: expected exit 0 and '$pattern', got exit $rc" >&2 ;;
bad) [ $rc -ne 0 ] && [ $rc -lt 128 ] && [ $found -eq 1 ] && exit 0
     echo "run_app: expected a clean non-zero exit and '$pattern', got exit $rc" >&2 ;;
*)   echo "run_app: mode must be ok or bad, got '$mode'" >&2 ;;
esac
exit 1
