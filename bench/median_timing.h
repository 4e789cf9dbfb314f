/*
 * median_timing.h -- the clock, the median and the buffer of bench/'s small
 * C programs (zero_stores, store_loops): header-only, our own.
 */
#ifndef BENCH_MEDIAN_TIMING_H
#define BENCH_MEDIAN_TIMING_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
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

/* bytes of anonymous memory on small pages (no transparent huge pages);
 * exits with a message when the system refuses. */
static inline void *small_pages(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    madvise(p, bytes, MADV_NOHUGEPAGE);
    return p;
}

#endif
