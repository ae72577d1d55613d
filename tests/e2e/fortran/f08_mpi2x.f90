! The mpi2x calls through `use mpi_f08`: MPI_Sizeof, MPI_Alloc_mem returning TYPE(C_PTR),
! an f90 type in a reduction, MPI_Type_match_size, datatype attributes, MPI_Info_get_string,
! a generalized request with f08 callbacks (TYPE(MPI_Status)), MPI_Pack_external.
module f08_mpi2x_callbacks
  use mpi_f08
  implicit none
  integer :: queries = 0, frees = 0
contains
  subroutine query_fn(extra, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    type(MPI_Status) :: status
    integer :: ierror
    queries = queries + 1
    status%MPI_TAG = int(extra)
    ierror = MPI_SUCCESS
  end subroutine query_fn
  subroutine free_fn(extra, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: ierror
    frees = frees + int(extra)
    extra = extra - 1 ! seen by the caller: MPI hands over its variable, not a copy
    ierror = MPI_SUCCESS
  end subroutine free_fn
  subroutine cancel_fn(extra, complete, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    logical :: complete
    integer :: ierror
    ierror = MPI_SUCCESS
    if (complete .or. extra < 0) ierror = MPI_ERR_OTHER
  end subroutine cancel_fn
end module f08_mpi2x_callbacks

program f08_mpi2x
  use mpi_f08
  use f08_mpi2x_callbacks
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: rank, nprocs, errs, n, key, buflen, ierr
  integer(kind=MPI_ADDRESS_KIND) :: val, pos, gstate
  type(MPI_Datatype) :: t1, t2
  type(MPI_Request) :: req
  type(MPI_Status) :: status
  type(MPI_Info) :: info
  type(c_ptr) :: cp
  real(kind=4), pointer :: block(:)
  real(kind=4) :: x(5), y
  complex(kind=8) :: z
  logical :: flag
  character(len=8) :: value
  character(len=1) :: packed(16)
  real(kind=8) :: d, back

  errs = 0
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)

  call MPI_Sizeof(x, n); if (n /= 4) call bad('sizeof real(4) array', n)
  call MPI_Sizeof(z, n, ierr); if (n /= 16 .or. ierr /= MPI_SUCCESS) call bad('sizeof complex(8)', n)

  call MPI_Alloc_mem(20_MPI_ADDRESS_KIND, MPI_INFO_NULL, cp)
  call c_f_pointer(cp, block, [5])
  block = 2.0
  call MPI_Free_mem(block, ierr); if (ierr /= MPI_SUCCESS) call bad('free_mem', ierr)
  if (MPI_Aint_diff(MPI_Aint_add(100_MPI_ADDRESS_KIND, -30_MPI_ADDRESS_KIND), 50_MPI_ADDRESS_KIND) /= 20) &
    call bad('Aint_add/diff', 0)

  call MPI_Type_create_f90_real(6, 30, t1)
  call MPI_Type_create_f90_real(6, 30, t2)
  if (t1 /= t2) call bad('f90_real cached', t2%MPI_VAL)
  y = 1.0
  call MPI_Allreduce(MPI_IN_PLACE, y, 1, t1, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. y /= nprocs) call bad('f90 reduce', ierr)
  call MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, t2)
  if (t2 /= MPI_COMPLEX16) call bad('match_size complex 16', t2%MPI_VAL)

  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND)
  call MPI_Type_set_attr(MPI_DOUBLE_PRECISION, key, 42_MPI_ADDRESS_KIND)
  call MPI_Type_dup(MPI_DOUBLE_PRECISION, t2)
  call MPI_Type_get_attr(t2, key, val, flag)
  if (.not. flag .or. val /= 42) call bad('type attr dup', int(val))
  call MPI_Type_free(t2)
  call MPI_Type_delete_attr(MPI_DOUBLE_PRECISION, key)
  call MPI_Type_free_keyval(key)

  call MPI_Info_create(info)
  call MPI_Info_set(info, 'k', 'abcdef')
  buflen = 3
  call MPI_Info_get_string(info, 'k', buflen, value, flag)
  if (.not. flag .or. buflen /= 6 .or. value /= 'abc') call bad('get_string', buflen)
  call MPI_Info_free(info)

  gstate = 7
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, gstate, req)
  call MPI_Cancel(req, ierr)
  if (ierr /= MPI_SUCCESS) call bad('cancel before completion', ierr)
  call MPI_Grequest_complete(req)
  call MPI_Cancel(req, ierr)
  if (ierr == MPI_SUCCESS) call bad('cancel_fn error not returned', ierr)
  call MPI_Wait(req, status)
  if (queries /= 1 .or. frees /= 7 .or. status%MPI_TAG /= 7) call bad('grequest', queries)
  if (gstate /= 6) call bad('grequest free_fn did not update extra_state', int(gstate))

  d = -2.5d0
  pos = 0
  call MPI_Pack_external('external32', d, 1, MPI_DOUBLE_PRECISION, packed, 16_MPI_ADDRESS_KIND, pos)
  if (pos /= 8 .or. ichar(packed(1)) /= 192 .or. ichar(packed(2)) /= 4) call bad('pack_external', int(pos))
  pos = 0
  call MPI_Unpack_external('external32', packed, 16_MPI_ADDRESS_KIND, pos, back, 1, MPI_DOUBLE_PRECISION)
  if (back /= d) call bad('unpack_external', int(pos))

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. errs == 0) print '(a,i0,a)', 'f08_mpi2x: ', nprocs, ' ranks: PASS'
  call MPI_Finalize()
contains
  subroutine bad(what, v)
    character(len=*), intent(in) :: what
    integer, intent(in) :: v
    errs = errs + 1
    print '(a,i0,3a,i0)', 'rank ', rank, ': FAIL ', what, ': ', v
  end subroutine bad
end program f08_mpi2x
