/*
 * core — the skiff core's private view of contexts and channels, shared by
 * its modules (ctx.c, chan.c, mr.c, info.c) and the transports.
 */
#ifndef SKIFF_CORE_H
#define SKIFF_CORE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "boot/boot.h"
#include "core/transport.h"
#include "skiff.h"

#define SKF_MAX_TRANSPORTS 2 /* per channel: shm, and tcp or ofi */
/* The monotonic clock in ns and ms: waits, spin bounds, timeouts. */
static inline long long skf_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static inline long long skf_now_ms(void) { return skf_now_ns() / 1000000; }
/* A polling phase bounded by time (*until 0: not started): the first call
 * starts a clock of ns, later calls return 1 once it has run out. */
static inline int skf_spin_over(long long *until, long long ns)
{
    long long now = skf_now_ns();
    if (!*until) {
        *until = now + ns;
        return 0;
    }
    return now > *until;
}

#define SKF_CMA_PROBE_MAGIC 0x736b69666670726full

/* SKIFF_SHM_RING_SIZE=auto: rings of SKF_SHM_RING_DEFAULT bytes, but for the
 * MPI port on a node of at most SKF_SHM_RING_FEW_RANKS ranks rings of twice a
 * core's L2, within SKF_SHM_RING_FEW_MIN..MAX (MAX when the L2 is unknown):
 * skf_shm_ring_bytes, docs/shm-transport.md "Ring size".
 * SKIFF_SHM_BULK_SIZE=auto: bulk rings of four times the L2 within
 * SKF_SHM_BULK_AUTO_MIN..MAX (MAX when unknown). */
#define SKF_SHM_RING_DEFAULT (256u << 10)
#define SKF_SHM_RING_FEW_MIN (256u << 10)
#define SKF_SHM_RING_FEW_MAX (2u << 20)
#define SKF_SHM_BULK_AUTO_MIN (1u << 20)
#define SKF_SHM_BULK_AUTO_MAX (4u << 20)
#define SKF_SHM_RING_FEW_RANKS 4
#define SKF_SHM_DEMOTE_AUTO (16u << 10) /* SKIFF_SHM_DEMOTE=auto on cores with cldemote */
#define SKF_SHM_OWN_NEXT_AUTO (16u << 10) /* SKIFF_SHM_OWN_NEXT=auto on Intel cores */

/* Tunables of the shm transport, read once at skf_init (see config.c). */
struct skf_shm_conf {
    uint64_t ring_bytes;   /* bytes per receive ring (power of two; auto: the
                              default, larger on few-rank nodes: skf_shm_ring_bytes) */
    int ring_bytes_set;    /* SKIFF_SHM_RING_SIZE given: never shrunk to fit     */
    uint64_t few_ring_bytes; /* auto: MPI's rings on a node of few ranks (2 x L2) */
    int dedicated_max;     /* dedicated rings per receiver (<= 63)               */
    long dedicated_after;  /* shared-ring messages before a sender gets its own  */
    long spin;             /* polls before sleeping                              */
    uint64_t demote_max;   /* SKIFF_SHM_DEMOTE: last message demoted up to this  */
    uint64_t own_next_lines; /* SKIFF_SHM_OWN_NEXT, in lines                      */
    long long tcp_spin_ns; /* SKIFF_TCP_SPIN_US: longest polling phase of a wait
                            * that polls tcp (each poll a system call)          */
    int yields;            /* sched_yield rounds before sleeping (oversubscribed) */
    uint64_t bulk_bytes;   /* SKIFF_SHM_BULK_SIZE: each bulk ring (skf_send_bulk) */
    int bulk_ranks;        /* SKIFF_SHM_BULK_RANKS: bulk rings on nodes of up to
                              this many ranks (0: none)                        */
};

/* One exposed memory region (for the copy fallback's checks). */
struct skf_mr_entry {
    uint64_t base, len, cookie;
};

struct skf_fallback; /* mr.c: one-sided copy pipeline through SKF_PORT_INTERNAL */

struct skf_ctx {
    boot_info_t *boot;
    int rank, size;
    int verbose;
    int oversubscribed;     /* more ranks on this node than online CPUs */
    int *local_of_rank;     /* [size]: index on my node, or -1           */
    pid_t *local_pid;       /* [local_size]                              */
    int *pidfd;             /* [local_size]: pidfd or -1                 */
    int cma_usable;         /* CMA works from this process               */
    int cma_forced_off;     /* SKIFF_CMA=0                               */
    int fallback_needed;    /* some rank of my node cannot use CMA       */
    int asym_fence;         /* every local rank registered for membarrier: senders
                               publish without a fence (see shm.c, doorbells) */
    struct skf_shm_conf shm;
    /* Bumped (by the thread driving the channels) whenever bytes of a started
     * get's answer or of a direct payload arrived: a wait's polling phase
     * starts over, so a transfer under way is read as it streams in, not
     * between sleeps once SKIFF_TCP_SPIN_US of it has passed. */
    unsigned long io_moved;
    skf_chan_t *internal;   /* SKF_PORT_INTERNAL, opened by skf_init     */
    unsigned chan_opens;    /* collective opens so far (names segments)  */
    skf_chan_t *open_chans; /* list, to refuse a port opened twice       */
    /* exposures; mr_lock guards them: the tcp RMA service thread checks
     * ranges while the main thread exposes and releases */
    pthread_mutex_t mr_lock; /* skf_mr_range_ok_locked: with it held */
    struct skf_mr_entry *mrs;
    int nmrs, mrs_cap;
    uint64_t mr_next_cookie;
    /* a transport that registers exposures with its network (ofi: fi_mr_reg,
     * so requesters fi_read them) hears of each one: called without mr_lock,
     * after the exposure is in the table and before a release removes it */
    void (*mr_notify)(void *arg, int release, uint64_t base, uint64_t len, uint64_t cookie);
    void *mr_notify_arg;
    struct skf_fallback *fb;
    int fb_serve;           /* channels serve the fallback now: fallback_needed, or memory
                               exposed with node mates (they send atomics through it) */
    unsigned fb_every, fb_tick; /* ... in every fb_every-th skf_recv/skf_send (1 when
                                   fallback_needed: its copies need every call) */
    volatile uint64_t cma_probe_word; /* = SKF_CMA_PROBE_MAGIC, read by a peer's CMA probe */
};

/* How the core reaches one peer of a channel. */
struct skf_peer {
    const struct skf_transport_ops *ops; /* NULL: no transport reaches it */
    void *tp;
    int id;
};

struct skf_chan {
    skf_ctx_t *ctx;
    uint16_t port;
    int size;
    struct skf_peer *peer; /* [size] */
    int ntp;
    const struct skf_transport_ops *tops[SKF_MAX_TRANSPORTS];
    void *tp[SKF_MAX_TRANSPORTS];
    int out_tp;  /* transport holding the message skf_recv handed out, or -1 */
    int last_tp; /* transport asked first: the one that delivered last, but after a
                    streak of FAIR_STREAK messages the other one */
    int woke_tp; /* transport that delivered last (skf_wait sleeps there) */
    int src_rank; /* sender of the message handed out last */
    int blocked_tp; /* transport whose send said -EAGAIN last, or -1 (skf_wait WRITABLE) */
    int streak;     /* messages in a row from last_tp (several transports take turns) */
    int kicked;     /* skf_kick: ends skf_wait's polling over a polled transport (ofi) */
    int serve_fb; /* the calls on this channel serve one-sided fallback requests while
                     ctx->fb_serve says so (0: the internal port, or no node mates) */
    void *stage;  /* skf_send_pack's staging buffer for transports without send_pack */
    size_t stage_cap;
    skf_chan_t *next_open;
};

/* One-line error to stderr, prefixed "skiff: ". */
void skf_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, only when SKIFF_VERBOSE=1. */
void skf_verbose(const skf_ctx_t *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* membarrier(GLOBAL_EXPEDITED): register (1 = done) and issue (0 = done). */
int skf_membarrier_register(const skf_ctx_t *ctx);
int skf_membarrier(void);

/* 1 when the local rank (index on my node) has died (zombie included). */
int skf_local_dead(const skf_ctx_t *ctx, int local_idx);

/* Open/close a channel without the public argument checks (internal port). */
int skf_chan_open_port(skf_ctx_t *ctx, uint16_t port, skf_chan_t **ch);

/* mr.c: start-up CMA probe, fallback server progress, teardown. */
int skf_mr_init(skf_ctx_t *ctx);
void skf_mr_fini(skf_ctx_t *ctx);
void skf_fallback_progress(skf_ctx_t *ctx);
/* Is [addr, addr+len) inside the exposure named by cookie? (a remote transport
 * checks a peer's one-sided request with it) */
int skf_mr_range_ok(skf_ctx_t *ctx, uint64_t cookie, uint64_t addr, uint64_t len);
/* The same with ctx->mr_lock already held (to keep the range valid while
 * the bytes are read, as the tcp owner does while it answers a get). */
int skf_mr_range_ok_locked(skf_ctx_t *ctx, uint64_t cookie, uint64_t addr, uint64_t len);
/* Execute one skf_atomic on my own memory (the owner's part of every path):
 * [addr, addr+size) must lie inside the exposure named by cookie, addr be
 * size-aligned, op an enum skf_aop and size 4 or 8; then the __atomic
 * builtin (seq_cst) runs and *old gets the value before.  0 or -EINVAL. */
int skf_atomic_exec(skf_ctx_t *ctx, uint64_t cookie, uint64_t addr, int op, int size,
                    uint64_t operand, uint64_t compare, uint64_t *old);
/* One atomic read-modify-write (enum skf_aop, size 4 or 8, aligned) of the
 * word at p, seq_cst: the value before. */
uint64_t skf_aop_word(void *p, int op, int size, uint64_t operand, uint64_t compare);
/* acc.c: bytes of an element of enum skf_acc_type (0: none); whether op on
 * count elements of type is defined (locked: under a lock word, else one
 * atomic instruction per element); the owner's part of skf_accumulate (range
 * checks under ctx->mr_lock, lock_addr 0: no lock word): 0, -EINVAL, or
 * -EAGAIN when the lock word is held by someone else (ask again). */
size_t skf_acc_type_size(int type);
int skf_acc_valid(int op, int type, size_t count, int locked);
int skf_acc_exec(skf_ctx_t *ctx, uint64_t cookie, uint64_t addr, int op, int type, size_t count,
                 const void *operand, const void *compare, void *old, uint64_t lock_cookie,
                 uint64_t lock_addr, uint64_t lock_val);
/* SKIFF_TRANSPORTS=tcp: tcp serves every peer of user and MPI ports. */
int skf_tcp_for_all(void);

#endif /* SKIFF_CORE_H */
