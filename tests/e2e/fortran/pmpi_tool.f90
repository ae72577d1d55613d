! pmpi_tool.f90 — a profiling tool written in Fortran (MPI-3.1 14.2), as such tools are: it
! defines MPI_INIT, MPI_SEND, MPI_ISEND, MPI_ALLREDUCE, MPI_WTIME and MPIX_COMM_AGREE itself,
! counts the calls and forwards each to its PMPI_ name. Linked into pmpi_f (`use mpi`) and
! pmpi_f08 (`use mpi_f08`, whose calls go through the same Fortran entry points). The
! wrappers use mpif.h, as most tools do, except MPI_ALLREDUCE, which takes PMPI_Allreduce's
! interface from `use mpi` (`only:`, so its own name does not clash).
module pmpi_tool_counts
  implicit none
  integer, save :: inits = 0, sends = 0, isends = 0, allreduces = 0, wtimes = 0, agrees = 0
end module pmpi_tool_counts

subroutine MPI_INIT(ierror)
  use pmpi_tool_counts
  implicit none
  integer :: ierror
  inits = inits + 1
  call PMPI_INIT(ierror)
end subroutine MPI_INIT

subroutine MPI_SEND(buf, count, datatype, dest, tag, comm, ierror)
  use pmpi_tool_counts
  implicit none
  include 'mpif.h'
  integer :: buf(*), count, datatype, dest, tag, comm, ierror
  sends = sends + 1
  call PMPI_SEND(buf, count, datatype, dest, tag, comm, ierror)
end subroutine MPI_SEND

subroutine MPI_ISEND(buf, count, datatype, dest, tag, comm, request, ierror)
  use pmpi_tool_counts
  implicit none
  include 'mpif.h'
  integer :: buf(*), count, datatype, dest, tag, comm, request, ierror
  isends = isends + 1
  call PMPI_ISEND(buf, count, datatype, dest, tag, comm, request, ierror)
end subroutine MPI_ISEND

subroutine MPI_ALLREDUCE(sendbuf, recvbuf, count, datatype, op, comm, ierror)
  use pmpi_tool_counts
  use mpi, only: PMPI_Allreduce
  implicit none
  integer :: sendbuf(*), recvbuf(*), count, datatype, op, comm, ierror
  allreduces = allreduces + 1
  call PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
end subroutine MPI_ALLREDUCE

double precision function MPI_WTIME()
  use pmpi_tool_counts
  implicit none
  double precision, external :: PMPI_WTIME
  wtimes = wtimes + 1
  MPI_WTIME = PMPI_WTIME()
end function MPI_WTIME

subroutine MPIX_COMM_AGREE(comm, flag, ierror)
  use pmpi_tool_counts
  implicit none
  integer :: comm, flag, ierror
  agrees = agrees + 1
  call PMPIX_COMM_AGREE(comm, flag, ierror)
end subroutine MPIX_COMM_AGREE
