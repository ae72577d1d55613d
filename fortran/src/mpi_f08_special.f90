! The mpi_f08 procedures whose bodies are not generated (included in module mpi_f08 by
! gen_f08.py; the generic names are generated). Addresses come from the array descriptor, so a
! non-contiguous section's address is its first element's, not a compiler temporary's.

  subroutine MPI_Get_address_f08(location, address, ierror)
    implicit none
    type(*), dimension(..), asynchronous :: location
    integer(kind=MPI_ADDRESS_KIND), intent(out) :: address
    integer, optional, intent(out) :: ierror
    integer :: ierror_c
    call ftmpi_f08_get_address(location, address, ierror_c)
    if (present(ierror)) ierror = ierror_c
  end subroutine MPI_Get_address_f08

  ! MPI-1's INTEGER form (removed in MPI-3, kept as `use mpi` keeps it): an address that does not
  ! fit an INTEGER is refused with MPI_ERR_ARG, as in fortran_mpi1_address.c.
  subroutine MPI_Address_f08(location, address, ierror)
    implicit none
    type(*), dimension(..), asynchronous :: location
    integer, intent(out) :: address
    integer, optional, intent(out) :: ierror
    integer :: ierror_c
    integer(kind=MPI_ADDRESS_KIND) :: a
    call ftmpi_f08_get_address(location, a, ierror_c)
    if (ierror_c == MPI_SUCCESS .and. (a > huge(address) .or. a < -huge(address) - 1)) ierror_c = MPI_ERR_ARG
    if (ierror_c == MPI_SUCCESS) address = int(a)
    if (present(ierror)) ierror = ierror_c
  end subroutine MPI_Address_f08

  ! MPI-3.1 17.2: the f08 form returns the detached buffer's address as TYPE(C_PTR).
  subroutine MPI_Buffer_detach_f08(buffer_addr, size, ierror)
    implicit none
    type(c_ptr), intent(out) :: buffer_addr
    integer, intent(out) :: size
    integer, optional, intent(out) :: ierror
    integer :: ierror_c
    call ftmpi_f08_buffer_detach(buffer_addr, size, ierror_c)
    if (present(ierror)) ierror = ierror_c
  end subroutine MPI_Buffer_detach_f08

  ! Between `use mpi`'s INTEGER status(MPI_STATUS_SIZE) and TYPE(MPI_Status): the same five
  ! integers in the same order (fortran_support.c checks the C struct against both).
  subroutine MPI_Status_f2f08_f08(f_status, f08_status, ierror)
    implicit none
    integer, intent(in) :: f_status(MPI_STATUS_SIZE)
    type(MPI_Status), intent(out) :: f08_status
    integer, optional, intent(out) :: ierror
    f08_status = MPI_Status(f_status(1), f_status(2), f_status(3), f_status(4), f_status(5))
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine MPI_Status_f2f08_f08

  subroutine MPI_Status_f082f_f08(f08_status, f_status, ierror)
    implicit none
    type(MPI_Status), intent(in) :: f08_status
    integer, intent(out) :: f_status(MPI_STATUS_SIZE)
    integer, optional, intent(out) :: ierror
    f_status = [f08_status%MPI_SOURCE, f08_status%MPI_TAG, f08_status%MPI_ERROR, &
                f08_status%ftmpi_count_lo, f08_status%ftmpi_count_hi_cancelled]
    if (present(ierror)) ierror = MPI_SUCCESS
  end subroutine MPI_Status_f082f_f08

  ! MPI-3.1 8.2, 17.2: the f08 form returns the block as TYPE(C_PTR).
  subroutine MPI_Alloc_mem_f08(size, info, baseptr, ierror)
    implicit none
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: size
    type(MPI_Info), intent(in) :: info
    type(c_ptr), intent(out) :: baseptr
    integer, optional, intent(out) :: ierror
    integer :: ierror_c
    integer(kind=MPI_ADDRESS_KIND) :: address
    call f77_MPI_Alloc_mem(size, info, address, ierror_c)
    if (ierror_c == MPI_SUCCESS) baseptr = transfer(address, baseptr)
    if (present(ierror)) ierror = ierror_c
  end subroutine MPI_Alloc_mem_f08

  ! MPI-3.1 4.1.5: address arithmetic (addresses are flat byte addresses here).
  integer(kind=MPI_ADDRESS_KIND) function MPI_Aint_add_f08(base, disp)
    implicit none
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: base, disp
    MPI_Aint_add_f08 = base + disp
  end function MPI_Aint_add_f08

  integer(kind=MPI_ADDRESS_KIND) function MPI_Aint_diff_f08(addr1, addr2)
    implicit none
    integer(kind=MPI_ADDRESS_KIND), intent(in) :: addr1, addr2
    MPI_Aint_diff_f08 = addr1 - addr2
  end function MPI_Aint_diff_f08
