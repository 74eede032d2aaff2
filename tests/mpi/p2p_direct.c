/* p2p_direct — large messages to ranks over tcp, which go as direct payloads
 * (the sender pushes them after the receiver's W_GO straight into the posted
 * receive buffer, docs/tcp.md "Direct payloads"); run with every peer over
 * tcp (SKIFF_TRANSPORTS=tcp) and on hosts of shm ranks.  Bytes checked
 * everywhere:
 *   1. all to all: every rank sends each other rank sizes around the
 *      thresholds, received by MPI_ANY_SOURCE / MPI_ANY_TAG receives posted
 *      before (matched in arrival order, identified by the status), and
 *      small messages right behind each large one (stream order after it);
 *   2. truncation: a large message into a smaller buffer (MPI_ERR_TRUNCATE,
 *      the first bytes right), then a message behind it intact;
 *   3. probe: MPI_Probe / MPI_Mprobe + MPI_Mrecv of large ones, sized from
 *      the status;
 *   4. both ways at once (MPI_Sendrecv of large messages), and a send buffer
 *      changed as soon as MPI_Send returned (the bytes are already gone);
 *   5. a derived-type (strided) receive of a large contiguous send (the
 *      receiver does not post a direct buffer: the data streams through the
 *      ring instead) and a sender with a derived type into a contiguous one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "mpitest.h"
#include "testutil.h"

static const size_t big[] = {65537, 262145, 1 << 20, (1 << 20) + 3, (4 << 20) + 5};
#define NBIG (sizeof big / sizeof big[0])
#define SMALL 24

static unsigned seed_of(int src, int dst, int k)
{
    return (unsigned)(src * 131 + dst * 17 + k * 5 + 1);
}

/* 1: all to all, ANY_SOURCE / ANY_TAG receives posted first. */
static void all_to_all(void)
{
    int n = T_size - 1;
    if (n < 1)
        return;
    MPI_Comm comm; /* its own: the ANY_TAG receives must not take test_barrier's messages */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    /* receive slots, one per (peer, size) message, each as large as the largest */
    int nmsg = n * (int)NBIG;
    unsigned char **rb = calloc((size_t)nmsg, sizeof *rb), **sb = calloc((size_t)nmsg, sizeof *sb);
    unsigned char(*small_in)[SMALL] = calloc((size_t)nmsg, SMALL);
    unsigned char(*small_out)[SMALL] = calloc((size_t)nmsg, SMALL);
    MPI_Request *rq = calloc((size_t)(4 * nmsg), sizeof *rq);
    CHECK(rb && sb && small_in && small_out && rq);
    for (int i = 0; i < nmsg; i++)
        CHECK((rb[i] = malloc(big[NBIG - 1])) != NULL);
    int nr = 0;
    for (int i = 0; i < nmsg; i++)
        MPI_Irecv(rb[i], (int)big[NBIG - 1], MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, comm,
                  &rq[nr++]);
    test_barrier(); /* every receive posted before anything is sent */
    int ns = 0;
    for (int d = 1; d <= n; d++) {
        int dst = (T_rank + d) % T_size;
        for (size_t k = 0; k < NBIG; k++) {
            int i = (d - 1) * (int)NBIG + (int)k;
            CHECK((sb[i] = malloc(big[k])) != NULL);
            fill(sb[i], big[k], seed_of(T_rank, dst, (int)k));
            MPI_Isend(sb[i], (int)big[k], MPI_BYTE, dst, (int)k, comm, &rq[nr + ns++]);
            /* a small message right behind it (its own tag space: 100 + k) */
            fill(small_out[i], SMALL, seed_of(T_rank, dst, 100 + (int)k));
            MPI_Isend(small_out[i], SMALL, MPI_BYTE, dst, 100 + (int)k, comm,
                      &rq[nr + ns++]);
        }
    }
    /* the first nmsg messages to arrive from anyone (a peer's large k and
     * its small k alike) are matched by the ANY_TAG receives: each slot is
     * identified by its status; the rest are received by source and tag */
    MPI_Status *st = calloc((size_t)nmsg, sizeof *st);
    CHECK(st != NULL);
    MPI_Waitall(nmsg, rq, st);
    int got_large[64 * NBIG] = {0}, got_small[64 * NBIG] = {0};
    CHECK(T_size <= 64);
    for (int i = 0; i < nmsg; i++) {
        int src = st[i].MPI_SOURCE, tag = st[i].MPI_TAG, cnt;
        MPI_Get_count(&st[i], MPI_BYTE, &cnt);
        CHECK_EQ_INT(st[i].MPI_ERROR, MPI_SUCCESS);
        if (tag >= 100) {
            int k = tag - 100;
            CHECK(k >= 0 && k < (int)NBIG && cnt == SMALL);
            check_verified("small message", SMALL, src,
                           verify(rb[i], SMALL, seed_of(src, T_rank, tag)));
            got_small[src * (int)NBIG + k]++;
        } else {
            CHECK(tag >= 0 && tag < (int)NBIG && (size_t)cnt == big[tag]);
            check_verified("large message", big[tag], src,
                           verify(rb[i], big[tag], seed_of(src, T_rank, tag)));
            got_large[src * (int)NBIG + tag]++;
        }
    }
    /* whatever the ANY_TAG receives did not take */
    for (int s = 0; s < T_size; s++) {
        if (s == T_rank)
            continue;
        for (size_t k = 0; k < NBIG; k++) {
            MPI_Status one;
            if (!got_large[s * (int)NBIG + (int)k]) {
                MPI_Recv(rb[0], (int)big[NBIG - 1], MPI_BYTE, s, (int)k, comm, &one);
                check_recv_status(&one, s, (int)k, MPI_BYTE, (int)big[k]);
                check_verified("large message", big[k], s,
                               verify(rb[0], big[k], seed_of(s, T_rank, (int)k)));
                got_large[s * (int)NBIG + (int)k]++;
            }
            if (!got_small[s * (int)NBIG + (int)k]) {
                MPI_Recv(small_in[0], SMALL, MPI_BYTE, s, 100 + (int)k, comm, &one);
                check_recv_status(&one, s, 100 + (int)k, MPI_BYTE, SMALL);
                check_verified("small message", SMALL, s,
                               verify(small_in[0], SMALL, seed_of(s, T_rank, 100 + (int)k)));
                got_small[s * (int)NBIG + (int)k]++;
            }
            CHECK_EQ_INT(got_large[s * (int)NBIG + (int)k], 1);
            CHECK_EQ_INT(got_small[s * (int)NBIG + (int)k], 1);
        }
    }
    MPI_Waitall(ns, rq + nr, MPI_STATUSES_IGNORE);
    for (int i = 0; i < nmsg; i++) {
        free(rb[i]);
        free(sb[i]);
    }
    free(rb);
    free(sb);
    free(small_in);
    free(small_out);
    free(rq);
    free(st);
    MPI_Comm_free(&comm);
}

/* 2: truncation of a large message, and the one behind it. */
static void truncation(int peer)
{
    size_t n = (2 << 20) + 7, cap = 300001;
    unsigned char *b = malloc(n);
    CHECK(b != NULL);
    if (T_rank < peer) {
        fill(b, n, 11);
        MPI_Send(b, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
        fill(b, n, 12);
        MPI_Send(b, (int)n, MPI_BYTE, peer, 6, MPI_COMM_WORLD);
    } else {
        memset(b, 0, n);
        MPI_Status st;
        int rc = MPI_Recv(b, (int)cap, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &st);
        CHECK_EQ_INT(rc, MPI_ERR_TRUNCATE);
        check_verified("truncated message", cap, peer, verify(b, cap, 11));
        for (size_t i = cap; i < cap + 4096; i++) /* nothing written past the buffer */
            CHECK(b[i] == 0);
        MPI_Recv(b, (int)n, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &st);
        check_recv_status(&st, peer, 6, MPI_BYTE, (int)n);
        check_verified("message after a truncated one", n, peer, verify(b, n, 12));
    }
    free(b);
}

/* 3: probe, then receive of the size the status says. */
static void probe(int peer)
{
    size_t n = (1 << 20) + 13;
    unsigned char *b = malloc(n);
    CHECK(b != NULL);
    if (T_rank < peer) {
        fill(b, n, 21);
        MPI_Send(b, (int)n, MPI_BYTE, peer, 7, MPI_COMM_WORLD);
        fill(b, n - 9, 22);
        MPI_Send(b, (int)(n - 9), MPI_BYTE, peer, 8, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        int cnt;
        MPI_Probe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_EQ_INT(cnt, (int)n);
        CHECK_EQ_INT(st.MPI_SOURCE, peer);
        unsigned char *in = malloc((size_t)cnt);
        CHECK(in != NULL);
        MPI_Recv(in, cnt, MPI_BYTE, st.MPI_SOURCE, 7, MPI_COMM_WORLD, &st);
        check_verified("probed message", n, peer, verify(in, n, 21));
        free(in);
        MPI_Message m;
        MPI_Mprobe(peer, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK_EQ_INT(cnt, (int)(n - 9));
        CHECK_EQ_INT(st.MPI_TAG, 8);
        in = malloc((size_t)cnt);
        CHECK(in != NULL);
        MPI_Mrecv(in, cnt, MPI_BYTE, &m, &st);
        check_recv_status(&st, peer, 8, MPI_BYTE, (int)(n - 9));
        check_verified("mprobed message", n - 9, peer, verify(in, n - 9, 22));
        free(in);
    }
    free(b);
}

/* 4: both ways at once; a send buffer reused as soon as MPI_Send returned. */
static void both_ways(int peer)
{
    size_t n = (3 << 20) + 1;
    unsigned char *out = malloc(n), *in = malloc(n);
    CHECK(out && in);
    for (int round = 0; round < 3; round++) {
        fill(out, n, seed_of(T_rank, peer, 40 + round));
        MPI_Status st;
        MPI_Sendrecv(out, (int)n, MPI_BYTE, peer, 9, in, (int)n, MPI_BYTE, peer, 9, MPI_COMM_WORLD,
                     &st);
        check_recv_status(&st, peer, 9, MPI_BYTE, (int)n);
        check_verified("sendrecv message", n, peer, verify(in, n, seed_of(peer, T_rank, 40 + round)));
    }
    if (T_rank < peer) {
        fill(out, n, 51);
        MPI_Send(out, (int)n, MPI_BYTE, peer, 10, MPI_COMM_WORLD);
        memset(out, 0xee, n); /* the message is on its way: this must not show */
        fill(out, n, 52);
        MPI_Send(out, (int)n, MPI_BYTE, peer, 10, MPI_COMM_WORLD);
        memset(out, 0xdd, n);
    } else {
        MPI_Recv(in, (int)n, MPI_BYTE, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check_verified("first reused-buffer message", n, peer, verify(in, n, 51));
        MPI_Recv(in, (int)n, MPI_BYTE, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        check_verified("second reused-buffer message", n, peer, verify(in, n, 52));
    }
    free(out);
    free(in);
}

/* 5: a strided receive of a contiguous send, and the other way round. */
static void typed(int peer)
{
    const int count = 200000, stride = 3; /* 200000 ints of every third: 800 KB of data */
    MPI_Datatype vec;
    MPI_Type_vector(count, 1, stride, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *wide = malloc((size_t)count * stride * sizeof(int)), *flat = malloc((size_t)count * sizeof(int));
    CHECK(wide && flat);
    if (T_rank < peer) {
        for (int i = 0; i < count; i++)
            flat[i] = i * 7 + 1;
        MPI_Send(flat, count, MPI_INT, peer, 11, MPI_COMM_WORLD);
        for (int i = 0; i < count * stride; i++)
            wide[i] = i % stride ? -1 : (i / stride) * 5 + 2;
        MPI_Send(wide, 1, vec, peer, 12, MPI_COMM_WORLD);
    } else {
        for (int i = 0; i < count * stride; i++)
            wide[i] = -7;
        MPI_Recv(wide, 1, vec, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < count * stride; i++)
            CHECK(wide[i] == (i % stride ? -7 : (i / stride) * 7 + 1));
        MPI_Recv(flat, count, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < count; i++)
            CHECK(flat[i] == i * 5 + 2);
    }
    MPI_Type_free(&vec);
    free(wide);
    free(flat);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* truncation is checked */
    all_to_all();
    test_barrier();
    int peer = test_partner();
    if (peer != T_rank) {
        truncation(peer);
        probe(peer);
        both_ways(peer);
        typed(peer);
    }
    test_done("p2p_direct");
    return 0;
}
