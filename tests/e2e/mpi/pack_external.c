/* MPI_Pack_external / MPI_Unpack_external / MPI_Pack_external_size, "external32" (MPI-3.1
 * 13.5.2): the exact big-endian bytes of basic types at the standard's sizes (MPI_LONG and
 * MPI_UNSIGNED_LONG 4, MPI_WCHAR 2, long double as binary128, complex and pair types as their
 * parts), derived types with gaps round trip, positions accumulate, and the bytes travel
 * between ranks. Bad input: a long that needs more than 4 bytes, an unknown datarep and a
 * NULL one (MPI_ERR_ARG), too little room (MPI_ERR_TRUNCATE), a negative count
 * (MPI_ERR_COUNT), an uncommitted type (MPI_ERR_TYPE). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

/* Packs one element and compares the bytes with `want`; unpacks and compares with the input. */
static void one(const void *value, MPI_Datatype type, const unsigned char *want, int n, const char *what) {
  unsigned char buf[64], back[64];
  MPI_Aint size = -1, pos = 0;
  MPI_Pack_external_size("external32", 1, type, &size);
  CHECK(size == n, "%s: external size %ld, want %d", what, (long)size, n);
  CHECK(MPI_Pack_external("external32", value, 1, type, buf, sizeof buf, &pos) == MPI_SUCCESS && pos == n,
        "%s: pack position %ld", what, (long)pos);
  CHECK(memcmp(buf, want, (size_t)n) == 0, "%s: bytes %02x %02x %02x %02x ...", what, buf[0], buf[1], buf[2], buf[3]);
  pos = 0;
  int extent_ok = 1;
  MPI_Aint lb, extent;
  MPI_Type_get_extent(type, &lb, &extent);
  memset(back, 0, sizeof back);
  CHECK(MPI_Unpack_external("external32", buf, n, &pos, back, 1, type) == MPI_SUCCESS && pos == n,
        "%s: unpack position %ld", what, (long)pos);
  if (type == MPI_LONG_DOUBLE) extent = 10;  /* x87: the 6 padding bytes are not data */
  if (type == MPI_DOUBLE_INT) extent = 12;
  extent_ok = memcmp(back, value, (size_t)extent) == 0;
  CHECK(extent_ok, "%s: round trip differs", what);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  int i = 0x01020304;
  one(&i, MPI_INT, (const unsigned char[]){1, 2, 3, 4}, 4, "int");
  short s = -2;
  one(&s, MPI_SHORT, (const unsigned char[]){0xff, 0xfe}, 2, "short");
  long l = -2;
  one(&l, MPI_LONG, (const unsigned char[]){0xff, 0xff, 0xff, 0xfe}, 4, "long");
  unsigned long ul = 0x89abcdefUL;
  one(&ul, MPI_UNSIGNED_LONG, (const unsigned char[]){0x89, 0xab, 0xcd, 0xef}, 4, "unsigned long");
  long long ll = 0x0102030405060708LL;
  one(&ll, MPI_LONG_LONG, (const unsigned char[]){1, 2, 3, 4, 5, 6, 7, 8}, 8, "long long");
  double d = 1.0;
  one(&d, MPI_DOUBLE, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0}, 8, "double");
  float f = -2.0f;
  one(&f, MPI_FLOAT, (const unsigned char[]){0xc0, 0, 0, 0}, 4, "float");
  long double ld;
  memset(&ld, 0, sizeof ld);
  ld = 1.0L;
  one(&ld, MPI_LONG_DOUBLE, (const unsigned char[]){0x3f, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
      16, "long double");
  wchar_t wc = L'A';
  one(&wc, MPI_WCHAR, (const unsigned char[]){0, 0x41}, 2, "wchar");
  double _Complex z = 1.0 + 2.0 * 1.0i;
  one(&z, MPI_C_DOUBLE_COMPLEX, (const unsigned char[]){0x3f, 0xf0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0},
      16, "double complex");
  struct { double v; int k; } di;
  memset(&di, 0, sizeof di);
  di.v = 2.0;
  di.k = 5;
  one(&di, MPI_DOUBLE_INT, (const unsigned char[]){0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5}, 12, "double_int");

  /* A derived type with gaps: a vector of 3 longs, stride 2, and a struct around it. */
  MPI_Datatype vec, st;
  MPI_Type_vector(3, 1, 2, MPI_LONG, &vec);
  struct rec { char c; long v[5]; double x; } in[2], out[2];
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {offsetof(struct rec, c), offsetof(struct rec, v), offsetof(struct rec, x)};
  MPI_Datatype types[3] = {MPI_CHAR, vec, MPI_DOUBLE};
  MPI_Type_create_struct(3, bl, disp, types, &st);
  MPI_Datatype rec_t;
  MPI_Type_create_resized(st, 0, sizeof(struct rec), &rec_t);
  MPI_Type_commit(&rec_t);
  MPI_Aint esize;
  MPI_Pack_external_size("external32", 2, rec_t, &esize);
  CHECK(esize == 2 * (1 + 3 * 4 + 8), "struct external size %ld", (long)esize);
  memset(in, 0, sizeof in);
  memset(out, 0, sizeof out);
  for (int k = 0; k < 2; ++k) {
    in[k].c = (char)('a' + k);
    for (int j = 0; j < 5; ++j) in[k].v[j] = -100 * (k + 1) - j;
    in[k].x = 0.5 + k;
  }
  unsigned char buf[256];
  MPI_Aint pos = 0;
  int n = 7;
  CHECK(MPI_Pack_external("external32", &n, 1, MPI_INT, buf, sizeof buf, &pos) == MPI_SUCCESS, "pack int");
  CHECK(MPI_Pack_external("external32", in, 2, rec_t, buf, sizeof buf, &pos) == MPI_SUCCESS &&
        pos == 4 + esize, "pack struct: position %ld", (long)pos);
  /* The bytes go to the next rank, which unpacks what the previous one packed. */
  unsigned char got[256];
  MPI_Sendrecv(buf, (int)pos, MPI_BYTE, (rank + 1) % size, 0, got, (int)pos, MPI_BYTE,
               (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Aint upos = 0;
  int m = 0;
  MPI_Unpack_external("external32", got, pos, &upos, &m, 1, MPI_INT);
  CHECK(MPI_Unpack_external("external32", got, pos, &upos, out, 2, rec_t) == MPI_SUCCESS && upos == pos,
        "unpack struct: position %ld", (long)upos);
  int same = m == 7;
  for (int k = 0; k < 2; ++k) {
    same &= out[k].c == in[k].c && out[k].x == in[k].x;
    for (int j = 0; j < 5; ++j) same &= out[k].v[j] == (j % 2 == 0 ? in[k].v[j] : 0);
  }
  CHECK(same, "struct round trip (gaps untouched)");

  /* Bad input. */
  long big = 1L << 40;
  pos = 0;
  CHECK(error_class(MPI_Pack_external("external32", &big, 1, MPI_LONG, buf, sizeof buf, &pos)) == MPI_ERR_ARG,
        "a long beyond 4 bytes");
  pos = 0;
  CHECK(error_class(MPI_Pack_external("native", &i, 1, MPI_INT, buf, sizeof buf, &pos)) == MPI_ERR_ARG, "datarep native");
  CHECK(error_class(MPI_Pack_external(NULL, &i, 1, MPI_INT, buf, sizeof buf, &pos)) == MPI_ERR_ARG, "datarep NULL");
  pos = 2;
  CHECK(error_class(MPI_Pack_external("external32", &i, 1, MPI_INT, buf, 5, &pos)) == MPI_ERR_TRUNCATE && pos == 2,
        "no room");
  pos = 0;
  CHECK(error_class(MPI_Unpack_external("external32", buf, 3, &pos, &i, 1, MPI_INT)) == MPI_ERR_TRUNCATE, "short input");
  CHECK(error_class(MPI_Pack_external("external32", &i, -1, MPI_INT, buf, sizeof buf, &pos)) == MPI_ERR_COUNT, "count -1");
  MPI_Aint esz;
  CHECK(error_class(MPI_Pack_external_size("external32", 1, vec, &esz)) == MPI_ERR_TYPE, "uncommitted type");
  CHECK(error_class(MPI_Pack_external_size("external32", 1, MPI_INT, NULL)) == MPI_ERR_ARG, "NULL size");

  MPI_Type_free(&vec);
  MPI_Type_free(&st);
  MPI_Type_free(&rec_t);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("pack_external: OK\n");
  MPI_Finalize();
  return total != 0;
}
