#!/usr/bin/env bash
# fuzz/run.sh [seconds] — fuzz Skiff's tcp/PMI parsers for a short while.
# With clang (Debian: clang libclang-rt-14-dev): libFuzzer + ASan/UBSan on
# tcp_parsers_fuzz.c (corpus in
# fuzz/corpus-tcp, kept out of git).  Without clang: the standalone driver
# (also run by ctest as tcp_parsers_fuzz).  Exit status != 0 on a finding.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
out=${TMPDIR:-/tmp}/skiff-fuzz
mkdir -p "$out" fuzz/corpus-tcp
src="fuzz/tcp_parsers_fuzz.c src/transports/tcp/frame.c src/transports/tcp/auth.c src/common/pmi_wire.c"
inc="-Isrc -Isrc/common -D_GNU_SOURCE"
if command -v clang >/dev/null; then
    clang -g -O1 -fsanitize=fuzzer,address,undefined $inc $src -lcrypto -o "$out/tcp_parsers_fuzz"
    "$out/tcp_parsers_fuzz" -max_total_time="$secs" -max_len=8192 fuzz/corpus-tcp
else
    cc -g -O1 -fsanitize=address,undefined $inc $src fuzz/fuzz_driver.c -lcrypto -o "$out/tcp_parsers_fuzz_run"
    timeout "$((secs + 30))" "$out/tcp_parsers_fuzz_run" $((secs * 100000)) "$RANDOM"
fi
