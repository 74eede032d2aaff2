/* dtype_p2p — point-to-point with derived datatypes at every protocol size
 * class (short, eager, rendezvous): the receive buffer must equal what a
 * local pack/unpack of the sender's data gives, gaps untouched; type
 * signatures that match but layouts that do not (vector -> bytes, bytes ->
 * struct array); blocking, nonblocking, synchronous, persistent, buffered,
 * Sendrecv(_replace) and Mprobe/Mrecv; Get_count/Get_elements afterwards;
 * truncated large typed messages. */
#include <stddef.h>

#include "mpitest.h"

enum { NTYPES = 6 };
static MPI_Datatype types[NTYPES];
static const char *names[NTYPES] = {"vector", "struct", "indexed", "subarray", "resized", "bigvector"};

struct rec {
    double d;
    char c;
    int i;
};

static void make_types(void)
{
    MPI_Type_vector(3, 1, 2, MPI_INT, &types[0]); /* every other int */
    MPI_Aint disp[3] = {offsetof(struct rec, d), offsetof(struct rec, c), offsetof(struct rec, i)};
    MPI_Type_create_struct(3, (int[]){1, 1, 1}, disp,
                           (MPI_Datatype[]){MPI_DOUBLE, MPI_CHAR, MPI_INT}, &types[1]);
    MPI_Type_indexed(3, (int[]){2, 1, 3}, (int[]){7, 0, 3}, MPI_SHORT, &types[2]);
    MPI_Type_create_subarray(2, (int[]){6, 8}, (int[]){3, 5}, (int[]){2, 1}, MPI_ORDER_C,
                             MPI_CHAR, &types[3]);
    MPI_Datatype one;
    MPI_Type_contiguous(3, MPI_INT, &one);
    MPI_Type_create_resized(one, 0, 20, &types[4]); /* 12 data bytes every 20 */
    MPI_Type_free(&one);
    MPI_Type_vector(3, 8192, 10000, MPI_DOUBLE, &types[5]); /* 64 KiB pieces */
    for (int k = 0; k < NTYPES; k++)
        MPI_Type_commit(&types[k]);
}

/* Buffer bytes spanned by count elements of t (from offset 0, lb >= 0). */
static size_t span(MPI_Datatype t, int count)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    return (size_t)(count > 0 ? (count - 1) * ext + tlb + text : 0) + 64;
}

/* What the receiver must see: the sender's pattern, moved by pack/unpack. */
static unsigned char *expected(MPI_Datatype st, MPI_Datatype rt, int scount, int rcount,
                               size_t rspan, unsigned seed)
{
    size_t sspan = span(st, scount);
    unsigned char *src = malloc(sspan), *out = malloc(rspan);
    fill(src, sspan, seed);
    memset(out, 0xee, rspan);
    int psize;
    MPI_Pack_size(scount, st, MPI_COMM_WORLD, &psize);
    char *packed = malloc((size_t)psize + 1);
    int pos = 0;
    MPI_Pack(src, scount, st, packed, psize, &pos, MPI_COMM_WORLD);
    pos = 0;
    MPI_Unpack(packed, psize, &pos, out, rcount, rt, MPI_COMM_WORLD);
    free(src);
    free(packed);
    return out;
}

enum { M_BLOCKING, M_NONBLOCKING, M_SYNC, M_PERSISTENT, M_SENDRECV, M_MPROBE, M_BSEND, NMODES };

static void exchange(MPI_Datatype st, int scount, MPI_Datatype rt, int rcount, int mode,
                     unsigned seed)
{
    int peer = test_partner(), tag = 100 + mode;
    size_t sspan = span(st, scount), rspan = span(rt, rcount);
    unsigned char *sbuf = malloc(sspan), *rbuf = malloc(rspan);
    fill(sbuf, sspan, seed);
    memset(rbuf, 0xee, rspan);
    MPI_Status status;
    MPI_Request rq[2];
    switch (mode) {
    case M_BLOCKING:
    case M_SYNC:
    case M_BSEND:
        if (peer == T_rank || T_rank < peer) {
            MPI_Irecv(rbuf, rcount, rt, peer, tag, MPI_COMM_WORLD, &rq[0]);
            if (mode == M_BLOCKING)
                MPI_Send(sbuf, scount, st, peer, tag, MPI_COMM_WORLD);
            else if (mode == M_SYNC)
                MPI_Ssend(sbuf, scount, st, peer, tag, MPI_COMM_WORLD);
            else
                MPI_Bsend(sbuf, scount, st, peer, tag, MPI_COMM_WORLD);
            MPI_Wait(&rq[0], &status);
        } else {
            MPI_Recv(rbuf, rcount, rt, peer, tag, MPI_COMM_WORLD, &status);
            if (mode == M_BLOCKING)
                MPI_Send(sbuf, scount, st, peer, tag, MPI_COMM_WORLD);
            else if (mode == M_SYNC)
                MPI_Ssend(sbuf, scount, st, peer, tag, MPI_COMM_WORLD);
            else
                MPI_Bsend(sbuf, scount, st, peer, tag, MPI_COMM_WORLD);
        }
        break;
    case M_NONBLOCKING:
        MPI_Irecv(rbuf, rcount, rt, peer, tag, MPI_COMM_WORLD, &rq[0]);
        MPI_Isend(sbuf, scount, st, peer, tag, MPI_COMM_WORLD, &rq[1]);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        MPI_Wait(&rq[0], &status);
        break;
    case M_PERSISTENT:
        MPI_Recv_init(rbuf, rcount, rt, peer, tag, MPI_COMM_WORLD, &rq[0]);
        MPI_Send_init(sbuf, scount, st, peer, tag, MPI_COMM_WORLD, &rq[1]);
        for (int round = 0; round < 2; round++) {
            memset(rbuf, 0xee, rspan);
            MPI_Startall(2, rq);
            MPI_Wait(&rq[0], &status);
            MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        }
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
        break;
    case M_SENDRECV:
        MPI_Sendrecv(sbuf, scount, st, peer, tag, rbuf, rcount, rt, peer, tag, MPI_COMM_WORLD,
                     &status);
        break;
    case M_MPROBE: {
        MPI_Isend(sbuf, scount, st, peer, tag, MPI_COMM_WORLD, &rq[1]);
        MPI_Message msg;
        MPI_Mprobe(peer, tag, MPI_COMM_WORLD, &msg, &status);
        MPI_Mrecv(rbuf, rcount, rt, &msg, &status);
        MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
        break;
    }
    }
    unsigned char *want = expected(st, rt, scount, rcount, rspan, seed);
    for (size_t i = 0; i < rspan; i++)
        if (rbuf[i] != want[i]) {
            fprintf(stderr, "rank %d: mode %d scount %d rcount %d: byte %zu is %02x, want %02x\n",
                    T_rank, mode, scount, rcount, i, rbuf[i], want[i]);
            exit(1);
        }
    int n, ssize, rsize;
    MPI_Type_size(st, &ssize);
    MPI_Type_size(rt, &rsize);
    MPI_Get_count(&status, rt, &n);
    CHECK_EQ_INT(n, (long long)scount * ssize / rsize);
    free(want);
    free(sbuf);
    free(rbuf);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    make_types();
    static char bsend_space[4 << 20];
    MPI_Buffer_attach(bsend_space, sizeof bsend_space);
    /* element counts giving packed sizes in each protocol class */
    const size_t targets[] = {12, 40, 2000, 60000, 300000};
    for (int k = 0; k < NTYPES; k++) {
        int size;
        MPI_Type_size(types[k], &size);
        for (unsigned s = 0; s < sizeof targets / sizeof *targets; s++) {
            int count = (int)(targets[s] / (size_t)size);
            if (count == 0)
                count = 1;
            for (int mode = 0; mode < NMODES; mode++)
                exchange(types[k], count, types[k], count, mode, (unsigned)(k * 31 + s * 7 + mode));
            /* same signature, other layouts: typed -> bytes and bytes -> typed */
            exchange(types[k], count, MPI_BYTE, count * size, M_NONBLOCKING, (unsigned)s);
            exchange(MPI_BYTE, count * size, types[k], count, M_BLOCKING, (unsigned)s + 1);
        }
        if (T_rank == 0)
            printf("dtype_p2p: %s done\n", names[k]);
    }
    /* vector of ints received as a contiguous run of ints: Get_elements */
    {
        int peer = test_partner(), v[6] = {1, 2, 3, 4, 5, 6}, got[3];
        MPI_Request rq;
        MPI_Status st;
        MPI_Irecv(got, 3, MPI_INT, peer, 7, MPI_COMM_WORLD, &rq);
        MPI_Send(v, 1, types[0], peer, 7, MPI_COMM_WORLD);
        MPI_Wait(&rq, &st);
        CHECK(got[0] == 1 && got[1] == 3 && got[2] == 5);
        int n;
        MPI_Get_elements(&st, types[0], &n);
        CHECK_EQ_INT(n, 3);
        MPI_Get_count(&st, types[0], &n);
        CHECK_EQ_INT(n, 1);
    }
    /* truncation with a derived receive type is reported as such */
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int peer = test_partner(), v[12] = {0}, got[6];
        MPI_Request rq;
        MPI_Irecv(got, 1, types[0], peer, 8, MPI_COMM_WORLD, &rq);
        MPI_Send(v, 2, types[0], peer, 8, MPI_COMM_WORLD);
        CHECK_EQ_INT(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    /* truncation of large typed messages (packed into the ring eagerly, and
     * the streamed rendezvous), received typed and as bytes: the error class,
     * exactly the bytes that fit, and the next message still arrives intact */
    {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int peer = test_partner(), esize;
        MPI_Type_size(types[0], &esize);
        const int counts[] = {60000 / esize, 300000 / esize};
        for (int i = 0; i < 2; i++)
            for (int as_bytes = 0; as_bytes < 2; as_bytes++) {
                int sc = counts[i], rcount = as_bytes ? sc / 2 * esize : sc / 2;
                MPI_Datatype rt = as_bytes ? MPI_BYTE : types[0];
                size_t sspan = span(types[0], sc), rspan = span(rt, rcount);
                unsigned char *sbuf = malloc(sspan), *rbuf = malloc(rspan);
                fill(sbuf, sspan, 5u + (unsigned)i);
                memset(rbuf, 0xee, rspan);
                MPI_Request rq;
                MPI_Irecv(rbuf, rcount, rt, peer, 9, MPI_COMM_WORLD, &rq);
                CHECK_EQ_INT(MPI_Send(sbuf, sc, types[0], peer, 9, MPI_COMM_WORLD), MPI_SUCCESS);
                CHECK_EQ_INT(MPI_Wait(&rq, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
                unsigned char *want = expected(types[0], rt, sc, rcount, rspan, 5u + (unsigned)i);
                CHECK(memcmp(rbuf, want, rspan) == 0);
                int x = 4242 + i, y = 0;
                MPI_Sendrecv(&x, 1, MPI_INT, peer, 10, &y, 1, MPI_INT, peer, 10, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                CHECK_EQ_INT(y, x);
                free(want);
                free(sbuf);
                free(rbuf);
            }
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    for (int k = 0; k < NTYPES; k++)
        MPI_Type_free(&types[k]);
    test_done("dtype_p2p");
    return 0;
}
