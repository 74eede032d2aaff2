/*
 * fbind.h — helpers of the Fortran bindings (fbind.c; used by the generated
 * fbind_gen.c): argument translation between gfortran's calling convention
 * and the C functions.  Nothing here holds state of its own.
 */
#ifndef SKIFF_MPI_FBIND_H
#define SKIFF_MPI_FBIND_H

#include <stddef.h>
#include <stdlib.h>

#include "mpi_impl.h"

/* The sentinel common blocks of mpif.h (handles.c defines the status ones). */
extern MPI_Fint skiff_fc_bottom_, skiff_fc_in_place_, skiff_fc_buffer_automatic_;
extern MPI_Fint skiff_fc_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint skiff_fc_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint skiff_fc_unweighted_[1], skiff_fc_weights_empty_[1];

#pragma GCC visibility push(hidden)

/* Fortran's MPI_BOTTOM / MPI_IN_PLACE / MPI_BUFFER_AUTOMATIC to C's; any
 * other buffer as it is. */
static inline void *fb_buf(const void *b)
{
    return b == &skiff_fc_bottom_              ? MPI_BOTTOM
           : b == &skiff_fc_in_place_          ? MPI_IN_PLACE
           : b == &skiff_fc_buffer_automatic_  ? MPI_BUFFER_AUTOMATIC
                                               : (void *)b;
}
static inline MPI_Status *fb_status(MPI_Fint *s)
{
    return s == skiff_fc_status_ignore_ ? MPI_STATUS_IGNORE : (MPI_Status *)(void *)s;
}
static inline MPI_Status *fb_statuses(MPI_Fint *s)
{
    return s == skiff_fc_statuses_ignore_ || s == skiff_fc_status_ignore_
               ? MPI_STATUSES_IGNORE
               : (MPI_Status *)(void *)s;
}
static inline int *fb_weights(MPI_Fint *w)
{
    return w == skiff_fc_unweighted_      ? MPI_UNWEIGHTED
           : w == skiff_fc_weights_empty_ ? MPI_WEIGHTS_EMPTY
                                          : w;
}
/* C's 0-based indices to Fortran's (MPI_UNDEFINED stays). */
static inline void fb_one_based(MPI_Fint *idx, int n)
{
    for (int i = 0; i < n; i++)
        if (idx[i] >= 0)
            idx[i]++;
}

/* Profiling: every binding is defined as pmpi_x_ and mpi_x_ is a weak alias
 * of it, so a tool that defines MPI_X (mpi_x_) and calls PMPI_X intercepts
 * the Fortran call; a C tool intercepting MPI_X sees it too (the bindings
 * call the C MPI_ functions). */
#define FORTRAN_PMPI(name) extern __typeof__(p##name) name __attribute__((weak, alias("p" #name)));

/* Temporary handle arrays (NULL for n <= 0). */
void *fb_alloc(int n, size_t size);
void fb_free(void *p);
/* Length of Alltoallw's (neighbor: Neighbor_alltoallw's) type arrays on comm. */
int fb_types_len(const MPI_Fint *comm, int send, int neighbor);
/* A CHARACTER argument as a NUL-terminated C string without trailing blanks. */
char *fb_str_in(const char *s, size_t len);
/* A buffer for a C string result, then copied back blank-padded (and freed). */
char *fb_str_out(size_t len);
void fb_str_back(char *f, size_t len, char *c);

#pragma GCC visibility pop

#endif
