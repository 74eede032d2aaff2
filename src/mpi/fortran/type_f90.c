/*
 * type_f90.c — MPI_Type_match_size and MPI_Type_create_f90_integer/real/complex.
 *
 * Both answer with the predefined sized Fortran types (MPI_INTEGERn, MPI_REALn,
 * MPI_COMPLEXn) of gfortran's kinds: the f90 calls take the smallest kind
 * whose decimal range (and precision) covers the request, as
 * SELECTED_INT_KIND / SELECTED_REAL_KIND do.  The result is a predefined
 * handle (never freed); its envelope says MPI_COMBINER_NAMED, not
 * MPI_COMBINER_F90_* (docs/fortran.md).
 */
#include "mpi_impl.h"

static const struct kind {
    int size, precision, range;
    MPI_Datatype real, cplx, integer;
} kinds[] = {
    /* INTEGER(1..16): range 2, 4, 9, 18, 38; REAL(4, 8, 16): IEEE single, double, quad */
    {1, 0, 2, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_INTEGER1},
    {2, 0, 4, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_INTEGER2},
    {4, 6, 9, MPI_REAL4, MPI_COMPLEX8, MPI_INTEGER4},
    {8, 15, 18, MPI_REAL8, MPI_COMPLEX16, MPI_INTEGER8},
    {16, 33, 38, MPI_REAL16, MPI_COMPLEX32, MPI_INTEGER16},
};
#define NKINDS (sizeof kinds / sizeof *kinds)
/* decimal exponent range of REAL(4, 8, 16) (RANGE intrinsic) */
static const int real_range[NKINDS] = {0, 0, 37, 307, 4931};

int MPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_match_size";
    if (!datatype)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL datatype pointer", fn);
    if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL &&
        typeclass != MPI_TYPECLASS_COMPLEX)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid typeclass %d", fn, typeclass);
    for (size_t i = 0; i < NKINDS; i++) {
        MPI_Datatype t = typeclass == MPI_TYPECLASS_INTEGER ? kinds[i].integer
                         : typeclass == MPI_TYPECLASS_REAL  ? kinds[i].real
                                                            : kinds[i].cplx;
        int tsize = typeclass == MPI_TYPECLASS_COMPLEX ? 2 * kinds[i].size : kinds[i].size;
        if (t != MPI_DATATYPE_NULL && tsize == size) {
            *datatype = t;
            return MPI_SUCCESS;
        }
    }
    return mpir_error(NULL, MPI_ERR_ARG, "%s: no %s type of %d bytes", fn,
                      typeclass == MPI_TYPECLASS_INTEGER ? "integer"
                      : typeclass == MPI_TYPECLASS_REAL  ? "real"
                                                         : "complex",
                      size);
}

int MPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_create_f90_integer";
    if (!newtype)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL newtype pointer", fn);
    for (size_t i = 0; i < NKINDS; i++)
        if (kinds[i].range >= r) {
            *newtype = kinds[i].integer;
            return MPI_SUCCESS;
        }
    return mpir_error(NULL, MPI_ERR_ARG, "%s: no integer kind has decimal range %d", fn, r);
}

/* The REAL kind for precision p and range r (either MPI_UNDEFINED), or -1. */
static int real_kind(int p, int r)
{
    for (size_t i = 0; i < NKINDS; i++)
        if (kinds[i].real != MPI_DATATYPE_NULL &&
            (p == MPI_UNDEFINED || kinds[i].precision >= p) &&
            (r == MPI_UNDEFINED || real_range[i] >= r))
            return (int)i;
    return -1;
}

static int create_f90_float(const char *fn, int p, int r, int cplx, MPI_Datatype *newtype)
{
    if (!newtype)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL newtype pointer", fn);
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: p and r are both MPI_UNDEFINED", fn);
    int k = real_kind(p, r);
    if (k < 0)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: no real kind has precision %d and range %d", fn,
                          p, r);
    *newtype = cplx ? kinds[k].cplx : kinds[k].real;
    return MPI_SUCCESS;
}

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return create_f90_float("MPI_Type_create_f90_real", p, r, 0, newtype);
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return create_f90_float("MPI_Type_create_f90_complex", p, r, 1, newtype);
}
