! Error handling and the string, info and attribute calls from Fortran: MPI_ERRORS_RETURN makes
! bad calls return their class in IERROR and the program goes on; MPI_Error_string and
! MPI_Error_class; communicator names; MPI_Info with blank-padded strings; predefined and user
! attributes with a copy callback written in Fortran; the FT-MPI mode calls.
module copy_counter
  implicit none
  integer :: copies = 0
end module copy_counter

subroutine add_one_copy(oldcomm, keyval, extra, val_in, val_out, flag, ierr)
  use mpi
  use copy_counter
  implicit none
  integer :: oldcomm, keyval, ierr
  integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
  logical :: flag
  if (oldcomm == MPI_COMM_NULL .or. keyval < 0) return
  copies = copies + 1
  val_out = val_in + extra
  flag = .true.
  ierr = MPI_SUCCESS
end subroutine add_one_copy

program errors
  use mpi
  use copy_counter
  implicit none
  external add_one_copy
  integer :: ierr, rank, nprocs, cls, len, info, info2, nkeys, keyval, dup, mode, msg, coll
  integer :: buf(4), valuelen
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: flag
  character(len=MPI_MAX_ERROR_STRING) :: text
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=40) :: value
  character(len=MPI_MAX_INFO_KEY) :: key

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! Errors come back instead of ending the job.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  if (ierr /= MPI_SUCCESS) call fail('set_errhandler')
  call MPI_Send(buf, 4, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  if (cls /= MPI_ERR_RANK) call fail('bad rank did not return MPI_ERR_RANK')
  call MPI_Send(buf, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  if (cls /= MPI_ERR_COUNT) call fail('bad count')
  call MPI_Send(buf, 1, 12345, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls, ierr)
  if (cls /= MPI_ERR_TYPE) call fail('bad datatype')
  call MPI_Error_string(MPI_ERR_RANK, text, len, ierr)
  if (ierr /= MPI_SUCCESS .or. len <= 0 .or. len > MPI_MAX_ERROR_STRING) call fail('Error_string')
  if (len_trim(text) /= len) call fail('Error_string is not blank padded')
  call MPI_Comm_get_errhandler(MPI_COMM_WORLD, cls, ierr)
  if (cls /= MPI_ERRORS_RETURN) call fail('get_errhandler')

  ! Names: set with trailing blanks (ignored), read back blank padded.
  call MPI_Comm_set_name(MPI_COMM_WORLD, 'the world   ', ierr)
  call MPI_Comm_get_name(MPI_COMM_WORLD, name, len, ierr)
  if (len /= 9 .or. name /= 'the world') call fail('Comm_get_name')

  ! Info objects.
  call MPI_Info_create(info, ierr)
  call MPI_Info_set(info, 'colour', 'dark blue  ', ierr)
  call MPI_Info_set(info, 'size', '42', ierr)
  call MPI_Info_get_nkeys(info, nkeys, ierr)
  if (nkeys /= 2) call fail('Info_get_nkeys')
  call MPI_Info_get(info, 'colour', 40, value, flag, ierr)
  if (.not. flag .or. value /= 'dark blue') call fail('Info_get')
  call MPI_Info_get(info, 'colour', 4, value, flag, ierr)
  if (.not. flag .or. value /= 'dark') call fail('Info_get truncated to VALUELEN')
  call MPI_Info_get_valuelen(info, 'size', valuelen, flag, ierr)
  if (.not. flag .or. valuelen /= 2) call fail('Info_get_valuelen')
  call MPI_Info_get_nthkey(info, 1, key, ierr)
  if (key /= 'size') call fail('Info_get_nthkey')
  call MPI_Info_dup(info, info2, ierr)
  call MPI_Info_delete(info2, 'colour', ierr)
  call MPI_Info_get(info2, 'colour', 40, value, flag, ierr)
  if (flag) call fail('Info_delete')
  call MPI_Info_delete(info2, 'colour', ierr)
  call MPI_Error_class(ierr, cls, ierr)
  if (cls /= MPI_ERR_INFO_NOKEY) call fail('Info_delete of a missing key')
  ! Leading and trailing blanks of keys and values are not part of them (MPI-3.1 9).
  call MPI_Info_set(info, '  lead', '  v w  ', ierr)
  call MPI_Info_get(info, 'lead', 40, value, flag, ierr)
  if (.not. flag .or. value /= 'v w') call fail('Info key/value with leading blanks')
  call MPI_Info_free(info, ierr)
  call MPI_Info_free(info2, ierr)
  if (info /= MPI_INFO_NULL) call fail('Info_free')
  ! A duplicate's name is not copied.
  call MPI_Type_contiguous(2, MPI_INTEGER, dup, ierr)
  call MPI_Type_set_name(dup, 'named pair', ierr)
  call MPI_Type_dup(dup, keyval, ierr)
  name = 'XXXX'
  call MPI_Type_get_name(keyval, name, len, ierr)
  if (len /= 0 .or. name /= ' ') call fail('MPI_Type_dup copied the name')
  call MPI_Type_free(keyval, ierr)
  call MPI_Type_free(dup, ierr)

  ! Attributes: a predefined one, and a user keyval whose Fortran copy callback runs on dup.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  if (.not. flag .or. val < 32767) call fail('MPI_TAG_UB')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, buf(1), flag, ierr)
  if (.not. flag .or. buf(1) /= val) call fail('MPI_Attr_get of MPI_TAG_UB')
  ! The MPI-2 predefined keys are values too, not the C pointers to them.
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, val, flag, ierr)
  if (.not. flag .or. val < MPI_ERR_LASTCODE .or. val > 100000) call fail('MPI_LASTUSEDCODE')
  call MPI_Attr_get(MPI_COMM_WORLD, MPI_APPNUM, buf(1), flag, ierr)
  if (.not. flag .or. buf(1) /= 0) call fail('MPI_APPNUM')
  call MPI_Comm_create_keyval(add_one_copy, MPI_COMM_NULL_DELETE_FN, keyval, 100_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, keyval, 5_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_get_attr(dup, keyval, val, flag, ierr)
  if (copies /= 1 .or. .not. flag .or. val /= 105) call fail('copy callback')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, keyval, ierr)
  call MPI_Comm_free_keyval(keyval, ierr)
  call MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, keyval, 0, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, keyval, 77, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Attr_get(dup, keyval, buf(2), flag, ierr)
  if (.not. flag .or. buf(2) /= 77) call fail('MPI_DUP_FN')
  call MPI_Comm_free(dup, ierr)
  call MPI_Attr_delete(MPI_COMM_WORLD, keyval, ierr)
  call MPI_Keyval_free(keyval, ierr)

  ! FT-MPI extensions.
  call FTMPI_Comm_set_mode(MPI_COMM_WORLD, FTMPI_COMM_MODE_SHRINK, FTMPI_MSG_MODE_CONT, ierr)
  call FTMPI_Comm_get_mode(MPI_COMM_WORLD, mode, msg, ierr)
  if (mode /= FTMPI_COMM_MODE_SHRINK .or. msg /= FTMPI_MSG_MODE_CONT) call fail('FTMPI modes')
  call FTMPI_Comm_set_coll_mode(MPI_COMM_WORLD, FTMPI_COLL_MODE_RELAXED, ierr)
  call FTMPI_Comm_get_coll_mode(MPI_COMM_WORLD, coll, ierr)
  if (coll /= FTMPI_COLL_MODE_RELAXED) call fail('FTMPI coll mode')
  call FTMPI_Comm_state(MPI_COMM_WORLD, mode, ierr)
  if (mode /= FTMPI_COMM_OK) call fail('FTMPI_Comm_state')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, FTMPI_COMM_STATE_KEY, val, flag, ierr)
  if (.not. flag .or. val /= FTMPI_COMM_OK) call fail('FTMPI_COMM_STATE attribute')
  call FTMPI_Comm_valid_size(MPI_COMM_WORLD, mode, ierr)
  if (mode /= nprocs) call fail('FTMPI_Comm_valid_size')

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0,a)', 'errors: ', nprocs, ' ranks: PASS'
  call MPI_Finalize(ierr)

contains
  subroutine fail(what)
    character(*), intent(in) :: what
    integer :: e
    print '(a,i0,2a)', 'errors: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1, e)
  end subroutine fail
end program errors
