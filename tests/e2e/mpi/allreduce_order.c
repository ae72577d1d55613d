/* The bits of a floating-point MPI_Allreduce(MPI_SUM) of short vectors: ftmpi combines the
 * members' inputs with the association of recursive doubling, as MPICH and Open MPI do, so an
 * application's output (HPCCG's final residual, CoMD's energies) is the same number under
 * all three. The inputs are chosen so that associations differ in the last bits or more
 * (1e16 + 1 rounds to 1e16); every rank computes every rank's input, folds them the
 * doubling way itself and compares bit for bit, for MPI_Allreduce, MPI_Iallreduce and
 * MPI_IN_PLACE, at short lengths (1 to 200 doubles, under the 2 KiB long-message threshold).
 * It also checks that a plain left-to-right sum would differ for some element, so that the
 * test tells the two apart (from 4 ranks: at 3 both are (x0 + x1) + x2).
 *   allreduce_order [ROUNDS]   prints "allreduce_order: OK" on rank 0 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxLen = 200 };

static int rank, size, failures;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); failures++; } } while (0)

/* Member v's element i in round r: wide magnitudes and both signs. */
static double input(int v, int i, int r) {
  static const double scale[] = {1e16, 1.0, -1e16, 3.0, 1e-3, -7e15, 0.5, 2e16};
  const int k = (v * 3 + i * 5 + r * 7) % 8;
  return scale[k] * (1.0 + 0.125 * ((v + i + r) % 5));
}

/* The association of recursive doubling (Thakur, Rabenseifner, Gropp 2005; MPICH's
 * MPIR_Allreduce_intra_recursive_doubling): the first 2*rem members fold pairwise
 * (x[2k] + x[2k+1]), then the pof2 partial sums combine at distance 1, 2, 4, ... Written
 * here as a recursion over rank ranges, not as the library's loop. */
static double tree(const double *part, int lo, int n) {
  if (n == 1) return part[lo];
  return tree(part, lo, n / 2) + tree(part, lo + n / 2, n / 2);
}

static double doubling_sum(const double *x, int n) {
  int pof2 = 1;
  while (pof2 * 2 <= n) pof2 *= 2;
  const int rem = n - pof2;
  double part[64];
  for (int k = 0; k < pof2; k++) part[k] = k < rem ? x[2 * k] + x[2 * k + 1] : x[k + rem];
  return tree(part, 0, pof2);
}

static int differs(double a, double b) { return memcmp(&a, &b, sizeof a) != 0; }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 3;
  if (size > 64 || rounds < 1) {
    if (rank == 0) fprintf(stderr, "usage: allreduce_order [ROUNDS] (at most 64 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  static double in[kMaxLen], out[kMaxLen], want[kMaxLen];
  int linear_differs = 0;
  const int lengths[] = {1, 3, 17, 200};
  for (int r = 0; r < rounds; r++) {
    for (int li = 0; li < 4; li++) {
      const int len = lengths[li];
      for (int i = 0; i < len; i++) {
        double x[64], linear = 0;
        for (int v = 0; v < size; v++) {
          x[v] = input(v, i, r);
          linear += x[v];
        }
        want[i] = doubling_sum(x, size);
        linear_differs |= differs(linear, want[i]);
        in[i] = input(rank, i, r);
      }
      for (int form = 0; form < 3; form++) {
        const char *name = form == 0 ? "MPI_Allreduce" : form == 1 ? "MPI_Iallreduce" : "MPI_IN_PLACE";
        int rc;
        if (form == 0) {
          rc = MPI_Allreduce(in, out, len, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (form == 1) {
          MPI_Request q;
          rc = MPI_Iallreduce(in, out, len, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
          if (rc == MPI_SUCCESS) rc = MPI_Wait(&q, MPI_STATUS_IGNORE);
        } else {
          memcpy(out, in, sizeof(double) * (size_t)len);
          rc = MPI_Allreduce(MPI_IN_PLACE, out, len, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        CHECK(rc == MPI_SUCCESS, "%s of %d: error %d", name, len, rc);
        for (int i = 0; i < len && rc == MPI_SUCCESS; i++) {
          if (differs(out[i], want[i])) {
            CHECK(0, "%s of %d doubles, round %d, element %d: %.17g, recursive doubling gives %.17g",
                  name, len, r, i, out[i], want[i]);
            break;
          }
        }
      }
    }
  }
  if (size >= 4) CHECK(linear_differs, "the inputs do not tell a left-to-right sum apart");
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("allreduce_order: OK (%d ranks)\n", size);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
