! Errors, strings, info, attributes and interoperability through `use mpi_f08`: with
! MPI_ERRORS_RETURN a bad call returns its class in the optional IERROR, and goes on without
! one; an error handler written as an f08 procedure; blank-padded strings; MPI_Info; a keyval
! with the predefined f08 callbacks; the FT-MPI and ULFM calls; handles shared with `use mpi`
! code and with C (MPI_Comm_f2c/c2f), statuses converted with MPI_Status_f2f08/f082f, and in
! C with MPI_Status_f082c/c2f08/f082f/f2f08.
module f08_handler_count
  use mpi_f08
  implicit none
  integer :: calls = 0, last_code = MPI_SUCCESS
contains
  subroutine count_errors(comm, code)
    type(MPI_Comm) :: comm
    integer :: code
    if (comm == MPI_COMM_NULL) return
    calls = calls + 1
    last_code = code
  end subroutine count_errors
end module f08_handler_count

program f08_errors
  use, intrinsic :: iso_c_binding, only: c_int
  use mpi_f08
  use f08_handler_count
  use f08_legacy
  implicit none
  interface
    integer(c_int) function f08_c_comm_size(fcomm) bind(C, name="f08_c_comm_size")
      import :: c_int
      integer(c_int), value :: fcomm
    end function f08_c_comm_size
    integer(c_int) function f08_c_world() bind(C, name="f08_c_world")
      import :: c_int
    end function f08_c_world
    integer(c_int) function f08_c_status(s) bind(C, name="f08_c_status")
      import :: c_int, MPI_Status
      type(MPI_Status) :: s
    end function f08_c_status
  end interface
  integer :: rank, nprocs, ierr, cls, slen, nkeys, keyval, comm_mode, msg_mode, flag, got
  integer :: buf(4), fstatus(MPI_STATUS_SIZE), fstatus2(MPI_STATUS_SIZE)
  integer(kind=MPI_ADDRESS_KIND) :: val
  logical :: found
  type(MPI_Comm) :: dup, c2
  type(MPI_Errhandler) :: handler, current
  type(MPI_Info) :: info
  type(MPI_Status) :: status
  character(len=MPI_MAX_ERROR_STRING) :: text
  character(len=MPI_MAX_OBJECT_NAME) :: name
  character(len=40) :: value
  character(len=MPI_MAX_INFO_KEY) :: key

  call MPI_Init(ierr)
  if (ierr /= MPI_SUCCESS) stop 1
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  ! Errors come back in IERROR; without IERROR the program simply goes on.
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_get_errhandler(MPI_COMM_WORLD, current)
  if (current /= MPI_ERRORS_RETURN) call fail('get_errhandler')
  call MPI_Send(buf, 4, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_RANK) call fail('bad rank did not return MPI_ERR_RANK')
  call MPI_Send(buf, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_COUNT) call fail('bad count')
  call MPI_Send(buf, 1, MPI_Datatype(12345), 0, 0, MPI_COMM_WORLD, ierr)
  call MPI_Error_class(ierr, cls)
  if (cls /= MPI_ERR_TYPE) call fail('bad datatype')
  call MPI_Send(buf, 4, MPI_INTEGER, nprocs + 5, 0, MPI_COMM_WORLD)  ! no IERROR: returns
  call MPI_Error_string(MPI_ERR_RANK, text, slen)
  if (slen <= 0 .or. len_trim(text) /= slen) call fail('Error_string')

  ! An error handler written as an f08 procedure (MPI_Comm_errhandler_function).
  call MPI_Comm_dup(MPI_COMM_WORLD, dup)
  call MPI_Comm_create_errhandler(count_errors, handler)
  call MPI_Comm_set_errhandler(dup, handler)
  call MPI_Send(buf, 4, MPI_INTEGER, nprocs + 5, 0, dup, ierr)
  if (calls /= 1 .or. ierr /= last_code) call fail('f08 error handler')
  call MPI_Errhandler_free(handler)

  ! Names and info strings: trailing blanks ignored on input, padded on output.
  call MPI_Comm_set_name(dup, 'f08 dup   ')
  call MPI_Comm_get_name(dup, name, slen)
  if (name /= 'f08 dup' .or. slen /= 7) call fail('Comm_get_name')
  call MPI_Info_create(info)
  call MPI_Info_set(info, 'colour ', 'blue')
  call MPI_Info_set(info, 'size', '42')
  call MPI_Info_get_nkeys(info, nkeys)
  call MPI_Info_get(info, 'colour', 40, value, found)
  if (nkeys /= 2 .or. .not. found .or. value /= 'blue') call fail('Info_get')
  call MPI_Info_get_nthkey(info, 1, key)
  if (key /= 'size') call fail('Info_get_nthkey')
  ! Leading and trailing blanks are not part of keys and values (MPI-3.1 9), through mpi_f08 too.
  call MPI_Info_set(info, '  lead', '  v w  ')
  call MPI_Info_get(info, 'lead', 40, value, found)
  if (.not. found .or. value /= 'v w') call fail('Info key/value with leading blanks')
  call MPI_Info_get_valuelen(info, ' lead ', nkeys, found)
  if (.not. found .or. nkeys /= 3) call fail('Info_get_valuelen with leading blanks')
  call MPI_Info_delete(info, '   lead')
  call MPI_Info_get(info, 'lead', 40, value, found)
  if (found) call fail('Info_delete with leading blanks')
  call MPI_Info_free(info)
  if (info /= MPI_INFO_NULL) call fail('Info_free')

  ! A keyval with the predefined callbacks: MPI_COMM_DUP_FN copies the value into a dup.
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, keyval, 0_MPI_ADDRESS_KIND)
  call MPI_Comm_set_attr(dup, keyval, 1234_MPI_ADDRESS_KIND)
  call MPI_Comm_dup(dup, c2)
  call MPI_Comm_get_attr(c2, keyval, val, found)
  if (.not. found .or. val /= 1234) call fail('attribute copied by MPI_COMM_DUP_FN')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, found)
  if (.not. found .or. val < 32767) call fail('MPI_TAG_UB')
  call MPI_Comm_free(c2)
  call MPI_Comm_free_keyval(keyval)

  ! The FT-MPI and ULFM calls.
  call FTMPI_Comm_get_mode(MPI_COMM_WORLD, comm_mode, msg_mode, ierr)
  if (ierr /= MPI_SUCCESS .or. comm_mode < 0) call fail('FTMPI_Comm_get_mode')
  flag = 1
  call MPIX_Comm_agree(dup, flag, ierr)
  if (ierr /= MPI_SUCCESS .or. flag /= 1) call fail('MPIX_Comm_agree')

  ! Interoperability: `use mpi` code and C take comm%MPI_VAL; statuses convert both ways.
  if (legacy_world() /= MPI_COMM_WORLD%MPI_VAL .or. f08_c_world() /= MPI_COMM_WORLD%MPI_VAL) &
    call fail('the same world handle')
  if (f08_c_comm_size(dup%MPI_VAL) /= nprocs) call fail('MPI_Comm_f2c of an f08 handle')
  call legacy_ring(dup%MPI_VAL, rank, got, fstatus)
  if (got /= mod(rank - 1 + nprocs, nprocs)) call fail('legacy ring')
  call MPI_Status_f2f08(fstatus, status)
  if (status%MPI_SOURCE /= got .or. status%MPI_TAG /= 21) call fail('MPI_Status_f2f08')
  call MPI_Get_count(status, MPI_INTEGER, cls)
  if (cls /= 1) call fail('count of a converted status')
  call MPI_Status_f082f(status, fstatus2)
  if (any(fstatus2 /= fstatus)) call fail('MPI_Status_f082f')
  if (fstatus2(MPI_SOURCE) /= got .or. fstatus2(MPI_TAG) /= 21 .or. fstatus2(MPI_ERROR) /= MPI_SUCCESS) &
    call fail('the status indices MPI_SOURCE, MPI_TAG, MPI_ERROR')
  ! The same status in C (MPI_F08_status: MPI_Status_f082c/c2f08/f082f/f2f08 there).
  if (f08_c_status(status) /= 1) call fail('MPI_Status_f082c and the other C conversions')
  if (status%MPI_TAG /= 121 .or. status%MPI_SOURCE /= got + 1000) call fail('MPI_Status_c2f08')
  call MPI_Comm_free(dup)

  call MPI_Barrier(MPI_COMM_WORLD)
  if (rank == 0) print '(a,i0,a)', 'f08_errors: ', nprocs, ' ranks: PASS'
  call MPI_Finalize()

contains

  subroutine fail(what)
    character(len=*), intent(in) :: what
    print '(a,i0,a,a)', 'f08_errors: rank ', rank, ': FAIL: ', what
    call MPI_Abort(MPI_COMM_WORLD, 1)
  end subroutine fail
end program f08_errors
