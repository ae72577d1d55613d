/* The kill time of a victim, shared by the fault-injection tests of this folder: the victim
 * writes CLOCK_MONOTONIC (one clock for every process of this host) to $PIDDIR/killtime just
 * before it SIGKILLs itself; survivors read it to tell how long detection took. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static inline double mono(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static inline const char *killtime_path(void) {
  static char path[512];
  snprintf(path, sizeof path, "%s/killtime", getenv("PIDDIR") ? getenv("PIDDIR") : "/tmp");
  return path;
}

static inline void write_killtime(void) {
  FILE *f = fopen(killtime_path(), "w");
  if (f) { fprintf(f, "%.9f\n", mono()); fclose(f); }
}

/* Waits up to about `tries` ms for the file; 0 when it never appears. */
static inline double read_killtime(int tries) {
  for (int i = 0; i < tries; i++) {
    FILE *f = fopen(killtime_path(), "r");
    double t = 0;
    if (f && fscanf(f, "%lf", &t) == 1) { fclose(f); return t; }
    if (f) fclose(f);
    usleep(1000);
  }
  return 0;
}
