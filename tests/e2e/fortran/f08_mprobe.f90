! Matched probes and MPI_Isendrecv through `use mpi_f08`: TYPE(MPI_Message) handles compared
! with == and /=, IERROR left out; rank 0 matches every other rank's message with MPI_Mprobe
! and receives it with MPI_Mrecv or MPI_Imrecv (into a strided section: a derived datatype over
! it); MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC; a ring with MPI_Isendrecv(_replace).
program f08_mprobe
  use mpi_f08
  implicit none
  integer :: rank, nprocs, k, n, left, right, cls, ierr
  type(MPI_Status) :: status
  type(MPI_Message) :: msg
  type(MPI_Request) :: req
  integer :: a(4), got(4), x
  integer, asynchronous :: grid(2, 4)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  if (MPI_MESSAGE_NULL == MPI_MESSAGE_NO_PROC) call fail('distinct constants')
  if (rank > 0) then
    a = rank * 100 + [1, 2, 3, 4]
    call MPI_Send(a, 4, MPI_INTEGER, 0, 3, MPI_COMM_WORLD)
  else
    do k = 1, nprocs - 1
      call MPI_Mprobe(MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, msg, status)
      call MPI_Get_count(status, MPI_INTEGER, n)
      if (n /= 4 .or. msg == MPI_MESSAGE_NULL) call fail('Mprobe')
      if (mod(k, 2) == 0) then
        call MPI_Mrecv(got, 4, MPI_INTEGER, msg, status)
        if (any(got /= status%MPI_SOURCE * 100 + [1, 2, 3, 4])) call fail('Mrecv')
      else
        grid = -1
        call MPI_Imrecv(grid(1, :), 4, MPI_INTEGER, msg, req)
        call MPI_Wait(req, status)
        if (any(grid(1, :) /= status%MPI_SOURCE * 100 + [1, 2, 3, 4]) .or. any(grid(2, :) /= -1)) &
          call fail('Imrecv into a section')
      end if
      if (msg /= MPI_MESSAGE_NULL) call fail('handle not reset')
    end do
  end if
  call MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, msg, status)
  if (msg /= MPI_MESSAGE_NO_PROC) call fail('MPI_MESSAGE_NO_PROC')
  call MPI_Mrecv(x, 1, MPI_INTEGER, msg, status)
  if (status%MPI_SOURCE /= MPI_PROC_NULL) call fail('Mrecv NO_PROC')
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  msg = MPI_MESSAGE_NULL
  call MPI_Mrecv(x, 1, MPI_INTEGER, msg, status, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_REQUEST) call fail('Mrecv of MPI_MESSAGE_NULL')
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  a = rank
  call MPI_Isendrecv(a, 4, MPI_INTEGER, right, 7, got, 4, MPI_INTEGER, left, 7, MPI_COMM_WORLD, req)
  call MPI_Wait(req, status)
  if (any(got /= left) .or. status%MPI_SOURCE /= left) call fail('Isendrecv')
  call MPI_Isendrecv_replace(a, 4, MPI_INTEGER, right, 8, left, 8, MPI_COMM_WORLD, req)
  call MPI_Wait(req, status)
  if (any(a /= left)) call fail('Isendrecv_replace')
  call MPI_Finalize()
  if (rank == 0) print '(a, i0, a)', 'f08_mprobe: ', nprocs, ' ranks: PASS'
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    print *, 'rank', rank, 'FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_mprobe
