! f_callbacks_usempi.f90 — callbacks written in Fortran through `use mpi`:
! attribute copy/delete callbacks of communicator, datatype and window keyvals
! (and MPI-1's MPI_KEYVAL_CREATE), the predefined MPI_*_NULL_COPY_FN /
! MPI_*_DUP_FN / MPI_*_NULL_DELETE_FN, the flag of a copy callback, an error
! returned by one, the predefined attributes, and generalized requests whose
! query/free/cancel functions are Fortran subroutines.
module cb_state
  implicit none
  integer :: failures = 0, myrank = -1
  integer :: copies = 0, deletes = 0, last_obj = -1, last_key = -1
  integer(kind=8) :: last_deleted = -1
  integer :: queries = 0, frees = 0, cancels = 0
  logical :: cancel_complete = .false.
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'FAIL rank ', myrank, ': ', what
      failures = failures + 1
    end if
  end subroutine check
end module cb_state

! copy: the new value is the old one plus extra_state; odd values are not copied
subroutine add_extra_copy(oldobj, keyval, extra, valin, valout, flag, ierror)
  use mpi
  use cb_state
  implicit none
  integer :: oldobj, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  copies = copies + 1
  last_obj = oldobj
  last_key = keyval
  valout = valin + extra
  flag = mod(valin, 2_MPI_ADDRESS_KIND) == 0
  ierror = MPI_SUCCESS
end subroutine add_extra_copy

subroutine failing_copy(oldobj, keyval, extra, valin, valout, flag, ierror)
  use mpi
  implicit none
  integer :: oldobj, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: extra, valin, valout
  logical :: flag
  valout = 0
  flag = .false.
  ierror = MPI_ERR_OTHER
end subroutine failing_copy

subroutine count_delete(obj, keyval, val, extra, ierror)
  use mpi
  use cb_state
  implicit none
  integer :: obj, keyval, ierror
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  deletes = deletes + 1
  last_deleted = val
  last_obj = obj
  ierror = MPI_SUCCESS
end subroutine count_delete

! MPI-1 callbacks: every value a default INTEGER
subroutine old_copy(oldcomm, keyval, extra, valin, valout, flag, ierror)
  use cb_state
  implicit none
  integer :: oldcomm, keyval, extra, valin, valout, ierror
  logical :: flag
  copies = copies + 1
  valout = valin * extra
  flag = .true.
  ierror = 0
end subroutine old_copy

subroutine old_delete(comm, keyval, val, extra, ierror)
  use cb_state
  implicit none
  integer :: comm, keyval, val, extra, ierror
  deletes = deletes + 1
  last_deleted = val
  ierror = 0
end subroutine old_delete

! generalized request: extra_state is the value the query puts in MPI_TAG
subroutine gr_query(extra, status, ierror)
  use mpi
  use cb_state
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: status(MPI_STATUS_SIZE), ierror
  queries = queries + 1
  status(MPI_SOURCE) = MPI_UNDEFINED
  status(MPI_TAG) = int(extra)
  call MPI_Status_set_elements(status, MPI_INTEGER, 3, ierror)
  call MPI_Status_set_cancelled(status, .false., ierror)
  ierror = MPI_SUCCESS
end subroutine gr_query

subroutine gr_free(extra, ierror)
  use mpi
  use cb_state
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  integer :: ierror
  frees = frees + 1
  ierror = MPI_SUCCESS
end subroutine gr_free

subroutine gr_cancel(extra, complete, ierror)
  use mpi
  use cb_state
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: extra
  logical :: complete
  integer :: ierror
  cancels = cancels + 1
  cancel_complete = complete
  ierror = MPI_SUCCESS
end subroutine gr_cancel

program f_callbacks_usempi
  use mpi
  use cb_state
  implicit none
  external add_extra_copy, failing_copy, count_delete, old_copy, old_delete
  external gr_query, gr_free, gr_cancel
  integer :: ierr, rank, nprocs, comm, dup, dup2, key, nullkey, dupkey, badkey, oldkey
  integer :: tkey, wkey, newtype, typedup, win, req, ival, sumfail, count
  integer :: status(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: val, extra
  logical :: flag
  integer :: winbuf(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  myrank = rank
  call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)

  ! --- communicator keyvals with Fortran callbacks
  extra = 1000
  call MPI_Comm_create_keyval(add_extra_copy, count_delete, key, extra, ierr)
  call check(ierr == MPI_SUCCESS .and. key /= MPI_KEYVAL_INVALID, 'comm_create_keyval')
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, nullkey, extra, ierr)
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dupkey, extra, ierr)
  call check(ierr == MPI_SUCCESS, 'keyvals with predefined callbacks')
  val = 42 + rank * 2
  call MPI_Comm_set_attr(comm, key, val, ierr)
  call MPI_Comm_set_attr(comm, nullkey, 7_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(comm, dupkey, -5_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  call check(ierr == MPI_SUCCESS, 'dup with callbacks')
  call check(copies == 1, 'copy callback ran once')
  call check(last_obj == comm, 'copy callback got the old communicator')
  call check(last_key == key, 'copy callback got the keyval')
  call MPI_Comm_get_attr(dup, key, val, flag, ierr)
  call check(flag .and. val == 42 + rank * 2 + 1000, 'copied value is the callback''s')
  call MPI_Comm_get_attr(dup, nullkey, val, flag, ierr)
  call check(.not. flag, 'MPI_COMM_NULL_COPY_FN copies nothing')
  call MPI_Comm_get_attr(dup, dupkey, val, flag, ierr)
  call check(flag .and. val == -5, 'MPI_COMM_DUP_FN copies the value')
  ! a copy callback that says flag = .false.: the dup has no attribute
  call MPI_Comm_set_attr(comm, key, 43_MPI_ADDRESS_KIND, ierr)
  call check(deletes == 1 .and. last_deleted == 42 + rank * 2, 'overwrite deletes the old value')
  call MPI_Comm_dup(comm, dup2, ierr)
  call MPI_Comm_get_attr(dup2, key, val, flag, ierr)
  call check(copies == 2 .and. .not. flag, 'flag .false. leaves the attribute out')
  call MPI_Comm_free(dup2, ierr)
  call check(deletes == 1, 'no delete for an attribute not copied')
  ! delete_attr and free run the delete callback with the value
  call MPI_Comm_delete_attr(comm, key, ierr)
  call check(ierr == MPI_SUCCESS .and. deletes == 2 .and. last_deleted == 43, 'delete_attr')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 3 .and. last_deleted == 42 + rank * 2 + 1000, 'free deletes')
  ! a copy callback's error comes back from MPI_Comm_dup
  call MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, badkey, extra, ierr)
  call MPI_Comm_set_attr(comm, badkey, 1_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  call check(ierr == MPI_ERR_OTHER, 'copy callback error returned by MPI_Comm_dup')
  call MPI_Comm_delete_attr(comm, badkey, ierr)
  call MPI_Comm_free_keyval(badkey, ierr)
  call MPI_Comm_free_keyval(key, ierr)
  call check(ierr == MPI_SUCCESS .and. key == MPI_KEYVAL_INVALID, 'free_keyval')
  call MPI_Comm_free_keyval(nullkey, ierr)
  call MPI_Comm_free_keyval(dupkey, ierr)

  ! --- MPI-1: MPI_KEYVAL_CREATE, MPI_ATTR_PUT/GET with default INTEGERs
  copies = 0
  deletes = 0
  call MPI_Keyval_create(old_copy, old_delete, oldkey, 3, ierr)
  call check(ierr == MPI_SUCCESS, 'keyval_create')
  call MPI_Attr_put(comm, oldkey, 5 + rank, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  call MPI_Attr_get(dup, oldkey, ival, flag, ierr)
  call check(copies == 1 .and. flag .and. ival == 3 * (5 + rank), 'MPI-1 copy callback')
  call MPI_Comm_free(dup, ierr)
  call check(deletes == 1 .and. last_deleted == 3 * (5 + rank), 'MPI-1 delete callback')
  call MPI_Attr_delete(comm, oldkey, ierr)
  call check(deletes == 2 .and. last_deleted == 5 + rank, 'MPI_ATTR_DELETE')
  call MPI_Keyval_free(oldkey, ierr)
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, oldkey, 0, ierr)
  call MPI_Attr_put(comm, oldkey, -9, ierr)
  call MPI_Comm_dup(comm, dup, ierr)
  call MPI_Attr_get(dup, oldkey, ival, flag, ierr)
  call check(flag .and. ival == -9, 'MPI_DUP_FN')
  call MPI_Comm_free(dup, ierr)
  call MPI_Attr_delete(comm, oldkey, ierr)
  call MPI_Keyval_free(oldkey, ierr)

  ! --- datatype keyvals: MPI_Type_dup copies, MPI_Type_free deletes
  copies = 0
  deletes = 0
  call MPI_Type_contiguous(3, MPI_INTEGER, newtype, ierr)
  call MPI_Type_create_keyval(add_extra_copy, count_delete, tkey, 10_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_set_attr(newtype, tkey, 8_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_dup(newtype, typedup, ierr)
  call check(copies == 1 .and. last_obj == newtype, 'type copy callback')
  call MPI_Type_get_attr(typedup, tkey, val, flag, ierr)
  call check(flag .and. val == 18, 'type attribute copied')
  call MPI_Type_free(typedup, ierr)
  call check(deletes == 1 .and. last_deleted == 18, 'type delete callback')
  call MPI_Type_free(newtype, ierr)
  call check(deletes == 2 .and. last_deleted == 8, 'type free deletes')
  call MPI_Type_free_keyval(tkey, ierr)

  ! --- window keyvals: MPI_Win_free deletes
  deletes = 0
  call MPI_Win_create_keyval(MPI_WIN_DUP_FN, count_delete, wkey, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_create(winbuf, 16_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, comm, win, ierr)
  call MPI_Win_set_attr(win, wkey, 77_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_get_attr(win, wkey, val, flag, ierr)
  call check(flag .and. val == 77, 'window attribute')
  call MPI_Win_free(win, ierr)
  call check(deletes == 1 .and. last_deleted == 77, 'window free deletes')
  call MPI_Win_free_keyval(wkey, ierr)

  ! --- predefined attributes
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(flag .and. val >= 32767, 'MPI_TAG_UB')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, val, flag, ierr)
  call check(ierr == MPI_SUCCESS .and. (.not. flag .or. val == 0), 'MPI_APPNUM')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, val, flag, ierr)
  call check(.not. flag .or. val >= nprocs, 'MPI_UNIVERSE_SIZE')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, val, flag, ierr)
  call check(.not. flag .or. val == 0 .or. val == 1, 'MPI_WTIME_IS_GLOBAL')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, ival, flag, ierr)
  call check(flag .and. ival >= 32767, 'MPI_ATTR_GET(MPI_TAG_UB)')

  ! --- generalized requests with Fortran callbacks
  call MPI_Grequest_start(gr_query, gr_free, gr_cancel, int(100 + rank, MPI_ADDRESS_KIND), req, ierr)
  call check(ierr == MPI_SUCCESS .and. req /= MPI_REQUEST_NULL, 'grequest_start')
  call MPI_Test(req, flag, status, ierr)
  call check(.not. flag .and. queries == 0, 'not complete before MPI_GREQUEST_COMPLETE')
  call MPI_Grequest_complete(req, ierr)
  call check(ierr == MPI_SUCCESS, 'grequest_complete')
  call MPI_Wait(req, status, ierr)
  call check(queries == 1 .and. frees == 1 .and. req == MPI_REQUEST_NULL, 'query and free ran')
  call check(status(MPI_TAG) == 100 + rank, 'status filled by the query function')
  call MPI_Get_count(status, MPI_INTEGER, count, ierr)
  call check(count == 3, 'count set by the query function')
  call MPI_Grequest_start(gr_query, gr_free, gr_cancel, 5_MPI_ADDRESS_KIND, req, ierr)
  call MPI_Cancel(req, ierr)
  call check(cancels == 1 .and. .not. cancel_complete, 'cancel callback, complete = .false.')
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call check(queries == 2 .and. frees == 2, 'second request freed')

  call MPI_Comm_free(comm, ierr)
  call MPI_Allreduce(failures, sumfail, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. sumfail == 0) print '(a,i0,a)', 'f_callbacks_usempi: ', nprocs, ' ranks OK'
  call MPI_Finalize(ierr)
  if (failures /= 0) stop 1
end program f_callbacks_usempi
