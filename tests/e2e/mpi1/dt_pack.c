/* MPI_Pack/MPI_Unpack/MPI_Pack_size: positions across several calls, mixed types in one buffer,
 * a 1 MiB strided vector, MPI_BOTTOM with absolute addresses, MPI_Get_elements on a message
 * that ends inside an element, and the error classes. Runs at any process count. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static void positions(void) {
  int ints[3] = {1, 2, 3}, ints2[3];
  double d[4] = {0.5, 1.5, 2.5, 3.5}, d2[4] = {0};
  char buf[256];
  int pos = 0, size;
  MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &size);
  CHECK_EQ(size, 12);
  MPI_Datatype every_other; /* doubles 0 and 2 */
  MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Pack_size(1, every_other, MPI_COMM_WORLD, &size);
  CHECK_EQ(size, 16);
  CHECK_EQ(MPI_Pack(ints, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
  CHECK_EQ(pos, 12);
  CHECK_EQ(MPI_Pack(d, 1, every_other, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
  CHECK_EQ(pos, 28);
  double packed[2];
  memcpy(packed, buf + 12, sizeof packed);
  CHECK(packed[0] == 0.5 && packed[1] == 2.5);
  int end = pos;
  pos = 0;
  MPI_Unpack(buf, end, &pos, ints2, 3, MPI_INT, MPI_COMM_WORLD);
  MPI_Unpack(buf, end, &pos, d2, 1, every_other, MPI_COMM_WORLD);
  CHECK_EQ(pos, end);
  CHECK(ints2[0] == 1 && ints2[2] == 3);
  CHECK(d2[0] == 0.5 && d2[1] == 0.0 && d2[2] == 2.5 && d2[3] == 0.0);
  MPI_Type_free(&every_other);
}

static void big_strided_vector(void) {
  const int n = 131072; /* 1 MiB of doubles, every other one */
  double *src = malloc(sizeof(double) * 2 * n), *dst = calloc(2 * (size_t)n, sizeof(double));
  char *buf = malloc(sizeof(double) * n);
  for (int i = 0; i < 2 * n; ++i) src[i] = i;
  MPI_Datatype v;
  MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &v);
  MPI_Type_commit(&v);
  int pos = 0;
  CHECK_EQ(MPI_Pack(src, 1, v, buf, n * 8, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
  CHECK_EQ(pos, n * 8);
  double last;
  memcpy(&last, buf + (n - 1) * 8, 8);
  CHECK(last == 2.0 * (n - 1));
  pos = 0;
  MPI_Unpack(buf, n * 8, &pos, dst, 1, v, MPI_COMM_WORLD);
  int bad = 0;
  for (int i = 0; i < 2 * n; ++i) bad += dst[i] != (i % 2 == 0 ? (double)i : 0.0);
  CHECK_EQ(bad, 0);
  MPI_Type_free(&v);
  free(src);
  free(dst);
  free(buf);
}

static void bottom(void) {
  int a = 7;
  double b = 9.25;
  int a2 = 0;
  double b2 = 0;
  MPI_Aint disp[2];
  int bl[2] = {1, 1};
  MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, t, t2;
  MPI_Get_address(&a, &disp[0]);
  MPI_Get_address(&b, &disp[1]);
  MPI_Type_create_struct(2, bl, disp, types, &t);
  MPI_Type_commit(&t);
  char buf[64];
  int pos = 0;
  CHECK_EQ(MPI_Pack(MPI_BOTTOM, 1, t, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
  CHECK_EQ(pos, 12);
  MPI_Address(&a2, &disp[0]);
  MPI_Address(&b2, &disp[1]);
  MPI_Type_struct(2, bl, disp, types, &t2);
  MPI_Type_commit(&t2);
  pos = 0;
  CHECK_EQ(MPI_Unpack(buf, 12, &pos, MPI_BOTTOM, 1, t2, MPI_COMM_WORLD), MPI_SUCCESS);
  CHECK_EQ(a2, 7);
  CHECK(b2 == 9.25);
  MPI_Type_free(&t);
  MPI_Type_free(&t2);
}

/* A message to myself whose length ends inside the type: Get_elements counts basic elements. */
static void elements_of_short_message(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Datatype s;
  int bl[3] = {1, 2, 1};
  MPI_Aint disp[3] = {0, 8, 24};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
  MPI_Type_create_struct(3, bl, disp, types, &s); /* 21 packed bytes, 4 elements */
  MPI_Type_commit(&s);
  char bytes[64] = {0}, in[64];
  MPI_Request r;
  MPI_Status st;
  MPI_Isend(bytes, 21 + 12, MPI_PACKED, rank, 5, MPI_COMM_SELF, &r);
  MPI_Recv(in, sizeof in, MPI_PACKED, rank, 5, MPI_COMM_SELF, &st);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  int n = -1;
  CHECK_EQ(MPI_Get_elements(&st, s, &n), MPI_SUCCESS);
  CHECK_EQ(n, 4 + 2); /* one whole element, then int and double */
  MPI_Isend(bytes, 21 + 6, MPI_PACKED, rank, 6, MPI_COMM_SELF, &r);
  MPI_Recv(in, sizeof in, MPI_PACKED, rank, 6, MPI_COMM_SELF, &st);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  MPI_Get_elements(&st, s, &n);
  CHECK_EQ(n, MPI_UNDEFINED); /* ends inside a double */
  MPI_Get_elements(&st, MPI_BYTE, &n);
  CHECK_EQ(n, 27);
  CHECK_CLASS(MPI_Get_elements(NULL, s, &n), MPI_ERR_ARG);
  MPI_Type_free(&s);
}

static void bad_arguments(void) {
  int v[4] = {0}, pos = 0, size;
  char buf[8];
  MPI_Datatype t;
  CHECK_CLASS(MPI_Pack(v, 4, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_EQ(pos, 0); /* nothing moved */
  CHECK_CLASS(MPI_Pack(v, -1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_Pack(v, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_CLASS(MPI_Pack(v, 1, MPI_INT, buf, sizeof buf, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
  CHECK_CLASS(MPI_Pack(NULL, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  pos = 9;
  CHECK_CLASS(MPI_Pack(v, 1, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
  pos = 4;
  CHECK_CLASS(MPI_Unpack(buf, 8, &pos, v, 2, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
  CHECK_CLASS(MPI_Unpack(buf, 8, &pos, v, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD), MPI_ERR_TYPE);
  MPI_Type_contiguous(2, MPI_INT, &t);
  CHECK_CLASS(MPI_Pack_size(1, t, MPI_COMM_WORLD, &size), MPI_ERR_TYPE); /* uncommitted */
  CHECK_CLASS(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
  MPI_Type_free(&t);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  positions();
  big_strided_vector();
  bottom();
  elements_of_short_message();
  bad_arguments();
  return check_finish("dt_pack");
}
