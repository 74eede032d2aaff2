#!/bin/bash
# ring_auto.sh SKIFFRUN PROGRAM NP [SKIFF_INFO] — the automatic shm ring sizes
# (docs/shm-transport.md, "Ring size") are the ones this machine's L2 asks for:
# MPI's rings 2 x L2 within 256K..2M and bulk rings 4 x L2 within 1M..4M on a
# node of at most 4 ranks, 256K and no bulk rings above that; 2M / 4M when
# sysfs does not tell the L2.  Read from the ranks' SKIFF_VERBOSE lines of
# the MPI port (port 1) of a real job; with SKIFF_INFO, skiff-info must print
# the same numbers.
set -u
R=$1 P=$2 NP=$3 INFO=${4:-}
fail() { echo "FAIL [ring_auto np$NP]: $*" >&2; exit 1; }

l2=0
for d in /sys/devices/system/cpu/cpu0/cache/index*; do
    [ "$(cat "$d/level" 2>/dev/null)" = 2 ] || continue
    case $(cat "$d/type" 2>/dev/null) in Instruction | "") continue ;; esac
    s=$(cat "$d/size")
    case $s in *K) l2=$((${s%K} << 10)) ;; *M) l2=$((${s%M} << 20)) ;; *) l2=$s ;; esac
    break
done
pow2_clamp() { # v lo hi
    local p=$2
    while [ "$p" -lt "$3" ] && [ $((p * 2)) -le "$1" ]; do p=$((p * 2)); done
    echo "$p"
}
if [ "$l2" -gt 0 ]; then
    ring=$(pow2_clamp $((2 * l2)) $((256 << 10)) $((2 << 20)))
    bulk=$(pow2_clamp $((4 * l2)) $((1 << 20)) $((4 << 20)))
else
    ring=$((2 << 20)) bulk=$((4 << 20))
fi
echo "L2 $l2 bytes: expect MPI rings $ring, bulk rings $bulk (np <= 4)"
want_ring=$ring want_nbulk=$NP
if [ "$NP" -gt 4 ]; then want_ring=$((256 << 10)) want_nbulk=0; fi

out=$(SKIFF_VERBOSE=1 "$R" -n "$NP" "$P" 2>&1) || fail "job failed: $out"
# the launcher folds the ranks' equal lines into one ("ranks 0-1: port 1: ...")
lines=$(printf '%s\n' "$out" | grep -E 'ranks? [0-9-]+: port 1: shm segment')
[ -n "$lines" ] || fail "no MPI-port segment line: $out"
printf '%s\n' "$lines" | while read -r l; do
    case $l in
    *"rings of $want_ring bytes + 1 shared"*) ;;
    *) fail "want rings of $want_ring bytes: $l" ;;
    esac
    if [ "$want_nbulk" -gt 0 ]; then
        case $l in *"$want_nbulk bulk rings of $bulk bytes"*) ;; *) fail "want $want_nbulk bulk rings of $bulk bytes: $l" ;; esac
    else
        case $l in *" 0 bulk rings"*) ;; *) fail "want no bulk rings: $l" ;; esac
    fi
done || exit 1

if [ -n "$INFO" ]; then
    info=$("$INFO") || fail "skiff-info failed"
    printf '%s\n' "$info" | grep -Eq "MPI's on a node of <= 4 ranks: $((ring >> 10)) KiB|shm ring +$((ring >> 10)) KiB each \(" ||
        fail "skiff-info does not say MPI rings of $((ring >> 10)) KiB: $(printf '%s\n' "$info" | grep 'shm ring')"
    printf '%s\n' "$info" | grep -Eq "shm bulk ring +$((bulk >> 10)) KiB per pair" ||
        fail "skiff-info does not say bulk rings of $((bulk >> 10)) KiB: $(printf '%s\n' "$info" | grep 'bulk ring')"
fi
echo "ok: np $NP"
