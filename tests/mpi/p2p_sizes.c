/* p2p_sizes — every size class across the protocol thresholds (short <= 40 B,
 * eager <= SKIFF_MPI_EAGER_MAX, multi-piece eager above the channel's largest
 * message, rendezvous above) in every send mode, with byte checks and counts. */
#include <stdio.h>

#include "mpitest.h"

static const size_t sizes[] = {0,     1,     7,      39,     40,     41,      56,
                               100,   1000,  4096,   16383,  65535,  65536,   65537,
                               70000, 99999, 262144, 524289, 1 << 20, (4 << 20) + 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])

enum { M_SEND, M_SSEND, M_RSEND, M_ISEND, M_ISSEND, M_SENDRECV, M_BSEND, M_NMODES };
static const char *mode_names[] = {"Send", "Ssend", "Rsend", "Isend", "Issend", "Sendrecv", "Bsend"};

static void send_one(int mode, const void *b, int n, int to, int tag, void *rb, int rn, int from)
{
    MPI_Request r;
    switch (mode) {
    case M_SEND: MPI_Send(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD); break;
    case M_SSEND: MPI_Ssend(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD); break;
    case M_RSEND: MPI_Rsend(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD); break;
    case M_ISEND: MPI_Isend(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); break;
    case M_ISSEND: MPI_Issend(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD, &r); MPI_Wait(&r, MPI_STATUS_IGNORE); break;
    case M_BSEND: MPI_Bsend(b, n, MPI_BYTE, to, tag, MPI_COMM_WORLD); break;
    default: {
        MPI_Status st;
        CHECK_EQ_INT(MPI_Sendrecv(b, n, MPI_BYTE, to, tag, rb, rn, MPI_BYTE, from, tag, MPI_COMM_WORLD, &st), MPI_SUCCESS);
    }
    }
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int peer = test_partner();
    size_t max = sizes[NSIZES - 1];
    unsigned char *sb = malloc(max), *rb = malloc(max);
    int bsize = (int)max + 64 * MPI_BSEND_OVERHEAD;
    void *bbuf = malloc((size_t)bsize);
    CHECK(sb && rb && bbuf);
    MPI_Buffer_attach(bbuf, bsize);
    for (int mode = 0; mode < M_NMODES; mode++) {
        for (size_t k = 0; k < NSIZES; k++) {
            size_t n = sizes[k];
            unsigned seed = (unsigned)(mode * 100 + k) + (unsigned)T_rank;
            unsigned peer_seed = (unsigned)(mode * 100 + k) + (unsigned)peer;
            fill(sb, n, seed);
            memset(rb, 0xee, n);
            int tag = (int)k;
            MPI_Status st;
            /* Ready mode needs the receive posted first; the other modes post
             * it first half of the time, and after the send otherwise. */
            int prepost = mode == M_RSEND || (k & 1); /* same on every rank */
            if (mode == M_SENDRECV) {
                send_one(mode, sb, (int)n, peer, tag, rb, (int)n, peer);
            } else if (prepost || peer == T_rank) {
                MPI_Request rr;
                MPI_Irecv(rb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rr);
                if (prepost)
                    test_barrier(); /* every receive is posted before anyone sends */
                send_one(mode, sb, (int)n, peer, tag, NULL, 0, 0);
                MPI_Wait(&rr, &st);
                CHECK_EQ_INT(st.MPI_SOURCE, peer);
                CHECK_EQ_INT(st.MPI_TAG, tag);
                int cnt;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                CHECK_EQ_INT(cnt, n);
            } else if (T_rank < peer) {
                send_one(mode, sb, (int)n, peer, tag, NULL, 0, 0);
                MPI_Recv(rb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
            } else {
                MPI_Recv(rb, (int)n, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
                send_one(mode, sb, (int)n, peer, tag, NULL, 0, 0);
            }
            long bad = verify(rb, n, peer_seed);
            if (bad >= 0)
                fprintf(stderr, "rank %d: %s of %zu bytes: byte %ld wrong\n", T_rank,
                        mode_names[mode], n, bad);
            CHECK(bad < 0);
        }
    }
    void *det;
    int dsize;
    MPI_Buffer_detach(&det, &dsize);
    CHECK(det == bbuf && dsize == bsize);

    /* Counts in other datatypes. */
    double d[1000];
    for (int i = 0; i < 1000; i++)
        d[i] = i * 0.5 + T_rank;
    double e[1000];
    MPI_Status st;
    MPI_Sendrecv(d, 1000, MPI_DOUBLE, peer, 5, e, 1000, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &st);
    int cnt;
    MPI_Get_count(&st, MPI_DOUBLE, &cnt);
    CHECK_EQ_INT(cnt, 1000);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_EQ_INT(cnt, 2000);
    MPI_Count big;
    MPI_Get_elements_x(&st, MPI_DOUBLE, &big);
    CHECK_EQ_INT(big, 1000);
    for (int i = 0; i < 1000; i++)
        CHECK(e[i] == i * 0.5 + peer);
    /* Bytes that are not whole elements: MPI_UNDEFINED. */
    MPI_Sendrecv(d, 3, MPI_BYTE, peer, 6, e, 8, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_EQ_INT(cnt, MPI_UNDEFINED);
    MPI_Status_set_elements(&st, MPI_INT, 7);
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK_EQ_INT(cnt, 7);
    MPI_Get_count(&st, MPI_BYTE, &cnt);
    CHECK_EQ_INT(cnt, 28);
    int sz;
    MPI_Type_size(MPI_DOUBLE_INT, &sz);
    CHECK_EQ_INT(sz, 12);
    free(sb);
    free(rb);
    free(bbuf);
    test_done("p2p_sizes");
    return 0;
}
