C     f_pmpi_tool.f — a profiling tool written in Fortran: it defines
C     MPI_SEND and MPI_BARRIER, counts the calls in COMMON /PMPITOOL/ and
C     passes them on through PMPI_SEND and PMPI_BARRIER.  Linked into a
C     program, it sees that program's calls from mpif.h, `use mpi` and
C     `use mpi_f08` (whose procedures call the same bindings).
      SUBROUTINE MPI_SEND(BUF, COUNT, DTYPE, DEST, TAG, COMM, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER BUF(*), COUNT, DTYPE, DEST, TAG, COMM, IERR
      INTEGER NSEND, NBARR
      COMMON /PMPITOOL/ NSEND, NBARR
      NSEND = NSEND + 1
      CALL PMPI_SEND(BUF, COUNT, DTYPE, DEST, TAG, COMM, IERR)
      END

      SUBROUTINE MPI_BARRIER(COMM, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER COMM, IERR
      INTEGER NSEND, NBARR
      COMMON /PMPITOOL/ NSEND, NBARR
      NBARR = NBARR + 1
      CALL PMPI_BARRIER(COMM, IERR)
      END
