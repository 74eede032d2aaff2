#!/bin/bash
# Shared memory under hostile conditions (issue 14, items 2, 4, 5, 6), one
# case per ctest test:
#   shm_cases.sh CASE SKIFFRUN SHM_LIMITS LAUNCHER_HELPER AGENT
# Cases that need root (another uid, mount namespaces) exit 77 (ctest: skipped)
# with the reason when they cannot run.  Hang guards are ctest TIMEOUTs;
# nothing here asserts on time.
set -u
CASE=$1 R=$2 P=$3 H=$4 AGENT=$5
T=$(mktemp -d /tmp/skiff-shm-test.XXXXXX)
chmod 755 "$T" # the unprivileged uid reads nothing here, but may cd through
JOB=
cleanup() {
    [ -n "$JOB" ] && kill -KILL "$JOB" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT

fail() {
    echo "FAIL [$CASE]: $*" >&2
    tail -c 3000 "$T/out" "$T/err" >&2 2>/dev/null # each under a "==> file <==" header
    exit 1
}
skip() { echo "SKIP [$CASE]: $*"; exit 77; }
need_root() { [ "$(id -u)" = 0 ] || skip "needs root ($1)"; }
need_mount_ns() {
    need_root "a private mount namespace"
    unshare -m --propagation private true 2>/dev/null || skip "mount namespaces are unavailable"
}
alive() { [ -e "/proc/$1" ] && ! grep -Eq '^[0-9]+ \(.*\) Z' "/proc/$1/stat" 2>/dev/null; }
# Wait (ctest's TIMEOUT is the guard) until FILE has N lines matching RE.
wait_lines() {
    local n
    while :; do
        n=$(grep -Ec -- "$2" "$1" 2>/dev/null)
        [ "${n:-0}" -ge "$3" ] && return
        [ -n "$JOB" ] && ! alive "$JOB" && fail "the job ended early"
        sleep 0.05
    done
}
pid_of_rank() { sed -n "s/^rank $1 pid \([0-9]*\)$/\1/p" "$T/out"; }
# Wait until process PID maps its node-collective region (made by world rank
# RANK: "skiff-<tag>-x<RANK>-", a memfd or a /dev/shm object).
wait_region() {
    [ -n "$1" ] || fail "no pid for rank $2"
    while ! grep -q "skiff-[0-9a-f]*-x$2-" "/proc/$1/maps" 2>/dev/null; do
        alive "$1" || fail "process $1 is gone"
        sleep 0.05
    done
}
job_key_of() { tr '\0' '\n' <"/proc/$1/environ" | sed -n 's/^SKIFF_JOB_KEY=//p'; }
# /dev/shm entries of the job: named with its key or with its tag.
job_objects() { ls -a /dev/shm | grep -e "$1" -e "$2"; }
# Run the rest of the arguments in a private mount namespace whose /dev/shm
# is a fresh tmpfs mounted with OPTS.
in_shm_ns() {
    local opts=$1
    shift
    unshare -m --propagation private sh -c \
        'mount -t tmpfs -o "$0" skiff-test /dev/shm || exit 99; exec "$@"' "$opts" "$@"
}
run_in_ns() { # OPTS ARGS...: in_shm_ns, with out/err/RC
    in_shm_ns "$@" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    [ "$RC" = 99 ] && skip "cannot mount a tmpfs on /dev/shm"
}
expect_rc() { [ "$RC" = "$1" ] || fail "exit status $RC, expected $1"; }
expect_out() { grep -Eq -- "$1" "$T/out" || fail "stdout has no line matching /$1/"; }
expect_err() { grep -Eq -- "$1" "$T/err" || fail "stderr has no line matching /$1/"; }
no_err() { ! grep -Eq -- "$1" "$T/err" || fail "stderr has a line matching /$1/"; }

# hold job in the background: ARGS... go to skiffrun before the program.
start_hold() {
    rm -f "$T/go"
    : >"$T/out" # now, not in the background job: no stale lines from the last one
    "$R" "$@" "$P" hold "$T/go" >>"$T/out" 2>"$T/err" </dev/null &
    JOB=$!
}
finish_hold() {
    touch "$T/go"
    wait "$JOB"
    RC=$?
    JOB=
    expect_rc 0
}

case "$CASE" in
key-hidden)
    # Item 2: while a job runs (its node-collective region created, not yet
    # attached by all), another local user lists /dev/shm and every command
    # line: the job key appears in neither.  Also with the objects in
    # /dev/shm, and with ranks started through a launch agent ("hosts" a, b).
    need_root "listing as another uid"
    for mode in memfd dev-shm agent; do
        case $mode in
        memfd) start_hold -n 3 ;;
        dev-shm) SKIFF_SHM_OBJECTS=dev-shm start_hold -n 3 ;;
        agent) SKIFF_SHM_OBJECTS=dev-shm start_hold --hosts a:2,b:1 --launch-agent "$AGENT" \
                   --launcher-addr 127.0.0.1 ;;
        esac
        echo "$mode: job started"
        wait_lines "$T/out" '^rank [0-9]+ pid [0-9]+$' 3
        pid0=$(pid_of_rank 0)
        wait_region "$pid0" 0
        echo "$mode: rank 0 (pid $pid0) holds its node-collective region"
        key=$(job_key_of "$pid0")
        [ ${#key} = 32 ] || fail "$mode: no job key in rank 0's environment"
        tag=$("$H" shm-tag "$key")
        setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'ls -a /dev/shm; ps -eo args' \
            >"$T/seen" 2>&1 || fail "$mode: cannot list as uid 65534: $(cat "$T/seen")"
        grep -q "^skiffrun\|/skiffrun " "$T/seen" || fail "$mode: ps as uid 65534 does not show the job"
        if grep -qF "$key" "$T/seen"; then
            fail "$mode: uid 65534 sees the job key: $(grep -F "$key" "$T/seen" | head -3)"
        fi
        if [ "$mode" != memfd ]; then # the object is there, named by the tag
            grep -q "^skiff-$tag-x0-" "$T/seen" || fail "$mode: no skiff-$tag-x0-* in /dev/shm"
        fi
        finish_hold
    done
    ;;
leak-launcher-kill)
    # Item 5: the launcher is SIGKILLed during a communicator's first
    # collective (ranks die with it): nothing of the job stays in /dev/shm.
    start_hold -n 3
    wait_lines "$T/out" '^rank [0-9]+ pid [0-9]+$' 3
    pids=$(sed -n 's/^rank [0-9]* pid //p' "$T/out")
    pid0=$(pid_of_rank 0)
    wait_region "$pid0" 0
    key=$(job_key_of "$pid0")
    tag=$("$H" shm-tag "$key")
    kill -KILL "$JOB"
    wait "$JOB" 2>/dev/null
    JOB=
    for p in $pids; do
        while alive "$p"; do sleep 0.05; done
    done
    left=$(job_objects "$key" "$tag")
    [ -z "$left" ] || fail "left in /dev/shm: $left"
    ;;
leak-rank-kill-devshm)
    # With the objects in /dev/shm, a rank SIGKILLed while its region waits
    # for the others: skiffrun ends the job and removes the object by the
    # tag it derives from the key (the library's names and the launcher's
    # prefix agree).
    SKIFF_SHM_OBJECTS=dev-shm start_hold -n 3
    wait_lines "$T/out" '^rank [0-9]+ pid [0-9]+$' 3
    pid0=$(pid_of_rank 0)
    wait_region "$pid0" 0
    key=$(job_key_of "$pid0")
    tag=$("$H" shm-tag "$key")
    ls /dev/shm/skiff-"$tag"-x0-* >/dev/null 2>&1 || fail "no /dev/shm/skiff-$tag-x0-* while it waits"
    kill -KILL "$pid0"
    wait "$JOB"
    RC=$?
    JOB=
    expect_rc 137
    left=$(job_objects "$key" "$tag")
    [ -z "$left" ] || fail "left in /dev/shm: $left"
    ;;
not-dumpable)
    # Ranks of another user that made themselves non-dumpable (their
    # /proc/<pid>/fd is then root's): memfd objects cannot be shared, so
    # auto falls back to /dev/shm and the job runs.
    need_root "running as uid 65534"
    as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    as_nobody "$R" --version >/dev/null 2>&1 || skip "uid 65534 cannot run $R"
    (cd / && as_nobody "$R" -n 3 "$P" hello-nodump) >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    expect_rc 0
    expect_out '^shm_limits: hello from 3 ranks$'
    ;;
leak-hydra)
    # Item 5 under MPICH's hydra (no Skiff launcher to clean up): rank 0 is
    # SIGKILLed during a communicator's first collective.
    command -v mpiexec.mpich >/dev/null || skip "no mpiexec.mpich"
    key=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
    tag=$("$H" shm-tag "$key")
    rm -f "$T/go"
    : >"$T/out"
    mpiexec.mpich -n 3 -genv SKIFF_JOB_KEY "$key" "$P" hold "$T/go" >>"$T/out" 2>"$T/err" </dev/null &
    JOB=$!
    wait_lines "$T/out" '^rank [0-9]+ pid [0-9]+$' 3
    pids=$(sed -n 's/^rank [0-9]* pid //p' "$T/out")
    pid0=$(pid_of_rank 0)
    wait_region "$pid0" 0
    kill -KILL "$pid0"
    wait "$JOB" 2>/dev/null
    JOB=
    for p in $pids; do
        kill -KILL "$p" 2>/dev/null # hydra may leave them to us
        while alive "$p"; do sleep 0.05; done
    done
    left=$(job_objects "$key" "$tag")
    [ -z "$left" ] || fail "left in /dev/shm: $left"
    ;;
huge-window)
    # A node-shared region larger than the node (a 1 TiB window per rank):
    # refused at creation with the sizes, never a success that dies later.
    "$R" -n 2 "$P" huge-window >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    [ "$RC" != 0 ] || fail "a 1 TiB shared window was made"
    ! grep -q "was made" "$T/out" || fail "a 1 TiB shared window was made"
    expect_err 'node shared region: room check for skiff-[0-9a-f]{16}-x[0-9]+-[0-9]+ \([0-9]+ bytes in memory\): No space left on device'
    ;;
tiny-shm-comms)
    # Item 4: a 16 MB /dev/shm and ranks that keep creating communicators
    # with collectives (40 node-collective regions of ~2 MB each, kept):
    # no SIGBUS.  Memfd regions do not need /dev/shm; regions in /dev/shm
    # are reserved, and when it is full the communicators use the
    # point-to-point algorithms (one notice per creating rank).
    need_mount_ns
    for objects in auto dev-shm; do
        run_in_ns size=16m env SKIFF_SHM_OBJECTS=$objects SKIFF_SHM_RING_SIZE=16K \
            "$R" -n 8 "$P" comms 40 32768
        expect_rc 0
        expect_out '^shm_limits: 40 communicators ok on 8 ranks$'
        no_err 'Bus error|SIGBUS|signal 7'
        if [ $objects = dev-shm ]; then
            expect_err '^skiff MPI: ranks? [0-9,-]+: no room for a [0-9]+-byte node-collective region in /dev/shm; collectives on new communicators use point-to-point algorithms'
        else
            no_err 'no room'
        fi
    done
    ;;
readonly-shm)
    # Item 6: a read-only /dev/shm fails neither a singleton, nor
    # SKIFF_TRANSPORTS=tcp, nor a normal job; forcing objects into it gives
    # one clear message per rank that tries, and a failed job.
    need_mount_ns
    run_in_ns ro,size=1m env -u PMI_FD -u PMI_PORT -u PMI_RANK -u PMI_SIZE "$P" hello
    expect_rc 0
    expect_out '^shm_limits: hello from 1 ranks$'
    run_in_ns ro,size=1m env SKIFF_TRANSPORTS=tcp "$R" -n 3 "$P" hello
    expect_rc 0
    expect_out '^shm_limits: hello from 3 ranks$'
    run_in_ns ro,size=1m "$R" -n 3 "$P" comms 3 1000
    expect_rc 0
    expect_out '^shm_limits: 3 communicators ok on 3 ranks$'
    run_in_ns ro,size=1m env SKIFF_SHM_OBJECTS=dev-shm "$R" -n 2 "$P" hello
    [ "$RC" != 0 ] || fail "a job with its objects forced into a read-only /dev/shm succeeded"
    expect_err 'shm_open for skiff-[0-9a-f]{16}-n0-c0-p[0-9]+ \(.* bytes in /dev/shm\): Read-only file system'
    ;;
missing-shm)
    # Item 6: no /dev/shm at all (a /dev without it): a singleton and a
    # normal job run.
    need_mount_ns
    unshare -m --propagation private sh -c '
        d=$(mktemp -d) && mount -t tmpfs skiff-test "$d" || exit 99
        for n in null zero random urandom; do touch "$d/$n"; mount --bind /dev/$n "$d/$n"; done
        ln -s /proc/self/fd "$d/fd"
        mount --bind "$d" /dev || exit 99
        [ ! -e /dev/shm ] || exit 98
        env -u PMI_FD -u PMI_PORT -u PMI_RANK -u PMI_SIZE "$1" hello && "$0" -n 3 "$1" comms 3 1000
    ' "$R" "$P" >"$T/out" 2>"$T/err" </dev/null
    RC=$?
    [ "$RC" = 99 ] && skip "cannot build a /dev without shm"
    expect_rc 0
    expect_out '^shm_limits: hello from 1 ranks$'
    expect_out '^shm_limits: 3 communicators ok on 3 ranks$'
    ;;
small-shm-many)
    # Item 6: Docker's 64 MB /dev/shm and 30 ranks on the node (the default
    # 256 KiB rings need 67 MB): memfd segments do not use /dev/shm; with
    # the objects in /dev/shm the rings shrink to fit, with one notice.
    need_mount_ns
    run_in_ns size=64m "$R" -n 30 "$P" hello
    expect_rc 0
    expect_out '^shm_limits: hello from 30 ranks$'
    no_err 'instead of'
    run_in_ns size=64m env SKIFF_SHM_OBJECTS=dev-shm "$R" -n 30 "$P" hello
    expect_rc 0
    expect_out '^shm_limits: hello from 30 ranks$'
    [ "$(grep -c 'instead of' "$T/err")" = 1 ] || fail "expected one notice about smaller rings"
    expect_err '^skiff: rank 0: /dev/shm has [0-9]+ MiB free: shm rings of [0-9]+ KiB instead of 256 KiB for 30 ranks on this node'
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
