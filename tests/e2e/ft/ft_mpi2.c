/* MPI-2 calls under failure (issue 19: "like their MPI-1 siblings"):  ft_mpi2 VICTIM
 * Run in SHRINK mode. The victim SIGKILLs itself after 20 rounds; the survivors call MPI_Exscan and
 * MPI_Reduce_scatter_block until one fails (it must: a participant is gone, so no hang and
 * an error, never a wrong result). ATOMIC mode: every survivor fails in the same call: call
 * 41, or 40 when rank 0 is the victim (below).
 * MPI_Comm_split_type then repairs MPI_COMM_WORLD (it is a constructor like MPI_Comm_split)
 * and the new calls compute the right answers among the survivors. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int victim = argc > 1 ? atoi(argv[1]) : size - 1;
  int bad = 0, first_error = -1, calls = 0;
  int send[64], recv[64];
  for (int it = 0; it < 100000 && first_error < 0; it++) {
    if (rank == victim && it == 20) raise(SIGKILL); /* after 40 successful calls */
    int x = rank + 1, y = 0;
    int rc = MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    calls++;
    if (rc == MPI_SUCCESS && rank > 0 && y != rank * (rank + 1) / 2) bad++;
    if (rc == MPI_SUCCESS) {
      for (int i = 0; i < size; i++) send[i] = i;
      rc = MPI_Reduce_scatter_block(send, recv, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      calls++;
      if (rc == MPI_SUCCESS && recv[0] != size * rank) bad++;
    }
    if (rc != MPI_SUCCESS) first_error = calls;
  }
  /* The victim returned from 40 calls, so the survivors' first 39 worked. Call 40 works at
   * every survivor too unless the victim was its outcome vote's coordinator (rank 0): it sent
   * "success" and returned; a survivor that hears of its death before reading that decision
   * drops it (a decision from a dead sender is not taken, ftmpi/CONSENSUS.md "Late
   * decisions"), and if none read it first the next coordinator decides "failed" for all of
   * them. ATOMIC votes are not uniform (CONSENSUS.md "Uniform decisions": only the survivors
   * must agree), so then call 40 fails everywhere, which is right. */
  if (first_error < 40 || (first_error == 40 && victim != 0)) bad++;
  MPI_Comm shared;
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared) != MPI_SUCCESS) {
    printf("rank %d: split_type did not repair\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  int n, r, wn;
  MPI_Comm_size(shared, &n);
  MPI_Comm_rank(shared, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &wn);
  if (n != size - 1 || wn != size - 1) bad++;
  int x = r + 1, y = -1;
  if (MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, shared) != MPI_SUCCESS || (r > 0 && y != r * (r + 1) / 2)) bad++;
  for (int i = 0; i < n; i++) send[i] = i;
  if (MPI_Reduce_scatter_block(send, recv, 1, MPI_INT, MPI_SUM, shared) != MPI_SUCCESS || recv[0] != n * r) bad++;
  int notes[64];
  MPI_Allgather(&first_error, 1, MPI_INT, notes, 1, MPI_INT, shared);
  for (int i = 0; i < n; i++) if (notes[i] != notes[0]) bad++;
  int allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, shared);
  if (r == 0) printf("ft_mpi2: first error at call %d everywhere: %s; %d bad\n", notes[0],
                     allbad == 0 ? "yes" : "no", allbad);
  if (r == 0 && allbad == 0) printf("ft_mpi2 OK\n");
  MPI_Comm_free(&shared);
  MPI_Finalize();
  return allbad != 0;
}
