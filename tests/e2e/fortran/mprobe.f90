! Matched probes and MPI_Isendrecv through `use mpi` (INTEGER MPI_Message handles):
! every rank > 0 sends rank 0 two messages of one tag; rank 0 matches the first with
! MPI_Mprobe, receives the second with MPI_Recv, then the first with MPI_Mrecv (handle back to
! MPI_MESSAGE_NULL); MPI_Improbe + MPI_Imrecv; MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC; a ring
! exchange with MPI_Isendrecv and MPI_Isendrecv_replace.
program mprobe
  use mpi
  implicit none
  integer :: rank, nprocs, ierr, src, n, k, req, left, right, msg
  integer :: status(MPI_STATUS_SIZE)
  integer :: a(5), b(5), got(5), x
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (MPI_MESSAGE_NULL == MPI_MESSAGE_NO_PROC) call fail('distinct constants')
  if (rank > 0) then
    a = rank * 10 + [1, 2, 3, 4, 5]
    b = -a
    call MPI_Send(a, 5, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, ierr)
    call MPI_Send(b, 5, MPI_INTEGER, 0, 4, MPI_COMM_WORLD, ierr)
  else
    do k = 1, nprocs - 1
      call MPI_Mprobe(MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, msg, status, ierr)
      src = status(MPI_SOURCE)
      call MPI_Get_count(status, MPI_INTEGER, n, ierr)
      if (ierr /= MPI_SUCCESS .or. n /= 5 .or. msg == MPI_MESSAGE_NULL) call fail('Mprobe')
      call MPI_Recv(got, 5, MPI_INTEGER, src, 4, MPI_COMM_WORLD, status, ierr)
      if (any(got /= -(src * 10 + [1, 2, 3, 4, 5]))) call fail('MPI_Recv took the second message')
      call MPI_Mrecv(got, 5, MPI_INTEGER, msg, status, ierr)
      if (any(got /= src * 10 + [1, 2, 3, 4, 5]) .or. msg /= MPI_MESSAGE_NULL) call fail('Mrecv')
    end do
  end if
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank > 0) then
    call MPI_Send(rank, 1, MPI_INTEGER, 0, 6, MPI_COMM_WORLD, ierr)
  else
    do k = 1, nprocs - 1
      flag = .false.
      do while (.not. flag)
        call MPI_Improbe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, flag, msg, status, ierr)
      end do
      call MPI_Imrecv(x, 1, MPI_INTEGER, msg, req, ierr)
      call MPI_Wait(req, status, ierr)
      if (x /= status(MPI_SOURCE) .or. msg /= MPI_MESSAGE_NULL) call fail('Improbe/Imrecv')
    end do
  end if
  call MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, msg, status, ierr)
  if (msg /= MPI_MESSAGE_NO_PROC) call fail('MPI_MESSAGE_NO_PROC')
  call MPI_Mrecv(x, 1, MPI_INTEGER, msg, status, ierr)
  if (status(MPI_SOURCE) /= MPI_PROC_NULL .or. msg /= MPI_MESSAGE_NULL) call fail('Mrecv NO_PROC')
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  a = rank
  call MPI_Isendrecv(a, 5, MPI_INTEGER, right, 7, got, 5, MPI_INTEGER, left, 7, MPI_COMM_WORLD, &
                     req, ierr)
  call MPI_Wait(req, status, ierr)
  if (any(got /= left) .or. status(MPI_SOURCE) /= left) call fail('Isendrecv')
  call MPI_Isendrecv_replace(a, 5, MPI_INTEGER, right, 8, left, 8, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, status, ierr)
  if (any(a /= left)) call fail('Isendrecv_replace')
  call MPI_Finalize(ierr)
  if (rank == 0) print '(a, i0, a)', 'mprobe: ', nprocs, ' ranks: PASS'
contains
  subroutine fail(what)
    character(*), intent(in) :: what
    integer :: e
    print *, 'rank', rank, 'FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program mprobe
