/*
 * first_fit.c — the first-fit offset allocator (first_fit.h).  Lists stay
 * short in practice (a few blocks per live allocation), so a plain singly
 * linked list in offset order is enough.
 */
#include "core/first_fit.h"

#include <errno.h>
#include <stdlib.h>

struct skf_ff_block {
    size_t off, size;
    int used;
    struct skf_ff_block *next;
};

int skf_ff_init(skf_ff_t *a, size_t bytes)
{
    a->live = 0;
    if (!(a->head = calloc(1, sizeof *a->head)))
        return -ENOMEM;
    a->head->size = bytes;
    return 0;
}

void skf_ff_fini(skf_ff_t *a)
{
    while (a->head) {
        struct skf_ff_block *b = a->head;
        a->head = b->next;
        free(b);
    }
    a->live = 0;
}

/* Splits free block b at `at` (a new free block from there on); 0 or -ENOMEM. */
static int split(struct skf_ff_block *b, size_t at)
{
    struct skf_ff_block *n = malloc(sizeof *n);
    if (!n)
        return -ENOMEM;
    *n = (struct skf_ff_block){at, b->off + b->size - at, 0, b->next};
    b->size = at - b->off;
    b->next = n;
    return 0;
}

static int round_up(size_t size, size_t grain, size_t *out)
{
    if (size > SIZE_MAX - (grain - 1))
        return -ENOMEM;
    *out = (size + grain - 1) & ~(grain - 1);
    return 0;
}

int skf_ff_alloc(skf_ff_t *a, uintptr_t base, size_t align, size_t grain, size_t size,
                 size_t *off)
{
    size_t want;
    if (round_up(size ? size : 1, grain, &want))
        return -ENOMEM;
    for (struct skf_ff_block *b = a->head; b; b = b->next) {
        if (b->used)
            continue;
        uintptr_t at = (base + b->off + align - 1) & ~(uintptr_t)(align - 1);
        size_t start = (size_t)(at - base), end = b->off + b->size;
        if (start >= end || want > end - start)
            continue;
        /* the front piece (alignment) and the tail stay free */
        if (start > b->off) {
            if (split(b, start))
                return -ENOMEM;
            b = b->next;
        }
        if (b->size > want && split(b, b->off + want))
            return -ENOMEM; /* the front piece stays a free block of its own: harmless */
        b->used = 1;
        a->live++;
        *off = b->off;
        return 0;
    }
    return -ENOMEM;
}

static struct skf_ff_block *find(const skf_ff_t *a, size_t off, struct skf_ff_block **prev)
{
    struct skf_ff_block *p = NULL;
    for (struct skf_ff_block *b = a->head; b && b->off <= off; p = b, b = b->next)
        if (b->off == off && b->used) {
            if (prev)
                *prev = p;
            return b;
        }
    return NULL;
}

/* b (free now) merges with free neighbours. */
static void merge(struct skf_ff_block *b, struct skf_ff_block *prev)
{
    struct skf_ff_block *n = b->next;
    if (n && !n->used) {
        b->size += n->size;
        b->next = n->next;
        free(n);
    }
    if (prev && !prev->used) {
        prev->size += b->size;
        prev->next = b->next;
        free(b);
    }
}

int skf_ff_free(skf_ff_t *a, size_t off)
{
    struct skf_ff_block *prev, *b = find(a, off, &prev);
    if (!b)
        return -EINVAL;
    b->used = 0;
    a->live--;
    merge(b, prev);
    return 0;
}

size_t skf_ff_block_size(const skf_ff_t *a, size_t off)
{
    struct skf_ff_block *b = find(a, off, NULL);
    return b ? b->size : 0;
}

int skf_ff_resize(skf_ff_t *a, size_t off, size_t grain, size_t size)
{
    struct skf_ff_block *b = find(a, off, NULL);
    size_t want;
    if (!b)
        return -EINVAL;
    if (round_up(size ? size : 1, grain, &want))
        return -ENOMEM;
    struct skf_ff_block *n = b->next;
    if (want > b->size) { /* grow into the free block after */
        if (!n || n->used || want - b->size > n->size)
            return -ENOMEM;
        size_t take = want - b->size;
        if (take == n->size) {
            b->next = n->next;
            free(n);
        } else {
            n->off += take;
            n->size -= take;
        }
        b->size = want;
    } else if (want < b->size) { /* the tail becomes free */
        if (n && !n->used) {
            n->off -= b->size - want;
            n->size += b->size - want;
            b->size = want;
        } else {
            split(b, b->off + want); /* without memory for it the block keeps its size */
        }
    }
    return 0;
}

size_t skf_ff_largest_free(const skf_ff_t *a)
{
    size_t m = 0;
    for (const struct skf_ff_block *b = a->head; b; b = b->next)
        if (!b->used && b->size > m)
            m = b->size;
    return m;
}
