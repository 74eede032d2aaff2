/* mpitest.h — helpers for the MPI tests: rank-aware CHECKs (testutil.h), a
 * barrier built from point-to-point (collectives come later) and a byte
 * pattern that differs per message so misplaced data is caught. */
#ifndef SKIFF_MPITEST_H
#define SKIFF_MPITEST_H

#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define TEST_BARRIER_TAG 32767

static int T_rank, T_size;

static inline void test_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &T_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &T_size);
    testutil_rank = T_rank;
}

static inline void test_barrier(void)
{
    int token = 0;
    if (T_rank == 0) {
        for (int i = 1; i < T_size; i++)
            MPI_Recv(&token, 1, MPI_INT, i, TEST_BARRIER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 1; i < T_size; i++)
            MPI_Send(&token, 1, MPI_INT, i, TEST_BARRIER_TAG, MPI_COMM_WORLD);
    } else {
        MPI_Send(&token, 1, MPI_INT, 0, TEST_BARRIER_TAG, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 0, TEST_BARRIER_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

/* The partner of this rank: pairs (0,1), (2,3), ...; an odd one out talks to itself. */
static inline int test_partner(void)
{
    int p = T_rank ^ 1;
    return p < T_size ? p : T_rank;
}

static inline unsigned char pattern(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131u + seed * 7u + (i >> 8)) & 0xff);
}

static inline void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = pattern(i, seed);
}

/* Index of the first wrong byte, or -1. */
static inline long verify(const unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != pattern(i, seed))
            return (long)i;
    return -1;
}

/* A verify() result: fails the test, naming the message, when a byte is wrong. */
static inline void check_verified(const char *what, size_t n, int from, long bad)
{
    if (bad >= 0)
        fprintf(stderr, "rank %d: %s of %zu bytes from %d: byte %ld wrong\n", T_rank, what, n,
                from, bad);
    CHECK(bad < 0);
}

/* A received message's status: source, tag and count of type t. */
static inline void check_recv_status(const MPI_Status *st, int src, int tag, MPI_Datatype t,
                                     int count)
{
    CHECK_EQ_INT(st->MPI_SOURCE, src);
    CHECK_EQ_INT(st->MPI_TAG, tag);
    int cnt;
    MPI_Get_count(st, t, &cnt);
    CHECK_EQ_INT(cnt, count);
}

static inline void test_done(const char *name)
{
    test_barrier();
    if (T_rank == 0)
        printf("%s: passed on %d ranks\n", name, T_size);
    MPI_Finalize();
}

#endif
