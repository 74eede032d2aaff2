#!/bin/bash
# strangers.sh SKIFFRUN DYN_PORTS: while a server job of 2 ranks waits in
# MPI_Comm_accept, something that is not an MPI process connects to every
# TCP port its processes (launcher and ranks) listen on and sends what a
# stranger on the network could: nothing, a frame too large for a hello, data
# before a hello, a hello naming a process nobody knows (then messages), bytes
# of garbage.  Then a client job joins as in ports_two_jobs.sh: both jobs
# must finish with status 0, their data right.  Skipped without `ss`.
set -u
run=$1
prog=$2
command -v ss >/dev/null || { echo "strangers: no ss (iproute2): skipped"; exit 77; }
dir=$(mktemp -d)
trap 'kill $srv 2>/dev/null; rm -rf "$dir"' EXIT
export SKIFF_NAME_DIR="$dir"
"$run" -n 2 "$prog" server 2> "$dir/server.err" &
srv=$!
# the server's port is published once both ranks are in MPI_Comm_accept
for _ in $(seq 1 200); do
    [ -n "$(ls "$dir" 2>/dev/null | grep -v server.err)" ] && break
    sleep 0.05
done
pids=" $srv $(pgrep -P $srv | tr '\n' ' ') "
ports=$(ss -ltnpH 2>/dev/null | while read -r _ _ _ local _ users; do
    for p in $(echo "$users" | grep -o 'pid=[0-9]*' | cut -d= -f2); do
        case "$pids" in *" $p "*) echo "${local##*:}";; esac
    done
done | sort -u)
[ -n "$ports" ] || { echo "strangers: found no listening port of the server job"; exit 1; }
send() { # send PORT PRINTF-FORMAT: one connection, these bytes, then close
    exec 3<>"/dev/tcp/127.0.0.1/$1" 2>/dev/null || return 0
    printf "$2" >&3 2>/dev/null
    exec 3>&-
}
for port in $ports; do
    send "$port" ''                                     # connect, close
    send "$port" '\xff\xff\xff\x7fH'                    # a "hello" of 2 GiB
    send "$port" '\x05\x00\x00\x00Mabcd'                # a message before any hello
    send "$port" '\x1d\x00\x00\x00H10.9.9.9:9:0123abcd:0:xyz\x00\x05\x00\x00\x00Mabcd'
    send "$port" 'GET / HTTP/1.0\r\n\r\n'               # garbage
done
echo "strangers: sent to ports $ports" | tr '\n' ' '; echo
"$run" -n 3 "$prog" client
crc=$?
wait $srv
src=$?
srv=
echo "server $src client $crc"
cat "$dir/server.err" >&2
test $src -eq 0 && test $crc -eq 0
