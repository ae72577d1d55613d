/* Strided array sections given to `use mpi_f08` calls that keep the buffer (MPI-3.1 17.1.12).
 * The message is (count, datatype) applied to the section's "virtual contiguous buffer": its
 * elements in array element order. Here that becomes a datatype over the real memory, rooted
 * at the section's first element, which the C call gets with count 1. The library then moves
 * the bytes itself (packing a send, unpacking a receive into the section when the request
 * completes, on every completion, cancel and failure path), and keeps the datatype alive until
 * the operation is done, so the wrapper frees its handle right after the call.
 *
 *  - datatype dense (no gaps, lb 0) and a whole number of it per element (MPI_INTEGER over an
 *    INTEGER array, MPI_REAL over COMPLEX...): nested hvectors of the element, one struct
 *    piece per dimension for a partial last slab; the type signature stays count x datatype,
 *    so reductions with predefined operations work on it.
 *  - anything else (a derived datatype with holes, a datatype spanning several elements): the
 *    library lists the byte runs of count x datatype (ftmpi_type_blocks) and each run is mapped
 *    through the section into an hindexed type of the datatype's one basic type when the runs
 *    keep its elements whole, else of bytes (point-to-point and MPI_Ibcast only: the
 *    reductions stage such sections instead, fortran_f08_staged.c).
 * A (count, datatype) reaching outside the section is refused with MPI_ERR_BUFFER. */
#include "fortran_support.h"

#include <ISO_Fortran_binding.h>
#include <limits.h>

/* The section: n elements of elem_len bytes; element (i0, i1, ...) at base + sum i_j * sm[j]. */
typedef struct {
  char *base;
  MPI_Aint elem_len, n;
  int rank;
  MPI_Aint extent[CFI_MAX_RANK], sm[CFI_MAX_RANK];
} Section;

static int section_of(const CFI_cdesc_t *d, Section *s) {
  s->base = d->base_addr;
  s->elem_len = (MPI_Aint)d->elem_len;
  s->rank = d->rank;
  s->n = 1;
  for (int j = 0; j < d->rank; j++) {
    s->extent[j] = (MPI_Aint)d->dim[j].extent;
    s->sm[j] = (MPI_Aint)d->dim[j].sm;
    if (s->extent[j] > INT_MAX || (s->extent[j] > 0 && s->n > LONG_MAX / s->extent[j]))
      return MPI_ERR_BUFFER;
    s->n *= s->extent[j];
  }
  return s->elem_len > 0 ? MPI_SUCCESS : MPI_ERR_BUFFER;
}

/* Byte offset of element e (array element order) from the section's first element. */
static MPI_Aint element_offset(const Section *s, MPI_Aint e) {
  MPI_Aint off = 0;
  for (int j = 0; j < s->rank; j++) {
    off += (e % s->extent[j]) * s->sm[j];
    e /= s->extent[j];
  }
  return off;
}

/* Types made while building one section type: freed at the end (the result holds them). */
typedef struct {
  MPI_Datatype made[3 * CFI_MAX_RANK + 4];
  int n;
} Scratch;

/* By address: the constructor that fills *t is an argument of the same call. */
static int keep(Scratch *k, int rc, const MPI_Datatype *t) {
  if (rc == MPI_SUCCESS) k->made[k->n++] = *t;
  return rc;
}

static void scratch_free(Scratch *k) {
  for (int i = 0; i < k->n; i++) MPI_Type_free(&k->made[i]);
}

/* count x datatype (dense, `per` of it per element) over the first elements of the section. */
static int dense_type(const Section *s, int count, MPI_Datatype type, int per, MPI_Datatype *out) {
  Scratch k = {.n = 0};
  MPI_Datatype elem = type, slab[CFI_MAX_RANK + 1];
  int rc = MPI_SUCCESS;
  if (per > 1) rc = keep(&k, MPI_Type_contiguous(per, type, &elem), &elem);
  const MPI_Aint full = count / per, rest = count % per;  /* whole elements, then datatypes */
  /* slab[j]: all of dimensions 0..j-1 (one element for j = 0), in array element order. */
  slab[0] = elem;
  for (int j = 0; rc == MPI_SUCCESS && j < s->rank; j++) {
    rc = keep(&k, MPI_Type_create_hvector((int)s->extent[j], 1, s->sm[j], slab[j], &slab[j + 1]),
              &slab[j + 1]);
  }
  /* The first `full` elements: per dimension from the slowest, whole slabs of the ones below. */
  int blocklens[CFI_MAX_RANK + 1];
  MPI_Aint disps[CFI_MAX_RANK + 1], off = 0, below = s->n;
  MPI_Datatype pieces[CFI_MAX_RANK + 1];
  int np = 0;
  if (full == s->n && s->n > 0) {
    pieces[np] = slab[s->rank], disps[np++] = 0;
  } else {
    for (int j = s->rank - 1; rc == MPI_SUCCESS && j >= 0; j--) {
      below /= s->extent[j];
      const MPI_Aint c = (full / below) % s->extent[j];
      if (c == 0) continue;
      rc = keep(&k, MPI_Type_create_hvector((int)c, 1, s->sm[j], slab[j], &pieces[np]), &pieces[np]);
      disps[np++] = off;
      off += c * s->sm[j];
    }
  }
  if (rc == MPI_SUCCESS && rest > 0) {  /* the last element only partly */
    rc = keep(&k, MPI_Type_contiguous((int)rest, type, &pieces[np]), &pieces[np]);
    disps[np++] = off;
  }
  for (int i = 0; i < np; i++) blocklens[i] = 1;
  if (rc == MPI_SUCCESS) rc = MPI_Type_create_struct(np, blocklens, disps, pieces, out);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(out);
  scratch_free(&k);
  return rc;
}

/* The general case: runs of the virtual buffer mapped into the section, adjacent ones merged. */
typedef struct {
  const Section *s;
  MPI_Aint *disp, *len, gcd;
  size_t n, cap;
} Runs;

static MPI_Aint gcd(MPI_Aint a, MPI_Aint b) {
  while (b != 0) {
    MPI_Aint t = a % b;
    a = b, b = t;
  }
  return a;
}

static int add_run(MPI_Aint v, MPI_Aint len, void *arg) {
  Runs *r = arg;
  const Section *s = r->s;
  if (v < 0 || len > s->n * s->elem_len - v) return MPI_ERR_BUFFER;  /* outside the section */
  r->gcd = gcd(gcd(r->gcd, v), len);
  while (len > 0) {
    const MPI_Aint in = v % s->elem_len, take = len < s->elem_len - in ? len : s->elem_len - in;
    const MPI_Aint at = element_offset(s, v / s->elem_len) + in;
    if (r->n > 0 && r->disp[r->n - 1] + r->len[r->n - 1] == at && r->len[r->n - 1] < INT_MAX / 2) {
      r->len[r->n - 1] += take;
    } else {
      if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        MPI_Aint *d = realloc(r->disp, cap * sizeof *d), *l = d ? realloc(r->len, cap * sizeof *l) : NULL;
        if (d) r->disp = d;
        if (l == NULL) return MPI_ERR_NO_MEM;
        r->len = l, r->cap = cap;
      }
      r->disp[r->n] = at, r->len[r->n++] = take;
    }
    v += take, len -= take;
  }
  return MPI_SUCCESS;
}

static int mapped_type(const Section *s, int count, MPI_Datatype type, MPI_Datatype *out) {
  Runs r = {.s = s};
  MPI_Datatype kind = MPI_DATATYPE_NULL, unit = MPI_BYTE;
  int rc = ftmpi_type_blocks(type, count, add_run, &r, &kind), usize = 1;
  /* Runs that keep the one basic type's elements whole (and elements that hold whole ones). */
  if (rc == MPI_SUCCESS && kind != MPI_DATATYPE_NULL && MPI_Type_size(kind, &usize) == MPI_SUCCESS &&
      usize > 0 && r.gcd % usize == 0 && s->elem_len % usize == 0) {
    unit = kind;
  } else {
    usize = 1;
  }
  int *lens = rc == MPI_SUCCESS ? malloc((r.n + 1) * sizeof *lens) : NULL;
  if (rc == MPI_SUCCESS && lens == NULL) rc = MPI_ERR_NO_MEM;
  for (size_t i = 0; rc == MPI_SUCCESS && i < r.n; i++) lens[i] = (int)(r.len[i] / usize);
  if (rc == MPI_SUCCESS && r.n > INT_MAX) rc = MPI_ERR_BUFFER;
  if (rc == MPI_SUCCESS) rc = MPI_Type_create_hindexed((int)r.n, lens, r.disp, unit, out);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(out);
  free(lens), free(r.disp), free(r.len);
  return rc;
}

static int no_run(MPI_Aint v, MPI_Aint len, void *arg) {
  (void)v, (void)len, (void)arg;
  return MPI_SUCCESS;
}

/* Whether count x type over d keeps the type signature (contiguous, or the dense path below);
 * the reductions want that (fortran_f08_section_coll.c). A bad datatype answers yes: the call
 * then reports it through its communicator. */
int ftmpi_f_section_keeps_signature(const CFI_cdesc_t *d, MPI_Datatype type) {
  int size = 0;
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Datatype kind;
  /* A bad datatype: let the call report it through its communicator. */
  if (CFI_is_contiguous(d) || ftmpi_type_blocks(type, 0, no_run, NULL, &kind) != MPI_SUCCESS) return 1;
  if (MPI_Type_size(type, &size) != MPI_SUCCESS || MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
      MPI_Type_get_true_extent(type, &true_lb, &true_extent) != MPI_SUCCESS) {
    return 0;
  }
  return size > 0 && lb == 0 && true_lb == 0 && extent == size && true_extent == size &&
         (MPI_Aint)d->elem_len % size == 0;
}

/* (count, datatype) over the buffer `d` as the C call takes it: base address, count, datatype.
 * A non-contiguous section gets a new committed datatype (count 1) that the caller frees; a
 * contiguous buffer, a bad datatype or a negative count pass unchanged (the call reports). */
int ftmpi_f_section_args(const CFI_cdesc_t *d, int count, MPI_Datatype type, void **base,
                         int *new_count, MPI_Datatype *new_type) {
  *base = ftmpi_f_buffer(d->base_addr);
  *new_count = count, *new_type = type;
  MPI_Datatype kind;
  if (CFI_is_contiguous(d) || count <= 0 || ftmpi_type_blocks(type, 0, no_run, NULL, &kind) != MPI_SUCCESS)
    return MPI_SUCCESS;
  Section s;
  int rc = section_of(d, &s), size = 0;
  MPI_Aint lb, extent, true_lb, true_extent;
  if (rc == MPI_SUCCESS) rc = MPI_Type_size(type, &size);
  if (rc == MPI_SUCCESS) rc = MPI_Type_get_extent(type, &lb, &extent);
  if (rc == MPI_SUCCESS) rc = MPI_Type_get_true_extent(type, &true_lb, &true_extent);
  if (rc != MPI_SUCCESS) return rc;
  if (size == 0) return MPI_SUCCESS;  /* no data: nothing is read or written */
  const int dense = lb == 0 && true_lb == 0 && extent == size && true_extent == size;
  if (dense && s.elem_len % size == 0) {
    const MPI_Aint per = s.elem_len / size;
    if (per > INT_MAX || (MPI_Aint)count > s.n * per) return MPI_ERR_BUFFER;
    rc = dense_type(&s, count, type, (int)per, new_type);
  } else {
    rc = mapped_type(&s, count, type, new_type);
  }
  if (rc == MPI_SUCCESS) *new_count = 1;
  return rc;
}

#pragma GCC visibility push(default)

/* For the generated mpi_f08 procedures (gen_f08.py) of the calls with one buffer (MPI_Isend,
 * MPI_Recv_init, MPI_Ibcast...), when the buffer is not contiguous. Errors go through comm's
 * error handler here; the procedure then skips the call. */
void ftmpi_f08_section_args(const CFI_cdesc_t *buf, const MPI_Fint *count, const MPI_Fint *datatype,
                            const MPI_Fint *comm, void **base, MPI_Fint *new_count,
                            MPI_Fint *new_type, MPI_Fint *ierr) {
  *ierr = ftmpi_f_section_args(buf, *count, MPI_Type_f2c(*datatype), base, new_count,
                               (MPI_Datatype *)new_type);
  if (*ierr != MPI_SUCCESS) MPI_Comm_call_errhandler(MPI_Comm_f2c(*comm), *ierr);
}

#pragma GCC visibility pop
