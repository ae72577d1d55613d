! Point-to-point from Fortran: status arrays (MPI_STATUS_SIZE, MPI_SOURCE/MPI_TAG indices),
! MPI_Get_count, wildcards, MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE, nonblocking calls with
! Waitall/Waitany/Testall, Sendrecv, Probe, and handle conversion through the C layer.
program p2p
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i, src, n, idx, peer
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 4), reqs(4), indices(4)
  double precision :: a(100), b(100)
  integer :: ibuf(10), ibuf2(10)
  logical :: done

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs < 2) call fail('needs 2 ranks')

  ! Every rank > 0 sends 10*rank doubles to rank 0 with tag rank; rank 0 receives with wildcards.
  if (rank == 0) then
    do i = 1, nprocs - 1
      a = -1d0
      call MPI_Recv(a, 100, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
      src = status(MPI_SOURCE)
      if (ierr /= MPI_SUCCESS .or. status(MPI_TAG) /= src) call fail('source/tag in status')
      call MPI_Get_count(status, MPI_DOUBLE_PRECISION, n, ierr)
      if (n /= 10 * src) call fail('MPI_Get_count')
      if (any(a(1:n) /= dble(src)) .or. any(a(n+1:) /= -1d0)) call fail('received values')
    end do
  else
    a = dble(rank)
    call MPI_Send(a, 10 * rank, MPI_DOUBLE_PRECISION, 0, rank, MPI_COMM_WORLD, ierr)
  end if

  ! (no ring message may meet rank 0's wildcard receives above)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)

  ! A ring with nonblocking calls: two receives, two sends, completed by Waitall into statuses.
  peer = mod(rank + 1, nprocs)
  src = mod(rank - 1 + nprocs, nprocs)
  ibuf = rank
  ibuf2 = -1
  b = 0d0
  a = dble(rank) * 2d0
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, src, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(b, 100, MPI_REAL8, src, 8, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, peer, 7, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(a, 100, MPI_REAL8, peer, 8, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Waitall(4, reqs, statuses, ierr)
  if (ierr /= MPI_SUCCESS) call fail('Waitall')
  if (any(ibuf2 /= src) .or. any(b /= dble(src) * 2d0)) call fail('ring values')
  if (statuses(MPI_SOURCE, 1) /= src .or. statuses(MPI_TAG, 2) /= 8) call fail('Waitall statuses')
  if (any(reqs /= MPI_REQUEST_NULL)) call fail('requests not freed')

  ! The same with the IGNORE sentinels, Waitany and Testall.
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, src, 9, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, peer, 9, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitany(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
  if (idx < 1 .or. idx > 2) call fail('Waitany index is 1-based')
  if (reqs(idx) /= MPI_REQUEST_NULL) call fail('Waitany index names the completed request')
  done = .false.
  do while (.not. done)
    call MPI_Testall(2, reqs, done, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, src, 10, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, peer, 10, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)

  ! Waitsome and Testsome: the indices are Fortran positions of completed (now null) requests.
  call MPI_Irecv(ibuf2, 10, MPI_INTEGER, src, 13, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(n, 1, MPI_INTEGER, src, 14, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Isend(ibuf, 10, MPI_INTEGER, peer, 13, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Isend(rank, 1, MPI_INTEGER, peer, 14, MPI_COMM_WORLD, reqs(4), ierr)
  idx = 0
  do while (idx < 4)
    call MPI_Waitsome(4, reqs, i, indices, statuses, ierr)
    if (i == MPI_UNDEFINED) exit
    call check_indices(indices(1:i))
    idx = idx + i
  end do
  if (idx /= 4 .or. n /= src) call fail('Waitsome')
  call MPI_Testsome(4, reqs, i, indices, MPI_STATUSES_IGNORE, ierr)
  if (i /= MPI_UNDEFINED) call fail('Testsome with no active request')

  ! Sendrecv with MPI_STATUS_IGNORE; Probe then Recv of the probed size.
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, peer, 11, n, 1, MPI_INTEGER, src, 11, &
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  if (n /= src) call fail('Sendrecv')
  call MPI_Send(ibuf, rank + 1, MPI_INTEGER, peer, 12, MPI_COMM_WORLD, ierr)
  call MPI_Probe(src, 12, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  if (n /= src + 1) call fail('Probe count')
  call MPI_Recv(ibuf2, n, MPI_INTEGER, status(MPI_SOURCE), status(MPI_TAG), MPI_COMM_WORLD, &
                MPI_STATUS_IGNORE, ierr)

  ! MPI_PROC_NULL: completes at once with source MPI_PROC_NULL and count 0.
  call MPI_Recv(ibuf2, 10, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, n, ierr)
  if (status(MPI_SOURCE) /= MPI_PROC_NULL .or. n /= 0) call fail('MPI_PROC_NULL')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'p2p: ', nprocs, ' ranks: PASS'
  call MPI_Finalize(ierr)

contains
  subroutine check_indices(ids)
    integer, intent(in) :: ids(:)
    integer :: k
    do k = 1, size(ids)
      if (ids(k) < 1 .or. ids(k) > 4) call fail('Waitsome index is 1-based')
      if (reqs(ids(k)) /= MPI_REQUEST_NULL) call fail('Waitsome index names a completed request')
    end do
  end subroutine check_indices

  subroutine fail(what)
    character(*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'p2p: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program p2p
