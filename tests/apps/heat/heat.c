/* Heat diffusion in a thin rectangular plate, protected with ftckpt (the test problem of seed
 * 000). Explicit five-point scheme on NY x NX cells; the top edge is held at 100 degrees,
 * the other edges at 0. Rows are split across the ranks of MPI_COMM_WORLD and neighbours
 * exchange one halo row per step. Every EVERY steps the rows are saved with FTCKPT_Save.
 *
 * When a rank dies, the survivors repair MPI_COMM_WORLD and roll back to the newest
 * recoverable save with FTCKPT_Recover.
 *  - SHRINK: they fetch the rows of the old decomposition that fall into their new block (a
 *    failed rank's rows come from the holder of its copy) and continue with the rows spread
 *    over the survivors.
 *  - REBUILD: a replacement process takes the failed rank. It starts from main, calls
 *    FTCKPT_Init and FTCKPT_Protect like everybody, then the same repair call and
 *    FTCKPT_Recover as the survivors, which hands it the failed rank's rows and step: the
 *    decomposition is unchanged and it catches up with the others from the recovered step.
 * Each cell's update reads the same values in the same order whatever the decomposition, so
 * the final field must be bit-identical to a failure-free run: rank 0 prints a checksum and
 * compares with a serial run of its own.
 *
 * Every step ends with one MPI_Allreduce of "my step worked", and only its outcome sends the
 * processes to the repair. ftmpi's collectives are ATOMIC (they agree on their outcome among
 * all live members), so a process that left for the repair straight from a failed halo
 * exchange would leave the others waiting in the next collective they enter (FTCKPT_Save).
 *
 *   heat STEPS EVERY KILLS [DF SD]
 * KILLS: "-" or a comma list of R@sT (the process at start rank R dies at the start of step
 * T) and R@dK (it dies inside save number K, its copies in flight). Each kill fires once (a
 * marker in $PIDDIR when set), so a replacement does not die again where its predecessor
 * did, while a later kill of the same rank kills the replacement. With PIDDIR set, rank 0 also
 * creates $PIDDIR/heat_saved once a save completed (drivers that kill from outside wait for it).
 * "*@pT" in KILLS (needs PIDDIR) pauses every process at the start of step T, after that
 * step's save: rank 0 creates $PIDDIR/heat_paused, and all wait (sleeping) until the driver
 * creates $PIDDIR/heat_go, at most 60 s. A driver that kills a host from outside does so
 * between the two, so the job can neither end before the kill nor run past the save it needs,
 * however fast the machine. Without it the demo never pauses. */
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

/* Index of the kill of this start rank of `kind` at `value` that has not fired yet, else -1. */
static int pending_kill(const char *kills, char kind, int value) {
  char buf[256], path[600];
  snprintf(buf, sizeof buf, "%s", kills);
  int index = 0;
  for (char *t = strtok(buf, ","); t; t = strtok(NULL, ","), index++) {
    int r, v;
    char k;
    if (sscanf(t, "%d@%c%d", &r, &k, &v) != 3 || r != wrank || k != kind || v != value) continue;
    if (!getenv("PIDDIR")) return index;
    snprintf(path, sizeof path, "%s/heat_killed.%d", getenv("PIDDIR"), index);
    if (access(path, F_OK) != 0) return index;
  }
  return -1;
}

static void mark_kill(int index, int fired) {
  char path[600];
  if (!getenv("PIDDIR")) return;
  snprintf(path, sizeof path, "%s/heat_killed.%d", getenv("PIDDIR"), index);
  if (!fired) {
    unlink(path);
    return;
  }
  FILE *f = fopen(path, "w");
  if (f) fclose(f);
}

/* The step of a "*@pT" in kills, else -1. */
static int pause_step(const char *kills) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", kills);
  int t;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
    if (sscanf(tok, "*@p%d", &t) == 1) return t;
  return -1;
}

/* The pause of "*@pT": a driver waits for heat_paused, acts (kills a host), creates heat_go.
 * Sleeps, not MPI calls: a failure meanwhile is seen by the exchange after the pause. Bounded
 * so a driver that never answers costs 60 s, not the job; heat_go stays, so a replacement or a
 * roll back that reaches step T again goes straight on. */
static void pause_here(void) {
  char paused[600], go[600];
  snprintf(paused, sizeof paused, "%s/heat_paused", getenv("PIDDIR"));
  snprintf(go, sizeof go, "%s/heat_go", getenv("PIDDIR"));
  if (access(go, F_OK) == 0) return;
  if (wrank == 0) {
    FILE *f = fopen(paused, "w");
    if (f) fclose(f);
  }
  for (int i = 0; i < 6000 && access(go, F_OK) != 0; i++) usleep(10000);
  if (access(go, F_OK) != 0) fprintf(stderr, "heat: rank %d: no %s within 60 s, going on\n", wrank, go);
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

/* Save number of the next FTCKPT_Save (the library's counter), for kills inside a save. */
static int next_save;

/* Repair, roll back, take over the rows of the new block. Returns, or exits when nothing can
 * be recovered. Another failure meanwhile starts over: Recover accumulates failures. Every
 * process makes the same collective calls whatever happened to it, so nobody waits in one
 * for a process that went back to the repair. */
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
    static int map[4096];
    int old_size, old_rank, level, same = 1;
    FTCKPT_Recovery_info(&old_size, &old_rank, 4096, map, &level);
    int saved_step = step; /* id 1 was rolled back by Recover (same size) */
    double *restored = u;
    allocate_block();
    /* REBUILD (or a roll back without a loss): the same decomposition, and Recover already
     * put every process's own rows (a replacement's from the survivors) into the buffer
     * protected until now. Fresh buffers all the same: in CONT mode a halo receive from
     * before the failure may still be pending on the old ones. */
    for (int o = 0; o < old_size; o++) same = same && old_size == size && map[o] == o;
    if (same) memcpy(u + NX, restored + NX, sizeof(double) * (size_t)(hi - lo) * NX);
    for (int o = 0; o < old_size && !same; o++) {
      int olo, ohi;
      block(o, old_size, &olo, &ohi);
      int a = olo > lo ? olo : lo, b = ohi < hi ? ohi : hi;
      double *tmp_rows = a < b ? malloc(sizeof(double) * (size_t)(ohi - olo) * NX) : NULL;
      int frc = FTCKPT_Fetch(o, 0, tmp_rows, (ohi - olo) * NX, MPI_DOUBLE); /* collective: all call it */
      if (frc == MPI_SUCCESS && tmp_rows)
        memcpy(u + (size_t)(a - lo + 1) * NX, tmp_rows + (size_t)(a - olo) * NX, sizeof(double) * (size_t)(b - a) * NX);
      if (rc == MPI_SUCCESS) rc = frc;
      free(tmp_rows);
    }
    /* Agree that everyone got here before switching tags (collectives are atomic); a
     * replacement learns the generation here too. */
    int st[2] = {generation + 1, rc != MPI_SUCCESS};
    if (MPI_Allreduce(MPI_IN_PLACE, st, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS || st[1]) continue;
    generation = st[0];
    *failures_seen = generation; /* one per successful recovery, agreed (rank 0 may be new) */
    next_save = k + 1;
    if (rank == 0)
      printf("heat: recovered save %d (step %d, level %d) saved by %d ranks; continuing on %d\n", k,
             saved_step, level, old_size, size);
    fflush(stdout);
    return;
  }
  fprintf(stderr, "heat: rank %d: recovery keeps failing\n", wrank);
  MPI_Abort(MPI_COMM_WORLD, 4);
}

/* FTCKPT_Save, and the kills inside a save. */
static int save(const char *kills) {
  int kill = pending_kill(kills, 'd', next_save);
  if (kill >= 0) mark_kill(kill, 1), FTCKPT_Test_kill_in_save(next_save);
  int rc = FTCKPT_Save();
  if (kill >= 0) mark_kill(kill, 0), FTCKPT_Test_kill_in_save(-1); /* the save failed before */
  if (rc == MPI_SUCCESS) next_save++;
  if (rc == MPI_SUCCESS && wrank == 0 && getenv("PIDDIR")) {
    /* For drivers that kill from outside: from now on a loss is recoverable. */
    char path[600];
    snprintf(path, sizeof path, "%s/heat_saved", getenv("PIDDIR"));
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
  }
  return rc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  int steps = argc > 1 ? atoi(argv[1]) : 200, every = argc > 2 ? atoi(argv[2]) : 10;
  const char *kills = argc > 3 ? argv[3] : "-";
  int pause_at = pause_step(kills);
  if (pause_at >= 0 && !getenv("PIDDIR")) {
    if (wrank == 0) fprintf(stderr, "heat: *@p%d needs PIDDIR (the directory of the pause markers)\n", pause_at);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  FTCKPT_Config cfg;
  FTCKPT_Config_default(&cfg);
  cfg.df = argc > 4 ? atoi(argv[4]) : 2;
  cfg.sd = argc > 5 ? atoi(argv[5]) : 2;
  /* HEAT_RANKS_PER_HOST=R (tests on one machine): ranks 0..R-1 name their host fake-0,
   * R..2R-1 fake-1, ...; ftckpt then keeps every copy off its owner's (fake) host. */
  const char *per_host = getenv("HEAT_RANKS_PER_HOST");
  if (per_host && atoi(per_host) > 0) {
    char fake[32];
    snprintf(fake, sizeof fake, "fake-%d", wrank / atoi(per_host));
    FTCKPT_Test_host_name(fake);
  }
  /* A replacement's Init is local; its data comes with its first Recover. */
  if (FTCKPT_Init(MPI_COMM_WORLD, &cfg) != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
  int hosts = 1, host_tol = 0, rank_tol = 0;
  FTCKPT_Tolerated(&rank_tol);
  if (FTCKPT_Tolerated_hosts(&hosts, &host_tol) == MPI_SUCCESS && hosts > 1 && wrank == 0)
    printf("heat: %d hosts: ftckpt tolerates %d whole host(s) or %d process(es) lost at once\n", hosts, host_tol,
           rank_tol), fflush(stdout); /* before a SIGKILL can drop the buffer */
  FTCKPT_Protect(1, &step, 1, MPI_INT);
  allocate_block();
  initial_rows(u + NX, lo, hi);

  int failures_seen = 0, rc, init_state = FTMPI_INIT_NEW, kill;
  FTMPI_Init_state(&init_state);
  if (init_state == FTMPI_INIT_RESTARTED) {
    step = -1;
    recover(&failures_seen); /* the survivors' repair call and Recover, from the start */
    printf("heat: rank %d: replacement resumes at step %d\n", wrank, step);
    fflush(stdout);
  }
  for (step = step < 0 ? 0 : step; step <= steps;) {
    /* Save at the start of every EVERY-th step, step 0 included. After a recovery the
     * recovered step is saved again at once: the new copies follow the new decomposition
     * and communicator, so full tolerance returns without waiting EVERY steps. The step
     * itself is protected (id 1), so save numbers need not map to steps. */
    rc = step % every == 0 ? save(kills) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && step == steps) break;
    if (rc == MPI_SUCCESS && (kill = pending_kill(kills, 's', step)) >= 0) mark_kill(kill, 1), raise(SIGKILL);
    if (rc == MPI_SUCCESS && step == pause_at) pause_here();
    if (rc == MPI_SUCCESS) rc = exchange_halos();
    int bad = rc != MPI_SUCCESS, anybody = 1;
    if (MPI_Allreduce(&bad, &anybody, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS || anybody) {
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
