/* amo.c — atomics for every standard AMO type, exact under contention from
 * every PE at once: on a heap word and on a global variable of every PE; the
 * fetch_inc tickets are each handed out once; swap chains lose no value;
 * bitwise ops; fetch/set/swap of float and double; the _nbi and ctx forms;
 * and locks guarding a non-atomic read-modify-write. */
#include <stdio.h>
#include <stdlib.h>

#include "shtest.h"

#define ITERS 200

/* One word of each type on the heap and one global, on every PE. */
#define DECL_GLOBAL(T, N) T g_##N;
SHMEMI_AMO_EXT_TYPES(DECL_GLOBAL)
long lock_word;
long guarded; /* changed with plain get+put under the lock */

static int cmp_ll(const void *a, const void *b)
{
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Every PE adds/incs into every PE's word; fetch_inc tickets from all PEs on
 * PE 0's word are a permutation of 0..npes*ITERS-1. */
#define STD(T, N)                                                                              \
    static void std_##N(T *heapw, T *globw)                                                    \
    {                                                                                          \
        T *words[2] = {heapw, globw};                                                          \
        for (int w = 0; w < 2; w++) {                                                          \
            T *x = words[w];                                                                   \
            *x = 0;                                                                            \
            shmem_barrier_all();                                                               \
            for (int i = 0; i < ITERS; i++)                                                    \
                for (int p = 0; p < npes; p++) {                                               \
                    int pe = (me + p) % npes;                                                  \
                    switch (i % 4) {                                                           \
                    case 0: shmem_##N##_atomic_add(x, (T)3, pe); break;                        \
                    case 1: shmem_##N##_atomic_inc(x, pe); break;                              \
                    case 2: (void)shmem_##N##_atomic_fetch_add(x, (T)3, pe); break;            \
                    default: {                                                                 \
                        T f;                                                                   \
                        shmem_ctx_##N##_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &f, x, pe);    \
                        break;                                                                 \
                    }                                                                          \
                    }                                                                          \
                }                                                                              \
            shmem_barrier_all();                                                               \
            T want = (T)((long long)npes * (ITERS / 4) * (3 + 1 + 3 + 1));                     \
            CHECK(*x == want);                                                                 \
            CHECK(shmem_##N##_atomic_fetch(x, (me + 1) % npes) == want);                       \
            shmem_barrier_all();                                                               \
            /* tickets */                                                                      \
            *x = 0;                                                                            \
            shmem_barrier_all();                                                               \
            long long *mine = shmem_malloc(ITERS * sizeof(long long));                         \
            long long *all = shmem_malloc((size_t)npes * ITERS * sizeof(long long));           \
            for (int i = 0; i < ITERS; i++)                                                    \
                mine[i] = (long long)(i % 2 ? shmem_##N##_atomic_fetch_inc(x, 0)               \
                                            : shmem_##N##_atomic_fetch_add(x, (T)1, 0));       \
            shmem_longlong_fcollect(SHMEM_TEAM_WORLD, all, mine, ITERS);                       \
            qsort(all, (size_t)npes * ITERS, sizeof *all, cmp_ll);                             \
            for (long long t = 0; t < (long long)npes * ITERS; t++)                            \
                CHECK(all[t] == t);                                                            \
            shmem_free(all);                                                                   \
            shmem_free(mine);                                                                  \
            /* compare_swap: a chain 0 -> 1 -> ... taken by whoever succeeds */                \
            *x = 0;                                                                            \
            shmem_barrier_all();                                                               \
            int won = 0;                                                                       \
            for (int i = 0; i < ITERS; i++) {                                                  \
                T cur = shmem_##N##_atomic_fetch(x, 0);                                        \
                if (shmem_##N##_atomic_compare_swap(x, cur, (T)(cur + 1), 0) == cur)           \
                    won++;                                                                     \
            }                                                                                  \
            int total = 0;                                                                     \
            static int wins, sum;                                                              \
            wins = won;                                                                        \
            shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &sum, &wins, 1);                            \
            total = sum;                                                                       \
            CHECK(shmem_##N##_atomic_fetch(x, 0) == (T)total);                                 \
            /* swap: every PE swaps its tag in; the values seen plus the last one left are     \
               each tag exactly once */                                                        \
            shmem_barrier_all();                                                               \
            *x = (T)1000;                                                                      \
            shmem_barrier_all();                                                               \
            T old = shmem_##N##_atomic_swap(x, (T)(2000 + me), 0);                             \
            static long long seen[1], seen_all[64];                                            \
            seen[0] = (long long)old;                                                          \
            shmem_barrier_all();                                                               \
            shmem_longlong_fcollect(SHMEM_TEAM_WORLD, seen_all, seen, 1);                      \
            if (npes <= 63) {                                                                  \
                seen_all[npes] = (long long)shmem_##N##_atomic_fetch(x, 0);                    \
                qsort(seen_all, (size_t)npes + 1, sizeof *seen_all, cmp_ll);                   \
                CHECK(seen_all[0] == 1000);                                                    \
                for (int p = 0; p < npes; p++)                                                 \
                    CHECK(seen_all[p + 1] == 2000 + p);                                        \
            }                                                                                  \
            shmem_barrier_all();                                                               \
        }                                                                                      \
    }
SHMEMI_AMO_STD_TYPES(STD)

/* and/or/xor: every PE owns bit (pe % bits). */
#define BIT(T, N)                                                                              \
    static void bit_##N(T *x)                                                                  \
    {                                                                                          \
        int bits = (int)sizeof(T) * 8, b = me % bits;                                          \
        T all = 0;                                                                             \
        for (int p = 0; p < npes; p++)                                                         \
            all |= (T)((T)1 << (p % bits));                                                    \
        *x = 0;                                                                                \
        shmem_barrier_all();                                                                   \
        for (int p = 0; p < npes; p++)                                                         \
            shmem_##N##_atomic_or(x, (T)((T)1 << b), p);                                       \
        shmem_barrier_all();                                                                   \
        CHECK(*x == all);                                                                      \
        shmem_barrier_all();                                                                   \
        for (int p = 0; p < npes; p++)                                                         \
            (void)shmem_##N##_atomic_fetch_and(x, (T)~((T)1 << b), p);                         \
        shmem_barrier_all();                                                                   \
        CHECK(*x == 0);                                                                        \
        shmem_barrier_all();                                                                   \
        for (int p = 0; p < npes; p++) {                                                       \
            T f;                                                                               \
            shmem_##N##_atomic_xor(x, (T)1, p);                                                \
            shmem_##N##_atomic_fetch_xor_nbi(&f, x, (T)2, p);                                  \
            (void)shmem_##N##_atomic_fetch_or(x, (T)0, p);                                     \
            shmem_##N##_atomic_and(x, (T)~(T)0, p);                                            \
            shmem_##N##_atomic_fetch_or_nbi(&f, x, (T)0, p);                                   \
            shmem_##N##_atomic_fetch_and_nbi(&f, x, (T)~(T)0, p);                              \
        }                                                                                      \
        shmem_barrier_all();                                                                   \
        CHECK(*x == (T)(npes % 2 ? 3 : 0));                                                    \
        shmem_barrier_all();                                                                   \
    }
SHMEMI_AMO_BIT_TYPES(BIT)

/* fetch/set/swap of float and double (values as bits). */
#define EXT_FP(T, N)                                                                           \
    static void fp_##N(T *x)                                                                   \
    {                                                                                          \
        int right = (me + 1) % npes, left = (me - 1 + npes) % npes;                            \
        *x = (T)0.5;                                                                           \
        shmem_barrier_all();                                                                   \
        T old = shmem_##N##_atomic_swap(x, (T)(me + 0.25), right);                             \
        CHECK(old == (T)0.5);                                                                  \
        shmem_barrier_all();                                                                   \
        CHECK(*x == (T)(left + 0.25));                                                         \
        shmem_barrier_all();                                                                   \
        shmem_##N##_atomic_set(x, (T)(me * 2.5), right);                                       \
        shmem_barrier_all();                                                                   \
        CHECK(shmem_##N##_atomic_fetch(x, me) == (T)(left * 2.5));                             \
        T f;                                                                                   \
        shmem_##N##_atomic_fetch_nbi(&f, x, right);                                            \
        CHECK(f == (T)(me * 2.5));                                                             \
        shmem_barrier_all();                                                                   \
        shmem_##N##_atomic_swap_nbi(&f, x, (T)-1, right);                                      \
        shmem_barrier_all();                                                                   \
        CHECK(f == (T)(me * 2.5) && *x == (T)-1);                                              \
        shmem_barrier_all();                                                                   \
    }
EXT_FP(float, float)
EXT_FP(double, double)

static void locks(void)
{
    guarded = 0;
    shmem_barrier_all();
    for (int i = 0; i < 50; i++) {
        if (i % 2)
            shmem_set_lock(&lock_word);
        else
            while (shmem_test_lock(&lock_word))
                ;
        long v = shmem_long_g(&guarded, 0); /* plain read-modify-write: the lock makes it safe */
        shmem_long_p(&guarded, v + 1, 0);
        shmem_quiet();
        shmem_clear_lock(&lock_word);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECK(guarded == 50L * npes);
    shmem_barrier_all();
}

int main(void)
{
    test_init();
#define HEAPW(T, N) T *h_##N = shmem_malloc(sizeof(T));
    SHMEMI_AMO_EXT_TYPES(HEAPW)
#define RUN_STD(T, N) std_##N(h_##N, &g_##N);
    SHMEMI_AMO_STD_TYPES(RUN_STD)
#define RUN_BIT(T, N) bit_##N(h_##N); bit_##N(&g_##N);
    SHMEMI_AMO_BIT_TYPES(RUN_BIT)
    fp_float(h_float);
    fp_float(&g_float);
    fp_double(h_double);
    fp_double(&g_double);
    locks();
    /* deprecated names still count */
    int *c = shmem_calloc(1, sizeof(int));
    shmem_int_inc(c, 0);
    shmem_int_add(c, 2, 0);
    (void)shmem_int_finc(c, 0);
    (void)shmem_int_fadd(c, 3, 0);
    shmem_barrier_all();
    CHECK(shmem_int_fetch(c, 0) == 7 * npes);
    shmem_barrier_all();
#define FREEW(T, N) shmem_free(h_##N);
    SHMEMI_AMO_EXT_TYPES(FREEW)
    shmem_free(c);
    if (me == 0)
        printf("amo: %d PEs: every check passed\n", npes);
    shmem_finalize();
    return 0;
}
