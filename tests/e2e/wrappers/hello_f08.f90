! Hello world with `use mpi_f08`: proves the installed module files (mpi_f08.mod and the modules
! it uses) suffice to compile, and mpif90/mpifort to link, a Fortran 2008 MPI program.
program hello_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs
  type(MPI_Comm) :: comm
  call MPI_Init()
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, nprocs)
  call MPI_Allreduce(MPI_IN_PLACE, nprocs, 1, MPI_INTEGER, MPI_MAX, comm)
  print '(a,i0,a,i0)', 'hello from Fortran 2008 rank ', rank, ' of ', nprocs
  call MPI_Comm_free(comm)
  call MPI_Finalize()
end program hello_f08
