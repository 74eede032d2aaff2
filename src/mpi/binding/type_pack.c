/*
 * type_pack.c — MPI_Pack/Unpack/Pack_size, the external32 forms, addresses
 * (Get_address, Aint_add/diff), and counts from a status (Get_count,
 * Get_elements, Status_set_elements).  A status records the bytes received
 * (packed form), so counts are bytes over the type's size.
 */
#include <string.h>

#include "binding/check.h"
#include "datatype/dtype.h"

static int64_t status_bytes(const MPI_Status *st)
{
    return (int64_t)(((uint64_t)(uint32_t)st->MPI_internal[1] << 32) |
                     (uint32_t)st->MPI_internal[0]);
}

static void status_set_bytes(MPI_Status *st, int64_t bytes)
{
    st->MPI_internal[0] = (int)(bytes & 0xffffffff);
    st->MPI_internal[1] = (int)(bytes >> 32);
}

static int pack_args(const char *fn, int count, MPI_Datatype dt, int size, const int *position,
                     MPI_Comm comm, struct MPI_ABI_Datatype **d)
{
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm(fn, comm, &c)) || (rc = dt_check(fn, dt, d)))
        return rc;
    if (count < 0 || size < 0)
        return mpir_error(c, MPI_ERR_COUNT, "%s: invalid count %d or buffer size %d", fn, count,
                          size);
    if (!position || *position < 0)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid position", fn);
    return 0;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm)
{
    static const char fn[] = "MPI_Pack";
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc = pack_args(fn, incount, datatype, outsize, position, comm, &d);
    if (rc)
        return rc;
    size_t n = dt_packed_size(d, incount);
    if ((size_t)*position + n > (size_t)outsize)
        return mpir_error(comm_of(comm), MPI_ERR_TRUNCATE,
                          "%s: %zu bytes do not fit at position %d of a %d-byte buffer", fn, n,
                          *position, outsize);
    dt_copy(d, inbuf, incount, 0, (char *)outbuf + *position, n, 0);
    *position += (int)n;
    return MPI_SUCCESS;
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm)
{
    static const char fn[] = "MPI_Unpack";
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc = pack_args(fn, outcount, datatype, insize, position, comm, &d);
    if (rc)
        return rc;
    size_t n = dt_packed_size(d, outcount);
    if ((size_t)*position + n > (size_t)insize)
        return mpir_error(comm_of(comm), MPI_ERR_TRUNCATE,
                          "%s: %zu bytes wanted at position %d of a %d-byte buffer", fn, n,
                          *position, insize);
    dt_copy(d, outbuf, outcount, 0, (char *)inbuf + *position, n, 1);
    *position += (int)n;
    return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    static const char fn[] = "MPI_Pack_size";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_comm(fn, comm, &c)) || (rc = dt_check(fn, datatype, &d)))
        return rc;
    if (incount < 0 || !size)
        return mpir_error(c, incount < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG,
                          "%s: invalid count %d or NULL size", fn, incount);
    size_t n = dt_packed_size(d, incount);
    if (n > 0x7fffffff)
        return mpir_error(c, MPI_ERR_VALUE_TOO_LARGE, "%s: %zu bytes do not fit an int", fn, n);
    *size = (int)n;
    return MPI_SUCCESS;
}

static int check_datarep(const char *fn, const char *datarep)
{
    if (!datarep || strcmp(datarep, "external32") != 0)
        return mpir_error(NULL, MPI_ERR_UNSUPPORTED_DATAREP,
                          "%s: data representation \"%s\" (only \"external32\")", fn,
                          datarep ? datarep : "(null)");
    return 0;
}

static int external_error(const char *fn, int rc, struct MPI_ABI_Datatype *d)
{
    return mpir_error(NULL, rc, "%s: %s with datatype %s", fn,
                      rc == MPI_ERR_TRUNCATE     ? "buffer too small"
                      : rc == MPI_ERR_CONVERSION ? "a value does not fit its external32 size"
                                                 : "type without an external32 form",
                      d->name);
}

int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    static const char fn[] = "MPI_Pack_external";
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_datarep(fn, datarep)) || (rc = dt_check(fn, datatype, &d)))
        return rc;
    if (incount < 0 || outsize < 0 || !position || *position < 0)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %d, size or position", fn,
                          incount);
    size_t pos = (size_t)*position;
    if ((rc = dt_pack_external(d, inbuf, incount, outbuf, (size_t)outsize, &pos)))
        return external_error(fn, rc, d);
    *position = (MPI_Aint)pos;
    return MPI_SUCCESS;
}

int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    static const char fn[] = "MPI_Unpack_external";
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_datarep(fn, datarep)) || (rc = dt_check(fn, datatype, &d)))
        return rc;
    if (outcount < 0 || insize < 0 || !position || *position < 0)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %d, size or position", fn,
                          outcount);
    size_t pos = (size_t)*position;
    if ((rc = dt_unpack_external(d, outbuf, outcount, inbuf, (size_t)insize, &pos)))
        return external_error(fn, rc, d);
    *position = (MPI_Aint)pos;
    return MPI_SUCCESS;
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint *size)
{
    static const char fn[] = "MPI_Pack_external_size";
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_datarep(fn, datarep)) || (rc = dt_check(fn, datatype, &d)))
        return rc;
    if (incount < 0 || !size)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %d or NULL size", fn, incount);
    *size = (MPI_Aint)(incount * dt_external32_size(d));
    return MPI_SUCCESS;
}

/* ---- addresses ----------------------------------------------------------------- */
int MPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Get_address: NULL address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}

/* ---- counts from a status ---------------------------------------------------------- */
int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check("MPI_Get_count", datatype, &d);
    if (rc)
        return rc;
    if (!status || !count)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Get_count: NULL argument");
    int64_t bytes = status_bytes(status);
    int64_t n = d->size == 0 ? 0 : bytes % (int64_t)d->size ? MPI_UNDEFINED : bytes / (int64_t)d->size;
    *count = n > 0x7fffffff ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check("MPI_Get_elements_x", datatype, &d);
    if (rc)
        return rc;
    if (!status || !count)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Get_elements_x: NULL argument");
    *count = dt_elements(d, status_bytes(status));
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
    int rc = dt_check("MPI_Status_set_elements_x", datatype, &d);
    if (rc)
        return rc;
    if (!status || count < 0)
        return mpir_error(NULL, !status ? MPI_ERR_ARG : MPI_ERR_COUNT,
                          "MPI_Status_set_elements: invalid status or count %lld",
                          (long long)count);
    status_set_bytes(status, dt_bytes_of_elements(d, count));
    return MPI_SUCCESS;
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return MPI_Status_set_elements_x(status, datatype, count);
}
