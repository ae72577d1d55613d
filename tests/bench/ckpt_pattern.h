/* Shared by the checkpoint benchmarks (ckpt_save, ckpt_levels, ckpt_rebuild): a monotonic clock
 * and the data a rank protects at save k, cheap to generate, different per rank and save, and
 * checkable word by word after a recovery. */
#ifndef FTMPI_BENCH_CKPT_PATTERN_H
#define FTMPI_BENCH_CKPT_PATTERN_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void fill(uint64_t *v, size_t words, int owner, long k)
{
    uint64_t base = ((uint64_t)owner << 48) ^ ((uint64_t)k << 32);
    for (size_t i = 0; i < words; i++)
        v[i] = base ^ i;
}

/* Words of v that differ from what fill(v, words, owner, k) wrote. */
static size_t count_bad(const uint64_t *v, size_t words, int owner, long k)
{
    uint64_t base = ((uint64_t)owner << 48) ^ ((uint64_t)k << 32);
    size_t bad = 0;
    for (size_t i = 0; i < words; i++)
        bad += v[i] != (base ^ i);
    return bad;
}

#endif
