/*
 * type.c — datatype constructors, commit/free/dup, names, envelope/contents
 * and the size and bound queries (MPI_Type_*).  The engine is datatype/.
 */
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"
#include "datatype/dtype.h"

#define MAX_DIMS 32

/* Resolve the old type of a constructor. */
static int old_type(const char *fn, MPI_Datatype h, struct MPI_ABI_Datatype **d)
{
    return dt_check(fn, h, d);
}

static int bad_count(const char *fn, const char *what, long long v)
{
    return mpir_error(NULL, MPI_ERR_COUNT, "%s: invalid %s %lld (must be >= 0)", fn, what, v);
}

static int null_arg(const char *fn, const char *what)
{
    return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL %s", fn, what);
}

/* Create and hand out the new type. */
static int publish(const char *fn, struct MPI_ABI_Datatype *d, int err, MPI_Datatype *out)
{
    if (!d)
        return mpir_error(NULL, err, "%s: cannot build the type (%s)", fn, mpir_class_string(err));
    *out = (MPI_Datatype)d;
    return MPI_SUCCESS;
}

static int make(const char *fn, int combiner, int ni, const int *ints, int na,
                const MPI_Aint *aints, int nd, struct MPI_ABI_Datatype *const *types,
                MPI_Datatype *out)
{
    int err = 0;
    return publish(fn, dt_create(combiner, ni, ints, na, aints, nd, types, &err), err, out);
}

/* What every constructor checks first: MPI is up, the old type, the output. */
static int prologue(const char *fn, MPI_Datatype oldtype, struct MPI_ABI_Datatype **o,
                    const MPI_Datatype *newtype)
{
    CHECK_INIT(fn);
    int rc = old_type(fn, oldtype, o);
    if (!rc && !newtype)
        rc = null_arg(fn, "newtype");
    return rc;
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_contiguous";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    if (count < 0)
        return bad_count(fn, "count", count);
    return make(fn, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &o, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_vector";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    if (count < 0 || blocklength < 0)
        return bad_count(fn, count < 0 ? "count" : "blocklength", count < 0 ? count : blocklength);
    int ints[3] = {count, blocklength, stride};
    return make(fn, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 1, &o, newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hvector";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    if (count < 0 || blocklength < 0)
        return bad_count(fn, count < 0 ? "count" : "blocklength", count < 0 ? count : blocklength);
    int ints[2] = {count, blocklength};
    return make(fn, MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 1, &o, newtype);
}

/* Block lengths must be >= 0; arrays must exist when count > 0. */
static int check_blocks(const char *fn, int count, const int *bl, int nbl, const void *disps)
{
    if (count < 0)
        return bad_count(fn, "count", count);
    if (count > 0 && (!bl || !disps))
        return null_arg(fn, "array argument");
    for (int i = 0; i < nbl; i++)
        if (bl[i] < 0)
            return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid blocklength %d at index %d", fn,
                              bl[i], i);
    return 0;
}

/* ints = {count, a[0..na), b[0..nb)} */
static int *pack_ints(int count, const int *a, int na, const int *b, int nb, int *n)
{
    *n = 1 + na + nb;
    int *v = malloc((size_t)*n * sizeof *v);
    if (!v)
        return NULL;
    v[0] = count;
    if (na)
        memcpy(v + 1, a, (size_t)na * sizeof *v);
    if (nb)
        memcpy(v + 1 + na, b, (size_t)nb * sizeof *v);
    return v;
}

static int make_indexed(const char *fn, int combiner, int count, const int *a, int na,
                        const int *b, int nb, const MPI_Aint *aints, int naints,
                        struct MPI_ABI_Datatype **types, int nd, MPI_Datatype *newtype)
{
    int ni;
    int *ints = pack_ints(count, a, na, b, nb, &ni);
    if (!ints)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory (count %d)", fn, count);
    int rc = make(fn, combiner, ni, ints, naints, aints, nd, types, newtype);
    free(ints);
    return rc;
}

int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_indexed";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_blocks(fn, count, blocklengths, count, displacements)))
        return rc;
    return make_indexed(fn, MPI_COMBINER_INDEXED, count, blocklengths, count, displacements, count,
                        NULL, 0, &o, 1, newtype);
}

int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hindexed";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_blocks(fn, count, blocklengths, count, displacements)))
        return rc;
    return make_indexed(fn, MPI_COMBINER_HINDEXED, count, blocklengths, count, NULL, 0,
                        displacements, count, &o, 1, newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_indexed_block";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_blocks(fn, count, &blocklength, 1, displacements)))
        return rc;
    return make_indexed(fn, MPI_COMBINER_INDEXED_BLOCK, count, &blocklength, 1, displacements,
                        count, NULL, 0, &o, 1, newtype);
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_hindexed_block";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_blocks(fn, count, &blocklength, 1, displacements)))
        return rc;
    return make_indexed(fn, MPI_COMBINER_HINDEXED_BLOCK, count, &blocklength, 1, NULL, 0,
                        displacements, count, &o, 1, newtype);
}

int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_struct";
    CHECK_INIT(fn);
    int rc;
    if ((rc = check_blocks(fn, count, blocklengths, count, displacements)))
        return rc;
    if (count > 0 && !types)
        return null_arg(fn, "types");
    if (!newtype)
        return null_arg(fn, "newtype");
    struct MPI_ABI_Datatype **t = malloc((size_t)(count ? count : 1) * sizeof *t);
    if (!t)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory (count %d)", fn, count);
    for (int i = 0; i < count; i++)
        if ((rc = old_type(fn, types[i], &t[i]))) {
            free(t);
            return rc;
        }
    rc = make_indexed(fn, MPI_COMBINER_STRUCT, count, blocklengths, count, NULL, 0, displacements,
                      count, t, count, newtype);
    free(t);
    return rc;
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_resized";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    MPI_Aint a[2] = {lb, extent};
    return make(fn, MPI_COMBINER_RESIZED, 0, NULL, 2, a, 1, &o, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_dup";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    if ((rc = make(fn, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &o, newtype)))
        return rc;
    struct MPI_ABI_Datatype *d = (struct MPI_ABI_Datatype *)*newtype;
    d->magic = o->magic; /* a duplicate of a committed type is committed */
    if ((rc = mpir_attr_type_copy(o, d))) {
        dt_release(d);
        *newtype = MPI_DATATYPE_NULL;
        return rc;
    }
    return MPI_SUCCESS;
}

static int check_array_args(const char *fn, int ndims, const int *a, const int *b, const int *c,
                            int order)
{
    if (ndims <= 0 || ndims > MAX_DIMS)
        return mpir_error(NULL, MPI_ERR_DIMS, "%s: invalid ndims %d (1..%d)", fn, ndims, MAX_DIMS);
    if (!a || !b || !c)
        return null_arg(fn, "array argument");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid order %d", fn, order);
    return 0;
}

int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                             const int starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_subarray";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_array_args(fn, ndims, sizes, subsizes, starts, order)))
        return rc;
    for (int i = 0; i < ndims; i++)
        if (sizes[i] <= 0 || subsizes[i] < 0 || subsizes[i] > sizes[i] || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i])
            return mpir_error(NULL, MPI_ERR_ARG,
                              "%s: dimension %d: size %d, subsize %d, start %d do not fit", fn, i,
                              sizes[i], subsizes[i], starts[i]);
    int err = 0;
    return publish(fn, dt_create_subarray(ndims, sizes, subsizes, starts, order, o, &err), err,
                   newtype);
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                           const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_darray";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_array_args(fn, ndims, gsizes, distribs, dargs, order)))
        return rc;
    if (!psizes)
        return null_arg(fn, "psizes");
    long long procs = 1;
    for (int i = 0; i < ndims; i++) {
        int dist = distribs[i], darg = dargs[i];
        if (gsizes[i] <= 0 || psizes[i] <= 0 ||
            (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
             dist != MPI_DISTRIBUTE_NONE) ||
            (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0) ||
            (dist == MPI_DISTRIBUTE_NONE && psizes[i] != 1) ||
            (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
             (long long)darg * psizes[i] < gsizes[i]))
            return mpir_error(NULL, MPI_ERR_ARG,
                              "%s: dimension %d: gsize %d, distrib %d, darg %d, psize %d are "
                              "inconsistent",
                              fn, i, gsizes[i], dist, darg, psizes[i]);
        procs *= psizes[i];
    }
    if (procs != size || rank < 0 || rank >= size)
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: process grid of %lld does not match size %d (rank %d)", fn, procs,
                          size, rank);
    int err = 0;
    return publish(fn,
                   dt_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, o,
                                    &err),
                   err, newtype);
}

int MPI_Type_commit(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_commit";
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc;
    if (!datatype)
        return null_arg(fn, "datatype");
    if ((rc = dt_check(fn, *datatype, &d)))
        return rc;
    d->magic = MAGIC_DTYPE;
    return MPI_SUCCESS;
}

int MPI_Type_free(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_free";
    CHECK_INIT(fn);
    struct MPI_ABI_Datatype *d;
    int rc;
    if (!datatype)
        return null_arg(fn, "datatype");
    if ((rc = dt_check(fn, *datatype, &d)))
        return rc;
    if (!dt_is_derived(d))
        return mpir_error(NULL, MPI_ERR_TYPE, "%s: cannot free predefined datatype %s", fn,
                          d->name);
    if ((rc = mpir_attr_type_free(d)))
        return rc;
    dt_release(d); /* types built on it, and get_contents handles, keep it alive */
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

int MPI_Type_set_name(MPI_Datatype datatype, const char *name)
{
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = dt_check("MPI_Type_set_name", datatype, &d)))
        return rc;
    if (!name)
        return null_arg("MPI_Type_set_name", "name");
    size_t n = strlen(name);
    if (n >= MPI_MAX_OBJECT_NAME)
        n = MPI_MAX_OBJECT_NAME - 1;
    memcpy(d->rep->name, name, n);
    d->rep->name[n] = '\0';
    return MPI_SUCCESS;
}

int MPI_Type_get_name(MPI_Datatype datatype, char *name, int *resultlen)
{
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = dt_check("MPI_Type_get_name", datatype, &d)))
        return rc;
    if (!name || !resultlen)
        return null_arg("MPI_Type_get_name", "name or resultlen");
    strcpy(name, d->rep->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = dt_check("MPI_Type_get_envelope", datatype, &d)))
        return rc;
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        return null_arg("MPI_Type_get_envelope", "output argument");
    const struct dtype_rep *t = d->rep;
    *num_integers = t->ni;
    *num_addresses = t->na;
    *num_datatypes = t->nd;
    *combiner = t->combiner;
    return MPI_SUCCESS;
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int integers[], MPI_Aint addresses[],
                          MPI_Datatype datatypes[])
{
    static const char fn[] = "MPI_Type_get_contents";
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = dt_check(fn, datatype, &d)))
        return rc;
    const struct dtype_rep *t = d->rep;
    if (t->combiner == MPI_COMBINER_NAMED)
        return mpir_error(NULL, MPI_ERR_TYPE, "%s: %s is a named predefined type", fn, d->name);
    if (max_integers < t->ni || max_addresses < t->na || max_datatypes < t->nd)
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: arrays too small (%d/%d/%d given, %d/%d/%d needed)", fn,
                          max_integers, max_addresses, max_datatypes, t->ni, t->na, t->nd);
    if ((t->ni && !integers) || (t->na && !addresses) || (t->nd && !datatypes))
        return null_arg(fn, "array argument");
    if (t->ni)
        memcpy(integers, t->ints, (size_t)t->ni * sizeof *integers);
    if (t->na)
        memcpy(addresses, t->aints, (size_t)t->na * sizeof *addresses);
    for (int i = 0; i < t->nd; i++) {
        struct MPI_ABI_Datatype *s = t->types[i];
        if (dt_is_derived(s)) {
            dt_retain(s); /* a new handle the caller frees */
            datatypes[i] = (MPI_Datatype)s;
        } else {
            datatypes[i] = (MPI_Datatype)(uintptr_t)(0x200 + (s - mpir_dtype_predef));
        }
    }
    return MPI_SUCCESS;
}

/* ---- sizes and bounds ---------------------------------------------------------- */
#define QUERY(fn, h, d)                                                                            \
    struct MPI_ABI_Datatype *d;                                                                    \
    do {                                                                                           \
        int rc_ = dt_check(fn, h, &d);                                                             \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
    } while (0)

static int clamp_int(int64_t v) { return v > 0x7fffffff || v < -0x7fffffff ? MPI_UNDEFINED : (int)v; }

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    QUERY("MPI_Type_size", datatype, d);
    if (!size)
        return null_arg("MPI_Type_size", "size");
    *size = clamp_int((int64_t)d->size);
    return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    QUERY("MPI_Type_size_x", datatype, d);
    if (!size)
        return null_arg("MPI_Type_size_x", "size");
    *size = (MPI_Count)d->size;
    return MPI_SUCCESS;
}

/* lb and extent, or (true_ != 0) true lb and true extent, of a datatype. */
static int bounds(const char *fn, MPI_Datatype h, int true_, const void *a, const void *b,
                  int64_t *lb, int64_t *extent)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check(fn, h, &d);
    if (rc)
        return rc;
    if (!a || !b)
        return null_arg(fn, "output argument");
    const struct dtype_rep *t = d->rep;
    *lb = true_ ? t->true_lb : t->lb;
    *extent = true_ ? t->true_ub - t->true_lb : d->extent;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    int64_t l = 0, e = 0;
    int rc = bounds("MPI_Type_get_extent", datatype, 0, lb, extent, &l, &e);
    if (!rc)
        *lb = (MPI_Aint)l, *extent = (MPI_Aint)e;
    return rc;
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return bounds("MPI_Type_get_extent_x", datatype, 0, lb, extent, lb, extent);
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    int64_t l = 0, e = 0;
    int rc = bounds("MPI_Type_get_true_extent", datatype, 1, true_lb, true_extent, &l, &e);
    if (!rc)
        *true_lb = (MPI_Aint)l, *true_extent = (MPI_Aint)e;
    return rc;
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return bounds("MPI_Type_get_true_extent_x", datatype, 1, true_lb, true_extent, true_lb,
                  true_extent);
}
