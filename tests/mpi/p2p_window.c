/* p2p_window — many rendezvous messages in flight at once between each pair:
 * over tcp every matched one has its get queued behind the others
 * (skf_get_start), so the answers must land in the right buffers in every
 * matching order, and the receives must finish wherever the program waits.
 *
 *   1. a window of W sends to the right neighbour, received from the left one
 *      with the receives posted in reverse tag order (matched out of arrival
 *      order), every size class from short to 1 MiB + 3;
 *   2. the same with every message unexpected first (receives posted after a
 *      barrier), completed by MPI_Waitsome in whatever order;
 *   3. a blocking receive of a small message while a get is in flight, whose
 *      sender sends that message only once the large one has completed (the
 *      blocking receive must finish the get, or both wait forever);
 *   4. a receive freed with MPI_Request_free while its get is in flight: the
 *      sender's wait still ends (the data arrives; MPI_Finalize sees it out).
 * Bytes are checked everywhere, including the untouched tail of each buffer. */
#include <stdio.h>

#include "mpitest.h"

#define W 12
static const size_t sizes[] = {40, 5000, 70000, 300000, (1u << 20) + 3};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define SLACK 16 /* bytes after each message that must stay untouched */

static unsigned seed_of(int from, int phase, int s, int k)
{
    return (unsigned)(from * 1000003 + phase * 10007 + s * 101 + k);
}

static void check_buf(const unsigned char *b, size_t n, unsigned seed, const char *what)
{
    long bad = verify(b, n, seed);
    if (bad >= 0)
        fprintf(stderr, "rank %d: %s: %zu bytes, first wrong byte at %ld\n", T_rank, what, n, bad);
    CHECK(bad < 0);
    for (size_t i = 0; i < SLACK; i++)
        CHECK(b[n + i] == 0xEE);
}

static void window(int phase)
{
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    for (size_t s = 0; s < NSIZES; s++) {
        size_t n = sizes[s];
        unsigned char *out[W], *in[W];
        MPI_Request rq[2 * W];
        for (int k = 0; k < W; k++) {
            out[k] = malloc(n);
            in[k] = malloc(n + SLACK);
            CHECK(out[k] && in[k]);
            fill(out[k], n, seed_of(T_rank, phase, (int)s, k));
            memset(in[k], 0xEE, n + SLACK);
        }
        if (phase == 1) {
            for (int k = W - 1; k >= 0; k--)
                MPI_Irecv(in[k], (int)n, MPI_BYTE, left, k, MPI_COMM_WORLD, &rq[W + k]);
            for (int k = 0; k < W; k++)
                MPI_Isend(out[k], (int)n, MPI_BYTE, right, k, MPI_COMM_WORLD, &rq[k]);
            CHECK_EQ_INT(MPI_Waitall(2 * W, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
        } else {
            for (int k = 0; k < W; k++)
                MPI_Isend(out[k], (int)n, MPI_BYTE, right, k, MPI_COMM_WORLD, &rq[k]);
            test_barrier(); /* every envelope is here (or on its way) before a receive is posted */
            for (int k = 0; k < W; k++)
                MPI_Irecv(in[k], (int)n, MPI_BYTE, left, (k * 5) % W, MPI_COMM_WORLD, &rq[W + k]);
            int left_to_do = 2 * W;
            while (left_to_do) {
                int idx[2 * W], got;
                MPI_Status st[2 * W];
                CHECK_EQ_INT(MPI_Waitsome(2 * W, rq, &got, idx, st), MPI_SUCCESS);
                CHECK(got > 0);
                for (int i = 0; i < got; i++)
                    if (idx[i] >= W) {
                        int cnt;
                        MPI_Get_count(&st[i], MPI_BYTE, &cnt);
                        CHECK_EQ_INT(cnt, (int)n);
                        CHECK_EQ_INT(st[i].MPI_TAG, ((idx[i] - W) * 5) % W);
                    }
                left_to_do -= got;
            }
        }
        for (int k = 0; k < W; k++) {
            int tag = phase == 1 ? k : (k * 5) % W;
            check_buf(in[k], n, seed_of(left, phase, (int)s, tag), "window");
            free(out[k]);
            free(in[k]);
        }
    }
}

/* Phase 3: rank 2i sends large then (after it completed) small to 2i+1, which
 * has the large one's get in flight when it blocks in MPI_Recv for the small. */
static void blocking_recv_with_get_in_flight(void)
{
    int p = test_partner();
    size_t n = (1u << 20) + 3;
    unsigned char *big = malloc(n + SLACK);
    CHECK(big != NULL);
    int small = 0;
    if (p == T_rank) { /* odd one out */
        test_barrier();
        free(big);
        return;
    }
    if (T_rank < p) {
        fill(big, n, 77);
        MPI_Request r;
        MPI_Isend(big, (int)n, MPI_BYTE, p, 1, MPI_COMM_WORLD, &r);
        test_barrier();
        MPI_Wait(&r, MPI_STATUS_IGNORE); /* needs the receiver's FIN */
        small = 4242;
        MPI_Send(&small, 1, MPI_INT, p, 2, MPI_COMM_WORLD);
    } else {
        memset(big, 0xEE, n + SLACK);
        test_barrier(); /* the RTS is here: the receive attaches and starts the get */
        MPI_Request r;
        MPI_Irecv(big, (int)n, MPI_BYTE, p, 1, MPI_COMM_WORLD, &r);
        MPI_Recv(&small, 1, MPI_INT, p, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ_INT(small, 4242);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        check_buf(big, n, 77, "blocking receive with a get in flight");
    }
    free(big);
}

/* Phase 4: the receive is freed while its data is still coming. */
static void freed_receive(unsigned char **keep)
{
    int p = test_partner();
    size_t n = 600000;
    *keep = malloc(n);
    CHECK(*keep != NULL);
    if (p == T_rank)
        return;
    MPI_Request r;
    if (T_rank < p) {
        fill(*keep, n, 99);
        MPI_Isend(*keep, (int)n, MPI_BYTE, p, 3, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else {
        MPI_Irecv(*keep, (int)n, MPI_BYTE, p, 3, MPI_COMM_WORLD, &r);
        CHECK_EQ_INT(MPI_Request_free(&r), MPI_SUCCESS);
        CHECK(r == MPI_REQUEST_NULL);
    }
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    window(1);
    window(2);
    blocking_recv_with_get_in_flight();
    unsigned char *keep; /* the freed receive's buffer must outlive MPI_Finalize's drain */
    freed_receive(&keep);
    test_done("p2p_window");
    if (test_partner() < T_rank) /* the partner's bytes, all there after MPI_Finalize */
        CHECK(verify(keep, 600000, 99) < 0);
    free(keep);
    return 0;
}
