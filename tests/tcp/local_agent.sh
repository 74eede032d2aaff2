#!/bin/sh
# local_agent.sh HOST WORDS... — a launch agent for tests without root: it
# ignores HOST and runs the words here.  With it, skiffrun --hosts a:2,b:2
# makes "hosts" a and b on this machine: different nodes for the mapping, so
# ranks on a and b talk over tcp (loopback) and reach the launcher over
# PMI_PORT with the job-key check, exactly as on real remote hosts.
shift
exec "$@"
