/* shtest.h — helpers for the OpenSHMEM tests: PE-aware CHECKs (testutil.h)
 * and a byte pattern that differs per (PE, round, index), so misplaced or
 * stale data is caught. */
#ifndef SKIFF_SHTEST_H
#define SKIFF_SHTEST_H

#include <shmem.h>
#include <stdint.h>
#include <string.h>

#include "testutil.h"

static int me, npes;

static inline void test_init(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    testutil_rank = me;
}

static inline unsigned char pattern(int pe, int round, size_t i)
{
    return (unsigned char)(pe * 131 + round * 17 + i * 7 + (i >> 8) * 3 + 1);
}

static inline void fill(void *buf, size_t n, int pe, int round)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)buf)[i] = pattern(pe, round, i);
}

/* Every byte as fill wrote it; on a mismatch say where. */
#define CHECK_PATTERN(buf, n, pe, round)                                                       \
    do {                                                                                       \
        const unsigned char *b_ = (const unsigned char *)(buf);                                \
        for (size_t i_ = 0; i_ < (size_t)(n); i_++)                                            \
            if (b_[i_] != pattern(pe, round, i_)) {                                            \
                fprintf(stderr, "%s:%d: PE %d: byte %zu of %zu is %u, expected %u (from PE %d, " \
                        "round %d)\n", __FILE__, __LINE__, me, i_, (size_t)(n), b_[i_],        \
                        pattern(pe, round, i_), pe, round);                                    \
                exit(1);                                                                       \
            }                                                                                  \
    } while (0)

#endif
