/* f_booleans.c — called from f_usempi.f90: after the Fortran MPI_Init, the
 * MPI 5.0 ABI call says what gfortran's LOGICALs are (1 and 0). */
#include <mpi.h>
#include <string.h>

void skiff_check_booleans_(MPI_Fint *ok);

void skiff_check_booleans_(MPI_Fint *ok)
{
    *ok = 1;
    for (int size = 1; size <= 16; size *= 2) {
        unsigned char t[16], f[16], want_t[16] = {1}, want_f[16] = {0};
        int is_set = 0;
        if (MPI_Abi_get_fortran_booleans(size, t, f, &is_set) != MPI_SUCCESS || !is_set ||
            memcmp(t, want_t, (size_t)size) || memcmp(f, want_f, (size_t)size))
            *ok = 0;
    }
}
