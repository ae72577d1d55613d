! The MPI-2/3/4 calls of branch mpi2x through `use mpi`: MPI_Sizeof over intrinsic types
! (scalars and arrays), MPI_Type_create_f90_real/_complex/_integer (the same handle twice, the
! right size and combiner, usable in a reduction, MPI_ERR_ARG for an impossible precision),
! MPI_Type_match_size, MPI_Aint_add/diff, MPI_Alloc_mem with an INTEGER(MPI_ADDRESS_KIND) and a TYPE(C_PTR)
! base, MPI_Info_get_string's Fortran lengths, MPI_Info_create_env, datatype attributes with
! Fortran callbacks, a generalized request with Fortran callbacks, MPI_Pack_external.
module mpi2x_callbacks
  use mpi
  implicit none
  integer :: copies = 0, deletes = 0, queries = 0, frees = 0, cancels = 0
contains
  subroutine copy_fn(oldtype, keyval, extra, val_in, val_out, flag, ierror)
    integer :: oldtype, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    copies = copies + 1
    val_out = val_in + extra
    flag = .true.
    ierror = MPI_SUCCESS
    if (oldtype == MPI_DATATYPE_NULL .or. keyval == MPI_KEYVAL_INVALID) ierror = MPI_ERR_OTHER
  end subroutine copy_fn
  subroutine delete_fn(datatype, keyval, val, extra, ierror)
    integer :: datatype, keyval, ierror
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deletes = deletes + 1
    ierror = MPI_SUCCESS
    if (datatype == MPI_DATATYPE_NULL .or. keyval == MPI_KEYVAL_INVALID .or. val + extra < 0) &
      ierror = MPI_ERR_OTHER
  end subroutine delete_fn
  subroutine query_fn(extra, status, ierror)
    integer(kind=MPI_ADDRESS_KIND) :: extra
    integer :: status(MPI_STATUS_SIZE), ierror
    queries = queries + 1
    status(MPI_SOURCE) = int(extra)
    status(MPI_TAG) = 5
    call MPI_Status_set_elements(status, MPI_INTEGER, 2, ierror)
    call MPI_Status_set_cancelled(status, .false., ierror)
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
    if (.not. complete .and. extra > 0) cancels = cancels + 1
    ierror = MPI_SUCCESS
  end subroutine cancel_fn
end module mpi2x_callbacks

program mpi2x
  use mpi
  use mpi2x_callbacks
  use, intrinsic :: iso_c_binding
  implicit none
  integer :: ierr, e2, rank, nprocs, errs, n, t1, t2, t3, ni, na, nd, comb, key, dup, req, cnt, info
  integer :: ints(2)
  integer(kind=MPI_ADDRESS_KIND) :: addr, sz, val, pos, psize, gstate
  integer(kind=MPI_ADDRESS_KIND) :: dummy_a(1)
  integer :: dummy_t(1)
  integer(kind=8) :: i8(4)
  integer(kind=2) :: i2
  real(kind=8) :: r8(2, 3), s8, t8
  real(kind=16) :: r16
  complex(kind=4) :: c4
  logical(kind=1) :: l1(7)
  type(c_ptr) :: cp
  integer, pointer :: block(:)
  character(len=MPI_MAX_INFO_VAL) :: value
  character(len=16) :: short
  character(len=1) :: packed(64)
  integer :: status(MPI_STATUS_SIZE), vals(3), back(3), buflen
  logical :: flag

  errs = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)

  ! MPI_Sizeof
  call MPI_Sizeof(i8, n, ierr);  if (n /= 8 .or. ierr /= MPI_SUCCESS) call bad('sizeof i8', n)
  call MPI_Sizeof(i2, n, ierr);  if (n /= 2) call bad('sizeof i2', n)
  call MPI_Sizeof(r8, n, ierr);  if (n /= 8) call bad('sizeof r8(2,3)', n)
  call MPI_Sizeof(r16, n, ierr); if (n /= 16) call bad('sizeof r16', n)
  call MPI_Sizeof(c4, n, ierr);  if (n /= 8) call bad('sizeof c4', n)
  call MPI_Sizeof(l1, n, ierr);  if (n /= 1) call bad('sizeof l1', n)
  call MPI_Sizeof(errs, n, ierr); call MPI_Type_size(MPI_INTEGER, cnt, ierr)
  if (n /= cnt) call bad('sizeof integer', n)

  ! MPI_Type_create_f90_*
  call MPI_Type_create_f90_real(15, MPI_UNDEFINED, t1, ierr)
  call MPI_Type_create_f90_real(15, MPI_UNDEFINED, t2, ierr)
  if (t1 /= t2 .or. ierr /= MPI_SUCCESS) call bad('f90_real not cached', t2)
  call MPI_Type_size(t1, n, ierr); if (n /= 8) call bad('f90_real(15) size', n)
  call MPI_Type_get_envelope(t1, ni, na, nd, comb, ierr)
  if (comb /= MPI_COMBINER_F90_REAL .or. ni /= 2 .or. nd /= 0) call bad('f90_real envelope', comb)
  call MPI_Type_get_contents(t1, 2, 0, 0, ints, dummy_a, dummy_t, ierr)
  if (ints(1) /= 15 .or. ints(2) /= MPI_UNDEFINED) call bad('f90_real contents', ints(1))
  s8 = rank + 1.5d0
  call MPI_Allreduce(s8, t8, 1, t1, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS .or. t8 /= nprocs * (nprocs + 1) / 2.0d0 + nprocs * 0.5d0) call bad('f90 reduce', ierr)
  call MPI_Type_create_f90_complex(6, 30, t2, ierr)
  call MPI_Type_size(t2, n, ierr); if (n /= 8) call bad('f90_complex(6,30) size', n)
  call MPI_Type_create_f90_integer(9, t3, ierr)
  call MPI_Type_size(t3, n, ierr); if (n /= 4) call bad('f90_integer(9) size', n)
  call MPI_Type_create_f90_integer(10, t3, ierr)
  call MPI_Type_size(t3, n, ierr); if (n /= 8) call bad('f90_integer(10) size', n)
  call MPI_Type_create_f90_real(40, MPI_UNDEFINED, t3, ierr)
  if (ierr == MPI_SUCCESS) call bad('f90_real(40) accepted', t3)
  call MPI_Error_class(ierr, n, e2); if (n /= MPI_ERR_ARG) call bad('f90_real(40) class', n)
  call MPI_Type_free(t1, ierr); if (ierr == MPI_SUCCESS) call bad('freed an f90 type', t1)

  ! MPI_Type_match_size
  call MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, t1, ierr)
  if (t1 /= MPI_REAL8) call bad('match_size real 8', t1)
  call MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, t1, ierr)
  call MPI_Error_class(ierr, n, e2); if (n /= MPI_ERR_ARG) call bad('match_size integer 3', n)

  ! MPI_Alloc_mem: both forms of BASEPTR
  sz = 40
  call MPI_Alloc_mem(sz, MPI_INFO_NULL, cp, ierr)
  call c_f_pointer(cp, block, [10])
  block = 7
  call MPI_Free_mem(block, ierr); if (ierr /= MPI_SUCCESS) call bad('free_mem c_ptr', ierr)
  call MPI_Alloc_mem(sz, MPI_INFO_NULL, addr, ierr)
  if (ierr /= MPI_SUCCESS .or. addr == 0) call bad('alloc_mem integer', ierr)
  cp = transfer(addr, cp)
  call c_f_pointer(cp, block, [10])
  call MPI_Free_mem(block, ierr); if (ierr /= MPI_SUCCESS) call bad('free_mem integer', ierr)
  if (MPI_Aint_diff(MPI_Aint_add(addr, 24_MPI_ADDRESS_KIND), addr) /= 24) call bad('Aint_add/diff', 0)
  call MPI_Free_mem(vals, ierr)
  call MPI_Error_class(ierr, n, e2); if (n /= MPI_ERR_ARG) call bad('free_mem of a non-block', n)

  ! MPI_Info_get_string: Fortran lengths, blank padding, value untouched when buflen is 0
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'key', '123456789', ierr)
  buflen = 4
  value = 'canary'
  call MPI_Info_get_string(info, 'key', buflen, value, flag, ierr)
  if (.not. flag .or. buflen /= 9 .or. value /= '1234') call bad('get_string 4', buflen)
  buflen = 0
  value = 'canary'
  call MPI_Info_get_string(info, 'key', buflen, value, flag, ierr)
  if (buflen /= 9 .or. value /= 'canary') call bad('get_string 0', buflen)
  buflen = 16
  call MPI_Info_get_string(info, 'key', buflen, short, flag, ierr)
  if (short /= '123456789') call bad('get_string short', buflen)
  call MPI_Info_get_string(info, 'nokey', buflen, value, flag, ierr)
  if (flag) call bad('get_string nokey', buflen)
  call MPI_Info_free(info, ierr)
  call MPI_Info_create_env(info, ierr)
  buflen = MPI_MAX_INFO_VAL
  call MPI_Info_get_string(info, 'command', buflen, value, flag, ierr)
  if (.not. flag .or. index(value, 'mpi2x') == 0) call bad('create_env command', buflen)
  call MPI_Info_free(info, ierr)

  ! Datatype attributes with Fortran callbacks
  call MPI_Type_create_keyval(copy_fn, delete_fn, key, 100_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_contiguous(2, MPI_INTEGER, t1, ierr)
  call MPI_Type_set_attr(t1, key, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_dup(t1, dup, ierr)
  call MPI_Type_get_attr(dup, key, val, flag, ierr)
  if (.not. flag .or. val /= 105 .or. copies /= 1) call bad('type attr copy', int(val))
  call MPI_Type_free(dup, ierr)
  call MPI_Type_free(t1, ierr)
  if (deletes /= 2) call bad('type attr deletes', deletes)
  call MPI_Type_get_attr(MPI_INTEGER, key, val, flag, ierr)
  if (flag) call bad('attr on MPI_INTEGER', int(val))
  call MPI_Type_free_keyval(key, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_set_attr(MPI_REAL, key, 9_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_get_attr(MPI_REAL, key, val, flag, ierr)
  if (.not. flag .or. val /= 9) call bad('attr on MPI_REAL', int(val))
  call MPI_Type_delete_attr(MPI_REAL, key, ierr)
  call MPI_Type_free_keyval(key, ierr)

  ! A generalized request with Fortran callbacks
  gstate = 3
  call MPI_Grequest_start(query_fn, free_fn, cancel_fn, gstate, req, ierr)
  call MPI_Cancel(req, ierr)
  call MPI_Test(req, flag, status, ierr)
  if (flag) call bad('grequest done early', 0)
  call MPI_Grequest_complete(req, ierr)
  call MPI_Wait(req, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (queries /= 1 .or. frees /= 3 .or. cancels /= 1 .or. status(MPI_SOURCE) /= 3 .or. &
      status(MPI_TAG) /= 5 .or. cnt /= 2 .or. req /= MPI_REQUEST_NULL) call bad('grequest', queries)
  if (gstate /= 2) call bad('grequest free_fn did not update extra_state', int(gstate))

  ! MPI_Pack_external: big-endian INTEGERs, and back
  vals = [1, 258, -1]
  call MPI_Pack_external_size('external32', 3, MPI_INTEGER, psize, ierr)
  if (psize /= 12) call bad('pack_external_size', int(psize))
  pos = 0
  call MPI_Pack_external('external32', vals, 3, MPI_INTEGER, packed, 64_MPI_ADDRESS_KIND, pos, ierr)
  if (pos /= 12 .or. ichar(packed(4)) /= 1 .or. ichar(packed(7)) /= 1 .or. ichar(packed(8)) /= 2 &
      .or. ichar(packed(9)) /= 255) call bad('pack_external bytes', int(pos))
  pos = 0
  call MPI_Unpack_external('external32', packed, 64_MPI_ADDRESS_KIND, pos, back, 3, MPI_INTEGER, ierr)
  if (any(back /= vals)) call bad('unpack_external', back(2))
  call MPI_Pack_external('native', vals, 3, MPI_INTEGER, packed, 64_MPI_ADDRESS_KIND, pos, ierr)
  call MPI_Error_class(ierr, n, e2); if (n /= MPI_ERR_ARG) call bad('datarep native', n)

  call MPI_Allreduce(MPI_IN_PLACE, errs, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0 .and. errs == 0) print '(a,i0,a)', 'mpi2x: ', nprocs, ' ranks: PASS'
  call MPI_Finalize(ierr)
contains
  subroutine bad(what, v)
    character(len=*), intent(in) :: what
    integer, intent(in) :: v
    errs = errs + 1
    print '(a,i0,3a,i0)', 'rank ', rank, ': FAIL ', what, ': ', v
  end subroutine bad
end program mpi2x
