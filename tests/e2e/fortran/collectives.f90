! Collectives from Fortran: MPI_IN_PLACE (Allreduce, Reduce at the root), Fortran datatypes of
! every size (INTEGER, INTEGER8, REAL, REAL8, DOUBLE PRECISION, LOGICAL with LAND/LOR),
! MAXLOC/MINLOC on MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION, a user operation written in Fortran, Bcast, Gather, Allgather,
! Alltoall, Scan, Exscan, Reduce_scatter_block; Iallreduce, Ireduce, Ibarrier; Allreduce_init.
subroutine vec_max_abs(invec, inoutvec, len, datatype)
  implicit none
  integer, intent(in) :: len, datatype
  double precision, intent(in) :: invec(len)
  double precision, intent(inout) :: inoutvec(len)
  integer :: i
  if (datatype < 0) return  ! the handle is passed by reference like every argument
  do i = 1, len
    inoutvec(i) = max(abs(invec(i)), abs(inoutvec(i)))
  end do
end subroutine vec_max_abs

program collectives
  use mpi
  implicit none
  external vec_max_abs
  integer :: ierr, rank, nprocs, i, op, root
  integer :: ibuf(4), gathered(64), pairs(2, 2)
  integer(kind=8) :: i8(3)
  real :: r4(2)
  real(kind=8) :: r8(5)
  double precision :: d(3), expect
  logical :: l(2)
  integer, allocatable :: a2a_send(:), a2a_recv(:), rsb(:)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! Allreduce in place on several Fortran types.
  ibuf = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, ibuf, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(ibuf /= nprocs * (nprocs + 1) / 2)) call fail('INTEGER in place')
  i8 = int(rank, 8) * 4000000000_8
  call MPI_Allreduce(MPI_IN_PLACE, i8, 3, MPI_INTEGER8, MPI_MAX, MPI_COMM_WORLD, ierr)
  if (any(i8 /= int(nprocs - 1, 8) * 4000000000_8)) call fail('INTEGER8 in place')
  r4 = real(rank)
  call MPI_Allreduce(MPI_IN_PLACE, r4, 2, MPI_REAL, MPI_MIN, MPI_COMM_WORLD, ierr)
  if (any(r4 /= 0.0)) call fail('REAL in place')
  r8 = 0.5d0
  call MPI_Allreduce(MPI_IN_PLACE, r8, 5, MPI_REAL8, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (any(r8 /= 0.5d0 * nprocs)) call fail('REAL8 in place')
  l = [ .true., rank == 0 ]
  call MPI_Allreduce(MPI_IN_PLACE, l, 2, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD, ierr)
  if (.not. l(1) .or. (l(2) .neqv. (nprocs == 1))) call fail('LOGICAL LAND')
  l = [ .false., rank == nprocs - 1 ]
  call MPI_Allreduce(MPI_IN_PLACE, l, 2, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD, ierr)
  if (l(1) .or. .not. l(2)) call fail('LOGICAL LOR')

  ! Not in place: separate send and receive buffers of DOUBLE PRECISION.
  d = dble(rank)
  r8 = -1d0
  call MPI_Allreduce(d, r8, 3, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  expect = dble(nprocs * (nprocs - 1) / 2)
  if (any(r8(1:3) /= expect) .or. any(d /= dble(rank))) call fail('DOUBLE PRECISION sum')

  ! Reduce in place at the root (the others pass their data as sendbuf).
  root = nprocs - 1
  ibuf = 2 * rank
  if (rank == root) then
    call MPI_Reduce(MPI_IN_PLACE, ibuf, 4, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    if (any(ibuf /= nprocs * (nprocs - 1))) call fail('Reduce in place')
  else
    call MPI_Reduce(ibuf, gathered, 4, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  end if

  ! MAXLOC on (value, index) pairs.
  pairs(1, 1) = mod(rank * 7, nprocs)
  pairs(2, 1) = rank
  pairs(1, 2) = -rank
  pairs(2, 2) = rank
  call MPI_Allreduce(MPI_IN_PLACE, pairs, 2, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. pairs(1, 2) /= 0 .or. pairs(2, 2) /= 0) call fail('MAXLOC')
  if (pairs(1, 1) /= maxval([(mod(i * 7, nprocs), i = 0, nprocs - 1)])) call fail('MAXLOC value')
  ! MPI_2DOUBLE_PRECISION keeps the index as a DOUBLE PRECISION; MINLOC picks the lowest rank
  ! on a tie.
  d(1) = dble(mod(rank, 2))
  d(2) = dble(rank)
  call MPI_Allreduce(d, r8, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. r8(1) /= 0d0 .or. r8(2) /= 0d0) call fail('MINLOC 2DOUBLE_PRECISION')
  r4 = [ real(rank), real(rank) ]
  call MPI_Allreduce(MPI_IN_PLACE, r4, 1, MPI_2REAL, MPI_MAXLOC, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. r4(1) /= real(nprocs - 1) .or. r4(2) /= real(nprocs - 1)) &
    call fail('MAXLOC 2REAL')

  ! A user-defined operation written in Fortran.
  call MPI_Op_create(vec_max_abs, .true., op, ierr)
  d = [ dble(-rank), dble(rank) / 2, 1d0 ]
  call MPI_Allreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE_PRECISION, op, MPI_COMM_WORLD, ierr)
  if (d(1) /= dble(nprocs - 1) .or. d(2) /= dble(nprocs - 1) / 2 .or. d(3) /= 1d0) call fail('user op')
  call MPI_Op_free(op, ierr)
  if (op /= MPI_OP_NULL) call fail('Op_free')

  ! Bcast, Gather, Allgather.
  ibuf = 0
  if (rank == 0) ibuf = [ 4, 3, 2, 1 ]
  call MPI_Bcast(ibuf, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (any(ibuf /= [ 4, 3, 2, 1 ])) call fail('Bcast')
  gathered = -1
  call MPI_Gather(rank, 1, MPI_INTEGER, gathered, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. any(gathered(1:nprocs) /= [(i, i = 0, nprocs - 1)])) call fail('Gather')
  gathered = -1
  gathered(rank + 1) = 10 * rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, gathered, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (any(gathered(1:nprocs) /= [(10 * i, i = 0, nprocs - 1)])) call fail('Allgather in place')

  ! Alltoall and Reduce_scatter_block.
  allocate(a2a_send(nprocs), a2a_recv(nprocs), rsb(nprocs))
  a2a_send = [(100 * rank + i, i = 0, nprocs - 1)]
  call MPI_Alltoall(a2a_send, 1, MPI_INTEGER, a2a_recv, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (any(a2a_recv /= [(100 * i + rank, i = 0, nprocs - 1)])) call fail('Alltoall')
  rsb = [(i, i = 1, nprocs)]
  call MPI_Reduce_scatter_block(rsb, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (i /= (rank + 1) * nprocs) call fail('Reduce_scatter_block')

  ! Scan and Exscan.
  call MPI_Scan(rank + 1, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (i /= (rank + 1) * (rank + 2) / 2) call fail('Scan')
  i = -7
  call MPI_Exscan(rank + 1, i, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank > 0 .and. i /= rank * (rank + 1) / 2) call fail('Exscan')

  ! Nonblocking collectives (MPI-3): two outstanding, completed by MPI_Waitall and MPI_Test.
  call nonblocking()
  ! Persistent collectives (MPI-4): one MPI_Allreduce_init started three times with new data.
  call persistent()

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'collectives: ', nprocs, ' ranks: PASS'
  call MPI_Finalize(ierr)

contains
  subroutine nonblocking()
    integer :: reqs(2), req, isum, imax, v, statuses(MPI_STATUS_SIZE, 2)
    logical :: done
    integer(kind=8), asynchronous :: big(1000), bsum(1000)
    big = rank + 1
    v = rank + 1  ! a variable, not an expression: the call keeps using it after it returns
    call MPI_Iallreduce(v, isum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Iallreduce(big, bsum, 1000, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Waitall(2, reqs, statuses, ierr)
    if (isum /= nprocs * (nprocs + 1) / 2) call fail('Iallreduce')
    if (any(bsum /= nprocs * (nprocs + 1) / 2)) call fail('Iallreduce INTEGER8')
    v = rank
    call MPI_Ireduce(v, imax, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, req, ierr)
    done = .false.
    do while (.not. done)
      call MPI_Test(req, done, MPI_STATUS_IGNORE, ierr)
    end do
    if (rank == 0 .and. imax /= nprocs - 1) call fail('Ireduce')
    call MPI_Ibarrier(MPI_COMM_WORLD, req, ierr)
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) call fail('Ibarrier')
  end subroutine nonblocking

  subroutine persistent()
    integer :: req, k
    integer, asynchronous, save :: pv, psum  ! read and written at each start, not at init
    call MPI_Allreduce_init(pv, psum, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &
                            req, ierr)
    if (ierr /= MPI_SUCCESS) call fail('Allreduce_init')
    do k = 1, 3
      pv = (rank + 1) * k
      call MPI_Start(req, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
      if (ierr /= MPI_SUCCESS .or. psum /= k * nprocs * (nprocs + 1) / 2) call fail('Allreduce_init run')
    end do
    call MPI_Request_free(req, ierr)
    if (req /= MPI_REQUEST_NULL) call fail('Request_free of a persistent collective')
  end subroutine persistent

  subroutine fail(what)
    character(*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'collectives: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program collectives
