/*
 * datatype.c — the table of predefined datatypes (indexed by handle value -
 * 0x200) and the calls that only need sizes: Type_size, Type_get_extent,
 * Get_count, Get_elements, Status_set_elements.
 *
 * The pair types (MPI_DOUBLE_INT, ...) are C structs: their extent includes
 * padding, their size does not; a message carries count * extent bytes.
 */
#include "binding/check.h"

#define PAIR(a, b) struct { a x; b y; }
#define DT(val, type, nm) [(val) & 0xff] = {MAGIC_DTYPE, sizeof(type), sizeof(type), 1, nm}
#define DTP(val, a, b, nm)                                                                 \
    [(val) & 0xff] = {MAGIC_DTYPE, sizeof(a) + sizeof(b), sizeof(PAIR(a, b)), 1, nm}

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
};

static int64_t status_bytes(const MPI_Status *st)
{
    return (int64_t)(((uint64_t)(uint32_t)st->MPI_internal[1] << 32) |
                     (uint32_t)st->MPI_internal[0]);
}

static int lookup(const char *fn, MPI_Datatype dt, struct MPI_ABI_Datatype **d)
{
    return check_dtype(fn, NULL, dt, d);
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    struct MPI_ABI_Datatype *d;
    int rc = lookup("MPI_Type_size", datatype, &d);
    if (rc)
        return rc;
    if (!size)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Type_size: NULL size");
    *size = (int)d->size;
    return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    struct MPI_ABI_Datatype *d;
    int rc = lookup("MPI_Type_size_x", datatype, &d);
    if (rc)
        return rc;
    if (!size)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Type_size_x: NULL size");
    *size = d->size;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    struct MPI_ABI_Datatype *d;
    int rc = lookup("MPI_Type_get_extent", datatype, &d);
    if (rc)
        return rc;
    if (!lb || !extent)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Type_get_extent: NULL argument");
    *lb = 0;
    *extent = (MPI_Aint)d->extent;
    return MPI_SUCCESS;
}

/* Elements of d in the status; MPI_UNDEFINED if the bytes are not whole elements. */
static MPI_Count count_of(const MPI_Status *st, const struct MPI_ABI_Datatype *d)
{
    int64_t bytes = status_bytes(st);
    if (d->extent == 0)
        return bytes == 0 ? 0 : MPI_UNDEFINED;
    return bytes % d->extent ? MPI_UNDEFINED : bytes / d->extent;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    struct MPI_ABI_Datatype *d;
    int rc = lookup("MPI_Get_count", datatype, &d);
    if (rc)
        return rc;
    if (!status || !count)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Get_count: NULL argument");
    MPI_Count n = count_of(status, d);
    *count = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    struct MPI_ABI_Datatype *d;
    int rc = lookup("MPI_Get_elements_x", datatype, &d);
    if (rc)
        return rc;
    if (!status || !count)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Get_elements_x: NULL argument");
    MPI_Count n = count_of(status, d);
    int pair = d->size != d->extent || ((uintptr_t)datatype & 0xff) == 0x2b; /* MPI_2INT */
    *count = n == MPI_UNDEFINED ? MPI_UNDEFINED : pair ? 2 * n : n;
    return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n;
    int rc = MPI_Get_elements_x(status, datatype, &n);
    if (rc == MPI_SUCCESS)
        *count = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return rc;
}

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    struct MPI_ABI_Datatype *d;
    int rc = lookup("MPI_Status_set_elements_x", datatype, &d);
    if (rc)
        return rc;
    if (!status || count < 0)
        return mpir_error(NULL, !status ? MPI_ERR_ARG : MPI_ERR_COUNT,
                          "MPI_Status_set_elements: invalid status or count %lld", (long long)count);
    int64_t bytes = count * d->extent;
    status->MPI_internal[0] = (int)(bytes & 0xffffffff);
    status->MPI_internal[1] = (int)(bytes >> 32);
    return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return MPI_Status_set_elements_x(status, datatype, count);
}
