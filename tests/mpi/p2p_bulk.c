/* p2p_bulk — large messages to a node mate streamed through the pair's bulk
 * ring (above SKIFF_MPI_EAGER_MAX up to SKIFF_MPI_BULK_MAX, pieces of
 * SKIFF_MPI_BULK_CHUNK, each piece at most a quarter of SKIFF_SHM_BULK_SIZE).
 * Sizes at every boundary and one byte either side: the eager limit, one and
 * two pieces, the bulk ring (a lap), four laps, the bulk limit (CMA above);
 * expected and unexpected arrival, unaligned buffers, every rank to rank 0
 * with MPI_ANY_SOURCE (several senders' bulk rings at once), truncation
 * (MPI_ERR_TRUNCATE, the count of what fitted, nothing written past the
 * buffer), Probe/Mprobe+Mrecv of a large message, cancel of an unmatched
 * one, a strided receive type, and a small message sent after a large one
 * (it travels on the ordinary ring, the large one's data on the bulk ring:
 * both must arrive whole).  Every byte checked.  The ctest variants move the
 * boundaries (odd piece size, a small bulk ring, bulk off). */
#include <stdio.h>

#include "mpitest.h"

#define KI 1024
#define MI (1024 * KI)
static const size_t sizes[] = {
    256 * KI - 1, 256 * KI,      256 * KI + 1, 320 * KI - 1, 320 * KI, 320 * KI + 1,
    384 * KI + 1, MI - 1,        MI,           MI + 1,       1234567,  4 * MI - 1,
    4 * MI + 1,   8 * MI - 1,    8 * MI,       8 * MI + 1};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXN (8 * MI + 1)

/* Pairs exchange every size; posted first on even sizes, unexpected on odd;
 * a 100-byte message follows each large one on another tag. */
static void pairs(unsigned char *sbase, unsigned char *rbase, int sa, int ra)
{
    int peer = test_partner();
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = sizes[k];
        unsigned char *sb = sbase + sa, *rb = rbase + ra, small[100], rsmall[100];
        unsigned seed = (unsigned)(k * 13 + (size_t)sa * 3 + (size_t)ra) + (unsigned)T_rank;
        unsigned peer_seed = seed - (unsigned)T_rank + (unsigned)peer;
        fill(sb, n, seed);
        fill(small, sizeof small, seed + 1);
        memset(rb, 0xee, n + 1);
        int tag = (int)k;
        MPI_Status st;
        MPI_Request rq[3];
        if (k & 1) { /* unexpected: the sends go first */
            MPI_Isend(sb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[0]);
            MPI_Isend(small, sizeof small, MPI_BYTE, peer, 1000 + tag, MPI_COMM_WORLD, &rq[1]);
            test_barrier();
            MPI_Recv(rsmall, sizeof rsmall, MPI_BYTE, peer, 1000 + tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Recv(rb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        } else {
            MPI_Irecv(rb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq[0]);
            MPI_Irecv(rsmall, sizeof rsmall, MPI_BYTE, peer, 1000 + tag, MPI_COMM_WORLD, &rq[1]);
            test_barrier();
            MPI_Send(sb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
            MPI_Send(small, sizeof small, MPI_BYTE, peer, 1000 + tag, MPI_COMM_WORLD);
            MPI_Wait(&rq[0], &st);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        }
        check_recv_status(&st, peer, tag, MPI_BYTE, (int)n);
        check_verified("pair exchange", n, peer, verify(rb, n, peer_seed));
        check_verified("small message after a large one", sizeof rsmall, peer,
               verify(rsmall, sizeof rsmall, peer_seed + 1));
        CHECK(rb[n] == 0xee); /* nothing written past the message */
    }
}

/* Every rank sends each size to rank 0, which takes them with ANY_SOURCE;
 * the senders Isend at once, so their streams interleave at rank 0. */
static void gather_any(unsigned char *sb, unsigned char *rb)
{
    for (size_t k = 0; k < NSIZES; k += 3) {
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

/* Truncation: the receive holds n - 4097 bytes of an n-byte message. */
static void truncation(unsigned char *sb, unsigned char *rb)
{
    int peer = test_partner();
    if (peer == T_rank)
        return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static const size_t tsizes[] = {256 * KI + 1, MI + 1, 4 * MI + 1};
    for (size_t k = 0; k < sizeof tsizes / sizeof tsizes[0]; k++) {
        size_t n = tsizes[k], cap = n - 4097;
        if (T_rank & 1) {
            fill(sb, n, (unsigned)k + 77);
            MPI_Send(sb, (int)n, MPI_BYTE, peer, 50, MPI_COMM_WORLD);
        } else {
            memset(rb, 0xee, n);
            MPI_Status st;
            int rc = MPI_Recv(rb, (int)cap, MPI_BYTE, peer, 50, MPI_COMM_WORLD, &st);
            int cls;
            MPI_Error_class(rc, &cls);
            CHECK_EQ_INT(cls, MPI_ERR_TRUNCATE);
            int cnt;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            CHECK_EQ_INT(cnt, (int)cap);
            check_verified("truncated receive", cap, peer, verify(rb, cap, (unsigned)k + 77));
            CHECK(rb[cap] == 0xee);
        }
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* Probe, then Mprobe + Mrecv, of large messages; cancel of one unmatched
 * (its RTS waits at the receiver: the cancel must succeed and nothing of it
 * may be seen afterwards). */
static void probes(unsigned char *sb, unsigned char *rb)
{
    int peer = test_partner();
    if (peer == T_rank) { /* the odd one out: only the barrier */
        test_barrier();
        return;
    }
    size_t n = 2 * MI + 3;
    if (T_rank & 1) {
        fill(sb, n, 5);
        MPI_Send(sb, (int)n, MPI_BYTE, peer, 60, MPI_COMM_WORLD);
        MPI_Send(sb, (int)n, MPI_BYTE, peer, 61, MPI_COMM_WORLD);
        MPI_Request c;
        MPI_Isend(sb, (int)n, MPI_BYTE, peer, 62, MPI_COMM_WORLD, &c);
        MPI_Cancel(&c);
        MPI_Status st;
        MPI_Wait(&c, &st);
        int cancelled;
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(cancelled);
        test_barrier();
    } else {
        MPI_Status st;
        MPI_Probe(peer, 60, MPI_COMM_WORLD, &st);
        check_recv_status(&st, peer, 60, MPI_BYTE, (int)n);
        memset(rb, 0, n);
        MPI_Recv(rb, (int)n, MPI_BYTE, peer, 60, MPI_COMM_WORLD, &st);
        check_verified("probed receive", n, peer, verify(rb, n, 5));
        MPI_Message msg;
        MPI_Mprobe(MPI_ANY_SOURCE, 61, MPI_COMM_WORLD, &msg, &st);
        check_recv_status(&st, peer, 61, MPI_BYTE, (int)n);
        memset(rb, 0, n);
        MPI_Mrecv(rb, (int)n, MPI_BYTE, &msg, &st);
        check_recv_status(&st, peer, 61, MPI_BYTE, (int)n);
        check_verified("matched-probe receive", n, peer, verify(rb, n, 5));
        test_barrier();
        int flag;
        MPI_Iprobe(peer, 62, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        CHECK(!flag);
    }
}

/* Contiguous ints out, a strided type (every other int) in: the gaps stay. */
static void strided(void)
{
    int peer = test_partner();
    int c = 300007; /* 1.2 MB of ints */
    int *sv = malloc((size_t)c * sizeof *sv), *rs = malloc(2 * (size_t)c * sizeof *rs);
    CHECK(sv && rs);
    MPI_Datatype v;
    MPI_Type_vector(c, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    for (int i = 0; i < c; i++)
        sv[i] = T_rank * 1000003 + i;
    for (int i = 0; i < 2 * c; i++)
        rs[i] = -7;
    MPI_Status st;
    MPI_Sendrecv(sv, c, MPI_INT, peer, 8, rs, 1, v, peer, 8, MPI_COMM_WORLD, &st);
    check_recv_status(&st, peer, 8, MPI_INT, c);
    for (int i = 0; i < 2 * c; i++) {
        int want = (i & 1) ? -7 : peer * 1000003 + i / 2;
        if (rs[i] != want) {
            fprintf(stderr, "rank %d: strided receive: slot %d is %d, not %d\n", T_rank, i,
                    rs[i], want);
            CHECK(0);
            break;
        }
    }
    MPI_Type_free(&v);
    free(sv);
    free(rs);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    unsigned char *sb = malloc(MAXN + 64), *rb = malloc(MAXN + 64);
    CHECK(sb && rb);
    static const int offsets[][2] = {{0, 0}, {7, 5}};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++)
        pairs(sb, rb, offsets[i][0], offsets[i][1]);
    gather_any(sb, rb);
    truncation(sb, rb);
    probes(sb, rb);
    strided();
    free(sb);
    free(rb);
    test_done("p2p_bulk");
    return 0;
}
