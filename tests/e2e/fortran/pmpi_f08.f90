! pmpi_f08.f90 — pmpi_f.f90's check through `use mpi_f08`: its calls reach the library through
! the same Fortran entry points as `use mpi`'s (mpi_send_ ...), so the tool in pmpi_tool.f90,
! written against mpif.h, sees them: 1 MPI_INIT, 3 MPI_SEND, 1 MPI_ISEND, 2 MPI_ALLREDUCE,
! 1 MPIX_COMM_AGREE; nothing for MPI_Sendrecv's and MPI_Bcast's sends inside the library.
!   mpirun -n N pmpi_f08      prints "pmpi_f08: N ranks: PASS"
program pmpi_f08
  use mpi_f08
  use pmpi_tool_counts
  implicit none
  integer :: rank, nprocs, right, left, i, token, got, flag, total
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
      call MPI_Send(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD)
      call MPI_Recv(got, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    else
      call MPI_Recv(got, 1, MPI_INTEGER, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
      call MPI_Send(token, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD)
    end if
    if (got /= left * 10 + i) call fail('ring value')
  end do
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 7, got, 1, MPI_INTEGER, left, 7, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  if (got /= left) call fail('sendrecv value')
  token = rank
  call MPI_Bcast(token, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (token /= 0) call fail('bcast value')
  call MPI_Isend(rank, 1, MPI_INTEGER, right, 8, MPI_COMM_WORLD, req)
  call MPI_Recv(got, 1, MPI_INTEGER, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (got /= left) call fail('isend value')
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (total /= nprocs * (nprocs - 1) / 2) call fail('allreduce value')
  call MPI_Allreduce(MPI_IN_PLACE, total, 1, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD)
  flag = 1
  call MPIX_Comm_agree(MPI_COMM_WORLD, flag)
  if (flag /= 1) call fail('agree')

  if (inits /= 1) call fail('MPI_INIT calls seen by the tool')
  if (sends /= 3 .or. isends /= 1) call fail('MPI_SEND/MPI_ISEND calls seen by the tool')
  if (allreduces /= 2) call fail('MPI_ALLREDUCE calls seen by the tool')
  if (agrees /= 1) call fail('MPIX_COMM_AGREE calls seen by the tool')
  call MPI_Finalize()
  if (rank == 0) print '(a, i0, a)', 'pmpi_f08: ', nprocs, ' ranks: PASS'

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a, i0, a, a, 6(1x, i0))', 'pmpi_f08: rank ', rank, ': FAIL: ', what, &
        inits, sends, isends, allreduces, wtimes, agrees
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program pmpi_f08
