! A failure while a receive into a strided section is pending (`use mpi_f08`): rank 0 posts a
! receive into a 2-D section from the last rank, which never sends and SIGKILLs itself after a
! barrier, and one from rank 1, which completes. The wait on the dead sender's receive fails
! (the request is freed and nothing outside the section is written), so does an MPI_Iallgather
! into a section (staged through a temporary, freed on the error); the survivors repair (SHRINK:
! MPI_Comm_dup of MPI_COMM_WORLD; ULFM: MPIX_Comm_shrink) and exchange 3-D sections with negative
! strides on the repaired communicator, then reduce over sections with MPI_Iallreduce.
!   mpirun -n 3 --comm-mode shrink f08_subarray_ft shrink
!   mpirun -n 3 --with-ft ulfm f08_subarray_ft ulfm
program f08_subarray_ft
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  interface
    integer(c_int) function c_getpid() bind(C, name="getpid")
      import :: c_int
    end function c_getpid
    integer(c_int) function c_kill(pid, sig) bind(C, name="kill")
      import :: c_int
      integer(c_int), value :: pid, sig
    end function c_kill
  end interface
  integer :: rank, nprocs, victim, ierr, i, tries, me, n
  integer, asynchronous :: grid(8, 6), lane(20), cube(3, 4, 2), back(3, 4, 2), ring(2, 3)
  double precision, asynchronous :: sums(10)
  type(MPI_Request) :: dead, live, gather, reqs(2)
  type(MPI_Comm) :: comm
  character(len=8) :: mode

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call get_command_argument(1, mode)
  if (nprocs /= 3 .or. (mode /= 'shrink' .and. mode /= 'ulfm')) call fail('usage: -n 3 ... shrink|ulfm')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  victim = nprocs - 1
  grid = -1
  lane = -1
  if (rank == 0) then
    call MPI_Irecv(grid(2:8:3, 6:1:-1), 18, MPI_INTEGER, victim, 1, MPI_COMM_WORLD, dead)
    call MPI_Irecv(lane(20:1:-2), 10, MPI_INTEGER, 1, 2, MPI_COMM_WORLD, live)
    call MPI_Wait(live, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS .or. any(lane(20:1:-2) /= [(i, i = 1, 10)]) .or. any(lane(1:19:2) /= -1)) &
      call fail('the receive into a section from a live rank')
  else if (rank == 1) then
    call MPI_Send([(i, i = 1, 10)], 10, MPI_INTEGER, 0, 2, MPI_COMM_WORLD)
  end if
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == victim) then
    flush (6)
    i = c_kill(c_getpid(), 9)
  end if
  ! A staged section (a temporary stands in for it) in a collective the dead rank never joins.
  ring = -1
  call MPI_Iallgather(rank, 1, MPI_INTEGER, ring(2, :), 1, MPI_INTEGER, MPI_COMM_WORLD, gather)
  if (rank == 0) then
    call MPI_Wait(dead, MPI_STATUS_IGNORE, ierr)
    if (ierr == MPI_SUCCESS) call fail('a receive from a dead rank succeeded')
    if (dead /= MPI_REQUEST_NULL) call fail('the failed request was not freed')
    if (any(grid(1:7:3, :) /= -1) .or. any(grid(3:6:3, :) /= -1)) call fail('written outside the section')
  end if
  call MPI_Wait(gather, MPI_STATUS_IGNORE, ierr)
  if (ierr == MPI_SUCCESS) call fail('an allgather without the dead rank succeeded')
  if (gather /= MPI_REQUEST_NULL .or. any(ring(1, :) /= -1)) call fail('the failed allgather')

  ! Repair: every survivor makes the same call until it succeeds.
  do tries = 1, 50
    if (mode == 'ulfm') then
      call MPIX_Comm_shrink(MPI_COMM_WORLD, comm, ierr)
    else
      call MPI_Comm_dup(MPI_COMM_WORLD, comm, ierr)
    end if
    if (ierr == MPI_SUCCESS) exit
  end do
  if (ierr /= MPI_SUCCESS) call fail('repair')
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)
  call MPI_Comm_rank(comm, me)
  call MPI_Comm_size(comm, n)
  if (n /= 2) call fail('the repaired communicator has the two survivors')

  ! 3-D sections with negative strides between the survivors.
  cube = reshape([(100 * me + i, i = 1, 24)], [3, 4, 2])
  back = -1
  call MPI_Irecv(back(3:1:-2, :, 2:1:-1), 16, MPI_INTEGER, 1 - me, 3, comm, reqs(1))
  call MPI_Isend(cube(1:3:2, 4:1:-1, :), 16, MPI_INTEGER, 1 - me, 3, comm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) call fail('section exchange after the repair')
  cube = reshape([(100 * (1 - me) + i, i = 1, 24)], [3, 4, 2])
  if (any(back(3:1:-2, :, 2:1:-1) /= cube(1:3:2, 4:1:-1, :)) .or. any(back(2, :, :) /= -1)) &
    call fail('section values after the repair')
  sums = [(dble(i), i = 1, 10)]
  call MPI_Iallreduce(MPI_IN_PLACE, sums(10:1:-3), 4, MPI_DOUBLE_PRECISION, MPI_SUM, comm, reqs(1), ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS .or. any(sums(10:1:-3) /= 2d0 * [10d0, 7d0, 4d0, 1d0]) .or. sums(2) /= 2d0) &
    call fail('Iallreduce over a section after the repair')
  call MPI_Comm_free(comm)
  if (me == 0) print '(a,a,a)', 'f08_subarray_ft: ', trim(mode), ': PASS'
  call MPI_Finalize()

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'f08_subarray_ft: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_subarray_ft
