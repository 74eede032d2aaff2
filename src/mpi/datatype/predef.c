/*
 * predef.c — the predefined datatypes, indexed by handle value - 0x200, and
 * their representations (filled when the library is loaded).
 *
 * Basic types are one run of their size.  The pair types of MINLOC/MAXLOC
 * (MPI_DOUBLE_INT, ...) are C structs {value; int}: their size is the two
 * fields, their extent the struct with its padding, so a message of them
 * carries only data bytes (count * size) like any other type, and a struct
 * type built by the user with the same fields matches them.
 */
#include <stddef.h>
#include <wchar.h>

#include "datatype/dtype.h"

#define PAIR(a, b) struct { a x; b y; }
#define DT(val, type, nm) [(val) & 0xff] = {MAGIC_DTYPE, sizeof(type), sizeof(type), 1, nm, NULL}
#define DTP(val, a, b, nm) [(val) & 0xff] = {MAGIC_DTYPE, sizeof(a) + sizeof(b), sizeof(PAIR(a, b)), 0, nm, NULL}

struct MPI_ABI_Datatype mpir_dtype_predef[256] = {
    DT(0x201, MPI_Aint, "MPI_AINT"),
    DT(0x202, MPI_Count, "MPI_COUNT"),
    DT(0x203, MPI_Offset, "MPI_OFFSET"),
    DT(0x207, char, "MPI_PACKED"),
    DT(0x208, short, "MPI_SHORT"),
    DT(0x209, int, "MPI_INT"),
    DT(0x20a, long, "MPI_LONG"),
    DT(0x20b, long long, "MPI_LONG_LONG"),
    DT(0x20c, unsigned short, "MPI_UNSIGNED_SHORT"),
    DT(0x20d, unsigned, "MPI_UNSIGNED"),
    DT(0x20e, unsigned long, "MPI_UNSIGNED_LONG"),
    DT(0x20f, unsigned long long, "MPI_UNSIGNED_LONG_LONG"),
    DT(0x210, float, "MPI_FLOAT"),
    DT(0x212, float _Complex, "MPI_C_FLOAT_COMPLEX"),
    DT(0x214, double, "MPI_DOUBLE"),
    DT(0x216, double _Complex, "MPI_C_DOUBLE_COMPLEX"),
    DT(0x220, long double, "MPI_LONG_DOUBLE"),
    DT(0x224, long double _Complex, "MPI_C_LONG_DOUBLE_COMPLEX"),
    DTP(0x228, float, int, "MPI_FLOAT_INT"),
    DTP(0x229, double, int, "MPI_DOUBLE_INT"),
    DTP(0x22a, long, int, "MPI_LONG_INT"),
    DTP(0x22b, int, int, "MPI_2INT"),
    DTP(0x22c, short, int, "MPI_SHORT_INT"),
    DTP(0x22d, long double, int, "MPI_LONG_DOUBLE_INT"),
    DT(0x238, _Bool, "MPI_C_BOOL"),
    DT(0x23c, wchar_t, "MPI_WCHAR"),
    DT(0x240, int8_t, "MPI_INT8_T"),
    DT(0x241, uint8_t, "MPI_UINT8_T"),
    DT(0x243, char, "MPI_CHAR"),
    DT(0x244, signed char, "MPI_SIGNED_CHAR"),
    DT(0x245, unsigned char, "MPI_UNSIGNED_CHAR"),
    DT(0x247, unsigned char, "MPI_BYTE"),
    DT(0x248, int16_t, "MPI_INT16_T"),
    DT(0x249, uint16_t, "MPI_UINT16_T"),
    DT(0x250, int32_t, "MPI_INT32_T"),
    DT(0x251, uint32_t, "MPI_UINT32_T"),
    DT(0x258, int64_t, "MPI_INT64_T"),
    DT(0x259, uint64_t, "MPI_UINT64_T"),
    /* the C++ types (MPI-3.1 3.2.2), laid out as C's _Bool and _Complex */
    DT(0x213, float _Complex, "MPI_CXX_FLOAT_COMPLEX"),
    DT(0x217, double _Complex, "MPI_CXX_DOUBLE_COMPLEX"),
    DT(0x225, long double _Complex, "MPI_CXX_LONG_DOUBLE_COMPLEX"),
    DT(0x239, _Bool, "MPI_CXX_BOOL"),
    /* Fortran types, with gfortran's sizes (default INTEGER/LOGICAL/REAL: 4 bytes) */
    DT(0x218, int, "MPI_LOGICAL"),
    DT(0x219, int, "MPI_INTEGER"),
    DT(0x21a, float, "MPI_REAL"),
    DT(0x21b, float _Complex, "MPI_COMPLEX"),
    DT(0x21c, double, "MPI_DOUBLE_PRECISION"),
    DT(0x21d, double _Complex, "MPI_DOUBLE_COMPLEX"),
    DT(0x21e, char, "MPI_CHARACTER"),
    DTP(0x230, float, float, "MPI_2REAL"),
    DTP(0x231, double, double, "MPI_2DOUBLE_PRECISION"),
    DTP(0x232, int, int, "MPI_2INTEGER"),
    DT(0x2c0, int8_t, "MPI_LOGICAL1"),
    DT(0x2c1, int8_t, "MPI_INTEGER1"),
    DT(0x2c8, int16_t, "MPI_LOGICAL2"),
    DT(0x2c9, int16_t, "MPI_INTEGER2"),
    DT(0x2ca, int16_t, "MPI_REAL2"), /* half precision: moved, never reduced */
    DT(0x2d0, int32_t, "MPI_LOGICAL4"),
    DT(0x2d1, int32_t, "MPI_INTEGER4"),
    DT(0x2d2, float, "MPI_REAL4"),
    DT(0x2d3, int32_t, "MPI_COMPLEX4"), /* two half-precision reals */
    DT(0x2d8, int64_t, "MPI_LOGICAL8"),
    DT(0x2d9, int64_t, "MPI_INTEGER8"),
    DT(0x2da, double, "MPI_REAL8"),
    DT(0x2db, float _Complex, "MPI_COMPLEX8"),
    DT(0x2e0, __int128, "MPI_LOGICAL16"),
    DT(0x2e1, __int128, "MPI_INTEGER16"),
    DT(0x2e2, __float128, "MPI_REAL16"),
    DT(0x2e3, double _Complex, "MPI_COMPLEX16"),
    DT(0x2eb, _Float128 _Complex, "MPI_COMPLEX32"),
};

static struct dtype_rep predef_rep[256];
static dt_run_t predef_runs[256][2];

/* The pair types: value type, its offset is 0, the index (an int in C's
 * pairs, the value's own type in Fortran's) at offsetof(y). */
static const struct {
    int val, first, second;
    size_t int_off;
} pairs[] = {
    {0x228, 0x210, 0x209, offsetof(PAIR(float, int), y)},
    {0x229, 0x214, 0x209, offsetof(PAIR(double, int), y)},
    {0x22a, 0x20a, 0x209, offsetof(PAIR(long, int), y)},
    {0x22b, 0x209, 0x209, offsetof(PAIR(int, int), y)},
    {0x22c, 0x208, 0x209, offsetof(PAIR(short, int), y)},
    {0x22d, 0x220, 0x209, offsetof(PAIR(long double, int), y)},
    {0x230, 0x21a, 0x21a, offsetof(PAIR(float, float), y)},
    {0x231, 0x21c, 0x21c, offsetof(PAIR(double, double), y)},
    {0x232, 0x219, 0x219, offsetof(PAIR(int, int), y)},
};

/* Types whose C alignment is not their size (a complex aligns as its part):
 * a struct type's extent is padded to its members' alignment, as C pads. */
static const struct {
    int val, align;
} aligns[] = {
    {0x212, _Alignof(float _Complex)},
    {0x216, _Alignof(double _Complex)},
    {0x224, _Alignof(long double _Complex)},
    {0x213, _Alignof(float _Complex)},       /* MPI_CXX_FLOAT_COMPLEX */
    {0x217, _Alignof(double _Complex)},      /* MPI_CXX_DOUBLE_COMPLEX */
    {0x225, _Alignof(long double _Complex)}, /* MPI_CXX_LONG_DOUBLE_COMPLEX */
    {0x21b, _Alignof(float _Complex)},       /* MPI_COMPLEX */
    {0x21d, _Alignof(double _Complex)},      /* MPI_DOUBLE_COMPLEX */
    {0x2d3, _Alignof(int16_t)},              /* MPI_COMPLEX4: two REAL2 */
    {0x2db, _Alignof(float _Complex)},       /* MPI_COMPLEX8 */
    {0x2e3, _Alignof(double _Complex)},      /* MPI_COMPLEX16 */
};

static int align_of(int val, uint64_t size)
{
    for (size_t k = 0; k < sizeof aligns / sizeof *aligns; k++)
        if (aligns[k].val == val)
            return aligns[k].align;
    return size >= 16 ? 16 : (int)size; /* natural alignment of the other C types */
}

__attribute__((constructor)) static void predef_init(void)
{
    for (int i = 0; i < 256; i++) {
        struct MPI_ABI_Datatype *d = &mpir_dtype_predef[i];
        if (d->magic != MAGIC_DTYPE || !d->contiguous)
            continue;
        struct dtype_rep *t = &predef_rep[i];
        t->refs = 1;
        t->predefined = 1;
        t->combiner = MPI_COMBINER_NAMED;
        t->ub = t->true_ub = d->extent;
        t->nbasic = 1;
        t->basic_size = (int64_t)d->size;
        t->align = align_of(0x200 | i, d->size);
        t->runs = predef_runs[i];
        t->runs[0].len = (int64_t)d->size;
        t->nruns = 1;
        t->reps = 1;
        d->rep = t;
    }
    for (size_t k = 0; k < sizeof pairs / sizeof *pairs; k++) {
        int i = pairs[k].val & 0xff;
        struct MPI_ABI_Datatype *d = &mpir_dtype_predef[i];
        struct MPI_ABI_Datatype *a = &mpir_dtype_predef[pairs[k].first & 0xff];
        struct MPI_ABI_Datatype *n = &mpir_dtype_predef[pairs[k].second & 0xff];
        struct dtype_rep *t = &predef_rep[i];
        t->refs = 1;
        t->predefined = 1;
        t->combiner = MPI_COMBINER_NAMED;
        t->ub = d->extent;
        t->true_ub = (int64_t)(pairs[k].int_off + n->size);
        t->nbasic = 2;
        t->basic_size = a->size == n->size ? (int64_t)a->size : 0;
        t->align = a->rep->align > n->rep->align ? a->rep->align : n->rep->align;
        t->field[0] = a;
        t->field[1] = n;
        t->field_off[1] = (int64_t)pairs[k].int_off;
        t->runs = predef_runs[i];
        t->runs[0].len = (int64_t)a->size;
        t->nruns = 1;
        if ((size_t)a->size == pairs[k].int_off) { /* no padding between: one run */
            t->runs[0].len += (int64_t)n->size;
        } else {
            t->runs[1].off = (int64_t)pairs[k].int_off;
            t->runs[1].len = (int64_t)n->size;
            t->nruns = 2;
        }
        t->reps = 1;
        d->contiguous = d->size == (uint64_t)d->extent && t->nruns == 1;
        d->rep = t;
    }
    for (int i = 0; i < 256; i++)
        if (mpir_dtype_predef[i].rep) {
            struct dtype_rep *t = mpir_dtype_predef[i].rep;
            const char *nm = mpir_dtype_predef[i].name;
            size_t j = 0;
            for (; nm[j] && j + 1 < sizeof t->name; j++)
                t->name[j] = nm[j];
            t->name[j] = '\0';
            mpir_dtype_predef[i].name = t->name;
        }
}
