#!/usr/bin/env bash
# demo.sh <builddir> — run Skiff's demo programs under the project's launcher.
#
# Each `step` prints a header, runs one program and stops the demo if it fails.
# To add a demo, add one `step "title" command...` line at the end.
set -euo pipefail

BUILD=${1:-build}
BIN="$BUILD/bin"
RUN="$BIN/skiffrun"
NP=${NP:-4}

if [[ ! -x "$RUN" ]]; then
    echo "demo: $RUN not found; build first (make)" >&2
    exit 1
fi

step_no=0
step() {
    local title=$1
    shift
    step_no=$((step_no + 1))
    printf '\n=== %d. %s\n$ %s\n' "$step_no" "$title" "$*"
    local status=0
    "$@" || status=$?
    if ((status != 0)); then
        echo "demo: step $step_no ($title) failed with exit status $status" >&2
        exit "$status"
    fi
}

step "PMI ring: $NP ranks exchange host and pid, then pass a token around" \
    "$RUN" -n "$NP" "$BIN/pmi_ring"

step "MPI hello: every rank reports to rank 0" "$RUN" -n "$NP" "$BIN/hello"
step "MPI ring: a token goes around $NP ranks ten times" "$RUN" -n "$NP" "$BIN/ring"
step "MPI ping-pong: 1 B to 4 MiB between two ranks, every byte checked" "$RUN" -n 2 "$BIN/pingpong"
step "MPI pi (the ULFM paper's example) on $NP ranks" "$RUN" -n "$NP" "$BIN/pi"
step "One-sided work counter: $NP ranks claim tasks with MPI_Fetch_and_op, each done once" \
    "$RUN" -n "$NP" "$BIN/rma_counter"
step "One-sided halo exchange: MPI_Put + MPI_Win_fence on $NP ranks, checked against serial" \
    "$RUN" -n "$NP" "$BIN/rma_halo"

step "OpenSHMEM pi: $NP PEs put their parts into PE 0's symmetric array, then a sum reduction" \
    "$BIN/oshrun" -n "$NP" "$BIN/shmem_pi"
step "OpenSHMEM 2-D stencil: halo rows by put-with-signal on $NP PEs, checked bit for bit against serial" \
    "$BIN/oshrun" -n "$NP" "$BIN/shmem_stencil"

printf '\ndemo: every step passed (%d)\n' "$step_no"
