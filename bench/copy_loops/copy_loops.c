/* How fast two shapes of a word-by-word copy move 64 MiB between two
 * buffers: benchlib's own (csrc/internal.h bl_copy_words, mem_bandwidth
 * op=copy_unrolled: eight 8-byte words an iteration, built -O2 as benchlib
 * is) against one 8-byte word an iteration (b[i] = a[i]), the shape of
 * mbw's "dumb" test.  Both
 * make the same loads and stores; the one-word loop runs four times the
 * loop instructions per cache line.  The mbw word-loop pair of
 * bench/compare_perf.py differs by this (docs/peers.md).
 *
 *     bash bench/copy_loops/run.sh
 *
 * The buffers lie 16 bytes into a page, as malloc places mbw's. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#if PART == 1
/* built with loop distribution and vectorisation off, so that it stays one
 * word an iteration and does not become a call to memcpy */
void one_word(uint64_t *d, const uint64_t *s, size_t words)
{
    for (size_t i = 0; i < words; i++)
        d[i] = s[i];
}
#elif PART == 2
#include "internal.h" /* benchlib's own loop, not a copy of it */
void eight_words(uint64_t *d, const uint64_t *s, size_t words) { bl_copy_words(d, s, words); }
#else
void one_word(uint64_t *d, const uint64_t *s, size_t words);
void eight_words(uint64_t *d, const uint64_t *s, size_t words);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    const size_t bytes = 64 << 20, map = bytes + 4096;
    char *a = mmap(0, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    char *b = mmap(0, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED || b == MAP_FAILED)
        return perror("copy_loops"), 1;
    memset(a, 1, map);
    memset(b, 2, map);
    uint64_t *s = (uint64_t *)(a + 16), *d = (uint64_t *)(b + 16);
    enum { R = 21 };
    double one[R], eight[R];
    for (int r = 0; r < R; r++) { /* alternated */
        double t = now();
        one_word(d, s, bytes / 8);
        one[r] = now() - t;
        t = now();
        eight_words(d, s, bytes / 8);
        eight[r] = now() - t;
    }
    qsort(one, R, sizeof *one, cmp);
    qsort(eight, R, sizeof *eight, cmp);
    printf("64 MiB copied (counted once), median of %d alternated passes: eight words an "
           "iteration (-O2) %.0f MB/s, one word (-O2, no distribution or vectorising) %.0f MB/s, "
           "ratio %.3f\n", R, bytes / eight[R / 2] / 1e6, bytes / one[R / 2] / 1e6,
           one[R / 2] / eight[R / 2]);
    return 0;
}
#endif
