! A staged strided section (fortran/src/fortran_f08_staged.c: the temporary a nonblocking
! gather/alltoall works on instead of the section) belongs to its request: it is copied back
! and freed however the request completes, and only then.
!  - completed by `use mpi`'s MPI_Wait / MPI_Request_get_status on the handle number (C's own
!    calls underneath): the section gets the data (before the completion hook it kept its old
!    values and the temporary stayed behind);
!  - the next request, which reuses that handle number in ftmpi's request pool, is completed
!    by mpi_f08's MPI_Wait: the section must keep what the program put there since (before,
!    the stale temporary was found under the reused number and copied over it);
!  - through MPI_Waitall of mpi_f08, a staged request next to an ordinary one.
! Ten rounds each (the pool hands the number back every time; at least one reuse is required,
! else the test would prove nothing).
module f08_staged_legacy_calls
  implicit none
contains
  ! Completion through `use mpi` (integer handles), as a library written against it would do.
  subroutine legacy_wait(handle)
    use mpi
    integer, intent(inout) :: handle
    integer :: ierr
    call MPI_Wait(handle, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS .or. handle /= MPI_REQUEST_NULL) error stop "legacy MPI_Wait"
  end subroutine legacy_wait
  subroutine legacy_poll(handle)
    use mpi
    integer, intent(in) :: handle
    integer :: ierr
    logical :: flag
    flag = .false.
    do while (.not. flag)
      call MPI_Request_get_status(handle, flag, MPI_STATUS_IGNORE, ierr)
      if (ierr /= MPI_SUCCESS) error stop "legacy MPI_Request_get_status"
    end do
  end subroutine legacy_poll
end module f08_staged_legacy_calls

program f08_staged_hook
  use mpi_f08
  use f08_staged_legacy_calls
  implicit none
  integer, parameter :: rounds = 10
  integer :: rank, nprocs, round, i, handle, old_handle, reuses
  integer, allocatable, asynchronous :: gathered(:), mine(:), plain(:), swapped(:)
  integer, asynchronous :: one(1)
  type(MPI_Request) :: req, reqs(2)
  logical :: ok

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  allocate(gathered(2 * nprocs), mine(2 * nprocs), plain(nprocs), swapped(2 * nprocs))
  ok = .true.
  reuses = 0
  do round = 1, rounds
    ! Staged: the receive section is every other element; completed through `use mpi`.
    gathered = -1
    one(1) = 100 * round + rank
    call MPI_Iallgather(one, 1, MPI_INTEGER, gathered(1::2), 1, MPI_INTEGER, MPI_COMM_WORLD, req)
    handle = req%MPI_VAL
    old_handle = handle
    call legacy_wait(handle)
    do i = 1, nprocs
      if (gathered(2 * i - 1) /= 100 * round + i - 1 .or. gathered(2 * i) /= -1) ok = .false.
    end do
    if (.not. ok) then
      print *, rank, "round", round, ": completed by use mpi, section holds", gathered
      error stop "f08_staged_hook: FAIL (no copy-back after a use mpi completion)"
    end if

    ! The program reuses the section; the next request (contiguous: nothing staged) gets the
    ! same handle number and is completed by mpi_f08.
    gathered = -7
    call MPI_Iallgather(one, 1, MPI_INTEGER, plain, 1, MPI_INTEGER, MPI_COMM_WORLD, req)
    if (req%MPI_VAL == old_handle) reuses = reuses + 1
    call MPI_Wait(req, MPI_STATUS_IGNORE)
    if (any(gathered /= -7) .or. any(plain /= [(100 * round + i, i = 0, nprocs - 1)])) then
      print *, rank, "round", round, ": after a reused handle, section", gathered, "plain", plain
      error stop "f08_staged_hook: FAIL (a stale staged copy went into a reused section)"
    end if

    ! Staged send and receive sections (reversed), the request seen complete by `use mpi`'s
    ! MPI_Request_get_status, which must deliver the data, then freed by mpi_f08's Waitall
    ! next to an ordinary request.
    mine = [(1000 * round + 10 * rank + i, i = 1, 2 * nprocs)]
    swapped = -1
    call MPI_Ialltoall(mine(2 * nprocs:1:-2), 1, MPI_INTEGER, swapped(2 * nprocs:1:-2), 1, &
                       MPI_INTEGER, MPI_COMM_WORLD, reqs(1))
    call legacy_poll(reqs(1)%MPI_VAL)
    do i = 1, nprocs  ! element i of the reversed sections: from/to rank i-1
      if (swapped(2 * nprocs - 2 * (i - 1)) /= 1000 * round + 10 * (i - 1) + 2 * nprocs - 2 * rank .or. &
          swapped(2 * nprocs - 2 * (i - 1) - 1) /= -1) ok = .false.
    end do
    if (.not. ok) then
      print *, rank, "round", round, ": after Request_get_status, section holds", swapped
      error stop "f08_staged_hook: FAIL (no copy-back when Request_get_status saw completion)"
    end if
    swapped = -3  ! the data was delivered once; completing the request must not deliver it again
    call MPI_Ibarrier(MPI_COMM_WORLD, reqs(2))
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    if (any(swapped /= -3)) error stop "f08_staged_hook: FAIL (copied back a second time)"
  end do
  if (reuses == 0) error stop "f08_staged_hook: FAIL (no handle number was reused: test proves nothing)"
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print "(a,i0,a,i0,a)", "f08_staged_hook: ", nprocs, " ranks, ", reuses, &
                                        " reused handles: PASS"
  call MPI_Finalize()
end program f08_staged_hook
