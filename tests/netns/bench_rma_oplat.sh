#!/usr/bin/env bash
# bench_rma_oplat.sh BUILD_DIR [REPS] — bench/mpi_rma_oplat.c (percentiles of
# single one-sided operations, rank 1 waiting inside MPI) across two
# namespaced hosts, one rank each, interleaved REPS times (default 3):
# Skiff (skiffrun --hosts), BASE=<builddir> another Skiff build, and MPICH
# (mpiexec.mpich, UCX_TLS=tcp,self) launched as in bench_netns.sh.
# OPS (default "get fop cas acc"), ITERS (5000).  Prints impl,op,p10,p50,p90.
set -eu
B=$(cd "$1" && pwd)
REPS=${2:-3}
SRC=$(cd "$(dirname "$0")/../../bench" && pwd)
. "$(dirname "$0")/netns-lib.sh"
netns_skip_unless_able
netns_up 2
H1=${NETNS_PREFIX}h1 H2=${NETNS_PREFIX}h2
A1=$(netns_addr 1) A2=$(netns_addr 2)
OUT=${OUT:-$(mktemp -d /tmp/skiff-oplat.XXXXXX)}
mkdir -p "$OUT"
"$B/bin/mpicc" -O2 -o "$OUT/ol_skiff" "$SRC/mpi_rma_oplat.c"
mpicc.mpich -O2 -w -o "$OUT/ol_mpich" "$SRC/mpi_rma_oplat.c"
IMPLS="skiff mpich"
[ -z "${BASE:-}" ] || { "$BASE/bin/mpicc" -O2 -o "$OUT/ol_base" "$SRC/mpi_rma_oplat.c"; IMPLS="base $IMPLS"; }
cat >"$OUT/agent" <<WRAP
#!/bin/sh
while [ "\${1#-}" != "\$1" ]; do shift; done
case \$1 in $A1) ns=$H1;; *) ns=$H2;; esac
shift
exec ip netns exec \$ns sh -c "\$*"
WRAP
chmod +x "$OUT/agent"
run() { # impl op
    case $1 in
    base|skiff) local b=$B; [ "$1" = skiff ] || b=$BASE
        timeout 120 "$b/bin/skiffrun" --hosts "$H1,$H2" --launch-agent 'ip netns exec {host}' \
            --launcher-addr "$(netns_launcher_addr)" "$OUT/ol_$1" "$2" "${ITERS:-5000}" ;;
    mpich) timeout 120 ip netns exec "$H1" mpiexec.mpich -launcher ssh -launcher-exec "$OUT/agent" \
            -hosts "$A1,$A2" -ppn 1 -n 2 -genv UCX_TLS tcp,self "$OUT/ol_mpich" "$2" "${ITERS:-5000}" ;;
    esac
}
for rep in $(seq "$REPS"); do
    for op in ${OPS:-get fop cas acc}; do
        for impl in $IMPLS; do
            line=$(run "$impl" "$op" 2>>"$OUT/err" | tail -1) || line="$op,failed"
            echo "$impl,$line" | tee -a "$OUT/raw"
        done
    done
done
