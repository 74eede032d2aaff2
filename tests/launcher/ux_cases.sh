#!/bin/bash
# What users bring from other launchers, and the launcher's own diagnostics:
#   ux_cases.sh CASE SKIFFRUN HELPER LOCAL_AGENT
# Each case checks exit status, stdout and stderr; nothing asserts on time.
set -u
CASE=$1 R=$2 H=$3 AGENT=$4
T=$(mktemp -d /tmp/skiffrun-ux.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/../common/cases_lib.sh" || exit 1

expect_out_count() {
    local n
    n=$(grep -Ec -- "$1" "$T/out")
    [ "$n" = "$2" ] || fail "stdout has $n lines matching /$1/, expected $2"
}
# An agent that notes the host of every rank it starts, then runs it here.
cat >"$T/agent" <<AGENT
#!/bin/sh
echo "\$1" >>"$T/hosts-started"
exec "$AGENT" "\$@"
AGENT
chmod +x "$T/agent"
remote() { run "$R" --launch-agent "$T/agent {host}" --launcher-addr 127.0.0.1 "$@"; }

case "$CASE" in
pmi-flood) # strangers knocking at the PMI-over-TCP port: a few lines, then a count
    cat >"$T/flood" <<'FLOOD'
#!/bin/bash
[ "$PMI_RANK" = 0 ] || exit 0
host=${PMI_PORT%:*} port=${PMI_PORT##*:}
for i in $(seq "$1"); do # each waits until the launcher has dropped it
    exec 3<>"/dev/tcp/$host/$port" || exit 3
    echo garbage >&3
    cat <&3 >/dev/null
    exec 3<&-
done
FLOOD
    chmod +x "$T/flood"
    remote --hosts a:1,b:1 "$T/flood" 200
    expect_rc 0
    [ "$(grep -c 'PMI connection from .* dropped' "$T/err")" = 5 ] || fail "expected 5 drops shown"
    expect_err "dropped: expected 'cmd=skiff_hello rank=R nonce=HEX' first \(further drops are counted, not shown\)$"
    expect_err "^skiffrun: 200 PMI connections dropped \(the first 5 shown; the last from 127\.0\.0\.1:[0-9]+: expected"
    expect_err_lines 8 # 5 shown, the counts at 10 and 100, the last count
    ;;
ppn) # -ppn: on one host it is the rank count; with hosts, ranks per host
    run "$R" -ppn 3 "$H" env PMI_SIZE
    expect_rc 0
    expect_out_count '^rank [0-2] PMI_SIZE=3$' 3
    run "$R" -n 5 -ppn 2 "$H" env PMI_SIZE # one host: all 5 here
    expect_rc 0
    expect_out_count '^rank [0-4] PMI_SIZE=5$' 5
    remote --hosts a:5,b -ppn 2 "$H" env PMI_SIZE # slots replaced: 2 each
    expect_rc 0
    expect_out_count '^rank [0-3] PMI_SIZE=4$' 4
    [ "$(sort "$T/hosts-started" | uniq -c | awk '{print $2 $1}' | tr '\n' ' ')" = "a2 b2 " ] ||
        fail "ranks per host: $(sort "$T/hosts-started" | uniq -c | tr '\n' ' ')"
    rm -f "$T/hosts-started"
    remote -perhost 1 --hosts a,b,c -n 5 "$H" env PMI_SIZE # 1 per host, wrapping around
    expect_rc 0
    [ "$(sort "$T/hosts-started" | uniq -c | awk '{print $2 $1}' | tr '\n' ' ')" = "a2 b2 c1 " ] ||
        fail "ranks per host: $(sort "$T/hosts-started" | uniq -c | tr '\n' ' ')"
    run "$R" -ppn 0 true
    expect_rc 2
    expect_err "^skiffrun: -ppn 0: the rank count must be between 1"
    ;;
tag-l) # -l is hydra's --tag-output
    run "$R" -l -n 3 "$H" env PMI_RANK
    expect_rc 0
    expect_out_count '^\[([0-2])\] rank \1 PMI_RANK=\1$' 3
    ;;
genvall) # ranks always get the whole environment: accepted, and true
    export UX_CHECK=inherited
    run "$R" -genvall -envall -n 2 "$H" env UX_CHECK
    expect_rc 0
    expect_out_count '^rank [01] UX_CHECK=inherited$' 2
    ;;
wdir) # -wdir/--wdir/-wd: where the ranks start, and where ./prog is found
    mkdir -p "$T/work dir"
    cp "$H" "$T/work dir/prog"
    for opt in -wdir --wdir -wd; do
        run "$R" -n 2 "$opt" "$T/work dir" sh -c 'echo "rank $PMI_RANK in $(pwd)"'
        expect_rc 0
        expect_out_count "^rank [01] in $T/work dir\$" 2
    done
    (cd "$T" && "$R" -n 2 --wdir="work dir" ./prog env PMI_RANK) >"$T/out" 2>"$T/err"
    RC=$?
    expect_rc 0
    expect_out_count '^rank [01] PMI_RANK=[01]$' 2
    remote --hosts a:1,b:1 -wdir "$T/work dir" sh -c 'echo "rank $PMI_RANK in $(pwd)"'
    expect_rc 0
    expect_out_count "^rank [01] in $T/work dir\$" 2
    run "$R" -wdir "$T/none" true
    expect_rc 2
    expect_err "^skiffrun: -wdir '$T/none': No such file or directory"
    run "$R" -wdir "$H" true
    expect_rc 2
    expect_err "not a directory"
    ;;
hint) # the program is here but named without ./ (PATH does not hold .)
    mkdir "$T/here"
    cp "$H" "$T/here/myprog"
    (cd "$T/here" && PATH=/usr/bin:/bin "$R" -n 2 myprog env PMI_RANK) >"$T/out" 2>"$T/err"
    RC=$?
    expect_rc 2
    expect_err_lines 1
    expect_err "^skiffrun: cannot run 'myprog': command not found in PATH; there is \./myprog in the current directory: run it as \./myprog$"
    run "$R" -wdir "$T/here" myprog
    expect_rc 2
    expect_err "there is \./myprog in $T/here"
    # a match in PATH that is not executable is named; an entry that is a file, not a
    # directory, is passed over (as a directory this user cannot search would be)
    mkdir "$T/noexec"
    cp "$H" "$T/noexec/myprog"
    chmod a-x "$T/noexec/myprog"
    (cd / && PATH="$T/here/myprog:$T/noexec:/usr/bin" "$R" -n 1 myprog) >"$T/out" 2>"$T/err"
    RC=$?
    expect_rc 2
    expect_err "^skiffrun: cannot run 'myprog': found in PATH \($T/noexec/myprog\) but not executable$"
    (cd / && PATH="$T/here/myprog:/usr/bin" "$R" -n 1 myprog) >"$T/out" 2>"$T/err"
    RC=$?
    expect_rc 2
    expect_err "^skiffrun: cannot run 'myprog': command not found in PATH$"
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
