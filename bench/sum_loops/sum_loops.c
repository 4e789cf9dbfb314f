/* How fast two ways of summing a file's words read a 64 MiB file mapped once
 * (the page cache's pages, no fault): benchlib's loop (csrc/internal.h bl_sum_words:
 * four independent 64-bit chains, built -O2 as benchlib is) against the
 * other shape docs/peers.md describes for the peer's file pairs: each
 * 128-word block summed as one expression of 128 terms, built -O.  The file
 * pairs of bench/compare_perf.py differ by this (docs/peers.md).
 *
 *     bash bench/sum_loops/run.sh [DIR]     # the file goes in DIR (default /tmp)
 *
 * Written for benchlib; no code of the peer's. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#if PART == 1
#define S4(i) p[i] + p[i + 1] + p[i + 2] + p[i + 3]
#define S16(i) S4(i) + S4(i + 4) + S4(i + 8) + S4(i + 12)
#define S64(i) S16(i) + S16(i + 16) + S16(i + 32) + S16(i + 48)
long block_sums(const long *p, size_t words)
{
    long s = 0;
    for (const long *end = p + words; p + 128 <= end; p += 128)
        s += S64(0) + S64(64);
    return s;
}
#elif PART == 2
#include "internal.h" /* benchlib's own loop, not a copy of it */
uint64_t four_chains(const uint64_t *p, size_t words) { return bl_sum_words(p, words); }
#else
long block_sums(const long *p, size_t words);
uint64_t four_chains(const uint64_t *p, size_t words);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const size_t bytes = 64 << 20, chunk = 16 << 10;
    char path[4096];
    snprintf(path, sizeof path, "%s/sum_loops.%d", argc > 1 ? argv[1] : "/tmp", (int)getpid());
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    char *b = malloc(chunk);
    if (fd < 0 || !b)
        return perror("sum_loops"), 1;
    memset(b, 'x', chunk);
    for (size_t done = 0; done < bytes; done += chunk)
        if (write(fd, b, chunk) != (ssize_t)chunk)
            return perror("write"), unlink(path), 1;
    close(fd);
    fd = open(path, O_RDONLY);
    void *m = mmap(0, bytes, PROT_READ, MAP_SHARED, fd, 0);
    unlink(path);
    if (m == MAP_FAILED)
        return perror("mmap"), 1;
    volatile uint64_t sink = 0;
    double four = 1e9, block = 1e9;
    for (int r = 0; r < 31; r++) { /* alternated; the fastest pass of each */
        double t = now();
        sink += four_chains(m, bytes / 8);
        t = now() - t;
        four = t < four ? t : four;
        t = now();
        sink += (uint64_t)block_sums(m, bytes / 8);
        t = now() - t;
        block = t < block ? t : block;
    }
    printf("a 64 MiB file mapped once: four chains (-O2) %.0f MB/s, 128-term blocks (-O) %.0f MB/s, "
           "ratio %.3f\n", bytes / four / 1e6, bytes / block / 1e6, block / four);
    return 0;
}
#endif
