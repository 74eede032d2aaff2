/* heap.c — the symmetric heap and symmetric global/static variables:
 * allocations are symmetric (a put to the block on another PE lands in that
 * PE's block), free/realloc/align/calloc/with_hints behave, freed space is
 * reused, a full heap says so and returns NULL (SHMEM_SYMMETRIC_SIZE=4M in
 * the test), and initialised data, bss and function statics are symmetric. */
#include <stdio.h>
#include <stdlib.h>

#include "shtest.h"

int data_var[100] = {42, 43};       /* .data */
static double bss_var[1000];        /* .bss */
static char big_bss[3 << 20];       /* 3 MiB, over many pages */

static void check_block(void *p, size_t n, int round)
{
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    unsigned char *src = malloc(n);
    CHECK(src);
    fill(src, n, me, round);
    shmem_putmem(p, src, n, right);
    shmem_barrier_all();
    CHECK_PATTERN(p, n, left, round);
    shmem_barrier_all();
    free(src);
}

int main(void)
{
    test_init();
    /* malloc / free / reuse */
    void *a = shmem_malloc(1000), *b = shmem_malloc(5000), *c = shmem_align(4096, 100);
    CHECK(a && b && c && ((uintptr_t)c % 4096) == 0);
    check_block(a, 1000, 1);
    check_block(b, 5000, 2);
    check_block(c, 100, 3);
    shmem_free(b);
    void *b2 = shmem_malloc(4000); /* fits where b was */
    CHECK(b2 == b);
    check_block(b2, 4000, 4);
    /* realloc keeps the bytes, grows in place or moves */
    unsigned char *r = shmem_realloc(a, 20000);
    CHECK(r);
    CHECK_PATTERN(r, 1000, (me - 1 + npes) % npes, 1);
    shmem_barrier_all(); /* before the neighbour's next put */
    check_block(r, 20000, 5);
    r = shmem_realloc(r, 10);
    CHECK(r);
    CHECK_PATTERN(r, 10, (me - 1 + npes) % npes, 5);
    shmem_barrier_all();
    long *z = shmem_calloc(1000, sizeof(long));
    CHECK(z);
    for (int i = 0; i < 1000; i++)
        CHECK(z[i] == 0);
    void *h = shmem_malloc_with_hints(256, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(h);
    check_block(h, 256, 6);
    CHECK(shmem_malloc(0) == NULL);
    shmem_free(NULL);
    /* exhaustion: NULL on every PE, with a message on stderr (the test reads it) */
    void *huge = shmem_malloc((size_t)64 << 20);
    CHECK(huge == NULL);
    void *after = shmem_malloc(100); /* still usable */
    CHECK(after);
    check_block(after, 100, 7);
    shmem_free(after);
    shmem_free(h);
    shmem_free(z);
    shmem_free(r);
    shmem_free(b2);
    shmem_free(c);
    /* globals */
    CHECK(data_var[0] == 42 && data_var[1] == 43); /* the move kept the values */
    shmem_barrier_all();
    check_block(data_var, sizeof data_var, 8);
    check_block(bss_var, sizeof bss_var, 9);
    check_block(big_bss, sizeof big_bss, 10);
    static int fn_static[17];
    check_block(fn_static, sizeof fn_static, 11);
    data_var[99] = 0;
    shmem_barrier_all();
    shmem_int_atomic_add(&data_var[99], 1, 0);
    shmem_barrier_all();
    CHECK(shmem_int_atomic_fetch(&data_var[99], 0) == npes);
    /* shmem_ptr to a node mate's global is a plain pointer; others get a put */
    int right = (me + 1) % npes;
    int *rp = shmem_ptr(&data_var[5], right);
    CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, &data_var[5], right) == (void *)rp);
    shmem_barrier_all();
    if (rp)
        *rp = 1000 + me;
    else
        shmem_int_p(&data_var[5], 1000 + me, right);
    shmem_barrier_all();
    CHECK(data_var[5] == 1000 + (me - 1 + npes) % npes);
    if (me == 0)
        printf("heap: %d PEs: every check passed\n", npes);
    shmem_finalize();
    return 0;
}
