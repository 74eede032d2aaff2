/*
 * win_create.c — making and freeing windows, shared query, attach/detach of
 * dynamic windows, and MPI_Alloc_mem memory in shared memory.
 *
 * Creation is collective over a private copy of the user's communicator:
 *  1. everyone learns who shares its node (same node, and for the flavours
 *     other than SHARED reached over shared memory, not tcp);
 *  2. the lowest such rank creates one node segment holding a control block
 *     per local rank and, for MPI_Win_allocate(_shared), their memory; it
 *     sends the name to the others, who map it;
 *  3. an allgather of every rank's (base, size, disp_unit, exposures, place
 *     in the segment) tells each origin how to reach each target: mapped
 *     memory (direct), CMA through an exposure, or the channel over tcp;
 *  4. the creator unlinks the segment: nothing stays in /dev/shm.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/first_fit.h"
#include "core/node_shared.h"
#include "device/device.h"
#include "rma/win.h"

#define TAG_SEG 11 /* creator -> local ranks: the node segment's name */
#define PAGE 4096

static size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

/* A control block: the words, the regions of a dynamic window, then the
 * post/start/complete/wait counters: one per local rank, twice (win_sync.c). */
static size_t ctl_stride(struct MPI_ABI_Win *w)
{
    size_t n = sizeof(struct win_ctl);
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
        n += WIN_DYN_MAX * sizeof(struct win_region);
    w->pscw_off = n;
    n += 2 * (size_t)w->nlocal * sizeof(uint64_t);
    return round_up(n, 64);
}

/* ---- MPI_Alloc_mem: blocks in named node shared memory ------------------- */
/* Each shared-memory object holds a descriptor while it lives (memfd objects
 * are named through /proc/<pid>/fd), so small blocks share arenas: a program
 * that allocates thousands of small blocks would otherwise run out of
 * descriptors (the usual limit is 1024), and its own open() calls with it.
 * Large blocks get an object each (page rounded), as do arenas. */
#define ALLOC_OWN_MIN (256u << 10) /* from this size a block has its own object */
#define ARENA_BYTES (4u << 20)
#define ALLOC_ALIGN 64             /* every block starts on a cache line */

struct mem_block { /* a block with an object of its own, or private memory */
    struct mem_block *next;
    void *base;
    size_t size;
    char name[SKF_NODE_SHM_NAME]; /* "" : plain malloc (shared memory failed) */
};
struct mem_arena { /* an object cut into small blocks */
    struct mem_arena *next;
    char *base;
    char name[SKF_NODE_SHM_NAME];
    skf_ff_t ff;
};
static struct mem_block *blocks;
static struct mem_arena *arenas;

static void *arena_alloc(size_t size)
{
    size_t off;
    for (struct mem_arena *a = arenas; a; a = a->next)
        if (skf_ff_alloc(&a->ff, (uintptr_t)a->base, ALLOC_ALIGN, ALLOC_ALIGN, size, &off) == 0)
            return a->base + off;
    struct mem_arena *a = calloc(1, sizeof *a);
    void *base;
    if (!a || skf_ff_init(&a->ff, ARENA_BYTES) != 0 ||
        skf_node_shm_try_create(mpid.ctx, ARENA_BYTES, a->name, &base) != 0) {
        if (a)
            skf_ff_fini(&a->ff);
        free(a);
        return NULL;
    }
    a->base = base;
    a->next = arenas;
    arenas = a;
    if (skf_ff_alloc(&a->ff, (uintptr_t)a->base, ALLOC_ALIGN, ALLOC_ALIGN, size, &off) != 0)
        return NULL; /* cannot happen: size < ARENA_BYTES */
    return a->base + off;
}

static struct mem_arena *arena_of(const void *p, struct mem_arena ***link)
{
    for (struct mem_arena **l = &arenas; *l; l = &(*l)->next) {
        struct mem_arena *a = *l;
        if ((const char *)p >= a->base && (const char *)p < a->base + ARENA_BYTES) {
            if (link)
                *link = l;
            return a;
        }
    }
    return NULL;
}

int win_alloc_mem(size_t size, void **out)
{
    if (size < ALLOC_OWN_MIN && (*out = arena_alloc(size)))
        return 0;
    struct mem_block *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->size = round_up(size ? size : 1, PAGE);
    if (b->size < size) {
        free(b);
        return -ENOMEM;
    }
    if (skf_node_shm_try_create(mpid.ctx, b->size, b->name, &b->base) != 0) {
        b->name[0] = 0; /* no room in /dev/shm: private memory still works (CMA path) */
        b->base = aligned_alloc(PAGE, b->size);
        if (!b->base) {
            free(b);
            return -ENOMEM;
        }
    }
    b->next = blocks;
    blocks = b;
    *out = b->base;
    return 0;
}

int win_free_mem(void *base)
{
    for (struct mem_block **p = &blocks; *p; p = &(*p)->next) {
        struct mem_block *b = *p;
        if (b->base != base)
            continue;
        *p = b->next;
        if (b->name[0]) {
            skf_node_shm_unlink(b->name);
            skf_node_shm_detach(b->base, b->size);
        } else {
            free(b->base);
        }
        free(b);
        return 0;
    }
    struct mem_arena **link, *a = arena_of(base, &link);
    if (!a || skf_ff_free(&a->ff, (size_t)((char *)base - a->base)) != 0)
        return -EINVAL;
    if (!a->ff.live && a != arenas) { /* empty, and not the newest: give it back */
        *link = a->next;
        skf_ff_fini(&a->ff);
        skf_node_shm_unlink(a->name);
        skf_node_shm_detach(a->base, ARENA_BYTES);
        free(a);
    }
    return 0;
}

int win_alloc_mem_lookup(const void *addr, uint64_t len, char *name, uint64_t *seg_size,
                         uint64_t *off)
{
    uintptr_t a = (uintptr_t)addr;
    for (struct mem_block *b = blocks; b; b = b->next) {
        uintptr_t s = (uintptr_t)b->base;
        if (b->name[0] && a >= s && a - s <= b->size && len <= b->size - (a - s)) {
            memcpy(name, b->name, SKF_NODE_SHM_NAME);
            *seg_size = b->size;
            *off = a - s;
            return 1;
        }
    }
    struct mem_arena *ar = arena_of(addr, NULL);
    if (ar && len <= ARENA_BYTES - (uint64_t)(a - (uintptr_t)ar->base)) {
        memcpy(name, ar->name, SKF_NODE_SHM_NAME);
        *seg_size = ARENA_BYTES;
        *off = a - (uintptr_t)ar->base;
        return 1;
    }
    return 0;
}

/* ---- creation ------------------------------------------------------------------ */

/* What every rank tells every other at creation. */
struct win_card {
    uint64_t base, size;
    int64_t disp_unit;
    skf_mr_key_t key, ctl_key;
    int32_t leader;      /* rank (in the window) of my node segment's creator */
    int32_t slot;        /* my control block's index in that segment */
    uint64_t data_off;   /* my memory's offset in the node segment (allocate flavours) */
    int32_t in_seg;      /* my memory is in the node segment */
    int32_t in_alloc;    /* my memory is an MPI_Alloc_mem block: alloc_name + alloc_off */
    int32_t failed;      /* I could not get my memory: everyone gives up */
    char alloc_name[SKF_NODE_SHM_NAME];
    uint64_t alloc_size, alloc_off;
};

/* Does rank r of c share my node for this window? */
static int shares_node(struct MPI_ABI_Comm *c, int r, int flavor)
{
    int w = comm_world_rank(c, r);
    if (w == mpid.rank)
        return 1;
    if (mpid_node_of(w) != skf_node_id(mpid.ctx, mpid.rank))
        return 0;
    return flavor == MPI_WIN_FLAVOR_SHARED || !mpid.remote[w];
}

static void unmap_targets(struct MPI_ABI_Win *w)
{
    for (int r = 0; r < w->size; r++) {
        struct win_target *t = &w->t[r];
        if (t->map_base)
            skf_node_shm_detach(t->map_base, t->map_len);
        t->map_base = NULL;
    }
}

static void release(struct MPI_ABI_Win *w)
{
    if (w->t)
        unmap_targets(w);
    if (w->my_key.len)
        skf_mr_release(mpid.ctx, &w->my_key);
    if (w->my_ctl_key.len)
        skf_mr_release(mpid.ctx, &w->my_ctl_key);
    for (int i = 0; i < w->natt; i++)
        skf_mr_release(mpid.ctx, &w->att[i].key);
    free(w->att);
    if (w->seg)
        skf_node_shm_detach(w->seg, w->seg_size);
    free(w->alloc_private);
    free(w->t);
    free(w->start_ranks);
    free(w->post_ranks);
    free(w->post_done);
    if (w->info)
        info_free(w->info);
    if (w->comm) {
        MPI_Comm h = (MPI_Comm)w->comm;
        MPI_Comm_free(&h);
    }
    w->magic = 0;
    free(w);
}

/* Hints that change what the window does. */
static void read_hints(struct MPI_ABI_Win *w)
{
    const char *v = w->info ? info_get(w->info, "accumulate_ops") : NULL;
    w->acc_same_op = v && !strcmp(v, "same_op");
}

/* Steps 1-2: the node segment.  Returns an MPI error class (same on every rank
 * of a node: the creator tells the others when it failed). */
static int node_segment(const char *fn, struct MPI_ABI_Win *w, struct win_card *me,
                        const uint64_t *sizes, size_t align_each)
{
    MPI_Comm h = (MPI_Comm)w->comm;
    int leader = -1, nlocal = 0, slot = 0;
    for (int r = 0; r < w->size; r++)
        if (shares_node(w->comm, r, w->flavor)) {
            if (leader < 0)
                leader = r;
            if (r == w->rank)
                slot = nlocal;
            nlocal++;
        }
    w->nlocal = nlocal;
    size_t stride = ctl_stride(w);
    size_t data_at = round_up((size_t)nlocal * stride, PAGE), total = data_at;
    int with_data = w->flavor == MPI_WIN_FLAVOR_ALLOCATE || w->flavor == MPI_WIN_FLAVOR_SHARED;
    uint64_t my_off = 0;
    if (with_data)
        for (int r = 0; r < w->size; r++)
            if (shares_node(w->comm, r, w->flavor)) {
                if (r == w->rank)
                    my_off = total;
                total = round_up(total + sizes[r], align_each);
            }
    total = round_up(total ? total : PAGE, PAGE);
    struct {
        char name[SKF_NODE_SHM_NAME];
        int64_t rc;
        uint64_t size;     /* what was made */
        int64_t with_data; /* 0: only the control blocks fitted */
    } msg = {{0}, 0, total, with_data};
    if (w->rank == leader) {
        void *base;
        int rc = skf_node_shm_create(mpid.ctx, total, msg.name, &base);
        if (rc && w->flavor == MPI_WIN_FLAVOR_ALLOCATE) {
            /* no room for the memory: control blocks only, memory private (CMA path) */
            msg.size = round_up(data_at ? data_at : PAGE, PAGE);
            msg.with_data = 0;
            rc = skf_node_shm_create(mpid.ctx, msg.size, msg.name, &base);
        }
        msg.rc = rc;
        if (rc == 0) {
            w->seg = base;
            w->seg_size = msg.size;
        }
        for (int r = 0; r < w->size; r++)
            if (r != w->rank && shares_node(w->comm, r, w->flavor))
                MPI_Send(&msg, sizeof msg, MPI_BYTE, r, TAG_SEG, h);
    } else {
        MPI_Recv(&msg, sizeof msg, MPI_BYTE, leader, TAG_SEG, h, MPI_STATUS_IGNORE);
        if (msg.rc == 0) {
            int rc = skf_node_shm_attach(msg.name, msg.size, &w->seg);
            if (rc == 0)
                w->seg_size = msg.size;
            else
                msg.rc = rc;
        }
    }
    /* everyone must know whether every node got its segment */
    int bad = msg.rc != 0, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, h);
    if (w->rank == leader && msg.rc == 0)
        skf_node_shm_unlink(msg.name); /* the allreduce: every local rank has mapped it */
    if (any_bad)
        return mpir_win_error(w, MPI_ERR_NO_MEM,
                              "%s: cannot make the window's %zu-byte shared segment on rank %d's "
                              "node (see the message above)",
                              fn, total, w->rank);
    me->leader = leader;
    me->slot = slot;
    me->data_off = my_off;
    me->in_seg = (int)msg.with_data;
    return MPI_SUCCESS;
}

int win_make(const char *fn, int flavor, void *base, MPI_Aint size, int disp_unit,
             struct MPI_ABI_Info *info, struct MPI_ABI_Comm *c, void *baseptr,
             struct MPI_ABI_Win **out)
{
    struct MPI_ABI_Win *w = calloc(1, sizeof *w);
    if (!w)
        return mpir_error(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    w->magic = MAGIC_WIN;
    w->flavor = flavor;
    w->eh = &mpir_eh_predef[1]; /* windows start with MPI_ERRORS_ARE_FATAL */
    w->info = info ? info_dup(info) : info_new();
    read_hints(w);
    MPI_Comm wc;
    int rc = MPI_Comm_split(c == &mpir_comm_predef[1]   ? MPI_COMM_WORLD
                            : c == &mpir_comm_predef[2] ? MPI_COMM_SELF
                                                        : (MPI_Comm)c,
                            0, c->rank, &wc);
    if (rc != MPI_SUCCESS) {
        release(w);
        return rc;
    }
    w->comm = comm_of(wc);
    w->rank = w->comm->rank;
    w->size = w->comm->size;
    /* Processes of another job (spawn, ports, join) are reached only by
     * messages (dynproc/bridge.h), not by the channel's one-sided operations.
     * Every member sees such a member, so all of them fail alike. */
    for (int r = 0; r < w->size; r++)
        if (comm_world_rank(w->comm, r) >= mpid.size) {
            rc = mpir_error(c, MPI_ERR_UNSUPPORTED_OPERATION,
                            "%s: rank %d of the communicator is a process of another job "
                            "(spawned or connected); windows across jobs are not supported",
                            fn, r);
            release(w);
            return rc;
        }
    w->my_size = (uint64_t)size;
    w->my_disp_unit = disp_unit;
    w->t = calloc((size_t)w->size, sizeof *w->t);
    uint64_t *sizes = calloc((size_t)w->size, sizeof *sizes);
    struct win_card *cards = calloc((size_t)w->size, sizeof *cards);
    if (!w->t || !sizes || !cards) {
        free(sizes);
        free(cards);
        release(w);
        return mpir_error(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    MPI_Allgather(&w->my_size, 8, MPI_BYTE, sizes, 8, MPI_BYTE, wc);

    struct win_card me = {0};
    size_t align_each = flavor == MPI_WIN_FLAVOR_SHARED && !(w->info && info_get(w->info, "alloc_shared_noncontig") && !strcmp(info_get(w->info, "alloc_shared_noncontig"), "true")) ? 1 : PAGE;
    if (flavor == MPI_WIN_FLAVOR_SHARED)
        for (int r = 0; r < w->size && rc == MPI_SUCCESS; r++)
            if (!shares_node(w->comm, r, flavor))
                rc = mpir_error(c, MPI_ERR_RMA_SHARED,
                                "%s: rank %d of the communicator is on another node; shared "
                                "windows need every rank on one node",
                                fn, r);
    if (rc == MPI_SUCCESS)
        rc = node_segment(fn, w, &me, sizes, align_each);
    if (rc != MPI_SUCCESS) {
        free(sizes);
        free(cards);
        release(w);
        return rc;
    }
    size_t stride = ctl_stride(w);
    struct win_ctl *my_ctl = (struct win_ctl *)((char *)w->seg + (size_t)me.slot * stride);
    if (me.in_seg) {
        base = (char *)w->seg + me.data_off;
    } else if (flavor == MPI_WIN_FLAVOR_ALLOCATE) { /* the node segment had no room for it */
        base = w->alloc_private = calloc(1, size ? (size_t)size : 1);
        me.failed = !base; /* told to everyone below, so nobody waits for me */
    } else if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0) {
        me.in_alloc = win_alloc_mem_lookup(base, (uint64_t)size, me.alloc_name, &me.alloc_size,
                                           &me.alloc_off);
    }
    w->base = flavor == MPI_WIN_FLAVOR_DYNAMIC ? NULL : base;
    me.base = (uint64_t)(uintptr_t)w->base;
    me.size = w->my_size;
    me.disp_unit = disp_unit;
    if (w->base && size > 0 && skf_mr_expose(mpid.ctx, w->base, (size_t)size, &w->my_key) == 0)
        me.key = w->my_key;
    if (skf_mr_expose(mpid.ctx, my_ctl, stride, &w->my_ctl_key) == 0)
        me.ctl_key = w->my_ctl_key;
    MPI_Allgather(&me, sizeof me, MPI_BYTE, cards, sizeof me, MPI_BYTE, wc);

    for (int r = 0; r < w->size; r++)
        if (cards[r].failed) {
            free(sizes);
            free(cards);
            release(w);
            return mpir_error(c, MPI_ERR_NO_MEM, "%s: rank %d cannot allocate %ld bytes", fn, r,
                              (long)size);
        }
    int all_shared = 1;
    for (int r = 0; r < w->size; r++) {
        struct win_target *t = &w->t[r];
        struct win_card *k = &cards[r];
        t->world = comm_world_rank(w->comm, r);
        t->local = shares_node(w->comm, r, flavor);
        t->disp_unit = (int)k->disp_unit;
        t->size = k->size;
        t->base = k->base;
        t->key = k->key;
        t->ctl_key = k->ctl_key;
        if (t->local)
            t->ctl = (struct win_ctl *)((char *)w->seg + (size_t)k->slot * stride);
        t->slot = k->slot;
        if (r == w->rank)
            t->direct = w->base;
        else if (t->local && k->in_seg)
            t->direct = (char *)w->seg + k->data_off;
        else if (t->local && k->in_alloc &&
                 skf_node_shm_attach(k->alloc_name, k->alloc_size, &t->map_base) == 0) {
            t->map_len = k->alloc_size;
            t->direct = (char *)t->map_base + k->alloc_off;
        }
        if (!k->in_seg && !k->in_alloc && k->size > 0)
            all_shared = 0;
    }
    /* every rank saw the same cards: all ranks agree on this */
    w->mem_shared_all = all_shared && flavor != MPI_WIN_FLAVOR_DYNAMIC;
    free(sizes);
    free(cards);
    if (baseptr)
        *(void **)baseptr = w->base;
    *out = w;
    return MPI_SUCCESS;
}

int win_destroy(const char *fn, struct MPI_ABI_Win *w)
{
    if (w->lock_all || w->nlocks || w->nstart || w->npost)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC,
                              "%s: rank %d still has an epoch open on the window (%s)", fn,
                              w->rank,
                              w->lock_all ? "lock_all"
                              : w->nlocks ? "a lock"
                              : w->nstart ? "an access epoch (MPI_Win_start)"
                                          : "an exposure epoch (MPI_Win_post)");
    int rc = w->pending ? win_settle(w, fn, -1) : MPI_SUCCESS;
    if (rc || (rc = attr_delete_all(fn, ATTR_WIN, (void *)w, &w->attrs)))
        return rc;
    /* nobody may touch my memory after I unmap it */
    atomic_thread_fence(memory_order_seq_cst);
    MPI_Barrier((MPI_Comm)w->comm);
    mpir_eh_release(w->eh);
    release(w);
    return MPI_SUCCESS;
}

/* ---- dynamic windows -------------------------------------------------------------- */

static struct win_ctl *my_ctl(struct MPI_ABI_Win *w) { return w->t[w->rank].ctl; }

/* Publish my attached regions in my control block (a seqlock: generation odd
 * while it changes, readers retry). */
static void publish_regions(struct MPI_ABI_Win *w)
{
    struct win_ctl *ctl = my_ctl(w);
    __atomic_fetch_add(&ctl->regions_gen, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < w->natt; i++)
        ctl->regions[i] = (struct win_region){(uint64_t)(uintptr_t)w->att[i].base,
                                              w->att[i].len, w->att[i].key.cookie};
    __atomic_store_n(&ctl->nregions, (uint64_t)w->natt, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&ctl->regions_gen, 1, __ATOMIC_SEQ_CST);
}

int win_attach(const char *fn, struct MPI_ABI_Win *w, void *base, uint64_t len)
{
    if (w->natt == WIN_DYN_MAX)
        return mpir_win_error(w, MPI_ERR_RMA_ATTACH,
                              "%s: rank %d already has %d regions attached (the most a dynamic "
                              "window takes)",
                              fn, w->rank, WIN_DYN_MAX);
    uintptr_t b = (uintptr_t)base;
    for (int i = 0; i < w->natt; i++) {
        uintptr_t s = (uintptr_t)w->att[i].base;
        if (b < s + w->att[i].len && s < b + len)
            return mpir_win_error(w, MPI_ERR_RMA_ATTACH,
                                  "%s: rank %d: region %p of %llu bytes overlaps the attached "
                                  "region %p of %llu bytes",
                                  fn, w->rank, base, (unsigned long long)len, w->att[i].base,
                                  (unsigned long long)w->att[i].len);
    }
    struct win_attached *a = realloc(w->att, (size_t)(w->natt + 1) * sizeof *a);
    if (!a)
        return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    w->att = a;
    struct win_attached *n = &w->att[w->natt];
    n->base = base;
    n->len = len;
    if (skf_mr_expose(mpid.ctx, base, len, &n->key) != 0)
        return mpir_win_error(w, MPI_ERR_RMA_ATTACH, "%s: rank %d cannot expose %p (%llu bytes)",
                              fn, w->rank, base, (unsigned long long)len);
    w->natt++;
    publish_regions(w);
    return MPI_SUCCESS;
}

int win_detach(const char *fn, struct MPI_ABI_Win *w, const void *base)
{
    for (int i = 0; i < w->natt; i++)
        if (w->att[i].base == base) {
            skf_mr_release(mpid.ctx, &w->att[i].key);
            w->att[i] = w->att[--w->natt];
            publish_regions(w);
            return MPI_SUCCESS;
        }
    return mpir_win_error(w, MPI_ERR_RMA_ATTACH, "%s: rank %d: %p is not attached to the window",
                          fn, w->rank, base);
}
