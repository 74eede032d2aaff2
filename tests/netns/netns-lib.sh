#!/usr/bin/env bash
# netns-lib.sh — "hosts" made of network namespaces for Skiff's multi-host tests.
#
#   netns_up N      creates namespaces skf<pid>h1..hN, each with a veth into a
#                   bridge in the caller's namespace; host i gets 10.<sub>.0.i/24,
#                   the bridge 10.<sub>.0.254 (the launcher's address)
#   netns_down      deletes them all (also installed as an EXIT trap)
#   netns_skip_unless_able   exits 77 (ctest SKIP) when not root or no `ip netns`
#
# Names carry the caller's pid, so concurrent runs never collide.
NETNS_PREFIX="skf$$"
NETNS_SUB=$(( ($$ % 200) + 20 ))
NETNS_BR="skfbr$$"
NETNS_HOSTS=()

netns_skip_unless_able() {
    if [[ $(id -u) -ne 0 ]]; then echo "SKIP: needs root for ip netns"; exit 77; fi
    if ! command -v ip >/dev/null 2>&1; then echo "SKIP: no ip command"; exit 77; fi
    if ! ip netns add "${NETNS_PREFIX}probe" 2>/dev/null; then echo "SKIP: ip netns add failed"; exit 77; fi
    ip netns del "${NETNS_PREFIX}probe"
}

netns_down() {
    local h
    for h in "${NETNS_HOSTS[@]}"; do
        ip netns pids "$h" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
        ip netns del "$h" 2>/dev/null || true
    done
    ip link del "$NETNS_BR" 2>/dev/null || true
    NETNS_HOSTS=()
}

netns_up() {
    local n=$1 i h
    trap netns_down EXIT
    ip link add "$NETNS_BR" type bridge
    ip addr add "10.$NETNS_SUB.0.254/24" dev "$NETNS_BR"
    ip link set "$NETNS_BR" up
    for ((i = 1; i <= n; i++)); do
        h="${NETNS_PREFIX}h$i"
        ip netns add "$h"
        NETNS_HOSTS+=("$h")
        ip link add "${NETNS_PREFIX}v$i" type veth peer name eth0 netns "$h"
        ip link set "${NETNS_PREFIX}v$i" master "$NETNS_BR" up
        ip -n "$h" addr add "10.$NETNS_SUB.0.$i/24" dev eth0
        ip -n "$h" link set eth0 up
        ip -n "$h" link set lo up
    done
}

# netns_addr i -> address of host i;  netns_launcher_addr -> the bridge's
netns_addr() { echo "10.$NETNS_SUB.0.$1"; }
netns_launcher_addr() { echo "10.$NETNS_SUB.0.254"; }
# bytes received by host i's eth0
netns_rx_bytes() { ip netns exec "${NETNS_PREFIX}h$1" cat /sys/class/net/eth0/statistics/rx_bytes; }
