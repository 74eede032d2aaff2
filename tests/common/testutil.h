/* Tiny assertion helpers for Skiff's test programs: a failed check prints the
 * file, line, rank and expression and exits with status 1, so the launcher
 * ends the job and ctest reports the failure. */
#ifndef SKIFF_TESTUTIL_H
#define SKIFF_TESTUTIL_H

#include <stdio.h>
#include <stdlib.h>

static int testutil_rank = -1; /* set by the test once it knows its rank */

#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: rank %d: check failed: %s\n", __FILE__, __LINE__, \
                    testutil_rank, #cond);                                           \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                  \
    do {                                                                                    \
        long long va_ = (long long)(a), vb_ = (long long)(b);                               \
        if (va_ != vb_) {                                                                   \
            fprintf(stderr, "%s:%d: rank %d: check failed: %s == %s (%lld != %lld)\n",       \
                    __FILE__, __LINE__, testutil_rank, #a, #b, va_, vb_);                   \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

#endif
