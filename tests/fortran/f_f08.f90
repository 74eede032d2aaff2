! f_f08.f90 — module mpi_f08: derived handle types and MPI_Status, optional
! ierror, TYPE(*), DIMENSION(..) buffers incl. non-contiguous array sections
! (blocking and nonblocking), MPI_IN_PLACE, a user op with the f08 interface,
! LOGICAL arguments, strings, errors returned in ierror.
module f08_checks
  implicit none
  integer :: failures = 0, myrank = -1
  integer :: eh_calls = 0, eh_code = -1
contains
  subroutine on_error(comm, code)
    use mpi_f08
    type(MPI_Comm) :: comm
    integer :: code
    eh_calls = eh_calls + 1
    eh_code = code
    if (comm /= MPI_COMM_WORLD) eh_calls = -100
  end subroutine on_error

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'FAIL rank ', myrank, ': ', what
      failures = failures + 1
    end if
  end subroutine check

  subroutine maxabs(invec, inoutvec, len, datatype)
    use mpi_f08
    use, intrinsic :: iso_c_binding
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    double precision, pointer :: a(:), b(:)
    integer :: i
    if (datatype /= MPI_DOUBLE_PRECISION) stop 3
    call c_f_pointer(invec, a, (/ len /))
    call c_f_pointer(inoutvec, b, (/ len /))
    do i = 1, len
      b(i) = max(abs(a(i)), abs(b(i)))
    end do
  end subroutine maxabs
end module f08_checks

program f_f08
  use mpi_f08
  use f08_checks
  implicit none
  integer :: rank, nprocs, peer, i, n, ierr, total
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Request) :: reqs(2)
  type(MPI_Comm) :: half
  type(MPI_Op) :: op
  type(MPI_Errhandler) :: eh
  integer :: a(20), b(20)
  double precision :: m(5, 4), row(4), d(3), clock(2)
  logical :: flag
  character(len=MPI_MAX_OBJECT_NAME) :: name

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  myrank = rank
  peer = ieor(rank, 1)
  if (peer >= nprocs) peer = rank

  ! non-contiguous sections on both sides: every other element
  a = (/ (i + 100 * rank, i = 1, 20) /)
  b = -1
  call MPI_Sendrecv(a(1:20:2), 10, MPI_INTEGER, peer, 1, b(2:20:2), 10, MPI_INTEGER, peer, 1, &
                    MPI_COMM_WORLD, status)
  call check(status%MPI_SOURCE == peer .and. status%MPI_TAG == 1, 'status components')
  call check(all(b(2:20:2) == (/ (i + 100 * peer, i = 1, 20, 2) /)), 'strided section data')
  call check(all(b(1:19:2) == -1), 'gaps untouched')
  call MPI_Get_count(status, MPI_INTEGER, n)
  call check(n == 1 .or. n == 10, 'get_count on a section')

  ! a row of a matrix (stride 5), nonblocking, into a contiguous array
  m = reshape((/ (dble(i + 1000 * rank), i = 1, 20) /), (/ 5, 4 /))
  row = 0
  call MPI_Irecv(row, 4, MPI_DOUBLE_PRECISION, peer, 2, MPI_COMM_WORLD, reqs(1))
  call MPI_Isend(m(3, :), 4, MPI_DOUBLE_PRECISION, peer, 2, MPI_COMM_WORLD, reqs(2))
  call MPI_Waitall(2, reqs, statuses)
  call check(all(reqs == MPI_REQUEST_NULL), 'requests completed')
  call check(all(row == (/ 3d0, 8d0, 13d0, 18d0 /) + 1000 * peer), 'matrix row')
  call check(statuses(1)%MPI_SOURCE == peer, 'waitall statuses')
  ! a 2-D section
  b = 0
  call MPI_Isend(m(2:3, 2:4), 6, MPI_DOUBLE_PRECISION, peer, 3, MPI_COMM_WORLD, reqs(1))
  call MPI_Recv(row, 0, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Iprobe(peer, 3, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE)
  do while (.not. flag)
    call MPI_Iprobe(peer, 3, MPI_COMM_WORLD, flag, MPI_STATUS_IGNORE)
  end do
  block
    double precision :: got(6)
    call MPI_Recv(got, 6, MPI_DOUBLE_PRECISION, peer, 3, MPI_COMM_WORLD, status)
    call check(all(got == (/ 7d0, 8d0, 12d0, 13d0, 17d0, 18d0 /) + 1000 * peer), '2-D section')
  end block
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)

  ! collectives, MPI_IN_PLACE, a user op
  d = (/ dble(rank), -dble(rank) * 2, 1d0 /)
  call MPI_Op_create(maxabs, .true., op)
  call MPI_Allreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD)
  call check(all(d == (/ dble(nprocs - 1), 2d0 * (nprocs - 1), 1d0 /)), 'f08 user op in place')
  call MPI_Op_free(op)
  call check(op == MPI_OP_NULL, 'op freed')
  n = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, n, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_SUCCESS .and. n == nprocs * (nprocs + 1) / 2, 'allreduce in place')

  ! communicators, names
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_set_name(half, 'half')
  call MPI_Comm_get_name(half, name, n)
  call check(name == 'half' .and. n == 4, 'comm name')
  call MPI_Comm_free(half)
  call check(half == MPI_COMM_NULL, 'comm freed')

  ! errors come back in ierror
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(a, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_ERR_RANK, 'error in ierror')
  call MPI_Comm_create_errhandler(on_error, eh)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh)
  call MPI_Send(a, 1, MPI_INTEGER, -7, 0, MPI_COMM_WORLD, ierr)
  call check(eh_calls == 1 .and. eh_code == ierr .and. ierr == MPI_ERR_RANK, 'f08 error handler')
  call MPI_Errhandler_free(eh)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)
  ! the binding returns the C clock's double: two readings in order
  clock(1) = MPI_Wtime()
  clock(2) = MPI_Wtime()
  call check(clock(2) >= clock(1), 'MPI_Wtime readings in order')
  call MPI_Sizeof(m, n)
  call check(n == 8, 'MPI_Sizeof of a DOUBLE PRECISION matrix')
  block
    integer(kind=MPI_ADDRESS_KIND) :: ub
    call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, ub, flag)
    call check(flag .and. ub >= 32767, 'MPI_TAG_UB through mpi_f08')
  end block

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a,i0,a)', 'f_f08: passed on ', nprocs, ' ranks'
  call MPI_Finalize()
  if (failures /= 0) stop 1
end program f_f08
