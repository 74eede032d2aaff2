/*
 * win.h — MPI one-sided communication: the window object and the pieces of
 * the RMA engine (docs/rma.md).
 *
 *   win_create.c   the five ways to make a window, MPI_Win_free, shared
 *                  query, attach/detach, MPI_Alloc_mem (shared memory)
 *   win_ops.c      put / get / accumulate families, by path:
 *                  direct (target memory mapped here: loads, stores, CPU
 *                  atomics), CMA (same node, private memory), channel
 *                  (another node: skf_get / skf_put / skf_atomic)
 *   win_sync.c     fence, post-start-complete-wait, lock/unlock, flush
 *   binding/win.c  the entry points: argument checks, errors, names, info,
 *                  attributes, error handlers
 *
 * Every rank of a window has a control block (struct win_ctl) in shared
 * memory on its node: the lock words and the accumulate mutex.  Ranks on
 * the same node use it with CPU atomics; ranks elsewhere with skf_atomic on
 * its exposure.  No operation needs the target's CPU, so passive-target
 * epochs progress while the target computes (over tcp the transport's
 * service thread answers).
 */
#ifndef SKIFF_MPI_WIN_H
#define SKIFF_MPI_WIN_H

#include "attr/attr.h"
#include "group/group.h"
#include "info/info.h"
#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

#define MAGIC_WIN 0x6e6e6957
#define WIN_DYN_MAX 256 /* attached regions per rank of a dynamic window */

/* An attached region of a dynamic window, as its owner published it. */
struct win_region {
    uint64_t base, len;
    uint64_t cookie; /* the exposure (skf_mr_key) covering it */
};

/* One rank's control block, 64-byte aligned in the window's node segment. */
struct win_ctl {
    uint64_t ticket;    /* exclusive lock: next ticket handed out */
    uint64_t serving;   /* exclusive lock: ticket allowed in */
    uint64_t readers;   /* shared lock: holders (and shared lockers backing off) */
    uint64_t acc_mutex; /* accumulate mutex: 0 free, else holder's world rank + 1 */
    uint64_t nregions;  /* dynamic windows: entries of regions[] in use */
    uint64_t regions_gen; /* bumped by every attach/detach */
    uint64_t acc_ticket;  /* accumulate mutex queue (node mates): next ticket */
    uint64_t acc_serving; /* accumulate mutex queue: ticket whose turn it is */
    struct win_region regions[]; /* dynamic windows only: WIN_DYN_MAX */
};

/* What an origin knows about one target. */
struct win_target {
    int world;        /* world rank */
    int local;        /* same node as me */
    int disp_unit;
    uint64_t size;    /* bytes of its window */
    uint64_t base;    /* its base address in its own process */
    char *direct;     /* its window memory mapped here, or NULL */
    skf_mr_key_t key; /* its window memory exposed (CMA, tcp); len 0: none */
    struct win_ctl *ctl; /* its control block mapped here (same node), or NULL */
    skf_mr_key_t ctl_key; /* its control block exposed (other nodes) */
    int lock;         /* lock I hold on it: 0, MPI_LOCK_SHARED, MPI_LOCK_EXCLUSIVE */
    int lock_nocheck; /* ... taken with MPI_MODE_NOCHECK (nothing to release) */
    int slot;         /* its control block's index in its node segment */
    uint64_t posts_seen, dones_seen; /* PSCW with it through the counters (win_sync.c) */
    void *map_base;   /* its MPI_Alloc_mem block mapped here (to unmap at free) */
    uint64_t map_len;
};

/* A get or put to another node still in flight (completed by win_settle). */
struct win_pending {
    struct win_pending *next;
    int target;
    skf_get_op_t op;
};

/* A rank's own attached region of a dynamic window. */
struct win_attached {
    void *base;
    uint64_t len;
    skf_mr_key_t key;
};

struct MPI_ABI_Win {
    uint32_t magic;
    int flavor;                 /* MPI_WIN_FLAVOR_* */
    struct MPI_ABI_Comm *comm;  /* private copy of the creating communicator */
    int rank, size;
    void *base;                 /* my window memory */
    uint64_t my_size;
    int my_disp_unit;
    struct win_target *t;       /* [size] */
    struct MPI_ABI_Errhandler *eh;
    struct MPI_ABI_Info *info;  /* hints as set (get_info returns a copy) */
    attr_t *attrs;
    char name[MPI_MAX_OBJECT_NAME];
    /* how accumulates run (win_ops.c) */
    int mem_shared_all;  /* every rank's memory is shared memory on its node: integer
                            atomics by CPU here and by skf_atomic from other nodes agree */
    int acc_same_op;     /* info accumulate_ops = same_op */
    int lock_all_nocheck;
    /* values the predefined attributes point at */
    MPI_Aint attr_size;
    int attr_disp_unit, attr_flavor, attr_model;
    /* memory this window owns */
    void *seg;       /* node segment: control blocks [+ window memory] */
    int nlocal;      /* ranks sharing it */
    size_t pscw_off; /* where a control block's PSCW counters start */
    size_t seg_size;
    skf_mr_key_t my_key, my_ctl_key; /* my exposures (released by free) */
    void *alloc_private; /* Win_allocate fallback memory (not shared) */
    struct win_attached *att; /* dynamic: my attached regions */
    int natt;
    struct win_pending *pending; /* gets and puts in flight to other nodes */
    unsigned idle_syncs;         /* flushes and syncs that found nothing to wait for */
    /* epochs (win_sync.c) */
    int fence_open;  /* a fence opened an epoch that no NOSUCCEED fence closed */
    int lock_all;    /* MPI_Win_lock_all held */
    int nlocks;      /* per-target locks held */
    int *start_ranks, nstart; /* access epoch (MPI_Win_start): targets */
    int *post_ranks, npost;   /* exposure epoch (MPI_Win_post): origins */
    MPI_Request *post_done;   /* [npost] completions of the exposure epoch */
    int npost_done;
};

static inline struct MPI_ABI_Win *win_obj(MPI_Win h) { return (struct MPI_ABI_Win *)h; }

/* ---- errors --------------------------------------------------------------- */
/* Report cls through w's error handler (NULL w: MPI_COMM_WORLD's), like mpir_error. */
int mpir_win_error(struct MPI_ABI_Win *w, int cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Check a window handle; reports MPI_ERR_WIN on MPI_COMM_WORLD's handler. */
int win_check(const char *fn, MPI_Win h, struct MPI_ABI_Win **out);

/* ---- creation (win_create.c) ------------------------------------------------ */
int win_make(const char *fn, int flavor, void *base, MPI_Aint size, int disp_unit,
             struct MPI_ABI_Info *info, struct MPI_ABI_Comm *c, void *baseptr,
             struct MPI_ABI_Win **out);
int win_destroy(const char *fn, struct MPI_ABI_Win *w);
int win_attach(const char *fn, struct MPI_ABI_Win *w, void *base, uint64_t len);
int win_detach(const char *fn, struct MPI_ABI_Win *w, const void *base);
/* Alloc_mem blocks in shared memory: where addr lives (segment name, offset). */
int win_alloc_mem(size_t size, void **out);
int win_free_mem(void *base);
int win_alloc_mem_lookup(const void *addr, uint64_t len, char *name, uint64_t *seg_size,
                         uint64_t *off);

/* ---- operations (win_ops.c) ------------------------------------------------- */
/* One RMA call's description: what the origin gives and where at the target. */
typedef struct rma_op {
    const char *fn;
    int kind;                     /* RMA_PUT, RMA_GET, RMA_ACC, RMA_GET_ACC, RMA_CAS */
    const void *origin;           /* put/acc data (CAS: new value) */
    int64_t ocount;               /* counts: MPI_Count, the int and _c calls alike */
    struct MPI_ABI_Datatype *otype;
    void *result;                 /* get / get_acc / fetch_and_op / CAS result */
    int64_t rcount;
    struct MPI_ABI_Datatype *rtype;
    const void *compare;          /* CAS */
    int target;                   /* rank in the window */
    MPI_Aint disp;
    int64_t tcount;
    struct MPI_ABI_Datatype *ttype;
    MPI_Op op;                    /* accumulates */
    int blocking;                 /* complete before returning (request-based calls) */
} rma_op_t;
enum { RMA_PUT = 1, RMA_GET, RMA_ACC, RMA_GET_ACC, RMA_CAS };
/* Carry out op: done when it returns, except contiguous gets and puts to
 * other nodes, which stay in flight until win_settle; MPI error class. */
int win_rma(struct MPI_ABI_Win *w, const rma_op_t *op);
/* Accumulate of count predefined elements to target's memory mapped here at
 * p (the window's rule: CPU atomics or the mutex): 1 done, 0 take the general path. */
int win_acc_fast(struct MPI_ABI_Win *w, int target, char *p, const void *in, int64_t count,
                 MPI_Datatype dt, MPI_Op op);
/* Finish the gets and puts in flight to target (-1: to every target); MPI error class. */
int win_settle(struct MPI_ABI_Win *w, const char *fn, int target);

/* ---- synchronisation (win_sync.c) -------------------------------------------- */
int win_fence(const char *fn, struct MPI_ABI_Win *w, int assert);
int win_post(const char *fn, struct MPI_ABI_Win *w, struct MPI_ABI_Group *g, int assert);
int win_start(const char *fn, struct MPI_ABI_Win *w, struct MPI_ABI_Group *g, int assert);
int win_complete(const char *fn, struct MPI_ABI_Win *w);
int win_wait(const char *fn, struct MPI_ABI_Win *w, int test, int *flag);
int win_lock(const char *fn, struct MPI_ABI_Win *w, int type, int target, int assert);
int win_unlock(const char *fn, struct MPI_ABI_Win *w, int target);
int win_lock_all(const char *fn, struct MPI_ABI_Win *w, int assert);
int win_unlock_all(const char *fn, struct MPI_ABI_Win *w);
/* May w's rank do RMA on target now (an epoch covers it)? */
static inline int win_epoch_covers(const struct MPI_ABI_Win *w, int target)
{
    if (w->fence_open || w->lock_all || w->t[target].lock)
        return 1;
    for (int i = 0; i < w->nstart; i++)
        if (w->start_ranks[i] == target)
            return 1;
    return 0;
}
/* Ranks of a group's members in w's communicator; MPI error class. */
int win_group_ranks(const char *fn, struct MPI_ABI_Win *w, struct MPI_ABI_Group *g, int **ranks,
                    int *n);
/* The accumulate mutex of a target (win_sync.c). */
void win_acc_lock(struct MPI_ABI_Win *w, int target);
void win_acc_unlock(struct MPI_ABI_Win *w, int target);
/* Atomic on a word of target's control block (CPU or skf_atomic). */
uint64_t win_ctl_atomic(struct MPI_ABI_Win *w, int target, size_t field_off, int op,
                        uint64_t operand, uint64_t compare);

#pragma GCC visibility pop

#endif
