! Point-to-point through `use mpi_f08`: TYPE(MPI_Status) components (MPI_ERROR is set by
! multiple-completion calls only, MPI-3.1 3.2.5), MPI_Get_count, wildcards,
! the IGNORE sentinels, nonblocking calls completed by Waitall/Waitany/Testall (1-based index),
! handle comparison with == and /=, strided array sections (copied around blocking calls, given
! to nonblocking ones as they are: MPI_SUBARRAYS_SUPPORTED is .TRUE.; f08_subarray tests them in
! depth), and IERROR left out everywhere except where the code is checked.
program f08_p2p
  use mpi_f08
  implicit none
  integer :: rank, nprocs, i, src, peer, n, idx, ierr, cls
  type(MPI_Status) :: status, statuses(4)
  type(MPI_Request) :: reqs(4), req
  type(MPI_Comm) :: comm
  double precision :: a(100), b(100)
  integer :: ibuf(10), ibuf2(10), col(4)
  integer, asynchronous :: grid(6, 4)  ! given to nonblocking calls (MPI-3.1 17.1.16)
  logical :: done

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs < 2) call fail('needs 2 ranks')
  ! Honest constants: every call that keeps a buffer takes a strided section (f08_subarray);
  ! gfortran does not promise that ASYNCHRONOUS protects a pending buffer.
  if (.not. MPI_SUBARRAYS_SUPPORTED .or. MPI_ASYNC_PROTECTS_NONBLOCKING) call fail('honest constants')
  comm = MPI_COMM_WORLD
  if (comm /= MPI_COMM_WORLD .or. .not. (comm == MPI_COMM_WORLD) .or. comm == MPI_COMM_SELF) &
    call fail('handle comparison')

  ! Every rank > 0 sends 10*rank doubles to rank 0 with tag rank; rank 0 receives with wildcards.
  if (rank == 0) then
    do i = 1, nprocs - 1
      a = -1d0
      call MPI_Recv(a, 100, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, status, ierr)
      src = status%MPI_SOURCE
      if (ierr /= MPI_SUCCESS .or. status%MPI_TAG /= src) call fail('source/tag in status')
      call MPI_Get_count(status, MPI_DOUBLE_PRECISION, n)
      if (n /= 10 * src) call fail('MPI_Get_count')
      if (any(a(1:n) /= dble(src)) .or. any(a(n+1:) /= -1d0)) call fail('received values')
    end do
  else
    a = dble(rank)
    call MPI_Send(a, 10 * rank, MPI_DOUBLE_PRECISION, 0, rank, comm)
  end if
  call MPI_Barrier(comm)

  ! A ring with nonblocking calls completed by Waitall into TYPE(MPI_Status) statuses.
  peer = mod(rank + 1, nprocs)
  src = mod(rank - 1 + nprocs, nprocs)
  ibuf = rank
  ibuf2 = -1
  b = 0d0
  a = dble(rank) * 2d0
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, src, 7, comm, reqs(1))
  call MPI_Irecv(b, 100, MPI_REAL8, src, 8, comm, reqs(2))
  call MPI_Isend(ibuf, 10, MPI_INTEGER, peer, 7, comm, reqs(3))
  call MPI_Isend(a, 100, MPI_REAL8, peer, 8, comm, reqs(4))
  if (any(reqs == MPI_REQUEST_NULL)) call fail('requests are not null while pending')
  call MPI_Waitall(4, reqs, statuses, ierr)
  if (ierr /= MPI_SUCCESS) call fail('Waitall')
  if (any(ibuf2 /= src) .or. any(b /= dble(src) * 2d0)) call fail('ring values')
  if (statuses(1)%MPI_SOURCE /= src .or. statuses(2)%MPI_TAG /= 8) call fail('Waitall statuses')
  if (any(reqs /= MPI_REQUEST_NULL)) call fail('requests not freed')

  ! The IGNORE sentinels, Waitany (1-based index) and Testall.
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, src, 9, comm, reqs(1))
  call MPI_Isend(ibuf, 10, MPI_INTEGER, peer, 9, comm, reqs(2))
  call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE)
  if (idx < 1 .or. idx > 2) call fail('Waitany index is 1-based')
  if (reqs(idx) /= MPI_REQUEST_NULL) call fail('Waitany index names the completed request')
  done = .false.
  do while (.not. done)
    call MPI_Testall(2, reqs, done, MPI_STATUSES_IGNORE)
  end do
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, peer, 11, n, 1, MPI_INTEGER, src, 11, comm, status)
  if (n /= src .or. status%MPI_SOURCE /= src) call fail('Sendrecv')

  ! A strided section (one row of grid) to a blocking send and receive: gfortran copies it.
  grid = -1
  col = [(100 * rank + i, i = 1, 4)]
  call MPI_Sendrecv(col, 4, MPI_INTEGER, peer, 12, grid(2, :), 4, MPI_INTEGER, src, 12, comm, &
                    MPI_STATUS_IGNORE)
  if (any(grid(2, :) /= [(100 * src + i, i = 1, 4)]) .or. any(grid(1, :) /= -1) .or. &
      any(grid(3:, :) /= -1)) call fail('strided section in a blocking call')

  ! ... and a nonblocking call keeps the buffer: the section itself is used (MPI-3.1 17.1.12).
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)
  grid(2, :) = [(100 * rank + i, i = 1, 4)]
  call MPI_Irecv(grid(3, :), 4, MPI_INTEGER, src, 13, comm, reqs(1), ierr)
  if (ierr /= MPI_SUCCESS) call fail('strided section in MPI_Irecv')
  call MPI_Isend(grid(2, 4:1:-1), 4, MPI_INTEGER, peer, 13, comm, reqs(2), ierr)
  if (ierr /= MPI_SUCCESS) call fail('strided section in MPI_Isend')
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (any(grid(3, :) /= [(100 * src + i, i = 4, 1, -1)]) .or. any(grid(4:, :) /= -1)) &
    call fail('strided sections in MPI_Isend/MPI_Irecv')
  ! A count beyond the section is refused, nothing is posted.
  req = MPI_REQUEST_NULL
  call MPI_Irecv(grid(3, :), 5, MPI_INTEGER, src, 13, comm, req, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_BUFFER .or. req /= MPI_REQUEST_NULL) call fail('count beyond a section in MPI_Irecv')
  ! A contiguous section is fine.
  call MPI_Irecv(grid(:, 4), 6, MPI_INTEGER, src, 14, comm, reqs(1))
  call MPI_Isend(grid(:, 2), 6, MPI_INTEGER, peer, 14, comm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  call MPI_Barrier(comm)
  if (rank == 0) print '(a,i0,a)', 'f08_p2p: ', nprocs, ' ranks: PASS'
  call MPI_Finalize()

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'f08_p2p: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_p2p
