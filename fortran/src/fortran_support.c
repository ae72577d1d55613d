/* The Fortran sentinels and string conversions (fortran_support.h), and the environment calls
 * whose Fortran form differs from C: MPI_INIT has no argc/argv, MPI_WTIME is a function,
 * MPI_PCONTROL has no IERROR, MPI_INFO_GET's output length is the caller's. */
#include "fortran_support.h"

#include <stddef.h>
#include <string.h>

/* mpif.h: MPI_STATUS_SIZE=5, MPI_SOURCE=1, MPI_TAG=2, MPI_ERROR=3 (1-based Fortran indices). */
_Static_assert(sizeof(MPI_Status) == 5 * sizeof(MPI_Fint), "MPI_STATUS_SIZE");
_Static_assert(offsetof(MPI_Status, MPI_SOURCE) == 0 * sizeof(MPI_Fint), "MPI_SOURCE");
_Static_assert(offsetof(MPI_Status, MPI_TAG) == 1 * sizeof(MPI_Fint), "MPI_TAG");
_Static_assert(offsetof(MPI_Status, MPI_ERROR) == 2 * sizeof(MPI_Fint), "MPI_ERROR");
/* Handles are passed through as INTEGERs; MPI_ADDRESS_KIND=8, MPI_OFFSET_KIND=8. */
_Static_assert(sizeof(MPI_Comm) == sizeof(MPI_Fint) && sizeof(MPI_Request) == sizeof(MPI_Fint) &&
               sizeof(MPI_Datatype) == sizeof(MPI_Fint) && sizeof(MPI_Group) == sizeof(MPI_Fint),
               "handles are INTEGERs");
_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Offset) == 8 && sizeof(MPI_Count) == 8,
               "MPI_ADDRESS_KIND, MPI_OFFSET_KIND, MPI_COUNT_KIND");

/* gfortran aligns common blocks to 16 bytes; the definitions match, so the linker agrees. */
#pragma GCC visibility push(default)
__attribute__((aligned(16))) MPI_Fint mpi_fortran_bottom_;
__attribute__((aligned(16))) MPI_Fint mpi_fortran_in_place_;
__attribute__((aligned(16))) MPI_Fint mpi_fortran_st_ignore_[5];
__attribute__((aligned(16))) MPI_Fint mpi_fortran_sts_ignore_[5];
__attribute__((aligned(16))) MPI_Fint mpi_fortran_unweighted_[1];
__attribute__((aligned(16))) MPI_Fint mpi_fortran_wght_empty_[1];
#pragma GCC visibility pop

char *ftmpi_f_string_in(const char *f, size_t len) {
  while (len > 0 && f[len - 1] == ' ') len--;
  char *c = malloc(len + 1);
  if (c == NULL) return NULL;
  memcpy(c, f, len);
  c[len] = '\0';
  return c;
}

/* Info keys and values lose their leading blanks too (MPI-3.1 9: "In Fortran, leading and
 * trailing spaces are stripped from both"; MPICH f77/info/infotest2f sets " See Below"). */
char *ftmpi_f_info_string_in(const char *f, size_t len) {
  while (len > 0 && *f == ' ') {
    f++;
    len--;
  }
  return ftmpi_f_string_in(f, len);
}

void ftmpi_f_string_out(const char *c, char *f, size_t len) {
  size_t n = strnlen(c, len);
  memcpy(f, c, n);
  memset(f + n, ' ', len - n);
}

#pragma GCC visibility push(default)

void mpi_init_(MPI_Fint *ierr) { *ierr = MPI_Init(NULL, NULL); }
FTMPI_F_PMPI(mpi_init_);

void mpi_init_thread_(const MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr) {
  *ierr = MPI_Init_thread(NULL, NULL, *required, provided);
}
FTMPI_F_PMPI(mpi_init_thread_);

void mpi_pcontrol_(const MPI_Fint *level) { (void)MPI_Pcontrol(*level); }
FTMPI_F_PMPI(mpi_pcontrol_);

/* MPI-3.1 17.1.17: an external call the compiler cannot see into, so it must assume buf changed
 * (a variable used only through MPI_BOTTOM or a nonblocking call is otherwise kept in a register). */
void mpi_f_sync_reg_(void *buf) { __asm__ volatile("" : : "r"(buf) : "memory"); }
FTMPI_F_PMPI(mpi_f_sync_reg_);

double mpi_wtime_(void) { return MPI_Wtime(); }
double mpi_wtick_(void) { return MPI_Wtick(); }
FTMPI_F_PMPI(mpi_wtime_);
FTMPI_F_PMPI(mpi_wtick_);

void mpi_info_get_(const MPI_Fint *info, const char *key, const MPI_Fint *valuelen, char *value,
                   MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len) {
  char *key_c = ftmpi_f_info_string_in(key, key_len);
  /* At most VALUELEN characters, and no more than the Fortran variable holds. */
  int n = *valuelen;
  if (n > 0 && (size_t)n > value_len) n = (int)value_len;
  char *value_c = malloc((size_t)(n > 0 ? n : 0) + 1);
  if (key_c == NULL || value_c == NULL) {
    free(key_c);
    free(value_c);
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  value_c[0] = '\0';
  *ierr = MPI_Info_get(MPI_Info_f2c(*info), key_c, n, value_c, flag);
  if (*ierr == MPI_SUCCESS && *flag) ftmpi_f_string_out(value_c, value, value_len);
  free(key_c);
  free(value_c);
}
FTMPI_F_PMPI(mpi_info_get_);

void mpi_info_get_nthkey_(const MPI_Fint *info, const MPI_Fint *n, char *key, MPI_Fint *ierr,
                          size_t key_len) {
  char key_c[MPI_MAX_INFO_KEY + 1] = {0};
  *ierr = MPI_Info_get_nthkey(MPI_Info_f2c(*info), *n, key_c);
  if (*ierr == MPI_SUCCESS) ftmpi_f_string_out(key_c, key, key_len);
}
FTMPI_F_PMPI(mpi_info_get_nthkey_);

#pragma GCC visibility pop
