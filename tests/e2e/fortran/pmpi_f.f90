! pmpi_f.f90 — the application pmpi_tool.f90 profiles, through `use mpi`. Each of its calls
! of a wrapped name must reach the tool exactly once; calls the library makes inside
! MPI_SENDRECV and MPI_BCAST, and the application's own PMPI_ calls, never.
!   mpirun -n N pmpi_f        prints "pmpi_f: N ranks: PASS"
program pmpi_f
  use mpi
  use pmpi_tool_counts
  implicit none
  integer :: ierr, rank, nprocs, right, left, i, token, got, req, flag, total, one
  double precision :: t

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  ! 3 sends round the ring (even ranks send first; a single rank sends to itself nonblocking).
  do i = 1, 3
    token = rank * 10 + i
    got = -1
    if (nprocs == 1) then
      call MPI_Isend(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD, req, ierr)
      call MPI_Recv(got, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(token, 0, MPI_INTEGER, right, 100 + i, MPI_COMM_WORLD, ierr)  ! buffered: 0 bytes
      call MPI_Recv(token, 0, MPI_INTEGER, left, 100 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else if (mod(rank, 2) == 0) then
      call MPI_Send(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD, ierr)
      call MPI_Recv(got, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(got, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD, ierr)
    end if
    if (got /= left * 10 + i) call fail('ring value')
  end do
  ! Made of sends inside the library: not the application's MPI_SEND.
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 7, got, 1, MPI_INTEGER, left, 7, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (got /= left) call fail('sendrecv value')
  token = rank
  call MPI_Bcast(token, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (token /= 0) call fail('bcast value')
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 8, MPI_COMM_WORLD, req, ierr)
  call MPI_Recv(got, 1, MPI_INTEGER, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (got /= left) call fail('isend value')
  ! The application's own PMPI_ calls go straight to the library.
  call PMPI_Send(rank, 1, MPI_INTEGER, 0, 9, MPI_COMM_SELF, ierr)
  call MPI_Recv(got, 1, MPI_INTEGER, 0, 9, MPI_COMM_SELF, MPI_STATUS_IGNORE, ierr)
  if (got /= rank) call fail('self value')
  one = 1
  call PMPI_Allreduce(one, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= nprocs) call fail('PMPI_Allreduce value')
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= nprocs * (nprocs - 1) / 2) call fail('allreduce value')
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  t = MPI_Wtime()
  if (PMPI_Wtime() < t) call fail('PMPI_Wtime')
  flag = 1
  call MPIX_Comm_agree(MPI_COMM_WORLD, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. flag /= 1) call fail('agree')

  if (inits /= 1) call fail('MPI_INIT calls seen by the tool')
  if (nprocs == 1) then
    if (sends /= 3 .or. isends /= 4) call fail('MPI_SEND/MPI_ISEND calls seen by the tool')
  else if (sends /= 3 .or. isends /= 1) then
    call fail('MPI_SEND/MPI_ISEND calls seen by the tool')
  end if
  if (allreduces /= 2) call fail('MPI_ALLREDUCE calls seen by the tool')
  if (wtimes /= 1) call fail('MPI_WTIME calls seen by the tool')
  if (agrees /= 1) call fail('MPIX_COMM_AGREE calls seen by the tool')
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'pmpi_f: ', nprocs, ' ranks: PASS'

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, a, a, 6(1x, i0))', 'pmpi_f: rank ', rank, ': FAIL: ', what, &
        inits, sends, isends, allreduces, wtimes, agrees
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine fail
end program pmpi_f
