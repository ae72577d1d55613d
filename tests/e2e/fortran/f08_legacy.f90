! Code written against `use mpi` (INTEGER handles, INTEGER status arrays), called from an
! mpi_f08 program with comm%MPI_VAL: the two modules' handles are the same integers.
module f08_legacy
  implicit none
contains
  subroutine legacy_ring(fcomm, sent, got, fstatus)
    use mpi
    integer, intent(in) :: fcomm, sent
    integer, intent(out) :: got, fstatus(MPI_STATUS_SIZE)
    integer :: rank, n, ierr
    call MPI_Comm_rank(fcomm, rank, ierr)
    call MPI_Comm_size(fcomm, n, ierr)
    call MPI_Sendrecv(sent, 1, MPI_INTEGER, mod(rank + 1, n), 21, got, 1, MPI_INTEGER, &
                      mod(rank - 1 + n, n), 21, fcomm, fstatus, ierr)
  end subroutine legacy_ring

  integer function legacy_world()
    use mpi
    legacy_world = MPI_COMM_WORLD
  end function legacy_world
end module f08_legacy
