#!/bin/bash
# Behaviour tests of skiffrun, one case per ctest test:
#   launcher_cases.sh CASE SKIFFRUN HELPER RAW_PMI_CLIENT
# Each case runs the build tree's skiffrun and checks exit status, stdout and
# stderr.  Hang guards are ctest TIMEOUTs; nothing here asserts on time.
set -u
CASE=$1 R=$2 H=$3 RAW=$4
T=$(mktemp -d /tmp/skiffrun-test.XXXXXX)
trap 'rm -rf "$T"' EXIT

. "$(dirname "$0")/../common/cases_lib.sh" || exit 1 # fail, expect_rc, ...

# run ARGS...: skiffrun ARGS with stdin from $STDIN (default /dev/null).
run() {
    "$R" "$@" >"$T/out" 2>"$T/err" <"${STDIN:-/dev/null}"
    RC=$?
}
expect_no_stderr() { [ ! -s "$T/err" ] || fail "unexpected stderr"; }
# The one line a failed job prints, and nothing else on stderr.
expect_one_err_line() {
    local n
    n=$(wc -l <"$T/err")
    [ "$n" = 1 ] || fail "expected exactly one line on stderr, got $n"
    grep -Eq -- "$1" "$T/err" || fail "stderr does not match /$1/"
}
expect_out_count() {
    local n
    n=$(grep -Ec -- "$1" "$T/out")
    [ "$n" = "$2" ] || fail "stdout has $n lines matching /$1/, expected $2"
}

# Wait (no time limit: ctest's TIMEOUT is the guard) until FILE has N lines matching RE.
wait_lines() {
    local n
    while :; do
        n=$(grep -Ec -- "$2" "$1" 2>/dev/null) # nothing at all while FILE does not exist yet
        [ "${n:-0}" -ge "$3" ] && return
        sleep 0.05
    done
}
alive() { [ -e "/proc/$1" ] && ! grep -Eq '^[0-9]+ \(.*\) Z' "/proc/$1/stat" 2>/dev/null; }

# Every line of FILE is rank:index:filler of LEN bytes (+ "[rank] " when TAGGED=1),
# each rank's lines complete and in order.
check_lines() {
    awk -v N="$2" -v L="$3" -v LEN="$4" -v TAGGED="$5" '
    BEGIN { abc = "abcdefghijklmnopqrstuvwxyz" }
    {
        line = $0
        if (TAGGED) {
            if (!match(line, /^\[[0-9]+\] /)) { print "untagged line " NR; exit 1 }
            tag = substr(line, 2, RLENGTH - 3) + 0
            line = substr(line, RLENGTH + 1)
        }
        split(line, f, ":")
        r = f[1] + 0; i = f[2] + 0
        if (TAGGED && r != tag) { print "line " NR " of rank " r " tagged " tag; exit 1 }
        if (i != seen[r] + 0) { print "rank " r ": line " i " where " seen[r] + 0 " was due"; exit 1 }
        seen[r]++
        if (length(line) != LEN - 1) { print "line " NR ": length " length(line); exit 1 }
        h = length(f[1]) + length(f[2]) + 2
        for (k = h; k < LEN - 1; k++)
            if (substr(line, k + 1, 1) != substr(abc, (r + i + k) % 26 + 1, 1)) {
                print "line " NR ": torn at byte " k; exit 1
            }
    }
    END { for (r = 0; r < N; r++) if (seen[r] + 0 != L) { print "rank " r ": " seen[r] + 0 " lines"; exit 1 } }
    ' "$1" || fail "$1: lines damaged (see above)"
}

case "$CASE" in
exit-code)
    run -n 4 "$H" exit 7 2
    expect_rc 7
    expect_one_err_line '^skiffrun: rank 2 \(pid [0-9]+\) exited with status 7 — job aborted$'
    ;;
exit-code-stubborn) # the others ignore SIGTERM: SIGKILL after the grace period ends them
    run -n 3 "$H" exit 3 0 stubborn
    expect_rc 3
    expect_one_err_line '^skiffrun: rank 0 \(pid [0-9]+\) exited with status 3 — job aborted$'
    ;;
exit0-early) # a rank that exits 0 while others still run is no error
    run -n 3 sh -c '[ "$PMI_RANK" = 0 ] && exit 0; sleep 0.3; echo "done $PMI_RANK"'
    expect_rc 0
    expect_no_stderr
    expect_out_count '^done [12]$' 2
    ;;
script-no-shebang) # run with sh, as execvp does
    printf 'echo "script $PMI_RANK $*"\n' >"$T/s.sh"
    chmod +x "$T/s.sh"
    run -n 2 "$T/s.sh" a "b c"
    expect_rc 0
    expect_out_count '^script [01] a b c$' 2
    ;;
signal-kill)
    run -n 4 "$H" signal KILL 1
    expect_rc 137
    expect_one_err_line '^skiffrun: rank 1 \(pid [0-9]+\) killed by SIGKILL — job aborted$'
    ;;
signal-segv)
    run -n 3 "$H" signal SEGV 2
    expect_rc 139
    expect_one_err_line '^skiffrun: rank 2 \(pid [0-9]+\) killed by SIGSEGV — job aborted$'
    ;;
pmi-abort)
    run -n 3 "$RAW" abort 1
    expect_rc 5
    expect_one_err_line '^skiffrun: rank 1 \(pid [0-9]+\) called PMI abort with exit code 5: boom here — job aborted$'
    ;;
pmi-leave) # a rank gone for good while the others wait in a barrier: no hang
    run -n 3 "$RAW" leave
    expect_rc 1
    expect_one_err_line '^skiffrun: rank 0 \(pid [0-9]+\) closed its PMI connection while [12] ranks? waits? in a PMI barrier'
    ;;
pmi-[0-9]*)
    n=${CASE#pmi-}
    run -n "$n" "$RAW" basic
    expect_rc 0
    expect_out_count '^pmi ok rank [0-9]+ of '"$n"'$' "$n"
    # basic provokes refused puts; each is reported as one line naming the rank
    if grep -Ev '^skiffrun: rank [0-9]+: PMI cmd=put: ' "$T/err"; then fail "unexpected stderr"; fi
    ;;
pmi-malformed)
    run -n 2 "$RAW" malformed
    expect_rc 0
    expect_out_count '^pmi ok rank' 2
    for re in 'rank 0: PMI line: malformed' 'rank 0: PMI line: no cmd= word' \
        'rank 0: PMI cmd=frobnicate: unknown command' 'rank 0: PMI cmd=\?\?: unknown command' \
        'rank 0: PMI line: longer than 4095 bytes' 'rank 0: PMI cmd=init: unsupported pmi_version' \
        'further PMI errors of this rank not shown'; do
        grep -Eq "^skiffrun: .*$re" "$T/err" || fail "stderr lacks /$re/"
    done
    ;;
output-tagged)
    run -n 5 --tag-output "$H" lines 1000 200
    expect_rc 0
    check_lines "$T/out" 5 1000 200 1
    check_lines "$T/err" 5 1000 200 1
    ;;
output-plain)
    run -n 5 "$H" lines 1000 200
    expect_rc 0
    check_lines "$T/out" 5 1000 200 0
    check_lines "$T/err" 5 1000 200 0
    ;;
output-long-line) # longer than the launcher's line buffer: passed on in pieces, intact
    run -n 1 "$H" longline 100000
    expect_rc 0
    "$H" longline 100000 >"$T/expect"
    cmp -s "$T/out" "$T/expect" || fail "long line changed on the way"
    ;;
output-partial) # unfinished last lines: flushed at exit, never glued to another rank's
    run -n 2 "$H" partial
    expect_rc 0
    expect_out '^partial0$'
    expect_out '^partial1$'
    [ "$(wc -c <"$T/out")" = 17 ] || fail "expected 17 bytes (one '\\n' added between)"
    run -n 2 --tag-output "$H" partial
    expect_out '^\[0\] partial0$'
    expect_out '^\[1\] partial1$'
    ;;
stdin)
    head -c 1000000 /dev/urandom >"$T/in"
    want=$("$H" stdin <"$T/in" | sed 's/^rank 0 //')
    STDIN=$T/in run -n 3 "$H" stdin # a regular file
    expect_rc 0
    expect_out "^rank 0 $want\$"
    expect_out_count '^rank [12] stdin 0 bytes' 2
    cat "$T/in" | "$R" -n 2 "$H" stdin >"$T/out" 2>"$T/err" # a pipe
    RC=$?
    expect_rc 0
    expect_out "^rank 0 $want\$"
    expect_out_count '^rank 1 stdin 0 bytes' 1
    run -n 2 "$H" stdin # /dev/null
    expect_out_count 'stdin 0 bytes' 2
    ;;
env)
    unset UNSET_VAR
    export FOO=from-launcher DUP=inherited PMI_PORT=outer:1
    run -n 2 -x FOO -x BAR=x-val -genv BAZ "g val" --env QUX=e=val -x UNSET_VAR \
        --env DUP=first --env DUP=second "$H" env FOO BAR BAZ QUX DUP UNSET_VAR PMI_PORT PMI_SIZE
    expect_rc 0
    for r in 0 1; do
        for kv in FOO=from-launcher BAR=x-val "BAZ=g val" QUX=e=val DUP=second \
            "UNSET_VAR unset" "PMI_PORT unset" PMI_SIZE=2; do
            expect_out_count "^rank $r $kv\$" 1
        done
    done
    expect_one_err_line '^skiffrun: warning: -x UNSET_VAR: not set'
    run -n 3 "$H" env SKIFF_JOB_KEY PMI_RANK PMI_FD
    [ "$(grep -Eo 'SKIFF_JOB_KEY=[0-9a-f]{32}$' "$T/out" | sort -u | wc -l)" = 1 ] ||
        fail "ranks do not share one 32-hex-digit job key"
    expect_out_count '^rank ([0-9]) PMI_RANK=\1$' 3
    expect_out_count '^rank [0-9] PMI_FD=[0-9]+$' 3
    ;;
usage)
    : >"$T/notexec"
    mkdir "$T/dir"
    check_usage() {
        "$R" "$@" >"$T/out" 2>"$T/err" </dev/null
        RC=$?
        [ "$RC" = 2 ] || fail "skiffrun $*: exit status $RC, expected 2"
        [ "$(wc -l <"$T/err")" = 1 ] || fail "skiffrun $*: expected one line on stderr"
        grep -Eq "^skiffrun: .*$CHECK_RE" "$T/err" || fail "skiffrun $*: stderr lacks /$CHECK_RE/"
        [ ! -s "$T/out" ] || fail "skiffrun $*: unexpected stdout"
    }
    CHECK_RE="-n 0: the rank count must be between 1" check_usage -n 0 true
    CHECK_RE="-n 'abc': not a rank count" check_usage -n abc true
    CHECK_RE="-n '-3': not a rank count" check_usage -n -3 true
    CHECK_RE="-np 99999999999" check_usage -np 99999999999 true
    CHECK_RE="-n needs a value" check_usage -n
    CHECK_RE="no program given" check_usage -n 2
    CHECK_RE="no program given" check_usage
    CHECK_RE="'/nonexistent/prog': No such file" check_usage -n 2 /nonexistent/prog
    CHECK_RE="'no-such-program-xyz': command not found" check_usage -n 2 no-such-program-xyz
    CHECK_RE="not an executable file" check_usage "$T/notexec"
    CHECK_RE="Is a directory" check_usage "$T/dir"
    CHECK_RE="unknown option '--bogus'" check_usage --bogus true
    CHECK_RE="--bind-to 'socket': expected none or core" check_usage --bind-to socket true
    CHECK_RE="-genv needs a name and a value" check_usage -genv ONLY_NAME
    CHECK_RE="--env 'NOEQUALS': expected VAR=VALUE" check_usage --env NOEQUALS true
    CHECK_RE="-x '=v': not a variable name" check_usage -x =v true
    ;;
version-help)
    run --version
    expect_rc 0
    expect_out '^skiffrun \(Skiff\) [0-9]+\.[0-9]+\.[0-9]+$'
    run --help
    expect_rc 0
    expect_out '^Usage: skiffrun'
    expect_out '--tag-output'
    "$(dirname "$R")/mpiexec" --version >"$T/out" || fail "mpiexec --version failed"
    expect_out '^skiffrun \(Skiff\)'
    "$(dirname "$R")/mpirun" -n 2 true || fail "mpirun -n 2 true failed"
    ;;
oversubscribe)
    run --oversubscribe -oversubscribe --allow-run-as-root -n 8 "$RAW" basic
    expect_rc 0
    expect_out_count '^pmi ok rank [0-9] of 8$' 8
    run -n 64 "$H" env PMI_RANK
    expect_rc 0
    expect_out_count '^rank [0-9]+ PMI_RANK=' 64
    ;;
remote-key)
    # Ranks started through a launch agent ("hosts" a and b run here) get the
    # job key on their stdin, never on a command line; rank 0's forwarded
    # stdin follows it intact.
    cat >"$T/agent" <<AGENT
#!/bin/sh
printf '%s\n' "\$@" >>"$T/agent-argv"
shift
exec "\$@"
AGENT
    chmod +x "$T/agent"
    remote() { run --hosts a:1,b:2 --launch-agent "$T/agent" --launcher-addr 127.0.0.1 "$@"; }
    remote "$H" env SKIFF_JOB_KEY PMI_RANK
    expect_rc 0
    [ "$(grep -Eo 'SKIFF_JOB_KEY=[0-9a-f]{32}$' "$T/out" | sort -u | wc -l)" = 1 ] ||
        fail "remote ranks do not share one 32-hex-digit job key"
    expect_out_count '^rank ([0-9]) PMI_RANK=\1$' 3
    key=$(grep -Eo '[0-9a-f]{32}$' "$T/out" | head -1)
    [ "$(grep -c '^sh$' "$T/agent-argv")" = 3 ] || fail "the agent did not start 3 ranks"
    ! grep -q -e "$key" -e SKIFF_JOB_KEY= "$T/agent-argv" || fail "the job key is on a command line"
    head -c 100000 /dev/urandom >"$T/in"
    want=$("$H" stdin <"$T/in" | sed 's/^rank 0 //')
    STDIN=$T/in remote "$H" stdin
    expect_rc 0
    expect_out "^rank 0 $want\$"
    expect_out_count '^rank [12] stdin 0 bytes' 2
    ;;
binding)
    ncpu=$(nproc)
    run -n "$ncpu" "$H" affinity
    expect_rc 0
    expect_out_count "^rank [0-9]+ cpus 1 first" "$ncpu"
    [ "$(awk '{print $6}' "$T/out" | sort -u | wc -l)" = "$ncpu" ] ||
        fail "ranks share a CPU"
    run -n $((ncpu + 1)) "$H" affinity # oversubscribed: never bound
    expect_rc 0
    expect_no_stderr
    expect_out_count "^rank [0-9]+ cpus $ncpu first" $((ncpu + 1))
    run --bind-to none -n 1 "$H" affinity
    expect_out_count "^rank 0 cpus $ncpu first" 1
    run --bind-to core -n $((ncpu + 1)) "$H" affinity
    expect_rc 0
    expect_one_err_line '^skiffrun: warning: --bind-to core ignored'
    ;;
binding-partial) # a job that does not fill the node is not pinned unless asked
    ncpu=$(nproc)
    [ "$ncpu" -ge 2 ] || { echo "one CPU: every job fills the node; nothing to test"; exit 0; }
    # two single-rank jobs at once: pinned, both sat on the first CPU
    "$R" -n 1 "$H" affinity >"$T/out1" 2>&1 </dev/null &
    p1=$!
    "$R" -n 1 "$H" affinity >"$T/out2" 2>&1 </dev/null &
    p2=$!
    wait "$p1" && wait "$p2" || fail "a single-rank job failed"
    for f in out1 out2; do
        grep -q "^rank 0 cpus $ncpu first" "$T/$f" || fail "$f: $(cat "$T/$f") (pinned)"
    done
    run -n $((ncpu - 1)) "$H" affinity
    expect_rc 0
    expect_out_count "^rank [0-9]+ cpus $ncpu first" $((ncpu - 1))
    for opt in --bind-to -bind-to --bind-to=; do # on request, as hydra does
        if [ "$opt" = --bind-to= ]; then run --bind-to=core -n $((ncpu - 1)) "$H" affinity
        else run "$opt" core -n $((ncpu - 1)) "$H" affinity; fi
        expect_rc 0
        expect_out_count "^rank [0-9]+ cpus 1 first" $((ncpu - 1))
        [ "$(awk '{print $6}' "$T/out" | sort -u | wc -l)" = $((ncpu - 1)) ] ||
            fail "$opt core: ranks share a CPU"
    done
    ;;
shm-cleanup)
    run -n 3 "$H" shm 1 # rank 1 is SIGKILLed after creating its segment
    expect_rc 137
    expect_out '^key [0-9a-f]{32} tag [0-9a-f]{16}$'
    tag=$(grep -m1 '^key' "$T/out" | cut -d' ' -f4)
    [ "$tag" = "$("$H" shm-tag "$(grep -m1 '^key' "$T/out" | cut -d' ' -f2)")" ] || fail "tag mismatch"
    ls /dev/shm/skiff-"$tag"-* >/dev/null 2>&1 && fail "left in /dev/shm: $(ls /dev/shm/skiff-"$tag"-*)"
    run -n 3 "$H" shm -1 # normal exit
    expect_rc 0
    expect_out_count '^key ' 3
    tag=$(grep -m1 '^key' "$T/out" | cut -d' ' -f4)
    ls /dev/shm/skiff-"$tag"-* >/dev/null 2>&1 && fail "left in /dev/shm after a normal exit"
    ;;
shm-tag) # the /dev/shm name tag: SipHash-2-4 as specified, keyed by the job key
    run "$H" siphash
    expect_rc 0
    expect_out '^siphash ok$'
    k1=0123456789abcdef0123456789abcdef k2=0123456789abcdef0123456789abcdee
    t1=$("$H" shm-tag $k1) t2=$("$H" shm-tag $k2)
    [[ $t1 =~ ^[0-9a-f]{16}$ ]] || fail "tag '$t1' is not 16 hex digits"
    [ "$t1" != "$t2" ] || fail "keys differing in one bit share tag $t1"
    [ "$t1" = "$("$H" shm-tag 0123456789ABCDEF0123456789ABCDEF)" ] || fail "tag depends on case"
    [ "$("$H" shm-tag 1)" != "$("$H" shm-tag 01)" ] || fail "keys 1 and 01 share a tag"
    "$H" shm-tag 12g4 >/dev/null && fail "a key with a non-hex digit got a tag"
    ;;
signal-forward)
    "$R" -n 2 "$H" trap >"$T/out" 2>"$T/err" </dev/null &
    pid=$!
    wait_lines "$T/out" '^ready' 2
    kill -TERM "$pid"
    wait "$pid"
    RC=$?
    expect_rc 0 # the ranks caught SIGTERM and exited 0
    expect_out_count '^got SIGTERM$' 2
    expect_no_stderr
    ;;
signal-int-twice)
    "$R" -n 2 "$H" count-int >"$T/out" 2>"$T/err" </dev/null &
    pid=$!
    wait_lines "$T/out" '^ready' 2
    kill -INT "$pid"
    wait_lines "$T/out" '^got SIGINT' 2 # forwarded once; the ranks go on
    kill -INT "$pid"
    wait "$pid"
    RC=$?
    expect_rc 130
    expect_one_err_line '^skiffrun: SIGINT received again — killing all ranks$'
    ;;
signal-int-background)
    # Started with '&' from a script, the launcher and what it starts inherit
    # SIGINT and SIGQUIT ignored: the ranks must still start with every
    # forwarded signal at its default and none blocked, so Ctrl-C/kill -INT
    # ends the job (130), as in the foreground.
    (trap '' INT QUIT && exec "$R" -n 3 "$H" sigstate >"$T/out" 2>"$T/err" </dev/null) &
    pid=$!
    trap 'kill -KILL $pid 2>/dev/null; rm -rf "$T"' EXIT # a failed check leaves no job behind
    wait_lines "$T/out" '^ready' 3
    for sig in INT QUIT TERM HUP USR1 USR2 PIPE; do
        expect_out_count "^rank [0-9] sig $sig default\$" 3
    done
    kill -INT "$pid"
    wait "$pid"
    RC=$?
    expect_rc 130
    expect_one_err_line '^skiffrun: rank [0-9] \(pid [0-9]+\) killed by SIGINT — job aborted$'
    # The first job's "ready" lines must be gone before the second starts, or
    # wait_lines could count them and the QUIT below would reach the subshell
    # before it execs the launcher (QUIT already ignored there: a hang).
    rm -f "$T/out" "$T/err"
    (trap '' INT QUIT && exec "$R" -n 2 "$H" sigstate >"$T/out" 2>"$T/err" </dev/null) &
    pid=$!
    wait_lines "$T/out" '^ready' 2
    kill -QUIT "$pid" # forwarded too: the ranks dump core or die of it (131), not the launcher
    wait "$pid"
    RC=$?
    expect_rc 131
    grep -Eq '^skiffrun: rank [0-9] \(pid [0-9]+\) killed by SIGQUIT — job aborted$' "$T/err" ||
        fail "no line for SIGQUIT"
    ;;
launcher-death) # ranks die with the launcher (PR_SET_PDEATHSIG)
    "$R" -n 2 "$H" pidfile "$T/pids" >/dev/null 2>&1 </dev/null &
    pid=$!
    wait_lines "$T/pids" '^[0-9]+$' 2
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    for p in $(cat "$T/pids"); do
        while alive "$p"; do sleep 0.05; done
    done
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
