#!/bin/bash
# Messages of faults, one case per ctest test:
#   diag_cases.sh CASE SKIFFRUN DIAG_FAULTS HELLO SKIFF_INFO
# Each case checks exit status and what stderr says (which rank, which peer,
# which variable); nothing here asserts on time.
set -u
CASE=$1 R=$2 D=$3 HELLO=$4 INFO=$5
T=$(mktemp -d /tmp/skiff-diag.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../common/cases_lib.sh" || exit 1

case "$CASE" in
rank-before-init) # the launcher's rank, not "rank 0" on every rank
    for n in 2 3 5; do
        run "$R" -n "$n" "$D" before-init
        expect_rc_not 0
        expect_err "^skiff MPI: rank $((n - 1)): MPI_Send: called before MPI_Init$"
        expect_no_err "rank 0: MPI_Send"
    done
    ;;
rank-after-finalize)
    for n in 1 3 5; do
        run "$R" -n "$n" "$D" after-finalize
        expect_rc_not 0
        expect_err "^skiff MPI: rank $((n - 1)): MPI_Send: called after MPI_Finalize$"
    done
    ;;
peer-named) # the rank that left is named, with its pid
    # skiffrun ends the job as soon as rank 1 exits without MPI_Finalize, so the
    # line is the launcher's; what the survivors say themselves ("a peer process
    # is gone: rank 1 (pid ...)") is checked where they live on:
    # fault_matrix.sh alone-p2p / alone-node (fault_peer under its own launcher).
    for tr in auto tcp; do
        for n in 3 5 8; do
            SKIFF_TRANSPORTS=$tr run "$R" -n "$n" "$D" peer-exit
            expect_rc 1
            pid=$(awk '$1 == "pid" && $2 == 1 { print $3 }' "$T/out")
            [ -n "$pid" ] || fail "rank 1 did not print its pid"
            expect_err "^skiffrun: rank 1 \(pid $pid\) exited with status 0 without MPI_Finalize"
        done
    done
    ;;
summary) # N ranks saying the same: one line from the launcher, not N (or 2N)
    for n in 5 16 64; do
        run "$R" -n "$n" "$D" all-fatal
        expect_rc 6 # MPI_ERR_RANK
        expect_err_lines 3
        expect_err "^skiff MPI: ranks? [0-9,-]+: MPI_Send: invalid rank $((n + 5)) \(communicator size $n\)$"
        expect_err "^skiffrun: rank [0-9]+ \(pid [0-9]+\) called PMI abort with exit code 6: MPI_Send: invalid rank"
        expect_no_err "skiff boot:" # the MPI line is said once, not again by the channel layer
    done
    # Start-up lines too (SKIFF_VERBOSE): one per distinct message, ranks listed.
    SKIFF_VERBOSE=1 run "$R" -n 8 "$HELLO"
    expect_rc 0
    expect_err '^skiff: ranks [0-9,-]+: port 0: shm segment [0-9]+ bytes, 8 local ranks'
    [ "$(grep -c 'port 0: shm segment' "$T/err")" -lt 8 ] || fail "start-up lines not grouped"
    ;;
config-values) # every SKIFF_* value is checked: a clear line, no crash, no silence
    check_bad() { # VAR=VALUE, what the message says is accepted
        env "$1" "$R" -n 2 "$HELLO" >"$T/out" 2>"$T/err" </dev/null
        RC=$?
        expect_rc_not 0
        expect_err "^skiff(: ranks? [0-9,-]+)?: skf_init: ${1%%=*}=${1#*=} is not valid: $2"
        expect_no_err "killed by|hello:"
        env "$1" "$INFO" --no-probe >"$T/out" 2>&1
        expect_out "set to ${1#*=}: NOT VALID, $2"
    }
    check_bad SKIFF_COLL_NODE_MAX=9223372036854775807 'expected a number from 0 to 4M'
    check_bad SKIFF_COLL_NODE_MAX=-1 'expected a number from 0 to 4M'
    check_bad SKIFF_TRANSPORTS=garbage 'expected auto, shm,tcp, shm,ofi, tcp, ofi or shm$'
    check_bad SKIFF_TCP_CC=garbage 'expected system or a congestion control of this kernel'
    check_bad SKIFF_SHM_RING_SIZE=3K 'expected auto or a power of two from 4K to 1G'
    check_bad SKIFF_CMA=yes 'expected 0 or 1$'
    check_bad SKIFF_SPIN=12Q 'expected auto or a number from -1 to 1G'
    check_bad SKIFF_MPI_EAGER_MAX=99999999999G 'expected a number from 0 to 1G'
    check_bad SKIFF_TCP_TIMEOUT=10 'expected a number from 100 to 3600000'
    check_bad SKIFF_TCP_IF=no-such-if0 'expected auto, an IPv4 address or an interface of this host'
    # Accepted spellings: any case for words, K/M/G suffixes, and the value is used.
    SKIFF_TRANSPORTS=TCP SKIFF_VERBOSE=1 run "$R" -n 2 "$HELLO"
    expect_rc 0
    expect_err 'port 1: tcp listening on'
    SKIFF_SPIN=AUTO SKIFF_MPI_EAGER_MAX=16k SKIFF_TCP_CC=system run "$R" -n 2 "$HELLO"
    expect_rc 0
    expect_out '^hello: 2 of 2 ranks'
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
