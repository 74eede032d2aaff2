/*
 * shmemi.h — OpenSHMEM's private state and the few internal calls its modules
 * share (docs/shmem.md).
 *
 * Symmetric memory is two segments: the symmetric heap and the program's
 * data+bss.  Every PE's copy of a segment is reached one of two ways:
 *   mapped  — same node over shared memory: the copy is mapped in this
 *             process (seg.peer[pe]); put/get are memcpy, AMOs CPU atomics;
 *   channel — other nodes (or SKIFF_TRANSPORTS=tcp): skf_put/skf_get/
 *             skf_atomic on the PE's exposure (seg.key[pe]), answered by its
 *             tcp RMA service thread without the PE calling SHMEM.
 * Mapped operations have completed (at origin and target) when their call
 * returns.  Channel puts and non-fetching AMOs return before their answer:
 * they are in flight (flight.c) until quiet or a barrier waits for them;
 * the channel keeps every operation to one PE in order, so fence is a
 * memory fence.  Channel gets and fetching AMOs wait for their answer.
 *
 * The fast path (8-byte put/p/g/AMO on the heap of a mapped PE) is inline
 * here: a range compare, one table load, the access.
 */
#ifndef SHMEMI_H
#define SHMEMI_H

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "core/copy.h" /* skf_copy: memcpy without rep movsb's skewed-offset cliff */
#include "shmem.h"
#include "skiff.h"

/* Every PE's heap starts on this boundary: shmem_align up to it is symmetric. */
#define SHMEMI_HEAP_ALIGN ((size_t)256 << 20)
#define SHMEMI_LIKELY(x) __builtin_expect(!!(x), 1)

struct shmemi_seg {
    char *base;         /* my copy */
    size_t size;
    char **peer;        /* [npes]: where that PE's copy is mapped here, or NULL */
    skf_mr_key_t *key;  /* [npes]: its exposure (PEs reached over the channel) */
    skf_mr_key_t mine;  /* my exposure (when some PE reaches me over the channel) */
    int exposed;
    char name[96];      /* node shared-memory object holding my copy ("" = none) */
};

/* A PE's doorbell (sync.c): a futex word a node mate bumps, after raising
 * my barrier counter for it, when sleepers says I sleep (or am about to)
 * and waiting_for names it. */
struct shmemi_bell {
    uint32_t ring;
    uint32_t sleepers;
    int32_t waiting_for; /* the PE whose signal the sleeper waits for */
    uint32_t unused;
};

struct shmemi_state {
    int me, npes;
    int initialized, finalized;
    int thread_level;
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    struct shmemi_seg heap, data;
    /* The heap's first bytes are the library's (symmetric like the rest):
     * sync_in[j] counts the barrier signals PE j has sent me;
     * coll_word is one word a collective publishes to its team. */
    uint64_t *sync_in;
    uint64_t *coll_word;
    struct shmemi_bell *bell; /* my doorbell, right after coll_word (sync.c) */
    /* coll_count[h]: node mates add 1 when done reading my offer in scratch
     * half h; coll_count_want: what I wait for one to reach while I sleep
     * (sync.c).  coll_scratch: SHMEMI_COLL_SCRATCH bytes, two halves (coll.c). */
    uint64_t *coll_count, *coll_count_want;
    char *coll_scratch;
    uint64_t *sync_expect; /* [npes] private: signals from PE j waited for so far */
    uint64_t *chan_sig;    /* [npes] private: signals PE j (another node) sent me over the channel */
    size_t heap_reserved;  /* bytes of the heap before the user's part */
    size_t heap_user;      /* SHMEM_SYMMETRIC_SIZE */
    int channel_peers;     /* PEs reached over the channel (not mapped) */
    int map_by_node;       /* node mates are mapped (not SKIFF_TRANSPORTS=tcp) */
    int oversubscribed;    /* more mapped PEs (node mates and me) than online CPUs */
    pthread_mutex_t chan_lock; /* SHMEM_THREAD_MULTIPLE: one thread in the channel at a time */
};
/* hidden: the fast paths reach it without a GOT load */
extern struct shmemi_state shmemi __attribute__((visibility("hidden")));

/* A team: members are start + i*stride in PE numbers of TEAM_WORLD, or list[i]. */
struct shmemi_team {
    int n, my;   /* size, my index (-1: not a member) */
    int start, stride;
    int *list;   /* NULL: strided */
    shmem_team_config_t config;
    int nctx;    /* contexts created on it */
    int predefined;
    unsigned coll_calls; /* node collectives offered on it so far (coll.c: picks the scratch
                            half; the same on every member, 0 for an active set) */
};
static inline int shmemi_member(const struct shmemi_team *t, int i)
{
    return t->list ? t->list[i] : t->start + i * t->stride;
}

struct shmemi_ctx {
    uint32_t magic;
    long options;
    shmem_team_t team;
};
#define SHMEMI_CTX_MAGIC 0x73686d63u

/* ---- errors (init.c) ---- */
/* "shmem: PE 3: <call>: <what>" on stderr, then the job ends. */
void shmemi_fatal(const char *call, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
void shmemi_check_init(const char *call);
static inline void shmemi_check_ctx(shmem_ctx_t ctx, const char *call)
{
    if (!ctx || ctx->magic != SHMEMI_CTX_MAGIC)
        shmemi_fatal(call, "invalid context %p", (void *)ctx);
}
void shmemi_check_team(shmem_team_t team, const char *call);

/* The channel is one thread at a time (skiff.h): under SHMEM_THREAD_MULTIPLE
 * every channel call of SHMEM holds chan_lock.  Mapped paths need no lock. */
static inline void shmemi_chan_enter(void)
{
    if (shmemi.thread_level == SHMEM_THREAD_MULTIPLE)
        pthread_mutex_lock(&shmemi.chan_lock);
}
static inline void shmemi_chan_leave(void)
{
    if (shmemi.thread_level == SHMEM_THREAD_MULTIPLE)
        pthread_mutex_unlock(&shmemi.chan_lock);
}

/* ---- segments (symm.c) ---- */
int shmemi_symm_init(void);
void shmemi_symm_finalize(void);
/* After the first barrier (every node mate has mapped them): drop the objects' names. */
void shmemi_symm_names_done(void);
/* Where the bytes [addr, addr+len) of PE pe live: a pointer here (mapped), or
 * NULL and then *key and *off for the channel.  Stops the job with an error
 * naming call for a bad PE or an address outside symmetric memory. */
char *shmemi_resolve(const char *call, const void *addr, size_t len, int pe,
                     const skf_mr_key_t **key, size_t *off);
/* The mapped address of addr on pe, or NULL (any segment; no error). */
char *shmemi_ptr(const void *addr, int pe);

/* Heap fast path: addr..addr+len on a PE whose heap is mapped here. */
static inline char *shmemi_mapped(const void *addr, size_t len, int pe)
{
    size_t off = (size_t)((const char *)addr - shmemi.heap.base);
    if ((unsigned)pe < (unsigned)shmemi.npes && off < shmemi.heap.size &&
        len <= shmemi.heap.size - off) {
        char *b = shmemi.heap.peer[pe];
        if (SHMEMI_LIKELY(b != NULL))
            return b + off;
    }
    return NULL;
}

/* ---- channel operations in flight (flight.c) ---- */
extern unsigned shmemi_in_flight __attribute__((visibility("hidden")));
/* How a put in flight goes (shmemi_put_flight's how, or-ed). */
#define SHMEMI_PUT_DEFER 1  /* its request may wait for the next push (a batch of deferred puts
                               leaves in one write; flight.c says when they go at the latest) */
#define SHMEMI_PUT_NOCOPY 2 /* an _nbi put: the caller leaves the source alone until quiet (the
                               standard's rule), so it is sent from there, not staged */
#define SHMEMI_PUT_HOLD 4   /* with DEFER: the request waits for the push even when nothing is in
                               flight to pe (put-with-signal: it leaves with its signal) */
/* Start a put of len bytes (source copied first, reusable at return, unless
 * SHMEMI_PUT_NOCOPY) or a non-fetching AMO on PE pe's exposure key at off;
 * errors stop the job. */
void shmemi_put_flight(const char *call, const skf_mr_key_t *key, size_t off, const void *src,
                       size_t len, int pe, int how);
/* Send every deferred request now. */
void shmemi_flight_push(void);
void shmemi_amo_flight(const char *call, const skf_mr_key_t *key, size_t off, int op, int size,
                       uint64_t v, int pe);
/* The barrier's signal (+1 on PE pe's word) over the channel: in flight,
 * outside the ring (quiet does not wait for it). */
/* Before the channel closes: everything in flight answered. */
void shmemi_flight_finalize(void);
/* Wait until every operation in flight has finished at its target. */
void shmemi_quiet_slow(void);
static inline void shmemi_quiet(void)
{
    if (__atomic_load_n(&shmemi_in_flight, __ATOMIC_RELAXED))
        shmemi_quiet_slow();
}

/* ---- RMA (rma.c) ---- */
void shmemi_put_slow(const char *call, void *dest, const void *src, size_t len, int pe);
void shmemi_put_slow_nbi(const char *call, void *dest, const void *src, size_t len, int pe);
void shmemi_get_slow(const char *call, void *dest, const void *src, size_t len, int pe);
static inline void shmemi_put(const char *call, void *dest, const void *src, size_t len, int pe)
{
    char *p = shmemi_mapped(dest, len, pe);
    if (SHMEMI_LIKELY(p != NULL))
        skf_copy(p, src, len);
    else
        shmemi_put_slow(call, dest, src, len, pe);
}
/* The _nbi forms: over the channel the request may be batched with the next
 * ones (it leaves at quiet at the latest), and is sent from the source itself,
 * which the caller may not change before quiet. */
static inline void shmemi_put_nbi(const char *call, void *dest, const void *src, size_t len, int pe)
{
    char *p = shmemi_mapped(dest, len, pe);
    if (SHMEMI_LIKELY(p != NULL))
        skf_copy(p, src, len);
    else
        shmemi_put_slow_nbi(call, dest, src, len, pe);
}
static inline void shmemi_get(const char *call, void *dest, const void *src, size_t len, int pe)
{
    const char *p = shmemi_mapped(src, len, pe);
    if (SHMEMI_LIKELY(p != NULL))
        skf_copy(dest, p, len);
    else
        shmemi_get_slow(call, dest, src, len, pe);
}
/* Strided: nelems elements of size bytes, dest every dst, source every sst elements. */
void shmemi_iput(const char *call, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t size, int pe);
void shmemi_iget(const char *call, void *dest, const void *src, ptrdiff_t dst, ptrdiff_t sst,
                 size_t nelems, size_t size, int pe);
void shmemi_signal(const char *call, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

/* ---- atomics (amo.c) ---- */
/* One atomic on a word mapped here; op is an enum skf_aop, size 4 or 8.  With
 * constant op and size (every caller) it compiles to the one instruction. */
static inline uint64_t shmemi_amo_local(void *p, int op, int size, uint64_t v, uint64_t cmp)
{
#define SHMEMI_AMO_CASE(W)                                                                     \
    {                                                                                          \
        W *w = (W *)p, x = (W)v, c = (W)cmp;                                                   \
        switch (op) {                                                                          \
        case SKF_AOP_FETCH: return __atomic_load_n(w, __ATOMIC_SEQ_CST);                       \
        case SKF_AOP_SET:                                                                      \
        case SKF_AOP_SWAP: return __atomic_exchange_n(w, x, __ATOMIC_SEQ_CST);                 \
        case SKF_AOP_CSWAP:                                                                    \
            __atomic_compare_exchange_n(w, &c, x, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
            return c;                                                                          \
        case SKF_AOP_ADD: return __atomic_fetch_add(w, x, __ATOMIC_SEQ_CST);                   \
        case SKF_AOP_AND: return __atomic_fetch_and(w, x, __ATOMIC_SEQ_CST);                   \
        case SKF_AOP_OR: return __atomic_fetch_or(w, x, __ATOMIC_SEQ_CST);                     \
        case SKF_AOP_XOR: return __atomic_fetch_xor(w, x, __ATOMIC_SEQ_CST);                   \
        default: return 0;                                                                     \
        }                                                                                      \
    }
    if (size == 8)
        SHMEMI_AMO_CASE(uint64_t)
    else
        SHMEMI_AMO_CASE(uint32_t)
#undef SHMEMI_AMO_CASE
}
uint64_t shmemi_amo_slow(const char *call, void *dest, int op, int size, uint64_t v,
                         uint64_t cmp, int pe);
static inline uint64_t shmemi_amo(const char *call, void *dest, int op, int size, uint64_t v,
                                  uint64_t cmp, int pe)
{
    char *p = shmemi_mapped(dest, (size_t)size, pe);
    if (SHMEMI_LIKELY(p != NULL && ((uintptr_t)p & (uintptr_t)(size - 1)) == 0))
        return shmemi_amo_local(p, op, size, v, cmp);
    return shmemi_amo_slow(call, dest, op, size, v, cmp, pe);
}

/* A non-fetching AMO: over the channel it does not wait for its answer. */
void shmemi_amo_nf_slow(const char *call, void *dest, int op, int size, uint64_t v, int pe);
static inline void shmemi_amo_nf(const char *call, void *dest, int op, int size, uint64_t v,
                                 int pe)
{
    char *p = shmemi_mapped(dest, (size_t)size, pe);
    if (SHMEMI_LIKELY(p != NULL && ((uintptr_t)p & (uintptr_t)(size - 1)) == 0))
        (void)shmemi_amo_local(p, op, size, v, 0);
    else
        shmemi_amo_nf_slow(call, dest, op, size, v, pe);
}

/* ---- waiting (sync.c) ---- */
/* One round of a polling wait: spin, then yield, then sleep briefly (PEs may
 * outnumber cores).  *round counts the rounds of this wait, from 0. */
void shmemi_poll_pause(unsigned *round);
/* A message taken from the SHMEM port (src: its sender's PE): a barrier
 * signal is counted, anything else dropped. */
void shmemi_chan_message(const struct iovec *cont, int ncont, int src);
/* Take one message from the channel if there is one (chan_lock held): 1 if so. */
int shmemi_chan_take(void);
/* Barrier signals (sync.c): one signal to pe (a count in its heap, its
 * doorbell rung if it sleeps); wait for the next signal of PE from. */
void shmemi_signal_pe(int pe);
void shmemi_wait_signal(int from);
/* Acknowledgements between node mates: +1 on mapped PE pe's coll_count[half]
 * (waking it if that reaches what it waits for); wait for mine to reach want. */
void shmemi_count_add(int pe, int half);
void shmemi_wait_count(int half, uint64_t want);
/* Bytes of each PE's reserved heap a collective may stage in (coll.c). */
#define SHMEMI_COLL_SCRATCH ((size_t)128 << 10)
/* Every member of t is mapped here and few (or more than the CPUs): the
 * barrier, broadcast and reductions then go through member 0 or the root. */
int shmemi_node_shape(const struct shmemi_team *t);
/* Barrier of a team's members without the quiet (team_sync, sync_all). */
void shmemi_team_sync(const struct shmemi_team *t);
extern struct shmemi_team shmemi_team_world, shmemi_team_shared;

/* ---- teams (team.c) ---- */
int shmemi_teams_init(void);
void shmemi_teams_finalize(void);
/* The active set of the deprecated collectives, as a strided team (no list). */
void shmemi_active_set(struct shmemi_team *t, int start, int log_stride, int size,
                       const char *call);

/* ---- heap allocator (heap.c) ---- */
int shmemi_heap_init(size_t user_bytes);
void shmemi_heap_finalize(void);

#endif
