/* mpi4_large_count.c — every large-count (_c) function of MPI 4.0 outside
 * I/O and process creation: results against the int forms or known values,
 * counts past 2^31 where no memory is needed (status counts, type sizes),
 * and the error classes of bad arguments.  Runs at any rank count; the
 * gigabyte-sized messages are large_count.c. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mpitest.h"

#define OK(call) CHECK_EQ_INT((call), MPI_SUCCESS)
#define BIG ((MPI_Count)INT_MAX + 9) /* 2^31 + 8 */

static int error_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}
#define FAILS(call, cls) CHECK_EQ_INT(error_class(call), cls)

static int next, prev; /* ring neighbours */

static long long v(int rank, long long i) { return rank * 1000 + i; }

/* ---- point to point ------------------------------------------------------ */
static void p2p(void)
{
    long long out[8], in[8];
    MPI_Status st;
    MPI_Request rq[2];
    MPI_Count n;
    for (int i = 0; i < 8; i++)
        out[i] = v(T_rank, i);
    /* standard, synchronous, ready (receive posted first), buffered */
    for (int mode = 0; mode < 4; mode++) {
        memset(in, 0, sizeof in);
        OK(MPI_Irecv_c(in, 8, MPI_LONG_LONG, prev, mode, MPI_COMM_WORLD, &rq[0]));
        MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: ready mode is legal */
        if (mode == 0)
            OK(MPI_Isend_c(out, 8, MPI_LONG_LONG, next, mode, MPI_COMM_WORLD, &rq[1]));
        else if (mode == 1)
            OK(MPI_Issend_c(out, 8, MPI_LONG_LONG, next, mode, MPI_COMM_WORLD, &rq[1]));
        else if (mode == 2)
            OK(MPI_Irsend_c(out, 8, MPI_LONG_LONG, next, mode, MPI_COMM_WORLD, &rq[1]));
        else {
            static char bbuf[4096];
            OK(MPI_Buffer_attach_c(bbuf, (MPI_Count)sizeof bbuf));
            OK(MPI_Ibsend_c(out, 8, MPI_LONG_LONG, next, mode, MPI_COMM_WORLD, &rq[1]));
            OK(MPI_Bsend_c(out, 4, MPI_LONG_LONG, next, 9, MPI_COMM_WORLD));
        }
        OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        for (int i = 0; i < 8; i++)
            CHECK_EQ_INT(in[i], v(prev, i));
        if (mode == 3) {
            OK(MPI_Recv_c(in, 8, MPI_LONG_LONG, prev, 9, MPI_COMM_WORLD, &st));
            OK(MPI_Get_count_c(&st, MPI_LONG_LONG, &n));
            CHECK_EQ_INT(n, 4);
            void *addr;
            MPI_Count size;
            OK(MPI_Buffer_detach_c(&addr, &size));
            CHECK_EQ_INT(size, 4096);
        }
    }
    /* blocking forms: to the next rank, from the previous (Ssend paired by Irecv) */
    OK(MPI_Irecv(in, 8, MPI_LONG_LONG, prev, 20, MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Ssend_c(out, 8, MPI_LONG_LONG, next, 20, MPI_COMM_WORLD));
    OK(MPI_Wait(&rq[0], &st));
    OK(MPI_Send_c(out, 3, MPI_LONG_LONG, next, 21, MPI_COMM_WORLD)); /* eager: returns */
    OK(MPI_Recv_c(in, 8, MPI_LONG_LONG, prev, 21, MPI_COMM_WORLD, &st));
    OK(MPI_Get_count_c(&st, MPI_LONG_LONG, &n));
    CHECK_EQ_INT(n, 3);
    OK(MPI_Irecv(in, 8, MPI_LONG_LONG, prev, 22, MPI_COMM_WORLD, &rq[0]));
    MPI_Barrier(MPI_COMM_WORLD);
    OK(MPI_Rsend_c(out, 8, MPI_LONG_LONG, next, 22, MPI_COMM_WORLD));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_EQ_INT(in[7], v(prev, 7));
    /* sendrecv and its replace / nonblocking forms */
    memset(in, 0, sizeof in);
    OK(MPI_Sendrecv_c(out, 8, MPI_LONG_LONG, next, 23, in, 8, MPI_LONG_LONG, prev, 23,
                      MPI_COMM_WORLD, &st));
    CHECK_EQ_INT(in[5], v(prev, 5));
    long long buf[8];
    memcpy(buf, out, sizeof buf);
    OK(MPI_Sendrecv_replace_c(buf, 8, MPI_LONG_LONG, next, 24, prev, 24, MPI_COMM_WORLD, &st));
    CHECK_EQ_INT(buf[6], v(prev, 6));
    memset(in, 0, sizeof in);
    OK(MPI_Isendrecv_c(out, 8, MPI_LONG_LONG, next, 25, in, 8, MPI_LONG_LONG, prev, 25,
                       MPI_COMM_WORLD, &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_EQ_INT(in[1], v(prev, 1));
    memcpy(buf, out, sizeof buf);
    OK(MPI_Isendrecv_replace_c(buf, 8, MPI_LONG_LONG, next, 26, prev, 26, MPI_COMM_WORLD,
                               &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    CHECK_EQ_INT(buf[2], v(prev, 2));
    /* persistent, twice */
    MPI_Request p[2];
    OK(MPI_Recv_init_c(in, 8, MPI_LONG_LONG, prev, 27, MPI_COMM_WORLD, &p[0]));
    OK(MPI_Send_init_c(out, 8, MPI_LONG_LONG, next, 27, MPI_COMM_WORLD, &p[1]));
    for (int k = 0; k < 2; k++) {
        memset(in, 0, sizeof in);
        OK(MPI_Startall(2, p));
        OK(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
        CHECK_EQ_INT(in[4], v(prev, 4));
    }
    MPI_Request_free(&p[0]);
    MPI_Request_free(&p[1]);
    MPI_Request q[4];
    static char bbuf2[4096];
    OK(MPI_Buffer_attach(bbuf2, (int)sizeof bbuf2));
    OK(MPI_Recv_init_c(in, 8, MPI_LONG_LONG, prev, 28, MPI_COMM_WORLD, &q[0]));
    OK(MPI_Ssend_init_c(out, 8, MPI_LONG_LONG, next, 28, MPI_COMM_WORLD, &q[1]));
    OK(MPI_Start(&q[0]));
    OK(MPI_Start(&q[1]));
    OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    OK(MPI_Recv_init_c(in, 8, MPI_LONG_LONG, prev, 29, MPI_COMM_WORLD, &q[2]));
    OK(MPI_Bsend_init_c(out, 8, MPI_LONG_LONG, next, 29, MPI_COMM_WORLD, &q[3]));
    OK(MPI_Startall(2, q + 2));
    OK(MPI_Waitall(2, q + 2, MPI_STATUSES_IGNORE));
    CHECK_EQ_INT(in[3], v(prev, 3));
    OK(MPI_Recv_init_c(in, 8, MPI_LONG_LONG, prev, 30, MPI_COMM_WORLD, &q[0 + 0]));
    OK(MPI_Start(&q[0]));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Request rs;
    OK(MPI_Rsend_init_c(out, 8, MPI_LONG_LONG, next, 30, MPI_COMM_WORLD, &rs));
    OK(MPI_Start(&rs));
    OK(MPI_Wait(&q[0], MPI_STATUS_IGNORE));
    OK(MPI_Wait(&rs, MPI_STATUS_IGNORE));
    CHECK_EQ_INT(in[0], v(prev, 0));
    for (int k = 0; k < 4; k++)
        if (k != 0 && q[k] != MPI_REQUEST_NULL)
            MPI_Request_free(&q[k]);
    MPI_Request_free(&q[0]);
    MPI_Request_free(&rs);
    void *addr;
    int isize;
    OK(MPI_Buffer_detach(&addr, &isize));
    /* matched probes */
    MPI_Message m;
    OK(MPI_Isend_c(out, 5, MPI_LONG_LONG, next, 31, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Mprobe(prev, 31, MPI_COMM_WORLD, &m, &st));
    OK(MPI_Mrecv_c(in, 8, MPI_LONG_LONG, &m, &st));
    OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    OK(MPI_Get_elements_c(&st, MPI_LONG_LONG, &n));
    CHECK_EQ_INT(n, 5);
    OK(MPI_Isend_c(out, 6, MPI_LONG_LONG, next, 32, MPI_COMM_WORLD, &rq[1]));
    OK(MPI_Mprobe(prev, 32, MPI_COMM_WORLD, &m, &st));
    OK(MPI_Imrecv_c(in, 8, MPI_LONG_LONG, &m, &rq[0]));
    OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK_EQ_INT(in[5], v(prev, 5));
    /* errors: negative counts, truncation */
    FAILS(MPI_Send_c(out, -1, MPI_LONG_LONG, next, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    FAILS(MPI_Irecv_c(in, -5, MPI_LONG_LONG, prev, 0, MPI_COMM_WORLD, &rq[0]), MPI_ERR_COUNT);
    FAILS(MPI_Send_c(NULL, 4, MPI_LONG_LONG, next, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    FAILS(MPI_Buffer_attach_c(NULL, -1), MPI_ERR_COUNT);
    OK(MPI_Isend_c(out, 8, MPI_LONG_LONG, next, 33, MPI_COMM_WORLD, &rq[1]));
    FAILS(MPI_Recv_c(in, 2, MPI_LONG_LONG, prev, 33, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
    OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
}

/* ---- status counts past 2^31 (no memory needed) -------------------------- */
static void status_counts(void)
{
    MPI_Status st;
    MPI_Count n;
    int ni;
    OK(MPI_Status_set_elements_c(&st, MPI_BYTE, BIG));
    OK(MPI_Get_count_c(&st, MPI_BYTE, &n));
    CHECK_EQ_INT(n, BIG);
    OK(MPI_Get_count(&st, MPI_BYTE, &ni));
    CHECK_EQ_INT(ni, MPI_UNDEFINED);
    OK(MPI_Get_elements(&st, MPI_BYTE, &ni));
    CHECK_EQ_INT(ni, MPI_UNDEFINED);
    OK(MPI_Get_count(&st, MPI_DOUBLE, &ni));
    CHECK_EQ_INT(ni, (int)(BIG / 8));
    OK(MPI_Status_set_elements_c(&st, MPI_INT, 3 * (MPI_Count)INT_MAX));
    OK(MPI_Get_elements_c(&st, MPI_INT, &n));
    CHECK_EQ_INT(n, 3 * (MPI_Count)INT_MAX);
    OK(MPI_Get_count_c(&st, MPI_DOUBLE, &n)); /* 12 * (2^31-1) bytes: not whole doubles */
    CHECK_EQ_INT(n, MPI_UNDEFINED);
    FAILS(MPI_Status_set_elements_c(&st, MPI_INT, -1), MPI_ERR_COUNT);
    FAILS(MPI_Get_count_c(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
}

/* ---- datatypes ------------------------------------------------------------ */
/* Pack count elements of a and of b from the same buffer: same bytes. */
static void same_layout(MPI_Datatype a, MPI_Datatype b, int count)
{
    static int src[4096];
    static char pa[16384], pb[16384];
    for (int i = 0; i < 4096; i++)
        src[i] = i * 7 + 1;
    MPI_Count sa, sb, pos_a = 0;
    int pos_b = 0;
    OK(MPI_Type_size_c(a, &sa));
    OK(MPI_Type_size_c(b, &sb));
    CHECK_EQ_INT(sa, sb);
    MPI_Count la, ea, lb, eb;
    OK(MPI_Type_get_extent_c(a, &la, &ea));
    OK(MPI_Type_get_extent_c(b, &lb, &eb));
    CHECK_EQ_INT(la, lb);
    CHECK_EQ_INT(ea, eb);
    OK(MPI_Type_get_true_extent_c(a, &la, &ea));
    OK(MPI_Type_get_true_extent_c(b, &lb, &eb));
    CHECK_EQ_INT(la, lb);
    CHECK_EQ_INT(ea, eb);
    OK(MPI_Pack_c(src, count, a, pa, sizeof pa, &pos_a, MPI_COMM_WORLD));
    OK(MPI_Pack(src, count, b, pb, sizeof pb, &pos_b, MPI_COMM_WORLD));
    CHECK_EQ_INT(pos_a, pos_b);
    CHECK(memcmp(pa, pb, (size_t)pos_b) == 0);
}

/* A _c-built type: its envelope_c has only large counts (plus subarray/darray
 * ints), the int envelope refuses it, and the contents are the arguments. */
static void envelope(MPI_Datatype t, int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc,
                     const MPI_Count *expect_counts, const int *expect_ints)
{
    MPI_Count gi, ga, gc, gd;
    int comb, a, b, c, d;
    OK(MPI_Type_get_envelope_c(t, &gi, &ga, &gc, &gd, &comb));
    CHECK_EQ_INT(comb, combiner);
    CHECK_EQ_INT(gi, ni);
    CHECK_EQ_INT(ga, na);
    CHECK_EQ_INT(gc, nc);
    FAILS(MPI_Type_get_envelope(t, &a, &b, &c, &d), MPI_ERR_TYPE);
    int ints[64];
    MPI_Aint aints[64];
    MPI_Count counts[64];
    MPI_Datatype types[8];
    FAILS(MPI_Type_get_contents_c(t, gi, ga, gc > 0 ? gc - 1 : 0, gd, ints, aints, counts, types),
          gc > 0 ? MPI_ERR_ARG : MPI_SUCCESS);
    OK(MPI_Type_get_contents_c(t, gi, ga, gc, gd, ints, aints, counts, types));
    for (MPI_Count k = 0; k < nc; k++)
        CHECK_EQ_INT(counts[k], expect_counts[k]);
    for (MPI_Count k = 0; k < ni; k++)
        CHECK_EQ_INT(ints[k], expect_ints[k]);
    for (MPI_Count k = 0; k < gd; k++) {
        int nn, aa, dd, cc;
        MPI_Type_get_envelope(types[k], &nn, &aa, &dd, &cc);
        if (cc != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[k]);
    }
}

static void types(void)
{
    MPI_Datatype a, b;
    MPI_Count n;
    int ni;
    /* a type of 2^31+8 bytes: sizes only */
    OK(MPI_Type_contiguous_c(BIG, MPI_BYTE, &a));
    OK(MPI_Type_size_c(a, &n));
    CHECK_EQ_INT(n, BIG);
    OK(MPI_Type_size(a, &ni));
    CHECK_EQ_INT(ni, MPI_UNDEFINED);
    MPI_Count lb, ext;
    OK(MPI_Type_get_extent_c(a, &lb, &ext));
    CHECK_EQ_INT(ext, BIG);
    MPI_Count ec[1] = {BIG};
    envelope(a, MPI_COMBINER_CONTIGUOUS, 0, 0, 1, ec, NULL);
    MPI_Type_free(&a);
    FAILS(MPI_Type_contiguous_c(-1, MPI_INT, &a), MPI_ERR_COUNT);
    FAILS(MPI_Type_vector_c(3, -2, 4, MPI_INT, &a), MPI_ERR_COUNT);

    /* every constructor against its int twin */
    OK(MPI_Type_contiguous_c(5, MPI_INT, &a));
    OK(MPI_Type_contiguous(5, MPI_INT, &b));
    same_layout(a, b, 3);
    MPI_Type_free(&a), MPI_Type_free(&b);

    OK(MPI_Type_vector_c(4, 3, 5, MPI_INT, &a));
    OK(MPI_Type_vector(4, 3, 5, MPI_INT, &b));
    same_layout(a, b, 2);
    MPI_Count vc[3] = {4, 3, 5};
    envelope(a, MPI_COMBINER_VECTOR, 0, 0, 3, vc, NULL);
    MPI_Type_free(&a), MPI_Type_free(&b);

    OK(MPI_Type_create_hvector_c(4, 2, 24, MPI_INT, &a));
    OK(MPI_Type_create_hvector(4, 2, 24, MPI_INT, &b));
    same_layout(a, b, 2);
    MPI_Count hc[3] = {4, 2, 24};
    envelope(a, MPI_COMBINER_HVECTOR, 0, 0, 3, hc, NULL);
    MPI_Type_free(&a), MPI_Type_free(&b);

    MPI_Count blc[3] = {2, 1, 3}, dc[3] = {0, 5, 9};
    int bl[3] = {2, 1, 3}, d[3] = {0, 5, 9};
    MPI_Aint da[3] = {0, 20, 36};
    MPI_Count dac[3] = {0, 20, 36};
    OK(MPI_Type_indexed_c(3, blc, dc, MPI_INT, &a));
    OK(MPI_Type_indexed(3, bl, d, MPI_INT, &b));
    same_layout(a, b, 2);
    MPI_Count ic[7] = {3, 2, 1, 3, 0, 5, 9};
    envelope(a, MPI_COMBINER_INDEXED, 0, 0, 7, ic, NULL);
    MPI_Type_free(&a), MPI_Type_free(&b);

    OK(MPI_Type_create_hindexed_c(3, blc, dac, MPI_INT, &a));
    OK(MPI_Type_create_hindexed(3, bl, da, MPI_INT, &b));
    same_layout(a, b, 2);
    MPI_Count hic[7] = {3, 2, 1, 3, 0, 20, 36};
    envelope(a, MPI_COMBINER_HINDEXED, 0, 0, 7, hic, NULL);
    MPI_Type_free(&a), MPI_Type_free(&b);

    OK(MPI_Type_create_indexed_block_c(3, 2, dc, MPI_INT, &a));
    OK(MPI_Type_create_indexed_block(3, 2, d, MPI_INT, &b));
    same_layout(a, b, 2);
    MPI_Type_free(&a), MPI_Type_free(&b);

    OK(MPI_Type_create_hindexed_block_c(3, 2, dac, MPI_INT, &a));
    OK(MPI_Type_create_hindexed_block(3, 2, da, MPI_INT, &b));
    same_layout(a, b, 2);
    MPI_Count hbc[5] = {3, 2, 0, 20, 36};
    envelope(a, MPI_COMBINER_HINDEXED_BLOCK, 0, 0, 5, hbc, NULL);
    MPI_Type_free(&a), MPI_Type_free(&b);

    MPI_Datatype st[3] = {MPI_INT, MPI_SHORT, MPI_INT};
    OK(MPI_Type_create_struct_c(3, blc, dac, st, &a));
    OK(MPI_Type_create_struct(3, bl, da, st, &b));
    same_layout(a, b, 2);
    envelope(a, MPI_COMBINER_STRUCT, 0, 0, 7, hic, NULL);
    MPI_Type_free(&a), MPI_Type_free(&b);
    FAILS(MPI_Type_create_struct_c(-1, blc, dac, st, &a), MPI_ERR_COUNT);

    OK(MPI_Type_create_resized_c(MPI_INT, -4, 16, &a));
    OK(MPI_Type_create_resized(MPI_INT, -4, 16, &b));
    same_layout(a, b, 1);
    MPI_Count rc2[2] = {-4, 16};
    envelope(a, MPI_COMBINER_RESIZED, 0, 0, 2, rc2, NULL);
    MPI_Type_free(&a), MPI_Type_free(&b);

    MPI_Count sz[2] = {6, 7}, sub[2] = {3, 2}, start[2] = {1, 4};
    int szi[2] = {6, 7}, subi[2] = {3, 2}, starti[2] = {1, 4};
    OK(MPI_Type_create_subarray_c(2, sz, sub, start, MPI_ORDER_C, MPI_INT, &a));
    OK(MPI_Type_create_subarray(2, szi, subi, starti, MPI_ORDER_C, MPI_INT, &b));
    same_layout(a, b, 1);
    MPI_Count sac[6] = {6, 7, 3, 2, 1, 4};
    int sai[2] = {2, MPI_ORDER_C};
    envelope(a, MPI_COMBINER_SUBARRAY, 2, 0, 6, sac, sai);
    MPI_Type_free(&a), MPI_Type_free(&b);
    sub[0] = 9;
    FAILS(MPI_Type_create_subarray_c(2, sz, sub, start, MPI_ORDER_C, MPI_INT, &a), MPI_ERR_ARG);

    MPI_Count gs[2] = {8, 6};
    int gsi[2] = {8, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
        darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
    OK(MPI_Type_create_darray_c(4, 3, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &a));
    OK(MPI_Type_create_darray(4, 3, 2, gsi, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_INT, &b));
    same_layout(a, b, 1);
    int dai[10] = {4, 3, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                   MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2, MPI_ORDER_FORTRAN};
    envelope(a, MPI_COMBINER_DARRAY, 10, 0, 2, gs, dai);
    MPI_Type_free(&a), MPI_Type_free(&b);

    /* an int-built type: envelope_c has no large counts, contents as before */
    OK(MPI_Type_vector(2, 1, 3, MPI_INT, &b));
    MPI_Count gi, ga, gc, gd;
    int comb;
    OK(MPI_Type_get_envelope_c(b, &gi, &ga, &gc, &gd, &comb));
    CHECK_EQ_INT(gi, 3);
    CHECK_EQ_INT(gc, 0);
    int ints[3];
    MPI_Datatype dt;
    OK(MPI_Type_get_contents_c(b, 3, 0, 0, 1, ints, NULL, NULL, &dt));
    CHECK_EQ_INT(ints[2], 3);
    MPI_Type_free(&b);
}

/* ---- pack ------------------------------------------------------------------ */
static void pack(void)
{
    int src[10], dst[10];
    char buf[256];
    MPI_Count pos = 0, size;
    for (int i = 0; i < 10; i++)
        src[i] = i * i - 3;
    OK(MPI_Pack_size_c(10, MPI_INT, MPI_COMM_WORLD, &size));
    CHECK_EQ_INT(size, 40);
    OK(MPI_Pack_size_c(BIG, MPI_INT, MPI_COMM_WORLD, &size)); /* no int limit */
    CHECK_EQ_INT(size, 4 * BIG);
    int isize;
    FAILS(MPI_Pack_size(INT_MAX, MPI_INT, MPI_COMM_WORLD, &isize), MPI_ERR_VALUE_TOO_LARGE);
    OK(MPI_Pack_c(src, 10, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK_EQ_INT(pos, 40);
    pos = 0;
    memset(dst, 0, sizeof dst);
    OK(MPI_Unpack_c(buf, 40, &pos, dst, 10, MPI_INT, MPI_COMM_WORLD));
    CHECK(memcmp(src, dst, sizeof src) == 0);
    pos = 0;
    FAILS(MPI_Pack_c(src, 10, MPI_INT, buf, 39, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    FAILS(MPI_Pack_c(src, -1, MPI_INT, buf, 39, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    MPI_Count ext_size, epos = 0;
    OK(MPI_Pack_external_size_c("external32", 10, MPI_INT, &ext_size));
    CHECK_EQ_INT(ext_size, 40);
    OK(MPI_Pack_external_c("external32", src, 10, MPI_INT, buf, sizeof buf, &epos));
    CHECK_EQ_INT(epos, 40);
    CHECK_EQ_INT((unsigned char)buf[7], 0xfe); /* big-endian -2 ... src[1] = -2 */
    epos = 0;
    memset(dst, 0, sizeof dst);
    OK(MPI_Unpack_external_c("external32", buf, 40, &epos, dst, 10, MPI_INT));
    CHECK(memcmp(src, dst, sizeof src) == 0);
    FAILS(MPI_Pack_external_size_c("native", 10, MPI_INT, &ext_size), MPI_ERR_UNSUPPORTED_DATAREP);
}

/* ---- reductions ------------------------------------------------------------- */
static MPI_Count last_len;
static void max_plus_one(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    last_len = *len;
    for (MPI_Count i = 0; i < *len; i++) {
        long long a = ((long long *)in)[i], *b = &((long long *)inout)[i];
        *b = (a > *b ? a : *b) + 1;
    }
}

static void reductions(void)
{
    long long in[6], io[6];
    for (int i = 0; i < 6; i++)
        in[i] = i, io[i] = 10 * i;
    OK(MPI_Reduce_local_c(in, io, 6, MPI_LONG_LONG, MPI_SUM));
    CHECK_EQ_INT(io[5], 55);
    MPI_Op op;
    OK(MPI_Op_create_c(max_plus_one, 1, &op));
    OK(MPI_Reduce_local_c(in, io, 6, MPI_LONG_LONG, op));
    CHECK_EQ_INT(last_len, 6);
    CHECK_EQ_INT(io[5], 56);
    /* allreduce with the user op: max over ranks + (size - 1) */
    for (int i = 0; i < 6; i++)
        in[i] = T_rank + i;
    OK(MPI_Allreduce_c(in, io, 6, MPI_LONG_LONG, op, MPI_COMM_WORLD));
    for (int i = 0; i < 6; i++)
        CHECK(io[i] >= T_size - 1 + i && io[i] <= 2 * (T_size - 1) + i);
    MPI_Op_free(&op);
    FAILS(MPI_Reduce_local_c(in, io, -1, MPI_LONG_LONG, MPI_SUM), MPI_ERR_COUNT);
    FAILS(MPI_Op_create_c(NULL, 1, &op), MPI_ERR_ARG);
}

/* ---- collectives: each in its blocking, nonblocking and persistent form ---- */
static int mode; /* 0 blocking, 1 nonblocking, 2 persistent */
static MPI_Request req;
static void finish(void)
{
    if (mode == 0)
        return;
    if (mode == 2)
        OK(MPI_Start(&req));
    OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    if (mode == 2)
        OK(MPI_Request_free(&req));
}
#define COLL(blocking, nonblocking, persistent)                                                   \
    do {                                                                                           \
        if (mode == 0)                                                                             \
            OK(blocking);                                                                          \
        else if (mode == 1)                                                                        \
            OK(nonblocking);                                                                       \
        else                                                                                       \
            OK(persistent);                                                                        \
        finish();                                                                                  \
    } while (0)
#define W MPI_COMM_WORLD
#define I MPI_INFO_NULL

static void collectives(void)
{
    int P = T_size, r = T_rank, root = P - 1;
    long long *s = malloc(sizeof *s * 4 * (size_t)P), *d = malloc(sizeof *d * 4 * (size_t)P);
    MPI_Count *cnt = malloc(sizeof *cnt * (size_t)P), *cnt2 = malloc(sizeof *cnt2 * (size_t)P);
    MPI_Aint *dsp = malloc(sizeof *dsp * (size_t)P), *dsp2 = malloc(sizeof *dsp2 * (size_t)P);
    MPI_Datatype *ty = malloc(sizeof *ty * (size_t)P);
    CHECK(s && d && cnt && cnt2 && dsp && dsp2 && ty);
    for (mode = 0; mode < 3; mode++) {
        /* bcast */
        for (int i = 0; i < 4; i++)
            s[i] = r == root ? v(root, i) : -1;
        COLL(MPI_Bcast_c(s, 4, MPI_LONG_LONG, root, W),
             MPI_Ibcast_c(s, 4, MPI_LONG_LONG, root, W, &req),
             MPI_Bcast_init_c(s, 4, MPI_LONG_LONG, root, W, I, &req));
        CHECK_EQ_INT(s[3], v(root, 3));
        /* reduce, allreduce, scan, exscan: sums of v(rank, i) */
        long long all = 0, upto = 0;
        for (int k = 0; k < P; k++)
            all += v(k, 2);
        for (int k = 0; k <= r; k++)
            upto += v(k, 2);
        for (int i = 0; i < 4; i++)
            s[i] = v(r, i), d[i] = -7;
        COLL(MPI_Reduce_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, root, W),
             MPI_Ireduce_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, root, W, &req),
             MPI_Reduce_init_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, root, W, I, &req));
        if (r == root)
            CHECK_EQ_INT(d[2], all);
        COLL(MPI_Allreduce_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W),
             MPI_Iallreduce_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W, &req),
             MPI_Allreduce_init_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W, I, &req));
        CHECK_EQ_INT(d[2], all);
        COLL(MPI_Scan_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W),
             MPI_Iscan_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W, &req),
             MPI_Scan_init_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W, I, &req));
        CHECK_EQ_INT(d[2], upto);
        COLL(MPI_Exscan_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W),
             MPI_Iexscan_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W, &req),
             MPI_Exscan_init_c(s, d, 4, MPI_LONG_LONG, MPI_SUM, W, I, &req));
        if (r > 0)
            CHECK_EQ_INT(d[2], upto - v(r, 2));
        /* gather, scatter, allgather, alltoall: 2 elements per block */
        for (int k = 0; k < 2 * P; k++)
            s[k] = v(r, k);
        COLL(MPI_Gather_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, root, W),
             MPI_Igather_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, root, W, &req),
             MPI_Gather_init_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, root, W, I, &req));
        if (r == root)
            for (int k = 0; k < P; k++)
                CHECK_EQ_INT(d[2 * k + 1], v(k, 1));
        COLL(MPI_Scatter_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, root, W),
             MPI_Iscatter_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, root, W, &req),
             MPI_Scatter_init_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, root, W, I, &req));
        CHECK_EQ_INT(d[1], v(root, 2 * r + 1));
        COLL(MPI_Allgather_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, W),
             MPI_Iallgather_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, W, &req),
             MPI_Allgather_init_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, W, I, &req));
        for (int k = 0; k < P; k++)
            CHECK_EQ_INT(d[2 * k], v(k, 0));
        COLL(MPI_Alltoall_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, W),
             MPI_Ialltoall_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, W, &req),
             MPI_Alltoall_init_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, W, I, &req));
        for (int k = 0; k < P; k++)
            CHECK_EQ_INT(d[2 * k + 1], v(k, 2 * r + 1));
        /* v forms: rank k's block has 1 + k % 3 elements, placed in reverse order */
        MPI_Aint at = 0;
        for (int k = P - 1; k >= 0; k--) {
            cnt[k] = 1 + k % 3;
            dsp[k] = at;
            at += cnt[k] + 1; /* a gap */
        }
        MPI_Count mine = cnt[r];
        for (int k = 0; k < 4 * P; k++)
            d[k] = -9;
        COLL(MPI_Gatherv_c(s, mine, MPI_LONG_LONG, d, cnt, dsp, MPI_LONG_LONG, root, W),
             MPI_Igatherv_c(s, mine, MPI_LONG_LONG, d, cnt, dsp, MPI_LONG_LONG, root, W, &req),
             MPI_Gatherv_init_c(s, mine, MPI_LONG_LONG, d, cnt, dsp, MPI_LONG_LONG, root, W, I,
                                &req));
        if (r == root)
            for (int k = 0; k < P; k++)
                CHECK_EQ_INT(d[dsp[k] + cnt[k] - 1], v(k, cnt[k] - 1));
        for (int k = 0; k < 4 * P; k++)
            s[k] = v(r, k);
        COLL(MPI_Scatterv_c(s, cnt, dsp, MPI_LONG_LONG, d, mine, MPI_LONG_LONG, root, W),
             MPI_Iscatterv_c(s, cnt, dsp, MPI_LONG_LONG, d, mine, MPI_LONG_LONG, root, W, &req),
             MPI_Scatterv_init_c(s, cnt, dsp, MPI_LONG_LONG, d, mine, MPI_LONG_LONG, root, W, I,
                                 &req));
        CHECK_EQ_INT(d[mine - 1], v(root, dsp[r] + mine - 1));
        COLL(MPI_Allgatherv_c(s, mine, MPI_LONG_LONG, d, cnt, dsp, MPI_LONG_LONG, W),
             MPI_Iallgatherv_c(s, mine, MPI_LONG_LONG, d, cnt, dsp, MPI_LONG_LONG, W, &req),
             MPI_Allgatherv_init_c(s, mine, MPI_LONG_LONG, d, cnt, dsp, MPI_LONG_LONG, W, I,
                                   &req));
        for (int k = 0; k < P; k++)
            CHECK_EQ_INT(d[dsp[k]], v(k, 0));
        /* alltoallv: to rank k, (1 + (r + k) % 2) elements from offset 2k */
        for (int k = 0; k < P; k++) {
            cnt[k] = 1 + (r + k) % 2;
            dsp[k] = 2 * k;
            cnt2[k] = 1 + (r + k) % 2; /* what k sends me: the same rule */
            dsp2[k] = 2 * k;
            ty[k] = MPI_LONG_LONG;
        }
        COLL(MPI_Alltoallv_c(s, cnt, dsp, MPI_LONG_LONG, d, cnt2, dsp2, MPI_LONG_LONG, W),
             MPI_Ialltoallv_c(s, cnt, dsp, MPI_LONG_LONG, d, cnt2, dsp2, MPI_LONG_LONG, W, &req),
             MPI_Alltoallv_init_c(s, cnt, dsp, MPI_LONG_LONG, d, cnt2, dsp2, MPI_LONG_LONG, W,
                                  I, &req));
        for (int k = 0; k < P; k++)
            CHECK_EQ_INT(d[2 * k + cnt2[k] - 1], v(k, 2 * r + cnt2[k] - 1));
        for (int k = 0; k < P; k++)
            dsp[k] *= 8, dsp2[k] *= 8; /* w: bytes */
        for (int k = 0; k < 4 * P; k++)
            d[k] = -9;
        COLL(MPI_Alltoallw_c(s, cnt, dsp, ty, d, cnt2, dsp2, ty, W),
             MPI_Ialltoallw_c(s, cnt, dsp, ty, d, cnt2, dsp2, ty, W, &req),
             MPI_Alltoallw_init_c(s, cnt, dsp, ty, d, cnt2, dsp2, ty, W, I, &req));
        for (int k = 0; k < P; k++)
            CHECK_EQ_INT(d[2 * k], v(k, 2 * r));
        /* reduce_scatter(_block): block k has 1 + k % 2 elements */
        MPI_Count total = 0;
        for (int k = 0; k < P; k++)
            cnt[k] = 1 + k % 2, total += cnt[k];
        for (MPI_Count k = 0; k < total; k++)
            s[k] = v(r, k);
        COLL(MPI_Reduce_scatter_c(s, d, cnt, MPI_LONG_LONG, MPI_SUM, W),
             MPI_Ireduce_scatter_c(s, d, cnt, MPI_LONG_LONG, MPI_SUM, W, &req),
             MPI_Reduce_scatter_init_c(s, d, cnt, MPI_LONG_LONG, MPI_SUM, W, I, &req));
        MPI_Count first = 0;
        for (int k = 0; k < r; k++)
            first += cnt[k];
        long long want = 0;
        for (int k = 0; k < P; k++)
            want += v(k, first);
        CHECK_EQ_INT(d[0], want);
        COLL(MPI_Reduce_scatter_block_c(s, d, 2, MPI_LONG_LONG, MPI_SUM, W),
             MPI_Ireduce_scatter_block_c(s, d, 2, MPI_LONG_LONG, MPI_SUM, W, &req),
             MPI_Reduce_scatter_block_init_c(s, d, 2, MPI_LONG_LONG, MPI_SUM, W, I, &req));
        want = 0;
        for (int k = 0; k < P; k++)
            want += v(k, 2 * r + 1);
        CHECK_EQ_INT(d[1], want);
    }
    /* errors */
    FAILS(MPI_Bcast_c(s, -1, MPI_LONG_LONG, 0, W), MPI_ERR_COUNT);
    FAILS(MPI_Ireduce_c(s, d, -3, MPI_LONG_LONG, MPI_SUM, 0, W, &req), MPI_ERR_COUNT);
    for (int k = 0; k < P; k++)
        cnt[k] = k == P - 1 ? -1 : 1, dsp[k] = k;
    FAILS(MPI_Allgatherv_c(s, 1, MPI_LONG_LONG, d, cnt, dsp, MPI_LONG_LONG, W), MPI_ERR_COUNT);
    FAILS(MPI_Reduce_scatter_c(s, d, cnt, MPI_LONG_LONG, MPI_SUM, W), MPI_ERR_COUNT);
    FAILS(MPI_Gather_init_c(s, -2, MPI_LONG_LONG, d, 1, MPI_LONG_LONG, 0, W, I, &req),
          MPI_ERR_COUNT);
    free(s), free(d), free(cnt), free(cnt2), free(dsp), free(dsp2), free(ty);
}

/* ---- neighbourhood collectives on a periodic ring --------------------------- */
static void neighbours(void)
{
    MPI_Comm ring;
    int dims[1] = {T_size}, periods[1] = {1};
    OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
    MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN);
    int r;
    MPI_Comm_rank(ring, &r);
    int lo = (r - 1 + T_size) % T_size, hi = (r + 1) % T_size; /* neighbour order: -1, +1 */
    long long s[4], d[4];
    MPI_Count c2[2] = {2, 2}, c1[2] = {1, 1};
    MPI_Aint ds[2] = {0, 2}, dw[2] = {0, 16};
    MPI_Datatype t2[2] = {MPI_LONG_LONG, MPI_LONG_LONG};
    for (int i = 0; i < 4; i++)
        s[i] = v(r, i);
    for (mode = 0; mode < 3; mode++) {
        COLL(MPI_Neighbor_allgather_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, ring),
             MPI_Ineighbor_allgather_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, ring, &req),
             MPI_Neighbor_allgather_init_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, ring, I,
                                           &req));
        CHECK_EQ_INT(d[1], v(lo, 1));
        CHECK_EQ_INT(d[3], v(hi, 1));
        COLL(MPI_Neighbor_allgatherv_c(s, 2, MPI_LONG_LONG, d, c2, ds, MPI_LONG_LONG, ring),
             MPI_Ineighbor_allgatherv_c(s, 2, MPI_LONG_LONG, d, c2, ds, MPI_LONG_LONG, ring,
                                        &req),
             MPI_Neighbor_allgatherv_init_c(s, 2, MPI_LONG_LONG, d, c2, ds, MPI_LONG_LONG, ring,
                                            I, &req));
        CHECK_EQ_INT(d[2], v(hi, 0));
        /* alltoall: block 0 goes to the lower neighbour, block 1 to the upper */
        COLL(MPI_Neighbor_alltoall_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, ring),
             MPI_Ineighbor_alltoall_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, ring, &req),
             MPI_Neighbor_alltoall_init_c(s, 2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, ring, I,
                                          &req));
        CHECK_EQ_INT(d[0], v(lo, 2)); /* lo sent me its upper block */
        CHECK_EQ_INT(d[3], v(hi, 1));
        COLL(MPI_Neighbor_alltoallv_c(s, c1, ds, MPI_LONG_LONG, d, c1, ds, MPI_LONG_LONG, ring),
             MPI_Ineighbor_alltoallv_c(s, c1, ds, MPI_LONG_LONG, d, c1, ds, MPI_LONG_LONG, ring,
                                       &req),
             MPI_Neighbor_alltoallv_init_c(s, c1, ds, MPI_LONG_LONG, d, c1, ds, MPI_LONG_LONG,
                                           ring, I, &req));
        CHECK_EQ_INT(d[0], v(lo, 2));
        CHECK_EQ_INT(d[2], v(hi, 0));
        COLL(MPI_Neighbor_alltoallw_c(s, c2, dw, t2, d, c2, dw, t2, ring),
             MPI_Ineighbor_alltoallw_c(s, c2, dw, t2, d, c2, dw, t2, ring, &req),
             MPI_Neighbor_alltoallw_init_c(s, c2, dw, t2, d, c2, dw, t2, ring, I, &req));
        CHECK_EQ_INT(d[1], v(lo, 3));
        CHECK_EQ_INT(d[3], v(hi, 1));
    }
    c2[1] = -1;
    FAILS(MPI_Neighbor_allgatherv_c(s, 2, MPI_LONG_LONG, d, c2, ds, MPI_LONG_LONG, ring),
          MPI_ERR_COUNT);
    FAILS(MPI_Neighbor_alltoall_c(s, -2, MPI_LONG_LONG, d, 2, MPI_LONG_LONG, ring),
          MPI_ERR_COUNT);
    MPI_Comm_free(&ring);
}

/* ---- one-sided ----------------------------------------------------------------- */
static void one_sided(void)
{
    MPI_Win win;
    long long *base, local[4], res[4];
    OK(MPI_Win_allocate_c(4 * sizeof(long long), sizeof(long long), MPI_INFO_NULL, W, &base,
                          &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < 4; i++)
        base[i] = 0, local[i] = v(T_rank, i);
    MPI_Win_fence(0, win);
    OK(MPI_Put_c(local, 2, MPI_LONG_LONG, next, 0, 2, MPI_LONG_LONG, win));
    OK(MPI_Accumulate_c(local, 2, MPI_LONG_LONG, next, 2, 2, MPI_LONG_LONG, MPI_SUM, win));
    MPI_Win_fence(0, win);
    CHECK_EQ_INT(base[1], v(prev, 1));
    CHECK_EQ_INT(base[3], v(prev, 1));
    OK(MPI_Get_c(res, 2, MPI_LONG_LONG, next, 0, 2, MPI_LONG_LONG, win));
    MPI_Win_fence(0, win);
    CHECK_EQ_INT(res[1], v(T_rank, 1)); /* next's base holds what I put */
    OK(MPI_Get_accumulate_c(local, 1, MPI_LONG_LONG, res, 1, MPI_LONG_LONG, next, 3, 1,
                            MPI_LONG_LONG, MPI_SUM, win));
    MPI_Win_fence(0, win);
    CHECK_EQ_INT(res[0], v(T_rank, 1));
    CHECK_EQ_INT(base[3], v(prev, 1) + v(prev, 0));
    MPI_Win_lock_all(0, win);
    MPI_Request rq[4];
    OK(MPI_Rput_c(local, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win, &rq[0]));
    OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MPI_Win_flush(next, win);
    OK(MPI_Rget_c(res, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win, &rq[1]));
    OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    CHECK_EQ_INT(res[0], v(T_rank, 0));
    OK(MPI_Raccumulate_c(local, 1, MPI_LONG_LONG, next, 1, 1, MPI_LONG_LONG, MPI_REPLACE, win,
                         &rq[2]));
    OK(MPI_Wait(&rq[2], MPI_STATUS_IGNORE));
    MPI_Win_flush(next, win);
    OK(MPI_Rget_accumulate_c(NULL, 0, MPI_LONG_LONG, res, 1, MPI_LONG_LONG, next, 1, 1,
                             MPI_LONG_LONG, MPI_NO_OP, win, &rq[3]));
    OK(MPI_Wait(&rq[3], MPI_STATUS_IGNORE));
    CHECK_EQ_INT(res[0], v(T_rank, 0));
    FAILS(MPI_Put_c(local, -1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win), MPI_ERR_COUNT);
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);

    OK(MPI_Win_create_c(local, sizeof local, 1, MPI_INFO_NULL, W, &win));
    MPI_Win_free(&win);
    FAILS(MPI_Win_create_c(local, sizeof local, 0, MPI_INFO_NULL, W, &win), MPI_ERR_DISP);
    FAILS(MPI_Win_allocate_c(8, (MPI_Aint)INT_MAX + 1, MPI_INFO_NULL, W, &base, &win),
          MPI_ERR_DISP);

    MPI_Comm node;
    MPI_Comm_split_type(W, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    OK(MPI_Win_allocate_shared_c(16, 8, MPI_INFO_NULL, node, &base, &win));
    MPI_Aint size, unit;
    long long *p0;
    OK(MPI_Win_shared_query_c(win, 0, &size, &unit, &p0));
    CHECK_EQ_INT(size, 16);
    CHECK_EQ_INT(unit, 8);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
}

/* ---- a type whose extent passes 2^31 with little data --------------------- *
 * Two bytes 2^31+8 apart (vector_c, hindexed_c, struct_c): the buffer is a
 * sparse 2 GiB allocation, only the touched pages take memory, so every
 * 64-bit offset of the datatype engine is exercised at any rank count. */
static void sparse(void)
{
    size_t span = (size_t)BIG + 1;
    unsigned char *out = malloc(span), *in = malloc(span);
    CHECK(out && in);
    MPI_Datatype vec, hix, st;
    OK(MPI_Type_vector_c(2, 1, BIG, MPI_BYTE, &vec));
    MPI_Count bl[2] = {1, 1}, disp[2] = {0, BIG};
    OK(MPI_Type_create_hindexed_c(2, bl, disp, MPI_BYTE, &hix));
    MPI_Datatype bytes[2] = {MPI_BYTE, MPI_BYTE};
    OK(MPI_Type_create_struct_c(2, bl, disp, bytes, &st));
    MPI_Datatype all[3] = {vec, hix, st};
    for (int k = 0; k < 3; k++) {
        MPI_Datatype t = all[k];
        OK(MPI_Type_commit(&t));
        MPI_Count lb, ext, size;
        OK(MPI_Type_get_extent_c(t, &lb, &ext));
        CHECK_EQ_INT(ext, BIG + 1);
        OK(MPI_Type_size_c(t, &size));
        CHECK_EQ_INT(size, 2);
        MPI_Aint alb, aext;
        OK(MPI_Type_get_extent(t, &alb, &aext)); /* MPI_Aint holds it too */
        CHECK_EQ_INT(aext, BIG + 1);
        out[0] = (unsigned char)(17 + k + T_rank), out[BIG] = (unsigned char)(99 - k - T_rank);
        in[0] = in[BIG] = 0;
        MPI_Status s;
        OK(MPI_Sendrecv_c(out, 1, t, next, 40 + k, in, 1, t, prev, 40 + k, MPI_COMM_WORLD, &s));
        CHECK_EQ_INT(in[0], 17 + k + prev);
        CHECK_EQ_INT(in[BIG], 99 - k - prev);
        MPI_Count n;
        OK(MPI_Get_elements_c(&s, t, &n));
        CHECK_EQ_INT(n, 2);
        /* broadcast from the last rank, and the packed form */
        in[0] = in[BIG] = 0;
        if (T_rank == T_size - 1)
            in[0] = 5, in[BIG] = 6;
        OK(MPI_Bcast_c(in, 1, t, T_size - 1, MPI_COMM_WORLD));
        CHECK_EQ_INT(in[0], 5);
        CHECK_EQ_INT(in[BIG], 6);
        unsigned char packed[2];
        MPI_Count pos = 0;
        OK(MPI_Pack_c(out, 1, t, packed, 2, &pos, MPI_COMM_WORLD));
        CHECK_EQ_INT(pos, 2);
        CHECK_EQ_INT(packed[1], 99 - k - T_rank);
        MPI_Type_free(&t);
    }
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    next = (T_rank + 1) % T_size;
    prev = (T_rank - 1 + T_size) % T_size;
    p2p();
    status_counts();
    types();
    pack();
    reductions();
    collectives();
    neighbours();
    one_sided();
    sparse();
    test_done("mpi4_large_count");
    return 0;
}
