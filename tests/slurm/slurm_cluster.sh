#!/bin/bash
# slurm_cluster.sh — a private, throw-away Slurm on this machine for the tests:
# one munged, one slurmctld and one slurmd (this host, all its CPUs), every file
# under one directory, ports of their own, nothing in /etc touched.
#
#   slurm_cluster.sh start DIR   start it (exit 77 = skipped, with the reason)
#   slurm_cluster.sh stop DIR    end every daemon and job, remove DIR
#   slurm_cluster.sh env DIR     print the SLURM_CONF line to source
#
# Needs root (slurmd starts jobs as their user) and Debian's slurm-wlm + munge.
# Every wait is bounded, so a broken Slurm fails the test instead of hanging it.
# One node only: Debian's Slurm is built without --enable-multiple-slurmd.
set -u
SKIP=77
cmd=${1:-}
dir=${2:-}
[[ -n $cmd && -n $dir ]] || { echo "usage: $0 start|stop|env DIR" >&2; exit 2; }

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
    stop_daemon slurmd
    stop_daemon slurmctld
    stop_daemon munged
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
    rm -rf "$dir"
    mkdir -p "$dir"/{state,spool,munge} || exit 1
    chmod 700 "$dir/munge"
    local host ctld_port slurmd_port cpus
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

    cat >"$dir/slurm.conf" <<CONF
ClusterName=skifftest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=skiff Nodes=$host Default=YES MaxTime=10 State=UP OverSubscribe=YES
CONF
    export SLURM_CONF=$dir/slurm.conf
    slurmctld -c -f "$SLURM_CONF" || { tail -20 "$dir/slurmctld.log"; echo "slurmctld did not start"; stop; exit 1; }
    slurmd -f "$SLURM_CONF" || { tail -20 "$dir/slurmd.log"; echo "slurmd did not start"; stop; exit 1; }
    local state=""
    for _ in $(seq 60); do # up to ~30 s for the node to register
        state=$(timeout 5 sinfo -h -N -o %t 2>/dev/null | head -1)
        [[ $state == idle* ]] && break
        sleep 0.5
    done
    if [[ $state != idle* ]]; then
        echo "the Slurm node did not become idle (state '$state'); logs:"
        tail -15 "$dir/slurmctld.log" "$dir/slurmd.log"
        stop
        exit 1
    fi
    echo "slurm up in $dir: node $host, $cpus CPUs, slurmctld port $ctld_port, slurmd port $slurmd_port"
    echo "mpi plugins: $(timeout 10 srun --mpi=list 2>&1 | tr -s ' \n' ' ')"
}

case $cmd in
start) start ;;
stop) stop ;;
env) echo "SLURM_CONF=$dir/slurm.conf" ;;
*) echo "usage: $0 start|stop|env DIR" >&2; exit 2 ;;
esac
