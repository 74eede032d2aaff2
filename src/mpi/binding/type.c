/*
 * type.c — datatype constructors, commit/free/dup, names, envelope/contents
 * and the size and bound queries (MPI_Type_*).  The engine is datatype/.
 */
#include <limits.h>
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

/* An array argument of an int constructor (int[]) or of its _c twin
 * (MPI_Count[]): one body reads both. */
typedef struct counts {
    const void *p;
    int wide;
} counts_t;
#define INTS(a) ((counts_t){(a), 0})
#define WIDE(a) ((counts_t){(a), 1})

static inline int64_t at(counts_t a, int64_t i)
{
    return a.wide ? ((const MPI_Count *)a.p)[i] : ((const int *)a.p)[i];
}

static int make(const char *fn, int large, int combiner, int ni, const int64_t *ints, int na,
                const MPI_Aint *aints, int nd, struct MPI_ABI_Datatype *const *types,
                MPI_Datatype *out)
{
    int err = 0, rc;
    struct MPI_ABI_Datatype *d = dt_create(combiner, ni, ints, na, aints, nd, types, &err);
    if ((rc = publish(fn, d, err, out)) == MPI_SUCCESS)
        d->rep->large = large;
    return rc;
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

static int contiguous(const char *fn, int large, MPI_Count count, MPI_Datatype oldtype,
                      MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    if (count < 0)
        return bad_count(fn, "count", count);
    int64_t ints[1] = {count};
    return make(fn, large, MPI_COMBINER_CONTIGUOUS, 1, ints, 0, NULL, 1, &o, newtype);
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous", 0, count, oldtype, newtype);
}

int MPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous_c", 1, count, oldtype, newtype);
}

/* vector (stride in elements of oldtype) and hvector (stride in bytes) */
static int vector(const char *fn, int large, int combiner, MPI_Count count, MPI_Count blocklength,
                  MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    if (count < 0 || blocklength < 0)
        return bad_count(fn, count < 0 ? "count" : "blocklength", count < 0 ? count : blocklength);
    int64_t ints[3] = {count, blocklength, stride};
    MPI_Aint bytes = (MPI_Aint)stride;
    if (combiner == MPI_COMBINER_VECTOR)
        return make(fn, large, combiner, 3, ints, 0, NULL, 1, &o, newtype);
    return make(fn, large, combiner, 2, ints, 1, &bytes, 1, &o, newtype);
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype,
                    MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector", 0, MPI_COMBINER_VECTOR, count, blocklength, stride, oldtype,
                  newtype);
}

int MPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector_c", 1, MPI_COMBINER_VECTOR, count, blocklength, stride, oldtype,
                  newtype);
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector", 0, MPI_COMBINER_HVECTOR, count, blocklength, stride,
                  oldtype, newtype);
}

int MPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                              MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector_c", 1, MPI_COMBINER_HVECTOR, count, blocklength, stride,
                  oldtype, newtype);
}

/* Block lengths must be >= 0; arrays must exist when count > 0; the
 * arguments must fit the type's record (get_contents' int-sized lengths). */
static int check_blocks(const char *fn, MPI_Count count, counts_t bl, int64_t nbl,
                        const void *disps)
{
    if (count < 0)
        return bad_count(fn, "count", count);
    if (count > (INT_MAX - 2) / 2)
        return mpir_error(NULL, MPI_ERR_COUNT, "%s: count %lld: too many blocks", fn,
                          (long long)count);
    if (count > 0 && (!bl.p || !disps))
        return null_arg(fn, "array argument");
    for (int64_t i = 0; i < nbl; i++)
        if (at(bl, i) < 0)
            return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid blocklength %lld at index %lld", fn,
                              (long long)at(bl, i), (long long)i);
    return 0;
}

/* The indexed family: ints = {count, blocklengths (nbl of them), element
 * displacements (ndisp of them)}; byte displacements (h forms, struct) go
 * as addresses. */
static int indexed(const char *fn, int large, int combiner, MPI_Count count, counts_t bl,
                   int64_t nbl, counts_t disp, int64_t ndisp, const MPI_Aint *aints,
                   struct MPI_ABI_Datatype **types, int nd, MPI_Datatype *newtype)
{
    int64_t ni = 1 + nbl + ndisp;
    int64_t *ints = malloc((size_t)ni * sizeof *ints);
    if (!ints)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory (count %lld)", fn,
                          (long long)count);
    ints[0] = count;
    for (int64_t i = 0; i < nbl; i++)
        ints[1 + i] = at(bl, i);
    for (int64_t i = 0; i < ndisp; i++)
        ints[1 + nbl + i] = at(disp, i);
    int rc = make(fn, large, combiner, (int)ni, ints, aints ? (int)count : 0, aints, nd, types,
                  newtype);
    free(ints);
    return rc;
}

static int type_indexed(const char *fn, int large, MPI_Count count, counts_t bl, counts_t disp,
                        MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_blocks(fn, count, bl, count, disp.p)))
        return rc;
    return indexed(fn, large, MPI_COMBINER_INDEXED, count, bl, count, disp, count, NULL, &o, 1,
                   newtype);
}

int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return type_indexed("MPI_Type_indexed", 0, count, INTS(blocklengths), INTS(displacements),
                        oldtype, newtype);
}

int MPI_Type_indexed_c(MPI_Count count, const MPI_Count blocklengths[],
                       const MPI_Count displacements[], MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    return type_indexed("MPI_Type_indexed_c", 1, count, WIDE(blocklengths), WIDE(displacements),
                        oldtype, newtype);
}

static int hindexed(const char *fn, int large, MPI_Count count, counts_t bl,
                    const MPI_Aint *displacements, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_blocks(fn, count, bl, count, displacements)))
        return rc;
    return indexed(fn, large, MPI_COMBINER_HINDEXED, count, bl, count, INTS(NULL), 0,
                   displacements, &o, 1, newtype);
}

int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                             MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hindexed("MPI_Type_create_hindexed", 0, count, INTS(blocklengths), displacements,
                    oldtype, newtype);
}

int MPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count blocklengths[],
                               const MPI_Count displacements[], MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    return hindexed("MPI_Type_create_hindexed_c", 1, count, WIDE(blocklengths), displacements,
                    oldtype, newtype);
}

static int indexed_block(const char *fn, int large, MPI_Count count, MPI_Count blocklength,
                         counts_t disp, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_blocks(fn, count, WIDE(&blocklength), 1, disp.p)))
        return rc;
    return indexed(fn, large, MPI_COMBINER_INDEXED_BLOCK, count, WIDE(&blocklength), 1, disp,
                   count, NULL, &o, 1, newtype);
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return indexed_block("MPI_Type_create_indexed_block", 0, count, blocklength,
                         INTS(displacements), oldtype, newtype);
}

int MPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                    const MPI_Count displacements[], MPI_Datatype oldtype,
                                    MPI_Datatype *newtype)
{
    return indexed_block("MPI_Type_create_indexed_block_c", 1, count, blocklength,
                         WIDE(displacements), oldtype, newtype);
}

static int hindexed_block(const char *fn, int large, MPI_Count count, MPI_Count blocklength,
                          const MPI_Aint *displacements, MPI_Datatype oldtype,
                          MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_blocks(fn, count, WIDE(&blocklength), 1, displacements)))
        return rc;
    return indexed(fn, large, MPI_COMBINER_HINDEXED_BLOCK, count, WIDE(&blocklength), 1,
                   INTS(NULL), 0, displacements, &o, 1, newtype);
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return hindexed_block("MPI_Type_create_hindexed_block", 0, count, blocklength, displacements,
                          oldtype, newtype);
}

int MPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    return hindexed_block("MPI_Type_create_hindexed_block_c", 1, count, blocklength,
                          displacements, oldtype, newtype);
}

static int type_struct(const char *fn, int large, MPI_Count count, counts_t bl,
                       const MPI_Aint *displacements, const MPI_Datatype types[],
                       MPI_Datatype *newtype)
{
    CHECK_INIT(fn);
    int rc;
    if ((rc = check_blocks(fn, count, bl, count, displacements)))
        return rc;
    if (count > 0 && !types)
        return null_arg(fn, "types");
    if (!newtype)
        return null_arg(fn, "newtype");
    struct MPI_ABI_Datatype **t = malloc((size_t)(count ? count : 1) * sizeof *t);
    if (!t)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory (count %lld)", fn,
                          (long long)count);
    for (int64_t i = 0; i < count; i++)
        if ((rc = old_type(fn, types[i], &t[i]))) {
            free(t);
            return rc;
        }
    rc = indexed(fn, large, MPI_COMBINER_STRUCT, count, bl, count, INTS(NULL), 0, displacements,
                 t, (int)count, newtype);
    free(t);
    return rc;
}

int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype *newtype)
{
    return type_struct("MPI_Type_create_struct", 0, count, INTS(blocklengths), displacements,
                       types, newtype);
}

int MPI_Type_create_struct_c(MPI_Count count, const MPI_Count blocklengths[],
                             const MPI_Count displacements[], const MPI_Datatype types[],
                             MPI_Datatype *newtype)
{
    return type_struct("MPI_Type_create_struct_c", 1, count, WIDE(blocklengths), displacements,
                       types, newtype);
}

static int resized(const char *fn, int large, MPI_Datatype oldtype, MPI_Count lb,
                   MPI_Count extent, MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    MPI_Aint a[2] = {lb, extent};
    return make(fn, large, MPI_COMBINER_RESIZED, 0, NULL, 2, a, 1, &o, newtype);
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                            MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized", 0, oldtype, lb, extent, newtype);
}

int MPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                              MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized_c", 1, oldtype, lb, extent, newtype);
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_dup";
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)))
        return rc;
    if ((rc = make(fn, 0, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &o, newtype)))
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

static int check_array_args(const char *fn, int ndims, const void *a, const void *b,
                            const void *c, int order)
{
    if (ndims <= 0 || ndims > MAX_DIMS)
        return mpir_error(NULL, MPI_ERR_DIMS, "%s: invalid ndims %d (1..%d)", fn, ndims, MAX_DIMS);
    if (!a || !b || !c)
        return null_arg(fn, "array argument");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid order %d", fn, order);
    return 0;
}

static int subarray(const char *fn, int large, int ndims, counts_t sizes, counts_t subsizes,
                    counts_t starts, int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_array_args(fn, ndims, sizes.p, subsizes.p, starts.p, order)))
        return rc;
    int64_t sz[MAX_DIMS], sub[MAX_DIMS], st[MAX_DIMS];
    for (int i = 0; i < ndims; i++) {
        sz[i] = at(sizes, i), sub[i] = at(subsizes, i), st[i] = at(starts, i);
        if (sz[i] <= 0 || sub[i] < 0 || sub[i] > sz[i] || st[i] < 0 || st[i] > sz[i] - sub[i])
            return mpir_error(NULL, MPI_ERR_ARG,
                              "%s: dimension %d: size %lld, subsize %lld, start %lld do not fit",
                              fn, i, (long long)sz[i], (long long)sub[i], (long long)st[i]);
    }
    int err = 0;
    struct MPI_ABI_Datatype *d = dt_create_subarray(ndims, sz, sub, st, order, o, &err);
    if ((rc = publish(fn, d, err, newtype)) == MPI_SUCCESS)
        d->rep->large = large;
    return rc;
}

int MPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                             const int starts[], int order, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray", 0, ndims, INTS(sizes), INTS(subsizes),
                    INTS(starts), order, oldtype, newtype);
}

int MPI_Type_create_subarray_c(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                               const MPI_Count starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray_c", 1, ndims, WIDE(sizes), WIDE(subsizes),
                    WIDE(starts), order, oldtype, newtype);
}

static int darray(const char *fn, int large, int size, int rank, int ndims, counts_t gsizes,
                  const int distribs[], const int dargs[], const int psizes[], int order,
                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    struct MPI_ABI_Datatype *o;
    int rc;
    if ((rc = prologue(fn, oldtype, &o, newtype)) ||
        (rc = check_array_args(fn, ndims, gsizes.p, distribs, dargs, order)))
        return rc;
    if (!psizes)
        return null_arg(fn, "psizes");
    long long procs = 1;
    int64_t gs[MAX_DIMS];
    for (int i = 0; i < ndims; i++) {
        int dist = distribs[i], darg = dargs[i];
        gs[i] = at(gsizes, i);
        if (gs[i] <= 0 || psizes[i] <= 0 ||
            (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC &&
             dist != MPI_DISTRIBUTE_NONE) ||
            (darg != MPI_DISTRIBUTE_DFLT_DARG && darg <= 0) ||
            (dist == MPI_DISTRIBUTE_NONE && psizes[i] != 1) ||
            (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG &&
             (long long)darg * psizes[i] < gs[i]))
            return mpir_error(NULL, MPI_ERR_ARG,
                              "%s: dimension %d: gsize %lld, distrib %d, darg %d, psize %d are "
                              "inconsistent",
                              fn, i, (long long)gs[i], dist, darg, psizes[i]);
        procs *= psizes[i];
    }
    if (procs != size || rank < 0 || rank >= size)
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: process grid of %lld does not match size %d (rank %d)", fn, procs,
                          size, rank);
    int err = 0;
    struct MPI_ABI_Datatype *d =
        dt_create_darray(size, rank, ndims, gs, distribs, dargs, psizes, order, o, &err);
    if ((rc = publish(fn, d, err, newtype)) == MPI_SUCCESS)
        d->rep->large = large;
    return rc;
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[], const int distribs[],
                           const int dargs[], const int psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray", 0, size, rank, ndims, INTS(gsizes), distribs, dargs,
                  psizes, order, oldtype, newtype);
}

int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[],
                             const int distribs[], const int dargs[], const int psizes[],
                             int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray_c", 1, size, rank, ndims, WIDE(gsizes), distribs, dargs,
                  psizes, order, oldtype, newtype);
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

/* How a type's constructor arguments split into integers, addresses and
 * large counts (get_envelope_c/get_contents_c).  An int constructor's are
 * integers and addresses; a _c constructor's are large counts, except the
 * int-only arguments of subarray (ndims, order) and darray (all but gsizes). */
typedef struct split {
    int64_t ni, na, nc;
} split_t;

static split_t split_of(const struct dtype_rep *t)
{
    if (!t->large)
        return (split_t){t->ni, t->na, 0};
    if (t->combiner == MPI_COMBINER_SUBARRAY)
        return (split_t){2, 0, t->ni - 2};
    if (t->combiner == MPI_COMBINER_DARRAY) {
        int64_t n = t->ints[2];
        return (split_t){t->ni - n, 0, n};
    }
    return (split_t){0, 0, t->ni + t->na};
}

/* Where integer k of the split comes from in t->ints. */
static int64_t int_source(const struct dtype_rep *t, int64_t k)
{
    if (!t->large)
        return k;
    if (t->combiner == MPI_COMBINER_SUBARRAY)
        return k == 0 ? 0 : t->ni - 1;
    int64_t n = t->ints[2]; /* darray: size, rank, ndims | gsizes | the rest */
    return k < 3 ? k : k + n;
}

static int get_envelope(const char *fn, MPI_Datatype datatype, split_t *sp, int *combiner)
{
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = dt_check(fn, datatype, &d)))
        return rc;
    if (!combiner)
        return null_arg(fn, "output argument");
    *sp = split_of(d->rep);
    *combiner = d->rep->combiner;
    return MPI_SUCCESS;
}

/* The int form cannot describe a type built with large counts. */
static int large_type_error(const char *fn)
{
    return mpir_error(NULL, MPI_ERR_TYPE,
                      "%s: the type was built by a large-count constructor; use %s_c", fn, fn);
}

int MPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses,
                          int *num_datatypes, int *combiner)
{
    static const char fn[] = "MPI_Type_get_envelope";
    split_t sp = {0, 0, 0};
    int rc;
    if (!num_integers || !num_addresses || !num_datatypes)
        return null_arg(fn, "output argument");
    if ((rc = get_envelope(fn, datatype, &sp, combiner)))
        return rc;
    if (sp.nc)
        return large_type_error(fn);
    *num_integers = (int)sp.ni;
    *num_addresses = (int)sp.na;
    *num_datatypes = dtype_of(datatype)->rep->nd;
    return MPI_SUCCESS;
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers,
                            MPI_Count *num_addresses, MPI_Count *num_large_counts,
                            MPI_Count *num_datatypes, int *combiner)
{
    static const char fn[] = "MPI_Type_get_envelope_c";
    split_t sp = {0, 0, 0};
    int rc;
    if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes)
        return null_arg(fn, "output argument");
    if ((rc = get_envelope(fn, datatype, &sp, combiner)))
        return rc;
    *num_integers = sp.ni;
    *num_addresses = sp.na;
    *num_large_counts = sp.nc;
    *num_datatypes = dtype_of(datatype)->rep->nd;
    return MPI_SUCCESS;
}

static int get_contents(const char *fn, MPI_Datatype datatype, MPI_Count max_integers,
                        MPI_Count max_addresses, MPI_Count max_large_counts,
                        MPI_Count max_datatypes, int integers[], MPI_Aint addresses[],
                        MPI_Count large_counts[], MPI_Datatype datatypes[])
{
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = dt_check(fn, datatype, &d)))
        return rc;
    const struct dtype_rep *t = d->rep;
    if (t->combiner == MPI_COMBINER_NAMED)
        return mpir_error(NULL, MPI_ERR_TYPE, "%s: %s is a named predefined type", fn, d->name);
    split_t sp = split_of(t);
    if (max_integers < sp.ni || max_addresses < sp.na || max_large_counts < sp.nc ||
        max_datatypes < t->nd)
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: arrays too small (%lld/%lld/%lld/%lld given, %lld/%lld/%lld/%d "
                          "needed: integers/addresses/large counts/datatypes)",
                          fn, (long long)max_integers, (long long)max_addresses,
                          (long long)max_large_counts, (long long)max_datatypes,
                          (long long)sp.ni, (long long)sp.na, (long long)sp.nc, t->nd);
    if ((sp.ni && !integers) || (sp.na && !addresses) || (sp.nc && !large_counts) ||
        (t->nd && !datatypes))
        return null_arg(fn, "array argument");
    for (int64_t k = 0; k < sp.ni; k++)
        integers[k] = (int)t->ints[int_source(t, k)];
    if (sp.na)
        memcpy(addresses, t->aints, (size_t)sp.na * sizeof *addresses);
    if (sp.nc) { /* large: the counts in argument order, then the byte counts */
        int64_t from = t->combiner == MPI_COMBINER_SUBARRAY ? 1
                       : t->combiner == MPI_COMBINER_DARRAY ? 3
                                                             : 0;
        int64_t nints = sp.nc < t->ni - from ? sp.nc : t->ni - from;
        for (int64_t k = 0; k < nints; k++)
            large_counts[k] = t->ints[from + k];
        for (int64_t k = nints; k < sp.nc; k++)
            large_counts[k] = t->aints[k - nints];
    }
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

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                          int max_datatypes, int integers[], MPI_Aint addresses[],
                          MPI_Datatype datatypes[])
{
    static const char fn[] = "MPI_Type_get_contents";
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = dt_check(fn, datatype, &d)))
        return rc;
    if (d->rep->large)
        return large_type_error(fn);
    return get_contents(fn, datatype, max_integers, max_addresses, 0, max_datatypes, integers,
                        addresses, NULL, datatypes);
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers,
                            MPI_Count max_addresses, MPI_Count max_large_counts,
                            MPI_Count max_datatypes, int integers[], MPI_Aint addresses[],
                            MPI_Count large_counts[], MPI_Datatype datatypes[])
{
    return get_contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses,
                        max_large_counts, max_datatypes, integers, addresses, large_counts,
                        datatypes);
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

static int type_size(const char *fn, MPI_Datatype datatype, MPI_Count *size)
{
    QUERY(fn, datatype, d);
    if (!size)
        return null_arg(fn, "size");
    *size = (MPI_Count)d->size;
    return MPI_SUCCESS;
}

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    return type_size("MPI_Type_size_x", datatype, size);
}

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    return type_size("MPI_Type_size_c", datatype, size);
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

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    return bounds("MPI_Type_get_extent_c", datatype, 0, lb, extent, lb, extent);
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

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    return bounds("MPI_Type_get_true_extent_c", datatype, 1, true_lb, true_extent, true_lb,
                  true_extent);
}
