/* Every MPI completion form of a nonblocking collective next to the blocking call:
 *   mpirun -n N ftmpi-nbc_forms [iterations]          (default 2000)
 * For 8 B allreduce, barrier and 8 B bcast, I<call> completed by MPI_Wait, Waitall, Waitany,
 * Waitsome (one request each), MPI_Test, Testall, Testany, Testsome (called until it says
 * complete), and the blocking call. Timing: rounds of the blocking call and of each form
 * interleave (a change of the machine's load hits all alike), the median round is printed
 * with its ratio to the blocking call's. Instructions: each form is its own noinline
 * function (form_<name>), so `valgrind --tool=callgrind` gives its inclusive count; with
 * iterations I and R rounds each function ran R*I pairs (callgrind_annotate --inclusive=yes). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ROUNDS = 7, KINDS = 3, FORMS = 9 };
static const char *kind_name[KINDS] = {"allreduce 8 B", "barrier", "bcast 8 B"};
static const char *form_name[FORMS] = {"blocking", "Wait",    "Waitall", "Waitany", "Waitsome",
                                       "Test",     "Testall", "Testany", "Testsome"};
static double in = 1, out;

static void start(int kind, MPI_Request *q) {
  if (kind == 0) MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, q);
  else if (kind == 1) MPI_Ibarrier(MPI_COMM_WORLD, q);
  else MPI_Ibcast(&in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, q);
}

__attribute__((noinline)) static void form_blocking(int kind, int n) {
  for (int i = 0; i < n; i++) {
    if (kind == 0) MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    else if (kind == 1) MPI_Barrier(MPI_COMM_WORLD);
    else MPI_Bcast(&in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  }
}
__attribute__((noinline)) static void form_wait(int kind, int n) {
  for (int i = 0; i < n; i++) {
    MPI_Request q;
    start(kind, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
  }
}
__attribute__((noinline)) static void form_waitall(int kind, int n) {
  for (int i = 0; i < n; i++) {
    MPI_Request q;
    start(kind, &q);
    MPI_Waitall(1, &q, MPI_STATUSES_IGNORE);
  }
}
__attribute__((noinline)) static void form_waitany(int kind, int n) {
  for (int i = 0; i < n; i++) {
    MPI_Request q;
    int index;
    start(kind, &q);
    MPI_Waitany(1, &q, &index, MPI_STATUS_IGNORE);
  }
}
__attribute__((noinline)) static void form_waitsome(int kind, int n) {
  for (int i = 0; i < n; i++) {
    MPI_Request q;
    int outcount, index;
    start(kind, &q);
    MPI_Waitsome(1, &q, &outcount, &index, MPI_STATUSES_IGNORE);
  }
}
__attribute__((noinline)) static void form_test(int kind, int n) {
  for (int i = 0; i < n; i++) {
    MPI_Request q;
    int flag = 0;
    start(kind, &q);
    while (!flag) MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
  }
}
__attribute__((noinline)) static void form_testall(int kind, int n) {
  for (int i = 0; i < n; i++) {
    MPI_Request q;
    int flag = 0;
    start(kind, &q);
    while (!flag) MPI_Testall(1, &q, &flag, MPI_STATUSES_IGNORE);
  }
}
__attribute__((noinline)) static void form_testany(int kind, int n) {
  for (int i = 0; i < n; i++) {
    MPI_Request q;
    int flag = 0, index;
    start(kind, &q);
    while (!flag) MPI_Testany(1, &q, &index, &flag, MPI_STATUS_IGNORE);
  }
}
__attribute__((noinline)) static void form_testsome(int kind, int n) {
  for (int i = 0; i < n; i++) {
    MPI_Request q;
    int outcount = 0, index;
    start(kind, &q);
    while (outcount == 0) MPI_Testsome(1, &q, &outcount, &index, MPI_STATUSES_IGNORE);
  }
}

static void (*const form_fn[FORMS])(int, int) = {form_blocking, form_wait,    form_waitall,
                                                 form_waitany,  form_waitsome, form_test,
                                                 form_testall,  form_testany,  form_testsome};

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 2000;
  if (iters < 1) {
    if (rank == 0) fprintf(stderr, "usage: %s [iterations >= 1]\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  for (int kind = 0; kind < KINDS; kind++) {
    double t[FORMS][ROUNDS];
    for (int f = 0; f < FORMS; f++) form_fn[f](kind, iters / 10 + 1); /* warm up */
    for (int r = 0; r < ROUNDS; r++) {
      for (int f = 0; f < FORMS; f++) {
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        form_fn[f](kind, iters);
        t[f][r] = (MPI_Wtime() - t0) / iters;
      }
    }
    if (rank != 0) continue;
    for (int f = 0; f < FORMS; f++) qsort(t[f], ROUNDS, sizeof(double), cmp);
    const double blocking = t[0][ROUNDS / 2];
    for (int f = 0; f < FORMS; f++) {
      printf("nbc_forms: np %d %-14s %-9s %8.2f us  ratio %.2f\n", size, kind_name[kind],
             form_name[f], t[f][ROUNDS / 2] * 1e6, t[f][ROUNDS / 2] / blocking);
    }
  }
  MPI_Finalize();
  return 0;
}
