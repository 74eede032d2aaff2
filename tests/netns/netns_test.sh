#!/usr/bin/env bash
# netns_test.sh BIN_DIR [case...] — Skiff across "hosts" made of network
# namespaces (netns-lib.sh): veth pairs into a bridge, private addresses, the
# launcher in the calling namespace reached at the bridge's address, ranks
# started with --launch-agent 'ip netns exec {host}'.
#
# Cases (all by default):
#   mpi       the MPI (one-sided too), OpenSHMEM and channel programs at 2 hosts x 2 ranks
#             (shm + tcp) and 3 hosts x 1 rank; bytes must really cross the veth;
#             remote atomics, and an owner busy outside Skiff while others get/put/atomic
#   kill      a "host" whose ranks are SIGKILLed mid-job: the job ends, status != 0
#   linkdown  a "host" whose link goes down mid-job: its peers' operations fail
#             within SKIFF_TCP_TIMEOUT, the job ends, status != 0
#   linkquiet the same while the rank that notices waits for a node mate over
#             shared memory alone (tests/mpi/fault_quiet_link.c): the job ends
#   strangers garbage and a wrong key on the launcher's PMI port and on a
#             rank's tcp port: dropped with one line each, the job succeeds
#   hydra     Skiff binaries started by MPICH's mpiexec across the namespaces
#   ofi       (not in the default set) the libfabric transport between the hosts
#             (SKIFF_TRANSPORTS=shm,ofi, tcp;ofi_rxm): channel stream over the veth,
#             remote atomics with a busy owner, MPI p2p/collectives/one-sided, SHMEM
# Exit 77 (ctest SKIP) when not root or `ip netns` is unavailable.  The
# namespaces and the bridge are always removed (EXIT trap).
set -u
BIN=$(cd "$1" && pwd); shift
CASES=${*:-mpi kill linkdown linkquiet strangers hydra}
. "$(dirname "$0")/netns-lib.sh"
netns_skip_unless_able
netns_up 3
H1=${NETNS_PREFIX}h1 H2=${NETNS_PREFIX}h2 H3=${NETNS_PREFIX}h3
AGENT='ip netns exec {host}'
LADDR=$(netns_launcher_addr)
fails=0

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
skiffrun() { timeout 120 "$BIN/skiffrun" --launch-agent "$AGENT" --launcher-addr "$LADDR" "$@"; }

case_mpi() {
    local before after prog
    before=$(netns_rx_bytes 2)
    skiffrun --hosts "$H1:2,$H2:2" "$BIN/chan_stream_test" all 3000000 || fail "chan_stream 2x2"
    after=$(netns_rx_bytes 2)
    echo "host 2 received $((after - before)) bytes on its veth"
    # 2 ranks there each get 3 MB from each of the 2 ranks of host 1
    ((after - before >= 12000000)) || fail "the stream did not cross the veth ($((after - before)) bytes)"
    skiffrun --hosts "$H1,$H2,$H3" "$BIN/chan_stream_test" all 3000000 || fail "chan_stream 3x1"
    skiffrun --hosts "$H1:2,$H2:2" "$BIN/mr_test" cma || fail "mr_test 2x2 (tcp get/put)"
    skiffrun --hosts "$H1:2,$H2:2" "$BIN/atomic_test" all 100 || fail "atomic_test 2x2 (shm fallback + tcp)"
    # rank 0 computes outside Skiff >= 2 s: the others' ops complete by its RMA service thread
    skiffrun --hosts "$H1,$H2,$H3" "$BIN/atomic_test" busy || fail "atomic_test busy 3x1"
    for prog in p2p_sizes p2p_flood p2p_probe p2p_requests coll_basic coll_ops coll_nbasic \
                rma_ops rma_accops rma_locks rma_progress rma_shared \
                shmem_rma shmem_amo shmem_wait shmem_coll shmem_coll_stage shmem_generic shmem_flight \
                shmem_flight_pool shmem_barrier shmem_stencil; do
        [[ -x $BIN/$prog ]] || continue
        skiffrun --hosts "$H1:2,$H2:2" "$BIN/$prog" || fail "$prog 2x2"
        skiffrun --hosts "$H1,$H2,$H3" "$BIN/$prog" || fail "$prog 3x1"
    done
}

# Start a long stream on 2 hosts, hurt host 2 after a second, expect the
# job to end non-zero (never a hang: the outer timeout is the guard).
cut_off() {
    local how=$1 out start
    out=$(mktemp)
    start=$SECONDS
    SKIFF_TCP_TIMEOUT=2000 skiffrun --hosts "$H1,$H2" "$BIN/chan_stream_test" all 40000000000 >"$out" 2>&1 &
    local job=$!
    sleep 1.5
    if [[ $how == kill ]]; then
        ip netns pids "$H2" | xargs -r kill -9
    else
        ip link set "${NETNS_PREFIX}v2" down
    fi
    wait $job
    ended_badly "$how" "$out" $? $start
    rm -f "$out"
    [[ $how == kill ]] || ip link set "${NETNS_PREFIX}v2" up
}

# ended_badly NAME OUT RC START: the job's last lines, then it must have ended
# with a non-zero status (not the guard's 124) and the launcher's one line.
ended_badly() {
    sed 's/^/    /' "$2" | tail -5
    echo "$1: job ended with status $3 after $((SECONDS - $4)) s"
    (($3 != 0 && $3 != 124)) || fail "$1: want a non-zero status (not the guard's 124), got $3"
    grep -q "job aborted" "$2" || fail "$1: no one-line cause from the launcher"
}

# The libfabric transport between the namespaces (docs/ofi.md).
case_ofi() {
    local before after prog
    export SKIFF_TRANSPORTS=shm,ofi SKIFF_OFI_PROVIDER='tcp;ofi_rxm'
    before=$(netns_rx_bytes 2)
    skiffrun --hosts "$H1:2,$H2:2" "$BIN/chan_stream_test" all 3000000 || fail "ofi chan_stream 2x2"
    after=$(netns_rx_bytes 2)
    echo "host 2 received $((after - before)) bytes on its veth (ofi)"
    ((after - before >= 12000000)) || fail "ofi: the stream did not cross the veth ($((after - before)) bytes)"
    skiffrun --hosts "$H1,$H2,$H3" "$BIN/atomic_test" busy || fail "ofi atomic_test busy 3x1"
    for prog in p2p_sizes p2p_requests coll_basic rma_ops rma_accops shmem_rma shmem_amo; do
        [[ -x $BIN/$prog ]] || continue
        skiffrun --hosts "$H1:2,$H2:2" "$BIN/$prog" || fail "ofi $prog 2x2"
        skiffrun --hosts "$H1,$H2,$H3" "$BIN/$prog" || fail "ofi $prog 3x1"
    done
    unset SKIFF_TRANSPORTS SKIFF_OFI_PROVIDER
}

case_kill() { cut_off kill; }
case_linkdown() { cut_off linkdown; }

# h2's link goes down while rank 0 (h1) waits on shm for rank 1 and rank 2
# (h2) sleeps outside MPI: rank 0's tcp side alone can notice, and its shm
# wait must fail; the job ends non-zero (never the guard's 124).
case_linkquiet() {
    local out start
    out=$(mktemp)
    start=$SECONDS
    SKIFF_TCP_TIMEOUT=2000 skiffrun --hosts "$H1:2,$H2" "$BIN/fault_quiet_link" >"$out" 2>&1 &
    local job=$!
    sleep 1.5
    ip link set "${NETNS_PREFIX}v2" down
    wait $job
    ended_badly linkquiet "$out" $? $start
    grep -q "a peer process is gone" "$out" || fail "linkquiet: rank 0 did not say its peer is gone"
    rm -f "$out"
    ip link set "${NETNS_PREFIX}v2" up
}

case_strangers() {
    local out rc
    command -v python3 >/dev/null || { echo "strangers: python3 not installed, skipped"; return; }
    out=$(mktemp)
    # The launcher's PMI port: one connection of garbage, one with a wrong key.
    skiffrun --hosts "$H1,$H2" sh -c 'sleep 2; echo rank $PMI_RANK done' >"$out" 2>&1 &
    local job=$!
    sleep 0.7
    local port
    port=$(ss -ltnp | awk '/skiffrun/ {print $4}' | grep "^$LADDR:" | head -1)
    python3 - "${port%:*}" "${port##*:}" <<'PY'
import socket, sys
host, port = sys.argv[1], int(sys.argv[2])
for payload in (b"\x00\xffgarbage\n", b"cmd=skiff_hello rank=0 nonce=00112233445566778899aabbccddeeff\n"):
    s = socket.create_connection((host, port), timeout=5)
    s.sendall(payload)
    try:
        line = s.recv(4096)
        if line.startswith(b"cmd=skiff_challenge"):
            s.sendall(b"cmd=skiff_proof mac=" + b"00" * 32 + b"\n")
            line = s.recv(4096)
        print("stranger got", line[:40], "then", s.recv(10))
    except OSError as e:
        print("stranger:", e)
PY
    wait $job
    rc=$?
    cat "$out"
    ((rc == 0)) || fail "strangers on the PMI port: the job failed ($rc)"
    grep -q "PMI connection from .* dropped: expected 'cmd=skiff_hello" "$out" || fail "no log line for the PMI garbage"
    grep -q "PMI connection from .* dropped: wrong job key" "$out" || fail "no log line for the wrong PMI key"
    rm -f "$out"
    # A rank's tcp port across hosts (tcp_auth_test plays the stranger).
    skiffrun --hosts "$H1,$H2" "$BIN/tcp_auth_test" >"$out" 2>&1 || fail "tcp_auth_test across hosts"
    # 5 shown by the data listener (its sixth is counted), 3 by the one-sided listener's service
    grep -c "dropped: " "$out" | grep -qx 8 || { cat "$out"; fail "tcp strangers: want 8 log lines"; }
    rm -f "$out"
}

case_hydra() {
    command -v mpiexec.mpich >/dev/null || { echo "hydra: mpiexec.mpich not installed, skipped"; return; }
    local wrap key
    wrap=$(mktemp)
    # ssh-like: drop -x style options, map the address to its namespace, run the rest in sh.
    cat >"$wrap" <<WRAP
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
host=\$1; shift
case \$host in $(netns_addr 1)) ns=$H1;; $(netns_addr 2)) ns=$H2;; *) ns=$H3;; esac
exec ip netns exec \$ns sh -c "\$*"
WRAP
    chmod +x "$wrap"
    key=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
    timeout 120 ip netns exec "$H1" mpiexec.mpich -launcher ssh -launcher-exec "$wrap" \
        -hosts "$(netns_addr 1),$(netns_addr 2)" -ppn 1 -n 2 -genv SKIFF_JOB_KEY "$key" \
        "$BIN/p2p_sizes" || fail "hydra across namespaces"
    rm -f "$wrap"
}

for c in $CASES; do
    echo "=== $c"
    "case_$c"
done
((fails == 0)) && echo "netns: all cases passed" || echo "netns: $fails failure(s)"
((fails == 0))
