! f_missing_ierror.f90 — must NOT compile: module mpi's explicit interfaces
! require ierror (test fortran_usempi_interfaces expects the compiler's error).
program f_missing_ierror
  use mpi
  implicit none
  integer :: x
  x = 1
  call MPI_Send(x, 1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD)
end program f_missing_ierror
