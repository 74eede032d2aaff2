/* dtype_layout — every datatype constructor against hand-computed layouts:
 * size, lb, extent, true lb/extent, the packed bytes (type-map order) and
 * unpacking with the gaps untouched; envelope/contents, names, the pair
 * types, Get_elements on partial data, external32 bytes, MPI_BOTTOM with
 * absolute addresses, and bad arguments -> error classes.  Purely local, so
 * every rank runs it. */
#include <stddef.h>

#include "mpitest.h"

static void layout(MPI_Datatype t, MPI_Count size, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb,
                   MPI_Aint textent)
{
    MPI_Count s;
    MPI_Aint l, e;
    CHECK_EQ_INT(MPI_Type_size_x(t, &s), MPI_SUCCESS);
    CHECK_EQ_INT(s, size);
    CHECK_EQ_INT(MPI_Type_get_extent(t, &l, &e), MPI_SUCCESS);
    CHECK_EQ_INT(l, lb);
    CHECK_EQ_INT(e, extent);
    CHECK_EQ_INT(MPI_Type_get_true_extent(t, &l, &e), MPI_SUCCESS);
    CHECK_EQ_INT(l, tlb);
    CHECK_EQ_INT(e, textent);
    MPI_Count lx, ex;
    CHECK_EQ_INT(MPI_Type_get_extent_x(t, &lx, &ex), MPI_SUCCESS);
    CHECK_EQ_INT(lx, lb);
    CHECK_EQ_INT(ex, extent);
}

/* Pack count elements of t from base (ints i+100) and compare with the int
 * indices expected; unpack into a -1 filled array and check only those
 * indices changed. */
#define N 256
static void ints(MPI_Datatype t, int count, int origin, const int *idx, int n)
{
    int src[N], dst[N], packed[N];
    for (int i = 0; i < N; i++)
        src[i] = i + 100, dst[i] = -1;
    int pos = 0, psize;
    CHECK_EQ_INT(MPI_Pack_size(count, t, MPI_COMM_WORLD, &psize), MPI_SUCCESS);
    CHECK_EQ_INT(psize, n * (int)sizeof(int));
    CHECK_EQ_INT(MPI_Pack(src + origin, count, t, packed, sizeof packed, &pos, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    CHECK_EQ_INT(pos, n * (int)sizeof(int));
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(packed[i], idx[i] + 100);
    pos = 0;
    CHECK_EQ_INT(MPI_Unpack(packed, psize, &pos, dst + origin, count, t, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    for (int i = 0; i < N; i++) {
        int want = -1;
        for (int k = 0; k < n; k++)
            if (idx[k] == i)
                want = i + 100;
        CHECK_EQ_INT(dst[i], want);
    }
}

static void envelope(MPI_Datatype t, int ni, int na, int nd, int comb)
{
    int a, b, c, d;
    CHECK_EQ_INT(MPI_Type_get_envelope(t, &a, &b, &c, &d), MPI_SUCCESS);
    CHECK_EQ_INT(a, ni);
    CHECK_EQ_INT(b, na);
    CHECK_EQ_INT(c, nd);
    CHECK_EQ_INT(d, comb);
}

static void commit(MPI_Datatype *t) { CHECK_EQ_INT(MPI_Type_commit(t), MPI_SUCCESS); }

static void basic_constructors(void)
{
    MPI_Datatype t;
    /* contiguous(3, int) */
    MPI_Type_contiguous(3, MPI_INT, &t);
    commit(&t);
    layout(t, 12, 0, 12, 0, 12);
    envelope(t, 1, 0, 1, MPI_COMBINER_CONTIGUOUS);
    ints(t, 2, 0, (int[]){0, 1, 2, 3, 4, 5}, 6);
    MPI_Type_free(&t);
    CHECK(t == MPI_DATATYPE_NULL);

    /* vector(3, 2, 4, int): a0 a1 . . a4 a5 . . a8 a9 */
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    commit(&t);
    layout(t, 24, 0, 40, 0, 40);
    envelope(t, 3, 0, 1, MPI_COMBINER_VECTOR);
    ints(t, 1, 0, (int[]){0, 1, 4, 5, 8, 9}, 6);
    /* two elements: the second starts one extent (10 ints) later */
    ints(t, 2, 0, (int[]){0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19}, 12);
    MPI_Type_free(&t);

    /* negative stride: vector(2, 1, -3, int) covers ints -3 .. 0 */
    MPI_Type_vector(2, 1, -3, MPI_INT, &t);
    commit(&t);
    layout(t, 8, -12, 16, -12, 16);
    ints(t, 1, 10, (int[]){10, 7}, 2);
    MPI_Type_free(&t);

    /* hvector(2, 1, 20 bytes, double) */
    MPI_Type_create_hvector(2, 1, 20, MPI_DOUBLE, &t);
    commit(&t);
    layout(t, 16, 0, 28, 0, 28);
    envelope(t, 2, 1, 1, MPI_COMBINER_HVECTOR);
    MPI_Type_free(&t);

    /* indexed(3, {1,2,1}, {5,0,9}, int): type-map order a5 a0 a1 a9 */
    MPI_Type_indexed(3, (int[]){1, 2, 1}, (int[]){5, 0, 9}, MPI_INT, &t);
    commit(&t);
    layout(t, 16, 0, 40, 0, 40);
    envelope(t, 7, 0, 1, MPI_COMBINER_INDEXED);
    ints(t, 1, 0, (int[]){5, 0, 1, 9}, 4);
    MPI_Type_free(&t);

    /* hindexed(2, {2,1}, {8,0} bytes, int) */
    MPI_Type_create_hindexed(2, (int[]){2, 1}, (MPI_Aint[]){8, 0}, MPI_INT, &t);
    commit(&t);
    layout(t, 12, 0, 16, 0, 16);
    envelope(t, 3, 2, 1, MPI_COMBINER_HINDEXED);
    ints(t, 1, 0, (int[]){2, 3, 0}, 3);
    MPI_Type_free(&t);

    /* indexed_block(3, 2, {6,0,3}, int) */
    MPI_Type_create_indexed_block(3, 2, (int[]){6, 0, 3}, MPI_INT, &t);
    commit(&t);
    layout(t, 24, 0, 32, 0, 32);
    envelope(t, 5, 0, 1, MPI_COMBINER_INDEXED_BLOCK);
    ints(t, 1, 0, (int[]){6, 7, 0, 1, 3, 4}, 6);
    MPI_Type_free(&t);

    /* hindexed_block(2, 1, {16,4} bytes, int): lb 4, ub 20 */
    MPI_Type_create_hindexed_block(2, 1, (MPI_Aint[]){16, 4}, MPI_INT, &t);
    commit(&t);
    layout(t, 8, 4, 16, 4, 16);
    envelope(t, 2, 2, 1, MPI_COMBINER_HINDEXED_BLOCK);
    ints(t, 1, 0, (int[]){4, 1}, 2);
    MPI_Type_free(&t);

    /* resized(int, -4, 12): lb -4, extent 12, true bounds of the int */
    MPI_Type_create_resized(MPI_INT, -4, 12, &t);
    commit(&t);
    layout(t, 4, -4, 12, 0, 4);
    envelope(t, 0, 2, 1, MPI_COMBINER_RESIZED);
    ints(t, 3, 0, (int[]){0, 3, 6}, 3); /* elements every 12 bytes */
    MPI_Type_free(&t);

    /* contiguous of 0: empty */
    MPI_Type_contiguous(0, MPI_INT, &t);
    commit(&t);
    layout(t, 0, 0, 0, 0, 0);
    MPI_Type_free(&t);
}

struct rec {
    char c;
    double d;
    int i[2];
};

static void struct_types(void)
{
    MPI_Datatype t, d2;
    MPI_Aint disp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Type_create_struct(3, (int[]){1, 1, 2}, disp,
                           (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE, MPI_INT}, &t);
    commit(&t);
    layout(t, 17, 0, sizeof(struct rec), 0, 24);
    envelope(t, 4, 3, 3, MPI_COMBINER_STRUCT);
    /* an array of them round-trips through pack/unpack, padding untouched */
    struct rec a[3], b[3];
    memset(a, 0x55, sizeof a);
    memset(b, 0x77, sizeof b);
    for (int k = 0; k < 3; k++)
        a[k].c = (char)('a' + k), a[k].d = k + 0.5, a[k].i[0] = k, a[k].i[1] = -k;
    char buf[128];
    int pos = 0;
    CHECK_EQ_INT(MPI_Pack(a, 3, t, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_EQ_INT(pos, 51);
    CHECK(buf[0] == 'a' && buf[17] == 'b');
    pos = 0;
    CHECK_EQ_INT(MPI_Unpack(buf, 51, &pos, b, 3, t, MPI_COMM_WORLD), MPI_SUCCESS);
    for (int k = 0; k < 3; k++) {
        CHECK(b[k].c == 'a' + k && b[k].d == k + 0.5 && b[k].i[0] == k && b[k].i[1] == -k);
        CHECK(((unsigned char *)&b[k])[1] == 0x77); /* padding byte after c */
    }
    /* struct {double; char}: true extent 9, extent padded to 16 */
    MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8},
                           (MPI_Datatype[]){MPI_DOUBLE, MPI_CHAR}, &d2);
    commit(&d2);
    layout(d2, 9, 0, 16, 0, 9);
    MPI_Type_free(&d2);

    /* get_contents gives the arguments back; derived types as new handles */
    int ints_[4];
    MPI_Aint addrs[3];
    MPI_Datatype types[3];
    CHECK_EQ_INT(MPI_Type_get_contents(t, 4, 3, 3, ints_, addrs, types), MPI_SUCCESS);
    CHECK(ints_[0] == 3 && ints_[1] == 1 && ints_[2] == 1 && ints_[3] == 2);
    CHECK(addrs[1] == 8 && addrs[2] == 16);
    CHECK(types[0] == MPI_CHAR && types[1] == MPI_DOUBLE && types[2] == MPI_INT);

    /* Get_elements on partial data: 9 bytes = the char and the double */
    MPI_Status st;
    CHECK_EQ_INT(MPI_Status_set_elements(&st, t, 2), MPI_SUCCESS);
    int n;
    CHECK_EQ_INT(MPI_Get_elements(&st, t, &n), MPI_SUCCESS);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(MPI_Get_count(&st, t, &n), MPI_SUCCESS);
    CHECK_EQ_INT(n, MPI_UNDEFINED);
    CHECK_EQ_INT(MPI_Status_set_elements(&st, t, 9), MPI_SUCCESS); /* 2 records + char */
    CHECK_EQ_INT(MPI_Get_elements(&st, t, &n), MPI_SUCCESS);
    CHECK_EQ_INT(n, 9);
    CHECK_EQ_INT(MPI_Status_set_elements(&st, t, 8), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get_count(&st, t, &n), MPI_SUCCESS);
    CHECK_EQ_INT(n, 2);

    /* a dup keeps everything, its contents name the original */
    MPI_Datatype dup, inner;
    MPI_Type_dup(t, &dup);
    layout(dup, 17, 0, 24, 0, 24);
    envelope(dup, 0, 0, 1, MPI_COMBINER_DUP);
    CHECK_EQ_INT(MPI_Type_get_contents(dup, 0, 0, 1, NULL, NULL, &inner), MPI_SUCCESS);
    envelope(inner, 4, 3, 3, MPI_COMBINER_STRUCT);
    MPI_Type_free(&t);
    layout(inner, 17, 0, 24, 0, 24); /* still valid after the original handle is freed */
    MPI_Type_free(&inner);
    MPI_Type_free(&dup);
}

static void arrays(void)
{
    MPI_Datatype t;
    /* 4x5 ints, 2x3 block at (1,2), C order: indices 7 8 9 12 13 14 */
    MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_C,
                             MPI_INT, &t);
    commit(&t);
    layout(t, 24, 0, 80, 28, 32);
    envelope(t, 8, 0, 1, MPI_COMBINER_SUBARRAY);
    ints(t, 1, 0, (int[]){7, 8, 9, 12, 13, 14}, 6);
    MPI_Type_free(&t);
    /* Fortran order: dim 0 fastest, index = i0 + 4 * i1 */
    MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_FORTRAN,
                             MPI_INT, &t);
    commit(&t);
    layout(t, 24, 0, 80, 36, 40);
    ints(t, 1, 0, (int[]){9, 10, 13, 14, 17, 18}, 6);
    MPI_Type_free(&t);
    /* 3-D C order subarray, 2x2x2 of 3x3x4 at (1,1,1) */
    MPI_Type_create_subarray(3, (int[]){3, 3, 4}, (int[]){2, 2, 2}, (int[]){1, 1, 1},
                             MPI_ORDER_C, MPI_INT, &t);
    commit(&t);
    ints(t, 1, 0, (int[]){17, 18, 21, 22, 29, 30, 33, 34}, 8);
    MPI_Type_free(&t);

    /* darray 4x6 block x block on a 2x2 grid, rank 3 = coords (1,1) */
    int g[2] = {4, 6}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
        darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, ps[2] = {2, 2};
    MPI_Type_create_darray(4, 3, 2, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
    commit(&t);
    layout(t, 24, 0, 96, 60, 36);
    envelope(t, 12, 0, 1, MPI_COMBINER_DARRAY);
    ints(t, 1, 0, (int[]){15, 16, 17, 21, 22, 23}, 6);
    MPI_Type_free(&t);
    /* cyclic(2) over 3 processes, 10 elements */
    int g1 = 10, c1 = MPI_DISTRIBUTE_CYCLIC, a1 = 2, p1 = 3;
    const int want[3][4] = {{0, 1, 6, 7}, {2, 3, 8, 9}, {4, 5}};
    const int nwant[3] = {4, 4, 2};
    for (int r = 0; r < 3; r++) {
        MPI_Type_create_darray(3, r, 1, &g1, &c1, &a1, &p1, MPI_ORDER_C, MPI_INT, &t);
        commit(&t);
        MPI_Aint lb, ext;
        MPI_Type_get_extent(t, &lb, &ext);
        CHECK_EQ_INT(ext, 40);
        ints(t, 1, 0, want[r], nwant[r]);
        MPI_Type_free(&t);
    }
}

static void pairs_and_names(void)
{
    struct {
        MPI_Datatype t;
        int size, extent;
        const char *name;
    } p[] = {
        {MPI_DOUBLE_INT, 12, 16, "MPI_DOUBLE_INT"}, {MPI_2INT, 8, 8, "MPI_2INT"},
        {MPI_SHORT_INT, 6, 8, "MPI_SHORT_INT"},    {MPI_FLOAT_INT, 8, 8, "MPI_FLOAT_INT"},
        {MPI_LONG_INT, 12, 16, "MPI_LONG_INT"},    {MPI_LONG_DOUBLE_INT, 20, 32, "MPI_LONG_DOUBLE_INT"},
    };
    for (unsigned k = 0; k < sizeof p / sizeof *p; k++) {
        int s;
        MPI_Aint lb, e;
        MPI_Type_size(p[k].t, &s);
        MPI_Type_get_extent(p[k].t, &lb, &e);
        CHECK_EQ_INT(s, p[k].size);
        CHECK_EQ_INT(e, p[k].extent);
        char nm[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Type_get_name(p[k].t, nm, &len);
        CHECK(strcmp(nm, p[k].name) == 0 && len == (int)strlen(p[k].name));
        envelope(p[k].t, 0, 0, 0, MPI_COMBINER_NAMED);
    }
    /* a pair packs its two fields, not the padding */
    struct {
        short v;
        int i;
    } si = {-7, 99};
    char buf[16];
    int pos = 0;
    MPI_Pack(&si, 1, MPI_SHORT_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    CHECK_EQ_INT(pos, 6);
    short v;
    int i;
    memcpy(&v, buf, 2);
    memcpy(&i, buf + 2, 4);
    CHECK(v == -7 && i == 99);
    MPI_Status st;
    MPI_Status_set_elements(&st, MPI_SHORT_INT, 3);
    int n;
    MPI_Get_elements(&st, MPI_SHORT_INT, &n);
    CHECK_EQ_INT(n, 3);

    MPI_Datatype t;
    MPI_Type_contiguous(2, MPI_DOUBLE, &t);
    char nm[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(t, nm, &len);
    CHECK_EQ_INT(len, 0);
    MPI_Type_set_name(t, "pair of doubles");
    MPI_Type_get_name(t, nm, &len);
    CHECK(strcmp(nm, "pair of doubles") == 0 && len == 15);
    MPI_Type_free(&t);
}

static void external32(void)
{
    int x[2] = {0x01020304, -2};
    unsigned char buf[64];
    MPI_Aint pos = 0, sz;
    CHECK_EQ_INT(MPI_Pack_external("external32", x, 2, MPI_INT, buf, sizeof buf, &pos),
                 MPI_SUCCESS);
    CHECK_EQ_INT(pos, 8);
    CHECK(buf[0] == 1 && buf[1] == 2 && buf[2] == 3 && buf[3] == 4);
    CHECK(buf[4] == 0xff && buf[7] == 0xfe);
    double d = 1.0;
    pos = 0;
    MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, buf, sizeof buf, &pos);
    CHECK(pos == 8 && buf[0] == 0x3f && buf[1] == 0xf0 && buf[7] == 0);
    /* long is 4 bytes in external32 */
    long l[2] = {-5, 70000};
    MPI_Pack_external_size("external32", 2, MPI_LONG, &sz);
    CHECK_EQ_INT(sz, 8);
    pos = 0;
    MPI_Pack_external("external32", l, 2, MPI_LONG, buf, sizeof buf, &pos);
    CHECK_EQ_INT(pos, 8);
    long back[2] = {0, 0};
    pos = 0;
    MPI_Unpack_external("external32", buf, 8, &pos, back, 2, MPI_LONG);
    CHECK(back[0] == -5 && back[1] == 70000);
    /* a struct round-trips; sizes are the external ones */
    MPI_Datatype t;
    MPI_Aint disp[3] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i)};
    MPI_Type_create_struct(3, (int[]){1, 1, 2}, disp,
                           (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE, MPI_INT}, &t);
    MPI_Type_commit(&t);
    MPI_Pack_external_size("external32", 2, t, &sz);
    CHECK_EQ_INT(sz, 34);
    struct rec a[2] = {{'x', 2.5, {1, 2}}, {'y', -1.25, {3, 4}}}, b[2];
    memset(b, 0, sizeof b);
    pos = 0;
    CHECK_EQ_INT(MPI_Pack_external("external32", a, 2, t, buf, sizeof buf, &pos), MPI_SUCCESS);
    CHECK_EQ_INT(pos, 34);
    CHECK(buf[0] == 'x' && buf[9 + 3] == 1); /* int 1 big-endian after char+double */
    pos = 0;
    CHECK_EQ_INT(MPI_Unpack_external("external32", buf, 34, &pos, b, 2, t), MPI_SUCCESS);
    CHECK(b[1].c == 'y' && b[1].d == -1.25 && b[1].i[1] == 4 && b[0].i[0] == 1);
    /* too small a buffer */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    pos = 0;
    CHECK_EQ_INT(MPI_Pack_external("external32", a, 2, t, buf, 20, &pos), MPI_ERR_TRUNCATE);
    CHECK_EQ_INT(MPI_Pack_external("native", a, 2, t, buf, 20, &pos),
                 MPI_ERR_UNSUPPORTED_DATAREP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Type_free(&t);
}

static void bottom_and_addresses(void)
{
    static int a = 11, b = 22;
    MPI_Aint aa, ab;
    MPI_Get_address(&a, &aa);
    MPI_Get_address(&b, &ab);
    CHECK(MPI_Aint_diff(ab, aa) == (MPI_Aint)((char *)&b - (char *)&a));
    CHECK(MPI_Aint_add(aa, MPI_Aint_diff(ab, aa)) == ab);
    MPI_Datatype t;
    MPI_Type_create_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){ab, aa}, MPI_INT, &t);
    MPI_Type_commit(&t);
    int packed[2], pos = 0;
    MPI_Pack(MPI_BOTTOM, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD);
    CHECK(packed[0] == 22 && packed[1] == 11);
    /* send to self from MPI_BOTTOM, receive into MPI_BOTTOM swapped */
    int got[2];
    MPI_Sendrecv(MPI_BOTTOM, 1, t, T_rank, 5, got, 2, MPI_INT, T_rank, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(got[0] == 22 && got[1] == 11);
    int in[2] = {33, 44};
    MPI_Sendrecv(in, 2, MPI_INT, T_rank, 6, MPI_BOTTOM, 1, t, T_rank, 6, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(b == 33 && a == 44);
    MPI_Type_free(&t);
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype t;
    CHECK_EQ_INT(MPI_Type_vector(-1, 1, 1, MPI_INT, &t), MPI_ERR_COUNT);
    CHECK_EQ_INT(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    t = MPI_INT;
    CHECK_EQ_INT(MPI_Type_free(&t), MPI_ERR_TYPE);
    CHECK_EQ_INT(MPI_Type_indexed(2, (int[]){1, -1}, (int[]){0, 1}, MPI_INT, &t), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 6}, (int[]){0, 0},
                                          MPI_ORDER_C, MPI_INT, &t),
                 MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Type_create_subarray(0, NULL, NULL, NULL, MPI_ORDER_C, MPI_INT, &t),
                 MPI_ERR_DIMS);
    CHECK_EQ_INT(MPI_Type_get_contents(MPI_INT, 0, 0, 0, NULL, NULL, NULL), MPI_ERR_TYPE);
    /* an uncommitted type cannot be communicated */
    MPI_Type_contiguous(2, MPI_INT, &t);
    int x[2] = {0, 0};
    CHECK_EQ_INT(MPI_Send(x, 1, t, T_rank, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Type_free(&t);
    /* Pack into too small a buffer */
    int pos = 0;
    char small[4];
    CHECK_EQ_INT(MPI_Pack(x, 2, MPI_INT, small, 4, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    basic_constructors();
    struct_types();
    arrays();
    pairs_and_names();
    external32();
    bottom_and_addresses();
    errors();
    test_done("dtype_layout");
    return 0;
}
