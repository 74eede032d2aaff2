/* rma.c — put/get byte for byte: typed, sized and mem forms, _nbi, strided,
 * p/g, ctx forms, put-with-signal; into the heap and into global and static
 * variables (the data segment); to the right neighbour, from the left. */
#include <stdio.h>
#include <stdlib.h>

#include "shtest.h"

#define MAXB (1 << 20)
static unsigned char global_buf[64 * 1024]; /* bss */
static long global_init[16] = {1, 2, 3};    /* data */
uint64_t global_sig;

static void sizes_mem(void *symm, size_t cap, const char *where)
{
    static const size_t sizes[] = {0, 1, 7, 8, 63, 64, 4095, 4096, 65536, 65537, MAXB};
    unsigned char *src = malloc(MAXB), *got = malloc(MAXB);
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    CHECK(src && got);
    for (int r = 0; r < (int)(sizeof sizes / sizeof *sizes); r++) {
        size_t n = sizes[r];
        if (n > cap)
            continue;
        fill(src, n, me, r);
        memset(symm, 0, cap);
        shmem_barrier_all();
        if (r % 3 == 0)
            shmem_putmem(symm, src, n, right);
        else if (r % 3 == 1)
            shmem_putmem_nbi(symm, src, n, right);
        else
            shmem_ctx_putmem(SHMEM_CTX_DEFAULT, symm, src, n, right);
        shmem_quiet();
        shmem_barrier_all();
        CHECK_PATTERN(symm, n, left, r);
        /* read it back from the right neighbour, whose copy holds mine */
        memset(got, 0, n);
        if (r % 2)
            shmem_getmem(got, symm, n, right);
        else
            shmem_getmem_nbi(got, symm, n, right);
        shmem_quiet();
        CHECK_PATTERN(got, n, me, r);
        shmem_barrier_all();
    }
    if (me == 0)
        printf("mem put/get into %s: sizes up to %zu checked\n", where, cap < MAXB ? cap : MAXB);
    free(src);
    free(got);
}

#define TYPED(T, N)                                                                            \
    static void typed_##N(T *symm, size_t n)                                                   \
    {                                                                                          \
        int right = (me + 1) % npes, left = (me - 1 + npes) % npes;                            \
        T *src = malloc(n * sizeof(T)), *got = malloc(n * sizeof(T));                          \
        CHECK(src && got);                                                                     \
        fill(src, n * sizeof(T), me, 40);                                                      \
        shmem_barrier_all();                                                                   \
        shmem_##N##_put(symm, src, n, right);                                                  \
        shmem_barrier_all();                                                                   \
        CHECK_PATTERN(symm, n * sizeof(T), left, 40);                                          \
        shmem_##N##_get(got, symm, n, left); /* left's copy holds left-left's */               \
        CHECK_PATTERN(got, n * sizeof(T), (left - 1 + npes) % npes, 40);                       \
        shmem_barrier_all();                                                                   \
        /* p and g element by element (values, not bit patterns: long double has       \
           padding), the ctx forms and nbi */                                                  \
        T *val = malloc(n * sizeof(T));                                                        \
        CHECK(val);                                                                            \
        for (size_t i = 0; i < n; i++)                                                         \
            val[i] = (T)((i * 7 + (size_t)me * 3) % 100);                                      \
        for (size_t i = 0; i < n; i++)                                                         \
            shmem_##N##_p(&symm[i], val[n - 1 - i], right);                                    \
        shmem_barrier_all();                                                                   \
        /* right's copy holds mine reversed */                                                 \
        for (size_t i = 0; i < n; i++) {                                                       \
            T g = i % 2 ? shmem_##N##_g(&symm[i], right)                                       \
                        : shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, &symm[i], right);               \
            CHECK(g == val[n - 1 - i]);                                                        \
        }                                                                                      \
        shmem_##N##_get_nbi(got, symm, n, right);                                              \
        shmem_quiet();                                                                         \
        for (size_t i = 0; i < n; i++)                                                         \
            CHECK(got[i] == val[n - 1 - i]);                                                   \
        free(val);                                                                             \
        shmem_barrier_all();                                                                   \
        /* strided: every 3rd element of src to every 2nd of dest */                           \
        memset(symm, 0, n * sizeof(T));                                                        \
        shmem_barrier_all();                                                                   \
        size_t k = n / 3;                                                                      \
        shmem_##N##_iput(symm, src, 2, 3, k, right);                                           \
        shmem_barrier_all();                                                                   \
        T *lsrc = malloc(n * sizeof(T));                                                       \
        CHECK(lsrc);                                                                           \
        fill(lsrc, n * sizeof(T), left, 40);                                                   \
        for (size_t i = 0; i < k; i++)                                                         \
            CHECK(memcmp(&symm[2 * i], &lsrc[3 * i], sizeof(T)) == 0);                         \
        for (size_t i = 0; i + 1 < k; i++) {                                                   \
            T zero;                                                                            \
            memset(&zero, 0, sizeof zero);                                                     \
            CHECK(memcmp(&symm[2 * i + 1], &zero, sizeof(T)) == 0);                            \
        }                                                                                      \
        memset(got, 0, n * sizeof(T));                                                         \
        shmem_##N##_iget(got, symm, 3, 2, k, right); /* right's copy holds mine */             \
        for (size_t i = 0; i < k; i++)                                                         \
            CHECK(memcmp(&got[3 * i], &src[3 * i], sizeof(T)) == 0);                           \
        shmem_barrier_all();                                                                   \
        free(src);                                                                             \
        free(got);                                                                             \
        free(lsrc);                                                                            \
    }
SHMEMI_RMA_TYPES(TYPED)

static void all_typed(void *symm, size_t bytes)
{
#define RUN(T, N) typed_##N((T *)symm, bytes / sizeof(T));
    SHMEMI_RMA_TYPES(RUN)
#undef RUN
}

/* Sized forms: elements of 1..16 bytes, blocking, nbi, strided. */
static void sized(unsigned char *symm)
{
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    unsigned char src[16 * 64], want[16 * 64];
    fill(src, sizeof src, me, 50);
    fill(want, sizeof want, left, 50);
#define SIZED(BITS, BYTES)                                                                     \
    memset(symm, 0, sizeof src);                                                               \
    shmem_barrier_all();                                                                       \
    shmem_put##BITS(symm, src, 64, right);                                                     \
    shmem_barrier_all();                                                                       \
    CHECK(memcmp(symm, want, 64 * BYTES) == 0);                                                \
    {                                                                                          \
        unsigned char g[16 * 64];                                                              \
        shmem_get##BITS##_nbi(g, symm, 64, right);                                             \
        shmem_quiet();                                                                         \
        CHECK(memcmp(g, src, 64 * BYTES) == 0);                                                \
        shmem_barrier_all();                                                                   \
        memset(symm, 0, sizeof src);                                                           \
        shmem_barrier_all();                                                                   \
        shmem_iput##BITS(symm, src, 2, 1, 32, right);                                          \
        shmem_barrier_all();                                                                   \
        for (int i = 0; i < 32; i++)                                                           \
            CHECK(memcmp(symm + 2 * i * BYTES, want + i * BYTES, BYTES) == 0);                 \
        memset(g, 0, sizeof g);                                                                \
        shmem_iget##BITS(g, symm, 1, 2, 32, right);                                            \
        CHECK(memcmp(g, src, 32 * BYTES) == 0);                                                \
        shmem_barrier_all();                                                                   \
    }
    SHMEMI_SIZED_RMA(SIZED)
#undef SIZED
}

/* put-with-signal: data and signal to the right, every form and sig_op. */
static void signals(unsigned char *symm, uint64_t *sig)
{
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    unsigned char src[4096];
    for (int round = 0; round < 8; round++) {
        fill(src, sizeof src, me, 60 + round);
        int op = round % 2 ? SHMEM_SIGNAL_ADD : SHMEM_SIGNAL_SET;
        uint64_t before = shmem_signal_fetch(sig);
        shmem_barrier_all();
        uint64_t val = op == SHMEM_SIGNAL_SET ? 1000 + round : 3;
        switch (round % 4) {
        case 0: shmem_putmem_signal(symm, src, sizeof src, sig, val, op, right); break;
        case 1: shmem_putmem_signal_nbi(symm, src, sizeof src, sig, val, op, right); break;
        case 2: shmem_long_put_signal((long *)symm, (long *)src, sizeof src / sizeof(long), sig,
                                      val, op, right); break;
        default: shmem_ctx_put64_signal_nbi(SHMEM_CTX_DEFAULT, symm, src, sizeof src / 8, sig,
                                            val, op, right); break;
        }
        uint64_t want = op == SHMEM_SIGNAL_SET ? val : before + val;
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_EQ, want);
        CHECK(got == want);
        CHECK_PATTERN(symm, sizeof src, left, 60 + round);
        shmem_barrier_all();
    }
}

/* Contexts: create, use, quiet, destroy. */
static void contexts(long *symm)
{
    shmem_ctx_t ctx;
    CHECK(shmem_ctx_create(SHMEM_CTX_PRIVATE, &ctx) == 0 && ctx != SHMEM_CTX_INVALID);
    shmem_team_t team;
    CHECK(shmem_ctx_get_team(ctx, &team) == 0 && team == SHMEM_TEAM_WORLD);
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    shmem_ctx_long_p(ctx, symm, 7000 + me, right);
    shmem_ctx_long_atomic_add(ctx, symm + 1, 5, right);
    shmem_ctx_fence(ctx);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(symm[0] == 7000 + left);
    CHECK(symm[1] == 5);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
}

int main(void)
{
    test_init();
    CHECK(npes >= 1);
    unsigned char *heap = shmem_malloc(MAXB);
    CHECK(heap != NULL);
    sizes_mem(heap, MAXB, "the heap");
    sizes_mem(global_buf, sizeof global_buf, "global variables");
    all_typed(heap, 1024);
    all_typed(global_buf, 512);
    sized(heap);
    sized(global_buf);
    signals(heap, &global_sig);
    static uint64_t static_sig;
    signals(global_buf, &static_sig);
    long *ctxw = shmem_calloc(2, sizeof(long));
    contexts(ctxw);
    memset(global_init, 0, sizeof global_init);
    shmem_barrier_all();
    contexts(global_init);
    /* shmem_ptr: every node mate's heap is mapped (1 PE: mine) */
    CHECK(shmem_ptr(heap, me) == heap);
    CHECK(shmem_addr_accessible(heap, (me + 1) % npes) == 1);
    CHECK(shmem_addr_accessible(&global_sig, 0) == 1);
    int on_stack;
    CHECK(shmem_addr_accessible(&on_stack, 0) == 0);
    CHECK(shmem_pe_accessible(npes) == 0 && shmem_pe_accessible(npes - 1) == 1);
    shmem_free(ctxw);
    shmem_free(heap);
    if (me == 0)
        printf("rma: %d PEs: every check passed\n", npes);
    shmem_finalize();
    return 0;
}
