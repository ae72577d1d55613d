! Collectives through `use mpi_f08`: MPI_IN_PLACE and MPI_BOTTOM as the f08 sentinels, the
! predefined operations, a user operation with the MPI-3 f08 interface (TYPE(C_PTR), VALUE
! vectors), communicator construction, and nonblocking collectives several at a time, completed
! by Waitall and by a Test loop while point-to-point traffic goes on.
module f08_ops
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  use mpi_f08
  implicit none
contains
  ! Composition of affine maps on pairs (v, m): (a, b) -> (a.v * b.m + b.v, a.m * b.m). Associative
  ! and not commutative: rank i contributing (i + 1, 10) makes the digits 1..n in rank order.
  subroutine compose(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    integer, pointer :: a(:, :), b(:, :)
    integer :: i
    if (datatype == MPI_DATATYPE_NULL) return
    call c_f_pointer(invec, a, [2, len])
    call c_f_pointer(inoutvec, b, [2, len])
    do i = 1, len
      b(:, i) = [a(1, i) * b(2, i) + b(1, i), a(2, i) * b(2, i)]
    end do
  end subroutine compose
end module f08_ops

program f08_collectives
  use mpi_f08
  use f08_ops
  implicit none
  integer :: rank, nprocs, i, ierr, n, expect, result(2)
  integer :: v(3), w(3), w2(3), all(64), counts(16), sizes(2)
  double precision :: d(2), dsum(2)
  type(MPI_Op) :: op
  type(MPI_Datatype) :: pair
  type(MPI_Comm) :: half, dup
  type(MPI_Request) :: reqs(3), preq(2)
  logical :: done
  integer :: cmp, token, got
  asynchronous :: token  ! a persistent bcast writes it at each start (below)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  ! Reductions, MPI_IN_PLACE among them.
  v = [rank, 2 * rank, 1]
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  n = nprocs * (nprocs - 1) / 2
  if (ierr /= MPI_SUCCESS .or. any(v /= [n, 2 * n, nprocs])) call fail('Allreduce in place')
  d = [dble(rank), -dble(rank)]
  call MPI_Reduce(d, dsum, 2, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. any(dsum /= [dble(nprocs - 1), 0d0])) call fail('Reduce MAX')
  w = rank
  if (rank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, w, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
    if (any(w /= n)) call fail('Reduce in place at the root')
  else
    call MPI_Reduce(w, w2, 3, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)
  end if

  ! Bcast, Gather, Allgather in place, Scatter, Alltoall.
  v = 0
  if (rank == 0) v = [7, 8, 9]
  call MPI_Bcast(v, 3, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (any(v /= [7, 8, 9])) call fail('Bcast')
  call MPI_Gather(rank, 1, MPI_INTEGER, all, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (rank == 0 .and. any(all(1:nprocs) /= [(i, i = 0, nprocs - 1)])) call fail('Gather')
  all = -1
  all(rank + 1) = 3 * rank
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INTEGER, MPI_COMM_WORLD)
  if (any(all(1:nprocs) /= [(3 * i, i = 0, nprocs - 1)])) call fail('Allgather in place')
  counts(1:nprocs) = [(100 + i, i = 0, nprocs - 1)]
  call MPI_Scatter(counts, 1, MPI_INTEGER, got, 1, MPI_INTEGER, 0, MPI_COMM_WORLD)
  if (got /= 100 + rank) call fail('Scatter')
  counts(1:nprocs) = [(rank * 16 + i, i = 0, nprocs - 1)]
  call MPI_Alltoall(counts, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD)
  if (any(all(1:nprocs) /= [(i * 16 + rank, i = 0, nprocs - 1)])) call fail('Alltoall')

  ! A non-commutative user operation on a pair type: rank order decides the digits.
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)
  call MPI_Type_commit(pair)
  call MPI_Op_create(compose, .false., op)
  call MPI_Allreduce([rank + 1, 10], result, 1, pair, op, MPI_COMM_WORLD)
  expect = 0
  do i = 1, nprocs
    expect = 10 * expect + i
  end do
  if (result(1) /= expect .or. result(2) /= 10**nprocs) call fail('user operation')
  call MPI_Op_free(op)
  call MPI_Type_free(pair)
  if (op /= MPI_OP_NULL) call fail('Op_free')

  ! Communicators: split in halves, dup, compare, free.
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_size(half, sizes(1))
  if (sizes(1) /= (nprocs + 1 - mod(rank, 2)) / 2) call fail('Comm_split size')
  call MPI_Comm_dup(half, dup)
  call MPI_Comm_compare(half, dup, cmp)
  if (cmp /= MPI_CONGRUENT) call fail('Comm_compare')
  call MPI_Comm_free(dup)
  if (dup /= MPI_COMM_NULL) call fail('Comm_free')

  ! Nonblocking collectives: three outstanding on two communicators, completed by Waitall.
  v = rank
  w = -1
  token = 0
  if (rank == 0) token = 42
  call MPI_Iallreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, reqs(1))
  call MPI_Ibcast(token, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, reqs(2))
  call MPI_Iallgather(rank, 1, MPI_INTEGER, all, 1, MPI_INTEGER, half, reqs(3))
  call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE)
  if (any(v /= n) .or. token /= 42) call fail('Iallreduce/Ibcast')
  if (any(all(1:sizes(1)) /= [(mod(rank, 2) + 2 * i, i = 0, sizes(1) - 1)])) call fail('Iallgather')

  ! An Ibarrier tested while point-to-point messages go round the ring.
  call MPI_Ibarrier(MPI_COMM_WORLD, reqs(1))
  call MPI_Irecv(got, 1, MPI_INTEGER, mod(rank - 1 + nprocs, nprocs), 5, MPI_COMM_WORLD, preq(1))
  call MPI_Isend(rank, 1, MPI_INTEGER, mod(rank + 1, nprocs), 5, MPI_COMM_WORLD, preq(2))
  call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE)
  if (got /= mod(rank - 1 + nprocs, nprocs)) call fail('ring during Ibarrier')
  done = .false.
  do while (.not. done)
    call MPI_Test(reqs(1), done, MPI_STATUS_IGNORE)
  end do
  call MPI_Comm_free(half)

  ! Persistent collectives (MPI-4): a Bcast_init and a Barrier_init started together twice.
  call MPI_Bcast_init(token, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(1))
  call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, reqs(2))
  do i = 1, 2
    token = -1
    if (rank == 0) token = 100 + i
    call MPI_Startall(2, reqs(1:2))
    call MPI_Waitall(2, reqs(1:2), MPI_STATUSES_IGNORE)
    if (token /= 100 + i) call fail('Bcast_init')
  end do
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'f08_collectives: ', nprocs, ' ranks: PASS'
  call MPI_Finalize()

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'f08_collectives: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_collectives
