/* Heat diffusion in a thin rectangular plate, protected with ftckpt (the test problem of seed
 * 000). Explicit five-point scheme on NY x NX cells; the top edge is held at 100 degrees,
 * the other edges at 0. Rows are split across the ranks of MPI_COMM_WORLD and neighbours
 * exchange one halo row per step. Every EVERY steps the rows are saved with FTCKPT_Save.
 *
 * When a rank dies (SHRINK or BLANK), the survivors repair MPI_COMM_WORLD, roll back to the
 * newest recoverable save with FTCKPT_Recover, fetch the rows of the old decomposition that
 * fall into their new block (a failed rank's rows come from the holder of its copy) and
 * continue with the rows spread over the survivors. Each cell's update reads the same values
 * in the same order whatever the decomposition, so the final field must be bit-identical to a
 * failure-free run: rank 0 prints a checksum and compares with a serial run of its own.
 *
 *   heat STEPS EVERY KILLS [DF SD]
 * KILLS: "-" or a comma list of R@sT (start rank R dies at the start of step T) and R@dK
 * (R dies inside save number K, its copies in flight). */
#include <ftckpt.h>
#include <mpi.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NY 240
#define NX 64

static int wrank, rank, size;

static void block(int r, int n, int *lo, int *hi) {
  *lo = (int)((long)r * NY / n);
  *hi = (int)((long)(r + 1) * NY / n);
}

/* One step for global rows [lo, hi): in holds rows lo-1..hi (halos), out rows lo..hi-1. */
static void update(const double *in, double *out, int lo, int hi) {
  for (int g = lo; g < hi; g++) {
    const double *c = in + (size_t)(g - lo + 1) * NX;
    double *o = out + (size_t)(g - lo) * NX;
    if (g == 0 || g == NY - 1) { memcpy(o, c, sizeof(double) * NX); continue; }
    o[0] = c[0];
    o[NX - 1] = c[NX - 1];
    for (int x = 1; x < NX - 1; x++)
      o[x] = c[x] + 0.2 * ((c[x - NX] + c[x + NX]) + (c[x - 1] + c[x + 1]) - 4.0 * c[x]);
  }
}

static void initial_rows(double *rows, int lo, int hi) {
  for (int g = lo; g < hi; g++)
    for (int x = 0; x < NX; x++) rows[(size_t)(g - lo) * NX + x] = g == 0 ? 100.0 : 0.0;
}

static uint64_t fnv1a(const void *p, size_t n) {
  const unsigned char *b = p;
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

/* 1 when this start rank must die at the start of `step`. */
static int dies_at(const char *kills, char kind, int value) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", kills);
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ",")) {
    int r, v;
    char k;
    if (sscanf(t, "%d@%c%d", &r, &k, &v) == 3 && r == wrank && k == kind && v == value) return 1;
  }
  return 0;
}

/* u: rows lo-1..hi (halo rows at both ends). */
static double *u, *v;
static int lo, hi, step;

/* Halo rows carry the recovery generation in their tag. In CONT mode a receive posted
 * before a failure stays pending across the repair (messages are matched by process), so a
 * stale request must never match a message of the new generation. */
static int generation;

static int exchange_halos(void) {
  int n = hi - lo, up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  int tag_down = 10 + 2 * generation, tag_up = tag_down + 1;
  MPI_Request r[4];
  MPI_Irecv(u, NX, MPI_DOUBLE, up, tag_down, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(u + (size_t)(n + 1) * NX, NX, MPI_DOUBLE, down, tag_up, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(u + NX, NX, MPI_DOUBLE, up, tag_up, MPI_COMM_WORLD, &r[2]);
  MPI_Isend(u + (size_t)n * NX, NX, MPI_DOUBLE, down, tag_down, MPI_COMM_WORLD, &r[3]);
  /* In CONT mode only the dead rank's neighbours get an error; the others would wait for a
   * neighbour that went to repair. So wait by polling and leave on a detected failure. */
  for (;;) {
    int done = 0, state = FTMPI_COMM_OK;
    int rc = MPI_Testall(4, r, &done, MPI_STATUSES_IGNORE);
    if (rc != MPI_SUCCESS || done) return rc;
    FTMPI_Comm_state(MPI_COMM_WORLD, &state);
    if (state == FTMPI_COMM_DETECTED) return MPI_ERR_OTHER;
    usleep(20);
  }
}

static void allocate_block(void) {
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  block(rank, size, &lo, &hi);
  /* The old buffers are not freed: a stale CONT request may still refer to them. */
  u = calloc((size_t)(hi - lo + 2) * NX, sizeof(double));
  v = calloc((size_t)(hi - lo + 2) * NX, sizeof(double));
  FTCKPT_Protect(0, u + NX, (hi - lo) * NX, MPI_DOUBLE);
}

/* Repair, roll back, take over the rows of the new block. Returns 0, or exits when nothing
 * can be recovered. Another failure meanwhile starts over: Recover accumulates failures. */
static void recover(int *failures_seen) {
  for (int attempt = 0; attempt < 20; attempt++) {
    MPI_Comm tmp;
    if (MPI_Comm_dup(MPI_COMM_WORLD, &tmp) != MPI_SUCCESS) continue; /* repairs WORLD */
    MPI_Comm_free(&tmp);
    int k, rc = FTCKPT_Recover(&k);
    if (rc == FTCKPT_ERR_UNRECOVERABLE || rc == FTCKPT_ERR_NO_CHECKPOINT) {
      fprintf(stderr, "heat: rank %d: cannot continue: %s\n", wrank, FTCKPT_Error_string(rc));
      FTCKPT_Finalize();
      MPI_Finalize();
      exit(3);
    }
    if (rc != MPI_SUCCESS) continue;
    int old_size, old_rank, level;
    FTCKPT_Recovery_info(&old_size, &old_rank, 0, NULL, &level);
    int saved_step = step; /* id 1 was rolled back by Recover (same size) */
    allocate_block();
    for (int o = 0; o < old_size && rc == MPI_SUCCESS; o++) {
      int olo, ohi;
      block(o, old_size, &olo, &ohi);
      int a = olo > lo ? olo : lo, b = ohi < hi ? ohi : hi;
      double *tmp_rows = a < b ? malloc(sizeof(double) * (size_t)(ohi - olo) * NX) : NULL;
      rc = FTCKPT_Fetch(o, 0, tmp_rows, (ohi - olo) * NX, MPI_DOUBLE);
      if (rc == MPI_SUCCESS && tmp_rows)
        memcpy(u + (size_t)(a - lo + 1) * NX, tmp_rows + (size_t)(a - olo) * NX, sizeof(double) * (size_t)(b - a) * NX);
      free(tmp_rows);
    }
    /* Agree that everyone got here before switching tags (collectives are atomic). */
    int next = generation + 1;
    if (rc == MPI_SUCCESS) rc = MPI_Allreduce(MPI_IN_PLACE, &next, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rc != MPI_SUCCESS) continue;
    generation = next;
    (*failures_seen)++;
    if (rank == 0)
      printf("heat: recovered save %d (step %d, level %d) saved by %d ranks; continuing on %d\n", k,
             saved_step, level, old_size, size);
    fflush(stdout);
    return;
  }
  fprintf(stderr, "heat: rank %d: recovery keeps failing\n", wrank);
  MPI_Abort(MPI_COMM_WORLD, 4);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  int steps = argc > 1 ? atoi(argv[1]) : 200, every = argc > 2 ? atoi(argv[2]) : 10;
  const char *kills = argc > 3 ? argv[3] : "-";
  FTCKPT_Config cfg;
  FTCKPT_Config_default(&cfg);
  cfg.df = argc > 4 ? atoi(argv[4]) : 2;
  cfg.sd = argc > 5 ? atoi(argv[5]) : 2;
  if (FTCKPT_Init(MPI_COMM_WORLD, &cfg) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  FTCKPT_Protect(1, &step, 1, MPI_INT);
  allocate_block();
  initial_rows(u + NX, lo, hi);
  for (int k = 0; k * every <= steps; k++)
    if (dies_at(kills, 'd', k)) FTCKPT_Test_kill_in_save(k);

  int failures_seen = 0, rc;
  for (step = 0; step <= steps;) {
    /* Save at the start of every EVERY-th step, step 0 included. After a recovery the
     * recovered step is saved again at once: the new copies follow the new decomposition
     * and communicator, so full tolerance returns without waiting EVERY steps. The step
     * itself is protected (id 1), so save numbers need not map to steps. */
    rc = step % every == 0 ? FTCKPT_Save() : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && step == steps) break;
    if (rc == MPI_SUCCESS && dies_at(kills, 's', step)) raise(SIGKILL);
    if (rc == MPI_SUCCESS) rc = exchange_halos();
    if (rc != MPI_SUCCESS) {
      recover(&failures_seen);
      continue;
    }
    update(u, v + NX, lo, hi);
    double *t = u; u = v; v = t;
    FTCKPT_Protect(0, u + NX, (hi - lo) * NX, MPI_DOUBLE); /* the buffers swap every step */
    step++;
  }

  /* Gather the field on rank 0 (repairing first if a failure is still pending there). */
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  for (int r = 0; r < size; r++) {
    int a, b;
    block(r, size, &a, &b);
    counts[r] = (b - a) * NX;
    displs[r] = a * NX;
  }
  double *field = rank == 0 ? malloc(sizeof(double) * NY * NX) : NULL;
  rc = MPI_Gatherv(u + NX, (hi - lo) * NX, MPI_DOUBLE, field, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int ok = rc == MPI_SUCCESS;
  if (rank == 0 && ok) {
    /* The failure-free reference: the same kernel on the whole plate in one piece. */
    double *a = calloc((size_t)(NY + 2) * NX, sizeof(double)), *b = calloc((size_t)(NY + 2) * NX, sizeof(double));
    initial_rows(a + NX, 0, NY);
    for (int s = 0; s < steps; s++) {
      update(a, b + NX, 0, NY);
      double *t = a; a = b; b = t;
    }
    int same = memcmp(a + NX, field, sizeof(double) * NY * NX) == 0;
    printf("heat: %d steps on %d ranks, %d recover%s, checksum %016llx: %s\n", steps, size,
           failures_seen, failures_seen == 1 ? "y" : "ies",
           (unsigned long long)fnv1a(field, sizeof(double) * NY * NX),
           same ? "BIT-IDENTICAL to a failure-free run" : "DIFFERS from a failure-free run");
    ok = same;
    free(a);
    free(b);
  }
  FTCKPT_Finalize();
  MPI_Finalize();
  return ok ? 0 : 1;
}
