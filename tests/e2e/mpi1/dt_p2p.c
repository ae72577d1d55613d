/* Point-to-point with derived datatypes: any layouts with matching signatures, MPI_BOTTOM,
 * freeing a type while a request still uses it, partial receives (Get_count/Get_elements) and
 * truncation. Each rank sends to rank+1 and receives from rank-1 (itself at one process). */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size, next, prev;

/* Sends to next, receives from prev (MPI_Sendrecv comes with the point-to-point work). Returns
 * the receive's error code. */
static int exchange(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                    MPI_Datatype rtype, int tag, MPI_Status *st) {
  MPI_Request rr, sr;
  MPI_Irecv(rbuf, rcount, rtype, prev, tag, MPI_COMM_WORLD, &rr);
  MPI_Isend(sbuf, scount, stype, next, tag, MPI_COMM_WORLD, &sr);
  int rc = MPI_Wait(&rr, st);
  MPI_Wait(&sr, MPI_STATUS_IGNORE);
  return rc;
}

static void strided_to_dense_and_back(void) {
  enum { N = 1000 };
  double *src = malloc(2 * N * sizeof(double)), *dense = calloc(N, sizeof(double));
  double *back = calloc(2 * N, sizeof(double));
  for (int i = 0; i < 2 * N; ++i) src[i] = rank * 10000 + i;
  MPI_Datatype v;
  MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &v);
  MPI_Type_commit(&v);
  exchange(src, 1, v, dense, N, MPI_DOUBLE, 1, MPI_STATUS_IGNORE);
  int bad = 0;
  for (int i = 0; i < N; ++i) bad += dense[i] != prev * 10000 + 2 * i;
  CHECK_EQ(bad, 0);
  exchange(dense, N, MPI_DOUBLE, back, 1, v, 2, MPI_STATUS_IGNORE);
  /* prev's dense holds the data of prev's own predecessor */
  bad = 0;
  for (int i = 0; i < 2 * N; ++i) {
    bad += back[i] != (i % 2 ? 0.0 : (double)(((prev + size - 1) % size) * 10000 + i));
  }
  CHECK_EQ(bad, 0); /* the gaps are untouched */
  MPI_Type_free(&v);
  free(src);
  free(dense);
  free(back);
}

struct Particle { int id; double x; };

static MPI_Datatype particle_type(void) {
  struct Particle p = {0, 0};
  MPI_Aint base, disp[2];
  MPI_Get_address(&p, &base);
  MPI_Get_address(&p.id, &disp[0]);
  MPI_Get_address(&p.x, &disp[1]);
  disp[0] -= base;
  disp[1] -= base;
  int bl[2] = {1, 1};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t;
  MPI_Type_create_struct(2, bl, disp, types, &t);
  MPI_Type_commit(&t);
  return t;
}

static void structs_and_free_while_pending(void) {
  struct Particle out[5], in[5];
  memset(in, 0xAB, sizeof in);
  for (int i = 0; i < 5; ++i) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].id = rank * 100 + i;
    out[i].x = i + 0.25;
  }
  MPI_Datatype t = particle_type();
  MPI_Request rq[2];
  MPI_Irecv(in, 5, t, prev, 3, MPI_COMM_WORLD, &rq[0]);
  MPI_Isend(out, 5, t, next, 3, MPI_COMM_WORLD, &rq[1]);
  MPI_Type_free(&t); /* both requests still use it */
  CHECK_EQ(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  for (int i = 0; i < 5; ++i) {
    CHECK_EQ(in[i].id, prev * 100 + i);
    CHECK(in[i].x == i + 0.25);
  }
}

static void bottom(void) {
  int a = rank, a2 = -1;
  double b = rank + 0.5, b2 = 0;
  MPI_Aint disp[2];
  int bl[2] = {1, 1};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, ts, tr;
  MPI_Get_address(&a, &disp[0]);
  MPI_Get_address(&b, &disp[1]);
  MPI_Type_create_struct(2, bl, disp, types, &ts);
  MPI_Get_address(&a2, &disp[0]);
  MPI_Get_address(&b2, &disp[1]);
  MPI_Type_create_struct(2, bl, disp, types, &tr);
  MPI_Type_commit(&ts);
  MPI_Type_commit(&tr);
  CHECK_EQ(exchange(MPI_BOTTOM, 1, ts, MPI_BOTTOM, 1, tr, 4, MPI_STATUS_IGNORE), MPI_SUCCESS);
  CHECK_EQ(a2, prev);
  CHECK(b2 == prev + 0.5);
  MPI_Type_free(&ts);
  MPI_Type_free(&tr);
}

static void partial_and_truncated(void) {
  double d[8] = {1, 2, 3, 4, 5, 6, 7, 8}, r[8] = {0};
  MPI_Datatype v;
  MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &v);
  MPI_Type_commit(&v);
  MPI_Status st;
  exchange(d, 3, MPI_DOUBLE, r, 1, v, 5, &st);
  int n;
  MPI_Get_count(&st, MPI_DOUBLE, &n);
  CHECK_EQ(n, 3);
  MPI_Get_count(&st, v, &n);
  CHECK_EQ(n, MPI_UNDEFINED);
  MPI_Get_elements(&st, v, &n);
  CHECK_EQ(n, 3);
  CHECK(r[0] == 1 && r[2] == 2 && r[4] == 3 && r[6] == 0 && r[1] == 0);
  int rc = exchange(d, 5, MPI_DOUBLE, r, 1, v, 6, &st);
  int cls;
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_TRUNCATE);
  MPI_Type_free(&v);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  strided_to_dense_and_back();
  structs_and_free_while_pending();
  bottom();
  partial_and_truncated();
  return check_finish("dt_p2p");
}
