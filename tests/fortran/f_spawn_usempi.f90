! f_spawn_usempi: MPI_Comm_spawn / MPI_Comm_spawn_multiple through module mpi
! (mpif.h's sentinels MPI_ARGV_NULL, MPI_ARGVS_NULL, MPI_ERRCODES_IGNORE).
! Children check their arguments and abort if wrong (ending the parents too).
program f_spawn_usempi
  use mpi
  implicit none
  integer :: parent, inter, ierr, rs, nargs, errs(2), np(2), infos(2)
  character(len=4096) :: exe, a1
  character(len=8) :: argv(2)
  character(len=4096) :: cmds(2)

  call MPI_Init(ierr)
  call MPI_Comm_get_parent(parent, ierr)
  nargs = command_argument_count()
  if (parent /= MPI_COMM_NULL) then
    a1 = ''
    if (nargs >= 1) call get_command_argument(1, a1)
    if (.not. (nargs == 0 .or. (nargs == 1 .and. a1 == 'child'))) then
      print '(A)', 'f_spawn_usempi: FAILED: child arguments'
      call MPI_Abort(MPI_COMM_WORLD, 3, ierr)
    end if
    call MPI_Comm_disconnect(parent, ierr)
    call MPI_Finalize(ierr)
    stop
  end if
  call get_command_argument(0, exe)
  argv(1) = 'child'
  argv(2) = ''
  call MPI_Comm_spawn(exe, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errs, ierr)
  if (ierr /= MPI_SUCCESS) stop 1
  call MPI_Comm_remote_size(inter, rs, ierr)
  if (rs /= 2) stop 2
  call MPI_Comm_disconnect(inter, ierr)
  cmds = exe
  np = [2, 1]
  infos = MPI_INFO_NULL
  call MPI_Comm_spawn_multiple(2, cmds, MPI_ARGVS_NULL, np, infos, 0, MPI_COMM_WORLD, inter, &
                               MPI_ERRCODES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) stop 3
  call MPI_Comm_remote_size(inter, rs, ierr)
  if (rs /= 3) stop 4
  call MPI_Comm_disconnect(inter, ierr)
  call MPI_Comm_spawn(exe, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                      MPI_ERRCODES_IGNORE, ierr)
  call MPI_Comm_disconnect(inter, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rs, ierr)
  if (rs == 0) print '(A)', 'f_spawn_usempi: OK'
  call MPI_Finalize(ierr)
end program f_spawn_usempi
