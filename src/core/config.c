/* config — the table of every SKIFF_* variable and the checks of their values. */
#include "core/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/utsname.h>
#include <unistd.h>

#define KI (1LL << 10)
#define MI (1LL << 20)
#define GI (1LL << 30)
#define ANY_SIZE (1LL << 40) /* thresholds: beyond any message a job sends */

/* The last fields of a row: what the variable accepts. */
#define NUM(lo, hi) SKF_PARAM_NUM, NULL, (lo), (hi), 0, NULL
#define NUM_OR_AUTO(lo, hi) SKF_PARAM_NUM, WORDS("auto"), (lo), (hi), 0, NULL
#define POW2(lo, hi) SKF_PARAM_NUM, NULL, (lo), (hi), 1, NULL
#define POW2_OR_AUTO(lo, hi) SKF_PARAM_NUM, WORDS("auto"), (lo), (hi), 1, NULL
#define FLAG NUM(0, 1)
#define ONE_OF(...) SKF_PARAM_WORD, WORDS(__VA_ARGS__), 0, 0, 0, NULL
#define TEXT(check) SKF_PARAM_TEXT, NULL, 0, 0, 0, (check)
#define WORDS(...) ((const char *const[]){__VA_ARGS__, NULL})

static int check_tcp_if(const char *v, char *why, size_t cap);
static int check_tcp_cc(const char *v, char *why, size_t cap);

/* Keep sorted by layer, then name.  Each row: name, default, meaning, what it
 * accepts (a row without the last part accepts any text). */
const skf_param_t skf_params[] = {
    /* boot reads SKIFF_JOB_KEY, SKIFF_PMI and SKIFF_VERBOSE with getenv: it stands alone */
    {"SKIFF_PMI", "(from the environment)", "force the PMI client: pmi1, pmi2, pmix or singleton (docs/boot.md)",
     TEXT(NULL)}, /* boot checks it */
    {"SKIFF_JOB_KEY", "(random)", "job key (1-32 hex digits) set by skiffrun; authenticates tcp and remote PMI (shm object names carry only a tag derived from it)",
     TEXT(NULL)}, /* boot checks it */
    {"SKIFF_VERBOSE", "0", "1: print transport choices and fallbacks to stderr at start-up",
     NUM(0, 9)},
    {"SKIFF_CMA", "1", "0: never use CMA (process_vm_readv/writev) for skf_get/put; copy through the rings",
     FLAG},
    {"SKIFF_COPY", "auto", "payload copies into and out of shared memory: auto (memcpy, or on AMD cores a vector loop when source and destination sit at different offsets in a cache line, where rep movsb can collapse; pieces of 4 KiB and more go into a ring with streaming stores while the sender measures those clearly faster, as when the receiver's core shares no cache with it: docs/shm-transport.md), cached (the same, never streaming), stream (streaming always from 4 KiB), libc (memcpy always)",
     ONE_OF("auto", "cached", "stream", "libc")},
    {"SKIFF_SPIN", "auto", "polls before a waiter yields/sleeps (auto: 20000, or 4 when ranks > cores; -1: none)",
     NUM_OR_AUTO(-1, 1LL << 30)},
    {"SKIFF_YIELDS", "auto", "sched_yield rounds before a waiter sleeps (auto: 0, or 1 when ranks > cores; -1: none)",
     NUM_OR_AUTO(-1, 1000000)},
    {"SKIFF_SHM_OBJECTS", "auto", "shared memory: memfd (opened by peers through /proc/<pid>/fd; never in /dev/shm), dev-shm (named objects in /dev/shm), auto: memfd when peers can open it, else dev-shm",
     ONE_OF("auto", "memfd", "dev-shm")},
    {"SKIFF_SHM_RING_SIZE", "auto", "bytes per shm receive ring (power of two; a message takes at most 1/4); auto: 2 x a core's L2 within 256K..2M (2M when the L2 is unknown) for MPI traffic on a node of at most 4 ranks (larger than the L2, so a sender writes lines the receiver's cache no longer holds: docs/shm-transport.md), else 256K, halved until the segment fits 3/4 of the free shared memory",
     POW2_OR_AUTO(4 * KI, GI)},
    {"SKIFF_SHM_DEDICATED_MAX", "8", "dedicated rings per receiver (0..63); all peers get one at open if fewer",
     NUM(0, 63)},
    {"SKIFF_SHM_BULK_SIZE", "auto", "bytes of each bulk ring: one per pair of ranks on a node, for large MPI messages streamed in SKIFF_MPI_BULK_CHUNK pieces (power of two; a message takes at most 1/4); auto: 4 x a core's L2 within 1M..4M (4M when the L2 is unknown: docs/shm-transport.md)",
     POW2_OR_AUTO(64 * KI, GI)},
    {"SKIFF_SHM_BULK_RANKS", "4", "bulk rings (SKIFF_SHM_BULK_SIZE each, one per pair) only on nodes with at most this many ranks of the job (0: never)",
     NUM(0, 63)},
    {"SKIFF_SHM_DEMOTE", "auto",
     "largest message (bytes) whose ring lines a sender pushes out of its private caches (cldemote) when it next waits, so the receiver reads them from the shared L3: auto: 16K on cores with cldemote, else 0 (0: never; docs/shm-transport.md \"Demoting the last message\")",
     NUM_OR_AUTO(0, GI)},
    {"SKIFF_SHM_OWN_NEXT", "auto",
     "bytes of ring lines a waiting sender takes ownership of (prefetchw) where its next message will go, at most the last message's size, so that message's stores need no line transfers: auto: 16K on Intel cores, else 0 (0: never; docs/shm-transport.md \"Owning the next lines\")",
     NUM_OR_AUTO(0, 64 * MI)},
    {"SKIFF_SHM_MEMBARRIER", "1", "0: shm senders fence every message instead of sleeping receivers issuing membarrier",
     FLAG},
    {"SKIFF_SHM_DEDICATED_AFTER", "64", "messages a sender puts on the shared ring before it gets a dedicated one",
     NUM(1, ANY_SIZE)},
    {"SKIFF_TRANSPORTS", "auto", "auto (= shm,tcp): shm on a node, tcp between nodes; shm,ofi: shm on a node, libfabric between nodes; tcp / ofi: that one for every peer (testing); shm: this node only",
     ONE_OF("auto", "shm,tcp", "shm,ofi", "tcp", "ofi", "shm")},
    {"SKIFF_OFI_PROVIDER", "auto", "ofi: the libfabric provider (e.g. tcp;ofi_rxm, udp;ofi_rxd, shm, verbs;ofi_rxm, efa, cxi; auto: libfabric's first with reliable datagrams, messages and tags)",
     TEXT(NULL)},
    {"SKIFF_OFI_CQ_FD", "0", "ofi: 1: a channel's completion queue gets a wait descriptor even when the rank has a core of its own (it polls; without one it saves a system call's worth per message on tcp;ofi_rxm); oversubscribed ranks always have one",
     NUM(0, 1)},
    {"SKIFF_OFI_RMA", "1", "ofi: 1: gets are fi_read from the owner's registered exposure when the provider offers FI_RMA with user keys; 0: every get is answered by the owner's service thread",
     NUM(0, 1)},
    {"SKIFF_TCP_IF", "auto", "tcp: interface name or IPv4 address to publish (auto: the one that reaches the launcher)",
     TEXT(check_tcp_if)},
    {"SKIFF_TCP_BUF", "1M", "tcp: bytes of each connection's receive and send ring (power of two, at least 16K; a message takes at most 1/4; 0: TCP only)",
     POW2(0, GI)},
    {"SKIFF_TCP_CC", "reno", "tcp: congestion control of Skiff's sockets (TCP_CONGESTION; system: leave the system's default)",
     TEXT(check_tcp_cc)},
    {"SKIFF_TCP_SPIN_US", "100", "tcp: longest busy-poll (microseconds) of a wait before it sleeps in epoll_wait, whatever SKIFF_SPIN says (0: SKIFF_SPIN alone; docs/tcp.md)",
     NUM(0, 1000000)},
    {"SKIFF_TCP_SERVE_SPIN", "0", "tcp: microseconds the one-sided service thread polls for the next request after serving one before it sleeps (0: sleep at once; helps only with a core to spare, docs/tcp.md)",
     NUM(0, 1000000)},
    {"SKIFF_TCP_TIMEOUT", "10000", "tcp: ms before a silent or unreachable peer counts as gone (keepalive, user timeout, handshake)",
     NUM(100, 3600000)},
    {"SKIFF_TCP_HS_PATIENT", "8", "tcp: accepted handshakes that may wait past SKIFF_TCP_TIMEOUT for a peer computing outside MPI; while more are pending, those past it are dropped (a flood of silent strangers stays bounded; docs/tcp.md \"Slow peers\")",
     NUM(0, 1000000)},
    {"SKIFF_MPI_EAGER_MAX", "256K",
     "MPI: largest payload sent eagerly (copied through the ring, in SKIFF_MPI_PIPE_CHUNK pieces to a node mate); larger ones use rendezvous",
     NUM(0, GI)},
    {"SKIFF_MPI_PIPE_CHUNK", "16K",
     "MPI: an eager or streamed payload to a rank on this node larger than this goes into the ring in pieces of this size, so the receiver copies one piece out while the sender copies the next in (0: as large as the ring takes)",
     NUM(0, GI)},
    {"SKIFF_MPI_BULK_MAX", "auto",
     "MPI: a contiguous message to a rank on this node above SKIFF_MPI_EAGER_MAX and up to this size streams through the pair's bulk ring (RTS, W_GO, then SKIFF_MPI_BULK_CHUNK pieces, both cores copying) instead of the CMA rendezvous (0: never; auto: 8M while the job's ranks on the node do not outnumber its CPUs, else 0: a stream needs both ranks running; docs/mpi.md \"Bulk rings\")",
     NUM_OR_AUTO(0, ANY_SIZE)},
    {"SKIFF_MPI_BULK_CHUNK", "32K",
     "MPI: piece size of a message streamed through a bulk ring (capped at a quarter of SKIFF_SHM_BULK_SIZE)",
     NUM(4 * KI, GI)},
    {"SKIFF_MPI_RNDV_SPLIT", "256K",
     "MPI: from this size a same-node rendezvous is copied by both ranks (receiver reads half, sender writes half; 0: off)",
     NUM(0, ANY_SIZE)},
    {"SKIFF_MPI_EAGER_MAX_TCP", "64K",
     "MPI: largest payload sent eagerly to a rank reached over tcp (SKIFF_MPI_EAGER_MAX is for ranks on this node)",
     NUM(0, GI)},
    {"SKIFF_MPI_RNDV_STREAM", "256K",
     "MPI: a rendezvous up to this size to a rank reached over tcp streams the data after the match (RTS, W_GO, data) instead of a get; larger ones use gets, queued so several are in flight (0: always gets)",
     NUM(0, ANY_SIZE)},
    {"SKIFF_MPI_RNDV_DIRECT", "1",
     "MPI: a contiguous rendezvous above SKIFF_MPI_RNDV_STREAM to a rank reached over tcp: 1: the sender pushes the data after the receiver's match (W_GO) straight from its buffer into the receive buffer (a direct payload, no ring); 0: the receiver gets it",
     NUM(0, 1)},
    {"SKIFF_MPI_DTYPE_EAGER_MAX", "64K",
     "MPI: largest derived-type message sent eagerly (packed chunk by chunk into the ring while the receiver unpacks); larger ones use rendezvous",
     NUM(0, GI)},
    {"SKIFF_MPI_DTYPE_IOV_MIN", "1K",
     "MPI: an eager send of a derived type goes out as an iovec of its pieces (no packing) when they average this size",
     NUM(0, ANY_SIZE)},
    {"SKIFF_MPI_DTYPE_PULL_MIN", "4K",
     "MPI: a rendezvous into a derived type gets the data straight into its pieces when they average this size",
     NUM(0, ANY_SIZE)},
    /* dynamic processes (src/mpi/dynproc, docs/dynamic-processes.md) read these with getenv */
    {"SKIFF_DYN_ADDR", "(first non-loopback IPv4, else 127.0.0.1)",
     "MPI dynamic processes: IPv4 address published in this process's endpoint and port names",
     TEXT(NULL)},
    {"SKIFF_DYN_SHM_RING", "1M",
     "MPI dynamic processes: bytes of the shared-memory ring carrying one direction between two processes of different jobs on one node (power of two, at least 16K; a message takes at most 1/4; 0: TCP only)",
     POW2(0, GI)},
    {"SKIFF_NAME_DIR", "($TMPDIR/skiff-names-<uid>)",
     "MPI_Publish_name/Lookup_name: directory of the name service (one file per service; shared directory across machines)",
     TEXT(NULL)},
    {"SKIFF_SKIFFRUN", "(<libdir>/../bin/skiffrun, else skiffrun in PATH)",
     "MPI_Comm_spawn: the launcher started for the children",
     TEXT(NULL)},
    {"SKIFF_PARENT_PORT", "(unset)", "set by MPI_Comm_spawn for the children: the parents' port (not for users)",
     TEXT(NULL)},
    {"SKIFF_APPNUM", "(unset)", "set by MPI_Comm_spawn_multiple for the children: their MPI_APPNUM (not for users)",
     TEXT(NULL)},
    {"SKIFF_COLL_HIER", "1", "MPI collectives: 0 turns off the two-level path for communicators spanning nodes (barrier, bcast, allreduce: node path inside nodes, point-to-point among node leaders)",
     FLAG},
    {"SKIFF_COLL_NODE", "1", "MPI collectives: 0 turns off the node shared-memory path (barrier, bcast, reduce, allreduce, allgather, alltoall)",
     FLAG},
    {"SKIFF_COLL_NODE_MAX", "64K", "MPI collectives: largest message sent through the node shared-memory path (halved while ranks x 4 slots pass 4 MiB)",
     NUM(0, 4 * MI)}, /* the segment budget: larger could never be used */
    {"SKIFF_COLL_NODE_ALLREDUCE_MAX", "0", "MPI_Allreduce: vectors longer than SKIFF_COLL_NODE_MAX and up to this go through shared memory in chunks (0: off; measured slower than Rabenseifner over CMA at 2 and 4 ranks)",
     NUM(0, ANY_SIZE)},
    {"SKIFF_COLL_BCAST_LONG", "128K", "MPI_Bcast: binomial tree below, scatter + ring allgather from this size (> 2 ranks)",
     NUM(0, ANY_SIZE)},
    {"SKIFF_COLL_ALLREDUCE_LONG", "16K", "MPI_Allreduce: recursive doubling below, Rabenseifner from this size (commutative ops)",
     NUM(0, ANY_SIZE)},
    {"SKIFF_COLL_ALLGATHER_LONG", "256K", "MPI_Allgather: recursive doubling / Bruck below this total size, ring above",
     NUM(0, ANY_SIZE)},
    {"SKIFF_COLL_ALLTOALL_SHORT", "256", "MPI_Alltoall: Bruck below this block size (> 2 ranks), pairwise exchange above",
     NUM(0, ANY_SIZE)},
    {"SKIFF_CC", "(configure-time C compiler)", "mpicc: the C compiler it runs",
     TEXT(NULL)},
    {"SKIFF_CXX", "(configure-time C++ compiler)", "mpicxx: the C++ compiler it runs",
     TEXT(NULL)},
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

/* ---- parsing and checking ------------------------------------------------ */

/* A decimal integer with an optional K, M or G suffix (powers of 1024).
 * -1 when malformed or beyond long long. */
static int parse_num(const char *s, long long *out)
{
    const char *digits = s[0] == '-' ? s + 1 : s;
    if (!isdigit((unsigned char)digits[0]))
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: break;
    }
    if (*end || v > (LLONG_MAX >> shift) || v < (LLONG_MIN >> shift))
        return -1;
    *out = v * (1LL << shift);
    return 0;
}

/* The table's spelling of value if it is one of words (any case), else NULL. */
static const char *find_word(const char *const *words, const char *value)
{
    for (; words && *words; words++)
        if (strcasecmp(*words, value) == 0)
            return *words;
    return NULL;
}

/* "64K" for 65536: sizes as people write them. */
static void fmt_num(long long v, char *out, size_t cap)
{
    static const char suffix[] = "GMK";
    for (int i = 0; i < 3; i++) {
        long long unit = 1LL << (10 * (3 - i));
        if (v != 0 && v % unit == 0) {
            snprintf(out, cap, "%lld%c", v / unit, suffix[i]);
            return;
        }
    }
    snprintf(out, cap, "%lld", v);
}

/* "auto, tcp or shm" */
static void list_words(const char *const *words, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; words && words[i] && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%s", i == 0 ? "" : words[i + 1] ? ", " : " or ",
                              words[i]);
}

static void expected_num(const skf_param_t *p, char *why, size_t cap)
{
    char lo[32], hi[32], words[128];
    if (p->min == 0 && p->max == 1 && !p->words) {
        snprintf(why, cap, "expected 0 or 1");
        return;
    }
    fmt_num(p->min, lo, sizeof lo);
    fmt_num(p->max, hi, sizeof hi);
    list_words(p->words, words, sizeof words);
    snprintf(why, cap, "expected %s%s%s from %s to %s%s", words, p->words ? " or " : "",
             p->pow2 ? "a power of two" : "a number", lo, hi,
             p->max >= 1024 ? " (K, M, G: times 1024)" : "");
}

int skf_param_check(const skf_param_t *p, const char *value, char *why, size_t cap)
{
    long long v;
    switch (p->kind) {
    case SKF_PARAM_NUM:
        if (find_word(p->words, value) ||
            (parse_num(value, &v) == 0 && v >= p->min && v <= p->max && (!p->pow2 || !(v & (v - 1)))))
            return 0;
        expected_num(p, why, cap);
        return -1;
    case SKF_PARAM_WORD: {
        char words[128];
        if (find_word(p->words, value))
            return 0;
        list_words(p->words, words, sizeof words);
        snprintf(why, cap, "expected %s", words);
        return -1;
    }
    case SKF_PARAM_TEXT:
    default:
        return p->check ? p->check(value, why, cap) : 0;
    }
}

int skf_config_check(const char *caller)
{
    int bad = 0;
    for (int i = 0; i < skf_nparams; i++) {
        const char *v = getenv(skf_params[i].name);
        char why[256];
        if (v && *v && skf_param_check(&skf_params[i], v, why, sizeof why) != 0) {
            fprintf(stderr, "skiff: %s: %s=%.64s is not valid: %s\n", caller, skf_params[i].name, v,
                    why);
            bad = 1;
        }
    }
    return bad ? -EINVAL : 0;
}

/* ---- values -------------------------------------------------------------- */

/* The environment's value when the table accepts it, else the default. */
static const char *value_of(const skf_param_t *p)
{
    const char *v = getenv(p->name);
    char why[256];
    if (!v || !*v || skf_param_check(p, v, why, sizeof why) != 0)
        return p->def;
    const char *word = find_word(p->words, v);
    return word ? word : v;
}

const char *skf_param_str(const char *name)
{
    return value_of(find_param(name));
}

long long skf_param_ll(const char *name)
{
    long long out;
    if (parse_num(value_of(find_param(name)), &out) != 0)
        return 0; /* a word such as "auto": callers treat 0 as "choose" */
    return out;
}

/* ---- checks of free-form values ------------------------------------------ */

/* auto, an IPv4 address, or the name of one of this host's interfaces. */
static int check_tcp_if(const char *v, char *why, size_t cap)
{
    struct in_addr a;
    if (strcmp(v, "auto") == 0 || inet_pton(AF_INET, v, &a) == 1 || if_nametoindex(v) != 0)
        return 0;
    size_t n = (size_t)snprintf(why, cap, "expected auto, an IPv4 address or an interface of this host");
    struct if_nameindex *all = if_nameindex();
    for (int i = 0; all && all[i].if_name && n < cap; i++)
        n += (size_t)snprintf(why + n, cap - n, "%s%s", i ? ", " : " (", all[i].if_name);
    if (all && all[0].if_name && n < cap)
        snprintf(why + n, cap - n, ")");
    if (all)
        if_freenameindex(all);
    return -1;
}

/* A congestion-control module the kernel could load for setsockopt. */
static int cc_module_exists(const char *name)
{
    static const char *const ext[] = {".ko", ".ko.xz", ".ko.zst", ".ko.gz"};
    struct utsname u;
    if (uname(&u) != 0)
        return 0;
    for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "/lib/modules/%s/kernel/net/ipv4/tcp_%s%s", u.release, name,
                 ext[i]);
        if (access(path, F_OK) == 0)
            return 1;
    }
    return 0;
}

/* system, or a congestion control this kernel has (or can load). */
static int check_tcp_cc(const char *v, char *why, size_t cap)
{
    if (strcmp(v, "system") == 0)
        return 0;
    size_t len = strlen(v);
    char avail[256] = "", words[256];
    FILE *f = fopen("/proc/sys/net/ipv4/tcp_available_congestion_control", "r");
    if (f) {
        if (!fgets(avail, sizeof avail, f))
            avail[0] = '\0';
        fclose(f);
        avail[strcspn(avail, "\n")] = '\0';
    }
    if (len > 0 && len < 16 && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_-") == len) {
        if (!f || cc_module_exists(v))
            return 0; /* nothing to compare with, or loadable */
        snprintf(words, sizeof words, "%s", avail);
        for (char *save, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
            if (strcmp(w, v) == 0)
                return 0;
    }
    snprintf(why, cap, "expected system or a congestion control of this kernel%s%s%s",
             avail[0] ? " (" : "", avail, avail[0] ? ")" : "");
    return -1;
}
