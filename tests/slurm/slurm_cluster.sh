#!/bin/bash
# slurm_cluster.sh — a private, throw-away Slurm on this machine for the tests:
# one munged, one slurmctld and one slurmd (this host, all its CPUs), every file
# under one directory, ports of their own, nothing in /etc touched.
#
#   slurm_cluster.sh start DIR [NODES]  start it (exit 77 = skipped, with the reason)
#   slurm_cluster.sh stop DIR           end every daemon and job, remove DIR
#
# NODES > 1: one slurmd per network namespace ("node" n1..nN at 10.S.1.i, the
# controller on a bridge at 10.S.1.254), each with a private /tmp (Slurm's
# PMIx plugin keeps per-step directories there), like tests/netns does for
# skiffrun.  slurmd is entered with nsenter, not `ip netns exec`, which would
# remount /sys without the cgroup tree slurmd wants.
#
# Needs root (slurmd starts jobs as their user) and Debian's slurm-wlm + munge.
# Every wait is bounded, so a broken Slurm fails the test instead of hanging it.
set -u
SKIP=77
cmd=${1:-}
dir=${2:-}
nodes=${3:-1}
[[ -n $cmd && -n $dir ]] || { echo "usage: $0 start|stop DIR [NODES]" >&2; exit 2; }
# Namespace, bridge and subnet names derived from DIR: two clusters never collide.
tag=$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
sub=$((tag % 200 + 20))
ns_prefix="skfsl${sub}n"
bridge="skfslbr$sub"

skip() { echo "SKIPPED: $*"; exit $SKIP; }

pid_of() { [[ -s $dir/$1.pid ]] && cat "$dir/$1.pid"; }

stop_daemon() { # stop_daemon NAME: TERM, wait up to 10 s, then KILL
    local pid
    pid=$(pid_of "$1") || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    for _ in $(seq 50); do
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.2
    done
    kill -KILL "$pid" 2>/dev/null
}

stop() {
    [[ -d $dir ]] || return 0
    if [[ -f $dir/slurm.conf ]]; then
        export SLURM_CONF=$dir/slurm.conf
        timeout 10 scancel --full --quiet --user=root 2>/dev/null
        # Steps end once their tasks have: give them a moment, bounded.
        for _ in $(seq 25); do
            [[ -z $(timeout 5 squeue -h 2>/dev/null) ]] && break
            sleep 0.2
        done
    fi
    local f
    for f in "$dir"/slurmd*.pid; do
        [[ -e $f ]] && f=${f##*/} && stop_daemon "${f%.pid}"
    done
    stop_daemon slurmctld
    stop_daemon munged
    local ns
    for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^$ns_prefix"); do
        ip netns pids "$ns" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
        ip netns del "$ns" 2>/dev/null
    done
    ip link del "$bridge" 2>/dev/null
    # slurmstepd of a killed step may linger a moment: end those of this cluster only.
    local p
    for p in $(pgrep -f "slurmstepd" 2>/dev/null); do
        grep -qs "$dir" "/proc/$p/environ" && kill -KILL "$p" 2>/dev/null
    done
    rm -rf "$dir"
}

free_port() { # a TCP port nobody listens on, from a range of our own
    local p
    for p in $(shuf -i 20000-29999 -n 50); do
        ss -Hltn "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
    done
    return 1
}

start() {
    [[ $(id -u) -eq 0 ]] || skip "Slurm tests need root (slurmd runs jobs as their users)"
    local b
    for b in munged slurmctld slurmd srun sbatch sinfo scancel; do
        command -v "$b" >/dev/null || skip "'$b' not found: install Debian's slurm-wlm and munge (.ci/run does)"
    done
    command -v ss >/dev/null || skip "'ss' (iproute2) not found"
    command -v unshare >/dev/null || skip "'unshare' (util-linux) not found"
    stop # what an interrupted earlier run may have left in DIR
    rm -rf "$dir"
    mkdir -p "$dir"/{state,spool,munge} || exit 1
    chmod 700 "$dir/munge"
    local host ctld_port slurmd_port cpus ctld_host node_lines part_nodes
    host=$(hostname -s)
    getent hosts "$host" >/dev/null || skip "this host's name '$host' does not resolve (slurmd needs it)"
    ctld_port=$(free_port) && slurmd_port=$(free_port) || skip "no free TCP port"
    cpus=$(nproc)

    # munge: a private key and socket; Slurm finds the socket through AuthInfo.
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge/munge.key"
    munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" \
        || { cat "$dir/munged.log" 2>/dev/null; echo "munged did not start"; exit 1; }

    ctld_host=$host
    node_lines="NodeName=$host CPUs=$cpus State=UNKNOWN"
    part_nodes=$host
    if ((nodes > 1)); then
        command -v nsenter >/dev/null && command -v unshare >/dev/null && command -v ip >/dev/null ||
            skip "nsenter/unshare/ip not found: no multi-node Slurm"
        ip link add "$bridge" type bridge 2>/dev/null || skip "cannot create a bridge (ip link add)"
        ip addr add "10.$sub.1.254/24" dev "$bridge" && ip link set "$bridge" up
        node_lines=""
        local i
        for ((i = 1; i <= nodes; i++)); do
            ip netns add "$ns_prefix$i" || { stop; skip "ip netns add failed"; }
            ip link add "${ns_prefix}v$i" type veth peer name eth0 netns "$ns_prefix$i"
            ip link set "${ns_prefix}v$i" master "$bridge" up
            ip -n "$ns_prefix$i" addr add "10.$sub.1.$i/24" dev eth0
            ip -n "$ns_prefix$i" link set eth0 up
            ip -n "$ns_prefix$i" link set lo up
            node_lines+="NodeName=n$i NodeAddr=10.$sub.1.$i NodeHostname=$host CPUs=$cpus State=UNKNOWN"$'\n'
        done
        ctld_host="$host(10.$sub.1.254)"
        part_nodes="n[1-$nodes]"
    fi

    cat >"$dir/slurm.conf" <<CONF
ClusterName=skifftest
SlurmctldHost=$ctld_host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
KillWait=2
InactiveLimit=0
MinJobAge=10
SlurmctldTimeout=30
SlurmdTimeout=30
$node_lines
PartitionName=skiff Nodes=$part_nodes Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONF
    export SLURM_CONF=$dir/slurm.conf
    slurmctld -c -f "$SLURM_CONF" || { tail -20 "$dir/slurmctld.log"; echo "slurmctld did not start"; stop; exit 1; }
    # Every slurmd gets a /tmp of its own: Slurm's PMIx plugin keeps
    # /tmp/spmix_appdir_<uid>_<job>.<step> there, which a killed step can leave
    # behind and a later cluster's step of the same number then fails on.
    # A build tree under /tmp (a clone in /tmp, as CI may make) must stay
    # visible to slurmd and its jobs: its top directory below /tmp is opened
    # before the tmpfs covers /tmp and bound back into it through the fd.
    local keep=""
    case $dir in /tmp/?*) keep=${dir#/tmp/}; keep=/tmp/${keep%%/*} ;; esac
    local private_tmp='if [ -n "$0" ]; then exec 3<"$0" || exit 1; fi
mount -t tmpfs -o size=256m,mode=1777 skiffnode /tmp || exit 1
if [ -n "$0" ]; then
    mkdir -p "$0" && mount --no-canonicalize --bind /proc/self/fd/3 "$0" || exit 1
    exec 3<&-
fi
exec slurmd "$@"'
    if ((nodes == 1)); then
        unshare --mount --propagation private sh -c "$private_tmp" "$keep" -f "$SLURM_CONF" ||
            { tail -20 "$dir"/slurmd-*.log; echo "slurmd did not start"; stop; exit 1; }
    else
        for ((i = 1; i <= nodes; i++)); do
            nsenter --net="/run/netns/$ns_prefix$i" unshare --mount --propagation private \
                sh -c "$private_tmp" "$keep" -N "n$i" -f "$SLURM_CONF" ||
                { tail -20 "$dir"/slurmd-*.log; echo "slurmd n$i did not start"; stop; exit 1; }
        done
    fi
    local state="" idle=0
    for _ in $(seq 60); do # up to ~30 s for the nodes to register
        state=$(timeout 5 sinfo -h -N -o %t 2>/dev/null | tr '\n' ' ')
        idle=$(grep -o 'idle' <<<"$state" | wc -l)
        ((idle == nodes)) && break
        sleep 0.5
    done
    if ((idle != nodes)); then
        echo "the Slurm node did not become idle (state '$state'); logs:"
        tail -15 "$dir/slurmctld.log" "$dir/slurmd.log"
        stop
        exit 1
    fi
    echo "slurm up in $dir: $nodes node(s) ($part_nodes), $cpus CPUs each, slurmctld port $ctld_port, slurmd port $slurmd_port"
    echo "mpi plugins: $(timeout 10 srun --mpi=list 2>&1 | tr -s ' \n' ' ')"
}

case $cmd in
start) start ;;
stop) stop ;;
*) echo "usage: $0 start|stop DIR [NODES]" >&2; exit 2 ;;
esac
