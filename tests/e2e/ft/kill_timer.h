/* A delayed SIGKILL from a thread, for tests that want a death to land anywhere in what the
 * process does next (inside a collective, a repair, MPI_Init). Header-only: each test program
 * includes it once.
 *
 * kill_timer_start(us): the process SIGKILLs itself `us` microseconds from now (at once if 0).
 * kill_timer_disarm(): call before MPI_Finalize. A timer that has not fired by then never
 *   fires: a process killed after MPI_Finalize is a rank that finalized and then exited badly,
 *   which mpirun rightly reports as the job's exit code (137), not a failure the survivors
 *   repair. On a loaded machine a 20 ms timer's thread can wake only after the victim finished
 *   its whole loop (ft.hang_window.shrink_three.x10: exit 137 with one victim's death missing
 *   from mpirun's report), so the test must say "not at all" rather than "too late".
 * The lock makes the two exclusive: the killer raises while holding it, so once disarm holds it
 * the process either is already dead or will not be killed. */
#pragma once

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t kill_timer_lock = PTHREAD_MUTEX_INITIALIZER;
static int kill_timer_disarmed;
static int kill_timer_armed;

static void *kill_timer_thread(void *arg) {
  const long us = (long)arg;
  if (us > 0) usleep((useconds_t)us);
  pthread_mutex_lock(&kill_timer_lock);
  if (!kill_timer_disarmed) raise(SIGKILL);
  pthread_mutex_unlock(&kill_timer_lock);
  return NULL;
}

static void kill_timer_start(long us) {
  if (us <= 0) raise(SIGKILL);
  kill_timer_armed = 1;
  pthread_t t;
  pthread_create(&t, NULL, kill_timer_thread, (void *)us);
  pthread_detach(t);
}

static void kill_timer_disarm(void) {
  pthread_mutex_lock(&kill_timer_lock);
  kill_timer_disarmed = 1;
  pthread_mutex_unlock(&kill_timer_lock);
  /* Said on stderr: the run then had one death fewer than asked for. */
  if (kill_timer_armed) fprintf(stderr, "kill_timer: pid %ld reached MPI_Finalize before its timer fired: not killed\n", (long)getpid());
}
