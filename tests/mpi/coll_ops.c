/* coll_ops — every predefined reduction op on every predefined type, through
 * MPI_Allreduce, MPI_Reduce and MPI_Reduce_local, against a serial reference
 * computed here with the same C operators; short (node shared-memory path)
 * and long (recursive doubling / Rabenseifner) vectors.  Combinations the
 * standard does not define must fail with MPI_ERR_OP; MINLOC/MAXLOC on every
 * pair type, ties included (the smaller index wins). */
#include <complex.h>
#include <stdbool.h>

#include "mpitest.h"

enum { SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND, BOR, BXOR, NOPS };
static const MPI_Op ops[NOPS] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND,
                                 MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static const char *const op_names[NOPS] = {"SUM", "PROD", "MAX", "MIN", "LAND",
                                           "LOR", "LXOR", "BAND", "BOR", "BXOR"};
#define ARITH_OPS ((1 << SUM) | (1 << PROD) | (1 << MAX) | (1 << MIN))
#define LOGIC_OPS ((1 << LAND) | (1 << LOR) | (1 << LXOR))
#define BIT_OPS ((1 << BAND) | (1 << BOR) | (1 << BXOR))

/* The value rank r contributes at index i for op k (small: no overflow). */
static long val(int r, int i, int k)
{
    switch (k) {
    case PROD: return (r + i) % 3 == 0 ? 2 : 1;
    case LAND: return (r * 7 + i) % 5 != 0;
    case LOR: case LXOR: return (r + i) % 4 == 0;
    case BAND: case BOR: case BXOR: return (r * 37 + i * 11) & 0x7f;
    case MAX: case MIN: return (r * 53 + i * 29) % 97 - 40;
    default: return (r + i) % 50;
    }
}

#define APPLY_ARITH(k, a, b) \
    ((k) == SUM ? (a) + (b) : (k) == PROD ? (a) * (b) : (k) == MAX ? ((a) > (b) ? (a) : (b)) : ((a) < (b) ? (a) : (b)))
#define APPLY_LOGIC(k, a, b) ((k) == LAND ? ((a) && (b)) : (k) == LOR ? ((a) || (b)) : (!(a) != !(b)))
#define APPLY_BITS(k, a, b) ((k) == BAND ? ((a) & (b)) : (k) == BOR ? ((a) | (b)) : ((a) ^ (b)))

/* Per C type: fill a buffer, compute the reference. */
#define INT_TYPE(T, nm)                                                               \
    static void gen_##nm(void *b, int r, int n, int k)                                \
    {                                                                                 \
        for (int i = 0; i < n; i++)                                                   \
            ((T *)b)[i] = (T)val(r, i, k);                                            \
    }                                                                                 \
    static void ref_##nm(void *b, int P, int n, int k)                                \
    {                                                                                 \
        for (int i = 0; i < n; i++) {                                                 \
            T acc = (T)val(0, i, k);                                                  \
            for (int r = 1; r < P; r++) {                                             \
                T x = (T)val(r, i, k);                                                \
                acc = k <= MIN ? (T)APPLY_ARITH(k, acc, x)                            \
                      : k <= LXOR ? (T)APPLY_LOGIC(k, acc, x) : (T)APPLY_BITS(k, acc, x); \
            }                                                                         \
            ((T *)b)[i] = acc;                                                        \
        }                                                                             \
    }
#define FLOAT_TYPE(T, nm)                                                             \
    static void gen_##nm(void *b, int r, int n, int k)                                \
    {                                                                                 \
        for (int i = 0; i < n; i++)                                                   \
            ((T *)b)[i] = (T)val(r, i, k);                                            \
    }                                                                                 \
    static void ref_##nm(void *b, int P, int n, int k)                                \
    {                                                                                 \
        for (int i = 0; i < n; i++) {                                                 \
            T acc = (T)val(0, i, k);                                                  \
            for (int r = 1; r < P; r++) {                                             \
                T x = (T)val(r, i, k);                                                \
                acc = (T)APPLY_ARITH(k, acc, x);                                      \
            }                                                                         \
            ((T *)b)[i] = acc;                                                        \
        }                                                                             \
    }
#define COMPLEX_TYPE(T, nm)                                                           \
    static void gen_##nm(void *b, int r, int n, int k)                                \
    {                                                                                 \
        for (int i = 0; i < n; i++)                                                   \
            ((T *)b)[i] = (T)val(r, i, k) + (T)(r % 2) * I;                           \
    }                                                                                 \
    static void ref_##nm(void *b, int P, int n, int k)                                \
    {                                                                                 \
        for (int i = 0; i < n; i++) {                                                 \
            T acc = (T)val(0, i, k);                                                  \
            for (int r = 1; r < P; r++) {                                             \
                T x = (T)val(r, i, k) + (T)(r % 2) * I;                               \
                acc = k == SUM ? acc + x : acc * x;                                   \
            }                                                                         \
            ((T *)b)[i] = acc;                                                        \
        }                                                                             \
    }

INT_TYPE(signed char, schar)
INT_TYPE(unsigned char, uchar)
INT_TYPE(short, short)
INT_TYPE(unsigned short, ushort)
INT_TYPE(int, int)
INT_TYPE(unsigned, uint)
INT_TYPE(long, long)
INT_TYPE(unsigned long, ulong)
INT_TYPE(long long, llong)
INT_TYPE(unsigned long long, ullong)
INT_TYPE(int8_t, i8)
INT_TYPE(uint8_t, u8)
INT_TYPE(int16_t, i16)
INT_TYPE(uint16_t, u16)
INT_TYPE(int32_t, i32)
INT_TYPE(uint32_t, u32)
INT_TYPE(int64_t, i64)
INT_TYPE(uint64_t, u64)
INT_TYPE(MPI_Aint, aint)
INT_TYPE(MPI_Offset, offset)
INT_TYPE(MPI_Count, count)
INT_TYPE(bool, cbool)
INT_TYPE(unsigned char, byte)
FLOAT_TYPE(float, float)
FLOAT_TYPE(double, double)
FLOAT_TYPE(long double, ldouble)
COMPLEX_TYPE(float _Complex, cfloat)
COMPLEX_TYPE(double _Complex, cdouble)
COMPLEX_TYPE(long double _Complex, cldouble)

typedef struct {
    const char *name;
    MPI_Datatype dt;
    size_t size;
    unsigned ops; /* ops the standard defines on it */
    void (*gen)(void *, int, int, int);
    void (*ref)(void *, int, int, int);
} type_t;

#define INTS ARITH_OPS | LOGIC_OPS | BIT_OPS
#define T(nm, dt, ctype, ops) {#dt, dt, sizeof(ctype), ops, gen_##nm, ref_##nm}
static const type_t types[] = {
    T(schar, MPI_SIGNED_CHAR, signed char, INTS), T(uchar, MPI_UNSIGNED_CHAR, unsigned char, INTS),
    T(short, MPI_SHORT, short, INTS), T(ushort, MPI_UNSIGNED_SHORT, unsigned short, INTS),
    T(int, MPI_INT, int, INTS), T(uint, MPI_UNSIGNED, unsigned, INTS),
    T(long, MPI_LONG, long, INTS), T(ulong, MPI_UNSIGNED_LONG, unsigned long, INTS),
    T(llong, MPI_LONG_LONG, long long, INTS), T(ullong, MPI_UNSIGNED_LONG_LONG, unsigned long long, INTS),
    T(i8, MPI_INT8_T, int8_t, INTS), T(u8, MPI_UINT8_T, uint8_t, INTS),
    T(i16, MPI_INT16_T, int16_t, INTS), T(u16, MPI_UINT16_T, uint16_t, INTS),
    T(i32, MPI_INT32_T, int32_t, INTS), T(u32, MPI_UINT32_T, uint32_t, INTS),
    T(i64, MPI_INT64_T, int64_t, INTS), T(u64, MPI_UINT64_T, uint64_t, INTS),
    T(aint, MPI_AINT, MPI_Aint, ARITH_OPS | LOGIC_OPS | BIT_OPS),
    T(offset, MPI_OFFSET, MPI_Offset, ARITH_OPS | LOGIC_OPS | BIT_OPS),
    T(count, MPI_COUNT, MPI_Count, ARITH_OPS | LOGIC_OPS | BIT_OPS),
    T(cbool, MPI_C_BOOL, bool, LOGIC_OPS), T(byte, MPI_BYTE, unsigned char, BIT_OPS),
    T(float, MPI_FLOAT, float, ARITH_OPS), T(double, MPI_DOUBLE, double, ARITH_OPS),
    T(ldouble, MPI_LONG_DOUBLE, long double, ARITH_OPS),
    T(cfloat, MPI_C_FLOAT_COMPLEX, float _Complex, (1 << SUM) | (1 << PROD)),
    T(cdouble, MPI_C_DOUBLE_COMPLEX, double _Complex, (1 << SUM) | (1 << PROD)),
    T(cldouble, MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, (1 << SUM) | (1 << PROD)),
};

/* long double carries padding bytes: compare values, not bytes */
static int same(const type_t *t, const void *a, const void *b, int n)
{
    if (t->dt == MPI_LONG_DOUBLE) {
        for (int i = 0; i < n; i++)
            if (((const long double *)a)[i] != ((const long double *)b)[i])
                return 0;
        return 1;
    }
    if (t->dt == MPI_C_LONG_DOUBLE_COMPLEX) {
        for (int i = 0; i < n; i++)
            if (((const long double _Complex *)a)[i] != ((const long double _Complex *)b)[i])
                return 0;
        return 1;
    }
    return memcmp(a, b, (size_t)n * t->size) == 0;
}

static void check_type_op(const type_t *t, int k, int n, char *s, char *r, char *want)
{
    int P = T_size;
    t->gen(s, T_rank, n, k);
    int rc = MPI_Allreduce(s, r, n, t->dt, ops[k], MPI_COMM_WORLD);
    if (!(t->ops & (1u << k))) {
        CHECK_EQ_INT(rc, MPI_ERR_OP);
        CHECK_EQ_INT(MPI_Reduce_local(s, r, n, t->dt, ops[k]), MPI_ERR_OP);
        return;
    }
    CHECK_EQ_INT(rc, MPI_SUCCESS);
    t->ref(want, P, n, k);
    if (!same(t, r, want, n)) {
        fprintf(stderr, "rank %d: MPI_Allreduce %s on %s (count %d) is wrong\n", T_rank, op_names[k],
                t->name, n);
        exit(1);
    }
    int root = (k + n) % P;
    memset(r, 0, (size_t)n * t->size);
    CHECK_EQ_INT(MPI_Reduce(s, r, n, t->dt, ops[k], root, MPI_COMM_WORLD), MPI_SUCCESS);
    if (T_rank == root && !same(t, r, want, n)) {
        fprintf(stderr, "rank %d: MPI_Reduce %s on %s (count %d) is wrong\n", T_rank, op_names[k],
                t->name, n);
        exit(1);
    }
    /* Reduce_local of ranks 0 and 1's data = reference over 2 ranks */
    t->gen(s, 0, n, k);
    t->gen(r, 1, n, k);
    CHECK_EQ_INT(MPI_Reduce_local(s, r, n, t->dt, ops[k]), MPI_SUCCESS);
    t->ref(want, 2, n, k);
    CHECK(same(t, r, want, n));
}

/* MINLOC/MAXLOC: values repeat across ranks so ties happen; index = rank. */
#define LOC_TEST(V, dt, nm)                                                                    \
    static void loc_##nm(int n)                                                                \
    {                                                                                          \
        struct { V v; int k; } *s = malloc(n * sizeof *s), *r = malloc(n * sizeof *r);        \
        CHECK(s && r);                                                                         \
        for (int op = 0; op < 2; op++) {                                                       \
            for (int i = 0; i < n; i++) {                                                      \
                s[i].v = (V)((T_rank * 5 + i) % 3);                                            \
                s[i].k = T_rank;                                                               \
            }                                                                                  \
            CHECK_EQ_INT(MPI_Allreduce(s, r, n, dt, op ? MPI_MAXLOC : MPI_MINLOC,             \
                                       MPI_COMM_WORLD), MPI_SUCCESS);                          \
            for (int i = 0; i < n; i++) {                                                      \
                V best = (V)(i % 3);                                                           \
                int at = 0;                                                                    \
                for (int q = 1; q < T_size; q++) {                                             \
                    V x = (V)((q * 5 + i) % 3);                                                \
                    if (op ? x > best : x < best) {                                            \
                        best = x;                                                              \
                        at = q;                                                                \
                    }                                                                          \
                }                                                                              \
                CHECK(r[i].v == best);                                                         \
                CHECK_EQ_INT(r[i].k, at);                                                      \
            }                                                                                  \
        }                                                                                      \
        CHECK_EQ_INT(MPI_Allreduce(s, r, n, dt, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);        \
        free(s);                                                                               \
        free(r);                                                                               \
    }
LOC_TEST(float, MPI_FLOAT_INT, fi)
LOC_TEST(double, MPI_DOUBLE_INT, di)
LOC_TEST(long, MPI_LONG_INT, li)
LOC_TEST(int, MPI_2INT, ii)
LOC_TEST(short, MPI_SHORT_INT, si)
LOC_TEST(long double, MPI_LONG_DOUBLE_INT, ldi)

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static const int counts[] = {1, 37, 3000};
    int maxn = 3000;
    char *s = malloc((size_t)maxn * 32), *r = malloc((size_t)maxn * 32), *w = malloc((size_t)maxn * 32);
    CHECK(s && r && w);
    for (unsigned c = 0; c < sizeof counts / sizeof *counts; c++)
        for (unsigned t = 0; t < sizeof types / sizeof *types; t++)
            for (int k = 0; k < NOPS; k++)
                check_type_op(&types[t], k, counts[c], s, r, w);
    for (unsigned c = 0; c < sizeof counts / sizeof *counts; c++) {
        loc_fi(counts[c]);
        loc_di(counts[c]);
        loc_li(counts[c]);
        loc_ii(counts[c]);
        loc_si(counts[c]);
        loc_ldi(counts[c]);
    }
    /* MINLOC on a plain type, and invalid op handles */
    CHECK_EQ_INT(MPI_Allreduce(s, r, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_EQ_INT(MPI_Allreduce(s, r, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    /* MPI_CHAR takes the integer ops (extension, api_types_ops) but not MINLOC */
    CHECK_EQ_INT(MPI_Allreduce(s, r, 1, MPI_CHAR, MPI_MINLOC, MPI_COMM_WORLD), MPI_ERR_OP);
    MPI_Op predefined = MPI_SUM;
    CHECK_EQ_INT(MPI_Op_free(&predefined), MPI_ERR_OP);
    int commute = 0;
    CHECK_EQ_INT(MPI_Op_commutative(MPI_SUM, &commute), MPI_SUCCESS);
    CHECK_EQ_INT(commute, 1);
    free(s);
    free(r);
    free(w);
    test_done("coll_ops");
    return 0;
}
