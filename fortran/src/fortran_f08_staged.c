/* Strided sections where no datatype over the section can serve (fortran_f08_section.c covers
 * point-to-point, MPI_Ibcast and the predefined reductions): the nonblocking gather, scatter,
 * allgather and alltoall families (blocks per rank, displacements, per-rank datatypes),
 * MPI_Ireduce_scatter(_block), and reductions with a user-defined operation (whose function
 * must be handed the user's datatype) or on an intercommunicator. There the section's virtual
 * contiguous buffer (MPI-3.1 17.1.12) is made real: a temporary the section is copied into at
 * the call, which the C call gets in its place (counts, displacements and datatypes then mean
 * exactly what the standard says), and which is copied back into the section (buffers the call
 * writes) and freed when the request completes, whatever its outcome (success, error, a failed
 * process) and whichever API completes it: mpi_f08, `use mpi` or C, any of MPI_Wait/Test and
 * their all/any/some forms, MPI_Request_get_status (copied back and freed when it first
 * reports completion). The library runs that for the request itself (ftmpi_request_on_done,
 * ftmpi/src/api_request_hook.cpp): no table keyed by handle number here, so a later request
 * that reuses the handle number cannot be taken for a staged one, and the completion calls
 * cost what they cost without sections. MPI forbids MPI_Cancel and MPI_Request_free on a
 * nonblocking collective's request (ftmpi refuses the free), and persistent requests never
 * come here (only point-to-point ones exist; fortran_f08_section.c serves them).
 *
 * The generated procedures call: stage (per buffer) -> the C call with the temporaries ->
 * stage_commit (hands them to the request, or frees them if the call failed). Everything a
 * successful call needs afterwards is allocated before it, so no failure can leave a running
 * operation without its temporary or free one under it. */
#include "fortran_support.h"

#include <ISO_Fortran_binding.h>
#include <string.h>

/* One staged buffer: the section's geometry, its temporary, whether the call writes it. */
typedef struct {
  char *base, *tmp;
  size_t elem_len, n;
  int rank, out;
  CFI_index_t extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
} Staged;

/* The staged buffers of one call (at most two: send and receive), owned by its request. */
typedef struct {
  int nbuf;
  Staged buf[2];
} Staging;

/* The call this thread is making: its staging, allocated by the first stage (thread-local,
 * so concurrent calls under MPI_THREAD_MULTIPLE do not meet). */
static _Thread_local Staging *pending;

/* Copies between the section and its temporary, element by element in array element order. */
static void copy_section(const Staged *s, int to_tmp) {
  CFI_index_t idx[CFI_MAX_RANK] = {0};
  char *p = s->base;
  for (size_t e = 0; e < s->n; e++) {
    if (to_tmp) memcpy(s->tmp + e * s->elem_len, p, s->elem_len);
    else memcpy(p, s->tmp + e * s->elem_len, s->elem_len);
    for (int j = 0; j < s->rank; j++) {  /* odometer: next element */
      p += s->sm[j];
      if (++idx[j] < s->extent[j]) break;
      p -= s->sm[j] * s->extent[j];
      idx[j] = 0;
    }
  }
}

/* Stagings allocated and not yet finished: what ftmpi_f08_staged_outstanding reports. */
static int outstanding;

/* Copies back what the call wrote (when `copy_out`) and frees the temporaries and `g`. */
static void finish(Staging *g, int copy_out) {
  for (int i = 0; i < g->nbuf; i++) {
    if (copy_out && g->buf[i].out) copy_section(&g->buf[i], 0);
    free(g->buf[i].tmp);
  }
  free(g);
  __atomic_sub_fetch(&outstanding, 1, __ATOMIC_RELAXED);
}

/* The request's completion hook: run once by the library, under its lock, by whichever thread
 * completes the request (no MPI call here); at MPI_Finalize for one never completed, whose
 * temporary then holds no result to copy back (completed 0). */
static void request_done(void *arg, int completed) { finish(arg, completed); }

#pragma GCC visibility push(default)

/* The address the C call gets for `buf`: the buffer itself when contiguous (sentinels
 * included), else a temporary holding a copy of the section. `out`: the call writes it. */
void ftmpi_f08_stage(const CFI_cdesc_t *buf, const MPI_Fint *out, void **addr, MPI_Fint *ierr) {
  *addr = buf->base_addr;
  *ierr = MPI_SUCCESS;
  if (CFI_is_contiguous(buf)) return;
  Staged s = {.base = buf->base_addr, .elem_len = buf->elem_len, .n = 1, .rank = buf->rank,
              .out = *out != 0};
  for (int j = 0; j < buf->rank; j++) {
    s.extent[j] = buf->dim[j].extent;
    s.sm[j] = buf->dim[j].sm;
    s.n *= (size_t)buf->dim[j].extent;
  }
  if (pending == NULL && (pending = calloc(1, sizeof *pending)) != NULL) {
    __atomic_add_fetch(&outstanding, 1, __ATOMIC_RELAXED);
  }
  s.tmp = pending != NULL && pending->nbuf < 2 ? malloc(s.n * s.elem_len + 1) : NULL;
  if (s.tmp == NULL) {  /* stage_commit, called next whatever happens, frees what was staged */
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  copy_section(&s, 1);
  pending->buf[pending->nbuf++] = s;
  *addr = s.tmp;
}

/* After the C call: hands this thread's staged buffers to `request` when the call started an
 * operation; else copies back what a completed one wrote and frees them. */
void ftmpi_f08_stage_commit(const MPI_Fint *request, const MPI_Fint *rc) {
  Staging *g = pending;
  pending = NULL;
  if (g == NULL) return;
  const MPI_Request r = MPI_Request_f2c(*request);
  if (*rc != MPI_SUCCESS || r == MPI_REQUEST_NULL) {
    finish(g, *rc == MPI_SUCCESS);
    return;
  }
  /* Refused only for a handle that is no live, non-persistent request without a hook, which
   * a call that just succeeded cannot return. Then the operation may still use the
   * temporaries: they are left allocated rather than freed under it. */
  (void)ftmpi_request_on_done(r, request_done, g);
}

/* For tests (not an MPI call): how many calls' staged temporaries are still allocated; 0 after
 * MPI_Finalize, whatever requests were left pending (tests/e2e/fortran/f08_staged_finalize.f90). */
int ftmpi_f08_staged_outstanding(void) { return __atomic_load_n(&outstanding, __ATOMIC_RELAXED); }

#pragma GCC visibility pop
