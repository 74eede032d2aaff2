! f_spawn_f08: MPI_Comm_spawn and MPI_Comm_spawn_multiple from mpi_f08.
! The parents spawn this program three times: with an argv of blank-padded
! elements (one with an inner blank) ended by a blank one, with MPI_ARGV_NULL
! and MPI_ERRCODES_IGNORE, and as two commands of spawn_multiple (rows of a
! 2-D argv).  Each child checks the arguments it got (and its MPI_APPNUM);
! a wrong one aborts, which ends the parents' job too.
program f_spawn_f08
  use mpi_f08
  implicit none
  type(MPI_Comm) :: parent, inter
  character(len=4096) :: exe, a1, a2
  character(len=16) :: argv(3), argvs(2, 3)
  character(len=4096) :: cmds(2)
  integer :: errs(3), np(2), rs, nargs, rank, i, appnum
  integer(kind=MPI_ADDRESS_KIND) :: av
  logical :: flag
  type(MPI_Info) :: infos(2)

  call MPI_Init()
  call MPI_Comm_get_parent(parent)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  nargs = command_argument_count()
  if (parent /= MPI_COMM_NULL) then
    a1 = ''
    a2 = ''
    if (nargs >= 1) call get_command_argument(1, a1)
    if (nargs >= 2) call get_command_argument(2, a2)
    if (nargs == 0) then
      continue ! spawned with MPI_ARGV_NULL
    else if (a1 == 'one') then
      if (nargs /= 2 .or. a2 /= 'two words') call fail('argv: '//trim(a1)//'|'//trim(a2))
    else if (a1 == 'multi') then
      call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, av, flag)
      read (a2, *) appnum
      if (nargs /= 2 .or. .not. flag .or. av /= appnum) call fail('appnum')
    else
      call fail('unexpected arguments: '//trim(a1))
    end if
    call MPI_Comm_disconnect(parent)
    call MPI_Finalize()
    stop
  end if

  call get_command_argument(0, exe)
  argv(1) = 'one'
  argv(2) = 'two words'
  argv(3) = ' '
  errs = -1
  call MPI_Comm_spawn(exe, argv, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, errs)
  call MPI_Comm_remote_size(inter, rs)
  if (rs /= 2) call fail('remote size')
  if (rank == 0 .and. any(errs(1:2) /= MPI_SUCCESS)) call fail('errcodes')
  call MPI_Comm_disconnect(inter)

  call MPI_Comm_spawn(exe, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                      MPI_ERRCODES_IGNORE)
  call MPI_Comm_disconnect(inter)

  cmds = exe
  do i = 1, 2
    argvs(i, 1) = 'multi'
    write (argvs(i, 2), '(I0)') i - 1
    argvs(i, 3) = ' '
    infos(i) = MPI_INFO_NULL
  end do
  np = [1, 2]
  errs = -1
  call MPI_Comm_spawn_multiple(2, cmds, argvs, np, infos, 0, MPI_COMM_WORLD, inter, errs)
  call MPI_Comm_remote_size(inter, rs)
  if (rs /= 3) call fail('spawn_multiple remote size')
  if (rank == 0 .and. any(errs /= MPI_SUCCESS)) call fail('spawn_multiple errcodes')
  call MPI_Comm_disconnect(inter)
  if (rank == 0) print '(A)', 'f_spawn_f08: OK'
  call MPI_Finalize()
contains
  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(A)', 'f_spawn_f08: FAILED: '//what
    call MPI_Abort(MPI_COMM_WORLD, 3)
  end subroutine fail
end program f_spawn_f08
