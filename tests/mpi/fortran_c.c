/* fortran_c.c — the Fortran side of the C API, from C: handle conversion of
 * every kind, status conversion, the Fortran predefined datatypes (sizes,
 * communication, reductions), MPI_Type_match_size, MPI_Type_create_f90_*. */
#include <complex.h>
#include <stdio.h>

#include "mpitest.h"

static void test_handles(void)
{
    /* predefined handles keep their ABI value */
    CHECK_EQ_INT(MPI_Comm_c2f(MPI_COMM_WORLD), 0x101);
    CHECK(MPI_Comm_f2c(0x101) == MPI_COMM_WORLD);
    CHECK_EQ_INT(MPI_Type_c2f(MPI_DOUBLE_PRECISION), 0x21c);
    CHECK(MPI_Type_f2c(MPI_Type_c2f(MPI_INTEGER)) == MPI_INTEGER);
    CHECK(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)) == MPI_SUM);
    CHECK(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
    /* garbage converts to the kind's null handle */
    CHECK(MPI_Comm_f2c(-5) == MPI_COMM_NULL);
    CHECK(MPI_Comm_f2c(0x7fffff00) == MPI_COMM_NULL);

    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Fint fd = MPI_Comm_c2f(dup);
    CHECK(fd >= 0x400);
    CHECK_EQ_INT(MPI_Comm_c2f(dup), fd); /* stable */
    CHECK(MPI_Comm_f2c(fd) == dup);
    int n;
    MPI_Comm_size(MPI_Comm_f2c(fd), &n);
    CHECK_EQ_INT(n, T_size);

    MPI_Datatype t;
    MPI_Type_contiguous(3, MPI_INTEGER, &t);
    MPI_Fint ft = MPI_Type_c2f(t);
    CHECK(ft != fd && MPI_Type_f2c(ft) == t);
    MPI_Group g;
    MPI_Comm_group(dup, &g);
    CHECK(MPI_Group_f2c(MPI_Group_c2f(g)) == g);
    MPI_Info info;
    MPI_Info_create(&info);
    CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(dup, &eh);
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(eh)) == eh);
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, dup, &win);
    CHECK(MPI_Win_f2c(MPI_Win_c2f(win)) == win);
    MPI_Win_free(&win);
    MPI_Message msg;
    int peer = test_partner(), v = T_rank, got = -1;
    MPI_Request rq;
    MPI_Isend(&v, 1, MPI_INTEGER, peer, 5, dup, &rq);
    MPI_Fint frq = MPI_Request_c2f(rq);
    MPI_Mprobe(peer, 5, dup, &msg, MPI_STATUS_IGNORE);
    MPI_Fint fm = MPI_Message_c2f(msg);
    MPI_Message m2 = MPI_Message_f2c(fm);
    MPI_Mrecv(&got, 1, MPI_INTEGER, &m2, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(got, peer);
    MPI_Request r2 = MPI_Request_f2c(frq);
    MPI_Wait(&r2, MPI_STATUS_IGNORE);

    MPI_Info_free(&info);
    MPI_Errhandler_free(&eh);
    MPI_Group_free(&g);
    MPI_Type_free(&t);
    MPI_Comm_free(&dup);
}

static void test_status(void)
{
    MPI_Status st = {.MPI_SOURCE = 3, .MPI_TAG = 9, .MPI_ERROR = 0};
    MPI_Status_set_elements(&st, MPI_INTEGER, 7);
    MPI_Fint f[MPI_F_STATUS_SIZE];
    CHECK_EQ_INT(MPI_Status_c2f(&st, f), MPI_SUCCESS);
    CHECK_EQ_INT(f[MPI_F_SOURCE], 3);
    CHECK_EQ_INT(f[MPI_F_TAG], 9);
    MPI_F08_status f08;
    CHECK_EQ_INT(MPI_Status_f2f08(f, &f08), MPI_SUCCESS);
    CHECK_EQ_INT(f08.MPI_TAG, 9);
    MPI_Status back;
    CHECK_EQ_INT(MPI_Status_f082c(&f08, &back), MPI_SUCCESS);
    int count;
    MPI_Get_count(&back, MPI_INTEGER, &count);
    CHECK_EQ_INT(count, 7);
    MPI_Fint f2[MPI_F_STATUS_SIZE];
    CHECK_EQ_INT(MPI_Status_c2f08(&back, &f08), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Status_f082f(&f08, f2), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Status_f2c(f2, &back), MPI_SUCCESS);
    CHECK_EQ_INT(back.MPI_SOURCE, 3);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &back), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_sizes(void)
{
    static const struct {
        MPI_Datatype t;
        int size;
    } sz[] = {{MPI_INTEGER, 4},       {MPI_REAL, 4},         {MPI_DOUBLE_PRECISION, 8},
              {MPI_COMPLEX, 8},       {MPI_DOUBLE_COMPLEX, 16}, {MPI_LOGICAL, 4},
              {MPI_CHARACTER, 1},     {MPI_2INTEGER, 8},     {MPI_2REAL, 8},
              {MPI_2DOUBLE_PRECISION, 16}, {MPI_INTEGER1, 1}, {MPI_INTEGER2, 2},
              {MPI_INTEGER4, 4},      {MPI_INTEGER8, 8},     {MPI_INTEGER16, 16},
              {MPI_REAL2, 2},         {MPI_REAL4, 4},        {MPI_REAL8, 8},
              {MPI_REAL16, 16},       {MPI_COMPLEX4, 4},     {MPI_COMPLEX8, 8},
              {MPI_COMPLEX16, 16},    {MPI_COMPLEX32, 32},   {MPI_LOGICAL1, 1},
              {MPI_LOGICAL2, 2},      {MPI_LOGICAL4, 4},     {MPI_LOGICAL8, 8},
              {MPI_LOGICAL16, 16}};
    for (size_t i = 0; i < sizeof sz / sizeof *sz; i++) {
        int s;
        MPI_Type_size(sz[i].t, &s);
        CHECK_EQ_INT(s, sz[i].size);
    }
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(MPI_DOUBLE_PRECISION, name, &len);
    CHECK(strcmp(name, "MPI_DOUBLE_PRECISION") == 0);

    MPI_Datatype t;
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t);
    CHECK(t == MPI_REAL8);
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t);
    CHECK(t == MPI_INTEGER4);
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t);
    CHECK(t == MPI_COMPLEX16);
    MPI_Type_create_f90_integer(9, &t);
    CHECK(t == MPI_INTEGER4);
    MPI_Type_create_f90_integer(10, &t);
    CHECK(t == MPI_INTEGER8);
    MPI_Type_create_f90_real(15, MPI_UNDEFINED, &t);
    CHECK(t == MPI_REAL8);
    MPI_Type_create_f90_real(MPI_UNDEFINED, 400, &t);
    CHECK(t == MPI_REAL16);
    MPI_Type_create_f90_complex(6, 30, &t);
    CHECK(t == MPI_COMPLEX8);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Type_match_size(MPI_TYPECLASS_REAL, 3, &t), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Type_create_f90_integer(39, &t), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Type_create_f90_real(MPI_UNDEFINED, MPI_UNDEFINED, &t), MPI_ERR_ARG);
    /* no arithmetic on characters */
    char c = 'a', cr;
    CHECK_EQ_INT(MPI_Allreduce(&c, &cr, 1, MPI_CHARACTER, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void test_reductions(void)
{
    int n = T_size, r = T_rank;
    int iv[2] = {r + 1, -r}, io[2];
    MPI_Allreduce(iv, io, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ_INT(io[0], n * (n + 1) / 2);
    CHECK_EQ_INT(io[1], -n * (n - 1) / 2);
    double d = r * 1.5, dm;
    MPI_Allreduce(&d, &dm, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD);
    CHECK(dm == (n - 1) * 1.5);
    float f = (float)r, fm;
    MPI_Allreduce(&f, &fm, 1, MPI_REAL, MPI_MIN, MPI_COMM_WORLD);
    CHECK(fm == 0.0f);
    float _Complex z = (float)r + 1.0f * I, zs;
    MPI_Allreduce(&z, &zs, 1, MPI_COMPLEX, MPI_SUM, MPI_COMM_WORLD);
    CHECK(crealf(zs) == n * (n - 1) / 2.0f && cimagf(zs) == (float)n);
    double _Complex dz = 2.0 * I, dp;
    MPI_Allreduce(&dz, &dp, 1, MPI_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD);
    double _Complex want = 1;
    for (int i = 0; i < n; i++)
        want *= 2.0 * I;
    CHECK(creal(dp) == creal(want) && cimag(dp) == cimag(want));
    /* LOGICAL: .TRUE. is 1 */
    int l = r == 0, land, lor;
    MPI_Allreduce(&l, &land, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD);
    MPI_Allreduce(&l, &lor, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD);
    CHECK_EQ_INT(land, n == 1);
    CHECK_EQ_INT(lor, 1);
    /* pairs with the index in the value's type */
    double dd[2] = {(double)(r % 2), (double)r}, ddo[2];
    MPI_Allreduce(dd, ddo, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK(ddo[0] == (n > 1 ? 1.0 : 0.0) && ddo[1] == (n > 1 ? 1.0 : 0.0));
    float rr[2] = {(float)-r, (float)r}, rro[2];
    MPI_Allreduce(rr, rro, 1, MPI_2REAL, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(rro[0] == (float)-(n - 1) && rro[1] == (float)(n - 1));
    int ii[2] = {5, r}, iio[2];
    MPI_Allreduce(ii, iio, 1, MPI_2INTEGER, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK_EQ_INT(iio[0], 5);
    CHECK_EQ_INT(iio[1], 0);
    /* sized kinds */
    __int128 big = (__int128)1 << 100, bigs;
    MPI_Allreduce(&big, &bigs, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD);
    CHECK(bigs == (__int128)n << 100);
    int64_t i8 = (int64_t)1 << 40, i8s;
    MPI_Allreduce(&i8, &i8s, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD);
    CHECK(i8s == (int64_t)n << 40);
    int8_t b = (int8_t)(1 << (r % 7)), bo;
    MPI_Allreduce(&b, &bo, 1, MPI_INTEGER1, MPI_BOR, MPI_COMM_WORLD);
    CHECK(bo == (int8_t)((1 << (n < 7 ? n : 7)) - 1));
    __float128 q = 1.0Q / 3, qs;
    MPI_Allreduce(&q, &qs, 1, MPI_REAL16, MPI_SUM, MPI_COMM_WORLD);
    __float128 qe = n * (1.0Q / 3) - qs;
    CHECK(qe < 1e-30Q && qe > -1e-30Q);
    int64_t l8 = 1, l8o;
    MPI_Allreduce(&l8, &l8o, 1, MPI_LOGICAL8, MPI_LXOR, MPI_COMM_WORLD);
    CHECK(l8o == (n % 2));
    /* point-to-point of a Fortran type, counted in its elements */
    int peer = test_partner();
    double buf[4] = {r, r, r, r}, rb[4];
    MPI_Status st;
    MPI_Sendrecv(buf, 4, MPI_REAL8, peer, 1, rb, 4, MPI_DOUBLE_PRECISION, peer, 1,
                 MPI_COMM_WORLD, &st);
    int cnt;
    MPI_Get_count(&st, MPI_DOUBLE_PRECISION, &cnt);
    CHECK_EQ_INT(cnt, 4);
    CHECK(rb[3] == peer);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    test_handles();
    test_status();
    test_sizes();
    test_reductions();
    test_done("fortran_c");
    return 0;
}
