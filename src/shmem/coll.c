/*
 * coll.c — collectives on teams and on the deprecated active sets: broadcast,
 * collect, fcollect, alltoall(s), reductions.
 *
 * Internal API (docs/shmem.md): each collective is a function of a team
 * (struct shmemi_team: members, my index) and byte counts, written with the
 * team barrier (shmemi_team_sync) and one-sided gets (shmemi_get/iget):
 *   barrier → every member reads what it needs from the others' source
 *   → barrier (nobody reuses a source before all have read it).
 * Reading rather than writing means a member's dest changes only while it is
 * inside the call.  Reductions combine the members' sources in team order,
 * so every member computes bit-identical results (floating point too).
 * These are correct at any size and team shape; tree and node-aware
 * algorithms can replace a function here without touching the entry points.
 */
#include <stdlib.h>

#include "shmemi.h"

static struct shmemi_team *team_arg(shmem_team_t team, const char *call)
{
    shmemi_check_team(team, call);
    return team;
}

/* ---- the algorithms ------------------------------------------------------- */

/* ---- node mates: one staging area each, read in parallel -----------------
 *
 * Every PE's reserved heap has SHMEMI_COLL_SCRATCH bytes, two halves, a
 * collective stages its contribution in: a header (how long, and whether the bytes are in the
 * scratch or still in the source) and the bytes.  Node mates read it through
 * their mapping and add 1 to the owner's coll_count when done.  The owner
 * does not wait for those reads before returning: it waits when that half
 * is to be reused (by then the readers are long done).  A contribution too large for the scratch is read in place, from the
 * (symmetric) source, and then the owner waits for its readers before it
 * returns, as the caller may reuse the source.  So the gathering collectives
 * need one barrier (the contributions are ready) instead of two, and the
 * broadcast none: its root signals the members directly. */

struct stage_head {
    uint64_t len;    /* bytes offered */
    uint64_t staged; /* 1: in the scratch after the header; 0: in place at the source */
};
#define STAGE_HALF (SHMEMI_COLL_SCRATCH / 2)
#define STAGE_DATA 64 /* the bytes start a cache line after the header */
#define STAGE_MAX (STAGE_HALF - STAGE_DATA)

static uint64_t reads_due[2]; /* my coll_count[h] once every reader of my offers in half h is done */

/* The scratch half of a team's next node collective: they alternate per
 * team, the same on every member (members call a team's collectives in the
 * same order).  With a barrier in every call, the readers of my offer two
 * calls back are done: waiting for them costs nothing.  (An active set's
 * team is made anew each call: always half 0, still correct.) */
static int next_half(const struct shmemi_team *t)
{
    return (int)(((struct shmemi_team *)t)->coll_calls++ & 1);
}

static struct stage_head *stage_of(int pe, int half)
{
    return (struct stage_head *)shmemi_mapped(shmemi.coll_scratch + (size_t)half * STAGE_HALF,
                                              STAGE_HALF, pe);
}

/* Offer len bytes at src to `readers` node mates in scratch half h: staged
 * if they fit, else in place (offer_done then waits for the reads).
 * Returns whether staged. */
static int offer(int half, const void *src, size_t len, int readers)
{
    struct stage_head *h = stage_of(shmemi.me, half);
    shmemi_wait_count(half, reads_due[half]); /* its last readers are done with it */
    h->len = len;
    h->staged = len <= STAGE_MAX;
    if (h->staged)
        memcpy((char *)h + STAGE_DATA, src, len);
    reads_due[half] += (uint64_t)readers;
    return (int)h->staged;
}

/* After my own reads: an offer left in place must be read before I return. */
static void offer_done(int half, int staged)
{
    if (!staged)
        shmemi_wait_count(half, reads_due[half]);
}

/* Read at most max bytes of PE pe's offer in half h, from `at` bytes into
 * it, into dest (src: the offer's source address, symmetric, for one left
 * in place); tell pe I am done with it.  Returns the offer's whole length. */
static size_t take(const char *call, int pe, int half, void *dest, const void *src, size_t at,
                   size_t max)
{
    const struct stage_head *h = stage_of(pe, half);
    size_t len = (size_t)h->len, n = len - at < max ? len - at : max;
    if (h->staged)
        memcpy(dest, (const char *)h + STAGE_DATA + at, n);
    else
        shmemi_get(call, dest, (const char *)src + at, n, pe);
    shmemi_count_add(pe, half);
    return len;
}

/* Broadcast among node mates: the root offers its source and signals every
 * member; each takes it into its own dest (so a dest changes only while its
 * PE is in the call).  Each member wakes once, on the root's signal. */
static void bcast_node(const char *call, const struct shmemi_team *t, void *dest, const void *src,
                       size_t bytes, int root, int root_too)
{
    int root_pe = shmemi_member(t, root), half = next_half(t);
    if (t->my != root) {
        shmemi_wait_signal(root_pe);
        take(call, root_pe, half, dest, src, 0, bytes);
        return;
    }
    int staged = offer(half, src, bytes, t->n - 1);
    for (int j = 0; j < t->n; j++)
        if (j != root)
            shmemi_signal_pe(shmemi_member(t, j));
    if (root_too && dest != src)
        memmove(dest, src, bytes);
    offer_done(half, staged);
}

/* fcollect, collect, alltoall among node mates: offer (alltoall: all my
 * blocks), one barrier, take every other member's block, my own from my
 * source. */
enum gather_kind { G_FCOLLECT, G_COLLECT, G_ALLTOALL };
static void gather_node(const char *call, const struct shmemi_team *t, void *dest, const void *src,
                        size_t bytes, enum gather_kind kind)
{
    int n = t->n, half = next_half(t);
    size_t mine = kind == G_ALLTOALL ? bytes * (size_t)n : bytes;
    int staged = offer(half, src, mine, n - 1);
    shmemi_team_sync(t);
    size_t at = 0;
    for (int j = 0; j < n; j++) {
        char *to = (char *)dest + (kind == G_COLLECT ? at : (size_t)j * bytes);
        size_t from = kind == G_ALLTOALL ? (size_t)t->my * bytes : 0;
        if (j == t->my) {
            memmove(to, (const char *)src + from, bytes);
            at += bytes;
        } else {
            /* collect: the length is the offer's (len - 0); the others: one block */
            size_t len = take(call, shmemi_member(t, j), half, to, src, from,
                              kind == G_COLLECT ? (size_t)-1 : bytes);
            at += kind == G_COLLECT ? len : bytes;
        }
    }
    offer_done(half, staged);
}

/* ---- the algorithms ------------------------------------------------------- */

static void bcast(const char *call, const struct shmemi_team *t, void *dest, const void *src,
                  size_t bytes, int root, int root_too)
{
    if (root < 0 || root >= t->n)
        shmemi_fatal(call, "invalid PE_root %d (the team has %d PEs)", root, t->n);
    if (shmemi_node_shape(t)) {
        bcast_node(call, t, dest, src, bytes, root, root_too);
        return;
    }
    shmemi_team_sync(t);
    if (t->my != root)
        shmemi_get(call, dest, src, bytes, shmemi_member(t, root));
    else if (root_too && dest != src)
        memmove(dest, src, bytes);
    shmemi_team_sync(t);
}

static void fcollect(const char *call, const struct shmemi_team *t, void *dest, const void *src,
                     size_t bytes)
{
    if (shmemi_node_shape(t)) {
        gather_node(call, t, dest, src, bytes, G_FCOLLECT);
        return;
    }
    shmemi_team_sync(t);
    for (int j = 0; j < t->n; j++)
        shmemi_get(call, (char *)dest + (size_t)j * bytes, src, bytes, shmemi_member(t, j));
    shmemi_team_sync(t);
}

/* Each member's count is published in its coll_word, read by the others. */
static void collect(const char *call, const struct shmemi_team *t, void *dest, const void *src,
                    size_t bytes)
{
    if (shmemi_node_shape(t)) {
        gather_node(call, t, dest, src, bytes, G_COLLECT);
        return;
    }
    __atomic_store_n(shmemi.coll_word, (uint64_t)bytes, __ATOMIC_RELEASE);
    shmemi_team_sync(t);
    size_t at = 0;
    for (int j = 0; j < t->n; j++) {
        uint64_t len;
        int pe = shmemi_member(t, j);
        shmemi_get(call, &len, shmemi.coll_word, sizeof len, pe);
        shmemi_get(call, (char *)dest + at, src, (size_t)len, pe);
        at += (size_t)len;
    }
    shmemi_team_sync(t);
}

static void alltoall(const char *call, const struct shmemi_team *t, void *dest, const void *src,
                     size_t bytes)
{
    if (shmemi_node_shape(t)) {
        gather_node(call, t, dest, src, bytes, G_ALLTOALL);
        return;
    }
    shmemi_team_sync(t);
    for (int j = 0; j < t->n; j++)
        shmemi_get(call, (char *)dest + (size_t)j * bytes,
                   (const char *)src + (size_t)t->my * bytes, bytes, shmemi_member(t, j));
    shmemi_team_sync(t);
}

static void alltoalls(const char *call, const struct shmemi_team *t, void *dest, const void *src,
                      ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t size)
{
    if (dst < 1 || sst < 1)
        shmemi_fatal(call, "strides dst %td and sst %td must be at least 1", dst, sst);
    shmemi_team_sync(t);
    for (int j = 0; j < t->n; j++)
        shmemi_iget(call, (char *)dest + (size_t)j * nelems * (size_t)dst * size,
                    (const char *)src + (size_t)t->my * nelems * (size_t)sst * size, dst, sst,
                    nelems, size, shmemi_member(t, j));
    shmemi_team_sync(t);
}

typedef void (*combine_fn)(void *acc, const void *in, size_t n);

/* acc = the members' sources combined in team order (tmp: room for one). */
static void combine_all(const char *call, const struct shmemi_team *t, char *acc, char *tmp,
                        const void *src, size_t n, size_t bytes, combine_fn combine)
{
    for (int j = 0; j < t->n; j++) {
        int pe = shmemi_member(t, j);
        const char *in = bytes ? shmemi_ptr(src, pe) : NULL;
        if (!in) {
            shmemi_get(call, tmp, src, bytes, pe);
            in = tmp;
        }
        if (j == 0)
            memcpy(acc, in, bytes);
        else
            combine(acc, in, n);
    }
}

static void reduce(const char *call, const struct shmemi_team *t, void *dest, const void *src,
                   size_t n, size_t size, combine_fn combine)
{
    size_t bytes = n * size;
    char *acc = malloc(bytes ? bytes : 1), *tmp = malloc(bytes ? bytes : 1);
    if (!acc || !tmp)
        shmemi_fatal(call, "out of memory for %zu bytes", bytes);
    if (shmemi_node_shape(t)) {
        /* Node mates: members say "I am in the call" (source ready, dest
         * free) to member 0, which combines every source once (not every
         * member: on few cores that work is serial), copies the result into
         * each member's dest and signals it. */
        int first = shmemi_member(t, 0);
        if (t->my != 0) {
            shmemi_signal_pe(first);
            shmemi_wait_signal(first); /* my source stays until member 0 has read it */
        } else {
            for (int j = 1; j < t->n; j++)
                shmemi_wait_signal(shmemi_member(t, j));
            combine_all(call, t, acc, tmp, src, n, bytes, combine);
            for (int j = 1; j < t->n; j++) {
                shmemi_put(call, dest, acc, bytes, shmemi_member(t, j));
                shmemi_signal_pe(shmemi_member(t, j));
            }
            memcpy(dest, acc, bytes);
        }
    } else {
        shmemi_team_sync(t);
        combine_all(call, t, acc, tmp, src, n, bytes, combine);
        shmemi_team_sync(t); /* everyone has read my source (dest may be it) */
        memcpy(dest, acc, bytes);
    }
    free(acc);
    free(tmp);
}

/* ---- 1.5 team entry points ------------------------------------------------ */

#define TEAM_MEMBER(t) if ((t)->my < 0) return -1

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    struct shmemi_team *t = team_arg(team, "shmem_broadcastmem");
    TEAM_MEMBER(t);
    bcast("shmem_broadcastmem", t, dest, source, nelems, PE_root, 1);
    return 0;
}
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    struct shmemi_team *t = team_arg(team, "shmem_collectmem");
    TEAM_MEMBER(t);
    collect("shmem_collectmem", t, dest, source, nelems);
    return 0;
}
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    struct shmemi_team *t = team_arg(team, "shmem_fcollectmem");
    TEAM_MEMBER(t);
    fcollect("shmem_fcollectmem", t, dest, source, nelems);
    return 0;
}
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    struct shmemi_team *t = team_arg(team, "shmem_alltoallmem");
    TEAM_MEMBER(t);
    alltoall("shmem_alltoallmem", t, dest, source, nelems);
    return 0;
}
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    struct shmemi_team *t = team_arg(team, "shmem_alltoallsmem");
    TEAM_MEMBER(t);
    alltoalls("shmem_alltoallsmem", t, dest, source, dst, sst, nelems, 1);
    return 0;
}

#define COLL_TYPED(T, N)                                                                       \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,      \
                              int PE_root)                                                     \
    {                                                                                          \
        struct shmemi_team *t = team_arg(team, "shmem_" #N "_broadcast");                      \
        TEAM_MEMBER(t);                                                                        \
        bcast("shmem_" #N "_broadcast", t, dest, source, nelems * sizeof(T), PE_root, 1);      \
        return 0;                                                                              \
    }                                                                                          \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)        \
    {                                                                                          \
        struct shmemi_team *t = team_arg(team, "shmem_" #N "_collect");                        \
        TEAM_MEMBER(t);                                                                        \
        collect("shmem_" #N "_collect", t, dest, source, nelems * sizeof(T));                  \
        return 0;                                                                              \
    }                                                                                          \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)       \
    {                                                                                          \
        struct shmemi_team *t = team_arg(team, "shmem_" #N "_fcollect");                       \
        TEAM_MEMBER(t);                                                                        \
        fcollect("shmem_" #N "_fcollect", t, dest, source, nelems * sizeof(T));                \
        return 0;                                                                              \
    }                                                                                          \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)       \
    {                                                                                          \
        struct shmemi_team *t = team_arg(team, "shmem_" #N "_alltoall");                       \
        TEAM_MEMBER(t);                                                                        \
        alltoall("shmem_" #N "_alltoall", t, dest, source, nelems * sizeof(T));                \
        return 0;                                                                              \
    }                                                                                          \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems)                                    \
    {                                                                                          \
        struct shmemi_team *t = team_arg(team, "shmem_" #N "_alltoalls");                      \
        TEAM_MEMBER(t);                                                                        \
        alltoalls("shmem_" #N "_alltoalls", t, dest, source, dst, sst, nelems, sizeof(T));     \
        return 0;                                                                              \
    }
SHMEMI_RMA_TYPES(COLL_TYPED)

/* ---- reductions ----------------------------------------------------------- */

#define OP_and(a, b) ((a) & (b))
#define OP_or(a, b) ((a) | (b))
#define OP_xor(a, b) ((a) ^ (b))
#define OP_max(a, b) ((a) > (b) ? (a) : (b))
#define OP_min(a, b) ((a) < (b) ? (a) : (b))
#define OP_sum(a, b) ((a) + (b))
#define OP_prod(a, b) ((a) * (b))

#define COMBINE(T, N, OP)                                                                      \
    static void combine_##N##_##OP(void *accv, const void *inv, size_t n)                      \
    {                                                                                          \
        T *acc = accv;                                                                         \
        const T *in = inv;                                                                     \
        for (size_t i = 0; i < n; i++)                                                         \
            acc[i] = (T)OP_##OP(acc[i], in[i]);                                                \
    }
#define REDUCE(T, N, OP)                                                                       \
    COMBINE(T, N, OP)                                                                          \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce) \
    {                                                                                          \
        struct shmemi_team *t = team_arg(team, "shmem_" #N "_" #OP "_reduce");                 \
        TEAM_MEMBER(t);                                                                        \
        reduce("shmem_" #N "_" #OP "_reduce", t, dest, source, nreduce, sizeof(T),             \
               combine_##N##_##OP);                                                            \
        return 0;                                                                              \
    }
#define BIT_REDUCE(T, N) REDUCE(T, N, and) REDUCE(T, N, or) REDUCE(T, N, xor)
#define ARITH_REDUCE(T, N) REDUCE(T, N, max) REDUCE(T, N, min) REDUCE(T, N, sum) REDUCE(T, N, prod)
SHMEMI_BIT_REDUCE_TYPES(BIT_REDUCE)
SHMEMI_ARITH_REDUCE_TYPES(ARITH_REDUCE)

/* ---- deprecated active-set forms (pSync and pWrk are not used) ------------ */

#define ACTIVE_SET(BITS, BYTES)                                                                \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,     \
                               int PE_start, int logPE_stride, int PE_size, long *pSync)       \
    {                                                                                          \
        struct shmemi_team t;                                                                  \
        (void)pSync;                                                                           \
        shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_broadcast" #BITS);       \
        bcast("shmem_broadcast" #BITS, &t, dest, source, nelems * BYTES, PE_root, 0);          \
    }                                                                                          \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,      \
                             int logPE_stride, int PE_size, long *pSync)                       \
    {                                                                                          \
        struct shmemi_team t;                                                                  \
        (void)pSync;                                                                           \
        shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_collect" #BITS);         \
        collect("shmem_collect" #BITS, &t, dest, source, nelems * BYTES);                      \
    }                                                                                          \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                              int logPE_stride, int PE_size, long *pSync)                      \
    {                                                                                          \
        struct shmemi_team t;                                                                  \
        (void)pSync;                                                                           \
        shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_fcollect" #BITS);        \
        fcollect("shmem_fcollect" #BITS, &t, dest, source, nelems * BYTES);                    \
    }                                                                                          \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                              int logPE_stride, int PE_size, long *pSync)                      \
    {                                                                                          \
        struct shmemi_team t;                                                                  \
        (void)pSync;                                                                           \
        shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_alltoall" #BITS);        \
        alltoall("shmem_alltoall" #BITS, &t, dest, source, nelems * BYTES);                    \
    }                                                                                          \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,     \
                               long *pSync)                                                    \
    {                                                                                          \
        struct shmemi_team t;                                                                  \
        (void)pSync;                                                                           \
        shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_alltoalls" #BITS);       \
        alltoalls("shmem_alltoalls" #BITS, &t, dest, source, dst, sst, nelems, BYTES);         \
    }
ACTIVE_SET(32, 4)
ACTIVE_SET(64, 8)

#define TO_ALL(T, N, OP)                                                                       \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,        \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync)        \
    {                                                                                          \
        struct shmemi_team t;                                                                  \
        (void)pWrk;                                                                            \
        (void)pSync;                                                                           \
        shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_" #N "_" #OP "_to_all"); \
        if (nreduce < 0)                                                                       \
            shmemi_fatal("shmem_" #N "_" #OP "_to_all", "nreduce %d is negative", nreduce);    \
        reduce("shmem_" #N "_" #OP "_to_all", &t, dest, source, (size_t)nreduce, sizeof(T),    \
               combine_##N##_##OP);                                                            \
    }
#define TO_ALL_BIT(T, N)                                                                       \
    COMBINE(T, N, and) COMBINE(T, N, or) COMBINE(T, N, xor) TO_ALL(T, N, and) TO_ALL(T, N, or) TO_ALL(T, N, xor)
#define TO_ALL_ARITH(T, N) TO_ALL(T, N, max) TO_ALL(T, N, min) TO_ALL(T, N, sum) TO_ALL(T, N, prod)
SHMEMI_TOALL_BIT_TYPES(TO_ALL_BIT)
SHMEMI_TOALL_ARITH_TYPES(TO_ALL_ARITH)

/* complex: sum and product only */
#define COMPLEX(T, N) REDUCE(T, N, sum) REDUCE(T, N, prod) TO_ALL(T, N, sum) TO_ALL(T, N, prod)
SHMEMI_COMPLEX_TYPES(COMPLEX)
