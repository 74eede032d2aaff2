#!/bin/bash
# The fault matrix: in every kind of wait, a peer that returns from main
# without MPI_Finalize, is SIGKILLed, or segfaults ends the job.
#   fault_matrix.sh SET FAULT_PEER SKIFFRUN
# SET  launcher-CONFIG-FATE  every OP under skiffrun; CONFIG: shm, tcp
#                            (SKIFF_TRANSPORTS=tcp), p2p (SKIFF_COLL_NODE=0: the
#                            point-to-point algorithms), devshm (named objects in
#                            /dev/shm, SKIFF_SHM_OBJECTS=dev-shm, instead of the
#                            default memfds); FATE: exit0, kill, segv
#      alone-node            the shared-memory collectives under fault_peer's own
#                            launcher (the library must notice, and name the victim)
#      alone-p2p             the same for point-to-point waits, on shm and tcp
# Per case: the exit status (exit0: 1, kill: 137, segv: 139), the launcher's
# line naming the victim, no rank process left, none of the /dev/shm objects
# the ranks had mapped left, nor any other with the job's name prefix.  Rank counts go round 2, 3, 5, 8.  Nothing here
# asserts on time: ctest's TIMEOUT is the hang guard.
set -u
SET=$1 FP=$2 R=$3
T=$(mktemp -d /tmp/fault-matrix.XXXXXX)
trap 'rm -rf "$T"' EXIT
NPS=(2 3 5 8)
OPS_ALL="p2p rndv barrier bcast reduce gather scatter allreduce allgather alltoall alltoallv scan
         reduce_scatter ibarrier iallreduce split dup create"
OPS_NODE="barrier bcast reduce allreduce allgather alltoall"
failures=0

fail() {
    echo "FAIL [$SET $*]" >&2
    for f in "$T"/out "$T"/err; do
        [ -s "$f" ] && { echo "--- $f (head)"; head -c 3000 "$f"; echo; } >&2
    done
    failures=$((failures + 1))
}
alive() { [ -e "/proc/$1" ] && ! grep -Eq '^[0-9]+ \(.*\) Z' "/proc/$1/stat" 2>/dev/null; }

# launcher_case NP OP FATE [VAR=VALUE...]
launcher_case() {
    local np=$1 op=$2 fate=$3 victim=$(($1 - 1)) want line
    shift 3
    rm -rf "$T/ranks" && mkdir "$T/ranks"
    env "$@" FAULT_PEER_DIR="$T/ranks" "$R" -n "$np" "$FP" "$op" "$fate" >"$T/out" 2>"$T/err" </dev/null
    local rc=$?
    case $fate in
    exit0) want=1 line="rank $victim \(pid [0-9]+\) exited with status 0 without MPI_Finalize.*" ;;
    kill) want=137 line="rank $victim \(pid [0-9]+\) killed by SIGKILL" ;;
    segv) want=139 line="rank $victim \(pid [0-9]+\) killed by SIGSEGV" ;;
    esac
    local what="-n $np $op $fate $*"
    [ "$rc" = "$want" ] || { fail "$what: exit status $rc, expected $want"; return; }
    grep -Eq "^skiffrun: $line — job aborted$" "$T/err" || { fail "$what: no line /$line/"; return; }
    [ "$(ls "$T/ranks" | wc -l)" = "$np" ] || { fail "$what: not every rank recorded itself"; return; }
    for f in "$T"/ranks/rank*; do
        local pid
        pid=$(head -1 "$f")
        alive "$pid" && { fail "$what: process $pid ($(basename "$f")) still runs"; return; }
        while read -r obj _; do
            [ -e "$obj" ] && { fail "$what: $obj left behind"; return; }
        done < <(tail -n +2 "$f")
    done
    # nor any object of the job made after the ranks recorded themselves
    # (communicators created in the loop): same /dev/shm/skiff-<tag>- prefix
    local prefix
    for prefix in $(sed -n 's|^\(/dev/shm/skiff-[0-9a-f]*-\).*|\1|p' "$T"/ranks/rank* | sort -u); do
        ls "$prefix"* >/dev/null 2>&1 && { fail "$what: left behind: $(ls "$prefix"*)"; return; }
    done
    echo "ok: $what"
}

# alone_case NP OP FATE [VAR=VALUE...]
alone_case() {
    local np=$1 op=$2 fate=$3
    shift 3
    if env "$@" "$FP" --alone "$np" "$op" "$fate" >"$T/out" 2>"$T/err" </dev/null; then
        cat "$T/out"
    else
        fail "--alone $np $op $fate $*: $(cat "$T/out")"
    fi
}

i=0
case "$SET" in
launcher-*-*)
    config=${SET#launcher-} fate=${config#*-} config=${config%-*}
    case $config in
    shm) vars=() ;;
    tcp) vars=(SKIFF_TRANSPORTS=tcp) ;;
    p2p) vars=(SKIFF_COLL_NODE=0) ;;
    devshm) vars=(SKIFF_SHM_OBJECTS=dev-shm) ;;
    *) echo "unknown config $config" >&2; exit 2 ;;
    esac
    for op in $OPS_ALL; do
        launcher_case "${NPS[i++ % 4]}" "$op" "$fate" "${vars[@]}"
    done
    ;;
alone-node)
    for fate in exit0 kill segv; do
        for op in $OPS_NODE; do
            alone_case "${NPS[i++ % 4]}" "$op" "$fate" FAULT_PEER_EXPECT_NAMED=1
        done
    done
    ;;
alone-p2p) # the point-to-point algorithms, on shm and tcp
    for fate in exit0 kill segv; do
        for op in p2p rndv barrier scatter alltoallv iallreduce split; do
            alone_case "${NPS[i++ % 4]}" "$op" "$fate" SKIFF_COLL_NODE=0 FAULT_PEER_EXPECT_NAMED=1
            alone_case "${NPS[i++ % 4]}" "$op" "$fate" SKIFF_TRANSPORTS=tcp SKIFF_COLL_NODE=0 \
                FAULT_PEER_EXPECT_NAMED=1
        done
    done
    ;;
*)
    echo "unknown set $SET" >&2
    exit 2
    ;;
esac
[ "$failures" = 0 ] || { echo "$failures case(s) failed" >&2; exit 1; }
