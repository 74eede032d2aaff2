/*
 * algo_tree.c — rooted collectives on point-to-point: barrier
 * (dissemination), bcast (binomial tree; scatter + ring allgather for long
 * messages), reduce (binomial tree), gather/scatter (binomial tree),
 * gatherv/scatterv (linear).
 *
 * Trees work in ranks relative to the root (vr = rank - root mod size), so
 * they are correct for any size and any root.  A non-commutative reduce runs
 * its tree rooted at rank 0 — every subtree then covers a contiguous range
 * of ranks and the operands combine in rank order — and rank 0 forwards the
 * result to the real root.
 */
#include "coll/coll.h"

static inline int real_rank(int vr, int root, int size) { return (vr + root) % size; }

/* Subtree of vr in a binomial tree over size ranks: ranks [vr, vr + n). */
static int subtree(int vr, int size)
{
    int mask = 1;
    while (mask < size && !(vr & mask))
        mask <<= 1;
    return vr + mask < size ? mask : size - vr;
}

void algo_barrier_dissemination(sched_t *s, int rank, int size)
{
    for (int k = 1; k < size; k <<= 1) {
        sched_send(s, NULL, 0, (rank + k) % size);
        sched_recv(s, NULL, 0, (rank - k + size) % size);
        sched_fence(s);
    }
}

void algo_bcast_binomial(sched_t *s, int rank, int size, void *buf, size_t bytes, int root)
{
    int vr = (rank - root + size) % size, mask = 1;
    for (; mask < size; mask <<= 1)
        if (vr & mask) {
            sched_recv(s, buf, bytes, real_rank(vr - mask, root, size));
            sched_fence(s);
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < size)
            sched_send(s, buf, bytes, real_rank(vr + mask, root, size));
    sched_fence(s);
}

/* Bytes of chunk range [first, last) when bytes are cut into chunks of cs. */
static size_t chunk_span(size_t bytes, size_t cs, long first, long last)
{
    size_t lo = (size_t)first * cs, hi = (size_t)last * cs;
    if (hi > bytes)
        hi = bytes;
    return hi > lo ? hi - lo : 0;
}

/* van de Geijn: binomial scatter of size chunks, then a ring allgather. */
void algo_bcast_scatter_ring(sched_t *s, int rank, int size, void *buf, size_t bytes, int root)
{
    char *b = buf;
    size_t cs = (bytes + (size_t)size - 1) / (size_t)size;
    int vr = (rank - root + size) % size;
    int mask = 1;
    for (; mask < size; mask <<= 1)
        if (vr & mask) {
            size_t n = chunk_span(bytes, cs, vr, vr + mask);
            if (n) {
                sched_recv(s, b + (size_t)vr * cs, n, real_rank(vr - mask, root, size));
                sched_fence(s);
            }
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        if (child >= size)
            continue;
        size_t n = chunk_span(bytes, cs, child, child + mask);
        if (n)
            sched_send(s, b + (size_t)child * cs, n, real_rank(child, root, size));
    }
    sched_fence(s);
    int left = real_rank((vr - 1 + size) % size, root, size);
    int right = real_rank((vr + 1) % size, root, size);
    for (int i = 0; i < size - 1; i++) {
        int sc = (vr - i + size) % size, rc = (vr - i - 1 + size) % size;
        size_t sn = chunk_span(bytes, cs, sc, sc + 1), rn = chunk_span(bytes, cs, rc, rc + 1);
        if (sn)
            sched_send(s, b + (size_t)sc * cs, sn, right);
        if (rn)
            sched_recv(s, b + (size_t)rc * cs, rn, left);
        sched_fence(s);
    }
}

void algo_reduce_binomial(sched_t *s, int rank, int size, const coll_args_t *a)
{
    size_t bytes = a->count * a->red.extent;
    int commute = a->red.op->commute;
    int troot = commute ? a->root : 0; /* root of the tree */
    int vr = (rank - troot + size) % size;
    const void *acc = a->sbuf ? a->sbuf : a->rbuf; /* in place: only at the root */
    void *tmp[2] = {NULL, NULL};
    int which = 0;
    for (int mask = 1; mask < size; mask <<= 1) {
        if (vr & mask) {
            sched_send(s, acc, bytes, real_rank(vr - mask, troot, size));
            sched_fence(s);
            break;
        }
        int child = vr + mask;
        if (child >= size)
            continue;
        if (!tmp[which])
            tmp[which] = sched_tmp(s, bytes);
        sched_recv(s, tmp[which], bytes, real_rank(child, troot, size));
        sched_fence(s);
        /* acc covers the ranks just below the child's: acc op child */
        sched_reduce(s, acc, tmp[which], a->count, &a->red);
        acc = tmp[which];
        which ^= 1;
    }
    if (rank == troot) {
        if (troot == a->root) {
            sched_copy(s, a->rbuf, acc, bytes);
        } else {
            sched_send(s, acc, bytes, a->root);
            sched_fence(s);
        }
    } else if (rank == a->root) {
        sched_recv(s, a->rbuf, bytes, troot);
        sched_fence(s);
    }
}

/* Gather: every subtree collects its blocks (relative order) and passes them up. */
void algo_gather_binomial(sched_t *s, int rank, int size, const coll_args_t *a)
{
    int root = a->root, vr = (rank - root + size) % size;
    size_t blk = rank == root ? a->rbytes : a->sbytes;
    if (!blk)
        return;
    int n = subtree(vr, size);
    char *own = rank == root && !a->sbuf ? (char *)a->rbuf + (size_t)rank * blk : (char *)a->sbuf;
    char *buf;
    if (n == 1) {
        buf = own; /* a leaf sends its own block */
    } else if (vr == 0 && root == 0) {
        buf = a->rbuf; /* relative order is real order */
        sched_copy(s, buf, own, blk);
    } else {
        buf = sched_tmp(s, (size_t)n * blk);
        sched_copy(s, buf, own, blk);
    }
    for (int mask = 1; mask < n; mask <<= 1) {
        int child = vr + mask;
        int cn = size - child < mask ? size - child : mask;
        sched_recv(s, buf + (size_t)mask * blk, (size_t)cn * blk, real_rank(child, root, size));
    }
    sched_fence(s);
    if (vr) {
        int mask = 1;
        while (!(vr & mask))
            mask <<= 1;
        sched_send(s, buf, (size_t)n * blk, real_rank(vr - mask, root, size));
        sched_fence(s);
    } else if (root != 0) {
        /* relative block j belongs to rank (j + root) % size */
        char *r = a->rbuf;
        sched_copy(s, r + (size_t)root * blk, buf, (size_t)(size - root) * blk);
        sched_copy(s, r, buf + (size_t)(size - root) * blk, (size_t)root * blk);
    }
}

void algo_scatter_binomial(sched_t *s, int rank, int size, const coll_args_t *a)
{
    int root = a->root, vr = (rank - root + size) % size;
    size_t blk = rank == root ? a->sbytes : a->rbytes;
    if (!blk)
        return;
    int n = subtree(vr, size);
    char *buf;
    if (vr == 0) {
        if (root == 0) {
            buf = (char *)a->sbuf;
        } else {
            buf = sched_tmp(s, (size_t)size * blk);
            const char *sb = a->sbuf;
            sched_copy(s, buf, sb + (size_t)root * blk, (size_t)(size - root) * blk);
            sched_copy(s, buf + (size_t)(size - root) * blk, sb, (size_t)root * blk);
        }
    } else {
        buf = n == 1 ? a->rbuf : sched_tmp(s, (size_t)n * blk);
        int mask = 1;
        while (!(vr & mask))
            mask <<= 1;
        sched_recv(s, buf, (size_t)n * blk, real_rank(vr - mask, root, size));
        sched_fence(s);
    }
    int top = 1;
    while (top < n)
        top <<= 1;
    for (int mask = top >> 1; mask > 0; mask >>= 1) {
        int child = vr + mask;
        if (mask >= n || child >= size)
            continue;
        int cn = size - child < mask ? size - child : mask;
        sched_send(s, buf + (size_t)mask * blk, (size_t)cn * blk, real_rank(child, root, size));
    }
    if (a->rbuf) /* NULL: in place at the root, its block stays in sbuf */
        sched_copy(s, a->rbuf, buf, blk);
    sched_fence(s);
}

void algo_gatherv_linear(sched_t *s, int rank, int size, const coll_args_t *a)
{
    if (rank != a->root) {
        if (a->sbytes)
            sched_send(s, a->sbuf, a->sbytes, a->root);
        sched_fence(s);
        return;
    }
    char *r = a->rbuf;
    for (int i = 0; i < size; i++) {
        if (!a->rcb[i])
            continue;
        if (i == rank) {
            if (a->sbuf)
                sched_copy(s, r + a->rdb[i], a->sbuf, a->rcb[i]);
        } else {
            sched_recv(s, r + a->rdb[i], a->rcb[i], i);
        }
    }
    sched_fence(s);
}

void algo_scatterv_linear(sched_t *s, int rank, int size, const coll_args_t *a)
{
    if (rank != a->root) {
        if (a->rbytes)
            sched_recv(s, a->rbuf, a->rbytes, a->root);
        sched_fence(s);
        return;
    }
    const char *sb = a->sbuf;
    for (int i = 0; i < size; i++) {
        if (!a->scb[i])
            continue;
        if (i == rank) {
            if (a->rbuf)
                sched_copy(s, a->rbuf, sb + a->sdb[i], a->scb[i]);
        } else {
            sched_send(s, sb + a->sdb[i], a->scb[i], i);
        }
    }
    sched_fence(s);
}
