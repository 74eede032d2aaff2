/* p2p_pipeline — the mid-size path to a node mate: payloads above
 * SKIFF_MPI_PIPE_CHUNK go into the ring in pieces of that size (pipelined
 * eager up to SKIFF_MPI_EAGER_MAX, rendezvous above).  Sizes at each boundary
 * and one byte either side (piece size, two pieces, the ring's largest
 * message, the eager limit), odd sizes, unaligned send and receive buffers,
 * a strided datatype, expected and unexpected arrival, and every rank sending
 * to rank 0 at once with MPI_ANY_SOURCE (pieces of several senders
 * interleaved in its rings); every byte checked, with status counts.  The
 * ctest variants move the boundaries (odd piece size, pieces off, no CMA). */
#include <stdio.h>

#include "mpitest.h"

#define KI 1024
static const size_t sizes[] = {
    4 * KI,         16 * KI - 1,    16 * KI,   16 * KI + 1, 32 * KI - 1,  32 * KI,
    32 * KI + 1,    33333,          64 * KI - 1, 64 * KI,   64 * KI + 1,  100003,
    256 * KI - 1,   256 * KI,       256 * KI + 1, 300007,   1024 * KI + 5};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXN (1024 * KI + 5)

/* Pairs exchange every size, buffers off by sa/ra bytes from alignment;
 * posted first on even sizes, unexpected (sent before the receive) on odd. */
static void pairs(unsigned char *sbase, unsigned char *rbase, int sa, int ra)
{
    int peer = test_partner();
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        unsigned char *sb = sbase + sa, *rb = rbase + ra;
        unsigned seed = (unsigned)(k * 13 + (size_t)sa * 3 + (size_t)ra) + (unsigned)T_rank;
        unsigned peer_seed = seed - (unsigned)T_rank + (unsigned)peer;
        fill(sb, n, seed);
        memset(rb, 0xee, n + 1);
        int tag = (int)k;
        MPI_Status st;
        if (k & 1) { /* unexpected: the send goes first; the partner buffers it */
            MPI_Request s;
            MPI_Isend(sb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &s);
            test_barrier();
            MPI_Recv(rb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
            MPI_Wait(&s, MPI_STATUS_IGNORE);
        } else {
            MPI_Request r;
            MPI_Irecv(rb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &r);
            test_barrier();
            MPI_Send(sb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
            MPI_Wait(&r, &st);
        }
        check_recv_status(&st, peer, tag, MPI_BYTE, (int)n);
        check_verified("pair exchange", n, peer, verify(rb, n, peer_seed));
        CHECK(rb[n] == 0xee); /* nothing written past the message */
    }
}

/* Every rank sends each size to rank 0, which takes them with ANY_SOURCE. */
static void gather_any(unsigned char *sb, unsigned char *rb)
{
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        int tag = 100 + (int)k;
        if (T_rank != 0) {
            fill(sb, n, (unsigned)(k * 7) + (unsigned)T_rank);
            MPI_Send(sb, (int)n, MPI_BYTE, 0, tag, MPI_COMM_WORLD);
            continue;
        }
        int seen = 0;
        for (int i = 1; i < T_size; i++) {
            MPI_Status st;
            MPI_Recv(rb, (int)n, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
            CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < T_size);
            CHECK(!(seen & (1 << st.MPI_SOURCE)));
            seen |= 1 << st.MPI_SOURCE;
            check_recv_status(&st, st.MPI_SOURCE, tag, MPI_BYTE, (int)n);
            check_verified("ANY_SOURCE receive", n, st.MPI_SOURCE,
                   verify(rb, n, (unsigned)(k * 7) + (unsigned)st.MPI_SOURCE));
        }
    }
}

/* A strided type (every other int) on the send side, contiguous ints on
 * the receive side, and back: the typed paths meet the same limits. */
static void strided(void)
{
    int peer = test_partner();
    static const int counts[] = {4095, 4096, 4097, 16383, 16384, 16385, 65537, 131072};
    int maxc = 131072;
    int *sv = malloc(2 * (size_t)maxc * sizeof *sv), *rv = malloc((size_t)maxc * sizeof *rv);
    int *rs = malloc(2 * (size_t)maxc * sizeof *rs);
    CHECK(sv && rv && rs);
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        int c = counts[k];
        MPI_Datatype v;
        MPI_Type_vector(c, 1, 2, MPI_INT, &v);
        MPI_Type_commit(&v);
        for (int i = 0; i < 2 * c; i++)
            sv[i] = (i & 1) ? -1 : T_rank * 1000003 + i / 2 + c;
        MPI_Status st;
        /* strided out, contiguous in */
        MPI_Sendrecv(sv, 1, v, peer, 7, rv, c, MPI_INT, peer, 7, MPI_COMM_WORLD, &st);
        check_recv_status(&st, peer, 7, MPI_INT, c);
        for (int i = 0; i < c; i++)
            if (rv[i] != peer * 1000003 + i + c) {
                fprintf(stderr, "rank %d: strided send of %d ints: int %d is %d\n", T_rank, c, i,
                        rv[i]);
                CHECK(0);
            }
        /* contiguous out, strided in: the gaps stay untouched */
        for (int i = 0; i < 2 * c; i++)
            rs[i] = -7;
        MPI_Sendrecv(rv, c, MPI_INT, peer, 8, rs, 1, v, peer, 8, MPI_COMM_WORLD, &st);
        check_recv_status(&st, peer, 8, MPI_INT, c);
        for (int i = 0; i < 2 * c; i++) {
            int want = (i & 1) ? -7 : T_rank * 1000003 + i / 2 + c; /* my own ints came back */
            if (rs[i] != want) {
                fprintf(stderr, "rank %d: strided receive of %d ints: slot %d is %d, not %d\n",
                        T_rank, c, i, rs[i], want);
                CHECK(0);
            }
        }
        MPI_Type_free(&v);
    }
    free(sv);
    free(rv);
    free(rs);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    unsigned char *sb = malloc(MAXN + 64), *rb = malloc(MAXN + 64);
    CHECK(sb && rb);
    static const int offsets[][2] = {{0, 0}, {1, 0}, {0, 3}, {7, 5}};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
        pairs(sb, rb, offsets[i][0], offsets[i][1]);
    gather_any(sb, rb);
    strided();
    free(sb);
    free(rb);
    test_done("p2p_pipeline");
    return 0;
}
