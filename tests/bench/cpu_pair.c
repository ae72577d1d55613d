/* cpu_pair.c — how fast a cache line moves between two CPUs right now, without any MPI.
 *
 * Two threads, pinned to CPU a and CPU b, bounce a counter (one line each way, as a message
 * ring's header does) for `seconds`, in windows of 2000 round trips; prints the median
 * window's half round trip in nanoseconds. run.sh runs it right before and right after every
 * ping-pong run, because on a virtual machine the same two vCPUs are sometimes close (they
 * share a core's caches or an L3) and sometimes far apart on the host, and every MPI's small-
 * message latency follows that placement (on the 2-vCPU EPYC VM of the README: ~0.1 µs or
 * ~0.34 µs for ftmpi and Open MPI alike); a ping-pong figure means little without it.
 *
 *   cpu_pair [a b [seconds]]     (default 0 1 0.2)   prints "CPUPAIR a=.. b=.. ns=.."
 * Exit 2 with a usage line on bad arguments; 1 if pinning fails (fewer than two CPUs). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WINDOW 2000L
#define MAX_WINDOWS 4096

static _Alignas(64) _Atomic long ping;
static _Alignas(64) _Atomic long pong;
static _Atomic int echo_failed; /* the echo thread could not be pinned: nobody answers */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    return pthread_setaffinity_np(pthread_self(), sizeof s, &s) == 0;
}

static void *echo(void *arg)
{
    if (!pin(*(int *)arg)) {
        atomic_store(&echo_failed, 1);
        return NULL;
    }
    for (long i = 1;; i++) {
        long v;
        while ((v = atomic_load_explicit(&ping, memory_order_acquire)) < i)
            if (v < 0) /* the end */
                return NULL;
        atomic_store_explicit(&pong, i, memory_order_release);
    }
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int number(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return end != s && *end == '\0';
}

int main(int argc, char **argv)
{
    double a = 0, b = 1, seconds = 0.2;
    if ((argc != 1 && argc != 3 && argc != 4) || (argc >= 3 && (!number(argv[1], &a) || !number(argv[2], &b))) ||
        (argc == 4 && !number(argv[3], &seconds)) || a < 0 || b < 0 || a > 4095 || b > 4095 || a == b ||
        seconds <= 0 || seconds > 60) {
        fprintf(stderr, "usage: cpu_pair [cpu_a cpu_b [seconds]]   (two different CPUs, 0 < seconds <= 60)\n");
        return 2;
    }
    int cpu_a = (int)a, cpu_b = (int)b;
    pthread_t t;
    if (pthread_create(&t, NULL, echo, &cpu_b) != 0 || !pin(cpu_a)) {
        fprintf(stderr, "cpu_pair: cannot run on CPUs %d and %d\n", cpu_a, cpu_b);
        return 1;
    }
    static double ns[MAX_WINDOWS];
    int n = 0;
    long i = 0;
    const double end = now() + seconds;
    while (n < MAX_WINDOWS && now() < end) {
        double t0 = now();
        long k = 0;
        for (; k < WINDOW && (k % 64 != 0 || now() < end); k++) {
            atomic_store_explicit(&ping, ++i, memory_order_release);
            while (atomic_load_explicit(&pong, memory_order_acquire) < i)
                if (atomic_load_explicit(&echo_failed, memory_order_relaxed))
                    goto pinned_out;
        }
        if (k > 0)
            ns[n++] = (now() - t0) / (double)k / 2 * 1e9;
    }
pinned_out:
    atomic_store_explicit(&ping, -1, memory_order_release);
    pthread_join(t, NULL);
    if (atomic_load(&echo_failed)) {
        fprintf(stderr, "cpu_pair: cannot pin a thread to CPU %d\n", cpu_b);
        return 1;
    }
    if (n == 0) { /* not one round trip in `seconds`: the CPUs are busy with other work */
        printf("CPUPAIR a=%d b=%d windows=0 ns=nan min_ns=nan\n", cpu_a, cpu_b);
        return 0;
    }
    qsort(ns, (size_t)n, sizeof *ns, cmp);
    printf("CPUPAIR a=%d b=%d windows=%d ns=%.1f min_ns=%.1f\n", cpu_a, cpu_b, n, ns[n / 2], ns[0]);
    return 0;
}
