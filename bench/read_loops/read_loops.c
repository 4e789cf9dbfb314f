/* How fast three loops read one 64 MiB buffer of 4 KiB pages, passes
 * interleaved on the same buffer at the same moments:
 *   dense:    benchlib's mem_bandwidth read (csrc/internal.h bl_read_words:
 *             four independent 64-bit sums, every 8-byte word), -O2 as
 *             benchlib is built;
 *   stride16: the same loop, one 8-byte word every 16 bytes
 *             (mem_bandwidth stride_bytes=16 counting=buffer);
 *   block32:  the other shape docs/peers.md describes for the peer's
 *             64 MiB read: one 4-byte int every 16 bytes, each 512-byte
 *             block summed as one expression of 32 terms into one int,
 *             built -O.
 * Each counts the whole buffer a pass.  After SETTLE_MS of untimed passes
 * (a fresh buffer reads slower at first: bench/fresh_buffer_ramp), ROUNDS
 * rounds each time one pass of every loop, in a new order each round.
 * Prints each loop's median GB/s and the median over rounds of each loop's
 * ratio to stride16.
 *
 *     bash bench/read_loops/run.sh [ROUNDS] [SETTLE_MS]
 *
 * Written for benchlib; no code of the peer's. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if PART == 1
#define T4(i) p[i] + p[i + 4] + p[i + 8] + p[i + 12]
#define T16(i) T4(i) + T4(i + 16) + T4(i + 32) + T4(i + 48)
int block32(const int *p, size_t ints)
{
    int sum = 0;
    for (const int *last = p + ints - 128; p <= last; p += 128)
        sum += T16(0) + T16(64);
    return sum;
}
#elif PART == 2
#include "internal.h" /* benchlib's own loop, not a copy of it */
uint64_t benchlib_read(const uint64_t *s, size_t words, size_t step)
{
    return bl_read_words(s, words, step);
}
#else
int block32(const int *p, size_t ints);
uint64_t benchlib_read(const uint64_t *s, size_t words, size_t step);

#include "internal.h" /* bl_now_ns, benchlib's clock */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static volatile uint64_t sink;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void pass(int loop, const void *buf, size_t bytes)
{
    if (loop == 0)
        sink += benchlib_read(buf, bytes / 8, 1);
    else if (loop == 1)
        sink += benchlib_read(buf, bytes / 8, 2);
    else
        sink += (uint64_t)block32(buf, bytes / 4);
}

int main(int argc, char **argv)
{
    const char *names[] = {"dense", "stride16", "block32"};
    int rounds = argc > 1 ? atoi(argv[1]) : 150;
    double settle_ms = argc > 2 ? atof(argv[2]) : 300;
    size_t bytes = (size_t)64 << 20, align = (size_t)2 << 20;
    char *map = mmap(NULL, bytes + align, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED || rounds < 1) {
        fprintf(stderr, "read_loops: cannot map the buffer, or ROUNDS < 1\n");
        return 1;
    }
    char *buf = (char *)(((uintptr_t)map + align - 1) & ~(uintptr_t)(align - 1));
    madvise(buf, bytes, MADV_NOHUGEPAGE);
    madvise(buf, bytes, MADV_POPULATE_WRITE);
    memset(buf, 1, bytes);
    for (double t0 = bl_now_ns(); bl_now_ns() - t0 < settle_ms * 1e6;)
        pass(0, buf, bytes);
    double *gbs[3], *ratio[3];
    for (int l = 0; l < 3; l++) {
        gbs[l] = malloc(sizeof(double) * (size_t)rounds);
        ratio[l] = malloc(sizeof(double) * (size_t)rounds);
    }
    srand(1);
    for (int r = 0; r < rounds; r++) {
        int order[3] = {0, 1, 2};
        for (int i = 2; i > 0; i--) {
            int j = rand() % (i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < 3; i++) {
            double t0 = bl_now_ns();
            pass(order[i], buf, bytes);
            gbs[order[i]][r] = (double)bytes / (bl_now_ns() - t0);
        }
        for (int l = 0; l < 3; l++)
            ratio[l][r] = gbs[l][r] / gbs[1][r];
    }
    for (int l = 0; l < 3; l++)
        printf("%-9s %6.2f GB/s  against stride16 %.3f\n", names[l], median(gbs[l], rounds),
               median(ratio[l], rounds));
    return 0;
}
#endif
