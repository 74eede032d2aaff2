/*
 * wait.c — point-to-point synchronisation: wait_until and test in every form
 * (single, _all, _any, _some, their _vector forms) for every standard type,
 * and the signal reads.
 *
 * The variables are local symmetric memory that peers change by put or AMO
 * (CPU stores of node mates, the tcp service thread for others): each poll
 * is an atomic acquire load, so what a peer put before its signal is visible
 * once the signal is seen.
 */
#include <stdint.h>

#include "shmemi.h"

static size_t any_rotation; /* where the _any forms start looking */

static void check_cmp(const char *call, int cmp)
{
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        shmemi_fatal(call, "invalid comparison %d (expected SHMEM_CMP_EQ %d .. SHMEM_CMP_LE %d)",
                     cmp, SHMEM_CMP_EQ, SHMEM_CMP_LE);
}

#define CMP_HOLDS(cmp, a, b)                                                                   \
    ((cmp) == SHMEM_CMP_EQ   ? (a) == (b)                                                      \
     : (cmp) == SHMEM_CMP_NE ? (a) != (b)                                                      \
     : (cmp) == SHMEM_CMP_GT ? (a) > (b)                                                       \
     : (cmp) == SHMEM_CMP_GE ? (a) >= (b)                                                      \
     : (cmp) == SHMEM_CMP_LT ? (a) < (b)                                                       \
                             : (a) <= (b))

/* VEC: 1 when cmp_values is an array (the _vector forms). */
#define P2P(T, N)                                                                              \
    static inline int holds_##N(T *ivar, int cmp, T v)                                         \
    {                                                                                          \
        T now = __atomic_load_n(ivar, __ATOMIC_ACQUIRE);                                       \
        return CMP_HOLDS(cmp, now, v);                                                         \
    }                                                                                          \
    /* How many of the included ivars hold (indices out, may be NULL); all: 1 when every    \
     * included one holds (also when none is included). */                                     \
    static size_t scan_##N(T *ivars, size_t n, const int *status, int cmp, const T *vals,      \
                           T v, size_t *indices, int *all)                                     \
    {                                                                                          \
        size_t hits = 0;                                                                       \
        *all = 1;                                                                              \
        for (size_t i = 0; i < n; i++) {                                                       \
            if (status && status[i])                                                           \
                continue;                                                                      \
            if (holds_##N(&ivars[i], cmp, vals ? vals[i] : v)) {                               \
                if (indices)                                                                   \
                    indices[hits] = i;                                                         \
                hits++;                                                                        \
            } else {                                                                           \
                *all = 0;                                                                      \
            }                                                                                  \
        }                                                                                      \
        return hits;                                                                           \
    }                                                                                          \
    /* Scans start one place further each call, so every ready element gets its turn. */ \
    static size_t first_##N(T *ivars, size_t n, const int *status, int cmp, const T *vals, T v) \
    {                                                                                          \
        size_t from = n ? __atomic_fetch_add(&any_rotation, 1, __ATOMIC_RELAXED) % n : 0;                                              \
        for (size_t k = 0; k < n; k++) {                                                       \
            size_t i = (from + k) % n;                                                         \
            if (!(status && status[i]) && holds_##N(&ivars[i], cmp, vals ? vals[i] : v))       \
                return i;                                                                      \
        }                                                                                      \
        return SIZE_MAX;                                                                       \
    }                                                                                          \
    static int none_included_##N(size_t n, const int *status)                                  \
    {                                                                                          \
        for (size_t i = 0; i < n; i++)                                                         \
            if (!status || !status[i])                                                         \
                return 0;                                                                      \
        return 1;                                                                              \
    }                                                                                          \
    static void wait_all_##N(const char *call, T *ivars, size_t n, const int *status, int cmp, \
                             const T *vals, T v)                                               \
    {                                                                                          \
        shmemi_check_init(call);                                                               \
        check_cmp(call, cmp);                                                                  \
        int all;                                                                               \
        unsigned round = 0;                                                                    \
        for (;;) {                                                                             \
            scan_##N(ivars, n, status, cmp, vals, v, NULL, &all);                              \
            if (all)                                                                           \
                return;                                                                        \
            shmemi_poll_pause(&round);                                                         \
        }                                                                                      \
    }                                                                                          \
    static size_t wait_any_##N(const char *call, T *ivars, size_t n, const int *status,        \
                               int cmp, const T *vals, T v)                                    \
    {                                                                                          \
        shmemi_check_init(call);                                                               \
        check_cmp(call, cmp);                                                                  \
        if (none_included_##N(n, status))                                                      \
            return SIZE_MAX;                                                                   \
        unsigned round = 0;                                                                    \
        size_t i;                                                                              \
        while ((i = first_##N(ivars, n, status, cmp, vals, v)) == SIZE_MAX)                    \
            shmemi_poll_pause(&round);                                                         \
        return i;                                                                              \
    }                                                                                          \
    static size_t wait_some_##N(const char *call, T *ivars, size_t n, size_t *indices,         \
                                const int *status, int cmp, const T *vals, T v)                \
    {                                                                                          \
        shmemi_check_init(call);                                                               \
        check_cmp(call, cmp);                                                                  \
        if (none_included_##N(n, status))                                                      \
            return 0;                                                                          \
        unsigned round = 0;                                                                    \
        size_t hits;                                                                           \
        int all;                                                                               \
        while ((hits = scan_##N(ivars, n, status, cmp, vals, v, indices, &all)) == 0)          \
            shmemi_poll_pause(&round);                                                         \
        return hits;                                                                           \
    }                                                                                          \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                 \
    {                                                                                          \
        wait_all_##N("shmem_" #N "_wait_until", ivar, 1, NULL, cmp, NULL, cmp_value);          \
    }                                                                                          \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,       \
                                    T cmp_value)                                               \
    {                                                                                          \
        wait_all_##N("shmem_" #N "_wait_until_all", ivars, nelems, status, cmp, NULL,          \
                     cmp_value);                                                               \
    }                                                                                          \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,     \
                                      T cmp_value)                                             \
    {                                                                                          \
        return wait_any_##N("shmem_" #N "_wait_until_any", ivars, nelems, status, cmp, NULL,   \
                            cmp_value);                                                        \
    }                                                                                          \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,               \
                                       const int *status, int cmp, T cmp_value)                \
    {                                                                                          \
        return wait_some_##N("shmem_" #N "_wait_until_some", ivars, nelems, indices, status,   \
                             cmp, NULL, cmp_value);                                            \
    }                                                                                          \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                           T *cmp_values)                                      \
    {                                                                                          \
        wait_all_##N("shmem_" #N "_wait_until_all_vector", ivars, nelems, status, cmp,         \
                     cmp_values, 0);                                                           \
    }                                                                                          \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,       \
                                             int cmp, T *cmp_values)                           \
    {                                                                                          \
        return wait_any_##N("shmem_" #N "_wait_until_any_vector", ivars, nelems, status, cmp,  \
                            cmp_values, 0);                                                    \
    }                                                                                          \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,        \
                                              const int *status, int cmp, T *cmp_values)       \
    {                                                                                          \
        return wait_some_##N("shmem_" #N "_wait_until_some_vector", ivars, nelems, indices,    \
                             status, cmp, cmp_values, 0);                                      \
    }                                                                                          \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value)                                        \
    {                                                                                          \
        shmemi_check_init("shmem_" #N "_test");                                                \
        check_cmp("shmem_" #N "_test", cmp);                                                   \
        return holds_##N(ivar, cmp, cmp_value);                                                \
    }                                                                                          \
    static int test_all_##N(const char *call, T *ivars, size_t n, const int *status, int cmp,  \
                            const T *vals, T v)                                                \
    {                                                                                          \
        shmemi_check_init(call);                                                               \
        check_cmp(call, cmp);                                                                  \
        int all;                                                                               \
        scan_##N(ivars, n, status, cmp, vals, v, NULL, &all);                                  \
        return all;                                                                            \
    }                                                                                          \
    static size_t test_any_##N(const char *call, T *ivars, size_t n, const int *status,        \
                               int cmp, const T *vals, T v)                                    \
    {                                                                                          \
        shmemi_check_init(call);                                                               \
        check_cmp(call, cmp);                                                                  \
        return first_##N(ivars, n, status, cmp, vals, v);                                      \
    }                                                                                          \
    static size_t test_some_##N(const char *call, T *ivars, size_t n, size_t *indices,         \
                                const int *status, int cmp, const T *vals, T v)                \
    {                                                                                          \
        shmemi_check_init(call);                                                               \
        check_cmp(call, cmp);                                                                  \
        int all;                                                                               \
        return scan_##N(ivars, n, status, cmp, vals, v, indices, &all);                        \
    }                                                                                          \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value) \
    {                                                                                          \
        return test_all_##N("shmem_" #N "_test_all", ivars, nelems, status, cmp, NULL,         \
                            cmp_value);                                                        \
    }                                                                                          \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,           \
                                T cmp_value)                                                   \
    {                                                                                          \
        return test_any_##N("shmem_" #N "_test_any", ivars, nelems, status, cmp, NULL,         \
                            cmp_value);                                                        \
    }                                                                                          \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,  \
                                 int cmp, T cmp_value)                                         \
    {                                                                                          \
        return test_some_##N("shmem_" #N "_test_some", ivars, nelems, indices, status, cmp,    \
                             NULL, cmp_value);                                                 \
    }                                                                                          \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,       \
                                    T *cmp_values)                                             \
    {                                                                                          \
        return test_all_##N("shmem_" #N "_test_all_vector", ivars, nelems, status, cmp,        \
                            cmp_values, 0);                                                    \
    }                                                                                          \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                       T *cmp_values)                                          \
    {                                                                                          \
        return test_any_##N("shmem_" #N "_test_any_vector", ivars, nelems, status, cmp,        \
                            cmp_values, 0);                                                    \
    }                                                                                          \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,              \
                                        const int *status, int cmp, T *cmp_values)             \
    {                                                                                          \
        return test_some_##N("shmem_" #N "_test_some_vector", ivars, nelems, indices, status,  \
                             cmp, cmp_values, 0);                                              \
    }
SHMEMI_P2P_TYPES(P2P)

/* Deprecated: wait while *ivar == cmp_value. */
void shmem_short_wait(short *ivar, short v) { shmem_short_wait_until(ivar, SHMEM_CMP_NE, v); }
void shmem_int_wait(int *ivar, int v) { shmem_int_wait_until(ivar, SHMEM_CMP_NE, v); }
void shmem_long_wait(long *ivar, long v) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, v); }
void shmem_longlong_wait(long long *ivar, long long v)
{
    shmem_longlong_wait_until(ivar, SHMEM_CMP_NE, v);
}
void shmem_wait(long *ivar, long v) { shmem_long_wait_until(ivar, SHMEM_CMP_NE, v); }

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    shmemi_check_init("shmem_signal_fetch");
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    shmem_uint64_wait_until(sig_addr, cmp, cmp_value);
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}
