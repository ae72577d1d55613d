! ft_sum_f08: ft_sum.f90 written in Fortran 2008 against `use mpi_f08` (TYPE(MPI_Comm) handles,
! IERROR left out where it is not needed): loses a process and finishes with the right answer.
!
! Each of STEPS steps sums g(i) = mod(i*i, 1000003) over a block of indices shared out over the
! valid ranks of MPI_COMM_WORLD, combining the partial sums with MPI_Allreduce (INTEGER8, so the
! result is exact whatever the decomposition). At step KILL_STEP the process VICTIM kills itself
! with SIGKILL. Errors return (MPI_ERRORS_RETURN), so the survivors see the failed Allreduce,
! repair MPI_COMM_WORLD with MPI_Comm_dup, agree on the state and redo the step:
!  - SHRINK: the world is renumbered and smaller; the work is shared over the survivors;
!  - REBUILD: a replacement takes the dead rank; it starts from the beginning of the program,
!    sees FTMPI_INIT_RESTARTED, makes the same repair call and gets the step and the running
!    total from the survivors in the state agreement.
! Rank 0 checks the total against a serial sum.
!
!   mpirun -n 5 --comm-mode shrink|blank|rebuild ft_sum_f08 [VICTIM [KILL_STEP]]
program ft_sum_f08
  use mpi_f08
  implicit none
  integer, parameter :: steps = 30, block = 100000
  integer :: ierr, rank, nprocs, me, nvalid, victim, kill_step, step, init_state, failures
  integer :: comm_mode, msg_mode, state(2), r, st
  integer(kind=8) :: part, total, expect, sums(1), i
  character(len=16) :: arg

  call MPI_Init()
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call FTMPI_Comm_get_mode(MPI_COMM_WORLD, comm_mode, msg_mode)
  call FTMPI_Init_state(init_state)
  victim = nprocs / 2
  kill_step = steps / 2
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) victim
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) kill_step
  end if
  if (rank == 0 .and. init_state == FTMPI_INIT_NEW) then
    print '(a,i0,a,i0,a,i0,a,i0,a,a)', 'ft_sum_f08: ', nprocs, ' ranks, ', steps, ' steps; rank ', &
      victim, ' dies at step ', kill_step, '; mode ', trim(mode_name(comm_mode))
    flush (6)
  end if

  total = 0
  step = 0
  failures = 0
  me = rank
  nvalid = nprocs
  if (init_state == FTMPI_INIT_RESTARTED) then
    print '(a,i0,a)', 'ft_sum_f08: replacement for rank ', rank, ' started'
    flush (6)
    call recover()
  end if

  do while (step < steps)
    if (rank == victim .and. step == kill_step .and. init_state == FTMPI_INIT_NEW .and. failures == 0) then
      flush (6)
      call kill(getpid(), 9)
    end if
    part = 0
    do i = int(step, 8) * block + me, int(step + 1, 8) * block - 1, nvalid
      part = part + mod(i * i, 1000003_8)
    end do
    call MPI_Allreduce(part, sums, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (ierr /= MPI_SUCCESS) then
      call recover()
      cycle  ! redo this step on the repaired communicator
    end if
    total = total + sums(1)
    step = step + 1
  end do

  if (me == 0) then
    expect = 0
    do i = 0, int(steps, 8) * block - 1
      expect = expect + mod(i * i, 1000003_8)
    end do
    if (total == expect) then
      print '(a,i0,a,i0,a,i0,a)', 'ft_sum_f08: total ', total, ' on ', nvalid, ' ranks after ', failures, &
        ' failure(s): CORRECT'
    else
      print '(a,i0,a,i0,a)', 'ft_sum_f08: total ', total, ', serial ', expect, ': WRONG'
    end if
  end if
  call MPI_Finalize()

contains

  ! Repairs MPI_COMM_WORLD (the same call in survivors and replacements), then agrees on the
  ! state: the highest step and total (a replacement brings -1 and 0). Retried if a process dies
  ! meanwhile.
  subroutine recover()
    integer :: rc, failed(8), nfailed
    type(MPI_Comm) :: tmp
    integer(kind=8) :: t(1)
    do
      call FTMPI_Comm_failed_ranks(MPI_COMM_WORLD, 8, failed, nfailed, rc)
      call MPI_Comm_dup(MPI_COMM_WORLD, tmp, rc)
      if (rc /= MPI_SUCCESS) cycle
      call MPI_Comm_free(tmp)
      call MPI_Comm_rank(MPI_COMM_WORLD, rank)
      call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
      call FTMPI_Comm_valid_size(MPI_COMM_WORLD, nvalid)
      me = 0
      do r = 0, rank - 1  ! BLANK leaves gaps: count the valid ranks below me
        call FTMPI_Comm_proc_state(MPI_COMM_WORLD, r, st)
        if (st /= FTMPI_PROC_FAILED) me = me + 1
      end do
      state = [ step, failures + 1 ]
      if (init_state == FTMPI_INIT_RESTARTED .and. failures == 0) state = [ -1, 0 ]
      call MPI_Allreduce(MPI_IN_PLACE, state, 2, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, rc)
      if (rc /= MPI_SUCCESS) cycle
      t(1) = total
      if (init_state == FTMPI_INIT_RESTARTED .and. failures == 0) t(1) = -1
      call MPI_Allreduce(MPI_IN_PLACE, t, 1, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD, rc)
      if (rc /= MPI_SUCCESS) cycle
      exit
    end do
    step = state(1)
    failures = state(2)
    total = t(1)
    print '(a,i0,a,i0,a,i0,a,i0)', 'ft_sum_f08: rank ', rank, ' of ', nprocs, ' resumes at step ', step, &
      ' after failure ', failures
    flush (6)
  end subroutine recover

  function mode_name(mode) result(name)
    integer, intent(in) :: mode
    character(len=8) :: name
    select case (mode)
    case (FTMPI_COMM_MODE_SHRINK); name = 'SHRINK'
    case (FTMPI_COMM_MODE_BLANK); name = 'BLANK'
    case (FTMPI_COMM_MODE_REBUILD); name = 'REBUILD'
    case default; name = 'other'
    end select
  end function mode_name
end program ft_sum_f08
