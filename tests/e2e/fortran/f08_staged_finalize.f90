! A staged strided section (fortran/src/fortran_f08_staged.c) whose request is still pending at
! MPI_Finalize: the library runs the request's hook there (ftmpi/src/api_env.cpp), so the
! temporary is freed, not leaked. ftmpi_f08_staged_outstanding (a count the Fortran layer keeps
! for this test, not an MPI call) says how many calls' temporaries are allocated: 0 after a
! staged MPI_Iallgather completed by MPI_Wait, 2 with an Iallgather and an Ialltoall left
! pending, and 0 again after MPI_Finalize (before the fix: still 2).
program f08_staged_finalize
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function ftmpi_f08_staged_outstanding() bind(C, name="ftmpi_f08_staged_outstanding")
      import :: c_int
    end function ftmpi_f08_staged_outstanding
  end interface
  integer :: rank, nprocs, i
  integer, allocatable, asynchronous :: gathered(:), sent(:), swapped(:)
  integer, asynchronous :: one(1)
  type(MPI_Request) :: req, pending(2)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  allocate(gathered(2 * nprocs), sent(2 * nprocs), swapped(2 * nprocs))
  ! Completed: the section gets the data and the temporary goes.
  gathered = -1
  one(1) = rank
  call MPI_Iallgather(one, 1, MPI_INTEGER, gathered(1::2), 1, MPI_INTEGER, MPI_COMM_WORLD, req)
  if (ftmpi_f08_staged_outstanding() /= 1) call fail('a staged call is not counted')
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (any(gathered(1::2) /= [(i, i = 0, nprocs - 1)])) call fail('gathered values')
  if (ftmpi_f08_staged_outstanding() /= 0) call fail('temporary left after MPI_Wait')
  ! Left pending: an erroneous program, but MPI_Finalize must not leak what it holds.
  call MPI_Iallgather(one, 1, MPI_INTEGER, gathered(2::2), 1, MPI_INTEGER, MPI_COMM_WORLD, pending(1))
  sent = rank
  call MPI_Ialltoall(sent(1::2), 1, MPI_INTEGER, swapped(2::2), 1, MPI_INTEGER, MPI_COMM_WORLD, pending(2))
  if (ftmpi_f08_staged_outstanding() /= 2) call fail('two pending staged calls not counted')
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
  if (ftmpi_f08_staged_outstanding() /= 0) then
    print '(a, i0, a, i0, a)', 'f08_staged_finalize: rank ', rank, ': FAIL: ', &
        ftmpi_f08_staged_outstanding(), ' staged temporaries left after MPI_Finalize'
    error stop 1
  end if
  if (rank == 0) print '(a, i0, a)', 'f08_staged_finalize: ', nprocs, ' ranks: PASS'

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, a, a)', 'f08_staged_finalize: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_staged_finalize
