/*
 * store_loops.c -- how much of a write bandwidth is the loop's?
 *
 * One 64 MiB anonymous buffer (small pages) written whole again and again by
 * three loops of the same 8-byte stores: one store a loop turn with the
 * stride read at run time (benchlib's write before 2026-11-27), four a turn
 * (benchlib's read, write and rmw since), and eight a turn with the stride
 * fixed; then 32-byte AVX stores, two a line, for comparison.  Every pass
 * writes a new non-zero value (see ../zero_stores).  Each loop: 15 passes
 * after one, their median in MB/s (10^6 bytes); the order turns every
 * round.  Our own program.  Usage: store_loops [ROUNDS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "median_timing.h"
#include <immintrin.h>

#define BYTES ((size_t)64 << 20)
#define PASSES 15
#define LOOPS 4

static volatile size_t run_time_step = 1; /* the compiler cannot see it is 1 */


__attribute__((noinline)) static void one_a_turn(uint64_t *s, size_t n, uint64_t v)
{
    size_t step = run_time_step;
    for (size_t i = 0; i < n; i += step)
        s[i] = v;
    __asm__ volatile("" : : "r"(s) : "memory");
}

__attribute__((noinline)) static void four_a_turn(uint64_t *s, size_t n, uint64_t v)
{
    size_t step = run_time_step, i = 0, n4 = n - n % (4 * step);
    for (; i < n4; i += 4 * step) {
        s[i] = v;
        s[i + step] = v;
        s[i + 2 * step] = v;
        s[i + 3 * step] = v;
    }
    for (; i < n; i += step)
        s[i] = v;
    __asm__ volatile("" : : "r"(s) : "memory");
}

__attribute__((noinline)) static void eight_a_turn(uint64_t *s, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i += 8) {
        s[i] = v; s[i + 1] = v; s[i + 2] = v; s[i + 3] = v;
        s[i + 4] = v; s[i + 5] = v; s[i + 6] = v; s[i + 7] = v;
        __asm__ volatile("" : : "r"(s + i) : "memory");  /* keeps them 8-byte stores */
    }
}

__attribute__((noinline, target("avx2"))) static void avx_two_a_line(uint64_t *s, size_t n,
                                                                    uint64_t v)
{
    __m256i x = _mm256_set1_epi64x((long long)v);
    for (size_t i = 0; i < n; i += 8) {
        _mm256_store_si256((__m256i *)(s + i), x);
        _mm256_store_si256((__m256i *)(s + i + 4), x);
    }
    __asm__ volatile("" : : "r"(s) : "memory");
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    uint64_t *p = small_pages(BYTES);
    memset(p, 1, BYTES);
    void (*loop[LOOPS])(uint64_t *, size_t, uint64_t) = {one_a_turn, four_a_turn, eight_a_turn,
                                                         avx_two_a_line};
    static const char *name[LOOPS] = {"one a turn", "four a turn", "eight a turn",
                                      "AVX, two a line"};
    int avx = __builtin_cpu_supports("avx2");
    unsigned value = 1;
    for (int r = 0; r < rounds; r++) {
        double median[LOOPS] = {0};
        for (int k = 0; k < LOOPS; k++) {
            int j = (k + r) % LOOPS;
            if (j == 3 && !avx)
                continue;
            double mb_s[PASSES];
            value = value % 255 + 1;
            loop[j](p, BYTES / 8, value);
            for (int i = 0; i < PASSES; i++) {
                value = value % 255 + 1;
                double t0 = now_ns();
                loop[j](p, BYTES / 8, value);
                double t1 = now_ns();
                mb_s[i] = BYTES / (t1 - t0) * 1e3;
            }
            median[j] = median_of(mb_s, PASSES);
        }
        printf("round %d:", r);
        for (int j = 0; j < LOOPS; j++) {
            if (median[j] > 0)
                printf(" %s %.0f", name[j], median[j]);
            else
                printf(" %s n/a", name[j]);
            printf("%s", j + 1 < LOOPS ? " |" : " MB/s\n");
        }
        fflush(stdout);
    }
    munmap(p, BYTES);
    return 0;
}
