/*
 * first_fit_test — the offset allocator (src/core/first_fit.h) against a
 * shadow map of the region: random allocations (sizes, alignments) and
 * frees; every block inside the region, aligned, rounded to its grain, and
 * overlapping no other live block; exhaustion leaves the region unchanged;
 * resize in place (grow into free space, shrink); freeing everything gives
 * back one free piece of the whole region; bad frees are refused.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/first_fit.h"

#define BYTES (1u << 16)
#define SLOTS 200
#define FAIL(...)                                                                        \
    do {                                                                                 \
        fprintf(stderr, "first_fit_test: " __VA_ARGS__);                                 \
        fputc('\n', stderr);                                                             \
        exit(1);                                                                         \
    } while (0)

static unsigned char owner[BYTES]; /* shadow: which slot + 1 owns each byte */
static struct { size_t off, size; int live; } slot[SLOTS];

static void claim(int s, size_t off, size_t size)
{
    if (off + size > BYTES)
        FAIL("block %zu+%zu leaves the region", off, size);
    for (size_t i = off; i < off + size; i++) {
        if (owner[i])
            FAIL("block %zu+%zu overlaps slot %d at %zu", off, size, owner[i] - 1, i);
        owner[i] = (unsigned char)(s + 1);
    }
    slot[s].off = off;
    slot[s].size = size;
    slot[s].live = 1;
}

static void unclaim(int s)
{
    memset(owner + slot[s].off, 0, slot[s].size);
    slot[s].live = 0;
}

static void random_ops(skf_ff_t *a, uintptr_t base, unsigned seed)
{
    srand(seed);
    for (int step = 0; step < 20000; step++) {
        int s = rand() % SLOTS;
        if (slot[s].live) {
            if (rand() % 4 == 0) { /* resize in place, or stay */
                size_t want = (size_t)(rand() % 3000) + 1, grain = 16;
                int rc = skf_ff_resize(a, slot[s].off, grain, want);
                size_t now = skf_ff_block_size(a, slot[s].off);
                size_t off = slot[s].off;
                if (rc == 0 && now != ((want + 15) & ~(size_t)15))
                    FAIL("resize to %zu gave %zu", want, now);
                if (rc != 0 && rc != -ENOMEM)
                    FAIL("resize returned %d", rc);
                unclaim(s);
                claim(s, off, now);
                continue;
            }
            if (skf_ff_free(a, slot[s].off) != 0)
                FAIL("freeing a live block at %zu failed", slot[s].off);
            unclaim(s);
            continue;
        }
        size_t size = (size_t)(rand() % 3000), align = (size_t)1 << (rand() % 9), grain = 16, off;
        size_t live = a->live;
        if (skf_ff_alloc(a, base, align, grain, size, &off) != 0) {
            if (a->live != live)
                FAIL("a failed allocation changed the live count");
            continue;
        }
        if ((base + off) % align)
            FAIL("offset %zu not aligned to %zu at base %#lx", off, align, (unsigned long)base);
        size_t got = skf_ff_block_size(a, off);
        if (got < (size ? size : 1) || got % grain)
            FAIL("asked %zu, the block has %zu", size, got);
        claim(s, off, got);
    }
}

int main(void)
{
    skf_ff_t a;
    for (unsigned seed = 1; seed <= 4; seed++) {
        uintptr_t base = seed % 2 ? 0x10000 : 0x10008; /* alignment is of base + offset */
        if (skf_ff_init(&a, BYTES) != 0)
            FAIL("init");
        random_ops(&a, base, seed);
        for (int s = 0; s < SLOTS; s++)
            if (slot[s].live) {
                if (skf_ff_free(&a, slot[s].off + 1) != -EINVAL)
                    FAIL("freeing inside a block was accepted");
                if (skf_ff_free(&a, slot[s].off) != 0)
                    FAIL("free at %zu", slot[s].off);
                if (skf_ff_free(&a, slot[s].off) != -EINVAL)
                    FAIL("a double free was accepted");
                unclaim(s);
            }
        if (a.live != 0 || skf_ff_largest_free(&a) != BYTES)
            FAIL("after freeing everything: %zu live, largest free %zu of %u", a.live,
                 skf_ff_largest_free(&a), BYTES);
        size_t off;
        if (skf_ff_alloc(&a, base, 1, 16, BYTES + 1, &off) != -ENOMEM ||
            skf_ff_alloc(&a, base, 1, 16, (size_t)-1, &off) != -ENOMEM)
            FAIL("an allocation larger than the region succeeded");
        if (skf_ff_alloc(&a, 0, 16, 16, BYTES, &off) != 0 || off != 0)
            FAIL("the whole region in one block");
        skf_ff_fini(&a);
    }
    printf("first_fit_test: passed\n");
    return 0;
}
