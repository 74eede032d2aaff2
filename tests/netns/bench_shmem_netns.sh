#!/usr/bin/env bash
# bench_shmem_netns.sh BUILD_DIR [REPS] — OpenSHMEM between two namespaced
# "hosts", PPN PEs each (default 1; pinned: BENCH_PIN=1): bench/shmem_bench.c built with
# Skiff's oshcc and each peer's, run interleaved REPS times (default 3), the
# implementation order rotating each round.
#   skiff:          skiffrun --hosts h1,h2 --launch-agent 'ip netns exec {host}'
#   oshmpi-mpich5:  OSHMPI_MPICH5=<prefix> MPICH5_BIN=<dir>: its mpiexec inside h1,
#                   -launcher ssh -launcher-exec WRAPPER; UCX_TLS=tcp,self and
#                   MPIR_CVAR_NOLOCAL=1 (the namespaces share /dev/shm and the
#                   hostname: without them MPICH takes shared memory)
#   oshmpi-ompi5:   OSHMPI_OMPI5=<prefix> OMPI5_BIN=<dir>: its mpirun inside h1,
#                   plm_rsh_agent WRAPPER, btl self,tcp, pml ob1 (did not run here:
#                   hangs, or aborts in OSHMPI's start-up; docs/benchmarks.md)
#   base:           BASE=<builddir>: Skiff of another build (before/after in one run)
# IMPLS (default: those configured), MODES (default "p_lat put_bw get_lat
# fadd_lat barrier"; any mode of shmem_bench, e.g. put_lat (putmem + quiet),
# putsig_lat (put-with-signal ping-pong, one way)), SIZES_<mode> override a
# mode's sizes.  WRAP=CMD prefixes every measured launch (and only those: the
# builds and the namespace set-up stay outside), e.g. WRAP=/work/quiet/quiet.sh
# to run each launch with the rest of the machine frozen.  Each run's bytes
# received on h2's eth0 are kept as rx= (the traffic really went over the
# veth).  Prints "impl,mode,size,median [min-max],unit" and then, through
# shmem_netns_summary.py, the medians side by side with skiff / best peer; the
# raw lines stay in $OUT/raw.
set -eu
B=$(cd "$1" && pwd)
REPS=${2:-3}
PPN=${PPN:-1}
SRC=$(cd "$(dirname "$0")/../../bench" && pwd)
. "$(dirname "$0")/netns-lib.sh"
netns_skip_unless_able
netns_up 2
H1=${NETNS_PREFIX}h1 H2=${NETNS_PREFIX}h2
A1=$(netns_addr 1) A2=$(netns_addr 2)
OUT=${OUT:-$(mktemp -d /tmp/skiff-shmem-netns.XXXXXX)}
mkdir -p "$OUT"
DEF_IMPLS=skiff
"$B/bin/oshcc" -O2 -o "$OUT/sb_skiff" "$SRC/shmem_bench.c"
if [ -n "${OSHMPI_MPICH5:-}" ]; then
    "$OSHMPI_MPICH5/bin/oshcc" -O2 -w -o "$OUT/sb_oshmpi-mpich5" "$SRC/shmem_bench.c"
    DEF_IMPLS="$DEF_IMPLS oshmpi-mpich5"
fi
if [ -n "${OSHMPI_OMPI5:-}" ]; then
    "$OSHMPI_OMPI5/bin/oshcc" -O2 -w -o "$OUT/sb_oshmpi-ompi5" "$SRC/shmem_bench.c"
    DEF_IMPLS="$DEF_IMPLS oshmpi-ompi5"
fi
if [ -n "${BASE:-}" ]; then
    "$BASE/bin/oshcc" -O2 -o "$OUT/sb_base" "$SRC/shmem_bench.c"
    DEF_IMPLS="$DEF_IMPLS base"
fi
IMPLS=${IMPLS:-$DEF_IMPLS}
MODES=${MODES:-p_lat put_bw get_lat fadd_lat barrier}
cat >"$OUT/agent" <<AGENT
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
case \$1 in $A1) ns=$H1;; *) ns=$H2;; esac
shift
exec ip netns exec \$ns env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 BENCH_PIN=1 sh -c "\$*"
AGENT
chmod +x "$OUT/agent"
sizes_of() { # mode
    local v="SIZES_$1"
    if [ -n "${!v:-}" ]; then echo "${!v}"; return; fi
    case $1 in put_bw) echo 8,4K,64K,1M ;; barrier) echo 0 ;; *) echo 8 ;; esac
}
WRAP=${WRAP:-}
run() { # impl mode sizes
    local prog="$OUT/sb_$1" t=${TIMEOUT:-300}
    case $1 in
    skiff|base) local bd=$B; [ "$1" = skiff ] || bd=$BASE
               $WRAP timeout "$t" "$bd/bin/skiffrun" --hosts "$H1:$PPN,$H2:$PPN" -n $((2 * PPN)) --launch-agent 'ip netns exec {host}' \
               --launcher-addr "$(netns_launcher_addr)" -x BENCH_PIN=1 "$prog" "$2" --sizes "$3" ;;
    oshmpi-mpich5) $WRAP timeout "$t" ip netns exec "$H1" "$MPICH5_BIN/mpiexec" -launcher ssh \
               -launcher-exec "$OUT/agent" -hosts "$A1,$A2" -ppn "$PPN" -n $((2 * PPN)) -genv UCX_TLS tcp,self \
               -genv MPIR_CVAR_NOLOCAL 1 -genv BENCH_PIN 1 "$prog" "$2" --sizes "$3" ;;
    oshmpi-ompi5) $WRAP timeout "$t" ip netns exec "$H1" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
               "$OMPI5_BIN/mpirun" -H "$A1:$PPN,$A2:$PPN" --map-by slot --bind-to none --mca plm_rsh_agent "$OUT/agent" \
               --mca btl self,tcp --mca pml ob1 -x BENCH_PIN=1 -n $((2 * PPN)) "$prog" "$2" --sizes "$3" ;;
    esac
}
: >"$OUT/raw"
set -- $IMPLS
n=$#
for rep in $(seq "$REPS"); do
    for mode in $MODES; do
        for k in $(seq 0 $((n - 1))); do
            impl=$(echo $IMPLS | tr ' ' '\n' | sed -n "$(( (k + rep) % n + 1 ))p")
            rx0=$(netns_rx_bytes 2)
            if run "$impl" "$mode" "$(sizes_of $mode)" >"$OUT/run.out" 2>>"$OUT/err"; then
                rx=$(( $(netns_rx_bytes 2) - rx0 ))
                # "@ shmem_<mode> size npes metric value"
                # raw: impl,mode,size,value,unit,np=PEs,rx=bytes,rep=N
                sed -nE 's/^@ shmem_([^ ]+) ([0-9]+) ([0-9]+) ([^ ]+) ([^ ]+)$/\1,\2,\5,\4,np=\3/p' "$OUT/run.out" |
                    sed "s/^/$impl,/;s/\$/,rx=$rx,rep=$rep/" >>"$OUT/raw"
            else
                { echo "$impl $mode failed (rep $rep):"; tail -3 "$OUT/run.out"; } | tee -a "$OUT/err" >&2
            fi
        done
    done
done
echo "impl,mode,size,median [min-max],unit (n=$REPS)  raw: $OUT/raw"
python3 "$(dirname "$0")/shmem_netns_summary.py" --list "$OUT/raw"
echo
python3 "$(dirname "$0")/shmem_netns_summary.py" "$OUT/raw"
