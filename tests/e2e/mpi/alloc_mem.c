/* MPI_Alloc_mem / MPI_Free_mem (MPI-3.1 8.2) and MPI_Aint_add / MPI_Aint_diff (4.1.5): blocks
 * of several sizes (0 included) are aligned, writable and used as message buffers; any info
 * is accepted; bad input is the right error class through MPI_COMM_WORLD's handler and never a
 * crash: a size no machine has is MPI_ERR_NO_MEM, a negative size or a pointer MPI_Alloc_mem
 * did not return is MPI_ERR_ARG, a freed info MPI_ERR_INFO. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int rank, failures, handler_calls;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

static void count_handler(MPI_Comm *comm, int *code, ...) { (void)comm; (void)code; handler_calls++; }

static int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

int main(int argc, char **argv) {
  int size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Errhandler eh;
  MPI_Comm_create_errhandler(count_handler, &eh);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);

  MPI_Info hints;
  MPI_Info_create(&hints);
  MPI_Info_set(hints, "alloc_shared_noncontig", "true");
  const MPI_Aint sizes[] = {0, 1, 7, 4096, 1 << 20};
  for (int i = 0; i < 5; ++i) {
    int *p = NULL;
    int rc = MPI_Alloc_mem(sizes[i], i % 2 ? hints : MPI_INFO_NULL, &p);
    CHECK(rc == MPI_SUCCESS && p != NULL, "alloc %ld: rc %d", (long)sizes[i], rc);
    CHECK(((uintptr_t)p % 64) == 0, "block of %ld not 64-byte aligned", (long)sizes[i]);
    if (sizes[i] >= 4096) {
      const int n = (int)(sizes[i] / sizeof(int));
      for (int k = 0; k < n; ++k) p[k] = rank * 1000 + k;
      /* The block as a message buffer: a ring shift. */
      int *q = NULL;
      MPI_Alloc_mem(sizes[i], MPI_INFO_NULL, &q);
      MPI_Sendrecv(p, n, MPI_INT, (rank + 1) % size, 0, q, n, MPI_INT, (rank + size - 1) % size,
                   0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const int from = (rank + size - 1) % size;
      CHECK(q[0] == from * 1000 && q[n - 1] == from * 1000 + n - 1, "ring data %d %d", q[0], q[n - 1]);
      CHECK(MPI_Free_mem(q) == MPI_SUCCESS, "free q");
    }
    CHECK(MPI_Free_mem(p) == MPI_SUCCESS, "free of %ld", (long)sizes[i]);
  }

  /* Bad input: each reaches the handler once, and the call returns the class. */
  void *p = NULL;
  int rc = MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &p);
  CHECK(error_class(rc) == MPI_ERR_NO_MEM && handler_calls == 1, "giant: class %d, handler %d",
        error_class(rc), handler_calls);
  rc = MPI_Alloc_mem(-8, MPI_INFO_NULL, &p);
  CHECK(error_class(rc) == MPI_ERR_ARG && handler_calls == 2, "negative: class %d", error_class(rc));
  rc = MPI_Alloc_mem(8, MPI_INFO_NULL, NULL);
  CHECK(error_class(rc) == MPI_ERR_ARG && handler_calls == 3, "NULL baseptr: class %d", error_class(rc));
  MPI_Info gone = hints;
  MPI_Info_free(&gone);
  rc = MPI_Alloc_mem(8, hints, &p);
  CHECK(error_class(rc) == MPI_ERR_INFO && handler_calls == 4, "freed info: class %d", error_class(rc));
  int not_mine[4];
  rc = MPI_Free_mem(not_mine);
  CHECK(error_class(rc) == MPI_ERR_ARG && handler_calls == 5, "foreign pointer: class %d", error_class(rc));
  MPI_Alloc_mem(16, MPI_INFO_NULL, &p);
  MPI_Free_mem(p);
  rc = MPI_Free_mem(p);
  CHECK(error_class(rc) == MPI_ERR_ARG && handler_calls == 6, "double free: class %d", error_class(rc));

  /* Address arithmetic agrees with MPI_Get_address. */
  double a[10];
  MPI_Aint a0, a7;
  MPI_Get_address(&a[0], &a0);
  MPI_Get_address(&a[7], &a7);
  CHECK(MPI_Aint_diff(a7, a0) == 7 * (MPI_Aint)sizeof(double), "Aint_diff %ld", (long)MPI_Aint_diff(a7, a0));
  CHECK(MPI_Aint_add(a0, 7 * (MPI_Aint)sizeof(double)) == a7, "Aint_add");
  CHECK(MPI_Aint_add(a7, -7 * (MPI_Aint)sizeof(double)) == a0, "Aint_add negative");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("alloc_mem: OK\n");
  MPI_Finalize();
  return total != 0;
}
