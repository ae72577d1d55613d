! Strided array sections given to `use mpi_f08` calls that keep the buffer (MPI-3.1 17.1.12):
! the message is (count, datatype) over the section's elements in array element order. A ring
! (send to rank+1, receive from rank-1) with 1-D, 2-D and 3-D sections, negative strides, a
! count ending inside the section and inside an element (MPI_REAL over COMPLEX), derived
! datatypes over a section (with holes, spanning elements, resized), persistent requests started
! twice, Ibcast, Iallreduce/Ireduce/Iscan with sections (MPI_IN_PLACE too), the staged calls
! (Iallgather, Ialltoallv, Ireduce_scatter_block, a user-defined operation) completed by Test,
! Request_get_status and Waitany, MPI_MINLOC on pairs over a section of their halves (staged),
! MPI_Buffer_attach of a section with Ibsend, and the refusal
! of a count beyond the section (MPI_ERR_BUFFER).
module f08_subarray_op
  use mpi_f08
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
  implicit none
  logical :: user_bad = .false.
contains
  ! A user-defined MPI_SUM: it must be given the user's datatype, also over staged sections.
  subroutine add_doubles(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    double precision, pointer :: in(:), inout(:)
    if (datatype /= MPI_DOUBLE_PRECISION) user_bad = .true.
    call c_f_pointer(invec, in, [len])
    call c_f_pointer(inoutvec, inout, [len])
    inout = inout + in
  end subroutine add_doubles
end module f08_subarray_op

program f08_subarray
  use mpi_f08
  use f08_subarray_op
  use, intrinsic :: iso_c_binding, only: c_ptr
  implicit none
  integer :: rank, nprocs, peer, src, i, m, n, ierr, cls
  type(MPI_Comm) :: comm
  type(MPI_Request) :: reqs(2), req
  type(MPI_Status) :: status, statuses(2)
  type(MPI_Datatype) :: vec, pair, holes
  ! Buffers of pending calls are ASYNCHRONOUS (MPI-3.1 17.1.16), sent or received.
  integer, asynchronous :: a(20), b(30), g(6, 5), h(6, 5), c3(4, 5, 3), d3(4, 5, 3), got(6)
  integer :: e3(4, 5, 3)
  complex, asynchronous :: z(10)
  real, asynchronous :: rr(7)
  double precision, asynchronous :: x(12), y(12), y2(12), wd(2, 12)
  integer, asynchronous :: ag(2, 3, 8), rv(2, 8)
  character, asynchronous :: pool(4096)
  integer :: counts(8), displs(8)
  logical :: done
  type(MPI_Op) :: user_sum
  type(c_ptr) :: pool_addr

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (nprocs < 2) call fail('needs 2 ranks')
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)
  call MPI_Op_create(add_doubles, .true., user_sum)
  peer = mod(rank + 1, nprocs)
  src = mod(rank - 1 + nprocs, nprocs)
  a = [(1000 * rank + i, i = 1, 20)]

  ! 1-D, negative stride: a(19), a(16), ..., a(1) into b(2), b(6), ..., b(26).
  b = -1
  call MPI_Irecv(b(2:26:4), 7, MPI_INTEGER, src, 1, comm, reqs(1))
  call MPI_Isend(a(19:1:-3), 7, MPI_INTEGER, peer, 1, comm, reqs(2), ierr)
  if (ierr /= MPI_SUCCESS) call fail('Isend of a 1-D section')
  call MPI_Waitall(2, reqs, statuses)
  do m = 1, 7
    if (b(2 + 4 * (m - 1)) /= 1000 * src + 19 - 3 * (m - 1)) call fail('1-D section values')
  end do
  b(2:26:4) = -1
  if (any(b /= -1)) call fail('1-D section: a receive wrote outside the section')

  ! 2-D, one stride negative: 3 x 3 elements in array element order into another 3 x 3 section.
  g = reshape([(100 * rank + i, i = 1, 30)], [6, 5])
  h = -1
  call MPI_Irecv(h(1:5:2, 2:4), 9, MPI_INTEGER, src, 2, comm, reqs(1))
  call MPI_Isend(g(2:6:2, 5:1:-2), 9, MPI_INTEGER, peer, 2, comm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  g = reshape([(100 * src + i, i = 1, 30)], [6, 5])
  if (any(h(1:5:2, 2:4) /= g(2:6:2, 5:1:-2))) call fail('2-D section values')
  h(1:5:2, 2:4) = -1
  if (any(h /= -1)) call fail('2-D section: a receive wrote outside the section')

  ! 3-D, two strides negative; 11 = 1*6 + 2*2 + 1 of 18 elements sent (a partial slab in every
  ! dimension), 18 offered.
  c3 = reshape([(10000 * rank + i, i = 1, 60)], [4, 5, 3])
  d3 = -1
  call MPI_Irecv(d3(1:3:2, 5:1:-2, :), 18, MPI_INTEGER, src, 3, comm, reqs(1))
  call MPI_Isend(c3(4:1:-2, 1:5:2, 3:1:-1), 11, MPI_INTEGER, peer, 3, comm, reqs(2))
  call MPI_Wait(reqs(1), status)
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE)
  call MPI_Get_count(status, MPI_INTEGER, n)
  if (n /= 11) call fail('3-D section: MPI_Get_count')
  c3 = reshape([(10000 * src + i, i = 1, 60)], [4, 5, 3])
  e3 = -1
  e3(1:3:2, 5:1:-2, :) = c3(4:1:-2, 1:5:2, 3:1:-1)
  call blank_after(e3(1:3:2, 5:1:-2, :), 11)
  if (any(d3 /= e3)) call fail('3-D section values (11 elements, the rest untouched)')

  ! A count that ends inside an element: 7 MPI_REAL over COMPLEX z(1:9:2) (5 elements).
  z = [(cmplx(rank * 100 + i, -i), i = 1, 10)]
  call MPI_Irecv(rr, 7, MPI_REAL, src, 4, comm, reqs(1))
  call MPI_Isend(z(1:9:2), 7, MPI_REAL, peer, 4, comm, reqs(2))
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  z = [(cmplx(src * 100 + i, -i), i = 1, 10)]
  if (any(rr /= [real(z(1)), aimag(z(1)), real(z(3)), aimag(z(3)), real(z(5)), aimag(z(5)), real(z(7))])) &
    call fail('MPI_REAL over a COMPLEX section')

  ! Derived datatypes over a section's virtual buffer v(0:9) = a(1:20:2).
  call MPI_Type_vector(3, 1, 2, MPI_INTEGER, vec)          ! v(0), v(2), v(4); extent 5
  call MPI_Type_contiguous(2, MPI_INTEGER, pair)           ! spans two elements
  call MPI_Type_create_resized(MPI_INTEGER, 0_MPI_ADDRESS_KIND, 12_MPI_ADDRESS_KIND, holes)
  call MPI_Type_commit(vec)
  call MPI_Type_commit(pair)
  call MPI_Type_commit(holes)
  got = -1
  call MPI_Irecv(got, 6, MPI_INTEGER, src, 5, comm, reqs(1))
  call MPI_Isend(a(1:20:2), 2, vec, peer, 5, comm, reqs(2))  ! v(0,2,4,5,7,9)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (any(got /= 1000 * src + [1, 5, 9, 11, 15, 19])) call fail('vector datatype over a send section')
  b = -1
  call MPI_Irecv(b(30:1:-1), 2, vec, src, 6, comm, reqs(1))  ! into b(30, 28, 26, 25, 23, 21)
  call MPI_Isend(a(20:1:-2), 3, pair, peer, 6, comm, reqs(2))  ! a(20), a(18), ..., a(10)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (any(b([30, 28, 26, 25, 23, 21]) /= 1000 * src + [20, 18, 16, 14, 12, 10])) &
    call fail('vector over a receive section, pair over a send section')
  b([30, 28, 26, 25, 23, 21]) = -1
  if (any(b /= -1)) call fail('vector over a receive section wrote outside its elements')
  got = -1
  call MPI_Irecv(got, 3, MPI_INTEGER, src, 7, comm, reqs(1))
  call MPI_Isend(a(1:20:2), 3, holes, peer, 7, comm, reqs(2))  ! v(0), v(3), v(6)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
  if (any(got(1:3) /= 1000 * src + [1, 7, 13]) .or. any(got(4:) /= -1)) call fail('resized datatype over a section')

  ! Beyond the section: refused, nothing posted.
  req = MPI_REQUEST_NULL
  call MPI_Isend(a(1:20:2), 11, MPI_INTEGER, peer, 8, comm, req, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_BUFFER .or. req /= MPI_REQUEST_NULL) call fail('count beyond a section')
  call MPI_Irecv(b(1:30:3), 3, vec, src, 8, comm, req, ierr)  ! needs v(0:14), the section has 10
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_BUFFER .or. req /= MPI_REQUEST_NULL) call fail('derived datatype beyond a section')

  ! Persistent requests over sections, started twice with new data in between.
  call MPI_Recv_init(h(2, :), 5, MPI_INTEGER, src, 9, comm, reqs(1))
  call MPI_Send_init(g(6:1:-1, 3), 5, MPI_INTEGER, peer, 9, comm, reqs(2))  ! 5 of its 6
  do i = 1, 2
    g(:, 3) = [(1000 * i + 10 * rank + m, m = 1, 6)]
    h = -1
    call MPI_Startall(2, reqs)
    call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE)
    if (any(h(2, :) /= [(1000 * i + 10 * src + m, m = 6, 2, -1)])) call fail('persistent requests over sections')
    h(2, :) = -1
    if (any(h /= -1)) call fail('persistent receive wrote outside its section')
  end do
  call MPI_Request_free(reqs(1))
  call MPI_Request_free(reqs(2))

  ! Ibcast from rank 0 of x(12:1:-2) into y(1:11:2) elsewhere.
  x = [(dble(i) / 4d0, i = 1, 12)]
  y = -1d0
  if (rank == 0) then
    call MPI_Ibcast(x(12:1:-2), 6, MPI_DOUBLE_PRECISION, 0, comm, req)
  else
    call MPI_Ibcast(y(1:11:2), 6, MPI_DOUBLE_PRECISION, 0, comm, req)
  end if
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (rank /= 0 .and. (any(y(1:11:2) /= x(12:1:-2)) .or. any(y(2:12:2) /= -1d0))) call fail('Ibcast of a section')

  ! Reductions: section to section, MPI_IN_PLACE on a section, contiguous to section, Ireduce, Iscan.
  x = [(dble(rank + 1) * i, i = 1, 12)]
  y = -1d0
  call MPI_Iallreduce(x(1:12:2), y(12:2:-2), 6, MPI_DOUBLE_PRECISION, MPI_SUM, comm, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (any(y(12:2:-2) /= x(1:12:2) / (rank + 1) * tri(nprocs)) .or. any(y(1:11:2) /= -1d0)) &
    call fail('Iallreduce section to section')
  y2 = x
  call MPI_Iallreduce(MPI_IN_PLACE, y2(12:1:-3), 4, MPI_DOUBLE_PRECISION, MPI_MAX, comm, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (any(y2(12:1:-3) /= x(12:1:-3) / (rank + 1) * nprocs) .or. any(y2(1:11:3) /= x(1:11:3))) &
    call fail('Iallreduce MPI_IN_PLACE on a section')
  y = -1d0
  call MPI_Ireduce(x(1:4), y(2:8:2), 4, MPI_DOUBLE_PRECISION, MPI_SUM, nprocs - 1, comm, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (rank == nprocs - 1 .and. any(y(2:8:2) /= [1d0, 2d0, 3d0, 4d0] * tri(nprocs))) call fail('Ireduce into a section')
  if (any(y(1:11:2) /= -1d0) .or. (rank /= nprocs - 1 .and. any(y /= -1d0))) call fail('Ireduce wrote outside')
  y = -1d0
  call MPI_Iscan(x(2:12:5), y(3:1:-1), 3, MPI_DOUBLE_PRECISION, MPI_SUM, comm, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (any(y(3:1:-1) /= [2d0, 7d0, 12d0] * tri(rank + 1))) call fail('Iscan with sections')
  ! MPI_MINLOC on MPI_2DOUBLE_PRECISION pairs over a section of their halves: a datatype over the
  ! section would split the pairs, so the section is staged.
  wd = -1d0
  do m = 1, 6
    wd(1, 2 * m - 1) = dble(mod(rank + m, nprocs))
    wd(1, 2 * m) = dble(rank)
  end do
  call MPI_Iallreduce(MPI_IN_PLACE, wd(1, :), 6, MPI_2DOUBLE_PRECISION, MPI_MINLOC, comm, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  do m = 1, 6
    if (wd(1, 2 * m - 1) /= 0d0 .or. wd(1, 2 * m) /= dble(mod(nprocs - mod(m, nprocs), nprocs))) &
      call fail('MPI_MINLOC on pairs over a section')
  end do
  if (any(wd(2, :) /= -1d0)) call fail('MPI_MINLOC wrote outside the section')

  ! Calls with blocks per rank, displacements, a user-defined operation: the sections are staged
  ! (copied to a temporary, back when the request completes through Wait/Test/Waitany...).
  if (.not. MPI_SUBARRAYS_SUPPORTED) call fail('MPI_SUBARRAYS_SUPPORTED')
  ag = -1
  call MPI_Iallgather(a(1:20:7), 3, MPI_INTEGER, ag(2, :, 1:nprocs), 3, MPI_INTEGER, comm, req)
  done = .false.
  do while (.not. done)
    call MPI_Test(req, done, MPI_STATUS_IGNORE)
  end do
  do m = 0, nprocs - 1
    if (any(ag(2, :, m + 1) /= 1000 * m + [1, 8, 15])) call fail('Iallgather of sections')
  end do
  if (any(ag(1, :, :) /= -1) .or. any(ag(2, :, nprocs + 1:) /= -1)) call fail('Iallgather wrote outside')
  rv = -1
  counts = 1
  displs = [(m, m = 0, 7)]
  call MPI_Ialltoallv(a(20:1:-1), counts, displs, MPI_INTEGER, rv(2, :), counts, displs, MPI_INTEGER, &
                      comm, reqs(1))
  call MPI_Iallreduce(x(1:12:2), y(12:2:-2), 6, MPI_DOUBLE_PRECISION, user_sum, comm, reqs(2))
  done = .false.
  do while (.not. done)
    call MPI_Request_get_status(reqs(1), done, MPI_STATUS_IGNORE)
  end do
  if (any(rv(2, 1:nprocs) /= [(1000 * m + 20 - rank, m = 0, nprocs - 1)])) call fail('Request_get_status copies back')
  call MPI_Waitany(2, reqs, m, MPI_STATUS_IGNORE)
  call MPI_Waitany(2, reqs, m, MPI_STATUS_IGNORE)
  if (any(rv(2, 1:nprocs) /= [(1000 * m + 20 - rank, m = 0, nprocs - 1)]) .or. any(rv(1, :) /= -1)) &
    call fail('Ialltoallv with sections')
  if (any(y(12:2:-2) /= [(dble(2 * m - 1), m = 1, 6)] * tri(nprocs)) .or. user_bad) &
    call fail('Iallreduce with a user-defined operation over sections')
  x = [(dble(rank + 1) * i, i = 1, 12)]
  y = -1d0
  call MPI_Ireduce_scatter_block(x(12:1:-1), y(3:3), 1, MPI_DOUBLE_PRECISION, MPI_SUM, comm, req)
  call MPI_Wait(req, MPI_STATUS_IGNORE)
  if (y(3) /= dble(12 - rank) * tri(nprocs)) call fail('Ireduce_scatter_block from a section')

  ! MPI_Buffer_attach of a section (MPI's own memory until detached), used by MPI_Ibsend.
  call MPI_Buffer_attach(pool(1:4096:2), 1000)
  call MPI_Ibsend(a(2:20:6), 4, MPI_INTEGER, peer, 10, comm, reqs(1))
  got = -1
  call MPI_Recv(got(6:3:-1), 4, MPI_INTEGER, src, 10, comm, MPI_STATUS_IGNORE)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
  if (any(got(6:3:-1) /= 1000 * src + [2, 8, 14, 20])) call fail('MPI_Ibsend through a section buffer')
  call MPI_Buffer_detach(pool_addr, n)
  if (n /= 1000) call fail('MPI_Buffer_detach of a section')

  call MPI_Type_free(vec)
  call MPI_Type_free(pair)
  call MPI_Type_free(holes)
  call MPI_Op_free(user_sum)
  call MPI_Comm_free(comm)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'f08_subarray: ', nprocs, ' ranks: PASS'
  call MPI_Finalize()

contains

  ! 1 + 2 + ... + k
  pure double precision function tri(k)
    integer, intent(in) :: k
    tri = dble(k * (k + 1) / 2)
  end function tri

  ! Sets the elements of section s after the first `keep` (array element order) to -1.
  subroutine blank_after(s, keep)
    integer, intent(inout) :: s(:, :, :)
    integer, intent(in) :: keep
    integer :: i1, i2, i3, e
    e = 0
    do i3 = 1, size(s, 3)
      do i2 = 1, size(s, 2)
        do i1 = 1, size(s, 1)
          e = e + 1
          if (e > keep) s(i1, i2, i3) = -1
        end do
      end do
    end do
  end subroutine blank_after

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'f08_subarray: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_subarray
