/*
 * heap.c — the symmetric heap's allocator: shmem_malloc, calloc, align,
 * realloc, free, malloc_with_hints.
 *
 * Every PE makes the same calls with the same sizes (the standard requires
 * it), and the allocator is deterministic (core/first_fit.h: first fit over
 * offsets, neighbours merged on free), so a block has the same offset on
 * every PE: that is what makes it symmetric.
 * The calls end (malloc, calloc, align, realloc) or start (free, realloc)
 * with a barrier, as the standard says.
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/first_fit.h"
#include "shmemi.h"

#define MIN_ALIGN 16

static skf_ff_t heap; /* offsets from the user part's start */
static char *user_base;

int shmemi_heap_init(size_t user_bytes)
{
    user_base = shmemi.heap.base + shmemi.heap_reserved;
    return skf_ff_init(&heap, user_bytes);
}

void shmemi_heap_finalize(void)
{
    skf_ff_fini(&heap);
}

static void *alloc(const char *call, size_t align, size_t size)
{
    size_t off;
    if (!size)
        return NULL;
    /* aligned as an address (the heap's base is aligned alike in every PE) */
    if (skf_ff_alloc(&heap, (uintptr_t)user_base, align, MIN_ALIGN, size, &off) == 0)
        return user_base + off;
    fprintf(stderr, "shmem: PE %d: %s: cannot allocate %zu bytes: the symmetric heap has "
                    "%zu bytes (SHMEM_SYMMETRIC_SIZE), its largest free block %zu; set "
                    "SHMEM_SYMMETRIC_SIZE larger\n",
            shmemi.me, call, size, shmemi.heap_user, skf_ff_largest_free(&heap));
    return NULL;
}

/* ptr's offset, when it is a live block of the heap (else a fatal error naming call). */
static size_t block_of(const char *call, void *ptr, size_t *size)
{
    size_t off = (size_t)((char *)ptr - user_base);
    if ((char *)ptr < user_base || !(*size = skf_ff_block_size(&heap, off)))
        shmemi_fatal(call, "%p was not returned by shmem_malloc (or is already freed)", ptr);
    return off;
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
    size_t size;
    skf_ff_free(&heap, block_of("shmem_free", ptr, &size));
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
    size_t had, off = block_of("shmem_realloc", ptr, &had);
    void *p = ptr;
    if (skf_ff_resize(&heap, off, MIN_ALIGN, size) != 0 && /* in place, or moved: */
        (p = alloc("shmem_realloc", MIN_ALIGN, size))) {
        memcpy(p, ptr, had < size ? had : size);
        skf_ff_free(&heap, off);
    }
    shmem_barrier_all();
    return p;
}

void *shmalloc(size_t size) { return shmem_malloc(size); }
void *shmemalign(size_t alignment, size_t size) { return shmem_align(alignment, size); }
void *shrealloc(void *ptr, size_t size) { return shmem_realloc(ptr, size); }
void shfree(void *ptr) { shmem_free(ptr); }
