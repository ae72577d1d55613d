/* Matched probes (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv), any number of ranks:
 * - a matched message is nobody else's: with two messages of one (source, tag) queued, the
 *   Mprobe takes the first, a later MPI_Recv (and Iprobe) of the same source and tag gets the
 *   second, and the Mrecv gets the first;
 * - every rank's small, large (rendezvous) and synchronous messages to rank 0 through
 *   MPI_ANY_SOURCE Mprobe/Improbe and Mrecv/Imrecv (Wait, Test): status, count, contents;
 * - a derived datatype, truncation (MPI_ERR_TRUNCATE, as MPI_Recv), MPI_PROC_NULL
 *   (MPI_MESSAGE_NO_PROC), bad handles (MPI_ERR_REQUEST / MPI_ERR_ARG via ERRORS_RETURN). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

enum { kLarge = 300000 }; /* ints: 1.2 MB, a rendezvous on every path */

static void fill(int *v, int n, int seed) { for (int i = 0; i < n; i++) v[i] = seed * 7919 + i; }
static int same(const int *v, int n, int seed) {
  for (int i = 0; i < n; i++) if (v[i] != seed * 7919 + i) return 0;
  return 1;
}

/* Two messages of one source and tag: the matched one stays the Mprobe's. */
static void matched_is_taken(int size) {
  int a[4], b[4];
  MPI_Status st;
  if (size < 2 || rank > 1) return;
  if (rank == 1) {
    fill(a, 4, 1); fill(b, 4, 2);
    MPI_Send(a, 4, MPI_INT, 0, 5, MPI_COMM_WORLD);
    MPI_Send(b, 4, MPI_INT, 0, 5, MPI_COMM_WORLD);
    return;
  }
  MPI_Message m = MPI_MESSAGE_NULL;
  MPI_Mprobe(1, 5, MPI_COMM_WORLD, &m, &st);
  CHECK(m != MPI_MESSAGE_NULL && m != MPI_MESSAGE_NO_PROC, "Mprobe gave a message");
  int flag = 0;
  do MPI_Iprobe(1, 5, MPI_COMM_WORLD, &flag, &st); while (!flag); /* the second one */
  int got[4] = {0};
  MPI_Recv(got, 4, MPI_INT, 1, 5, MPI_COMM_WORLD, &st);
  CHECK(same(got, 4, 2), "MPI_Recv got the second message, not the matched first");
  MPI_Iprobe(1, 5, MPI_COMM_WORLD, &flag, &st);
  CHECK(flag == 0, "the matched message is invisible to MPI_Iprobe");
  memset(got, 0, sizeof got);
  MPI_Mrecv(got, 4, MPI_INT, &m, &st);
  CHECK(m == MPI_MESSAGE_NULL, "Mrecv sets the handle to MPI_MESSAGE_NULL");
  CHECK(same(got, 4, 1) && st.MPI_SOURCE == 1 && st.MPI_TAG == 5, "Mrecv got the first message");
}

/* Every rank sends rank 0 a small, a large and a synchronous message; rank 0 takes them with
 * wildcard matched probes, alternating the blocking and nonblocking forms. */
static void from_everybody(int size) {
  const int per_rank = 3;
  if (rank != 0) {
    int *v = malloc(sizeof(int) * kLarge);
    fill(v, 10 + rank, rank);
    MPI_Send(v, 10 + rank, MPI_INT, 0, 100, MPI_COMM_WORLD);
    fill(v, kLarge, rank + 1000);
    MPI_Send(v, kLarge, MPI_INT, 0, 101, MPI_COMM_WORLD);
    fill(v, 3, rank + 2000);
    MPI_Ssend(v, 3, MPI_INT, 0, 102, MPI_COMM_WORLD);
    free(v);
    return;
  }
  for (int k = 0; k < per_rank * (size - 1); k++) {
    MPI_Message m;
    MPI_Status st;
    int flag = 0;
    if (k % 2 == 0) {
      MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
    } else {
      while (!flag) MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
    }
    int n, src = st.MPI_SOURCE, tag = st.MPI_TAG;
    MPI_Get_count(&st, MPI_INT, &n);
    const int want = tag == 100 ? 10 + src : tag == 101 ? kLarge : 3;
    const int seed = tag == 100 ? src : tag == 101 ? src + 1000 : src + 2000;
    CHECK(src >= 1 && src < size && tag >= 100 && tag <= 102 && n == want,
          "probe: source %d tag %d count %d", src, tag, n);
    int *v = malloc(sizeof(int) * (size_t)n);
    MPI_Status rs;
    if (k % 3 == 0) {
      MPI_Mrecv(v, n, MPI_INT, &m, &rs);
    } else {
      MPI_Request r;
      MPI_Imrecv(v, n, MPI_INT, &m, &r);
      CHECK(m == MPI_MESSAGE_NULL, "Imrecv sets the handle to MPI_MESSAGE_NULL");
      if (k % 3 == 1) {
        MPI_Wait(&r, &rs);
      } else {
        int done = 0;
        while (!done) MPI_Test(&r, &done, &rs);
      }
    }
    int rn;
    MPI_Get_count(&rs, MPI_INT, &rn);
    CHECK(rs.MPI_SOURCE == src && rs.MPI_TAG == tag && rn == n, "receive status %d %d %d",
          rs.MPI_SOURCE, rs.MPI_TAG, rn);
    CHECK(same(v, n, seed), "contents from %d tag %d", src, tag);
    free(v);
  }
}

/* Derived datatype, truncation, MPI_PROC_NULL and bad arguments. */
static void edges(int size) {
  MPI_Status st;
  MPI_Message m;
  int flag = 0;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Improbe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &m, &st);
  CHECK(flag == 1 && m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL, "Improbe PROC_NULL");
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
  CHECK(m == MPI_MESSAGE_NO_PROC, "Mprobe PROC_NULL");
  int x = 42;
  CHECK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st) == MPI_SUCCESS && m == MPI_MESSAGE_NULL &&
        st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && x == 42, "Mrecv NO_PROC");
  int n = -1;
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(n == 0, "NO_PROC count %d", n);
  MPI_Request r;
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st);
  CHECK(MPI_Imrecv(&x, 1, MPI_INT, &m, &r) == MPI_SUCCESS && m == MPI_MESSAGE_NULL, "Imrecv NO_PROC");
  MPI_Wait(&r, &st);
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv NO_PROC status");
  m = MPI_MESSAGE_NULL;
  int rc = MPI_Mrecv(&x, 1, MPI_INT, &m, &st), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "Mrecv of MPI_MESSAGE_NULL: class %d", cls);
  m = 12345;
  rc = MPI_Imrecv(&x, 1, MPI_INT, &m, &r);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_REQUEST, "Imrecv of a garbage handle: class %d", cls);
  rc = MPI_Mprobe(0, 0, MPI_COMM_WORLD, NULL, &st);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ARG, "Mprobe NULL message pointer: class %d", cls);
  rc = MPI_Improbe(size, 0, MPI_COMM_WORLD, &flag, &m, &st);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK, "Improbe bad rank: class %d", cls);
  if (size < 2 || rank > 1) return;
  MPI_Datatype every_other;
  MPI_Type_vector(5, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  if (rank == 1) {
    int v[5] = {1, 2, 3, 4, 5};
    MPI_Send(v, 5, MPI_INT, 0, 7, MPI_COMM_WORLD);
    MPI_Send(v, 5, MPI_INT, 0, 8, MPI_COMM_WORLD);
  } else {
    int w[10];
    for (int i = 0; i < 10; i++) w[i] = -1;
    MPI_Mprobe(1, 7, MPI_COMM_WORLD, &m, &st);
    /* A count or datatype error leaves the message to a corrected call. */
    rc = MPI_Mrecv(w, -1, MPI_INT, &m, &st);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT && m != MPI_MESSAGE_NULL, "negative count: class %d", cls);
    MPI_Mrecv(w, 1, every_other, &m, &st);
    CHECK(w[0] == 1 && w[1] == -1 && w[2] == 2 && w[8] == 5 && w[9] == -1, "vector receive");
    MPI_Mprobe(1, 8, MPI_COMM_WORLD, &m, &st);
    rc = MPI_Mrecv(w, 2, MPI_INT, &m, &st);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TRUNCATE && m == MPI_MESSAGE_NULL, "truncation: class %d", cls);
  }
  MPI_Type_free(&every_other);
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  matched_is_taken(size);
  MPI_Barrier(MPI_COMM_WORLD);
  from_everybody(size);
  MPI_Barrier(MPI_COMM_WORLD);
  edges(size);
  CHECK(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC, "c2f");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("mprobe: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
