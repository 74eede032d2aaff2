/* wait.c — wait_until and test in every form wake on every comparison, for
 * every standard point-to-point type: the left neighbour changes my variables
 * only after a barrier I have passed, so a test before it must say "not yet"
 * and the wait must see the new value; plus signal_wait_until. */
#include <stdio.h>
#include <stdlib.h>

#include "shtest.h"

#define NV 5

/* For comparison c: a starting value that fails "x c 5" and a final one that holds. */
static const int cmps[6] = {SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT,
                            SHMEM_CMP_GE, SHMEM_CMP_LT, SHMEM_CMP_LE};
static const int start_v[6] = {0, 5, 5, 4, 5, 6};
static const int final_v[6] = {5, 6, 6, 5, 4, 5};

#define P2P(T, N)                                                                              \
    static void p2p_##N(T *v)                                                                  \
    {                                                                                          \
        int right = (me + 1) % npes;                                                           \
        for (int c = 0; c < 6; c++)                                                            \
            for (int form = 0; form < 7; form++) {                                             \
                int cmp = cmps[c];                                                             \
                T five = (T)5, vals[NV];                                                       \
                int status[NV] = {0, 1, 0, 0, 0}; /* element 1 excluded */                     \
                size_t idx[NV];                                                                \
                for (int i = 0; i < NV; i++) {                                                 \
                    v[i] = (T)start_v[c];                                                      \
                    vals[i] = five;                                                            \
                }                                                                              \
                shmem_barrier_all();                                                           \
                CHECK(!shmem_##N##_test(&v[0], cmp, five));                                    \
                CHECK(!shmem_##N##_test_all(v, NV, status, cmp, five));                        \
                CHECK(shmem_##N##_test_any(v, NV, status, cmp, five) == SIZE_MAX);             \
                CHECK(shmem_##N##_test_some(v, NV, idx, status, cmp, five) == 0);              \
                CHECK(!shmem_##N##_test_all_vector(v, NV, status, cmp, vals));                 \
                CHECK(shmem_##N##_test_any_vector(v, NV, status, cmp, vals) == SIZE_MAX);      \
                CHECK(shmem_##N##_test_some_vector(v, NV, idx, status, cmp, vals) == 0);       \
                shmem_barrier_all();                                                           \
                /* the left neighbour writes mine: elements 0, 2, 3, 4 (not the excluded) */   \
                for (int i = NV - 1; i >= 0; i--)                                              \
                    if (i != 1)                                                                \
                        shmem_##N##_p(&v[i], (T)final_v[c], right);                            \
                size_t k;                                                                      \
                switch (form) {                                                                \
                case 0:                                                                        \
                    shmem_##N##_wait_until(&v[0], cmp, five);                                  \
                    CHECK(v[0] == (T)final_v[c]);                                              \
                    break;                                                                     \
                case 1:                                                                        \
                    shmem_##N##_wait_until_all(v, NV, status, cmp, five);                      \
                    for (int i = 0; i < NV; i++)                                               \
                        CHECK(v[i] == (T)(i == 1 ? start_v[c] : final_v[c]));                  \
                    break;                                                                     \
                case 2:                                                                        \
                    k = shmem_##N##_wait_until_any(v, NV, status, cmp, five);                  \
                    CHECK(k < NV && k != 1 && v[k] == (T)final_v[c]);                          \
                    break;                                                                     \
                case 3:                                                                        \
                    k = shmem_##N##_wait_until_some(v, NV, idx, status, cmp, five);            \
                    CHECK(k >= 1 && k <= 4);                                                   \
                    for (size_t j = 0; j < k; j++)                                             \
                        CHECK(idx[j] != 1 && v[idx[j]] == (T)final_v[c]);                      \
                    break;                                                                     \
                case 4:                                                                        \
                    shmem_##N##_wait_until_all_vector(v, NV, status, cmp, vals);               \
                    CHECK(v[4] == (T)final_v[c] && v[0] == (T)final_v[c]);                     \
                    break;                                                                     \
                case 5:                                                                        \
                    k = shmem_##N##_wait_until_any_vector(v, NV, status, cmp, vals);           \
                    CHECK(k < NV && k != 1);                                                   \
                    break;                                                                     \
                default:                                                                       \
                    k = shmem_##N##_wait_until_some_vector(v, NV, idx, status, cmp, vals);     \
                    CHECK(k >= 1 && k <= 4);                                                   \
                    break;                                                                     \
                }                                                                              \
                /* once all arrived, the test forms agree */                                   \
                shmem_##N##_wait_until_all(v, NV, status, cmp, five);                          \
                CHECK(shmem_##N##_test(&v[0], cmp, five));                                     \
                CHECK(shmem_##N##_test_all(v, NV, status, cmp, five));                         \
                CHECK(shmem_##N##_test_some(v, NV, idx, status, cmp, five) == 4);              \
                k = shmem_##N##_test_any_vector(v, NV, status, cmp, vals); /* any ready one */ \
                CHECK(k < NV && k != 1);                                                       \
                CHECK(shmem_##N##_test_all_vector(v, NV, status, cmp, vals));                  \
                CHECK(shmem_##N##_test_some_vector(v, NV, idx, status, cmp, vals) == 4);       \
                int none[NV] = {1, 1, 1, 1, 1};                                                \
                CHECK(shmem_##N##_wait_until_any(v, NV, none, cmp, five) == SIZE_MAX);         \
                CHECK(shmem_##N##_wait_until_some(v, NV, idx, none, cmp, five) == 0);          \
                shmem_barrier_all();                                                           \
            }                                                                                  \
    }
SHMEMI_P2P_TYPES(P2P)

long g_long[NV]; /* a global variable waits too */

int main(void)
{
    test_init();
#define RUN(T, N)                                                                              \
    {                                                                                          \
        T *v = shmem_malloc(NV * sizeof(T));                                                   \
        CHECK(v);                                                                              \
        p2p_##N(v);                                                                            \
        shmem_free(v);                                                                         \
    }
    SHMEMI_P2P_TYPES(RUN)
    p2p_long(g_long);
    /* signal: the left neighbour adds 1..10 one by one */
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    for (uint64_t i = 1; i <= 10; i++) {
        shmem_uint64_atomic_add(sig, i, (me + 1) % npes);
        CHECK(shmem_signal_wait_until(sig, SHMEM_CMP_GE, i * (i + 1) / 2) >= i * (i + 1) / 2);
    }
    shmem_barrier_all();
    CHECK(shmem_signal_fetch(sig) == 55);
    shmem_free(sig);
    if (me == 0)
        printf("wait: %d PEs: every check passed\n", npes);
    shmem_finalize();
    return 0;
}
