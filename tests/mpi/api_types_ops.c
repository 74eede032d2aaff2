/* api_types_ops.c — reductions on the C character types (MPI_CHAR and
 * MPI_WCHAR with every op of the C integers: Skiff's extension, as MPICH
 * accepts; MPI_SIGNED_CHAR and MPI_UNSIGNED_CHAR, integers in MPI-3.1), what
 * stays refused on them, one-sided accumulates on them, and the C++ types MPI_CXX_BOOL and
 * MPI_CXX_{FLOAT,DOUBLE,LONG_DOUBLE}_COMPLEX: sizes, extents, names,
 * point-to-point, reductions, external32. */
#include <complex.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include <wchar.h>

#include "mpitest.h"

#define N 5

/* Each rank contributes v(rank, i); the expected result is computed here in the
 * C type of the datatype, with its wrap-around.  Products take small values
 * (|v| <= 2) so no int product overflows. */
static int v_wide(int rank, int i) { return (rank * 7 + i * 13) % 50 - 20; }
static int v_small(int rank, int i) { return (rank * 5 + i * 3) % 5 - 2; }

#define CHECK_REDUCE(T, dt, op, v, combine)                                                   \
    do {                                                                                   \
        T in[N], out[N], want[N];                                                          \
        for (int i = 0; i < N; i++) {                                                      \
            in[i] = (T)v(T_rank, i);                                                       \
            want[i] = (T)v(0, i);                                                          \
            for (int r = 1; r < T_size; r++) {                                             \
                T a = want[i], b = (T)v(r, i);                                             \
                want[i] = (T)(combine);                                                    \
            }                                                                              \
        }                                                                                  \
        CHECK_EQ_INT(MPI_Allreduce(in, out, N, dt, op, MPI_COMM_WORLD), MPI_SUCCESS);      \
        for (int i = 0; i < N; i++)                                                        \
            CHECK_EQ_INT(out[i], want[i]);                                                 \
        /* and rooted at the last rank */                                                  \
        memset(out, 0, sizeof out);                                                        \
        CHECK_EQ_INT(MPI_Reduce(in, out, N, dt, op, T_size - 1, MPI_COMM_WORLD), MPI_SUCCESS); \
        if (T_rank == T_size - 1)                                                          \
            for (int i = 0; i < N; i++)                                                    \
                CHECK_EQ_INT(out[i], want[i]);                                             \
    } while (0)

#define ALL_ARITH(T, dt)                                                  \
    do {                                                                  \
        CHECK_REDUCE(T, dt, MPI_SUM, v_wide, a + b);                      \
        CHECK_REDUCE(T, dt, MPI_PROD, v_small, a * b);                    \
        CHECK_REDUCE(T, dt, MPI_MIN, v_wide, a < b ? a : b);              \
        CHECK_REDUCE(T, dt, MPI_MAX, v_wide, a > b ? a : b);              \
        CHECK_REDUCE(T, dt, MPI_BAND, v_wide, a & b);                     \
        CHECK_REDUCE(T, dt, MPI_BOR, v_wide, a | b);                      \
        CHECK_REDUCE(T, dt, MPI_BXOR, v_wide, a ^ b);                     \
        CHECK_REDUCE(T, dt, MPI_LAND, v_small, a && b);                   \
        CHECK_REDUCE(T, dt, MPI_LOR, v_small, a || b);                    \
        CHECK_REDUCE(T, dt, MPI_LXOR, v_small, !a != !b);                 \
    } while (0)

static void char_reductions(void)
{
    ALL_ARITH(char, MPI_CHAR);
    ALL_ARITH(signed char, MPI_SIGNED_CHAR);
    ALL_ARITH(unsigned char, MPI_UNSIGNED_CHAR);
    ALL_ARITH(wchar_t, MPI_WCHAR);
    /* the same through MPI_Reduce_local and a nonblocking collective */
    char a[3] = {1, -2, 100}, b[3] = {5, 7, 27};
    CHECK_EQ_INT(MPI_Reduce_local(a, b, 3, MPI_CHAR, MPI_SUM), MPI_SUCCESS);
    CHECK(b[0] == 6 && b[1] == 5 && b[2] == (char)127);
    char x = (char)(T_rank + 1), y = 0;
    MPI_Request req;
    CHECK_EQ_INT(MPI_Iallreduce(&x, &y, 1, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD, &req), MPI_SUCCESS);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(y, T_size);

    /* MINLOC/MAXLOC stay undefined on them (they take pair types only) */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    wchar_t w[1] = {1}, w2[1] = {2};
    CHECK_EQ_INT(MPI_Reduce_local(w, w2, 1, MPI_WCHAR, MPI_MINLOC), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Reduce_local(a, b, 1, MPI_CHAR, MPI_MAXLOC), MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* One-sided accumulates take the same ops on MPI_CHAR and MPI_WCHAR. */
typedef struct char_win {
    char c[2];
    wchar_t w[2];
} char_win_t;

static void char_accumulates(void)
{
    char_win_t *base;
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)sizeof *base, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    memset(base, 0, sizeof *base);
    base->c[1] = (char)0x7f;
    base->w[1] = (wchar_t)-1;
    MPI_Win_fence(0, win);
    char one = 1, bit = (char)(1 << (T_rank % 7));
    wchar_t w = (wchar_t)(T_rank + 1), wbit = (wchar_t)(1 << T_rank);
    MPI_Aint wdisp = (MPI_Aint)offsetof(char_win_t, w);
    CHECK_EQ_INT(MPI_Accumulate(&one, 1, MPI_CHAR, 0, 0, 1, MPI_CHAR, MPI_SUM, win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Accumulate(&bit, 1, MPI_CHAR, 0, 1, 1, MPI_CHAR, MPI_BAND, win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Accumulate(&w, 1, MPI_WCHAR, 0, wdisp, 1, MPI_WCHAR, MPI_SUM, win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Accumulate(&wbit, 1, MPI_WCHAR, 0, wdisp + (MPI_Aint)sizeof(wchar_t), 1,
                                MPI_WCHAR, MPI_BXOR, win),
                 MPI_SUCCESS);
    MPI_Win_fence(0, win);
    if (T_rank == 0) {
        char want_and = (char)0x7f;
        wchar_t want_xor = (wchar_t)-1;
        for (int r = 0; r < T_size; r++) {
            want_and = (char)(want_and & (1 << (r % 7)));
            want_xor ^= (wchar_t)(1 << r);
        }
        CHECK_EQ_INT(base->c[0], T_size);
        CHECK_EQ_INT(base->c[1], want_and);
        CHECK_EQ_INT(base->w[0], T_size * (T_size + 1) / 2);
        CHECK_EQ_INT(base->w[1], want_xor);
    }
    MPI_Win_free(&win);
}

static void type_facts(MPI_Datatype dt, size_t size, size_t align, const char *name)
{
    int s;
    MPI_Aint lb, extent;
    CHECK_EQ_INT(MPI_Type_size(dt, &s), MPI_SUCCESS);
    CHECK_EQ_INT(s, (int)size);
    CHECK_EQ_INT(MPI_Type_get_extent(dt, &lb, &extent), MPI_SUCCESS);
    CHECK_EQ_INT(lb, 0);
    CHECK_EQ_INT(extent, (MPI_Aint)size);
    char nm[MPI_MAX_OBJECT_NAME];
    int len;
    CHECK_EQ_INT(MPI_Type_get_name(dt, nm, &len), MPI_SUCCESS);
    CHECK(strcmp(nm, name) == 0);
    int ni, na, nd, combiner;
    CHECK_EQ_INT(MPI_Type_get_envelope(dt, &ni, &na, &nd, &combiner), MPI_SUCCESS);
    CHECK_EQ_INT(combiner, MPI_COMBINER_NAMED);
    (void)align;
}

static void cxx_types(void)
{
    type_facts(MPI_CXX_BOOL, sizeof(bool), _Alignof(bool), "MPI_CXX_BOOL");
    type_facts(MPI_CXX_FLOAT_COMPLEX, sizeof(float _Complex), _Alignof(float _Complex),
               "MPI_CXX_FLOAT_COMPLEX");
    type_facts(MPI_CXX_DOUBLE_COMPLEX, sizeof(double _Complex), _Alignof(double _Complex),
               "MPI_CXX_DOUBLE_COMPLEX");
    type_facts(MPI_CXX_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex),
               _Alignof(long double _Complex), "MPI_CXX_LONG_DOUBLE_COMPLEX");
    CHECK(MPI_CXX_BOOL != MPI_C_BOOL && MPI_CXX_DOUBLE_COMPLEX != MPI_C_DOUBLE_COMPLEX);

    /* reductions: SUM and PROD on the complex ones, the logical ops on bool */
    double _Complex z = (double)(T_rank + 1) + (double)T_rank * I, zs = 0, zp = 0;
    CHECK_EQ_INT(MPI_Allreduce(&z, &zs, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    double re = 0, im = 0;
    double _Complex prod = 1;
    for (int r = 0; r < T_size; r++) {
        re += r + 1;
        im += r;
        prod *= (double)(r + 1) + (double)r * I;
    }
    CHECK(creal(zs) == re && cimag(zs) == im);
    CHECK_EQ_INT(MPI_Allreduce(&z, &zp, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    CHECK(cabs(zp - prod) <= 1e-9 * cabs(prod));
    float _Complex f = 1.5f * (float)T_rank * I, fs = 0;
    MPI_Allreduce(&f, &fs, 1, MPI_CXX_FLOAT_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    CHECK(crealf(fs) == 0 && cimagf(fs) == 1.5f * (float)(T_size * (T_size - 1) / 2));
    long double _Complex l = 2.0L + 1.0L * I, ls = 0;
    MPI_Allreduce(&l, &ls, 1, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    CHECK(creall(ls) == 2.0L * T_size && cimagl(ls) == 1.0L * T_size);

    bool mine[3] = {T_rank == 0, true, T_rank % 2 == 1}, land[3], lor[3];
    MPI_Allreduce(mine, land, 3, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(mine, lor, 3, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD);
    CHECK_EQ_INT(land[0], T_size == 1);
    CHECK_EQ_INT(land[1], 1);
    CHECK_EQ_INT(land[2], 0);
    CHECK_EQ_INT(lor[0], 1);
    CHECK_EQ_INT(lor[2], T_size > 1);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Reduce_local(&z, &zs, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_MAX), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Reduce_local(mine, land, 1, MPI_CXX_BOOL, MPI_SUM), MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    /* point-to-point around the ring */
    int right = (T_rank + 1) % T_size, left = (T_rank + T_size - 1) % T_size;
    long double _Complex send[4], recv[4];
    for (int i = 0; i < 4; i++)
        send[i] = (long double)(T_rank * 10 + i) - (long double)i * I;
    MPI_Status st;
    CHECK_EQ_INT(MPI_Sendrecv(send, 4, MPI_CXX_LONG_DOUBLE_COMPLEX, right, 3, recv, 4,
                              MPI_CXX_LONG_DOUBLE_COMPLEX, left, 3, MPI_COMM_WORLD, &st),
                 MPI_SUCCESS);
    int count;
    MPI_Get_count(&st, MPI_CXX_LONG_DOUBLE_COMPLEX, &count);
    CHECK_EQ_INT(count, 4);
    for (int i = 0; i < 4; i++)
        CHECK(creall(recv[i]) == (long double)(left * 10 + i) && cimagl(recv[i]) == -i);

    /* external32: bool 1 byte, complex two big-endian IEEE parts */
    MPI_Aint sz;
    CHECK_EQ_INT(MPI_Pack_external_size("external32", 1, MPI_CXX_BOOL, &sz), MPI_SUCCESS);
    CHECK_EQ_INT(sz, 1);
    CHECK_EQ_INT(MPI_Pack_external_size("external32", 1, MPI_CXX_FLOAT_COMPLEX, &sz), MPI_SUCCESS);
    CHECK_EQ_INT(sz, 8);
    CHECK_EQ_INT(MPI_Pack_external_size("external32", 1, MPI_CXX_DOUBLE_COMPLEX, &sz), MPI_SUCCESS);
    CHECK_EQ_INT(sz, 16);
    CHECK_EQ_INT(MPI_Pack_external_size("external32", 1, MPI_CXX_LONG_DOUBLE_COMPLEX, &sz),
                 MPI_SUCCESS);
    CHECK_EQ_INT(sz, 32);
    double _Complex one = 1.0 + 2.0 * I, back = 0;
    unsigned char ext[16];
    MPI_Aint pos = 0;
    CHECK_EQ_INT(MPI_Pack_external("external32", &one, 1, MPI_CXX_DOUBLE_COMPLEX, ext, 16, &pos),
                 MPI_SUCCESS);
    CHECK_EQ_INT(pos, 16);
    CHECK(ext[0] == 0x3f && ext[1] == 0xf0 && ext[8] == 0x40 && ext[9] == 0x00);
    pos = 0;
    CHECK_EQ_INT(MPI_Unpack_external("external32", ext, 16, &pos, &back, 1,
                                     MPI_CXX_DOUBLE_COMPLEX),
                 MPI_SUCCESS);
    CHECK(back == one);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    char_reductions();
    char_accumulates();
    cxx_types();
    test_done("api_types_ops");
    return 0;
}
