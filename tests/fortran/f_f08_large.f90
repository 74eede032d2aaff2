! f_f08_large.f90 — mpi_f08's large-count procedures: calls whose counts
! (and RMA displacement units) are INTEGER(KIND=MPI_COUNT_KIND) /
! MPI_ADDRESS_KIND resolve to the MPI_X_f08c specifics, which call the C
! library's MPI_X_c.  Values above 2**31 (a type's size and extent, a
! status's element count, a pack size) show that nothing passes through a
! default INTEGER on the way.
module f08_large_checks
  implicit none
  integer :: failures = 0, myrank = -1
  integer :: op_calls = 0, op_bad = 0
contains
  ! an MPI_User_function_c: the length arrives as INTEGER(KIND=MPI_COUNT_KIND)
  subroutine absmax_c(invec, inoutvec, len, datatype)
    use mpi_f08
    use, intrinsic :: iso_c_binding
    type(c_ptr), value :: invec, inoutvec
    integer(kind=MPI_COUNT_KIND) :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:), b(:)
    op_calls = op_calls + 1
    if (datatype /= MPI_INTEGER .or. len < 1 .or. len > 4) then
      op_bad = op_bad + 1
      return
    end if
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    b = max(abs(a), abs(b))
  end subroutine absmax_c

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'FAIL rank ', myrank, ': ', what
      failures = failures + 1
    end if
  end subroutine check
end module f08_large_checks

program f_f08_large
  use mpi_f08
  use f08_large_checks
  implicit none
  integer, parameter :: ck = MPI_COUNT_KIND, ak = MPI_ADDRESS_KIND
  integer(kind=ck), parameter :: big = 2_ck**31 + 10
  integer :: rank, nprocs, left, right, i, r, ierr, total, isize
  integer(kind=ck) :: n8, cnt8, sz8, pos8, psz8, k
  integer(kind=ak) :: lb, extent, disp
  integer(kind=ck) :: lb8, extent8
  integer(kind=ck), allocatable :: counts8(:)
  integer(kind=ak), allocatable :: displs(:)
  integer, allocatable :: gathered(:)
  type(MPI_Status) :: status
  type(MPI_Request) :: req
  type(MPI_Datatype) :: t3, tbig, tvec, tres
  type(MPI_Win) :: win
  type(MPI_Op) :: op
  integer :: u(4), w(4)
  integer :: a(20), b(20), c(15), v(7), s(6), s2(6)
  integer, target :: wbuf(6)
  double precision :: d(6), e(6)
  character(len=200) :: packed, packed2

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  myrank = rank
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  ! point-to-point: count-kind counts; Get_count into a count-kind result
  a = [(rank * 100 + i, i = 1, 20)]
  b = -1
  n8 = 10
  call MPI_Irecv(b, 20_ck, MPI_INTEGER, left, 7, MPI_COMM_WORLD, req)
  call MPI_Send(a, n8, MPI_INTEGER, right, 7, MPI_COMM_WORLD)
  call MPI_Wait(req, status)
  call MPI_Get_count(status, MPI_INTEGER, cnt8)
  call check(cnt8 == 10_ck, 'MPI_Get_count (count kind) after a count-kind send')
  call check(status%MPI_SOURCE == left .and. status%MPI_TAG == 7, 'status of a count-kind recv')
  call check(all(b(1:10) == [(left * 100 + i, i = 1, 10)]) .and. all(b(11:20) == -1), &
             'bytes of a count-kind send/recv')
  call MPI_Get_elements(status, MPI_INTEGER, cnt8)
  call check(cnt8 == 10_ck, 'MPI_Get_elements (count kind)')

  ! non-contiguous sections with count-kind counts, nonblocking send
  c = -1
  call MPI_Isend(a(1:10:2), 5_ck, MPI_INTEGER, right, 8, MPI_COMM_WORLD, req)
  call MPI_Recv(c(1:15:3), 5_ck, MPI_INTEGER, left, 8, MPI_COMM_WORLD, status)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call check(all(c(1:15:3) == [(left * 100 + i, i = 1, 10, 2)]), 'strided sections, count kind')
  call check(all(c(2:15:3) == -1) .and. all(c(3:15:3) == -1), 'gaps of a strided recv untouched')

  ! a status holding more than 2**31 elements
  call MPI_Status_set_elements(status, MPI_BYTE, big + 7)
  call MPI_Get_count(status, MPI_BYTE, cnt8)
  call check(cnt8 == big + 7, 'MPI_Get_count of 2**31+17 bytes')
  call MPI_Get_elements(status, MPI_BYTE, cnt8)
  call check(cnt8 == big + 7, 'MPI_Get_elements of 2**31+17 bytes')
  call MPI_Get_count(status, MPI_BYTE, i)
  call check(i == MPI_UNDEFINED, 'the default-INTEGER MPI_Get_count of it is MPI_UNDEFINED')

  ! collectives with count-kind counts and count arrays
  v = -1
  if (rank == nprocs - 1) v = [(3 * i, i = 1, 7)]
  call MPI_Bcast(v, 7_ck, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD)
  call check(all(v == [(3 * i, i = 1, 7)]), 'MPI_Bcast with a count-kind count')
  s = [(rank + i, i = 1, 6)]
  call MPI_Allreduce(s, s2, 6_ck, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call check(all(s2 == [(nprocs * i + nprocs * (nprocs - 1) / 2, i = 1, 6)]), &
             'MPI_Allreduce with a count-kind count')
  call MPI_Allreduce(MPI_IN_PLACE, s, 6_ck, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  call check(all(s == [(nprocs - 1 + i, i = 1, 6)]), 'MPI_Allreduce in place, count kind')
  ! a user op whose function takes a count-kind length (MPI_Op_create_c)
  call MPI_Op_create_c(absmax_c, .true., op)
  u = [(-(rank * 3 + i), i = 1, 4)]
  call MPI_Allreduce(u, w, 4_ck, MPI_INTEGER, op, MPI_COMM_WORLD)
  call check(all(w == [((nprocs - 1) * 3 + i, i = 1, 4)]) .or. nprocs == 1, &
             'MPI_Allreduce with an MPI_Op_create_c op')
  call check(op_bad == 0 .and. (op_calls > 0 .or. nprocs == 1), &
             'the MPI_User_function_c got MPI_INTEGER and a count-kind length')
  call MPI_Reduce_local(u, w, 4_ck, MPI_INTEGER, op)
  call check(all(w == [((nprocs - 1) * 3 + i, i = 1, 4)]), 'MPI_Reduce_local with it')
  call MPI_Op_free(op)

  ! rank r gives r+1 values r*10+j, placed with a gap of 2 after each block
  allocate(counts8(0:nprocs - 1), displs(0:nprocs - 1))
  do r = 0, nprocs - 1
    counts8(r) = r + 1
    displs(r) = int(r * (r + 1) / 2 + 2 * r, ak)
  end do
  allocate(gathered(displs(nprocs - 1) + counts8(nprocs - 1) + 2))
  gathered = -1
  call MPI_Allgatherv([(rank * 10 + i, i = 1, rank + 1)], int(rank + 1, ck), MPI_INTEGER, &
                      gathered, counts8, displs, MPI_INTEGER, MPI_COMM_WORLD)
  do r = 0, nprocs - 1
    do i = 1, r + 1
      call check(gathered(displs(r) + i) == r * 10 + i, 'MPI_Allgatherv block (count-kind arrays)')
    end do
    call check(all(gathered(displs(r) + r + 2:displs(r) + r + 3) == -1), 'MPI_Allgatherv gaps')
  end do
  deallocate(counts8, displs, gathered)

  ! datatypes: count-kind counts in, count-kind sizes out
  call MPI_Type_contiguous(3_ck, MPI_DOUBLE_PRECISION, t3)
  call MPI_Type_commit(t3)
  call MPI_Type_size(t3, sz8)
  call check(sz8 == 24_ck, 'MPI_Type_size (count kind) of 3 doubles')
  d = [(rank + 0.5d0 * i, i = 1, 6)]
  e = 0
  call MPI_Irecv(e, 6_ck, MPI_DOUBLE_PRECISION, left, 9, MPI_COMM_WORLD, req)
  call MPI_Send(d, 2_ck, t3, right, 9, MPI_COMM_WORLD)
  call MPI_Wait(req, status)
  call check(all(e == [(left + 0.5d0 * i, i = 1, 6)]), 'two count-kind contiguous types sent')
  call MPI_Get_count(status, t3, cnt8)
  call check(cnt8 == 2_ck, 'MPI_Get_count in the count-kind contiguous type')
  call MPI_Get_elements(status, t3, cnt8)
  call check(cnt8 == 6_ck, 'MPI_Get_elements in the count-kind contiguous type')
  call MPI_Type_free(t3)
  call MPI_Type_contiguous(big, MPI_BYTE, tbig)
  call MPI_Type_size(tbig, sz8)
  call check(sz8 == big, 'MPI_Type_size of 2**31+10 bytes')
  call MPI_Type_size(tbig, isize)
  call check(isize == MPI_UNDEFINED, 'the default-INTEGER MPI_Type_size of it is MPI_UNDEFINED')
  call MPI_Type_free(tbig)
  call MPI_Type_vector(2_ck, 1_ck, big, MPI_BYTE, tvec)
  call MPI_Type_get_extent(tvec, lb, extent)
  call check(lb == 0 .and. extent == big + 1, 'a vector with a stride of 2**31+10 (count kind)')
  call MPI_Type_free(tvec)
  ! the three routines the standard names only with _c (their arguments would
  ! resolve as the plain forms' do: MPI_ADDRESS_KIND and MPI_COUNT_KIND are both 8)
  call MPI_Type_create_resized_c(MPI_INTEGER, -4_ck, big, tres)
  call MPI_Type_get_extent_c(tres, lb8, extent8)
  call check(lb8 == -4_ck .and. extent8 == big, 'MPI_Type_get_extent_c of a resized type')
  call MPI_Type_get_true_extent_c(tres, lb8, extent8, ierr)
  call check(ierr == MPI_SUCCESS .and. lb8 == 0_ck .and. extent8 == 4_ck, &
             'MPI_Type_get_true_extent_c of a resized MPI_INTEGER')
  call MPI_Type_free(tres)

  ! pack/unpack with count-kind sizes and positions, sent as MPI_PACKED
  call MPI_Pack_size(5_ck, MPI_INTEGER, MPI_COMM_WORLD, psz8)
  call check(psz8 >= 20_ck, 'MPI_Pack_size (count kind)')
  call MPI_Pack_size(big, MPI_BYTE, MPI_COMM_WORLD, psz8)
  call check(psz8 >= big, 'MPI_Pack_size of 2**31+10 bytes')
  pos8 = 0
  call MPI_Pack(a, 5_ck, MPI_INTEGER, packed, int(len(packed), ck), pos8, MPI_COMM_WORLD)
  call MPI_Pack(d, 3_ck, MPI_DOUBLE_PRECISION, packed, int(len(packed), ck), pos8, MPI_COMM_WORLD)
  call check(pos8 == 44_ck, 'position after packing 5 integers and 3 doubles')
  call MPI_Irecv(packed2, int(len(packed2), ck), MPI_PACKED, left, 10, MPI_COMM_WORLD, req)
  call MPI_Send(packed, pos8, MPI_PACKED, right, 10, MPI_COMM_WORLD)
  call MPI_Wait(req, status)
  call MPI_Get_count(status, MPI_PACKED, cnt8)
  call check(cnt8 == 44_ck, 'MPI_PACKED count (count kind)')
  b = -1
  e = 0
  k = 0
  call MPI_Unpack(packed2, cnt8, k, b, 5_ck, MPI_INTEGER, MPI_COMM_WORLD)
  call MPI_Unpack(packed2, cnt8, k, e, 3_ck, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD)
  call check(k == 44_ck, 'position after unpacking')
  call check(all(b(1:5) == [(left * 100 + i, i = 1, 5)]) .and. all(b(6:) == -1), &
             'unpacked integers')
  call check(all(e(1:3) == [(left + 0.5d0 * i, i = 1, 3)]) .and. all(e(4:) == 0), &
             'unpacked doubles')

  ! RMA: an MPI_ADDRESS_KIND displacement unit, count-kind Put counts
  wbuf = -1
  call MPI_Win_create(wbuf, int(storage_size(wbuf) / 8 * size(wbuf), ak), 4_ak, MPI_INFO_NULL, &
                      MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  disp = 2
  call MPI_Put(a, 3_ck, MPI_INTEGER, right, disp, 3_ck, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  call MPI_F_sync_reg(wbuf)
  call check(all(wbuf(3:5) == [(left * 100 + i, i = 1, 3)]) .and. wbuf(1) == -1 .and. &
             wbuf(2) == -1 .and. wbuf(6) == -1, 'MPI_Put with count-kind counts')
  call MPI_Win_free(win)

  ! errors: a negative count-kind count is MPI_ERR_COUNT in ierror
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Send(a, -1_ck, MPI_INTEGER, right, 11, MPI_COMM_WORLD, ierr)
  call check(ierr == MPI_ERR_COUNT, 'negative count-kind count: MPI_ERR_COUNT')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL)

  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a,i0,a)', 'f_f08_large: passed on ', nprocs, ' ranks'
  call MPI_Finalize()
  if (failures /= 0) stop 1
end program f_f08_large
