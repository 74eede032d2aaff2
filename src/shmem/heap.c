/*
 * heap.c — the symmetric heap's allocator: shmem_malloc, calloc, align,
 * realloc, free, malloc_with_hints.
 *
 * Every PE makes the same calls with the same sizes (the standard requires
 * it), and the allocator is deterministic — first fit over a list of blocks
 * kept in private memory, sorted by offset, neighbours merged on free — so a
 * block has the same offset on every PE: that is what makes it symmetric.
 * The calls end (malloc, calloc, align, realloc) or start (free, realloc)
 * with a barrier, as the standard says.
 */
#include <stdio.h>
#include <stdlib.h>

#include "shmemi.h"

#define MIN_ALIGN 16

struct block {
    size_t off, size;
    int used;
    struct block *next;
};
static struct block *blocks; /* offsets from the user part's start */
static char *user_base;

int shmemi_heap_init(size_t user_bytes)
{
    user_base = shmemi.heap.base + shmemi.heap_reserved;
    blocks = calloc(1, sizeof *blocks);
    if (!blocks)
        return -1;
    blocks->size = user_bytes;
    return 0;
}

void shmemi_heap_finalize(void)
{
    while (blocks) {
        struct block *b = blocks;
        blocks = b->next;
        free(b);
    }
}

/* Split b so that a block starts at off with the given size; returns it. */
static struct block *carve(struct block *b, size_t off, size_t size)
{
    if (off > b->off) { /* a free front piece stays before */
        struct block *n = malloc(sizeof *n);
        if (!n)
            return NULL;
        *n = (struct block){off, b->size - (off - b->off), 0, b->next};
        b->size = off - b->off;
        b->next = n;
        b = n;
    }
    if (b->size > size) { /* a free tail after */
        struct block *n = malloc(sizeof *n);
        if (!n)
            return NULL;
        *n = (struct block){b->off + size, b->size - size, 0, b->next};
        b->size = size;
        b->next = n;
    }
    b->used = 1;
    return b;
}

static size_t largest_free(void)
{
    size_t m = 0;
    for (struct block *b = blocks; b; b = b->next)
        if (!b->used && b->size > m)
            m = b->size;
    return m;
}

static void *alloc(const char *call, size_t align, size_t size)
{
    if (!size)
        return NULL;
    size_t want = (size + MIN_ALIGN - 1) / MIN_ALIGN * MIN_ALIGN;
    if (want < size)
        want = SIZE_MAX;
    for (struct block *b = blocks; b && want != SIZE_MAX; b = b->next) {
        if (b->used)
            continue;
        /* aligned as an address (the heap's base is aligned alike in every PE) */
        uintptr_t at = ((uintptr_t)user_base + b->off + align - 1) & ~(uintptr_t)(align - 1);
        size_t start = (size_t)(at - (uintptr_t)user_base);
        if (start < b->off + b->size && want <= b->off + b->size - start) {
            struct block *got = carve(b, start, want);
            if (!got)
                break;
            return user_base + got->off;
        }
    }
    fprintf(stderr, "shmem: PE %d: %s: cannot allocate %zu bytes: the symmetric heap has "
                    "%zu bytes (SHMEM_SYMMETRIC_SIZE), its largest free block %zu; set "
                    "SHMEM_SYMMETRIC_SIZE larger\n",
            shmemi.me, call, size, shmemi.heap_user, largest_free());
    return NULL;
}

static struct block *find(const char *call, void *ptr, struct block **prev)
{
    *prev = NULL;
    size_t off = (size_t)((char *)ptr - user_base);
    for (struct block *b = blocks; b; *prev = b, b = b->next)
        if (b->off == off && b->used)
            return b;
    shmemi_fatal(call, "%p was not returned by shmem_malloc (or is already freed)", ptr);
}

static void release(struct block *b, struct block *prev)
{
    b->used = 0;
    struct block *n = b->next;
    if (n && !n->used) { /* merge the free block after */
        b->size += n->size;
        b->next = n->next;
        free(n);
    }
    if (prev && !prev->used) { /* and the one before */
        prev->size += b->size;
        prev->next = b->next;
        free(b);
    }
}

void *shmem_malloc(size_t size)
{
    shmemi_check_init("shmem_malloc");
    void *p = alloc("shmem_malloc", MIN_ALIGN, size);
    shmem_barrier_all();
    return p;
}

void *shmem_malloc_with_hints(size_t size, long hints)
{
    shmemi_check_init("shmem_malloc_with_hints");
    (void)hints; /* every heap word already takes remote atomics and signals; hints this
                    library does not know are ignored, as the standard allows */
    void *p = alloc("shmem_malloc_with_hints", MIN_ALIGN, size);
    shmem_barrier_all();
    return p;
}

void *shmem_calloc(size_t count, size_t size)
{
    shmemi_check_init("shmem_calloc");
    void *p = NULL;
    if (size && count > SIZE_MAX / size)
        fprintf(stderr, "shmem: PE %d: shmem_calloc: %zu elements of %zu bytes overflow\n",
                shmemi.me, count, size);
    else if ((p = alloc("shmem_calloc", MIN_ALIGN, count * size)))
        memset(p, 0, count * size);
    shmem_barrier_all();
    return p;
}

void *shmem_align(size_t alignment, size_t size)
{
    shmemi_check_init("shmem_align");
    void *p = NULL;
    if (!alignment || (alignment & (alignment - 1)) || alignment > SHMEMI_HEAP_ALIGN)
        fprintf(stderr, "shmem: PE %d: shmem_align: alignment %zu is not a power of two up to "
                        "%zu\n", shmemi.me, alignment, SHMEMI_HEAP_ALIGN);
    else
        p = alloc("shmem_align", alignment < MIN_ALIGN ? MIN_ALIGN : alignment, size);
    shmem_barrier_all();
    return p;
}

void shmem_free(void *ptr)
{
    shmemi_check_init("shmem_free");
    shmem_barrier_all(); /* nobody still reaches into it */
    if (!ptr)
        return;
    struct block *prev, *b = find("shmem_free", ptr, &prev);
    release(b, prev);
}

void *shmem_realloc(void *ptr, size_t size)
{
    shmemi_check_init("shmem_realloc");
    if (!ptr)
        return shmem_malloc(size);
    if (!size) {
        shmem_free(ptr);
        return NULL;
    }
    shmem_barrier_all();
    struct block *prev, *b = find("shmem_realloc", ptr, &prev);
    size_t want = (size + MIN_ALIGN - 1) / MIN_ALIGN * MIN_ALIGN;
    void *p = ptr;
    struct block *n = b->next;
    if (want <= b->size) { /* shrink in place: the tail becomes free */
        if (want < b->size) {
            struct block *t = malloc(sizeof *t);
            if (t) {
                *t = (struct block){b->off + want, b->size - want, 1, b->next};
                b->size = want;
                b->next = t;
                release(t, b);
            }
        }
    } else if (n && !n->used && b->size + n->size >= want) { /* grow into the next block */
        carve(n, n->off, want - b->size);
        b->size = want;
        b->next = n->next;
        free(n);
    } else if ((p = alloc("shmem_realloc", MIN_ALIGN, size))) {
        memcpy(p, ptr, b->size);
        b = find("shmem_realloc", ptr, &prev); /* alloc may have split the list */
        release(b, prev);
    }
    shmem_barrier_all();
    return p;
}

void *shmalloc(size_t size) { return shmem_malloc(size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void shfree(void *ptr) { shmem_free(ptr); }
