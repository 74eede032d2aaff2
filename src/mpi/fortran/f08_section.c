/*
 * f08_section.c — mpi_f08's TYPE(*), DIMENSION(..) buffers (in libmpifort,
 * built only with a Fortran compiler: it needs ISO_Fortran_binding.h).
 *
 * The Fortran procedures pass the buffer's descriptor here.  A contiguous
 * buffer is its address.  A non-contiguous array section (a(1:n:2), a row of
 * a matrix) passed with its own count and datatype becomes one element of a
 * datatype that walks the section — nested hvectors of the user's datatype,
 * innermost dimension first — so no copy is made and nonblocking calls work
 * (the operation holds the type; the caller frees its handle at once).  It
 * needs the section's elements to be whole elements of the datatype, and the
 * count to cover the section.  Other buffers (reductions' two buffers share
 * one count, the v-variants' displacements) must be contiguous.
 */
#include <ISO_Fortran_binding.h>
#include <stdio.h>

#include "mpi.h"

void *skiff_f08_addr(CFI_cdesc_t *d, MPI_Fint *ierror);
void *skiff_f08_section(CFI_cdesc_t *d, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *made,
                        MPI_Fint *ierror);
void *skiff_f08_section_c(CFI_cdesc_t *d, MPI_Count *count, MPI_Fint *datatype, MPI_Fint *made,
                          MPI_Fint *ierror);
void skiff_f08_free(MPI_Fint *datatype);

static int contiguous(const CFI_cdesc_t *d)
{
    CFI_index_t want = (CFI_index_t)d->elem_len;
    for (int i = 0; i < d->rank; i++) {
        if (d->dim[i].extent == 0)
            return 1; /* no data at all */
        if (d->dim[i].extent > 1 && d->dim[i].sm != want)
            return 0;
        want *= d->dim[i].extent;
    }
    return 1;
}

static void *refuse(MPI_Fint *ierror, const char *why)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "skiff MPI: rank %d: mpi_f08: %s\n", rank, why);
    MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_BUFFER); /* fatal unless changed */
    *ierror = MPI_ERR_BUFFER;
    return NULL;
}

void *skiff_f08_addr(CFI_cdesc_t *d, MPI_Fint *ierror)
{
    if (!contiguous(d))
        return refuse(ierror, "a non-contiguous array section cannot be this buffer "
                              "(only a buffer with its own count and datatype can)");
    return d->base_addr;
}

/* The buffer's address.  For a non-contiguous section, *datatype becomes the
 * section's datatype and *made 1: the caller then sends one of it. */
static void *section(CFI_cdesc_t *d, long long count, MPI_Fint *datatype, MPI_Fint *made,
                     MPI_Fint *ierror)
{
    *made = 0;
    if (contiguous(d))
        return d->base_addr;
    MPI_Datatype t = MPI_Type_f2c(*datatype), next;
    MPI_Aint lb, extent;
    if (MPI_Type_get_extent(t, &lb, &extent) != MPI_SUCCESS || extent <= 0 ||
        d->elem_len % (size_t)extent)
        return refuse(ierror, "a non-contiguous array section's elements must be whole "
                              "elements of the datatype");
    long long n = 1;
    for (int i = 0; i < d->rank; i++)
        n *= d->dim[i].extent;
    int per = (int)(d->elem_len / (size_t)extent);
    if (count != n * per)
        return refuse(ierror, "the count must cover the whole non-contiguous array section");
    MPI_Type_contiguous(per, t, &next);
    for (int i = 0; i < d->rank; i++) {
        MPI_Datatype inner = next;
        MPI_Type_create_hvector_c((MPI_Count)d->dim[i].extent, 1, (MPI_Count)d->dim[i].sm, inner,
                                  &next);
        MPI_Type_free(&inner);
    }
    MPI_Type_commit(&next);
    *datatype = MPI_Type_c2f(next);
    *made = 1;
    return d->base_addr;
}

void *skiff_f08_section(CFI_cdesc_t *d, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *made,
                        MPI_Fint *ierror)
{
    void *p = section(d, *count, datatype, made, ierror);
    if (*made)
        *count = 1;
    return p;
}

/* mpi_f08's large-count procedures (MPI_Send_f08c): an INTEGER(KIND=MPI_COUNT_KIND) count */
void *skiff_f08_section_c(CFI_cdesc_t *d, MPI_Count *count, MPI_Fint *datatype, MPI_Fint *made,
                          MPI_Fint *ierror)
{
    void *p = section(d, *count, datatype, made, ierror);
    if (*made)
        *count = 1;
    return p;
}

void skiff_f08_free(MPI_Fint *datatype)
{
    MPI_Datatype t = MPI_Type_f2c(*datatype);
    MPI_Type_free(&t);
}
