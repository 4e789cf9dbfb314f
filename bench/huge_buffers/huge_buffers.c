/*
 * huge_buffers.c -- what transparent huge pages would change for a 64 MiB
 * bandwidth buffer: the time to fault it in (MADV_POPULATE_WRITE) on 4 KiB
 * pages (MADV_NOHUGEPAGE) and on huge pages (MADV_HUGEPAGE), and the best of
 * 15 read passes after (a sum in four independent chains, as
 * mem_bandwidth op=read).  Its question: could a 64 MiB buffer be built
 * faster without changing the figure?  (Zen 4 guest, 2026-11-28, two runs
 * of 3 rounds: 17-21 ms against 5.5-10 ms, the first huge build 96-129 ms
 * while the kernel compacted; the read 35.2-39.9 GB/s against 39.4-43.3:
 * huge pages read 8-15 % faster, a different figure from lmbench3's bw_mem,
 * whose malloc gets 4 KiB pages.)
 *
 * usage: huge_buffers [ROUNDS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    const size_t n = 64ul << 20, huge = 2ul << 20;
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    volatile uint64_t sink = 0;
    for (int r = 0; r < rounds; r++) {
        for (int h = 0; h < 2; h++) {
            double t0 = now();
            char *raw = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                             -1, 0);
            if (raw == MAP_FAILED) {
                perror("mmap");
                return 1;
            }
            char *p = (char *)(((uintptr_t)raw + huge - 1) & ~(huge - 1));
            madvise(p, n, h ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
            if (madvise(p, n, MADV_POPULATE_WRITE) != 0) {
                perror("madvise(MADV_POPULATE_WRITE)");
                return 1;
            }
            double built = now() - t0, best = 1e9;
            const uint64_t *q = (const uint64_t *)p;
            for (int k = 0; k < 15; k++) {
                double a = now();
                uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
                for (size_t i = 0; i < n / 8; i += 4) {
                    s0 += q[i];
                    s1 += q[i + 1];
                    s2 += q[i + 2];
                    s3 += q[i + 3];
                }
                sink += s0 + s1 + s2 + s3;
                double b = now() - a;
                if (b < best)
                    best = b;
            }
            printf("%s pages: built in %.1f ms, best read pass %.2f ms (%.0f MB/s)\n",
                   h ? "huge" : "4 KiB", built * 1e3, best * 1e3, n / best / 1e6);
            munmap(raw, n + huge);
        }
    }
    return (int)(sink & 0);
}
