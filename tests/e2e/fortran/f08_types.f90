! Derived datatypes through `use mpi_f08`: a vector type sends a row of a column-major matrix,
! a struct of absolute addresses (MPI_Get_address, also of a strided section: the address of its
! first element) is sent from MPI_BOTTOM, extents and sizes, resized and contiguous types,
! MPI_Pack/MPI_Unpack, and the envelope of a constructed type.
program f08_types
  use mpi_f08
  implicit none
  integer :: rank, nprocs, i, peer, src, sz, pos, ni, na, nd, combiner
  type(MPI_Datatype) :: row, rec, three, resized
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent, base, addr(3)
  integer :: m(5, 4), got(4), ival, blocks(3)
  double precision :: dval, grid(4, 4)
  character(len=6) :: word
  type(MPI_Datatype) :: types(3)
  character(len=64) :: packed
  integer :: a(3), b(3)

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  peer = mod(rank + 1, nprocs)
  src = mod(rank - 1 + nprocs, nprocs)

  ! Row 2 of m(5,4): 4 INTEGERs 5 apart.
  call MPI_Type_vector(4, 1, 5, MPI_INTEGER, row)
  call MPI_Type_commit(row)
  call MPI_Type_size(row, sz)
  call MPI_Type_get_extent(row, lb, extent)
  if (sz /= 16 .or. lb /= 0 .or. extent /= 4 * (3 * 5 + 1)) call fail('vector size/extent')
  m = reshape([(1000 * rank + i, i = 1, 20)], [5, 4])
  call MPI_Sendrecv(m(2, 1), 1, row, peer, 1, got, 4, MPI_INTEGER, src, 1, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE)
  if (any(got /= [(1000 * src + 2 + 5 * i, i = 0, 3)])) call fail('vector row')
  call MPI_Type_get_envelope(row, ni, na, nd, combiner)
  if (combiner /= MPI_COMBINER_VECTOR .or. ni /= 3 .or. nd /= 1) call fail('Type_get_envelope')

  ! A struct of absolute addresses, sent from MPI_BOTTOM.
  call MPI_Get_address(ival, addr(1))
  call MPI_Get_address(dval, addr(2))
  call MPI_Get_address(word, addr(3))
  blocks = [1, 1, 6]
  types = [MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_CHARACTER]
  call MPI_Type_create_struct(3, blocks, addr, types, rec)
  call MPI_Type_commit(rec)
  ival = rank
  dval = rank + 0.5d0
  word = 'rank' // achar(48 + mod(rank, 10)) // '!'
  ! The compiler cannot see MPI_BOTTOM reach these variables (MPI-3.1 17.1.17): sync them.
  call MPI_F_sync_reg(ival)
  call MPI_F_sync_reg(dval)
  call MPI_F_sync_reg(word)
  call MPI_Sendrecv_replace(MPI_BOTTOM, 1, rec, peer, 2, src, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_F_sync_reg(ival)
  call MPI_F_sync_reg(dval)
  call MPI_F_sync_reg(word)
  if (ival /= src .or. dval /= src + 0.5d0 .or. word /= 'rank' // achar(48 + mod(src, 10)) // '!') &
    call fail('struct from MPI_BOTTOM')

  ! The address of a strided section is that of its first element (no temporary).
  call MPI_Get_address(grid(2, 1), base)
  call MPI_Get_address(grid(2, :), addr(1))
  call MPI_Get_address(grid(1:4:2, 3), addr(2))
  if (addr(1) /= base .or. addr(2) /= base - 8 + 2 * 4 * 8) call fail('address of a section')

  ! Contiguous and resized types.
  call MPI_Type_contiguous(3, MPI_INTEGER, three)
  call MPI_Type_commit(three)
  call MPI_Type_create_resized(three, 0_MPI_ADDRESS_KIND, 16_MPI_ADDRESS_KIND, resized)
  call MPI_Type_get_extent(resized, lb, extent)
  if (extent /= 16) call fail('Type_create_resized')
  call MPI_Type_free(resized)
  if (resized /= MPI_DATATYPE_NULL) call fail('Type_free')

  ! Pack and unpack.
  a = [rank, rank + 1, rank + 2]
  pos = 0
  call MPI_Pack(a, 1, three, packed, len(packed), pos, MPI_COMM_WORLD)
  if (pos /= 12) call fail('Pack position')
  pos = 0
  call MPI_Unpack(packed, len(packed), pos, b, 3, MPI_INTEGER, MPI_COMM_WORLD)
  if (any(b /= a)) call fail('Unpack')

  call MPI_Type_free(three)
  call MPI_Type_free(row)
  call MPI_Type_free(rec)
  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'f08_types: ', nprocs, ' ranks: PASS'
  call MPI_Finalize()

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'f08_types: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_types
