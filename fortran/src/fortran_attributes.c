/* Communicator and datatype attributes from Fortran. An attribute is a value there (INTEGER in the MPI-1 calls,
 * INTEGER(KIND=MPI_ADDRESS_KIND) in the MPI-2 ones), stored in C's void* slot; the predefined
 * attributes (MPI_TAG_UB ... FTMPI_COLL_MODE), which C returns as pointers to int, are
 * dereferenced. Fortran copy/delete callbacks take every argument by reference, so the C library
 * gets a trampoline, and the Fortran procedures ride in extra_state. */
#include "fortran_support.h"

typedef void FortranCopyFn(MPI_Fint *, MPI_Fint *, void *, void *, void *, MPI_Fint *, MPI_Fint *);
typedef void FortranDeleteFn(MPI_Fint *, MPI_Fint *, void *, void *, MPI_Fint *);

/* One per keyval created from Fortran with a procedure of the user's. Never freed: the C library
 * does not hand extra_state back when the keyval is freed (a few bytes per keyval). */
typedef struct {
  int mpi1; /* MPI_KEYVAL_CREATE: INTEGER arguments; else INTEGER(KIND=MPI_ADDRESS_KIND) */
  FortranCopyFn *copy;
  FortranDeleteFn *del;
  MPI_Aint extra_state;
} FortranKeyval;

static int copy_trampoline(MPI_Comm oldcomm, int keyval, void *extra, void *in, void *out, int *flag) {
  FortranKeyval *k = extra;
  MPI_Fint comm = MPI_Comm_c2f(oldcomm), kv = keyval, fflag = 0, ierr = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint ex = (MPI_Fint)k->extra_state, vin = (MPI_Fint)(MPI_Aint)in, vout = 0;
    k->copy(&comm, &kv, &ex, &vin, &vout, &fflag, &ierr);
    *(void **)out = (void *)(MPI_Aint)vout;
  } else {
    MPI_Aint ex = k->extra_state, vin = (MPI_Aint)in, vout = 0;
    k->copy(&comm, &kv, &ex, &vin, &vout, &fflag, &ierr);
    *(void **)out = (void *)vout;
  }
  *flag = fflag != 0;
  return ierr;
}

static int delete_trampoline(MPI_Comm comm, int keyval, void *value, void *extra) {
  FortranKeyval *k = extra;
  MPI_Fint c = MPI_Comm_c2f(comm), kv = keyval, ierr = MPI_SUCCESS;
  if (k->mpi1) {
    MPI_Fint v = (MPI_Fint)(MPI_Aint)value, ex = (MPI_Fint)k->extra_state;
    k->del(&c, &kv, &v, &ex, &ierr);
  } else {
    MPI_Aint v = (MPI_Aint)value, ex = k->extra_state;
    k->del(&c, &kv, &v, &ex, &ierr);
  }
  return ierr;
}

#pragma GCC visibility push(default)

/* The predefined callbacks, callable from Fortran (mpif.h declares them EXTERNAL). */
void mpi_null_copy_fn_(MPI_Fint *comm, MPI_Fint *kv, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                       MPI_Fint *flag, MPI_Fint *ierr) {
  (void)comm, (void)kv, (void)extra, (void)in, (void)out;
  *flag = 0;
  *ierr = MPI_SUCCESS;
}
void mpi_dup_fn_(MPI_Fint *comm, MPI_Fint *kv, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                 MPI_Fint *flag, MPI_Fint *ierr) {
  (void)comm, (void)kv, (void)extra;
  *out = *in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}
void mpi_null_delete_fn_(MPI_Fint *comm, MPI_Fint *kv, MPI_Fint *value, MPI_Fint *extra, MPI_Fint *ierr) {
  (void)comm, (void)kv, (void)value, (void)extra;
  *ierr = MPI_SUCCESS;
}
void mpi_comm_null_copy_fn_(MPI_Fint *comm, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in,
                            MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr) {
  (void)comm, (void)kv, (void)extra, (void)in, (void)out;
  *flag = 0;
  *ierr = MPI_SUCCESS;
}
void mpi_comm_dup_fn_(MPI_Fint *comm, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                      MPI_Fint *flag, MPI_Fint *ierr) {
  (void)comm, (void)kv, (void)extra;
  *out = *in;
  *flag = 1;
  *ierr = MPI_SUCCESS;
}
void mpi_comm_null_delete_fn_(MPI_Fint *comm, MPI_Fint *kv, MPI_Aint *value, MPI_Aint *extra,
                              MPI_Fint *ierr) {
  (void)comm, (void)kv, (void)value, (void)extra;
  *ierr = MPI_SUCCESS;
}
/* The datatype ones have the same arguments (a handle is an INTEGER either way). */
void mpi_type_null_copy_fn_(MPI_Fint *type, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in,
                            MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierr) {
  mpi_comm_null_copy_fn_(type, kv, extra, in, out, flag, ierr);
}
void mpi_type_dup_fn_(MPI_Fint *type, MPI_Fint *kv, MPI_Aint *extra, MPI_Aint *in, MPI_Aint *out,
                      MPI_Fint *flag, MPI_Fint *ierr) {
  mpi_comm_dup_fn_(type, kv, extra, in, out, flag, ierr);
}
void mpi_type_null_delete_fn_(MPI_Fint *type, MPI_Fint *kv, MPI_Aint *value, MPI_Aint *extra,
                              MPI_Fint *ierr) {
  mpi_comm_null_delete_fn_(type, kv, value, extra, ierr);
}

#pragma GCC visibility pop

/* The predefined Fortran callbacks map to the C ones; anything else goes through a trampoline
 * (the same for both kinds: the trampolines pass the handle on as an INTEGER). */
static int create_keyval(int mpi1, void *copy, void *del, MPI_Fint *keyval, MPI_Aint extra_state,
                         int datatype) {
  MPI_Comm_copy_attr_function *c_copy = copy_trampoline;
  MPI_Comm_delete_attr_function *c_del = delete_trampoline;
  if (copy == (void *)mpi_null_copy_fn_ || copy == (void *)mpi_comm_null_copy_fn_ ||
      copy == (void *)mpi_type_null_copy_fn_) c_copy = MPI_NULL_COPY_FN;
  if (copy == (void *)mpi_dup_fn_ || copy == (void *)mpi_comm_dup_fn_ || copy == (void *)mpi_type_dup_fn_)
    c_copy = MPI_DUP_FN;
  if (del == (void *)mpi_null_delete_fn_ || del == (void *)mpi_comm_null_delete_fn_ ||
      del == (void *)mpi_type_null_delete_fn_) c_del = MPI_NULL_DELETE_FN;
  void *extra = (void *)extra_state;
  if (c_copy == copy_trampoline || c_del == delete_trampoline) {
    FortranKeyval *k = malloc(sizeof *k);
    if (k == NULL) return MPI_ERR_NO_MEM;
    *k = (FortranKeyval){mpi1, (FortranCopyFn *)copy, (FortranDeleteFn *)del, extra_state};
    extra = k;
  }
  return datatype ? MPI_Type_create_keyval(c_copy, c_del, keyval, extra)
                  : MPI_Comm_create_keyval(c_copy, c_del, keyval, extra);
}

/* The keys the library defines (mpi.h: 1..5 and 11..12, ftmpi.h: 6..10); their C values are
 * pointers to int. MPI_APPNUM is the last of them (MPICH's f77/attr/baseattrf read the
 * pointers of MPI_LASTUSEDCODE and MPI_APPNUM as values when this stopped at FTMPI_COLL_MODE). */
static int predefined(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_APPNUM; }
_Static_assert(MPI_APPNUM > FTMPI_COLL_MODE && MPI_LASTUSEDCODE > FTMPI_COLL_MODE,
               "predefined() must cover every predefined attribute key");

/* The attribute as a Fortran value. */
static int get_attr(MPI_Fint comm, MPI_Fint keyval, MPI_Aint *value, MPI_Fint *flag) {
  void *v = NULL;
  int found = 0;
  int rc = MPI_Comm_get_attr(MPI_Comm_f2c(comm), keyval, &v, &found);
  if (rc != MPI_SUCCESS) return rc;
  *flag = found ? 1 : 0;
  if (found) *value = predefined(keyval) ? *(int *)v : (MPI_Aint)v;
  return MPI_SUCCESS;
}

#pragma GCC visibility push(default)

void mpi_keyval_create_(void *copy_fn, void *delete_fn, MPI_Fint *keyval, const MPI_Fint *extra_state,
                        MPI_Fint *ierr) {
  *ierr = create_keyval(1, copy_fn, delete_fn, keyval, *extra_state, 0);
}
FTMPI_F_PMPI(mpi_keyval_create_);

void mpi_comm_create_keyval_(void *copy_fn, void *delete_fn, MPI_Fint *keyval,
                             const MPI_Aint *extra_state, MPI_Fint *ierr) {
  *ierr = create_keyval(0, copy_fn, delete_fn, keyval, *extra_state, 0);
}
FTMPI_F_PMPI(mpi_comm_create_keyval_);

void mpi_attr_put_(const MPI_Fint *comm, const MPI_Fint *keyval, const MPI_Fint *value, MPI_Fint *ierr) {
  *ierr = MPI_Attr_put(MPI_Comm_f2c(*comm), *keyval, (void *)(MPI_Aint)*value);
}
FTMPI_F_PMPI(mpi_attr_put_);

void mpi_comm_set_attr_(const MPI_Fint *comm, const MPI_Fint *keyval, const MPI_Aint *value,
                        MPI_Fint *ierr) {
  *ierr = MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, (void *)*value);
}
FTMPI_F_PMPI(mpi_comm_set_attr_);

void mpi_attr_get_(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Fint *value, MPI_Fint *flag,
                   MPI_Fint *ierr) {
  MPI_Aint v = 0;
  *ierr = get_attr(*comm, *keyval, &v, flag);
  if (*ierr == MPI_SUCCESS && *flag) *value = (MPI_Fint)v;
}
FTMPI_F_PMPI(mpi_attr_get_);

void mpi_comm_get_attr_(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                        MPI_Fint *ierr) {
  *ierr = get_attr(*comm, *keyval, value, flag);
}
FTMPI_F_PMPI(mpi_comm_get_attr_);

void mpi_type_create_keyval_(void *copy_fn, void *delete_fn, MPI_Fint *keyval,
                             const MPI_Aint *extra_state, MPI_Fint *ierr) {
  *ierr = create_keyval(0, copy_fn, delete_fn, keyval, *extra_state, 1);
}
FTMPI_F_PMPI(mpi_type_create_keyval_);

void mpi_type_set_attr_(const MPI_Fint *type, const MPI_Fint *keyval, const MPI_Aint *value,
                        MPI_Fint *ierr) {
  *ierr = MPI_Type_set_attr(MPI_Type_f2c(*type), *keyval, (void *)*value);
}
FTMPI_F_PMPI(mpi_type_set_attr_);

void mpi_type_get_attr_(const MPI_Fint *type, const MPI_Fint *keyval, MPI_Aint *value, MPI_Fint *flag,
                        MPI_Fint *ierr) {
  void *v = NULL;
  int found = 0;
  *ierr = MPI_Type_get_attr(MPI_Type_f2c(*type), *keyval, &v, &found);
  if (*ierr != MPI_SUCCESS) return;
  *flag = found ? 1 : 0;
  if (found) *value = (MPI_Aint)v;
}
FTMPI_F_PMPI(mpi_type_get_attr_);

#pragma GCC visibility pop
