/* MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4), any number of ranks: ring exchanges
 * completed by every Wait/Test form (Wait, Test, Waitall, Waitany, Waitsome, Testall,
 * Testany, Testsome, Request_get_status), small and large (rendezvous) messages, a derived
 * datatype, the replace buffer (the send carries the old contents, the receive lands in the
 * same buffer), MPI_PROC_NULL halves, a freed pending request, and argument errors. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void complete(int form, MPI_Request *r, MPI_Status *st) {
  int flag = 0, idx, n = 0, indices[1];
  switch (form % 9) {
    case 0: MPI_Wait(r, st); break;
    case 1: while (!flag) MPI_Test(r, &flag, st); break;
    case 2: MPI_Waitall(1, r, st); break;
    case 3: MPI_Waitany(1, r, &idx, st); break;
    case 4: MPI_Waitsome(1, r, &n, indices, st); break;
    case 5: while (!flag) MPI_Testall(1, r, &flag, st); break;
    case 6: while (!flag) MPI_Testany(1, r, &idx, &flag, st); break;
    case 7: while (!n) MPI_Testsome(1, r, &n, indices, st); break;
    default:
      while (!flag) MPI_Request_get_status(*r, &flag, st);
      MPI_Wait(r, MPI_STATUS_IGNORE);
  }
  CHECK(*r == MPI_REQUEST_NULL, "form %d leaves the request null", form % 9);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  const int counts[] = {1, 100, 400000}; /* the last: 1.6 MB, a rendezvous */
  int *out = malloc(sizeof(int) * 400000), *in = malloc(sizeof(int) * 400000);
  for (int form = 0; form < 18; form++) {
    const int n = counts[form % 3];
    for (int i = 0; i < n; i++) out[i] = rank * 100000 + i + form;
    MPI_Request r;
    MPI_Status st;
    st.MPI_SOURCE = -7;
    if (form < 9 || n > 1000) {
      MPI_Isendrecv(out, n, MPI_INT, right, form, in, n, MPI_INT, left, form, MPI_COMM_WORLD, &r);
      complete(form, &r, &st);
      for (int i = 0; i < n; i++) if (in[i] != left * 100000 + i + form) { CHECK(0, "Isendrecv value %d", i); break; }
    } else {
      MPI_Isendrecv_replace(out, n, MPI_INT, right, form, left, form, MPI_COMM_WORLD, &r);
      complete(form, &r, &st);
      for (int i = 0; i < n; i++) if (out[i] != left * 100000 + i + form) { CHECK(0, "replace value %d", i); break; }
    }
    int got = -1;
    MPI_Get_count(&st, MPI_INT, &got);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == form && got == n, "form %d status %d %d %d",
          form, st.MPI_SOURCE, st.MPI_TAG, got);
  }
  /* Replace with a derived datatype: the odd elements travel, the even ones stay. */
  {
    int v[8];
    for (int i = 0; i < 8; i++) v[i] = rank * 10 + i;
    MPI_Datatype odd;
    MPI_Type_create_indexed_block(4, 1, (int[]){1, 3, 5, 7}, MPI_INT, &odd);
    MPI_Type_commit(&odd);
    MPI_Request r;
    MPI_Isendrecv_replace(v, 1, odd, right, 50, left, 50, MPI_COMM_WORLD, &r);
    MPI_Type_free(&odd); /* the request keeps what it needs */
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    for (int i = 0; i < 8; i++) {
      const int want = i % 2 ? left * 10 + i : rank * 10 + i;
      CHECK(v[i] == want, "indexed replace v[%d] = %d, want %d", i, v[i], want);
    }
  }
  /* MPI_PROC_NULL halves: nothing received (PROC_NULL status), or nothing sent. */
  {
    int a = rank, b = -1;
    MPI_Request r[2];
    MPI_Status st[2];
    MPI_Isendrecv(&a, 1, MPI_INT, MPI_PROC_NULL, 1, &b, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Isendrecv(&a, 1, MPI_INT, right, 2, &b, 1, MPI_INT, left, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, st);
    CHECK(st[0].MPI_SOURCE == MPI_PROC_NULL && b == left, "PROC_NULL pair, then a real one");
    b = -1;
    MPI_Isendrecv(&a, 1, MPI_INT, right, 3, &b, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &r[0]);
    MPI_Recv(&b, 1, MPI_INT, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Wait(&r[0], &st[0]);
    CHECK(st[0].MPI_SOURCE == MPI_PROC_NULL && b == left, "send-only pair");
  }
  /* A pending pair freed: its parts go on, the peer still receives. */
  {
    int a = rank + 500, b = -1;
    MPI_Request r;
    MPI_Isendrecv(&a, 1, MPI_INT, right, 4, &b, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &r);
    MPI_Request_free(&r);
    CHECK(r == MPI_REQUEST_NULL, "freed");
    MPI_Barrier(MPI_COMM_WORLD);
    int c = -1;
    MPI_Sendrecv(&a, 1, MPI_INT, right, 5, &c, 1, MPI_INT, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD); /* the freed receive got its message long ago */
    CHECK(b == left + 500 && c == left + 500, "freed pair delivered: %d %d", b, c);
  }
  /* Argument errors: nothing posted, the right class. */
  {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int a = 0, cls = -1;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Isendrecv(&a, 1, MPI_INT, size, 0, &a, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_RANK, "bad dest: class %d", cls);
    rc = MPI_Isendrecv(&a, 1, MPI_INT, right, 0, &a, 1, MPI_INT, left, -5, MPI_COMM_WORLD, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TAG, "bad receive tag: class %d", cls);
    rc = MPI_Isendrecv_replace(&a, -1, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, &r);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COUNT, "bad count: class %d", cls);
    rc = MPI_Isendrecv(&a, 1, MPI_INT, right, 0, &a, 1, MPI_INT, left, 0, MPI_COMM_WORLD, NULL);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_REQUEST, "NULL request: class %d", cls);
    CHECK(r == MPI_REQUEST_NULL, "nothing started");
  }
  free(out);
  free(in);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (rank == 0 && failures == 0) printf("isendrecv: OK on %d ranks\n", size);
  return failures ? 1 : 0;
}
