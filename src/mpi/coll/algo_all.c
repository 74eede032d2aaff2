/*
 * algo_all.c — collectives where every rank gets a result, on point-to-point:
 * allreduce (recursive doubling; Rabenseifner's reduce-scatter by recursive
 * halving + allgather by recursive doubling), allgather (recursive doubling,
 * Bruck, ring), allgatherv (ring), alltoall (Bruck, pairwise exchange),
 * alltoallv/w (pairwise exchange), reduce_scatter (pairwise exchange, or
 * reduce + scatterv for non-commutative ops), scan/exscan (recursive
 * doubling).
 *
 * Sizes that are not powers of two: allreduce folds the first 2*rem ranks in
 * pairs (the even one hands its data to the odd one and gets the result back
 * at the end), so the doubling runs over a power of two of "new ranks" that
 * still cover contiguous rank ranges in order — which keeps non-commutative
 * ops correct.  The other algorithms handle any size directly.
 */
#include "coll/coll.h"

static inline int pof2_below(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Fold to a power of two: returns my new rank (-1: I sit out). */
static int fold_in(sched_t *s, int rank, int size, const coll_args_t *a, void *tmp)
{
    int rem = size - pof2_below(size);
    size_t bytes = a->count * a->red.extent;
    if (rank >= 2 * rem)
        return rank - rem;
    if (!(rank & 1)) {
        sched_send(s, a->rbuf, bytes, rank + 1);
        sched_fence(s);
        return -1;
    }
    sched_recv(s, tmp, bytes, rank - 1);
    sched_fence(s);
    sched_reduce(s, tmp, a->rbuf, a->count, &a->red); /* (rank-1) op rank */
    return rank / 2;
}

static void fold_out(sched_t *s, int rank, int size, const coll_args_t *a)
{
    int rem = size - pof2_below(size);
    size_t bytes = a->count * a->red.extent;
    if (rank >= 2 * rem)
        return;
    if (rank & 1)
        sched_send(s, a->rbuf, bytes, rank - 1);
    else
        sched_recv(s, a->rbuf, bytes, rank + 1);
    sched_fence(s);
}

static inline int unfold(int newrank, int rem) { return newrank < rem ? newrank * 2 + 1 : newrank + rem; }

void algo_allreduce_recdbl(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t bytes = a->count * a->red.extent;
    int pof2 = pof2_below(size), rem = size - pof2;
    void *tmp = sched_tmp(s, bytes);
    if (a->sbuf)
        sched_copy(s, a->rbuf, a->sbuf, bytes);
    int newrank = fold_in(s, rank, size, a, tmp);
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int dst = unfold(newrank ^ mask, rem);
            sched_send(s, a->rbuf, bytes, dst);
            sched_recv(s, tmp, bytes, dst);
            sched_fence(s);
            if (dst < rank || a->red.op->commute) {
                sched_reduce(s, tmp, a->rbuf, a->count, &a->red); /* theirs op mine */
            } else {
                sched_reduce(s, a->rbuf, tmp, a->count, &a->red); /* mine op theirs */
                sched_copy(s, a->rbuf, tmp, bytes);
            }
        }
    }
    fold_out(s, rank, size, a);
}

/* Rabenseifner (commutative ops, count >= power of two): the vector is cut
 * into pof2 blocks; recursive halving leaves new rank i with block i fully
 * reduced, recursive doubling gathers all blocks back. */
void algo_allreduce_rabenseifner(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t bytes = a->count * a->red.extent, ext = a->red.extent;
    int pof2 = pof2_below(size), rem = size - pof2;
    char *rbuf = a->rbuf;
    char *tmp = sched_tmp(s, bytes);
    if (a->sbuf)
        sched_copy(s, a->rbuf, a->sbuf, bytes);
    int newrank = fold_in(s, rank, size, a, tmp);
    if (newrank >= 0) {
        size_t *disp = sched_tmp(s, (size_t)(pof2 + 1) * sizeof *disp);
        size_t base = a->count / (size_t)pof2, extra = a->count % (size_t)pof2;
        disp[0] = 0;
        for (int i = 0; i < pof2; i++)
            disp[i + 1] = disp[i] + base + ((size_t)i < extra);
        /* reduce-scatter: at distance mask, keep the half (mask blocks) holding my block */
        for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
            int partner = newrank ^ mask, dst = unfold(partner, rem);
            int mine = newrank & ~(mask - 1), theirs = partner & ~(mask - 1);
            size_t mlo = disp[mine], mn = disp[mine + mask] - mlo;
            size_t tlo = disp[theirs], tn = disp[theirs + mask] - tlo;
            if (tn)
                sched_send(s, rbuf + tlo * ext, tn * ext, dst);
            if (mn)
                sched_recv(s, tmp + mlo * ext, mn * ext, dst);
            sched_fence(s);
            sched_reduce(s, tmp + mlo * ext, rbuf + mlo * ext, mn, &a->red);
        }
        /* allgather: at distance mask, swap the mask blocks each side holds */
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int partner = newrank ^ mask, dst = unfold(partner, rem);
            int mine = newrank & ~(mask - 1), theirs = partner & ~(mask - 1);
            size_t mlo = disp[mine], mn = disp[mine + mask] - mlo;
            size_t tlo = disp[theirs], tn = disp[theirs + mask] - tlo;
            if (mn)
                sched_send(s, rbuf + mlo * ext, mn * ext, dst);
            if (tn)
                sched_recv(s, rbuf + tlo * ext, tn * ext, dst);
            sched_fence(s);
        }
    }
    fold_out(s, rank, size, a);
}

/* ---- allgather ------------------------------------------------------------ */

static const void *own_block(int rank, const coll_args_t *a)
{
    return a->sbuf ? a->sbuf : (const char *)a->rbuf + (size_t)rank * a->rbytes;
}

/* Power-of-two sizes: exchange aligned groups of mask blocks. */
void algo_allgather_recdbl(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t blk = a->rbytes;
    char *r = a->rbuf;
    sched_copy(s, r + (size_t)rank * blk, own_block(rank, a), blk);
    for (int mask = 1; mask < size; mask <<= 1) {
        int partner = rank ^ mask;
        int mine = rank & ~(mask - 1), theirs = partner & ~(mask - 1);
        sched_send(s, r + (size_t)mine * blk, (size_t)mask * blk, partner);
        sched_recv(s, r + (size_t)theirs * blk, (size_t)mask * blk, partner);
        sched_fence(s);
    }
}

/* Bruck: ceil(log2 P) rounds for any P; block j of tmp is rank (rank+j)'s. */
void algo_allgather_bruck(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t blk = a->rbytes;
    char *r = a->rbuf, *tmp = sched_tmp(s, (size_t)size * blk);
    sched_copy(s, tmp, own_block(rank, a), blk);
    for (int pof = 1; pof < size; pof <<= 1) {
        int cnt = size - pof < pof ? size - pof : pof;
        sched_send(s, tmp, (size_t)cnt * blk, (rank - pof + size) % size);
        sched_recv(s, tmp + (size_t)pof * blk, (size_t)cnt * blk, (rank + pof) % size);
        sched_fence(s);
    }
    sched_copy(s, r + (size_t)rank * blk, tmp, (size_t)(size - rank) * blk);
    sched_copy(s, r, tmp + (size_t)(size - rank) * blk, (size_t)rank * blk);
}

void algo_allgather_ring(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t blk = a->rbytes;
    char *r = a->rbuf;
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    sched_copy(s, r + (size_t)rank * blk, own_block(rank, a), blk);
    for (int i = 0; i < size - 1; i++) {
        int sb = (rank - i + size) % size, rb = (rank - i - 1 + size) % size;
        sched_send(s, r + (size_t)sb * blk, blk, right);
        sched_recv(s, r + (size_t)rb * blk, blk, left);
        sched_fence(s);
    }
}

void algo_allgatherv_ring(sched_t *s, int rank, int size, const coll_args_t *a)
{
    char *r = a->rbuf;
    int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    if (a->sbuf)
        sched_copy(s, r + a->rdb[rank], a->sbuf, a->rcb[rank]);
    for (int i = 0; i < size - 1; i++) {
        int sb = (rank - i + size) % size, rb = (rank - i - 1 + size) % size;
        if (a->rcb[sb])
            sched_send(s, r + a->rdb[sb], a->rcb[sb], right);
        if (a->rcb[rb])
            sched_recv(s, r + a->rdb[rb], a->rcb[rb], left);
        sched_fence(s);
    }
}

/* ---- alltoall -------------------------------------------------------------- */

/* In place: the data to send is in rbuf; send from a copy. */
static const char *send_source(sched_t *s, const coll_args_t *a, size_t total)
{
    if (a->sbuf)
        return a->sbuf;
    char *copy = sched_tmp(s, total);
    sched_copy(s, copy, a->rbuf, total);
    return copy;
}

/* Bruck: rotate, then in round k send every block whose index has bit k set
 * to rank + 2^k (packed), then rotate back. */
void algo_alltoall_bruck(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t blk = a->rbytes;
    const char *src = send_source(s, a, (size_t)size * blk);
    char *r = a->rbuf, *tmp = sched_tmp(s, (size_t)size * blk);
    char *pack = sched_tmp(s, (size_t)(size / 2 + 1) * blk);
    char *unpack = sched_tmp(s, (size_t)(size / 2 + 1) * blk);
    sched_copy(s, tmp, src + (size_t)rank * blk, (size_t)(size - rank) * blk);
    sched_copy(s, tmp + (size_t)(size - rank) * blk, src, (size_t)rank * blk);
    for (int pof = 1; pof < size; pof <<= 1) {
        int n = 0;
        for (int j = 1; j < size; j++)
            if (j & pof)
                sched_copy(s, pack + (size_t)n++ * blk, tmp + (size_t)j * blk, blk);
        sched_send(s, pack, (size_t)n * blk, (rank + pof) % size);
        sched_recv(s, unpack, (size_t)n * blk, (rank - pof + size) % size);
        sched_fence(s);
        n = 0;
        for (int j = 1; j < size; j++)
            if (j & pof)
                sched_copy(s, tmp + (size_t)j * blk, unpack + (size_t)n++ * blk, blk);
    }
    /* block j came from rank - j */
    for (int j = 0; j < size; j++)
        sched_copy(s, r + (size_t)((rank - j + size) % size) * blk, tmp + (size_t)j * blk, blk);
}

void algo_alltoall_pairwise(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t blk = a->rbytes;
    const char *src = send_source(s, a, (size_t)size * blk);
    char *r = a->rbuf;
    sched_copy(s, r + (size_t)rank * blk, src + (size_t)rank * blk, blk);
    for (int i = 1; i < size; i++) {
        int to = (rank + i) % size, from = (rank - i + size) % size;
        sched_send(s, src + (size_t)to * blk, blk, to);
        sched_recv(s, r + (size_t)from * blk, blk, from);
        sched_fence(s);
    }
}

/* v and w: byte counts and displacements per peer. */
void algo_alltoallv_pairwise(sched_t *s, int rank, int size, const coll_args_t *a)
{
    const char *src = a->sbuf;
    const size_t *scb = a->scb, *sdb = a->sdb;
    char *r = a->rbuf;
    if (!src) { /* in place: what goes to i is where i's data will land */
        size_t total = 0;
        for (int i = 0; i < size; i++)
            if (a->rcb[i] && a->rdb[i] + a->rcb[i] > total)
                total = a->rdb[i] + a->rcb[i];
        src = send_source(s, a, total);
        scb = a->rcb;
        sdb = a->rdb;
    }
    if (a->sbuf)
        sched_copy(s, r + a->rdb[rank], src + sdb[rank], a->rcb[rank]);
    for (int i = 1; i < size; i++) {
        int to = (rank + i) % size, from = (rank - i + size) % size;
        if (scb[to])
            sched_send(s, src + sdb[to], scb[to], to);
        if (a->rcb[from])
            sched_recv(s, r + a->rdb[from], a->rcb[from], from);
        sched_fence(s);
    }
}

/* ---- reduce_scatter --------------------------------------------------------- */

/* Commutative: in step i receive rank-i's contribution to my block. */
void algo_reduce_scatter_pairwise(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t ext = a->red.extent;
    const char *src = a->sbuf;
    if (!src) {
        size_t total = a->rdb[size - 1] + a->rcb[size - 1];
        src = send_source(s, a, total);
    }
    size_t mine = a->rcb[rank];
    char *tmp = mine ? sched_tmp(s, mine) : NULL;
    sched_copy(s, a->rbuf, src + a->rdb[rank], mine);
    for (int i = 1; i < size; i++) {
        int to = (rank + i) % size, from = (rank - i + size) % size;
        if (a->rcb[to])
            sched_send(s, src + a->rdb[to], a->rcb[to], to);
        if (mine)
            sched_recv(s, tmp, mine, from);
        sched_fence(s);
        sched_reduce(s, tmp, a->rbuf, mine / ext, &a->red);
    }
}

/* Any op: reduce the whole vector to rank 0 (in rank order), then scatterv. */
void algo_reduce_scatter_via_reduce(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t total = a->rdb[size - 1] + a->rcb[size - 1];
    coll_args_t r = *a;
    r.root = 0;
    r.count = total / a->red.extent;
    r.sbuf = a->sbuf ? a->sbuf : a->rbuf;
    r.rbuf = rank == 0 ? sched_tmp(s, total) : NULL;
    algo_reduce_binomial(s, rank, size, &r);
    coll_args_t sc = *a;
    sc.root = 0;
    sc.sbuf = r.rbuf;
    sc.scb = a->rcb;
    sc.sdb = a->rdb;
    sc.rbytes = a->rcb[rank];
    algo_scatterv_linear(s, rank, size, &sc);
}

/* ---- scan ------------------------------------------------------------------- */

/* Recursive doubling: 'partial' holds the reduction of my aligned group of
 * ranks, rbuf the prefix up to me; lower partners' data goes in front. */
void algo_scan_recdbl(sched_t *s, int rank, int size, const coll_args_t *a, int exclusive)
{
    size_t bytes = a->count * a->red.extent;
    char *partial = sched_tmp(s, bytes), *tmp = sched_tmp(s, bytes);
    sched_copy(s, partial, a->sbuf ? a->sbuf : a->rbuf, bytes);
    if (!exclusive && a->sbuf)
        sched_copy(s, a->rbuf, a->sbuf, bytes);
    int have = !exclusive; /* rbuf holds something yet */
    for (int mask = 1; mask < size; mask <<= 1) {
        int dst = rank ^ mask;
        if (dst >= size)
            continue;
        sched_send(s, partial, bytes, dst);
        sched_recv(s, tmp, bytes, dst);
        sched_fence(s);
        if (dst < rank) {
            if (have) {
                sched_reduce(s, tmp, a->rbuf, a->count, &a->red);
            } else {
                sched_copy(s, a->rbuf, tmp, bytes);
                have = 1;
            }
            sched_reduce(s, tmp, partial, a->count, &a->red);
        } else if (a->red.op->commute) {
            sched_reduce(s, tmp, partial, a->count, &a->red);
        } else {
            sched_reduce(s, partial, tmp, a->count, &a->red);
            sched_copy(s, partial, tmp, bytes);
        }
    }
}
