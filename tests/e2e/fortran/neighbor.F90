! Distributed graphs and neighbourhood collectives through `use mpi`, or `use mpi_f08` when
! built with -DF08 (the same program twice): MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY as the
! sentinel arrays the wrappers recognise by address, weights read back, a ring's
! MPI_NEIGHBOR_ALLTOALL and MPI_INEIGHBOR_ALLGATHER. "NAME: N ranks: PASS" on rank 0.
program neighbor
#ifdef F08
  use mpi_f08
  implicit none
  character(len=*), parameter :: name = 'f08_neighbor'
  type(MPI_Comm) :: g
  type(MPI_Request) :: req
#else
  use mpi
  implicit none
  character(len=*), parameter :: name = 'neighbor'
  integer :: g, req
#endif
  integer :: ierr, rank, size, e, bad, total, indeg, outdeg
  logical :: weighted
  integer :: src(2), dst(2), w(2), s2(2), d2(2), sw(2), dw(2), sendv(2), recv(2), me
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  bad = 0
  src = [modulo(rank - 1, size), modulo(rank + 1, size)]
  dst = src
  ! unweighted
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., g, ierr)
  if (ierr /= MPI_SUCCESS) bad = bad + 1
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
  if (indeg /= 2 .or. outdeg /= 2 .or. weighted) bad = bad + 1
  call MPI_Dist_graph_neighbors(g, 2, s2, MPI_UNWEIGHTED, 2, d2, MPI_UNWEIGHTED, ierr)
  if (any(s2 /= src) .or. any(d2 /= dst)) bad = bad + 1
  sendv = [1000 * rank, 1000 * rank + 1]
  recv = -1
  call MPI_Neighbor_alltoall(sendv, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, g, ierr)
  ! the left neighbour sent me its block 2 (to its right), the right one its block 1
  if (size > 2) then
    if (recv(1) /= 1000 * src(1) + 1 .or. recv(2) /= 1000 * src(2)) bad = bad + 1
  end if
  me = rank
  recv = -1
  call MPI_Ineighbor_allgather(me, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, g, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (any(recv /= src)) bad = bad + 1
  call MPI_Comm_free(g, ierr)
  ! weighted
  w = [7, 9]
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, w, 2, dst, w, MPI_INFO_NULL, &
                                      .false., g, ierr)
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
  if (.not. weighted) bad = bad + 1
  call MPI_Dist_graph_neighbors(g, 2, s2, sw, 2, d2, dw, ierr)
  if (any(sw /= w) .or. any(dw /= w)) bad = bad + 1
  call MPI_Comm_free(g, ierr)
  ! no edges, weighted by MPI_WEIGHTS_EMPTY
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, src, MPI_WEIGHTS_EMPTY, 0, dst, &
                                      MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, .false., g, ierr)
  if (ierr /= MPI_SUCCESS) bad = bad + 1
  call MPI_Dist_graph_neighbors_count(g, indeg, outdeg, weighted, ierr)
  if (indeg /= 0 .or. outdeg /= 0 .or. .not. weighted) bad = bad + 1
  call MPI_Topo_test(g, e, ierr)
  if (e /= MPI_DIST_GRAPH) bad = bad + 1
  call MPI_Comm_free(g, ierr)
  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total == 0) then
      print '(a, a, i0, a)', name, ': ', size, ' ranks: PASS'
    else
      print '(a, a, i0, a)', name, ': FAIL (', total, ')'
    end if
  end if
  call MPI_Finalize(ierr)
end program neighbor
