! Derived datatypes from Fortran: a row of a column-major matrix (MPI_Type_vector), absolute
! addresses with MPI_Get_address sent from and received into MPI_BOTTOM
! (MPI_Type_create_struct), a Fortran-order subarray, the MPI-1 INTEGER-displacement
! MPI_Type_struct with MPI_Type_extent, and MPI_Pack/MPI_Unpack.
program types
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, rowtype, abstype, subtype, oldstruct, i, j, size, ext, pos
  integer :: status(MPI_STATUS_SIZE), blens(2), types2(2), idispl(2), n
  integer(kind=MPI_ADDRESS_KIND) :: displs(2), lb, extent
  double precision :: m(4, 3), row(3)
  integer :: iv, grid(4, 3)
  double precision :: dv(2)
  character :: packed(64)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  if (nprocs < 2) call fail('needs 2 ranks')

  ! Row 2 of m: 3 elements, stride 4 (the leading dimension).
  call MPI_Type_vector(3, 1, 4, MPI_DOUBLE_PRECISION, rowtype, ierr)
  call MPI_Type_commit(rowtype, ierr)
  call MPI_Type_size(rowtype, size, ierr)
  if (size /= 24) call fail('Type_size of the row')
  if (rank == 0) then
    m = reshape([(dble(i), i = 1, 12)], [4, 3])
    call MPI_Send(m(2, 1), 1, rowtype, 1, 1, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    call MPI_Recv(row, 3, MPI_DOUBLE_PRECISION, 0, 1, MPI_COMM_WORLD, status, ierr)
    if (any(row /= [ 2d0, 6d0, 10d0 ])) call fail('row received')
    call MPI_Get_elements(status, MPI_DOUBLE_PRECISION, n, ierr)
    if (n /= 3) call fail('Get_elements')
  end if
  call MPI_Type_free(rowtype, ierr)

  ! Absolute addresses: each side builds its own type over its own variables. iv and dv are not
  ! arguments of the MPI_BOTTOM calls, so the compiler may keep them in registers across them:
  ! MPI_F_sync_reg around the calls tells it they change (MPI-3.1 17.1.17).
  call MPI_Get_address(iv, displs(1), ierr)
  call MPI_Get_address(dv, displs(2), ierr)
  blens = [ 1, 2 ]
  types2 = [ MPI_INTEGER, MPI_DOUBLE_PRECISION ]
  call MPI_Type_create_struct(2, blens, displs, types2, abstype, ierr)
  call MPI_Type_commit(abstype, ierr)
  if (rank == 0) then
    iv = 42
    dv = [ 1.5d0, -2.5d0 ]
    call MPI_F_sync_reg(iv)
    call MPI_F_sync_reg(dv)
    call MPI_Send(MPI_BOTTOM, 1, abstype, 1, 2, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    iv = 0
    dv = 0d0
    call MPI_F_sync_reg(iv)
    call MPI_F_sync_reg(dv)
    call MPI_Recv(MPI_BOTTOM, 1, abstype, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_F_sync_reg(iv)
    call MPI_F_sync_reg(dv)
    if (iv /= 42 .or. any(dv /= [ 1.5d0, -2.5d0 ])) call fail('MPI_BOTTOM struct')
  end if
  call MPI_Type_free(abstype, ierr)

  ! A 2x2 block starting at (2,1) of a 4x3 INTEGER grid, Fortran order.
  call MPI_Type_create_subarray(2, [ 4, 3 ], [ 2, 2 ], [ 1, 0 ], MPI_ORDER_FORTRAN, MPI_INTEGER, &
                                subtype, ierr)
  call MPI_Type_commit(subtype, ierr)
  call MPI_Type_get_extent(subtype, lb, extent, ierr)
  if (lb /= 0 .or. extent /= 48) call fail('subarray extent')
  if (rank == 0) then
    grid = reshape([(10 * i, i = 1, 12)], [4, 3])
    call MPI_Send(grid, 1, subtype, 1, 3, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    grid = 0
    call MPI_Recv(grid, 1, subtype, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    do j = 1, 3
      do i = 1, 4
        if ((i == 2 .or. i == 3) .and. j <= 2) then
          if (grid(i, j) /= 10 * (i + 4 * (j - 1))) call fail('subarray element')
        else if (grid(i, j) /= 0) then
          call fail('subarray wrote outside the block')
        end if
      end do
    end do
  end if
  call MPI_Type_free(subtype, ierr)

  ! MPI-1: INTEGER displacements and extent.
  idispl = [ 0, 8 ]
  call MPI_Type_struct(2, [ 1, 1 ], idispl, [ MPI_INTEGER, MPI_DOUBLE_PRECISION ], oldstruct, ierr)
  call MPI_Type_commit(oldstruct, ierr)
  call MPI_Type_extent(oldstruct, ext, ierr)
  if (ierr /= MPI_SUCCESS .or. ext /= 16) call fail('MPI_Type_extent')
  call MPI_Type_free(oldstruct, ierr)

  ! Pack three INTEGERs and a DOUBLE PRECISION, unpack them again.
  pos = 0
  call MPI_Pack([ 1, 2, 3 ], 3, MPI_INTEGER, packed, 64, pos, MPI_COMM_WORLD, ierr)
  call MPI_Pack(9.25d0, 1, MPI_DOUBLE_PRECISION, packed, 64, pos, MPI_COMM_WORLD, ierr)
  if (pos /= 20) call fail('Pack position')
  pos = 0
  blens = 0
  call MPI_Unpack(packed, 64, pos, grid, 3, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_Unpack(packed, 64, pos, dv, 1, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
  if (grid(1, 1) /= 1 .or. grid(3, 1) /= 3 .or. dv(1) /= 9.25d0) call fail('Unpack')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'types: ', nprocs, ' ranks: PASS'
  call MPI_Finalize(ierr)

contains
  subroutine fail(what)
    character(*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'types: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program types
