! Plain MPI hello world in Fortran: proves mpif90/mpifort compile and link against ftmpi.
program hello
  use mpi
  implicit none
  integer :: ierr, rank, nprocs
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  print '(a,i0,a,i0)', 'hello from Fortran rank ', rank, ' of ', nprocs
  call MPI_Finalize(ierr)
end program hello
