/* MPI_GREQUEST_START from Fortran: the callbacks take every argument by reference and
 * EXTRA_STATE is INTEGER(KIND=MPI_ADDRESS_KIND), so the C library gets trampolines and the
 * Fortran procedures ride in extra_state, in a block free_fn's trampoline releases (free_fn is
 * the last callback MPI makes for a request, MPI-3.1 12.2). A status is the C struct in both
 * `use mpi` (INTEGER(MPI_STATUS_SIZE)) and `use mpi_f08` (TYPE(MPI_Status)).
 *
 * The callbacks get the caller's own EXTRA_STATE variable, not a copy: MPICH and Open MPI pass
 * its address, and Fortran codes (MPICH's greqf/greqf08 among them) count on free_fn's change
 * to it being seen by the caller. So, as with them, EXTRA_STATE must be a variable that lives
 * until free_fn has run; a literal works only while no callback writes to it. */
#include "fortran_support.h"

typedef void FortranQueryFn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void FortranFreeFn(MPI_Aint *extra, MPI_Fint *ierr);
typedef void FortranCancelFn(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierr);

typedef struct {
  FortranQueryFn *query;
  FortranFreeFn *free;
  FortranCancelFn *cancel;
  MPI_Aint *extra_state; /* the caller's variable (see above) */
} FortranGreq;

static int query_trampoline(void *extra, MPI_Status *status) {
  FortranGreq *g = extra;
  MPI_Fint ierr = MPI_SUCCESS;
  g->query(g->extra_state, (MPI_Fint *)status, &ierr);
  return ierr;
}

static int free_trampoline(void *extra) {
  FortranGreq *g = extra;
  MPI_Fint ierr = MPI_SUCCESS;
  g->free(g->extra_state, &ierr);
  free(g);
  return ierr;
}

static int cancel_trampoline(void *extra, int complete) {
  FortranGreq *g = extra;
  MPI_Fint ierr = MPI_SUCCESS, done = complete ? 1 : 0; /* gfortran's .TRUE. is 1 */
  g->cancel(g->extra_state, &done, &ierr);
  return ierr;
}

#pragma GCC visibility push(default)

void mpi_grequest_start_(void *query_fn, void *free_fn, void *cancel_fn, MPI_Aint *extra_state,
                         MPI_Fint *request, MPI_Fint *ierr) {
  FortranGreq *g = malloc(sizeof *g);
  if (g == NULL) {
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  *g = (FortranGreq){(FortranQueryFn *)query_fn, (FortranFreeFn *)free_fn, (FortranCancelFn *)cancel_fn,
                     extra_state};
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Grequest_start(query_trampoline, free_trampoline, cancel_trampoline, g, &r);
  if (*ierr != MPI_SUCCESS) {
    free(g);
    return;
  }
  *request = MPI_Request_c2f(r);
}
FTMPI_F_PMPI(mpi_grequest_start_);

#pragma GCC visibility pop
