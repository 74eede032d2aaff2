# cases_lib.sh — helpers for the shell test scripts (sourced):
#   CASE (the case's name) and T (a scratch directory) must be set.
# run CMD... keeps stdout in $T/out, stderr in $T/err and the status in RC.

fail() {
    echo "FAIL [$CASE]: $*" >&2
    for f in "$T"/out "$T"/err; do
        [ -f "$f" ] && { echo "--- $f (head)"; head -c 3000 "$f"; echo; } >&2
    done
    exit 1
}
run() {
    "$@" >"$T/out" 2>"$T/err" <"${STDIN:-/dev/null}"
    RC=$?
}
expect_rc() { [ "$RC" = "$1" ] || fail "exit status $RC, expected $1"; }
expect_rc_not() { [ "$RC" != "$1" ] || fail "exit status $RC"; }
expect_err() { grep -Eq -- "$1" "$T/err" || fail "stderr has no line matching /$1/"; }
expect_no_err() { ! grep -Eq -- "$1" "$T/err" || fail "stderr has a line matching /$1/"; }
expect_out() { grep -Eq -- "$1" "$T/out" || fail "stdout has no line matching /$1/"; }
# expect_err_lines MAX: stderr has between 1 and MAX lines.
expect_err_lines() {
    local n
    n=$(wc -l <"$T/err")
    [ "$n" -ge 1 ] && [ "$n" -le "$1" ] || fail "stderr has $n lines, expected 1 to $1"
}
