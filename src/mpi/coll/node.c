/*
 * node.c — node-aware collectives through one shared segment per
 * communicator: barrier, bcast, reduce and allreduce for messages up to
 * SKIFF_COLL_NODE_MAX when every rank of the communicator is on one node.
 *
 * Segment (created lazily by the communicator's rank 0 at the first such
 * collective, name sent to the others over the collective context, unlinked
 * once all have attached):
 *   header line   two futex "bells" with sleeper counts (arrivals, done)
 *   P ctl lines   done[r]: the last collective rank r finished reading for
 *   P x ngen slots  slot[r][g]: a sequence word and then the data, so a small
 *                 payload shares the cache line of its flag (ngen: 16, fewer
 *                 when P x 16 slots would pass 4 MiB; at least 4)
 * Collective number s uses slot generation s % ngen.  A rank writes its slot
 * for s only after every rank's done >= s - ngen, i.e. nobody still reads
 * what the slot held ngen collectives ago (a root can run that far ahead of
 * slow readers in a series of bcasts, which pipelines them).  An all-ranks collective (barrier,
 * allreduce) proves by itself that everyone finished the one before, so it
 * never has to read the done lines.
 *
 *   allreduce  each rank copies its input into its slot and publishes s; once
 *              all P slots show s, each rank reduces slots P-1 .. 0 into its
 *              receive buffer (rank order: right for non-commutative ops, and
 *              every rank computes identical bits) — one copy in, one pass out
 *   reduce     the same, only the root waits and reduces
 *   bcast      the root copies into its slot and publishes; the others copy out
 *   barrier    publish s, wait for all
 *   allgather  each rank publishes its block, then copies every slot out
 *   alltoall   each rank publishes its whole send buffer, then copies block
 *              [me] of every slot out (one synchronisation instead of log P
 *              or P rounds of messages)
 *
 * Waiting: poll (SKIFF_SPIN times; 64 when ranks outnumber cores) while
 * driving the device's progress now and then, then sleep on a futex.  Only
 * the publisher that completes the condition wakes the sleepers (the last
 * arriver of an allreduce/barrier/reduce, the root of a bcast), so a rank is
 * woken once per collective — what keeps 8 ranks on 2 cores fast.  The
 * sleeper/publisher handshake is the usual one: the sleeper bumps the sleeper
 * count then re-checks; the publisher stores its flag then reads the count
 * (both sequentially consistent), so one of them always sees the other.
 *
 * A rank that died, or returned from main without MPI_Finalize, never
 * publishes and rings no bell: a waiter that has slept LIVENESS_MS looks at
 * the processes of the communicator's ranks (pidfds) and ends the job with a
 * line naming the one that is gone.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "coll/coll.h"
#include "core/node_shared.h"

#define LINE 64
#define DATA_OFF 16 /* data after the slot's sequence word, 16-byte aligned */
#define NGEN_MIN 4          /* slot generations: a power of two in [4, 16], as many as */
#define NGEN_MAX 16         /* fit SEG_BUDGET (more: a bcast root runs further ahead)  */
#define SEG_BUDGET (4u << 20)
#define LIVENESS_MS 100     /* a sleeping waiter checks its peers' processes this often */

typedef struct bell {
    _Atomic uint32_t ring;     /* futex word: bumped to wake sleepers */
    _Atomic uint32_t sleepers; /* ranks sleeping (or about to) on ring */
} bell_t;

struct node_hdr {
    _Alignas(LINE) bell_t arrive; /* waiting for other ranks' slots */
    bell_t done;                  /* waiting for readers before reusing a slot */
};

struct node_coll {
    struct MPI_ABI_Comm *comm; /* whose ranks share the segment (liveness) */
    void *base;
    size_t bytes;
    int P, me;
    uint32_t seq;      /* collectives done through the segment */
    uint32_t min_done; /* smallest done[] seen last time       */
    uint32_t ngen;     /* slot generations                     */
    int fence_free;    /* all P ranks in the membarrier protocol: flags are
                          stored without a fence (skf_node_fence_free)       */
    size_t stride, max;
    struct node_hdr *hdr;
    char *ctl, *slots;
};

static inline _Atomic uint32_t *done_of(struct node_coll *n, int r)
{
    return (_Atomic uint32_t *)(n->ctl + (size_t)r * LINE);
}
static inline char *slot(struct node_coll *n, int r, uint32_t s)
{
    return n->slots + ((size_t)r * n->ngen + (s & (n->ngen - 1))) * n->stride;
}
static inline _Atomic uint32_t *seq_of(char *slot) { return (_Atomic uint32_t *)slot; }
static inline char *data_of(char *slot) { return slot + DATA_OFF; }

static inline void relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* ---- sleeping and waking ---------------------------------------------------- */

static void ring_bell(bell_t *b)
{
    atomic_fetch_add_explicit(&b->ring, 1, memory_order_seq_cst);
    syscall(SYS_futex, (uint32_t *)&b->ring, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* Publisher side of the handshake, after its flag store: a seq_cst store
 * (a full fence: it waits until the flag's line is ours, a transfer from
 * the core that last read it), or a release store when a sleeper's
 * membarrier stands in for that fence (8-byte bcast stream 0.143 -> 0.103 us,
 * docs/collectives.md). */
static inline void store_flag(const struct node_coll *n, _Atomic uint32_t *flag, uint32_t v)
{
    if (n->fence_free) {
        atomic_store_explicit(flag, v, memory_order_release);
        atomic_signal_fence(memory_order_seq_cst); /* the sleeper-count load stays behind */
    } else {
        atomic_store_explicit(flag, v, memory_order_seq_cst);
    }
}

static void wake_if_sleepers(bell_t *b)
{
    if (atomic_load_explicit(&b->sleepers, memory_order_seq_cst))
        ring_bell(b);
}

/* Point-to-point and nonblocking collectives keep moving while we wait. */
static __attribute__((noinline)) int others_pending_single(void)
{
    return mpid.n_active || mpid.n_posted || coll_n_active;
}
/* MULTIPLE: the counters are the device lock's; other threads may have
 * anything pending, so the short sleep (a separate function: no load of
 * them may be hoisted above the test) */
static int others_pending(void) { return unlikely(mpir_mt) ? 1 : others_pending_single(); }

static long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* No message tells a waiter here that a peer is gone: look at the processes. */
static void check_peers(const struct node_coll *n)
{
    for (int r = 0; r < n->P; r++) {
        int world = comm_world_rank(n->comm, r), pid = 0;
        if (r != n->me && skf_node_rank_dead(mpid.ctx, world, &pid))
            mpir_fatal("a peer process is gone: rank %d (pid %d, this node, exited), rank %d of "
                       "a collective's communicator of %d; ending the job",
                       world, pid, r, n->P);
    }
}

typedef int ready_fn(struct node_coll *n, uint32_t s, int arg);

static void wait_for(struct node_coll *n, bell_t *b, ready_fn *ready, uint32_t s, int arg)
{
    long check_at = 0; /* when the next liveness check is due (0: not sleeping yet) */
    for (long i = 0;; i++) {
        if (ready(n, s, arg))
            return;
        if (i < coll_tune.spin) {
            relax();
            if ((i & 63) == 63)
                mpid_progress();
            continue;
        }
        mpid_progress();
        if (i < coll_tune.spin + coll_tune.yields) {
            sched_yield(); /* ranks outnumber cores: let the ones we wait for run */
            continue;
        }
        uint32_t ring = atomic_load_explicit(&b->ring, memory_order_seq_cst);
        atomic_fetch_add_explicit(&b->sleepers, 1, memory_order_seq_cst);
        /* publishers did not fence: make their flag stores visible now */
        int unsure = n->fence_free && skf_node_membarrier() != 0;
        if (!ready(n, s, arg)) {
            /* bounded: messages for pending operations do not ring this bell */
            struct timespec ts = {0, others_pending() || unsure ? 1000000L : 20000000L};
            syscall(SYS_futex, (uint32_t *)&b->ring, FUTEX_WAIT, ring, &ts, NULL, 0);
        }
        atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_seq_cst);
        long t = now_ms();
        if (!check_at) {
            check_at = t + LIVENESS_MS;
        } else if (t >= check_at && !ready(n, s, arg)) {
            check_peers(n);
            check_at = t + LIVENESS_MS;
        }
        i = coll_tune.spin + coll_tune.yields; /* after a sleep: check, then sleep again */
    }
}

/* ---- conditions --------------------------------------------------------------- */

static int all_arrived(struct node_coll *n, uint32_t s, int skip)
{
    for (int r = 0; r < n->P; r++)
        if (r != skip && atomic_load_explicit(seq_of(slot(n, r, s)), memory_order_acquire) != s)
            return 0;
    return 1;
}

static int rank_arrived(struct node_coll *n, uint32_t s, int r)
{
    return atomic_load_explicit(seq_of(slot(n, r, s)), memory_order_acquire) == s;
}

/* Every rank finished collective s - ngen (whose slots generation s reuses). */
static int slots_free(struct node_coll *n, uint32_t s, int unused)
{
    (void)unused;
    if (n->min_done + n->ngen >= s)
        return 1;
    uint32_t m = UINT32_MAX;
    for (int r = 0; r < n->P; r++) {
        uint32_t d = atomic_load_explicit(done_of(n, r), memory_order_acquire);
        m = d < m ? d : m;
    }
    n->min_done = m;
    return m + n->ngen >= s;
}

/* ---- steps of a collective -------------------------------------------------------- */

static uint32_t begin(struct node_coll *n)
{
    uint32_t s = ++n->seq;
    if (!slots_free(n, s, 0))
        wait_for(n, &n->hdr->done, slots_free, s, 0);
    return s;
}

/* Copy my data (may be none) into my slot and say so. */
static void publish(struct node_coll *n, uint32_t s, const void *data, size_t bytes)
{
    char *my = slot(n, n->me, s);
    if (bytes)
        memcpy(data_of(my), data, bytes);
    store_flag(n, seq_of(my), s);
}

/* Wake the waiters of an all-ranks condition if I completed it. */
static void wake_if_complete(struct node_coll *n, uint32_t s, int skip)
{
    if (atomic_load_explicit(&n->hdr->arrive.sleepers, memory_order_seq_cst) &&
        all_arrived(n, s, skip))
        ring_bell(&n->hdr->arrive);
}

static void finish(struct node_coll *n, uint32_t s)
{
    store_flag(n, done_of(n, n->me), s);
    wake_if_sleepers(&n->hdr->done);
}

/* rbuf = slot[0] op slot[1] op ... op slot[P-1]; mine comes from 'own'. */
static void reduce_slots(struct node_coll *n, uint32_t s, const coll_args_t *a, const void *own)
{
    size_t bytes = a->count * a->red.extent;
    int last = n->P - 1;
    memcpy(a->rbuf, last == n->me ? own : data_of(slot(n, last, s)), bytes);
    for (int r = last - 1; r >= 0; r--)
        op_apply(&a->red, r == n->me ? own : data_of(slot(n, r, s)), a->rbuf, a->count);
}

/* ---- set-up ----------------------------------------------------------------------- */

static int on_one_node(struct MPI_ABI_Comm *c)
{
    int node = mpid_node_of(comm_world_rank(c, 0));
    for (int r = 1; r < c->size; r++)
        if (mpid_node_of(comm_world_rank(c, r)) != node)
            return 0;
    return 1;
}

/* Collective over c: rank 0 creates, the rest attach, all learn the verdict. */
static void setup(struct MPI_ABI_Comm *c, coll_comm_t *cc)
{
    cc->node_state = -1;
    if (!on_one_node(c))
        return;
    int P = c->size, me = c->rank, tag = coll_next_tag(c);
    size_t max = coll_tune.node_max; /* many ranks: smaller slots, within the budget */
    if (max > SEG_BUDGET)
        max = SEG_BUDGET; /* (SKIFF_COLL_NODE_MAX is checked; keep the products below from wrapping) */
    while (max > 4096 && (size_t)P * NGEN_MIN * (DATA_OFF + max) > SEG_BUDGET)
        max /= 2;
    size_t stride = (DATA_OFF + max + LINE - 1) / LINE * LINE;
    uint32_t ngen = NGEN_MAX;
    while (ngen > NGEN_MIN && (size_t)P * ngen * stride > SEG_BUDGET)
        ngen /= 2;
    size_t bytes = LINE + (size_t)P * LINE + (size_t)P * ngen * stride;
    char name[SKF_NODE_SHM_NAME] = "";
    void *base = NULL;
    struct MPI_ABI_Comm *cl = c->coll;
    MPI_Status st;
    size_t got;
    int ok, fence_free;
    if (me == 0) {
        static int told_no_room; /* once per process */
        int rc = skf_node_shm_try_create(mpid.ctx, bytes, name, &base);
        if (rc == -ENOSPC && !told_no_room) {
            told_no_room = 1;
            fprintf(stderr, "skiff MPI: rank %d: no room for a %zu-byte node-collective region "
                    "in %s; collectives on new communicators use point-to-point algorithms "
                    "(more room restores the shared-memory path)\n",
                    mpir_world_rank(), bytes, skf_node_shm_where());
        }
        if (rc < 0)
            name[0] = '\0';
        for (int r = 1; r < P; r++)
            mpid_send(name, sizeof name, r, tag, cl, MODE_STD);
        ok = name[0] != '\0';
        fence_free = skf_node_fence_free(mpid.ctx);
        for (int r = 1; r < P; r++) {
            int peer = 0; /* bit 0: attached; bit 1: in the membarrier protocol */
            mpid_recv(&peer, sizeof peer, r, tag, cl, &st, &got);
            ok &= peer & 1;
            fence_free &= peer >> 1 & 1;
        }
        ok |= fence_free << 1;
        if (name[0])
            skf_node_shm_unlink(name);
        for (int r = 1; r < P; r++)
            mpid_send(&ok, sizeof ok, r, tag, cl, MODE_STD);
    } else {
        mpid_recv(name, sizeof name, 0, tag, cl, &st, &got);
        name[sizeof name - 1] = '\0';
        int mine = name[0] && skf_node_shm_attach(name, bytes, &base) == 0;
        mine |= skf_node_fence_free(mpid.ctx) << 1;
        mpid_send(&mine, sizeof mine, 0, tag, cl, MODE_STD);
        mpid_recv(&ok, sizeof ok, 0, tag, cl, &st, &got);
    }
    fence_free = ok >> 1 & 1;
    ok &= 1;
    if (!ok) {
        skf_node_shm_detach(base, bytes);
        return;
    }
    struct node_coll *n = calloc(1, sizeof *n);
    if (!n)
        mpir_fatal("out of memory for the node collective state");
    n->comm = c;
    n->base = base;
    n->bytes = bytes;
    n->P = P;
    n->me = me;
    n->stride = stride;
    n->ngen = ngen;
    n->fence_free = fence_free;
    n->max = max;
    n->hdr = base;
    n->ctl = (char *)base + LINE;
    n->slots = n->ctl + (size_t)P * LINE;
    cc->node = n;
    cc->node_state = 1;
}

static struct node_coll *node_get(struct MPI_ABI_Comm *c, size_t bytes)
{
    if (!coll_tune.node_on || c->size < 2 || bytes > coll_tune.node_max)
        return NULL;
    coll_comm_t *cc = coll_comm_get(c);
    if (unlikely(cc->node_state == 0))
        setup(c, cc);
    return cc->node_state > 0 && bytes <= cc->node->max ? cc->node : NULL;
}

void node_free(struct node_coll *n)
{
    skf_node_shm_detach(n->base, n->bytes);
    free(n);
}

/* ---- the collectives ------------------------------------------------------------------ */

/* All-ranks step: everyone publishes 'bytes' from 'mine' and waits for all
 * (NULL: the communicator cannot use the node path). */
static struct node_coll *exchange(struct MPI_ABI_Comm *c, const void *mine, size_t bytes,
                                  uint32_t *sp)
{
    struct node_coll *n = node_get(c, bytes);
    if (!n)
        return NULL;
    uint32_t s = begin(n);
    publish(n, s, mine, bytes);
    wake_if_complete(n, s, -1);
    if (!all_arrived(n, s, -1))
        wait_for(n, &n->hdr->arrive, all_arrived, s, -1);
    n->min_done = s - 1;
    *sp = s;
    return n;
}

int node_barrier(struct MPI_ABI_Comm *c)
{
    coll_tune_init();
    uint32_t s;
    struct node_coll *n = exchange(c, NULL, 0, &s);
    if (!n)
        return 0;
    finish(n, s);
    return 1;
}

/* A series of small bcasts is a stream of slot lines from the root's core:
 * a reader that waits for each one pays a whole transfer per bcast.  The
 * root runs up to ngen ahead, so the next two slots are often written
 * already; fetching them now overlaps their transfers with this one's.
 * (8-byte series 0.109 -> 0.062 us; at 4 KiB it cost, 0.57 -> 0.70, the
 * lines fetched before the root wrote them: docs/collectives.md.) */
#define BCAST_PREFETCH_MAX 128
#define BCAST_PREFETCH_AHEAD 2
static inline void prefetch_next(struct node_coll *n, int root, uint32_t s, size_t span)
{
    for (uint32_t g = 1; g <= BCAST_PREFETCH_AHEAD && g < n->ngen; g++)
        for (size_t at = 0; at < span; at += LINE)
            __builtin_prefetch(slot(n, root, s + g) + at);
}

int node_bcast(struct MPI_ABI_Comm *c, void *buf, size_t bytes, int root)
{
    coll_tune_init();
    struct node_coll *n = node_get(c, bytes);
    if (!n)
        return 0;
    uint32_t s = begin(n);
    if (n->me == root) {
        publish(n, s, buf, bytes);
        wake_if_sleepers(&n->hdr->arrive);
    } else {
        if (!rank_arrived(n, s, root))
            wait_for(n, &n->hdr->arrive, rank_arrived, s, root);
        memcpy(buf, data_of(slot(n, root, s)), bytes);
        if (bytes <= BCAST_PREFETCH_MAX)
            prefetch_next(n, root, s, DATA_OFF + bytes);
    }
    finish(n, s);
    return 1;
}

/* Reductions go through shared memory only with an op the slots can feed
 * (kernels and user functions alike take plain arrays). */
/* Long vectors, one slot-sized chunk at a time, as a reduce-scatter inside
 * the node: everyone publishes its chunk; rank q reduces part q of it (slots
 * P-1 .. 0, rank order) into its next-generation slot; once all parts are
 * published everyone copies all of them out.  Two synchronisations per
 * chunk, and each rank reads the chunk twice instead of P times. */
static void allreduce_chunked(struct node_coll *n, const coll_args_t *a)
{
    size_t ext = a->red.extent, per = n->max / ext; /* elements per chunk */
    const char *in = a->sbuf ? a->sbuf : a->rbuf;
    char *out = a->rbuf;
    for (size_t done = 0; done < a->count; done += per) {
        size_t cnt = a->count - done < per ? a->count - done : per;
        uint32_t s1 = begin(n);
        publish(n, s1, in + done * ext, cnt * ext);
        wake_if_complete(n, s1, -1);
        if (!all_arrived(n, s1, -1))
            wait_for(n, &n->hdr->arrive, all_arrived, s1, -1);
        n->min_done = s1 - 1;
        uint32_t s2 = begin(n);
        size_t lo = cnt * (size_t)n->me / (size_t)n->P, hi = cnt * (size_t)(n->me + 1) / (size_t)n->P;
        char *part = data_of(slot(n, n->me, s2)) + lo * ext;
        if (hi > lo) {
            memcpy(part, data_of(slot(n, n->P - 1, s1)) + lo * ext, (hi - lo) * ext);
            for (int r = n->P - 2; r >= 0; r--)
                op_apply(&a->red, data_of(slot(n, r, s1)) + lo * ext, part, hi - lo);
        }
        publish(n, s2, NULL, 0);
        wake_if_complete(n, s2, -1);
        if (!all_arrived(n, s2, -1))
            wait_for(n, &n->hdr->arrive, all_arrived, s2, -1);
        n->min_done = s2 - 1;
        for (int q = 0; q < n->P; q++) {
            size_t qlo = cnt * (size_t)q / (size_t)n->P, qhi = cnt * (size_t)(q + 1) / (size_t)n->P;
            memcpy(out + (done + qlo) * ext, data_of(slot(n, q, s2)) + qlo * ext, (qhi - qlo) * ext);
        }
        finish(n, s2);
    }
}

int node_allreduce(struct MPI_ABI_Comm *c, const coll_args_t *a)
{
    coll_tune_init();
    size_t bytes = a->count * a->red.extent;
    if (bytes && bytes <= coll_tune.node_long_max) { /* chunked, if it does not fit a slot */
        struct node_coll *n = node_get(c, 0);
        if (n && bytes > n->max && a->red.extent <= n->max) {
            allreduce_chunked(n, a);
            return 1;
        }
    }
    uint32_t s;
    struct node_coll *n = bytes ? exchange(c, a->sbuf ? a->sbuf : a->rbuf, bytes, &s) : NULL;
    if (!n)
        return 0;
    reduce_slots(n, s, a, data_of(slot(n, n->me, s)));
    finish(n, s);
    return 1;
}

int node_reduce(struct MPI_ABI_Comm *c, const coll_args_t *a)
{
    coll_tune_init();
    size_t bytes = a->count * a->red.extent;
    struct node_coll *n = bytes ? node_get(c, bytes) : NULL;
    if (!n)
        return 0;
    uint32_t s = begin(n);
    if (n->me != a->root) {
        publish(n, s, a->sbuf, bytes);
        wake_if_complete(n, s, a->root);
    } else {
        if (!all_arrived(n, s, a->root))
            wait_for(n, &n->hdr->arrive, all_arrived, s, a->root);
        const void *own = a->sbuf ? a->sbuf : a->rbuf;
        if (own == a->rbuf) { /* in place: keep my input out of the way of the result */
            publish(n, s, own, bytes);
            own = data_of(slot(n, n->me, s));
        }
        reduce_slots(n, s, a, own);
    }
    finish(n, s);
    return 1;
}

int node_allgather(struct MPI_ABI_Comm *c, const coll_args_t *a)
{
    coll_tune_init();
    size_t blk = a->rbytes;
    char *r = a->rbuf;
    const void *mine = a->sbuf ? a->sbuf : r + (size_t)c->rank * blk;
    uint32_t s;
    struct node_coll *n = blk ? exchange(c, mine, blk, &s) : NULL;
    if (!n)
        return 0;
    for (int q = 0; q < n->P; q++)
        if (q != n->me || a->sbuf)
            memcpy(r + (size_t)q * blk, data_of(slot(n, q, s)), blk);
    finish(n, s);
    return 1;
}

int node_alltoall(struct MPI_ABI_Comm *c, const coll_args_t *a)
{
    coll_tune_init();
    size_t blk = a->rbytes, all = blk * (size_t)c->size;
    char *r = a->rbuf;
    uint32_t s;
    struct node_coll *n = blk ? exchange(c, a->sbuf ? a->sbuf : r, all, &s) : NULL;
    if (!n)
        return 0;
    for (int q = 0; q < n->P; q++)
        memcpy(r + (size_t)q * blk, data_of(slot(n, q, s)) + (size_t)n->me * blk, blk);
    finish(n, s);
    return 1;
}
