/*
 * init.c — bring the device up and down: Skiff context, the MPI port, the
 * per-peer tables (addresses, send FIFOs, in-flight eager messages) and the
 * thresholds read from SKIFF_* variables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "core/config.h"
#include "core/info.h"
#include "device/device.h"
#include "dynproc/bridge.h"

struct mpid_state mpid;

int mpid_init(void)
{
    int rc = skf_init(&mpid.ctx);
    if (rc < 0) {
        mpir_fatal("skf_init failed: %s", skf_strerror(rc));
    }
    rc = skf_chan_open(mpid.ctx, SKF_PORT_MPI, &mpid.ch);
    if (rc < 0)
        mpir_fatal("opening the MPI channel failed: %s", skf_strerror(rc));
    mpid.rank = skf_rank(mpid.ctx);
    mpid.size = skf_size(mpid.ctx);
    mpid.npeers = mpid.size;
    int n = mpid.size;
    mpid.addr = calloc((size_t)n, sizeof *mpid.addr);
    mpid.sendq = calloc((size_t)n, sizeof *mpid.sendq);
    mpid.active = calloc((size_t)n, sizeof *mpid.active);
    mpid.inflight = calloc((size_t)n, sizeof *mpid.inflight);
    mpid.rndv_out = calloc((size_t)n, sizeof *mpid.rndv_out);
    mpid.eager_to = calloc((size_t)n, sizeof *mpid.eager_to);
    mpid.remote = calloc((size_t)n, sizeof *mpid.remote);
    mpid.bulk_piece = calloc((size_t)n, sizeof *mpid.bulk_piece);
    mpid.direct_to = calloc((size_t)n, sizeof *mpid.direct_to);
    if (!mpid.addr || !mpid.sendq || !mpid.active || !mpid.inflight || !mpid.rndv_out ||
        !mpid.eager_to || !mpid.remote || !mpid.bulk_piece || !mpid.direct_to)
        mpir_fatal("out of memory for %d peers", n);
    for (int i = 0; i < n; i++)
        mpid.addr[i] = skf_addr(mpid.ctx, i, SKF_PORT_MPI);
    long long eager = skf_param_ll("SKIFF_MPI_EAGER_MAX");
    if (eager < MPID_SHORT_MAX)
        eager = MPID_SHORT_MAX;
    if (eager > (1LL << 30))
        eager = 1LL << 30; /* wire_hdr_t.len is 32 bits */
    mpid.eager_max = (size_t)eager;
    long long chunk = skf_param_ll("SKIFF_MPI_PIPE_CHUNK");
    mpid.pipe_chunk = chunk > 0 ? (size_t)chunk : 0;
    /* The split rendezvous needs CMA both ways (the copy pipeline would make
     * the two copies wait for each other) and shm between the two ranks. */
    struct skf_info info;
    long long split = skf_param_ll("SKIFF_MPI_RNDV_SPLIT");
    int cma = skf_info_get(mpid.ctx, &info) == 0 && info.cma_usable && !info.fallback_active;
    if (split > 0 && cma && strcmp(skf_param_str("SKIFF_TRANSPORTS"), "tcp") != 0)
        mpid.rndv_split = (size_t)(split < 8192 ? 8192 : split);
    /* Without CMA on this node (SKIFF_CMA=0, or the kernel forbids it, as
     * containers often do) a get from a node mate is the copy pipeline
     * through the internal port, served only between the owner's sleeps
     * (27-77 MB/s at 256 MiB): rendezvous data to node mates streams through
     * the MPI rings instead, at ring speed. */
    mpid.stream_local = !cma;
    if (!cma && skf_param_ll("SKIFF_VERBOSE") > 0)
        fprintf(stderr, "skiff MPI: rank %d: no CMA on this node: rendezvous messages to node "
                        "mates stream through the rings\n", mpid.rank);
    mpid.node = skf_node_id(mpid.ctx, mpid.rank);
    long long stream = skf_param_ll("SKIFF_MPI_RNDV_STREAM");
    mpid.stream_remote_max = stream > 0 ? (size_t)stream : 0;
    /* Over tcp an eager message costs one copy out of the receive ring, a
     * rendezvous a round trip before any data moves: the limit is higher. */
    long long eager_tcp = skf_param_ll("SKIFF_MPI_EAGER_MAX_TCP");
    if (eager_tcp < MPID_SHORT_MAX)
        eager_tcp = MPID_SHORT_MAX;
    if (eager_tcp > (1LL << 30))
        eager_tcp = 1LL << 30;
    int all_tcp = strcmp(skf_param_str("SKIFF_TRANSPORTS"), "tcp") == 0;
    /* Large rendezvous to a tcp peer: the sender pushes the data after the
     * receiver's W_GO straight from its buffer into the receiver's (a direct
     * payload: one copy a side, the link never idle between messages, no
     * exposure, get request or FIN); both sides decide alike, as every rank
     * reaches the other by the same transport.  docs/tcp.md. */
    int direct = skf_param_ll("SKIFF_MPI_RNDV_DIRECT") > 0;
    for (int i = 0; i < n; i++) {
        mpid.remote[i] = i != mpid.rank && (all_tcp || skf_node_id(mpid.ctx, i) != mpid.node);
        mpid.eager_to[i] = mpid.remote[i] ? (size_t)eager_tcp : mpid.eager_max;
        mpid.direct_to[i] = direct && mpid.remote[i] && skf_direct_ok(mpid.ch, mpid.addr[i]);
    }
    /* Streams through the pair's bulk ring (shm, few ranks per node): pieces
     * of SKIFF_MPI_BULK_CHUNK, at most what one bulk message takes. */
    long long bmax = skf_param_ll("SKIFF_MPI_BULK_MAX");
    size_t bchunk = (size_t)skf_param_ll("SKIFF_MPI_BULK_CHUNK");
    if (strcasecmp(skf_param_str("SKIFF_MPI_BULK_MAX"), "auto") == 0) {
        /* auto: a stream needs sender and receiver on a CPU at once, so only
         * while the job's ranks here do not outnumber the CPUs (measured:
         * 1-4 MiB 1.3-1.5x the CMA rendezvous, docs/mpi.md "Bulk rings") */
        struct skf_info node;
        bmax = skf_info_get(mpid.ctx, &node) == 0 && !node.oversubscribed ? MPID_BULK_AUTO_MAX : 0;
        mpid.bulk_auto = 1;
        mpid.bulk_backoff = MPID_BULK_BACKOFF_MIN;
    }
    mpid.bulk_max = bmax > 0 ? (size_t)bmax : 0;
    for (int i = 0; i < n && mpid.bulk_max; i++) {
        size_t most = i == mpid.rank || mpid.remote[i] ? 0 : skf_bulk_max(mpid.ch, mpid.addr[i]);
        if (most > sizeof(wire_bdata_t))
            mpid.bulk_piece[i] = bchunk < most - sizeof(wire_bdata_t) ? bchunk
                                                                       : most - sizeof(wire_bdata_t);
    }
    return comm_init_predefined(mpid.rank, mpid.size);
}

/* A receive the user freed with MPI_Request_free before it completed. */
static int freed_recv(const mpid_req_t *r, const void *arg)
{
    (void)arg;
    return r->kind == REQ_RECV && r->user_freed && !r->done;
}

static int finalize_waits(void)
{
    return mpid.n_active || mpid.pulls || req_any(freed_recv, NULL);
}

void mpid_finalize(void)
{
    /* Queued sends (and acks we owe) must leave before the port closes, gets
     * in flight must end with their FIN, and receives the user freed before
     * they matched must still match and complete (their senders wait). */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int said = 0;
    while (finalize_waits())
        if (!mpid_progress() && finalize_waits()) {
            mpid_idle();
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (!said && t.tv_sec - t0.tv_sec >= 10 && req_any(freed_recv, NULL)) {
                mpir_say("MPI_Finalize: still waiting for a receive freed with MPI_Request_free "
                         "before it matched (its message has not come)");
                said = 1;
            }
        }
    dyn_finalize(); /* other jobs' processes: flushed, told goodbye */
    comm_reap_freed(1);
    comm_free_predefined();
    skf_chan_close(mpid.ch);
    skf_finalize(mpid.ctx);
    req_pool_free_all();
    free(mpid.addr);
    free(mpid.sendq);
    free(mpid.active);
    free(mpid.inflight);
    free(mpid.rndv_out);
    free(mpid.eager_to);
    free(mpid.remote);
    free(mpid.bulk_piece);
    free(mpid.direct_to);
    mpid.ch = NULL;
    mpid.ctx = NULL;
}
