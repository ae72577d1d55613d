/* CHECK and OK for test programs whose threads call MPI at once: a failed check prints the
 * program, rank and line, and counts into `failures` under a lock (threads_construct.c,
 * threads_nbc.c, threads_create_group.c). Define CHECK_PROGRAM (the program's name, a string)
 * and declare `static int rank;` before including this. */
#pragma once

#include <pthread.h>
#include <stdio.h>

static int failures;
static pthread_mutex_t failures_lock = PTHREAD_MUTEX_INITIALIZER;

#define CHECK(c, ...)                                                              \
  do {                                                                             \
    if (!(c)) {                                                                    \
      fprintf(stderr, CHECK_PROGRAM ": rank %d: FAIL line %d: ", rank, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                                \
      fputc('\n', stderr);                                                         \
      pthread_mutex_lock(&failures_lock);                                          \
      failures++;                                                                  \
      pthread_mutex_unlock(&failures_lock);                                        \
    }                                                                              \
  } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS, "%s failed", #call)
