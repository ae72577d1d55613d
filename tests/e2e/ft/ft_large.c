/* A large (rendezvous, zero-copy) message in flight when a process dies.
 *   ft_large recv [US [BYTES]]  the victim (last rank) starts sending BYTES (default 64 MiB)
 *                   to rank 0 and dies US microseconds later (default 500), usually before
 *                   the transfer can finish; rank 0 is blocked receiving it
 *   ft_large send [US [BYTES]]  rank 0 sends BYTES to the victim, which dies without
 *                   receiving it; rank 0 is blocked in MPI_Send (or its wait)
 * On shm, up to 512 KiB travel through the sender's bulk slot and larger ones are copied by
 * both ends (transport/README.md): the sizes the tests pass cover both paths.
 * Either way rank 0's call must return MPI_ERR_OTHER (never hang, never report success with
 * a partial buffer), every survivor repairs MPI_COMM_WORLD (SHRINK), and a 64 MiB exchange
 * between the survivors afterwards arrives intact. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, bad = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int send_case = argc > 1 && strcmp(argv[1], "send") == 0;
  int victim = size - 1;
  const long BIG = argc > 3 ? atol(argv[3]) : (64L << 20);
  char *buf = malloc(BIG);
  memset(buf, rank + 1, BIG);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == victim) {
    if (send_case) {
      usleep(100000);  /* rank 0's send is waiting for us to take it */
      raise(SIGKILL);
    }
    MPI_Request rq;
    MPI_Isend(buf, BIG, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &rq);
    usleep(argc > 2 ? atoi(argv[2]) : 500);  /* announced (maybe partly read), then gone */
    raise(SIGKILL);
  }
  if (rank == 0) {
    int rc;
    if (send_case) {
      rc = MPI_Send(buf, BIG, MPI_BYTE, victim, 7, MPI_COMM_WORLD);
    } else {
      memset(buf, 0, BIG);
      rc = MPI_Recv(buf, BIG, MPI_BYTE, victim, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int cls = -1;
    MPI_Error_class(rc, &cls);
    /* The transfer may have finished before the victim died: then the data must be whole.
     * Otherwise the receive must fail with MPI_ERR_OTHER, never succeed with a partial buffer.
     * (A send may complete too: MPI_Send only means the buffer is reusable.) */
    if (!send_case && rc == MPI_SUCCESS) {
      for (long i = 0; i < BIG; i += 4093) {
        if (buf[i] != (char)(victim + 1)) {
          printf("ft_large: the receive succeeded with a partial buffer (byte %ld)\n", i);
          bad++;
          break;
        }
      }
      printf("ft_large: the transfer finished before the sender died\n");
    } else if (!send_case && cls != MPI_ERR_OTHER) {
      printf("ft_large: receive from the dead sender returned class %d, expected MPI_ERR_OTHER\n", cls);
      bad++;
    } else if (!send_case) {
      printf("ft_large: the receive failed with MPI_ERR_OTHER\n");
    }
    if (send_case && rc != MPI_SUCCESS && cls != MPI_ERR_OTHER) {
      printf("ft_large: send to the dead receiver returned class %d\n", cls);
      bad++;
    }
  } else {
    /* The others wait for the failure on a receive from the victim. */
    int v, rc = MPI_Recv(&v, 1, MPI_INT, victim, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_OTHER) bad++;
  }
  MPI_Comm repaired;
  if (MPI_Comm_dup(MPI_COMM_WORLD, &repaired) != MPI_SUCCESS) bad++;
  int n, r;
  MPI_Comm_size(repaired, &n);
  MPI_Comm_rank(repaired, &r);
  if (n != size - 1) bad++;
  /* After the repair a full-size exchange between the first and last survivor is intact. */
  if (n > 1 && (r == 0 || r == n - 1)) {
    int peer = r == 0 ? n - 1 : 0;
    memset(buf, r + 11, BIG);
    char *in = malloc(BIG);
    MPI_Sendrecv(buf, BIG, MPI_BYTE, peer, 3, in, BIG, MPI_BYTE, peer, 3, repaired, MPI_STATUS_IGNORE);
    for (long i = 0; i < BIG; i += 4093) {
      if (in[i] != (char)(peer + 11)) { bad++; break; }
    }
    free(in);
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, repaired);
  if (r == 0) printf(total == 0 ? "ft_large OK (%s)\n" : "ft_large FAILED (%s)\n", send_case ? "send" : "recv");
  MPI_Comm_free(&repaired);
  free(buf);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
