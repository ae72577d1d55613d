/* Nonblocking collectives progress while the application computes (issue 19 item 2; the
 * progress thread, ftmpi/src/progress_agent.h).   nbc_async MODE ROUNDS MS
 *
 * overlap: each round rank 0 posts MPI_Iallreduce (and, odd rounds, a 1 MiB MPI_Ibcast from
 *   rank 1, which moves by rendezvous) and computes for MS ms without any MPI call (a busy loop
 *   on the clock), while the others wait for the result, which needs rank 0's part in every
 *   round of the algorithm. Checks: the others completed before rank 0's compute ended (their
 *   CLOCK_MONOTONIC completion times against rank 0's), rank 0's first MPI_Test is true, and the
 *   data is right. Without asynchronous progress the others wait for rank 0's MPI_Test and its
 *   first test is false (at 3+ ranks the allreduce has several rounds; among up to 4 members
 *   only with FTMPI_COLL_DIRECT_MEMBERS=0, as CMakeLists.txt runs it: a direct exchange sends
 *   rank 0's vector when it posts): `expect-stall` as a 4th argument inverts the check
 *   (FTMPI_ASYNC_PROGRESS=0 must show the stall).
 * idle: rank 0 posts MPI_Iallreduce; rank 1 posts its own only after MS ms; meanwhile rank 0
 *   sleeps (computes without the CPU). Rank 0's process CPU time over that time (every thread:
 *   the progress thread's too) must stay under 10% of MS: the agent blocks, it never spins.
 * fail: rank 2 SIGKILLs itself MS/4 ms into a phase in which the others have posted
 *   MPI_Iallreduce and sleep MS ms without MPI calls. The victim never contributes, so every
 *   survivor's first MPI_Test after the sleep must find the request complete with an error
 *   (MPI_ERR_OTHER in the FT-MPI modes, MPIX_ERR_PROC_FAILED in ULFM mode): the failure was
 *   seen while it computed. With PIDDIR set (run_mpi.sh), "after the sleep" means at least
 *   MS*3/4 after the victim's actual death: it writes its pid to $PIDDIR/death just before it
 *   raises SIGKILL, and each survivor watches /proc for the process to be gone (or a zombie)
 *   and counts from when it saw that, not from the write (a victim preempted between the
 *   write and the signal was still alive when the clock started). ROUNDS is ignored (one
 *   failure per run; the test loops runs).
 * handover: ROUNDS rounds of MS (a count here) back-to-back 8 B MPI_Allreduce, then as many
 *   MPI_Iallreduce + MPI_Wait. While the application drives progress itself (it is inside MPI
 *   nearly all the time) the progress thread must stay out of its way. The check is a count,
 *   not a time: the thread logs how often it took the library lock ("asynchronous progress
 *   thread ends: N bursts", FTMPI_DEBUG=1) and handover_check.sh compares N with the number of
 *   collectives printed here. It used to be woken at the end of every MPI_Wait and take the
 *   lock from the caller (on oversubscribed cores a context switch or two each time).
 *   Prints both times per call too (medians of the rounds, slowest rank; not checked) and the
 *   thread's voluntary context switches per collective (getrusage: the process's minus the
 *   main thread's).
 *   Checks the thread's wake-ups (voluntary switches) per second of that loop: at most 10
 *   plus one per 4 ms (it looks every 1 ms doubling to 16 while the application polls).
 * A 4th argument `multiple` initializes with MPI_THREAD_MULTIPLE (the library lock is on from
 * the start instead of being switched on by the first nonblocking collective). */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <mpi.h>
#include <mpi-ext.h>
#include <ftmpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static int rank, size, bad;
#define CHECK(c, ...) do { if (!(c)) { fprintf(stderr, "rank %d: FAIL line %d: ", rank, __LINE__); \
  fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); bad++; } } while (0)

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + 1e-6 * (double)u.ru_utime.tv_usec +
         (double)u.ru_stime.tv_sec + 1e-6 * (double)u.ru_stime.tv_usec;
}

/* Busy for `seconds` of time in which this process ran. A gap of more than kStall between two
 * looks at the clock (about 10 us apart when running) is time the process did not run, so
 * the compute goes on for as long again: under load the whole job has been seen to stop for
 * seconds at once, and a compute whose end fell in such a stop ended before the others, as
 * stopped, could finish (the test would blame the progress thread for the machine). */
static void compute_busy(double seconds) {
  const double kStall = 0.2;
  volatile double x = 0;
  double last = now(), end = last + seconds;
  for (double t = last; t < end; last = t, t = now()) {
    if (t - last > kStall) end += t - last;
    for (int i = 0; i < 1000; i++) x += i * 0.5;
  }
}

static void sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

enum { kInts = 64, kBcastBytes = 1 << 20 };

static void overlap(int rounds, int ms, int expect_stall) {
  int in[kInts], out[kInts];
  char *big = malloc(kBcastBytes);
  int stalls = 0;
  for (int round = 0; round < rounds; round++) {
    const int with_bcast = round % 2 == 1 && size > 1;
    for (int i = 0; i < kInts; i++) in[i] = rank * 1000 + i + round;
    memset(big, rank == 1 ? (char)(round + 7) : 0, kBcastBytes);
    MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iallreduce(in, out, kInts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]);
    if (with_bcast) MPI_Ibcast(big, kBcastBytes, MPI_CHAR, 1, MPI_COMM_WORLD, &q[1]);
    double done_at = 0;
    int first = 0;
    if (rank == 0) {
      compute_busy(ms / 1000.0);
      done_at = now();  /* the compute's end: no MPI call was made before this */
      MPI_Testall(2, q, &first, MPI_STATUSES_IGNORE);
      if (!first) MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
    } else {
      MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
      done_at = now();
    }
    for (int i = 0; i < kInts; i++) {
      const int want = 1000 * size * (size - 1) / 2 + size * (i + round);
      if (out[i] != want) { CHECK(0, "round %d: out[%d] = %d, expected %d", round, i, out[i], want); break; }
    }
    if (with_bcast) {
      for (int i = 0; i < kBcastBytes; i += 4099) {
        if (big[i] != (char)(round + 7)) { CHECK(0, "round %d: bcast byte %d wrong", round, i); break; }
      }
    }
    double times[64] = {0};
    MPI_Gather(&done_at, 1, MPI_DOUBLE, times, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      int late = 0;
      for (int r = 1; r < size && r < 64; r++) late += times[r] >= times[0];
      const int stalled = !first || late > 0;
      stalls += stalled;
      if (!expect_stall) {
        CHECK(first, "round %d: the first MPI_Test after %d ms of compute found it incomplete", round, ms);
        CHECK(late == 0, "round %d: %d ranks completed only after rank 0's compute", round, late);
      }
    }
  }
  if (rank == 0 && expect_stall) {
    CHECK(stalls == rounds, "only %d of %d rounds stalled without asynchronous progress", stalls, rounds);
  }
  if (rank == 0) printf("nbc_async overlap: %d rounds, %d stalled\n", rounds, stalls);
  free(big);
}

static void idle(int rounds, int ms) {
  for (int round = 0; round < rounds; round++) {
    int in = rank + 1, out = 0;
    MPI_Request q;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) sleep_ms(ms);
    MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
    if (rank == 0) {
      const double c0 = cpu_seconds(), t0 = now();
      sleep_ms(ms * 3 / 4);  /* rank 1 posts only after ms: the collective is stuck meanwhile */
      const double cpu = cpu_seconds() - c0, wall = now() - t0;
      printf("nbc_async idle: round %d: %.1f ms CPU in %.1f ms with a collective pending\n",
             round, cpu * 1e3, wall * 1e3);
      CHECK(cpu < 0.1 * wall, "round %d: %.1f ms CPU in %.1f ms: the progress thread spins", round,
            cpu * 1e3, wall * 1e3);
    }
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    CHECK(out == size * (size + 1) / 2, "round %d: allreduce gave %d", round, out);
  }
}

/* The process runs (not gone, not a zombie waiting for its parent). */
static int process_alive(long pid) {
  char path[64], stat[256];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  const size_t n = fread(stat, 1, sizeof stat - 1, f);
  fclose(f);
  stat[n] = '\0';
  const char *close = strrchr(stat, ')'); /* "pid (comm) S ...": comm may hold spaces */
  return close == NULL || close[1] == '\0' || close[2] != 'Z';
}

static void fail(int ms) {
  int mode = 0, msg = 0;
  FTMPI_Comm_get_mode(MPI_COMM_WORLD, &mode, &msg);
  const int expected = mode == FTMPI_COMM_MODE_ULFM ? MPIX_ERR_PROC_FAILED : MPI_ERR_OTHER;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* The victim writes its pid to $PIDDIR/death just before it dies; the survivors test only
   * once they have seen it dead for ms * 3/4. Counting from the write instead failed once in
   * CI (ASan, load): two survivors tested with the collective still pending while the third,
   * later, saw the error; a victim preempted between its write and its SIGKILL explains it. A
   * stall of the whole job (seen under load: every rank, the victim included, lost 4.2 s at
   * once) must not count as a late notice either. */
  char death_path[4096] = "";
  if (getenv("PIDDIR") != NULL) snprintf(death_path, sizeof death_path, "%s/death", getenv("PIDDIR"));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 2) {
    sleep_ms(ms / 4);
    FILE *f = death_path[0] != '\0' ? fopen(death_path, "w") : NULL;
    if (f != NULL) {
      fprintf(f, "%ld\n", (long)getpid());
      fclose(f);
    }
    raise(SIGKILL);
  }
  int in = 1, out = 0, flag = 0;
  MPI_Request q;
  int rc = MPI_Iallreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q);
  CHECK(rc == MPI_SUCCESS, "MPI_Iallreduce returned %d", rc);
  sleep_ms(ms);
  /* Still no MPI call: wait (up to 30 s) until the victim has been seen dead for ms * 3/4. */
  double seen_dead = 0;
  for (const double give_up = now() + 30; death_path[0] != '\0' && now() < give_up;) {
    if (seen_dead == 0) {
      long pid = 0;
      FILE *f = fopen(death_path, "r");
      const int known = f != NULL && fscanf(f, "%ld", &pid) == 1 && pid > 0;
      if (f != NULL) fclose(f);
      if (known && !process_alive(pid)) seen_dead = now();
    }
    if (seen_dead != 0 && now() - seen_dead >= ms * 0.75e-3) break;
    sleep_ms(10);
  }
  rc = MPI_Test(&q, &flag, MPI_STATUS_IGNORE);
  int cls = rc;
  MPI_Error_class(rc, &cls);
  CHECK(flag, "the first MPI_Test %d ms after the failure found the collective incomplete", ms * 3 / 4);
  CHECK(cls == expected, "MPI_Test gave error class %d, expected %d", cls, expected);
  if (!flag) MPI_Wait(&q, MPI_STATUS_IGNORE);
  if (bad == 0) printf("nbc_async fail: rank %d saw error class %d at its first test\n", rank, cls);
}

static long voluntary_switches(int who) {
  struct rusage u;
  getrusage(who, &u);
  return u.ru_nvcsw;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static void handover(int rounds, int iters) {
  enum { kMaxRounds = 32 };
  double blocking[kMaxRounds], nonblocking[kMaxRounds], in = rank + 1, out = 0, loop_s = 0;
  long agent = 0;
  if (rounds > kMaxRounds) rounds = kMaxRounds;
  for (int round = 0; round < rounds; round++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (int i = 0; i < iters; i++) MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    blocking[round] = (now() - t0) / iters;
    MPI_Barrier(MPI_COMM_WORLD);
    const long self0 = voluntary_switches(RUSAGE_SELF), main0 = voluntary_switches(RUSAGE_THREAD);
    t0 = now();
    for (int i = 0; i < iters; i++) {
      MPI_Request q;
      MPI_Iallreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &q);
      MPI_Wait(&q, MPI_STATUS_IGNORE);
    }
    loop_s += now() - t0;
    nonblocking[round] = (now() - t0) / iters;
    agent += (voluntary_switches(RUSAGE_SELF) - self0) - (voluntary_switches(RUSAGE_THREAD) - main0);
    CHECK(out == size * (size + 1) / 2.0, "round %d: allreduce gave %g", round, out);
  }
  /* Its wake-ups: while the application keeps driving progress the thread's looks space out
   * (progress_agent.h: 1 ms doubling to 16). Looking every 1 ms, each wake-up preempting a rank
   * on the shared cores, cost a loop of these 10-40% of its time at 8 ranks on 2 cores. A rate
   * over the whole loop, not a time: a loaded machine delays wake-ups, it does not add any. */
  const double per_s = (double)agent / loop_s;
  CHECK(agent <= 10 + (long)(loop_s * 250), "the progress thread woke %ld times in %.0f ms of "
        "I<call> + MPI_Wait (%.0f per second): it looks far more often than every 4 ms", agent,
        loop_s * 1e3, per_s);
  qsort(blocking, rounds, sizeof(double), cmp_double);
  qsort(nonblocking, rounds, sizeof(double), cmp_double);
  double mine[3] = {blocking[rounds / 2] * 1e6, nonblocking[rounds / 2] * 1e6,
                    (double)agent / ((double)rounds * iters)}, worst[3];
  MPI_Reduce(mine, worst, 3, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("nbc_async handover: %d ranks, %d collectives each; 8 B allreduce %.2f us, iallreduce + "
           "wait %.2f us, progress thread %.3f switches per collective (slowest rank)\n", size,
           rounds * iters, worst[0], worst[1], worst[2]);
  }
}

int main(int argc, char **argv) {
  if (argc > 4 && strcmp(argv[4], "multiple") == 0) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided != MPI_THREAD_MULTIPLE) bad++;
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 4 || size < 2 || size > 64) {
    if (rank == 0) fprintf(stderr, "usage: nbc_async overlap|idle|fail|handover ROUNDS MS [expect-stall|multiple] (2-64 ranks)\n");
    MPI_Finalize();
    return 2;
  }
  const char *mode = argv[1];
  const int rounds = atoi(argv[2]), ms = atoi(argv[3]);
  if (strcmp(mode, "overlap") == 0) {
    overlap(rounds, ms, argc > 4 && strcmp(argv[4], "expect-stall") == 0);
  } else if (strcmp(mode, "idle") == 0) {
    idle(rounds, ms);
  } else if (strcmp(mode, "handover") == 0) {
    handover(rounds, ms);
  } else if (strcmp(mode, "fail") == 0 && size >= 3) {
    fail(ms);
  } else {
    if (rank == 0) fprintf(stderr, "nbc_async: unknown mode %s (fail needs 3 ranks)\n", mode);
    bad++;
  }
  if (bad == 0) printf("rank %d: nbc_async %s OK\n", rank, mode);
  MPI_Finalize();
  return bad == 0 ? 0 : 1;
}
