/*
 * first_fit.h — a first-fit allocator of offsets in one region (a list of
 * blocks in private memory, sorted by offset, free neighbours merged).  It
 * manages offsets only, never the region's bytes, so the region can be
 * shared memory that other processes map.  Deterministic: the same calls
 * give the same offsets, which OpenSHMEM's symmetric heap relies on.
 */
#ifndef SKIFF_CORE_FIRST_FIT_H
#define SKIFF_CORE_FIRST_FIT_H

#include <stddef.h>
#include <stdint.h>

struct skf_ff_block;

typedef struct skf_ff {
    struct skf_ff_block *head;
    size_t live;  /* blocks handed out and not freed */
} skf_ff_t;

/* A region of `bytes`, all free.  0, or -ENOMEM. */
int skf_ff_init(skf_ff_t *a, size_t bytes);
void skf_ff_fini(skf_ff_t *a);

/* The first free piece that holds `size` bytes at an address (base + offset)
 * aligned to `align` (a power of two); size is rounded up to a multiple of
 * `grain` (a power of two) so blocks start aligned to it.  0 with *off, or
 * -ENOMEM (nothing fits; the region is unchanged). */
int skf_ff_alloc(skf_ff_t *a, uintptr_t base, size_t align, size_t grain, size_t size,
                 size_t *off);

/* Frees the live block starting at off.  0, or -EINVAL (no live block starts there). */
int skf_ff_free(skf_ff_t *a, size_t off);

/* The size of the live block at off (its rounded size), or 0 when there is none. */
size_t skf_ff_block_size(const skf_ff_t *a, size_t off);

/* Resizes the live block at off in place (shrinking, or growing into the free
 * block right after it) to `size` rounded up to grain.  0, or -ENOMEM (it
 * cannot grow there: unchanged), or -EINVAL (no live block at off). */
int skf_ff_resize(skf_ff_t *a, size_t off, size_t grain, size_t size);

/* The largest free piece (for error messages). */
size_t skf_ff_largest_free(const skf_ff_t *a);

#endif
