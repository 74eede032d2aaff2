/*
 * op.c — reduction operations: the predefined ops, their kernels and the
 * rules saying which op applies to which type.
 *
 * A kernel is a plain loop over restrict pointers (inout[i] = in[i] op
 * inout[i]); this file is compiled at -O3 so GCC vectorises the integer and
 * floating-point loops.  Kernels exist per C type; each predefined datatype
 * handle maps to the kernel of its C type through the op's table (NULL: the
 * standard does not define the op on that type -> MPI_ERR_OP).
 *
 * Type classes (MPI-3.1 5.9.2): C integer (incl. MPI_AINT/OFFSET/COUNT),
 * floating point, complex, logical (MPI_C_BOOL), byte, and the pair types
 * for MINLOC/MAXLOC.
 */
#pragma GCC optimize("O3")
#include <complex.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "coll/coll.h"
#include "device/mt.h"

/* ---- kernels ------------------------------------------------------------- */
/* Each kernel is built for the baseline and for AVX2/AVX-512 and picked at
 * load time (an ifunc): 4 KiB MPI_SUM of doubles into a window went from
 * 0.10 to 0.055 us (docs/collectives.md, "Reduction kernels").  Not under
 * the sanitizers (their runtime is not up yet when the loader runs an
 * ifunc's resolver: TSan builds crashed there), nor without glibc. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define KERNEL_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KERNEL_CLONES
#endif
#define KERNEL(name, T, expr)                                                     \
    KERNEL_CLONES static void name(const void *restrict in_, void *restrict io_, size_t n) \
    {                                                                             \
        const T *restrict a = in_;                                                \
        T *restrict b = io_;                                                      \
        for (size_t i = 0; i < n; i++)                                            \
            b[i] = (expr);                                                        \
    }

#define ARITH(T, s)                                                 \
    KERNEL(sum_##s, T, a[i] + b[i])                                 \
    KERNEL(prod_##s, T, a[i] * b[i])
#define ORDER(T, s)                                                 \
    KERNEL(max_##s, T, a[i] > b[i] ? a[i] : b[i])                   \
    KERNEL(min_##s, T, a[i] < b[i] ? a[i] : b[i])
#define LOGIC(T, s)                                                 \
    KERNEL(land_##s, T, (T)(a[i] && b[i]))                          \
    KERNEL(lor_##s, T, (T)(a[i] || b[i]))                           \
    KERNEL(lxor_##s, T, (T)(!a[i] != !b[i]))
#define BITS(T, s)                                                  \
    KERNEL(band_##s, T, (T)(a[i] & b[i]))                           \
    KERNEL(bor_##s, T, (T)(a[i] | b[i]))                            \
    KERNEL(bxor_##s, T, (T)(a[i] ^ b[i]))
#define INTEGER(T, s) ARITH(T, s) ORDER(T, s) LOGIC(T, s) BITS(T, s)

INTEGER(int8_t, i8)
INTEGER(uint8_t, u8)
INTEGER(int16_t, i16)
INTEGER(uint16_t, u16)
INTEGER(int32_t, i32)
INTEGER(uint32_t, u32)
INTEGER(int64_t, i64)
INTEGER(uint64_t, u64)
INTEGER(__int128, i128) /* Fortran INTEGER(16) */
ARITH(float, f32)
ORDER(float, f32)
ARITH(double, f64)
ORDER(double, f64)
ARITH(long double, f80)
ORDER(long double, f80)
ARITH(float _Complex, c32)
ARITH(double _Complex, c64)
ARITH(long double _Complex, c80)
ARITH(__float128, f128) /* Fortran REAL(16) */
ORDER(__float128, f128)
ARITH(_Float128 _Complex, c128)
LOGIC(_Bool, bool)

/* MINLOC/MAXLOC: the value wins; on a tie the smaller index (an int in C's
 * pair types, the value's type in Fortran's MPI_2REAL, ...). */
#define LOC(T, K, s)                                                                    \
    typedef struct {                                                                    \
        T v;                                                                            \
        K k;                                                                            \
    } pair_##s;                                                                         \
    static void maxloc_##s(const void *restrict in_, void *restrict io_, size_t n)      \
    {                                                                                   \
        const pair_##s *restrict a = in_;                                               \
        pair_##s *restrict b = io_;                                                     \
        for (size_t i = 0; i < n; i++)                                                  \
            if (a[i].v > b[i].v || (a[i].v == b[i].v && a[i].k < b[i].k))               \
                b[i] = a[i];                                                            \
    }                                                                                   \
    static void minloc_##s(const void *restrict in_, void *restrict io_, size_t n)      \
    {                                                                                   \
        const pair_##s *restrict a = in_;                                               \
        pair_##s *restrict b = io_;                                                     \
        for (size_t i = 0; i < n; i++)                                                  \
            if (a[i].v < b[i].v || (a[i].v == b[i].v && a[i].k < b[i].k))               \
                b[i] = a[i];                                                            \
    }
LOC(float, int, fi)
LOC(double, int, di)
LOC(long, int, li)
LOC(int, int, ii)
LOC(short, int, si)
LOC(long double, int, ldi)
LOC(float, float, ff)
LOC(double, double, dd)

/* ---- which datatype (handle & 0xff) is which C type ----------------------- */
enum tclass { T_NONE, T_INT, T_FLOAT, T_COMPLEX, T_BOOL, T_BYTE, T_PAIR };
enum ctype { I8, U8, I16, U16, I32, U32, I64, U64, I128, F32, F64, F80, F128, C32, C64, C80,
             C128, BOOL, P_FI, P_DI, P_LI, P_II, P_SI, P_LDI, P_FF, P_DD };

#define SIGNED_OF(T) (sizeof(T) == 1 ? I8 : sizeof(T) == 2 ? I16 : sizeof(T) == 4 ? I32 : I64)
#define UNSIGNED_OF(T) (sizeof(T) == 1 ? U8 : sizeof(T) == 2 ? U16 : sizeof(T) == 4 ? U32 : U64)

static const struct { uint8_t cls, ct; } type_of[256] = {
    [0x01] = {T_INT, SIGNED_OF(MPI_Aint)},     [0x02] = {T_INT, SIGNED_OF(MPI_Count)},
    [0x03] = {T_INT, SIGNED_OF(MPI_Offset)},   [0x08] = {T_INT, SIGNED_OF(short)},
    [0x09] = {T_INT, SIGNED_OF(int)},          [0x0a] = {T_INT, SIGNED_OF(long)},
    [0x0b] = {T_INT, SIGNED_OF(long long)},    [0x0c] = {T_INT, UNSIGNED_OF(unsigned short)},
    [0x0d] = {T_INT, UNSIGNED_OF(unsigned)},   [0x0e] = {T_INT, UNSIGNED_OF(unsigned long)},
    [0x0f] = {T_INT, UNSIGNED_OF(unsigned long long)},
    [0x10] = {T_FLOAT, F32},                   [0x14] = {T_FLOAT, F64},
    [0x20] = {T_FLOAT, F80},                   [0x12] = {T_COMPLEX, C32},
    [0x16] = {T_COMPLEX, C64},                 [0x24] = {T_COMPLEX, C80},
    [0x28] = {T_PAIR, P_FI},                   [0x29] = {T_PAIR, P_DI},
    [0x2a] = {T_PAIR, P_LI},                   [0x2b] = {T_PAIR, P_II},
    [0x2c] = {T_PAIR, P_SI},                   [0x2d] = {T_PAIR, P_LDI},
    [0x38] = {T_BOOL, BOOL},                   [0x40] = {T_INT, I8},
    [0x41] = {T_INT, U8},                      [0x44] = {T_INT, I8},
    [0x45] = {T_INT, U8},                      [0x47] = {T_BYTE, U8},
    [0x48] = {T_INT, I16},                     [0x49] = {T_INT, U16},
    [0x50] = {T_INT, I32},                     [0x51] = {T_INT, U32},
    [0x58] = {T_INT, I64},                     [0x59] = {T_INT, U64},
    /* Fortran: LOGICALs take the logical ops through the integer kernels
     * (gfortran's .TRUE. is 1); CHARACTER, REAL2 and COMPLEX4 take none. */
    [0x18] = {T_BOOL, I32},                    [0x19] = {T_INT, I32},
    [0x1a] = {T_FLOAT, F32},                   [0x1b] = {T_COMPLEX, C32},
    [0x1c] = {T_FLOAT, F64},                   [0x1d] = {T_COMPLEX, C64},
    [0x30] = {T_PAIR, P_FF},                   [0x31] = {T_PAIR, P_DD},
    [0x32] = {T_PAIR, P_II},
    [0xc0] = {T_BOOL, I8},                     [0xc1] = {T_INT, I8},
    [0xc8] = {T_BOOL, I16},                    [0xc9] = {T_INT, I16},
    [0xd0] = {T_BOOL, I32},                    [0xd1] = {T_INT, I32},
    [0xd2] = {T_FLOAT, F32},                   [0xd8] = {T_BOOL, I64},
    [0xd9] = {T_INT, I64},                     [0xda] = {T_FLOAT, F64},
    [0xdb] = {T_COMPLEX, C32},                 [0xe0] = {T_BOOL, I128},
    [0xe1] = {T_INT, I128},                    [0xe2] = {T_FLOAT, F128},
    [0xe3] = {T_COMPLEX, C64},                 [0xeb] = {T_COMPLEX, C128},
    /* C++ types: the kernels of their C twins */
    [0x13] = {T_COMPLEX, C32},                 [0x17] = {T_COMPLEX, C64},
    [0x25] = {T_COMPLEX, C80},                 [0x39] = {T_BOOL, BOOL},
    /* Extension: MPI_CHAR and MPI_WCHAR are text in MPI-3.1 (no op defined);
     * like MPICH, every op of the C integers takes them as the integers of
     * their C type (char's and wchar_t's signedness here). */
    [0x43] = {T_INT, CHAR_MIN < 0 ? I8 : U8},
    [0x3c] = {T_INT, WCHAR_MIN < 0 ? SIGNED_OF(wchar_t) : UNSIGNED_OF(wchar_t)},
};

/* ---- op tables: [C type] -> kernel ----------------------------------------- */
#define INTS(op) [I8] = op##_i8, [U8] = op##_u8, [I16] = op##_i16, [U16] = op##_u16, \
                 [I32] = op##_i32, [U32] = op##_u32, [I64] = op##_i64, [U64] = op##_u64, \
                 [I128] = op##_i128
#define FLOATS(op) [F32] = op##_f32, [F64] = op##_f64, [F80] = op##_f80, [F128] = op##_f128
#define COMPLEXES(op) [C32] = op##_c32, [C64] = op##_c64, [C80] = op##_c80, [C128] = op##_c128
#define PAIRS(op) [P_FI] = op##_fi, [P_DI] = op##_di, [P_LI] = op##_li, [P_II] = op##_ii, \
                  [P_SI] = op##_si, [P_LDI] = op##_ldi, [P_FF] = op##_ff, [P_DD] = op##_dd
#define NCT (P_DD + 1)

static kernel_fn *const k_sum[NCT] = {INTS(sum), FLOATS(sum), COMPLEXES(sum)};
static kernel_fn *const k_prod[NCT] = {INTS(prod), FLOATS(prod), COMPLEXES(prod)};
static kernel_fn *const k_max[NCT] = {INTS(max), FLOATS(max)};
static kernel_fn *const k_min[NCT] = {INTS(min), FLOATS(min)};
static kernel_fn *const k_land[NCT] = {INTS(land), [BOOL] = land_bool};
static kernel_fn *const k_lor[NCT] = {INTS(lor), [BOOL] = lor_bool};
static kernel_fn *const k_lxor[NCT] = {INTS(lxor), [BOOL] = lxor_bool};
static kernel_fn *const k_band[NCT] = {INTS(band)};
static kernel_fn *const k_bor[NCT] = {INTS(bor)};
static kernel_fn *const k_bxor[NCT] = {INTS(bxor)};
static kernel_fn *const k_maxloc[NCT] = {PAIRS(maxloc)};
static kernel_fn *const k_minloc[NCT] = {PAIRS(minloc)};

/* Which type classes each op accepts (bit per enum tclass). */
#define CL(c) (1u << (c))
#define OP(val, tab, classes, nm) [(val) & 31] = {MAGIC_OP, 1, NULL, tab, nm, (int)(classes)}
struct MPI_ABI_Op mpir_op_predef[32] = {
    OP(0x21, k_sum, CL(T_INT) | CL(T_FLOAT) | CL(T_COMPLEX), "MPI_SUM"),
    OP(0x22, k_min, CL(T_INT) | CL(T_FLOAT), "MPI_MIN"),
    OP(0x23, k_max, CL(T_INT) | CL(T_FLOAT), "MPI_MAX"),
    OP(0x24, k_prod, CL(T_INT) | CL(T_FLOAT) | CL(T_COMPLEX), "MPI_PROD"),
    OP(0x28, k_band, CL(T_INT) | CL(T_BYTE), "MPI_BAND"),
    OP(0x29, k_bor, CL(T_INT) | CL(T_BYTE), "MPI_BOR"),
    OP(0x2a, k_bxor, CL(T_INT) | CL(T_BYTE), "MPI_BXOR"),
    OP(0x30, k_land, CL(T_INT) | CL(T_BOOL), "MPI_LAND"),
    OP(0x31, k_lor, CL(T_INT) | CL(T_BOOL), "MPI_LOR"),
    OP(0x32, k_lxor, CL(T_INT) | CL(T_BOOL), "MPI_LXOR"),
    OP(0x38, k_minloc, CL(T_PAIR), "MPI_MINLOC"),
    OP(0x39, k_maxloc, CL(T_PAIR), "MPI_MAXLOC"),
    /* one-sided only (binding/win.c handles them): valid handles, no
     * collective kernel, so a reduction with them says "not defined" */
    OP(0x3c, NULL, 0, "MPI_REPLACE"),
    OP(0x3d, NULL, 0, "MPI_NO_OP"),
};
/* For predefined ops the refs field holds the accepted classes (never counted). */

int op_reducer(const char *fn, struct MPI_ABI_Comm *c, MPI_Op op, MPI_Datatype dtype,
               reducer_t *r)
{
    uintptr_t v = (uintptr_t)op;
    struct MPI_ABI_Op *o = NULL;
    if (v - 0x20 < 32)
        o = &mpir_op_predef[v & 31];
    else if (v >= MPIR_PREDEF_BOUND)
        o = (struct MPI_ABI_Op *)op;
    if (!o || o->magic != MAGIC_OP)
        return mpir_error(c, MPI_ERR_OP, "%s: invalid operation %s", fn,
                          v == 0x20 ? "MPI_OP_NULL" : "(not an op handle)");
    struct MPI_ABI_Datatype *d = dtype_of(dtype);
    memset(r, 0, sizeof *r);
    r->op = o;
    r->dtype = dtype;
    r->extent = (size_t)d->extent;
    if (o->user) {
        r->user = o->user;
        return MPI_SUCCESS;
    }
    uintptr_t t = (uintptr_t)dtype;
    if (t - 0x200 < 0x100 && type_of[t & 0xff].cls != T_NONE &&
        (o->refs & CL(type_of[t & 0xff].cls)) && o->kernels[type_of[t & 0xff].ct]) {
        r->kernel = o->kernels[type_of[t & 0xff].ct];
        return MPI_SUCCESS;
    }
    return mpir_error(c, MPI_ERR_OP, "%s: %s is not defined for datatype %s", fn, o->name,
                      d->name ? d->name : "(derived)");
}

void op_apply(const reducer_t *r, const void *in, void *inout, size_t count)
{
    if (likely(r->kernel != NULL)) {
        r->kernel(in, inout, count);
        return;
    }
    MPI_Datatype dt = r->dtype;
    MPI_Fint fdt = r->op->fortran ? MPI_Type_c2f(dt) : 0;
    if (r->op->large) { /* one call, whatever the count */
        MPI_Count len = (MPI_Count)count;
        if (r->op->fortran) /* mpi_f08's MPI_User_function_c: the datatype's INTEGER */
            ((void (*)(void *, void *, MPI_Count *, MPI_Fint *))(void (*)(void))r->user)(
                (void *)in, inout, &len, &fdt);
        else
            ((MPI_User_function_c *)(void (*)(void))r->user)((void *)in, inout, &len, &dt);
        return;
    }
    while (count) { /* the user function takes an int count */
        int len = count > INT_MAX ? INT_MAX : (int)count;
        if (r->op->fortran)
            ((void (*)(void *, void *, int *, MPI_Fint *))(void (*)(void))r->user)((void *)in, inout,
                                                                                  &len, &fdt);
        else
            r->user((void *)in, inout, &len, &dt);
        in = (const char *)in + (size_t)len * r->extent;
        inout = (char *)inout + (size_t)len * r->extent;
        count -= (size_t)len;
    }
}

void op_hold(struct MPI_ABI_Op *op)
{
    if (op->user)
        mpid_ref_add(&op->refs, 1);
}

void op_release(struct MPI_ABI_Op *op)
{
    if (op->user && mpid_ref_add(&op->refs, -1) == 0) {
        op->magic = 0;
        free(op);
    }
}

/* ---- for one-sided accumulates (rma/win_ops.c) ------------------------------ */

kernel_fn *op_kernel(MPI_Op op, MPI_Datatype basic)
{
    uintptr_t v = (uintptr_t)op, t = (uintptr_t)basic;
    if (v - 0x20 >= 32 || t - 0x200 >= 0x100)
        return NULL;
    const struct MPI_ABI_Op *o = &mpir_op_predef[v & 31];
    uint8_t cls = type_of[t & 0xff].cls;
    if (o->magic != MAGIC_OP || cls == T_NONE || !(o->refs & CL(cls)))
        return NULL;
    return o->kernels[type_of[t & 0xff].ct];
}

/* op.c's C types as the channel's accumulate element types (-1: none). */
static const signed char skf_type_of[] = {
    [I8] = SKF_T_I8,   [U8] = SKF_T_U8,   [I16] = SKF_T_I16, [U16] = SKF_T_U16,
    [I32] = SKF_T_I32, [U32] = SKF_T_U32, [I64] = SKF_T_I64, [U64] = SKF_T_U64,
    [I128] = -1,       [F32] = SKF_T_F32, [F64] = SKF_T_F64,
};

int op_skf_type(MPI_Datatype basic)
{
    uintptr_t t = (uintptr_t)basic;
    if (t - 0x200 >= 0x100)
        return -1;
    uint8_t cls = type_of[t & 0xff].cls, ct = type_of[t & 0xff].ct;
    if (!(cls == T_INT || cls == T_BYTE || cls == T_FLOAT) || ct > F64)
        return -1;
    return skf_type_of[ct];
}

int op_type_class(MPI_Datatype basic, int *is_signed)
{
    uintptr_t t = (uintptr_t)basic;
    if (t - 0x200 >= 0x100)
        return 0;
    uint8_t ct = type_of[t & 0xff].ct;
    if (is_signed)
        *is_signed = ct == I8 || ct == I16 || ct == I32 || ct == I64 || ct == I128;
    switch (type_of[t & 0xff].cls) {
    case T_INT:
        return OPC_INT;
    case T_BOOL:
    case T_BYTE:
        return OPC_BITS;
    case T_NONE:
        return 0;
    default:
        return OPC_OTHER;
    }
}
