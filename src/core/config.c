#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keep sorted by layer, then name.  Each row: name, default, meaning. */
const skf_param_t skf_params[] = {
    /* boot reads SKIFF_JOB_KEY and SKIFF_VERBOSE with getenv: it stands alone */
    {"SKIFF_JOB_KEY", "(random)", "job key (1-32 hex digits) set by skiffrun; names shm objects"},
    {"SKIFF_VERBOSE", "0", "1: print transport choices and fallbacks to stderr at start-up"},
    {"SKIFF_CMA", "1", "0: never use CMA (process_vm_readv/writev) for skf_get/put; copy through the rings"},
    {"SKIFF_SPIN", "auto", "polls before a waiter yields/sleeps (auto: 20000, or 4 when ranks > cores; -1: none)"},
    {"SKIFF_YIELDS", "auto", "sched_yield rounds before a waiter sleeps (auto: 0, or 1 when ranks > cores; -1: none)"},
    {"SKIFF_SHM_RING_SIZE", "256K", "bytes per shm receive ring (power of two; a message takes at most 1/4)"},
    {"SKIFF_SHM_DEDICATED_MAX", "8", "dedicated rings per receiver (0..63); all peers get one at open if fewer"},
    {"SKIFF_SHM_MEMBARRIER", "1", "0: shm senders fence every message instead of sleeping receivers issuing membarrier"},
    {"SKIFF_SHM_DEDICATED_AFTER", "64", "messages a sender puts on the shared ring before it gets a dedicated one"},
    {"SKIFF_TRANSPORTS", "auto", "auto: shm on a node, tcp between nodes; tcp: tcp for every peer (testing); shm: this node only"},
    {"SKIFF_TCP_IF", "auto", "tcp: interface name or IPv4 address to publish (auto: the one that reaches the launcher)"},
    {"SKIFF_TCP_BUF", "1M", "tcp: bytes of each connection's receive and send ring (power of two; a message takes at most 1/4)"},
    {"SKIFF_TCP_CC", "reno", "tcp: congestion control of Skiff's sockets (TCP_CONGESTION; system: leave the system's default)"},
    {"SKIFF_TCP_TIMEOUT", "10000", "tcp: ms before a silent or unreachable peer counts as gone (keepalive, user timeout, handshake)"},
    {"SKIFF_MPI_EAGER_MAX", "8K",
     "MPI: largest payload sent eagerly (copied through the ring); larger ones use rendezvous"},
    {"SKIFF_MPI_RNDV_SPLIT", "256K",
     "MPI: from this size a same-node rendezvous is copied by both ranks (receiver reads half, sender writes half; 0: off)"},
    {"SKIFF_MPI_EAGER_MAX_TCP", "64K",
     "MPI: largest payload sent eagerly to a rank reached over tcp (SKIFF_MPI_EAGER_MAX is for ranks on this node)"},
    {"SKIFF_MPI_RNDV_STREAM", "256K",
     "MPI: a rendezvous up to this size to a rank reached over tcp streams the data after the match (RTS, W_GO, data) instead of a get; larger ones use gets, queued so several are in flight (0: always gets)"},
    {"SKIFF_MPI_DTYPE_EAGER_MAX", "64K",
     "MPI: largest derived-type message sent eagerly (packed chunk by chunk into the ring while the receiver unpacks); larger ones use rendezvous"},
    {"SKIFF_MPI_DTYPE_IOV_MIN", "1K",
     "MPI: an eager send of a derived type goes out as an iovec of its pieces (no packing) when they average this size"},
    {"SKIFF_MPI_DTYPE_PULL_MIN", "4K",
     "MPI: a rendezvous into a derived type gets the data straight into its pieces when they average this size"},
    {"SKIFF_COLL_HIER", "1", "MPI collectives: 0 turns off the two-level path for communicators spanning nodes (barrier, bcast, allreduce: node path inside nodes, point-to-point among node leaders)"},
    {"SKIFF_COLL_NODE", "1", "MPI collectives: 0 turns off the node shared-memory path (barrier, bcast, reduce, allreduce, allgather, alltoall)"},
    {"SKIFF_COLL_NODE_MAX", "64K", "MPI collectives: largest message sent through the node shared-memory path (halved while ranks x 4 slots pass 4 MiB)"},
    {"SKIFF_COLL_NODE_ALLREDUCE_MAX", "0", "MPI_Allreduce: vectors longer than SKIFF_COLL_NODE_MAX and up to this go through shared memory in chunks (0: off; measured slower than Rabenseifner over CMA at 2 and 4 ranks)"},
    {"SKIFF_COLL_BCAST_LONG", "128K", "MPI_Bcast: binomial tree below, scatter + ring allgather from this size (> 2 ranks)"},
    {"SKIFF_COLL_ALLREDUCE_LONG", "16K", "MPI_Allreduce: recursive doubling below, Rabenseifner from this size (commutative ops)"},
    {"SKIFF_COLL_ALLGATHER_LONG", "256K", "MPI_Allgather: recursive doubling / Bruck below this total size, ring above"},
    {"SKIFF_COLL_ALLTOALL_SHORT", "256", "MPI_Alltoall: Bruck below this block size (> 2 ranks), pairwise exchange above"},
    {"SKIFF_CC", "(configure-time C compiler)", "mpicc: the C compiler it runs"},
    {"SKIFF_CXX", "(configure-time C++ compiler)", "mpicxx: the C++ compiler it runs"},
};
const int skf_nparams = (int)(sizeof skf_params / sizeof skf_params[0]);

static const skf_param_t *find_param(const char *name)
{
    for (int i = 0; i < skf_nparams; i++)
        if (strcmp(skf_params[i].name, name) == 0)
            return &skf_params[i];
    fprintf(stderr, "skiff: internal error: unknown parameter %s\n", name);
    abort();
}

const char *skf_param_str(const char *name)
{
    const skf_param_t *p = find_param(name);
    const char *v = getenv(name);
    return (v && *v) ? v : p->def;
}

static int parse_ll(const char *s, long long *out)
{
    char *end;
    long long v = strtoll(s, &end, 0);
    if (end == s)
        return -1;
    switch (*end) {
    case 'k': case 'K': v <<= 10; end++; break;
    case 'm': case 'M': v <<= 20; end++; break;
    case 'g': case 'G': v <<= 30; end++; break;
    default: break;
    }
    if (*end)
        return -1;
    *out = v;
    return 0;
}

long long skf_param_ll(const char *name)
{
    const skf_param_t *p = find_param(name);
    const char *v = getenv(name);
    long long out = 0;
    if (v && *v) {
        if (parse_ll(v, &out) == 0)
            return out;
        fprintf(stderr, "skiff: ignoring %s=%s (not a number); using the default %s\n", name, v,
                p->def);
    }
    if (parse_ll(p->def, &out) != 0)
        return 0; /* non-numeric default such as "auto": callers treat 0 as "choose" */
    return out;
}
