C     f_mpif.f — fixed-form FORTRAN 77 with include 'mpif.h': a ring of
C     sends with statuses, Iprobe/Test with LOGICAL flags, Reduce_scatter
C     and Gather with MPI_IN_PLACE, handle values across the languages.
      PROGRAM FMPIF
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NPROCS, NEXT, PREV, I, NBAD, NTOT
      INTEGER STATUS(MPI_STATUS_SIZE), REQ, ITEM, COUNTS(64)
      INTEGER IBUF(64), IOUT, ALLR(64)
      DOUBLE PRECISION DV
      LOGICAL FLAG
      INTEGER*8 BIG
      NBAD = 0
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      NEXT = MOD(RANK + 1, NPROCS)
      PREV = MOD(RANK + NPROCS - 1, NPROCS)
C     a ring: each rank passes its number on
      CALL MPI_IRECV(ITEM, 1, MPI_INTEGER, PREV, 3, MPI_COMM_WORLD,
     &               REQ, IERR)
      CALL MPI_SEND(RANK, 1, MPI_INTEGER, NEXT, 3, MPI_COMM_WORLD, IERR)
      FLAG = .FALSE.
   10 CONTINUE
      CALL MPI_TEST(REQ, FLAG, STATUS, IERR)
      IF (.NOT. FLAG) GOTO 10
      IF (ITEM .NE. PREV) NBAD = NBAD + 1
      IF (STATUS(MPI_SOURCE) .NE. PREV) NBAD = NBAD + 1
      IF (STATUS(MPI_TAG) .NE. 3) NBAD = NBAD + 1
      IF (REQ .NE. MPI_REQUEST_NULL) NBAD = NBAD + 1
C     probe for a message that is there, then one that is not
      CALL MPI_SEND(RANK, 1, MPI_INTEGER, NEXT, 4, MPI_COMM_WORLD, IERR)
   20 CONTINUE
      CALL MPI_IPROBE(PREV, 4, MPI_COMM_WORLD, FLAG, STATUS, IERR)
      IF (.NOT. FLAG) GOTO 20
      CALL MPI_RECV(ITEM, 1, MPI_INTEGER, MPI_ANY_SOURCE, 4,
     &              MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      IF (ITEM .NE. PREV) NBAD = NBAD + 1
      CALL MPI_IPROBE(PREV, 99, MPI_COMM_WORLD, FLAG,
     &                MPI_STATUS_IGNORE, IERR)
      IF (FLAG) NBAD = NBAD + 1
C     reduce_scatter: every rank gets the sum of its block
      DO 30 I = 1, NPROCS
         IBUF(I) = I + RANK
         COUNTS(I) = 1
   30 CONTINUE
      CALL MPI_REDUCE_SCATTER(IBUF, IOUT, COUNTS, MPI_INTEGER,
     &                        MPI_SUM, MPI_COMM_WORLD, IERR)
      IF (IOUT .NE. NPROCS * (RANK + 1) + NPROCS * (NPROCS - 1) / 2)
     &   NBAD = NBAD + 1
C     gather in place at the root
      ALLR(RANK + 1) = RANK * 3
      IF (RANK .EQ. 0) THEN
         CALL MPI_GATHER(MPI_IN_PLACE, 1, MPI_INTEGER, ALLR, 1,
     &                   MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
         DO 40 I = 1, NPROCS
            IF (ALLR(I) .NE. (I - 1) * 3) NBAD = NBAD + 1
   40    CONTINUE
      ELSE
         CALL MPI_GATHER(ALLR(RANK + 1), 1, MPI_INTEGER, ALLR, 1,
     &                   MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      END IF
C     sized kinds and DOUBLE PRECISION
      BIG = 2_8 ** 40
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, BIG, 1, MPI_INTEGER8, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (BIG .NE. NPROCS * 2_8 ** 40) NBAD = NBAD + 1
      DV = 0.5D0
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, DV, 1, MPI_DOUBLE_PRECISION,
     &                   MPI_PROD, MPI_COMM_WORLD, IERR)
      IF (DV .NE. 0.5D0 ** NPROCS) NBAD = NBAD + 1
C     handles keep the C library's values
      IF (MPI_COMM_WORLD .NE. 257) NBAD = NBAD + 1
      IF (MPI_DOUBLE_PRECISION .NE. 540) NBAD = NBAD + 1
      CALL MPI_ALLREDUCE(NBAD, NTOT, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0 .AND. NTOT .EQ. 0)
     &   PRINT '(A,I0,A)', 'f_mpif: passed on ', NPROCS, ' ranks'
      IF (NTOT .NE. 0) PRINT *, 'FAIL rank', RANK, ':', NBAD, ' checks'
      CALL MPI_FINALIZE(IERR)
      IF (NTOT .NE. 0) STOP 1
      END
