/* MPI_Finalize first deletes the attributes of MPI_COMM_SELF (MPI-2.2 8.7.1): every delete
 * callback runs exactly once, the last attribute set first, before anything is torn down, so
 * a callback can still communicate (here: an allreduce and a ring exchange on
 * MPI_COMM_WORLD) and MPI_Finalized still says 0. An attribute replaced or deleted earlier
 * is not deleted again. Also MPI_Pcontrol, which profiling-aware codes call. Any size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

enum { kKeys = 4 };
static int deleted[16], ndeleted; /* attribute values, in the order their callbacks ran */

static int on_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)keyval;
  (void)extra;
  int v = (int)(long)value;
  if (ndeleted < 16) deleted[ndeleted++] = v;
  CHECK(comm == MPI_COMM_SELF, "callback on communicator %d", (int)comm);
  int finalized = -1;
  MPI_Finalized(&finalized);
  CHECK(finalized == 0, "MPI_Finalized is %d inside a callback", finalized);
  /* A library's clean-up talks to the other processes. */
  int one = 1, sum = 0, token = rank * 100 + v, got = -1;
  int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(rc == MPI_SUCCESS && sum == size, "allreduce in callback: rc %d sum %d", rc, sum);
  rc = MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, v, &got, 1, MPI_INT,
                    (rank + size - 1) % size, v, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(rc == MPI_SUCCESS && got == ((rank + size - 1) % size) * 100 + v,
        "ring in callback: rc %d got %d", rc, got);
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(MPI_Pcontrol(0) == MPI_SUCCESS, "MPI_Pcontrol(0)");
  CHECK(MPI_Pcontrol(2, "extra", 3.5) == MPI_SUCCESS, "MPI_Pcontrol with arguments");
  int keys[kKeys];
  for (int k = 0; k < kKeys; k++) {
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_delete, &keys[k], NULL);
  }
  /* Set in the order 2, 0, 3, 1; then key 0 is set again (value 10: its old value 0 is
   * deleted now) and key 3 is deleted (value 3, now). At MPI_Finalize the order of setting
   * is 2, 1, 0 -> callbacks for 10, 1, 2. */
  int order[kKeys] = {2, 0, 3, 1};
  for (int i = 0; i < kKeys; i++) {
    MPI_Comm_set_attr(MPI_COMM_SELF, keys[order[i]], (void *)(long)order[i]);
  }
  MPI_Comm_set_attr(MPI_COMM_SELF, keys[0], (void *)10L);
  MPI_Comm_delete_attr(MPI_COMM_SELF, keys[3]);
  CHECK(ndeleted == 2 && deleted[0] == 0 && deleted[1] == 3, "replace and delete ran %d callbacks",
        ndeleted);
  /* A freed keyval still deletes the attributes set with it. */
  MPI_Comm_free_keyval(&keys[1]);
  ndeleted = 0;
  int rc = MPI_Finalize();
  CHECK(rc == MPI_SUCCESS, "MPI_Finalize rc %d", rc);
  int want[3] = {10, 1, 2};
  CHECK(ndeleted == 3, "%d callbacks at MPI_Finalize, expected 3", ndeleted);
  for (int i = 0; i < 3 && i < ndeleted; i++) {
    CHECK(deleted[i] == want[i], "callback %d deleted %d, expected %d", i, deleted[i], want[i]);
  }
  if (failures == 0) printf("finalize_self: rank %d OK\n", rank);
  return failures ? 1 : 0;
}
