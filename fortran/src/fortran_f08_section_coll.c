/* Strided sections in the nonblocking reductions of `use mpi_f08` (MPI_Iallreduce, MPI_Ireduce,
 * MPI_Iscan, MPI_Iexscan). Their send and receive buffers share one (count, datatype), so a
 * section in either cannot get its own datatype (fortran_f08_section.c) as a point-to-point
 * buffer does. Where both buffers count, the section-aware copy of the send buffer's virtual
 * buffer goes into the receive buffer's at the call (pack, unpack: both are count x datatype),
 * and the reduction runs MPI_IN_PLACE on the receive buffer with its section datatype, which
 * MPI allows for all four on an intracommunicator. Where only one counts (MPI_Ireduce away from
 * the root), that one's datatype is used. Not here (answer FTMPI_F08_STAGE: the procedure then
 * stages the sections, fortran_f08_staged.c): a user-defined operation (its function must be
 * handed the user's datatype, not ftmpi's section datatype), intercommunicators (no
 * MPI_IN_PLACE there), and a datatype whose section datatype would not keep its signature (a
 * derived one with holes, a pair type over the array of its halves: the reduction needs the
 * basic elements whole). */
#include "fortran_support.h"

#include <ISO_Fortran_binding.h>

enum { IALLREDUCE = 1, IREDUCE = 2, ISCAN = 3, IEXSCAN = 4 };
/* Not handled here: the generated procedure stages the sections instead (gen_f08.py). */
enum { FTMPI_F08_STAGE = -1 };

/* One buffer's view for the C call; `type` is freed by release() when it was made here. */
typedef struct {
  void *base;
  int count;
  MPI_Datatype type;
} View;

static void release(View *v, MPI_Datatype user) {
  if (v->type != user) MPI_Type_free(&v->type);
}

/* The send buffer's count x datatype copied into the receive buffer's (each through its view). */
static int copy_virtual(const View *from, const View *to, MPI_Comm comm) {
  int size = 0, pos = 0, rc = MPI_Pack_size(from->count, from->type, comm, &size);
  void *tmp = rc == MPI_SUCCESS ? malloc(size > 0 ? (size_t)size : 1) : NULL;
  if (rc == MPI_SUCCESS && tmp == NULL) rc = MPI_ERR_NO_MEM;
  if (rc == MPI_SUCCESS) rc = MPI_Pack(from->base, from->count, from->type, tmp, size, &pos, comm);
  size = pos, pos = 0;
  if (rc == MPI_SUCCESS) rc = MPI_Unpack(tmp, size, &pos, to->base, to->count, to->type, comm);
  free(tmp);
  return rc;
}

/* An error of the section handling itself, through comm's handler (the MPI calls raise theirs). */
static int own(MPI_Comm comm, int rc) {
  if (rc != MPI_SUCCESS) MPI_Comm_call_errhandler(comm, rc);
  return rc;
}

static int start(int which, const CFI_cdesc_t *sendbuf, const CFI_cdesc_t *recvbuf, int count,
                 MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request) {
  int inter = 0, rank = 0;
  int rc = MPI_Comm_test_inter(comm, &inter);
  if (rc != MPI_SUCCESS) return rc;
  if (inter || op < MPI_MAX || op > MPI_MINLOC || !ftmpi_f_section_keeps_signature(sendbuf, type) ||
      !ftmpi_f_section_keeps_signature(recvbuf, type)) {
    return FTMPI_F08_STAGE;
  }
  if ((rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS) return rc;
  View s, r;
  if ((rc = ftmpi_f_section_args(sendbuf, count, type, &s.base, &s.count, &s.type)) != MPI_SUCCESS)
    return own(comm, rc);
  if (which == IREDUCE && rank != root) {  /* the receive buffer is not significant here */
    rc = MPI_Ireduce(s.base, s.base, s.count, s.type, op, root, comm, request);
    release(&s, type);
    return rc;
  }
  rc = own(comm, ftmpi_f_section_args(recvbuf, count, type, &r.base, &r.count, &r.type));
  if (rc == MPI_SUCCESS && s.base != MPI_IN_PLACE) rc = copy_virtual(&s, &r, comm);
  if (rc == MPI_SUCCESS) {
    switch (which) {
      case IALLREDUCE: rc = MPI_Iallreduce(MPI_IN_PLACE, r.base, r.count, r.type, op, comm, request); break;
      case IREDUCE: rc = MPI_Ireduce(MPI_IN_PLACE, r.base, r.count, r.type, op, root, comm, request); break;
      case ISCAN: rc = MPI_Iscan(MPI_IN_PLACE, r.base, r.count, r.type, op, comm, request); break;
      default: rc = MPI_Iexscan(MPI_IN_PLACE, r.base, r.count, r.type, op, comm, request); break;
    }
  }
  release(&r, type);
  release(&s, type);
  return rc;
}

#pragma GCC visibility push(default)

/* For the generated mpi_f08 procedures (gen_f08.py), when a buffer is not contiguous. `root`
 * is ignored except by MPI_Ireduce. Errors of the section handling go through comm's handler
 * here; those of the MPI call through its own; FTMPI_F08_STAGE (-1) asks for staging. */
void ftmpi_f08_reduction_section(const MPI_Fint *which, const CFI_cdesc_t *sendbuf,
                                 const CFI_cdesc_t *recvbuf, const MPI_Fint *count,
                                 const MPI_Fint *datatype, const MPI_Fint *op, const MPI_Fint *root,
                                 const MPI_Fint *comm, MPI_Fint *request, MPI_Fint *ierr) {
  *ierr = start(*which, sendbuf, recvbuf, *count, MPI_Type_f2c(*datatype), MPI_Op_f2c(*op), *root,
                MPI_Comm_f2c(*comm), (MPI_Request *)request);
}

#pragma GCC visibility pop
