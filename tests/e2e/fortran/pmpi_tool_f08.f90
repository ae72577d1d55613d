! pmpi_tool_f08.f90 — a profiling tool written against `use mpi_f08` (MPI-3.1 14.2, 17.1.5),
! as MPICH's f08/profile/profile1f90 is: it defines the specific procedures MPI_Send_f08ts,
! MPI_Isend_f08ts, MPI_Allreduce_f08ts (choice buffers) and MPI_Comm_rank_f08, MPI_Wait_f08
! (none) itself, counts the calls and forwards each to its PMPI_ generic. Its definitions take
! the library's place at link time; the rename on `use mpi_f08` keeps the module's interface of
! the same name out of the way. Linked into pmpi_f08ts.f90.
module pmpi_f08_counts
  implicit none
  integer, save :: sends = 0, isends = 0, allreduces = 0, ranks = 0, waits = 0, sent = 0
end module pmpi_f08_counts

subroutine MPI_Send_f08ts(buf, count, datatype, dest, tag, comm, ierror)
  use :: mpi_f08, tool_hides => MPI_Send_f08ts
  use pmpi_f08_counts
  implicit none
  type(*), dimension(..), intent(in) :: buf
  integer, intent(in) :: count, dest, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  sends = sends + 1
  sent = sent + count
  call PMPI_Send(buf, count, datatype, dest, tag, comm, ierror)
end subroutine MPI_Send_f08ts

subroutine MPI_Isend_f08ts(buf, count, datatype, dest, tag, comm, request, ierror)
  use :: mpi_f08, tool_hides => MPI_Isend_f08ts
  use pmpi_f08_counts
  implicit none
  type(*), dimension(..), intent(in), asynchronous :: buf
  integer, intent(in) :: count, dest, tag
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Comm), intent(in) :: comm
  type(MPI_Request) :: request
  integer, optional, intent(out) :: ierror
  isends = isends + 1
  call PMPI_Isend(buf, count, datatype, dest, tag, comm, request, ierror)
end subroutine MPI_Isend_f08ts

subroutine MPI_Allreduce_f08ts(sendbuf, recvbuf, count, datatype, op, comm, ierror)
  use :: mpi_f08, tool_hides => MPI_Allreduce_f08ts
  use pmpi_f08_counts
  implicit none
  type(*), dimension(..), intent(in) :: sendbuf
  type(*), dimension(..) :: recvbuf
  integer, intent(in) :: count
  type(MPI_Datatype), intent(in) :: datatype
  type(MPI_Op), intent(in) :: op
  type(MPI_Comm), intent(in) :: comm
  integer, optional, intent(out) :: ierror
  allreduces = allreduces + 1
  call PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm, ierror)
end subroutine MPI_Allreduce_f08ts

subroutine MPI_Comm_rank_f08(comm, rank, ierror)
  use :: mpi_f08, tool_hides => MPI_Comm_rank_f08
  use pmpi_f08_counts
  implicit none
  type(MPI_Comm), intent(in) :: comm
  integer :: rank
  integer, optional, intent(out) :: ierror
  ranks = ranks + 1
  call PMPI_Comm_rank(comm, rank, ierror)
end subroutine MPI_Comm_rank_f08

subroutine MPI_Wait_f08(request, status, ierror)
  use :: mpi_f08, tool_hides => MPI_Wait_f08
  use pmpi_f08_counts
  implicit none
  type(MPI_Request) :: request
  type(MPI_Status) :: status
  integer, optional, intent(out) :: ierror
  waits = waits + 1
  call PMPI_Wait(request, status, ierror)
end subroutine MPI_Wait_f08
