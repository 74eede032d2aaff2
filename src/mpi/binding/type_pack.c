/*
 * type_pack.c — MPI_Pack/Unpack/Pack_size, the external32 forms, addresses
 * (Get_address, Aint_add/diff), and counts from a status (Get_count,
 * Get_elements, Status_set_elements).  A status records the bytes received
 * (packed form), so counts are bytes over the type's size.
 */
#include <limits.h>
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

static int pack_args(const char *fn, MPI_Count count, MPI_Datatype dt, MPI_Count size,
                     const MPI_Count *position, MPI_Comm comm, struct MPI_ABI_Datatype **d)
{
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm(fn, comm, &c)) || (rc = dt_check(fn, dt, d)))
        return rc;
    if (count < 0 || size < 0)
        return mpir_error(c, MPI_ERR_COUNT, "%s: invalid count %lld or buffer size %lld", fn,
                          (long long)count, (long long)size);
    if (!position || *position < 0)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid position", fn);
    return 0;
}

/* Pack (unpack = 0) or unpack count elements; *position in bytes.  The int
 * forms widen their arguments into this one body. */
static int pack_any(const char *fn, int unpack, const void *packed_or_in, MPI_Count bufsize,
                    MPI_Count *position, void *typed, MPI_Count count, MPI_Datatype datatype,
                    MPI_Comm comm)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc = pack_args(fn, count, datatype, bufsize, position, comm, &d);
    if (rc)
        return rc;
    size_t n = dt_packed_size(d, count);
    if ((size_t)*position + n > (size_t)bufsize)
        return mpir_error(comm_of(comm), MPI_ERR_TRUNCATE,
                          "%s: %zu bytes %s at position %lld of a %lld-byte buffer", fn, n,
                          unpack ? "wanted" : "do not fit", (long long)*position,
                          (long long)bufsize);
    dt_copy(d, typed, count, 0, (char *)packed_or_in + *position, n, unpack);
    *position += (MPI_Count)n;
    return MPI_SUCCESS;
}

/* The int forms' position, carried through an MPI_Count. */
static int pack_int(const char *fn, int unpack, const void *packed, int bufsize, int *position,
                    void *typed, int count, MPI_Datatype datatype, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = pack_any(fn, unpack, packed, bufsize, position ? &pos : NULL, typed, count, datatype,
                      comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos; /* <= bufsize, an int */
    return rc;
}

int MPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
             int *position, MPI_Comm comm)
{
    return pack_int("MPI_Pack", 0, outbuf, outsize, position, (void *)inbuf, incount, datatype,
                    comm);
}

int MPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
               MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    return pack_any("MPI_Pack_c", 0, outbuf, outsize, position, (void *)inbuf, incount, datatype,
                    comm);
}

int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
               MPI_Datatype datatype, MPI_Comm comm)
{
    return pack_int("MPI_Unpack", 1, inbuf, insize, position, outbuf, outcount, datatype, comm);
}

int MPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                 MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    return pack_any("MPI_Unpack_c", 1, inbuf, insize, position, outbuf, outcount, datatype, comm);
}

static int pack_size(const char *fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
                     MPI_Count limit, MPI_Count *size)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_comm(fn, comm, &c)) || (rc = dt_check(fn, datatype, &d)))
        return rc;
    if (incount < 0 || !size)
        return mpir_error(c, incount < 0 ? MPI_ERR_COUNT : MPI_ERR_ARG,
                          "%s: invalid count %lld or NULL size", fn, (long long)incount);
    size_t n = dt_packed_size(d, incount);
    if (n > (size_t)limit || (incount && n / (size_t)incount != d->size))
        return mpir_error(c, MPI_ERR_VALUE_TOO_LARGE,
                          "%s: %lld elements of %s (%llu bytes each) do not fit the size argument",
                          fn, (long long)incount, d->name ? d->name : "the type",
                          (unsigned long long)d->size);
    *size = (MPI_Count)n;
    return MPI_SUCCESS;
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count n;
    int rc = pack_size("MPI_Pack_size", incount, datatype, comm, INT_MAX, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = (int)n;
    return rc;
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, INT64_MAX, size);
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

static int do_pack_external(const char *fn, const char datarep[], const void *inbuf,
                            MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                            MPI_Count outsize, MPI_Count *position)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_datarep(fn, datarep)) || (rc = dt_check(fn, datatype, &d)))
        return rc;
    if (incount < 0 || outsize < 0 || !position || *position < 0)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %lld, size or position", fn,
                          (long long)incount);
    size_t pos = (size_t)*position;
    if ((rc = dt_pack_external(d, inbuf, incount, outbuf, (size_t)outsize, &pos)))
        return external_error(fn, rc, d);
    *position = (MPI_Aint)pos;
    return MPI_SUCCESS;
}

int MPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype,
                      void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    return do_pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf,
                            outsize, position);
}

int MPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                        MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                        MPI_Count *position)
{
    return do_pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf,
                            outsize, position);
}

static int do_unpack_external(const char *fn, const char datarep[], const void *inbuf,
                              MPI_Count insize, MPI_Count *position, void *outbuf,
                              MPI_Count outcount, MPI_Datatype datatype)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_datarep(fn, datarep)) || (rc = dt_check(fn, datatype, &d)))
        return rc;
    if (outcount < 0 || insize < 0 || !position || *position < 0)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %lld, size or position", fn,
                          (long long)outcount);
    size_t pos = (size_t)*position;
    if ((rc = dt_unpack_external(d, outbuf, outcount, inbuf, (size_t)insize, &pos)))
        return external_error(fn, rc, d);
    *position = (MPI_Aint)pos;
    return MPI_SUCCESS;
}

int MPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                        MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    return do_unpack_external("MPI_Unpack_external", datarep, inbuf, insize, position, outbuf,
                              outcount, datatype);
}

int MPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                          MPI_Count *position, void *outbuf, MPI_Count outcount,
                          MPI_Datatype datatype)
{
    return do_unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf,
                              outcount, datatype);
}

static int do_pack_external_size(const char *fn, const char datarep[], MPI_Count incount,
                                 MPI_Datatype datatype, MPI_Count *size)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_datarep(fn, datarep)) || (rc = dt_check(fn, datatype, &d)))
        return rc;
    if (incount < 0 || !size)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %lld or NULL size", fn,
                          (long long)incount);
    *size = (MPI_Aint)(incount * dt_external32_size(d));
    return MPI_SUCCESS;
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                           MPI_Aint *size)
{
    return do_pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size);
}

int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype,
                             MPI_Count *size)
{
    return do_pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size);
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
static int get_count(const char *fn, const MPI_Status *status, MPI_Datatype datatype,
                     MPI_Count *count)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check(fn, datatype, &d);
    if (rc)
        return rc;
    if (!status || !count)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL argument", fn);
    int64_t bytes = status_bytes(status);
    *count = d->size == 0 ? 0 : bytes % (int64_t)d->size ? MPI_UNDEFINED : bytes / (int64_t)d->size;
    return MPI_SUCCESS;
}

/* An int form's count: MPI_UNDEFINED when it does not fit (the standard's rule). */
static int int_count(int rc, const MPI_Count *n, int *count)
{
    if (rc == MPI_SUCCESS)
        *count = *n > INT_MAX ? MPI_UNDEFINED : (int)*n;
    return rc;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n = 0;
    int rc = get_count("MPI_Get_count", status, datatype, count ? &n : NULL);
    return int_count(rc, &n, count);
}

int MPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_count("MPI_Get_count_c", status, datatype, count);
}

static int get_elements(const char *fn, const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check(fn, datatype, &d);
    if (rc)
        return rc;
    if (!status || !count)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL argument", fn);
    *count = dt_elements(d, status_bytes(status));
    return MPI_SUCCESS;
}

int MPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_elements("MPI_Get_elements_x", status, datatype, count);
}

int MPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return get_elements("MPI_Get_elements_c", status, datatype, count);
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n = 0;
    int rc = get_elements("MPI_Get_elements", status, datatype, count ? &n : NULL);
    return int_count(rc, &n, count);
}

static int set_elements(const char *fn, MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count count)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check(fn, datatype, &d);
    if (rc)
        return rc;
    if (!status || count < 0)
        return mpir_error(NULL, !status ? MPI_ERR_ARG : MPI_ERR_COUNT,
                          "%s: invalid status or count %lld", fn, (long long)count);
    status_set_bytes(status, dt_bytes_of_elements(d, count));
    return MPI_SUCCESS;
}

int MPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int MPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

int MPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}
