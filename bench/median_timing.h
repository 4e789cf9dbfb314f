/*
 * median_timing.h -- the clock and the median of bench/'s small C programs
 * (zero_stores, store_loops): header-only, our own.
 */
#ifndef BENCH_MEDIAN_TIMING_H
#define BENCH_MEDIAN_TIMING_H

#include <stdlib.h>
#include <time.h>

static inline double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static inline int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n values (sorts them in place; n odd in our programs). */
static inline double median_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return v[n / 2];
}

#endif
