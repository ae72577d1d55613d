/* Shared by the generated and the hand-written Fortran wrappers (fortran/src/): the sentinels
 * Fortran passes by address (MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE), and the
 * conversions of Fortran strings (blank padded, length passed as a hidden size_t argument).
 * Handles need no table: ftmpi's C handles are integers (MPI_Comm_f2c and friends). */
#ifndef FTMPI_FORTRAN_SUPPORT_H
#define FTMPI_FORTRAN_SUPPORT_H

#include <mpi.h>
#include <mpi-ext.h>
#include <stddef.h>
#include <stdlib.h>

/* Every wrapper is exported with gfortran's external name: lower case, one trailing '_'. */
#pragma GCC visibility push(default)

/* The common blocks of mpif.h (COMMON /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM, ...). Defined here, so
 * every Fortran program unit shares the library's copy and a wrapper recognises the sentinel
 * by comparing addresses, as MPICH and Open MPI do. */
extern MPI_Fint mpi_fortran_bottom_;
extern MPI_Fint mpi_fortran_in_place_;
extern MPI_Fint mpi_fortran_st_ignore_[5];
extern MPI_Fint mpi_fortran_sts_ignore_[5];
extern MPI_Fint mpi_fortran_unweighted_[1];
extern MPI_Fint mpi_fortran_wght_empty_[1];
/* `use mpi_f08`'s sentinels: BIND(C) variables of module mpi_f08_types (gen_f08.py). */
extern MPI_Fint ftmpi_f08_bottom;
extern MPI_Fint ftmpi_f08_in_place;
extern MPI_Status ftmpi_f08_status_ignore;
extern MPI_Status ftmpi_f08_statuses_ignore[1];
extern MPI_Fint ftmpi_f08_unweighted[1];
extern MPI_Fint ftmpi_f08_weights_empty[1];

#pragma GCC visibility pop

/* A hand-written binding's profiling name (MPI-3.1 14.2, Fortran): pmpi_waitany_ is the binding
 * itself under a second name (the generated ones have a second body calling C's PMPI_ name).
 * A tool defines SUBROUTINE MPI_WAITANY (mpi_waitany_) and calls PMPI_WAITANY: the
 * application's calls, and `use mpi_f08`'s, which go through mpi_waitany_ too, reach the tool's
 * definition (an executable's or an earlier library's symbol interposes on this shared
 * library's), and PMPI_WAITANY reaches the library. Written after each definition. */
#define FTMPI_F_PMPI(fn) \
  extern __typeof(fn) p##fn __attribute__((alias(#fn), visibility("default")))

/* Room for any string the C library hands out (MPI_MAX_INFO_VAL is the longest). */
#define FTMPI_F_STRING_MAX (MPI_MAX_INFO_VAL + 1)

/* A choice buffer as C wants it: MPI_BOTTOM is address 0, MPI_IN_PLACE the C sentinel. */
static inline void *ftmpi_f_buffer(void *buf) {
  if (buf == (void *)&mpi_fortran_bottom_ || buf == (void *)&ftmpi_f08_bottom) return MPI_BOTTOM;
  if (buf == (void *)&mpi_fortran_in_place_ || buf == (void *)&ftmpi_f08_in_place) return MPI_IN_PLACE;
  return buf;
}

/* A distributed graph's weights array: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY are the C
 * sentinels (special addresses, mpi.h); MPI_Fint is int. */
static inline int *ftmpi_f_weights(MPI_Fint *w) {
  if (w == mpi_fortran_unweighted_ || w == ftmpi_f08_unweighted) return MPI_UNWEIGHTED;
  if (w == mpi_fortran_wght_empty_ || w == ftmpi_f08_weights_empty) return MPI_WEIGHTS_EMPTY;
  return (int *)w;
}

/* A Fortran INTEGER status(MPI_STATUS_SIZE) has the C struct's layout (checked in
 * fortran_support.c), so only the IGNORE sentinels need translating. */
static inline MPI_Status *ftmpi_f_status(MPI_Fint *status) {
  if (status == mpi_fortran_st_ignore_ || (void *)status == (void *)&ftmpi_f08_status_ignore)
    return MPI_STATUS_IGNORE;
  return (MPI_Status *)status;
}
static inline MPI_Status *ftmpi_f_statuses(MPI_Fint *statuses) {
  if (statuses == mpi_fortran_sts_ignore_ || (void *)statuses == (void *)ftmpi_f08_statuses_ignore)
    return MPI_STATUSES_IGNORE;
  return (MPI_Status *)statuses;
}

/* A NUL-terminated copy of a Fortran string without its trailing blanks (free() it);
 * NULL when out of memory. */
char *ftmpi_f_string_in(const char *f, size_t len);
/* The same for MPI_Info_* keys and values: leading blanks go as well. */
char *ftmpi_f_info_string_in(const char *f, size_t len);
/* Copies a C string into a Fortran one, truncated or blank padded to len. */
void ftmpi_f_string_out(const char *c, char *f, size_t len);

/* libftmpi's byte runs of `count` elements of `type`, in typemap order, with the one basic type
 * they are made of (else MPI_DATATYPE_NULL); stops at the first non-zero answer of `visit`
 * (ftmpi/src/api_type_blocks.cpp; not an MPI call). */
typedef int ftmpi_run_fn(MPI_Aint offset, MPI_Aint len, void *arg);
int ftmpi_type_blocks(MPI_Datatype type, int count, ftmpi_run_fn *visit, void *arg,
                      MPI_Datatype *uniform_kind);

/* Has libftmpi run fn(arg, 1) exactly once when `request` is done with: its completion first
 * handed to the user by any completion call of any binding (MPI_Request_get_status included),
 * or its record recycled after MPI_Request_free; fn(arg, 0) at MPI_Finalize if the application
 * never completed it (the operation may not have ended). fn runs under the library lock and
 * must make no MPI call. MPI_ERR_REQUEST for a handle that is no live request, a persistent
 * one or one that has a hook (ftmpi/src/api_request_hook.cpp; not an MPI call). */
int ftmpi_request_on_done(MPI_Request request, void (*fn)(void *arg, int completed), void *arg);

/* (count, datatype) over a choice buffer given as a Fortran descriptor (CFI_cdesc_t): for a
 * non-contiguous section, its first element and a new committed datatype over it (count 1,
 * the caller frees it); else the arguments unchanged (fortran_f08_section.c). */
struct CFI_cdesc_t;
int ftmpi_f_section_args(const struct CFI_cdesc_t *d, int count, MPI_Datatype type, void **base,
                         int *new_count, MPI_Datatype *new_type);
/* Whether that datatype keeps count x type's signature (nested hvectors of the type), as a
 * reduction needs (a bad datatype answers yes: the call reports it). */
int ftmpi_f_section_keeps_signature(const struct CFI_cdesc_t *d, MPI_Datatype type);

#endif /* FTMPI_FORTRAN_SUPPORT_H */
