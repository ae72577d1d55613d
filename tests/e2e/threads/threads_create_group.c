/* MPI_Comm_create_group from several threads of a process at once, all on MPI_COMM_WORLD, told
 * apart by their tags (MPI-3.1 6.4.2 allows it; MPICH's threads/comm/comm_create_group_threads2).
 *   threads_create_group [THREADS [ITERS]]   (THREADS 1..8, default 4; ITERS default 20)
 * Thread t uses tag t. Per iteration it builds a communicator of the first half of the ranks
 * (ranks 0..size/2, the others skip that call) and then one of every rank, and checks each with
 * an allreduce of the members' world ranks before freeing it. So the last ranks enter a call
 * of tag t while the first ones are still in the previous call of that tag, and each process
 * has up to THREADS constructions pending whose members arrive at different times: a
 * construction waiting for its late members must not keep the others from a context id (it
 * used to hold the process's main offer there, and every process then waited in offer rounds
 * for ever). A hang is caught by the watchdog. The last line is "threads_create_group: OK". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 8

static int rank, size, nthreads = 4, iters = 20;
#define CHECK_PROGRAM "threads_create_group"
#include "thread_check.h"

/* The communicator of world ranks 0..last built with `tag`, checked, freed. */
static void build_check_free(int last, int tag) {
  MPI_Group world, members;
  int range[1][3] = {{0, last, 1}};
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_range_incl(world, 1, range, &members);
  MPI_Comm c = MPI_COMM_NULL;
  OK(MPI_Comm_create_group(MPI_COMM_WORLD, members, tag, &c));
  int n = 0, sum = 0;
  if (c != MPI_COMM_NULL) {
    MPI_Comm_size(c, &n);
    CHECK(n == last + 1, "tag %d: size %d, expected %d", tag, n, last + 1);
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == last * (last + 1) / 2, "tag %d: rank sum %d, expected %d", tag, sum,
          last * (last + 1) / 2);
    OK(MPI_Comm_free(&c));
  }
  MPI_Group_free(&members);
  MPI_Group_free(&world);
}

static void* worker(void* arg) {
  const int t = (int)(long)arg;
  for (int it = 0; it < iters; ++it) {
    if (rank <= size / 2) build_check_free(size / 2, t);
    if (rank % 2 == 1) usleep((useconds_t)(100 * ((t + it) % 3)));
    build_check_free(size - 1, t);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) nthreads = atoi(argv[1]);
  if (argc > 2) iters = atoi(argv[2]);
  if (nthreads < 1 || nthreads > MAX_THREADS || iters < 1) {
    fprintf(stderr, "usage: threads_create_group [THREADS 1..%d [ITERS]]\n", MAX_THREADS);
    return 2;
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  pthread_t th[MAX_THREADS];
  for (int t = 0; t < nthreads; ++t) pthread_create(&th[t], NULL, worker, (void*)(long)t);
  for (int t = 0; t < nthreads; ++t) pthread_join(th[t], NULL);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && all == 0) {
    printf("threads_create_group: OK (%d ranks, %d threads x %d iterations)\n", size, nthreads,
           iters);
  }
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
