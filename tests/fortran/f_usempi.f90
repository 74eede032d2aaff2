! f_usempi.f90 — the `use mpi` bindings at any rank count: point-to-point with
! statuses and MPI_STATUS_IGNORE, nonblocking with 1-based indices, derived
! types from Fortran arrays, collectives with MPI_IN_PLACE, reductions on
! Fortran types, a user op written in Fortran, LOGICAL arguments, strings,
! attributes, communicators and groups, error codes in ierror, MPI_SIZEOF.
module checks
  implicit none
  integer :: failures = 0, myrank = -1
  integer :: eh_calls = 0, eh_comm = -1, eh_code = -1
contains
  subroutine on_error(comm, code)
    integer :: comm, code
    eh_calls = eh_calls + 1
    eh_comm = comm
    eh_code = code
  end subroutine on_error

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'FAIL rank ', myrank, ': ', what
      failures = failures + 1
    end if
  end subroutine check
end module checks

subroutine addmod7(invec, inoutvec, len, datatype)
  use mpi
  implicit none
  integer :: len, datatype, i
  integer :: invec(len), inoutvec(len)
  if (datatype /= MPI_INTEGER) stop 3
  do i = 1, len
    inoutvec(i) = mod(invec(i) + inoutvec(i), 7)
  end do
end subroutine addmod7

program f_usempi
  use mpi
  use checks
  implicit none
  external addmod7
  integer :: ierr, rank, nprocs, peer, i, n, op, dup, half, grp, newtype, sz, flag_int
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), reqs(2), idx
  integer :: ibuf(10), jbuf(10), counts
  double precision :: d(4), dsum(4), pair(2), pairo(2), clock(2)
  real :: r
  complex :: z, zs
  logical :: flag, lv, lall, lany, periods(1)
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=MPI_MAX_PROCESSOR_NAME) :: pname
  integer(kind=MPI_ADDRESS_KIND) :: tagub, attrval
  double precision :: mat(4, 3), col(4)
  integer :: cart, coords(1), dims(1), src, dst, eh

  call MPI_Init(ierr)
  call check(ierr == MPI_SUCCESS, 'init')
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  myrank = rank
  call MPI_Initialized(flag, ierr)
  call check(flag, 'initialized is .true.')
  call skiff_check_booleans(flag_int)
  call check(flag_int == 1, 'MPI_Init registered the LOGICAL values with the ABI')
  peer = ieor(rank, 1)
  if (peer >= nprocs) peer = rank

  ! point-to-point with a status, then with MPI_STATUS_IGNORE
  ibuf = rank * 100 + (/ (i, i = 1, 10) /)
  call MPI_Sendrecv(ibuf, 10, MPI_INTEGER, peer, 7, jbuf, 10, MPI_INTEGER, peer, 7, &
                    MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_SOURCE) == peer .and. status(MPI_TAG) == 7, 'status source/tag')
  call MPI_Get_count(status, MPI_INTEGER, counts, ierr)
  call check(counts == 10, 'get_count')
  call check(all(jbuf == peer * 100 + (/ (i, i = 1, 10) /)), 'sendrecv data')
  call MPI_Sendrecv(d, 0, MPI_DOUBLE_PRECISION, peer, 8, dsum, 0, MPI_DOUBLE_PRECISION, peer, 8, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS, 'status ignore')

  ! nonblocking: Waitany gives a 1-based index; Waitall with MPI_STATUSES_IGNORE
  call MPI_Irecv(jbuf, 10, MPI_INTEGER, peer, 9, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, peer, 9, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitany(2, reqs, idx, status, ierr)
  call check(idx == 1 .or. idx == 2, 'waitany index is 1-based')
  call check(reqs(idx) == MPI_REQUEST_NULL, 'completed request is MPI_REQUEST_NULL')
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(all(reqs == MPI_REQUEST_NULL), 'waitall')
  call MPI_Irecv(jbuf, 10, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  call check(statuses(MPI_SOURCE, 1) == peer .and. statuses(MPI_TAG, 1) == 10, 'waitall statuses')

  ! a row of a column-major matrix: vector type, and a column sent as a type
  mat = reshape((/ (dble(i + rank * 100), i = 1, 12) /), (/ 4, 3 /))
  call MPI_Type_vector(3, 1, 4, MPI_DOUBLE_PRECISION, newtype, ierr)
  call MPI_Type_commit(newtype, ierr)
  call MPI_Type_size(newtype, sz, ierr)
  call check(sz == 24, 'vector type size')
  col = -1
  call MPI_Sendrecv(mat(2, 1), 1, newtype, peer, 11, col, 3, MPI_DOUBLE_PRECISION, peer, 11, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(col(1) == 2 + peer * 100 .and. col(3) == 10 + peer * 100 .and. col(4) == -1, &
             'row of a matrix through a vector type')
  call MPI_Type_free(newtype, ierr)
  call check(newtype == MPI_DATATYPE_NULL, 'type_free sets MPI_DATATYPE_NULL')

  ! collectives with MPI_IN_PLACE, reductions on Fortran types
  d = (/ dble(rank), 1d0, 2d0, -dble(rank) /)
  call MPI_Allreduce(MPI_IN_PLACE, d, 4, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(d(1) == dble(nprocs * (nprocs - 1) / 2) .and. d(3) == 2d0 * nprocs, 'allreduce in place')
  r = real(rank)
  call MPI_Allreduce(MPI_IN_PLACE, r, 1, MPI_REAL, MPI_MAX, MPI_COMM_WORLD, ierr)
  call check(r == real(nprocs - 1), 'real max')
  z = cmplx(1.0, real(rank))
  call MPI_Reduce(z, zs, 1, MPI_COMPLEX, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) call check(zs == cmplx(real(nprocs), real(nprocs * (nprocs - 1) / 2)), 'complex sum')
  lv = rank == 0
  call MPI_Allreduce(lv, lall, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  call MPI_Allreduce(lv, lany, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  call check(lany .and. (lall .eqv. (nprocs == 1)), 'logical land/lor')
  pair = (/ dble(mod(rank, 2)), dble(rank) /)
  call MPI_Allreduce(pair, pairo, 1, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  call check(int(pairo(2)) == min(1, nprocs - 1), '2double_precision maxloc')
  ibuf(1) = rank
  call MPI_Bcast(ibuf, 1, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  call check(ibuf(1) == nprocs - 1, 'bcast')
  jbuf = -1
  call MPI_Allgather(rank, 1, MPI_INTEGER, jbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call check(all(jbuf(1:min(nprocs, 10)) == (/ (i, i = 0, min(nprocs, 10) - 1) /)), 'allgather')

  ! a user op written in Fortran
  call MPI_Op_create(addmod7, .true., op, ierr)
  ibuf(1:2) = (/ 3, rank /)
  call MPI_Allreduce(ibuf, jbuf, 2, MPI_INTEGER, op, MPI_COMM_WORLD, ierr)
  call check(jbuf(1) == mod(3 * nprocs, 7), 'user op')
  call MPI_Op_commutative(op, flag, ierr)
  call check(flag, 'op commutative')
  call MPI_Op_free(op, ierr)
  call check(op == MPI_OP_NULL, 'op_free')

  ! communicators, groups, names, attributes
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_set_name(dup, 'fortran dup   ', ierr)
  call MPI_Comm_get_name(dup, name, n, ierr)
  call check(name == 'fortran dup' .and. n == 11, 'comm name: '//trim(name))
  call MPI_Comm_split(dup, mod(rank, 2), -rank, half, ierr)
  call MPI_Comm_size(half, n, ierr)
  call check(n == (nprocs + 1 - mod(rank, 2)) / 2, 'split size')
  call MPI_Comm_rank(half, i, ierr)
  call check(i == n - 1 - rank / 2, 'split key orders ranks')
  call MPI_Comm_group(half, grp, ierr)
  call MPI_Group_size(grp, sz, ierr)
  call check(sz == n, 'group size')
  call MPI_Group_free(grp, ierr)
  call MPI_Comm_free(half, ierr)
  call check(half == MPI_COMM_NULL, 'comm_free')
  call MPI_Comm_get_attr(dup, MPI_TAG_UB, tagub, flag, ierr)
  call check(flag .and. tagub >= 32767, 'MPI_TAG_UB')
  call MPI_Comm_test_inter(dup, flag, ierr)
  call check(.not. flag, 'test_inter is .false.')
  call MPI_Get_processor_name(pname, n, ierr)
  call check(n > 0 .and. len_trim(pname) == n, 'processor name')

  ! a periodic ring: LOGICAL array argument
  dims(1) = nprocs
  periods(1) = .true.
  call MPI_Cart_create(dup, 1, dims, periods, .false., cart, ierr)
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(dst == mod(rank + 1, nprocs) .and. src == mod(rank - 1 + nprocs, nprocs), 'cart_shift')
  periods(1) = .false.
  call MPI_Cart_get(cart, 1, dims, periods, coords, ierr)
  call check(periods(1) .and. coords(1) == rank, 'cart_get periods')
  call MPI_Comm_free(cart, ierr)

  ! errors come back in ierror under MPI_ERRORS_RETURN
  call MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN, ierr)
  call MPI_Send(ibuf, 1, MPI_INTEGER, nprocs + 5, 0, dup, ierr)
  call check(ierr /= MPI_SUCCESS, 'error returned')
  call MPI_Error_class(ierr, i, ierr)
  call check(i == MPI_ERR_RANK, 'error class MPI_ERR_RANK')
  ! an error handler written in Fortran gets the communicator and the code
  call MPI_Comm_create_errhandler(on_error, eh, ierr)
  call MPI_Comm_set_errhandler(dup, eh, ierr)
  call MPI_Errhandler_free(eh, ierr)
  call MPI_Send(ibuf, 1, MPI_INTEGER, nprocs + 5, 0, dup, ierr)
  call check(eh_calls == 1 .and. eh_comm == dup .and. eh_code == ierr, 'Fortran error handler')
  call MPI_Error_class(eh_code, i, ierr)
  call check(i == MPI_ERR_RANK, 'Fortran error handler code')
  call MPI_Comm_free(dup, ierr)

  call MPI_Sizeof(d, sz, ierr)
  call check(sz == 8, 'MPI_SIZEOF double')
  call MPI_Sizeof(z, sz, ierr)
  call check(sz == 8, 'MPI_SIZEOF complex')
  attrval = 0
  ! the bindings return the C clock's doubles: two readings in order, a resolution
  clock(1) = MPI_Wtime()
  clock(2) = MPI_Wtime()
  call check(clock(2) >= clock(1) .and. MPI_Wtick() > 0d0, 'MPI_Wtime/MPI_Wtick')

  call MPI_Allreduce(failures, flag_int, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. flag_int == 0) print '(a,i0,a)', 'f_usempi: passed on ', nprocs, ' ranks'
  call MPI_Finalize(ierr)
  if (failures /= 0) stop 1
end program f_usempi
