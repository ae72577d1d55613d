! pmpi_f08ts.f90 — an application under the `use mpi_f08` tool of pmpi_tool_f08.f90: the tool
! sees each of its calls once, with and without IERROR, and none of the library's own (the sends
! inside MPI_Bcast and MPI_Sendrecv) nor the application's PMPI_ calls; the calls it forwards
! work (values checked).
!   mpirun -n N pmpi_f08ts      prints "pmpi_f08ts: N ranks: PASS"
program pmpi_f08ts
  use mpi_f08
  use pmpi_f08_counts
  implicit none
  integer :: rank, nprocs, right, left, i, token, got, total, ierr, vals(4)
  type(MPI_Request) :: req

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs < 2) call fail('needs 2 ranks')
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  do i = 1, 3
    token = rank * 10 + i
    got = -1
    if (mod(rank, 2) == 0) then
      call MPI_Send(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD, ierr)
      if (ierr /= MPI_SUCCESS) call fail('send ierror')
      call MPI_Recv(got, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    else
      call MPI_Recv(got, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call MPI_Send(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD)
    end if
    if (got /= left * 10 + i) call fail('ring value')
  end do
  ! An array of 4 through the tool: its count adds up.
  vals = rank
  if (rank == 0) call MPI_Send(vals, 4, MPI_INTEGER, 1, 9, MPI_COMM_WORLD)
  if (rank == 1) then
    call MPI_Recv(vals, 4, MPI_INTEGER, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    if (any(vals /= 0)) call fail('array value')
  end if
  ! The application's own PMPI_ call is not the tool's business.
  call PMPI_Sendrecv(rank, 1, MPI_INTEGER, right, 7, got, 1, MPI_INTEGER, left, 7, &
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  if (got /= left) call fail('sendrecv value')
  token = rank
  call MPI_Bcast(token, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (token /= 0) call fail('bcast value')
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 8, MPI_COMM_WORLD, req)
  call MPI_Recv(got, 1, MPI_INTEGER, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (got /= left) call fail('isend value')
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (total /= nprocs * (nprocs - 1) / 2) call fail('allreduce value')
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. total /= nprocs * (nprocs - 1) / 2) call fail('allreduce in place')
  call MPI_Comm_rank(MPI_COMM_WORLD, i)
  if (i /= rank) call fail('comm_rank value')

  if (sends /= 3 + merge(1, 0, rank == 0)) call fail('MPI_Send calls seen by the tool')
  if (sent /= 3 + merge(4, 0, rank == 0)) call fail('MPI_Send counts seen by the tool')
  if (isends /= 1 .or. waits /= 1) call fail('MPI_Isend/MPI_Wait calls seen by the tool')
  if (allreduces /= 2) call fail('MPI_Allreduce calls seen by the tool')
  if (ranks /= 2) call fail('MPI_Comm_rank calls seen by the tool')
  call MPI_Finalize()
  if (rank == 0) print '(a, i0, a)', 'pmpi_f08ts: ', nprocs, ' ranks: PASS'

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, a, a, 6(1x, i0))', 'pmpi_f08ts: rank ', rank, ': FAIL: ', what, &
        sends, sent, isends, waits, allreduces, ranks
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail

end program pmpi_f08ts
