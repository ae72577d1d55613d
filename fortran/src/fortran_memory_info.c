/* Hand-written Fortran forms of MPI_Alloc_mem, MPI_Info_get_string and MPI_Info_create_env:
 * their Fortran arguments are not the C ones (gen_bindings.py MANUAL). */
#include <string.h>

#include "fortran_support.h"

#pragma GCC visibility push(default)

/* MPI-3.1 8.2: BASEPTR is INTEGER(KIND=MPI_ADDRESS_KIND) (a Cray pointer's value) ... */
void mpi_alloc_mem_(const MPI_Aint *size, const MPI_Fint *info, MPI_Aint *baseptr, MPI_Fint *ierr) {
  void *p = NULL;
  *ierr = MPI_Alloc_mem(*size, MPI_Info_f2c(*info), &p);
  if (*ierr == MPI_SUCCESS) *baseptr = (MPI_Aint)p;
}
FTMPI_F_PMPI(mpi_alloc_mem_);

/* ... or, overloaded in `use mpi` (17.1.? "MPI_ALLOC_MEM with TYPE(C_PTR)"), a TYPE(C_PTR),
 * which is a void * passed by reference. */
void ftmpi_f_alloc_mem_cptr(const MPI_Aint *size, const MPI_Fint *info, void **baseptr, MPI_Fint *ierr) {
  void *p = NULL;
  *ierr = MPI_Alloc_mem(*size, MPI_Info_f2c(*info), &p);
  if (*ierr == MPI_SUCCESS) *baseptr = p;
}

/* MPI-4.0 9.2, Fortran: BUFLEN characters at most (no terminator); on return BUFLEN is the
 * value's length; VALUE is blank padded, and left alone when the key is absent or BUFLEN is 0
 * (what MPICH's f77/info/infogetstrf checks). */
void mpi_info_get_string_(const MPI_Fint *info, const char *key, MPI_Fint *buflen, char *value,
                          MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len) {
  char *key_c = ftmpi_f_info_string_in(key, key_len);
  char value_c[FTMPI_F_STRING_MAX];
  int n = (int)sizeof value_c, found = 0;
  if (key_c == NULL) {
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  *ierr = MPI_Info_get_string(MPI_Info_f2c(*info), key_c, &n, value_c, &found);
  free(key_c);
  if (*ierr != MPI_SUCCESS) return;
  *flag = found != 0;
  if (!found) return;
  if (*buflen > 0) {
    size_t keep = (size_t)*buflen < value_len ? (size_t)*buflen : value_len;
    if ((size_t)(n - 1) < keep) keep = (size_t)(n - 1);
    memcpy(value, value_c, keep);
    memset(value + keep, ' ', value_len - keep);
  }
  *buflen = n - 1;
}
FTMPI_F_PMPI(mpi_info_get_string_);

/* Fortran has no argc/argv: the process's command line (MPI-4.0 11.4.3). */
void mpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierr) {
  MPI_Info c = MPI_INFO_NULL;
  *ierr = MPI_Info_create_env(0, NULL, &c);
  if (*ierr == MPI_SUCCESS) *info = MPI_Info_c2f(c);
}
FTMPI_F_PMPI(mpi_info_create_env_);

#pragma GCC visibility pop

#pragma GCC visibility push(default)

/* MPI_AINT_ADD / MPI_AINT_DIFF: INTEGER(KIND=MPI_ADDRESS_KIND) functions (mpif.h, `use mpi`). */
MPI_Aint mpi_aint_add_(const MPI_Aint *base, const MPI_Aint *disp) { return MPI_Aint_add(*base, *disp); }
MPI_Aint mpi_aint_diff_(const MPI_Aint *addr1, const MPI_Aint *addr2) { return MPI_Aint_diff(*addr1, *addr2); }
FTMPI_F_PMPI(mpi_aint_add_);
FTMPI_F_PMPI(mpi_aint_diff_);

#pragma GCC visibility pop
