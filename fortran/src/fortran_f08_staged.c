/* Strided sections where no datatype over the section can serve (fortran_f08_section.c covers
 * point-to-point, MPI_Ibcast and the predefined reductions): the nonblocking gather, scatter,
 * allgather and alltoall families (blocks per rank, displacements, per-rank datatypes),
 * MPI_Ireduce_scatter(_block), and reductions with a user-defined operation (whose function
 * must be handed the user's datatype) or on an intercommunicator. There the section's virtual
 * contiguous buffer (MPI-3.1 17.1.12) is made real: a temporary the section is copied into at
 * the call, which the C call gets in its place (counts, displacements and datatypes then mean
 * exactly what the standard says), and which is copied back into the section (buffers the call
 * writes) and freed when the request completes in one of mpi_f08's completion calls
 * (MPI_Wait, MPI_Test and their all/any/some forms, MPI_Request_get_status), whatever its
 * outcome: success, error, a failed process. MPI forbids MPI_Cancel and MPI_Request_free on a
 * nonblocking collective's request, and persistent requests never come here.
 *
 * The generated procedures call: stage (per buffer) -> the C call with the temporaries ->
 * stage_commit (binds them to the request, or frees them if the call failed). The completion
 * calls look at ftmpi_f08_staged (module ftmpi_f08_externals, BIND(C)) first: zero, the usual
 * case, costs them one load and branch; else they call ftmpi_f08_staged_wait_... below. */
#include "fortran_support.h"

#include <ISO_Fortran_binding.h>
#include <pthread.h>
#include <string.h>

/* One staged buffer: the section's geometry, its temporary, whether the call writes it. */
typedef struct {
  char *base, *tmp;
  size_t elem_len, n;
  int rank, out;
  CFI_index_t extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
} Staged;

typedef struct Entry {
  MPI_Request request;
  int nbuf;
  Staged buf[2];
  struct Entry *next;
} Entry;

/* How many requests have staged buffers (defined by module mpi_f08; read there unlocked). */
extern int ftmpi_f08_staged;

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static Entry *table;  /* pending requests with staged buffers */
/* Buffers staged by this thread for the call it is making (at most two per call). */
static _Thread_local Staged pending[2];
static _Thread_local int npending;
/* The request handles a completion call was given (this thread, that call). */
static _Thread_local MPI_Request *snapshot;
static _Thread_local int snapshot_cap;

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

static void finish(Staged *s, int copy_out) {
  if (copy_out && s->out) copy_section(s, 0);
  free(s->tmp);
  s->tmp = NULL;
}

/* The entry of `request`, unlinked from the table when `unlink` (table_lock held). */
static Entry *find(MPI_Request request, int unlink) {
  for (Entry **e = &table; *e != NULL; e = &(*e)->next) {
    if ((*e)->request != request) continue;
    Entry *found = *e;
    if (unlink) {
      *e = found->next;
      __atomic_sub_fetch(&ftmpi_f08_staged, 1, __ATOMIC_RELAXED);
    }
    return found;
  }
  return NULL;
}

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
  s.tmp = malloc(s.n * s.elem_len + 1);
  if (s.tmp == NULL || npending == 2) {
    free(s.tmp);
    *ierr = MPI_ERR_NO_MEM;
    return;
  }
  copy_section(&s, 1);
  pending[npending++] = s;
  *addr = s.tmp;
}

/* After the C call: binds this thread's staged buffers to `request` when the call started an
 * operation; else copies back what a completed one wrote and frees them. */
void ftmpi_f08_stage_commit(const MPI_Fint *request, const MPI_Fint *rc) {
  const MPI_Request r = MPI_Request_f2c(*request);
  Entry *e = NULL;
  if (*rc == MPI_SUCCESS && r != MPI_REQUEST_NULL && npending > 0) e = malloc(sizeof *e);
  if (e == NULL) {
    for (int i = 0; i < npending; i++) finish(&pending[i], *rc == MPI_SUCCESS);
    npending = 0;
    return;
  }
  e->request = r;
  e->nbuf = npending;
  memcpy(e->buf, pending, sizeof pending);
  npending = 0;
  pthread_mutex_lock(&table_lock);
  /* A stale entry of a recycled handle (its request completed outside mpi_f08: README). */
  Entry *stale = find(r, 1);
  e->next = table;
  table = e;
  __atomic_add_fetch(&ftmpi_f08_staged, 1, __ATOMIC_RELAXED);
  pthread_mutex_unlock(&table_lock);
  if (stale != NULL) {
    for (int i = 0; i < stale->nbuf; i++) finish(&stale->buf[i], 0);
    free(stale);
  }
}

#pragma GCC visibility pop

/* Before a completion call: remembers the handles it is given (count of them at requests). */
static void before(MPI_Fint count, const MPI_Fint *requests) {
  const int n = count > 0 ? count : 0;
  if (n > snapshot_cap) {
    MPI_Request *grown = realloc(snapshot, (size_t)n * sizeof *grown);
    if (grown == NULL) {
      snapshot_cap = 0;  /* nothing remembered: the buffers stay staged until a later call */
      return;
    }
    snapshot = grown, snapshot_cap = n;
  }
  for (int i = 0; i < n; i++) snapshot[i] = MPI_Request_f2c(requests[i]);
}

/* After it: a remembered handle now MPI_REQUEST_NULL completed (successfully or not): its
 * section gets what the call wrote and the temporaries go. With `peek` (MPI_Request_get_status
 * reporting completion), the data is copied but the entry stays until the request is freed. */
static void after(MPI_Fint count, const MPI_Fint *requests, int peek) {
  const int n = count > 0 && count <= snapshot_cap ? count : 0;
  for (int i = 0; i < n; i++) {
    const int done = MPI_Request_f2c(requests[i]) == MPI_REQUEST_NULL;
    if (snapshot[i] == MPI_REQUEST_NULL || (!done && !peek)) continue;
    pthread_mutex_lock(&table_lock);
    Entry *e = find(snapshot[i], done);
    pthread_mutex_unlock(&table_lock);
    if (e == NULL) continue;
    for (int b = 0; b < e->nbuf; b++) {
      if (done) finish(&e->buf[b], 1);
      else if (e->buf[b].out) copy_section(&e->buf[b], 0);
    }
    if (done) free(e);
  }
}

/* The `use mpi` wrappers the completion calls of mpi_f08 call (generated, fortran_completion.c). */
void mpi_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr);
void mpi_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr);
void mpi_waitall_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses, MPI_Fint *ierr);
void mpi_testall_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag, MPI_Fint *statuses,
                  MPI_Fint *ierr);
void mpi_waitany_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *status,
                  MPI_Fint *ierr);
void mpi_testany_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index, MPI_Fint *flag,
                  MPI_Fint *status, MPI_Fint *ierr);
void mpi_waitsome_(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                   MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr);
void mpi_testsome_(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                   MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr);
void mpi_request_get_status_(const MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status,
                             MPI_Fint *ierr);

#pragma GCC visibility push(default)

/* The completion calls while staged requests are pending (mpi_f08 calls these instead of the
 * wrappers above when ftmpi_f08_staged is not zero; a separate function keeps the usual path
 * as short as before: measured in README). */
void ftmpi_f08_staged_wait_(MPI_Fint *request, MPI_Fint *status, MPI_Fint *ierr) {
  before(1, request);
  mpi_wait_(request, status, ierr);
  after(1, request, 0);
}
void ftmpi_f08_staged_test_(MPI_Fint *request, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr) {
  before(1, request);
  mpi_test_(request, flag, status, ierr);
  after(1, request, 0);
}
void ftmpi_f08_staged_waitall_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *statuses,
                               MPI_Fint *ierr) {
  before(*count, requests);
  mpi_waitall_(count, requests, statuses, ierr);
  after(*count, requests, 0);
}
void ftmpi_f08_staged_testall_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *flag,
                               MPI_Fint *statuses, MPI_Fint *ierr) {
  before(*count, requests);
  mpi_testall_(count, requests, flag, statuses, ierr);
  after(*count, requests, 0);
}
void ftmpi_f08_staged_waitany_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                               MPI_Fint *status, MPI_Fint *ierr) {
  before(*count, requests);
  mpi_waitany_(count, requests, index, status, ierr);
  after(*count, requests, 0);
}
void ftmpi_f08_staged_testany_(const MPI_Fint *count, MPI_Fint *requests, MPI_Fint *index,
                               MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr) {
  before(*count, requests);
  mpi_testany_(count, requests, index, flag, status, ierr);
  after(*count, requests, 0);
}
void ftmpi_f08_staged_waitsome_(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr) {
  before(*incount, requests);
  mpi_waitsome_(incount, requests, outcount, indices, statuses, ierr);
  after(*incount, requests, 0);
}
void ftmpi_f08_staged_testsome_(const MPI_Fint *incount, MPI_Fint *requests, MPI_Fint *outcount,
                                MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr) {
  before(*incount, requests);
  mpi_testsome_(incount, requests, outcount, indices, statuses, ierr);
  after(*incount, requests, 0);
}
void ftmpi_f08_staged_request_get_status_(const MPI_Fint *request, MPI_Fint *flag,
                                          MPI_Fint *status, MPI_Fint *ierr) {
  before(1, request);
  mpi_request_get_status_(request, flag, status, ierr);
  after(1, request, *ierr == MPI_SUCCESS && *flag);
}

#pragma GCC visibility pop
