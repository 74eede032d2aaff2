! f_callbacks_f08.f90 — callbacks written in Fortran through `use mpi_f08`:
! keyvals whose copy/delete procedures have the abstract interfaces
! MPI_Comm_copy_attr_function ... (communicator, datatype, window), the
! predefined MPI_COMM_DUP_FN / MPI_TYPE_NULL_COPY_FN ..., a generalized
! request with MPI_Grequest_query/free/cancel_function procedures, the
! sessions calls with TYPE(MPI_Session) and a session error handler,
! MPI_Info_create_env, MPI_BUFFER_AUTOMATIC on a communicator, error classes
! removed, and a profiling tool (f_pmpi_tool.f) seeing mpi_f08's MPI_Send.
module f08_cb
  use mpi_f08
  implicit none
  integer :: failures = 0, myrank = -1
  integer :: copies = 0, deletes = 0, queries = 0, frees = 0, cancels = 0
  integer :: eh_calls = 0, eh_code = -1
  integer(kind=MPI_ADDRESS_KIND) :: last_deleted = -1
  type(MPI_Session) :: eh_session
contains
  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(a,i0,2a)', 'FAIL rank ', myrank, ': ', what
      failures = failures + 1
    end if
  end subroutine check

  subroutine comm_copy(oldcomm, comm_keyval, extra_state, attribute_val_in, attribute_val_out, &
      flag, ierror)
    type(MPI_Comm) :: oldcomm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    logical :: flag
    copies = copies + 1
    attribute_val_out = attribute_val_in * extra_state
    flag = .true.
    ierror = MPI_SUCCESS
  end subroutine comm_copy

  subroutine comm_delete(comm, comm_keyval, attribute_val, extra_state, ierror)
    type(MPI_Comm) :: comm
    integer :: comm_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    last_deleted = attribute_val
    ierror = MPI_SUCCESS
  end subroutine comm_delete

  subroutine type_delete(datatype, type_keyval, attribute_val, extra_state, ierror)
    type(MPI_Datatype) :: datatype
    integer :: type_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    last_deleted = attribute_val
    ierror = MPI_SUCCESS
  end subroutine type_delete

  subroutine win_delete(win, win_keyval, attribute_val, extra_state, ierror)
    type(MPI_Win) :: win
    integer :: win_keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    deletes = deletes + 1
    last_deleted = attribute_val + extra_state
    ierror = MPI_SUCCESS
  end subroutine win_delete

  subroutine gr_query(extra_state, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    type(MPI_Status) :: status
    integer :: ierror
    queries = queries + 1
    status%MPI_TAG = int(extra_state)
    call MPI_Status_set_elements(status, MPI_INTEGER, 2)
    ierror = MPI_SUCCESS
  end subroutine gr_query

  subroutine gr_free(extra_state, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    integer :: ierror
    frees = frees + 1
    ierror = MPI_SUCCESS
  end subroutine gr_free

  subroutine gr_cancel(extra_state, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra_state
    logical :: complete
    integer :: ierror
    cancels = cancels + 1
    ierror = merge(MPI_SUCCESS, MPI_ERR_OTHER, .not. complete)
  end subroutine gr_cancel

  subroutine on_session_error(session, error_code)
    type(MPI_Session) :: session
    integer :: error_code
    eh_calls = eh_calls + 1
    eh_code = error_code
    eh_session = session
  end subroutine on_session_error
end module f08_cb

program f_callbacks_f08
  use mpi_f08
  use f08_cb
  implicit none
  integer :: ierr, rank, nprocs, key, dupkey, tkey, wkey, npsets, plen, vlen, sz, count
  integer :: cls, code, nsend, nbarr, item, next, prev, sumfail
  common /pmpitool/ nsend, nbarr
  type(MPI_Comm) :: comm, dup, scomm
  type(MPI_Datatype) :: newtype, typedup
  type(MPI_Win) :: win
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  type(MPI_Session) :: session
  type(MPI_Group) :: group
  type(MPI_Info) :: info
  type(MPI_Errhandler) :: eh
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag
  character(len=64) :: pname, value
  integer :: winbuf(2)

  nsend = 0
  nbarr = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  myrank = rank
  next = mod(rank + 1, nprocs)
  prev = mod(rank + nprocs - 1, nprocs)
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)

  ! --- communicator keyvals
  call MPI_Comm_create_keyval(comm_copy, comm_delete, key, 3_MPI_ADDRESS_KIND, ierr)
  call check(ierr == MPI_SUCCESS, 'comm_create_keyval')
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, dupkey, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(comm, key, int(10 + rank, MPI_ADDRESS_KIND))
  call MPI_Comm_set_attr(comm, dupkey, 99_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(comm, dup)
  call MPI_Comm_get_attr(dup, key, val, flag)
  call check(copies == 1 .and. flag .and. val == 3 * (10 + rank), 'f08 copy callback')
  call MPI_Comm_get_attr(dup, dupkey, val, flag)
  call check(flag .and. val == 99, 'MPI_COMM_DUP_FN in mpi_f08')
  call MPI_Comm_free(dup)
  call check(deletes == 1 .and. last_deleted == 3 * (10 + rank), 'f08 delete callback on free')
  call MPI_Comm_delete_attr(comm, key)
  call check(deletes == 2 .and. last_deleted == 10 + rank, 'f08 delete_attr')
  call MPI_Comm_free_keyval(key)
  call MPI_Comm_free_keyval(dupkey)

  ! --- datatype and window keyvals
  call MPI_Type_contiguous(2, MPI_INTEGER, newtype)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, type_delete, tkey, 0_MPI_ADDRESS_KIND)
  call MPI_Type_set_attr(newtype, tkey, 5_MPI_ADDRESS_KIND)
  call MPI_Type_dup(newtype, typedup)
  call MPI_Type_get_attr(typedup, tkey, val, flag)
  call check(.not. flag, 'MPI_TYPE_NULL_COPY_FN copies nothing')
  call MPI_Type_free(typedup)
  call MPI_Type_free(newtype)
  call check(deletes == 3 .and. last_deleted == 5, 'type delete callback')
  call MPI_Type_free_keyval(tkey)
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, wkey, 1000_MPI_ADDRESS_KIND)
  call MPI_Win_create(winbuf, 8_MPI_ADDRESS_KIND, 4, MPI_INFO_NULL, comm, win)
  call MPI_Win_set_attr(win, wkey, 6_MPI_ADDRESS_KIND)
  call MPI_Win_free(win)
  call check(deletes == 4 .and. last_deleted == 1006, 'window delete callback with extra_state')
  call MPI_Win_free_keyval(wkey)

  ! --- generalized request
  call MPI_Grequest_start(gr_query, gr_free, gr_cancel, int(rank + 40, MPI_ADDRESS_KIND), req)
  call MPI_Cancel(req)
  call check(cancels == 1, 'f08 cancel callback')
  call MPI_Grequest_complete(req)
  call MPI_Wait(req, status)
  call check(queries == 1 .and. frees == 1, 'f08 query and free callbacks')
  call check(status%MPI_TAG == rank + 40, 'f08 status from the query callback')
  call MPI_Get_count(status, MPI_INTEGER, count)
  call check(count == 2, 'f08 count from the query callback')

  ! --- sessions
  call MPI_Session_create_errhandler(on_session_error, eh, ierr)
  call check(ierr == MPI_SUCCESS, 'session_create_errhandler')
  call MPI_Session_init(MPI_INFO_NULL, eh, session, ierr)
  call check(ierr == MPI_SUCCESS .and. session /= MPI_SESSION_NULL, 'session_init')
  call MPI_Session_get_num_psets(session, MPI_INFO_NULL, npsets)
  call check(npsets >= 2, 'get_num_psets')
  plen = len(pname)
  call MPI_Session_get_nth_pset(session, MPI_INFO_NULL, 1, plen, pname)
  call check(pname == 'mpi://SELF', 'get_nth_pset(1)')
  call MPI_Session_get_pset_info(session, 'mpi://WORLD', info)
  vlen = len(value)
  call MPI_Info_get_string(info, 'mpi_size', vlen, value, flag)
  read (value, *) sz
  call check(flag .and. sz == nprocs, 'pset info mpi_size')
  call MPI_Info_free(info)
  ! an error on the session goes to its Fortran handler with the session
  call MPI_Group_from_session_pset(session, 'mpi://NOWHERE', group, ierr)
  call check(ierr == MPI_ERR_ARG .and. eh_calls == 1 .and. eh_code == MPI_ERR_ARG, &
      'session error handler called')
  call check(eh_session == session, 'session error handler got the session')
  call MPI_Session_call_errhandler(session, MPI_ERR_OTHER, ierr)
  call check(eh_calls == 2 .and. eh_code == MPI_ERR_OTHER, 'session_call_errhandler')
  call MPI_Group_from_session_pset(session, 'mpi://WORLD', group)
  call MPI_Comm_create_from_group(group, 'org.skiff.test.f08', MPI_INFO_NULL, &
      MPI_ERRORS_RETURN, scomm, ierr)
  call check(ierr == MPI_SUCCESS, 'comm_create_from_group')
  call MPI_Group_free(group)
  ! an automatic buffer on the communicator
  call MPI_Comm_attach_buffer(scomm, MPI_BUFFER_AUTOMATIC, 0, ierr)
  call check(ierr == MPI_SUCCESS, 'comm_attach_buffer(MPI_BUFFER_AUTOMATIC)')
  call MPI_Bsend(rank, 1, MPI_INTEGER, next, 1, scomm, ierr)
  call check(ierr == MPI_SUCCESS, 'bsend into the automatic buffer')
  call MPI_Recv(item, 1, MPI_INTEGER, prev, 1, scomm, MPI_STATUS_IGNORE)
  call check(item == prev, 'bsend delivered')
  call MPI_Comm_iflush_buffer(scomm, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  call MPI_Comm_free(scomm)
  call MPI_Session_finalize(session, ierr)
  call check(ierr == MPI_SUCCESS .and. session == MPI_SESSION_NULL, 'session_finalize')
  call MPI_Errhandler_free(eh)

  ! --- MPI_Info_create_env
  call MPI_Info_create_env(info, ierr)
  vlen = len(value)
  call MPI_Info_get_string(info, 'command', vlen, value, flag)
  call check(ierr == MPI_SUCCESS .and. flag .and. index(value, 'f_callbacks_f08') > 0, &
      'info_create_env command')
  call MPI_Info_free(info)

  ! --- error classes removed
  call MPI_Add_error_class(cls)
  call MPI_Add_error_code(cls, code)
  call MPI_Add_error_string(code, 'f08 test code')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Remove_error_code(code, ierr)
  call check(ierr == MPI_ERR_ARG, 'code with a string is not removed')
  call MPI_Remove_error_string(code, ierr)
  call MPI_Remove_error_code(code, ierr)
  call MPI_Remove_error_class(cls, ierr)
  call check(ierr == MPI_SUCCESS, 'removed in order')

  ! --- the profiling tool sees mpi_f08's MPI_Send and MPI_Barrier
  call check(nsend == 0 .and. nbarr == 0, 'no sends counted yet')
  call MPI_Send(rank, 1, MPI_INTEGER, next, 2, MPI_COMM_WORLD)
  call MPI_Recv(item, 1, MPI_INTEGER, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_F_sync_reg(item)
  call check(item == prev, 'received (MPI_F_sync_reg in between)')
  call MPI_Barrier(MPI_COMM_WORLD)
  call check(nsend == 1 .and. nbarr == 1, 'the tool saw the f08 calls')

  call MPI_Comm_free(comm)
  call MPI_Allreduce(failures, sumfail, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. sumfail == 0) print '(a,i0,a)', 'f_callbacks_f08: ', nprocs, ' ranks OK'
  call MPI_Finalize()
  if (failures /= 0) stop 1
end program f_callbacks_f08
