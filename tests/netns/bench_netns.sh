#!/usr/bin/env bash
# bench_netns.sh BUILD_DIR [REPS] — TCP between two namespaced "hosts", one
# rank each, pinned to CPU 0 and CPU 1: bench/mpi_pt2pt.c built with Skiff's,
# MPICH's and Open MPI's mpicc, run interleaved REPS times (default 3).
#   Skiff:    skiffrun --hosts h1,h2 --launch-agent 'ip netns exec {host}'
#   MPICH:    mpiexec.mpich inside h1, -launcher ssh -launcher-exec WRAPPER,
#             UCX_TLS=tcp,self (else UCX uses shared memory between namespaces)
#   MPICH 5:  mpich5: the same with the PyPI venv's mpiexec (bench/setup-peers.sh;
#             SKIFF_PEERS_DIR), MPICH_CH4_NETMOD=ucx, UCX_TLS=tcp,self
#   Open MPI: mpirun.openmpi inside h1, plm_rsh_agent WRAPPER, btl self,tcp, pml ob1
# (the commands of /work/shared/baselines.md section 6).
#   raw:      tests/netns/raw_tcp_probe.c, one plain TCP connection (busy-polling
#             receiver, same pinning): the floor measured in the same run, with
#             the system's congestion control; rawcc: the same with Skiff's
#             (SKIFF_TCP_CC, default reno)
#   base:     Skiff of another build, BASE=<builddir> (before/after in one run)
#   skiffx:   this Skiff with SKIFF_X="VAR=VALUE ..." in its ranks' environment
#             (a setting against the default in one run)
# ITERS=n fixes the iterations of every MPI run (mpi_pt2pt --iters; default:
# its own budget, 100000 round trips at 8 B, minutes on a loaded machine).
#   skiffofi: Skiff with its libfabric transport between the hosts
#             (SKIFF_TRANSPORTS=shm,ofi, SKIFF_OFI_PROVIDER=tcp;ofi_rxm by default)
#   baseofi:  the same with the BASE build (before/after of the ofi transport in one run)
#   rawofi:   tests/netns/raw_ofi_probe.c, latency and bw: a ping-pong (or
#             windows of 64 sends) over one libfabric RDM endpoint per host
#             (RAW_OFI_PROV, default SKIFF_OFI_PROVIDER or tcp;ofi_rxm),
#             busy-polling, no Skiff, no MPI: the provider's floor (and
#             ceiling) for the skiffofi rows, in the same run
#   mpich5ofi: PyPI mpich 5.0 wheel, MPICH_CH4_NETMOD=ofi (its default is ucx), FI_PROVIDER=tcp;
#             mpiexec and each host's proxy in a UTS namespace with the host's own
#             hostname (MPICH finds node mates by hostname: with the shared one it
#             used shared memory, MPIR_CVAR_NOLOCAL=1 did not stop it)
# NS_CC=name sets both namespaces' default congestion control (every MPI then
# uses it: the fair check of what SKIFF_TCP_CC buys).
# PROG=mpi_rma runs the one-sided benchmarks (bench/mpi_rma.c + the suite's
# driver) instead: MODES are its modes (put_lat get_lat put_bw acc_lat
# fop_lat cas_lat fence_lat ...), every mode with the sizes RMA_SIZES
# (default 8; fop/cas ignore it), IMPLS without raw.  TIMEOUT=s bounds each run (300).
# IMPLS="skiff mpich mpich5 openmpi raw rawcc" and MODES="latency bw msgrate" choose what
# runs (raw has no msgrate).  Prints "impl,bench,size,value,unit" lines and the
# medians; raw output in $OUT.
set -eu
B=$(cd "$1" && pwd)
REPS=${2:-3}
SRC=$(cd "$(dirname "$0")/../../bench" && pwd)
. "$(dirname "$0")/netns-lib.sh"
netns_skip_unless_able
netns_up 2
H1=${NETNS_PREFIX}h1 H2=${NETNS_PREFIX}h2
if [ -n "${NS_CC:-}" ]; then
    ip netns exec "$H1" sysctl -qw net.ipv4.tcp_congestion_control="$NS_CC"
    ip netns exec "$H2" sysctl -qw net.ipv4.tcp_congestion_control="$NS_CC"
fi
OUT=${OUT:-$(mktemp -d /tmp/skiff-netns-bench.XXXXXX)}
mkdir -p "$OUT"
PROG=${PROG:-mpi_pt2pt}
SRCS="$SRC/mpi_pt2pt.c"
[ "$PROG" != mpi_rma ] || SRCS="-I$SRC/suite $SRC/mpi_rma.c $SRC/suite/suite.c"
"$B/bin/mpicc" -O2 -o "$OUT/pt_skiff" $SRCS
mpicc.mpich -O2 -w -o "$OUT/pt_mpich" $SRCS
MPICH5=${SKIFF_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/skiff/peers}/mpich5/bin
IMPLS=${IMPLS:-skiff mpich openmpi raw rawcc}
case " $IMPLS " in *" openmpi "*) mpicc.openmpi -O2 -w -o "$OUT/pt_openmpi" $SRCS ;; esac
case " $IMPLS " in *" mpich5 "*|*" mpich5ofi "*) "$MPICH5/mpicc" -O2 -w -o "$OUT/pt_mpich5" $SRCS ;; esac
[ -z "${BASE:-}" ] || "$BASE/bin/mpicc" -O2 -o "$OUT/pt_base" $SRCS
cc -O2 -o "$OUT/raw_tcp_probe" "$(dirname "$0")/raw_tcp_probe.c"
case " $IMPLS " in *" rawofi "*) cc -O2 -o "$OUT/raw_ofi_probe" "$(dirname "$0")/raw_ofi_probe.c" -lfabric ;; esac
IMPLS=${IMPLS:-skiff mpich openmpi raw rawcc}
MODES=${MODES:-latency bw msgrate}
cat >"$OUT/agent" <<WRAP
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
case \$1 in $(netns_addr 1)) ns=$H1;; *) ns=$H2;; esac
shift
exec ip netns exec \$ns env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 BENCH_PIN=1 sh -c "\$*"
WRAP
chmod +x "$OUT/agent"
# the same in a UTS namespace of its own named after the host: MPICH finds
# node mates by hostname, and both namespaces share the machine's
sed 's/^exec ip netns exec \$ns env \(.*\) sh -c .*/exec ip netns exec $ns unshare --uts env \1 sh -c "hostname $ns; $*"/' \
    "$OUT/agent" >"$OUT/agent_uts"
chmod +x "$OUT/agent_uts"
A1=$(netns_addr 1) A2=$(netns_addr 2)
ITERS_ARG=${ITERS:+--iters $ITERS}
LAT=${LAT:-8,1024,65536,1048576,4194304}
BW=${BW:-1024,65536,1048576,4194304}
run() { # impl mode sizes
    case $1 in
    base) timeout ${TIMEOUT:-300} "$BASE/bin/skiffrun" --hosts "$H1,$H2" --launch-agent 'ip netns exec {host}' \
               --launcher-addr "$(netns_launcher_addr)" -x BENCH_PIN=1 "$OUT/pt_base" "$2" --sizes "$3" $ITERS_ARG ;;
    skiff) timeout ${TIMEOUT:-300} "$B/bin/skiffrun" --hosts "$H1,$H2" --launch-agent 'ip netns exec {host}' \
               --launcher-addr "$(netns_launcher_addr)" -x BENCH_PIN=1 "$OUT/pt_skiff" "$2" --sizes "$3" $ITERS_ARG ;;
    skiffx) local x= kv
         for kv in ${SKIFF_X:?skiffx needs SKIFF_X=\"VAR=VALUE ...\"}; do x="$x -x $kv"; done
         timeout ${TIMEOUT:-300} "$B/bin/skiffrun" --hosts "$H1,$H2" --launch-agent 'ip netns exec {host}' \
               --launcher-addr "$(netns_launcher_addr)" -x BENCH_PIN=1 $x "$OUT/pt_skiff" "$2" --sizes "$3" $ITERS_ARG ;;
    baseofi) timeout ${TIMEOUT:-300} "$BASE/bin/skiffrun" --hosts "$H1,$H2" --launch-agent 'ip netns exec {host}' \
               --launcher-addr "$(netns_launcher_addr)" -x BENCH_PIN=1 -x SKIFF_TRANSPORTS=shm,ofi \
               -x "SKIFF_OFI_PROVIDER=${SKIFF_OFI_PROVIDER:-tcp;ofi_rxm}" "$OUT/pt_base" "$2" --sizes "$3" $ITERS_ARG ;;
    skiffofi) timeout ${TIMEOUT:-300} "$B/bin/skiffrun" --hosts "$H1,$H2" --launch-agent 'ip netns exec {host}' \
               --launcher-addr "$(netns_launcher_addr)" -x BENCH_PIN=1 -x SKIFF_TRANSPORTS=shm,ofi \
               -x "SKIFF_OFI_PROVIDER=${SKIFF_OFI_PROVIDER:-tcp;ofi_rxm}" "$OUT/pt_skiff" "$2" --sizes "$3" $ITERS_ARG ;;
    mpich5ofi) timeout ${TIMEOUT:-300} ip netns exec "$H1" unshare --uts sh -c 'hostname "$0"; exec "$@"' "$H1" \
               "$MPICH5/mpiexec" -launcher ssh -launcher-exec "$OUT/agent_uts" \
               -hosts "$A1,$A2" -ppn 1 -n 2 -genv MPICH_CH4_NETMOD ofi -genv FI_PROVIDER tcp -genv BENCH_PIN 1 \
               -genv PATH "$MPICH5:$PATH" "$OUT/pt_mpich5" "$2" --sizes "$3" $ITERS_ARG ;;
    mpich) timeout ${TIMEOUT:-300} ip netns exec "$H1" mpiexec.mpich -launcher ssh -launcher-exec "$OUT/agent" \
               -hosts "$A1,$A2" -ppn 1 -n 2 -genv UCX_TLS tcp,self -genv BENCH_PIN 1 \
               "$OUT/pt_mpich" "$2" --sizes "$3" $ITERS_ARG ;;
    mpich5) timeout ${TIMEOUT:-300} ip netns exec "$H1" "$MPICH5/mpiexec" -launcher ssh -launcher-exec "$OUT/agent" \
               -hosts "$A1,$A2" -ppn 1 -n 2 -genv MPICH_CH4_NETMOD ucx -genv UCX_TLS tcp,self -genv BENCH_PIN 1 \
               "$OUT/pt_mpich5" "$2" --sizes "$3" $ITERS_ARG ;;
    openmpi) timeout ${TIMEOUT:-300} ip netns exec "$H1" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
               mpirun.openmpi -H "$A1,$A2" --map-by node --bind-to none --mca plm_rsh_agent "$OUT/agent" \
               --mca btl self,tcp --mca pml ob1 -x BENCH_PIN=1 -n 2 "$OUT/pt_openmpi" "$2" --sizes "$3" $ITERS_ARG ;;
    rawofi) [ "$2" = latency ] || [ "$2" = bw ] || return 0
         local prov=${RAW_OFI_PROV:-${SKIFF_OFI_PROVIDER:-tcp;ofi_rxm}}
         ip netns exec "$H2" env RAW_OFI_PROV="$prov" RAW_OFI_ITERS="${ITERS:-}" RAW_OFI_MODE="$2" taskset -c 1 \
             timeout ${TIMEOUT:-300} "$OUT/raw_ofi_probe" server 47012 "$3" &
         local osrv=$!
         sleep 0.3 # the server's endpoint listens
         ip netns exec "$H1" env RAW_OFI_PROV="$prov" RAW_OFI_ITERS="${ITERS:-}" RAW_OFI_MODE="$2" taskset -c 0 \
             timeout ${TIMEOUT:-300} "$OUT/raw_ofi_probe" client "$A2" 47012 "$3"
         local orc=$?
         wait $osrv
         return $orc ;;
    raw|rawcc) [ "$2" != msgrate ] || return 0
         local cc=; [ "$1" = raw ] || cc=${SKIFF_TCP_CC:-reno}
         ip netns exec "$H2" env RAW_TCP_CC="$cc" taskset -c 1 timeout ${TIMEOUT:-300} "$OUT/raw_tcp_probe" server 47011 &
         local srv=$!
         ip netns exec "$H1" env RAW_TCP_CC="$cc" RAW_TCP_ITERS="${ITERS:-}" taskset -c 0 timeout ${TIMEOUT:-300} "$OUT/raw_tcp_probe" client "$A2" 47011 "$2" "$3"
         local rc=$?
         wait $srv
         return $rc ;;
    esac
}
: >"$OUT/raw"
for rep in $(seq "$REPS"); do
    for mode in $MODES; do
        sizes=$([ $mode = latency ] && echo $LAT || { [ $mode = bw ] && echo $BW || echo 8; })
        [ "$PROG" != mpi_rma ] || sizes=${RMA_SIZES:-8}
        for impl in $IMPLS; do
            # mpi_rma (the suite's driver) prints "@ bench size ranks metric value"
            run $impl $mode "$sizes" 2>>"$OUT/err" |
                sed -E 's/^@ ([^ ]+) ([0-9]+) [0-9]+ ([^ ]+) ([^ ]+)$/\1,\2,\4,\3/' |
                sed "s/^/$impl,/" >>"$OUT/raw" || echo "$impl $mode failed" >>"$OUT/err"
        done
    done
done
echo "impl,bench,size,median,unit (n=$REPS)  raw: $OUT/raw"
python3 - "$OUT/raw" <<'PY'
import collections, sys
vals, unit = collections.defaultdict(list), {}
for line in open(sys.argv[1]):
    f = line.strip().split(",")
    if len(f) == 5:
        k = (f[1], int(f[2]), f[0])
        vals[k].append(float(f[3]))
        unit[k] = f[4]
for k in sorted(vals):
    v = sorted(vals[k])
    print(f"{k[2]},{k[0]},{k[1]},{v[len(v) // 2]:g} [{v[0]:g}-{v[-1]:g}],{unit[k]}")
PY
