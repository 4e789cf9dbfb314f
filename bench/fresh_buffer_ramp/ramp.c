/*
 * ramp.c -- how a freshly built 64 MiB buffer's passes speed up: build the
 * buffer as mem_bandwidth does (4 KiB pages, MADV_POPULATE_WRITE, filled
 * with ones), optionally sleep, then time PASSES passes one by one and
 * print the build's ms, then each pass's GB/s and the core clock just after it (a 100,000-add
 * dependent chain: if the core's clock moved, the climb would be the
 * core's).  One line a build, BUILDS builds, each from a new mapping.
 *
 * op: read (mem_bandwidth op=read's loop, bl_read_words), write (four
 * stores a turn, a new value a pass, as op=write) or copy (op=copy_unrolled's
 * loop, bl_copy_words, into a second buffer).  sleep_ms: the idle
 * time between the build and the first pass.
 *
 * Its question: how many passes does mem_bandwidth's settle need before
 * its samples read the buffer's steady speed, and is that a count of
 * passes or a time?  ramp.py reads the output.
 *
 * usage: ramp BUILDS PASSES read|write|copy [SLEEP_MS]
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h" /* benchlib's clock and its read and copy loops, not copies of them */

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define BYTES ((size_t)64 << 20)
#define ALIGN ((size_t)2 << 20)

static volatile uint64_t sink;

/* GHz: 100,000 dependent adds, one a cycle */
static double core_ghz(void)
{
    uint64_t x = 1;
    double t0 = bl_now_ns();
    for (int i = 0; i < 20000; i++)
        __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                         : "+r"(x));
    double t = bl_now_ns() - t0;
    sink = x;
    return 100000.0 / t;
}

static uint64_t *build(char **map)
{
    *map = mmap(NULL, BYTES + ALIGN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (*map == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    uint64_t *b = (uint64_t *)(((uintptr_t)*map + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
    madvise(b, BYTES, MADV_NOHUGEPAGE);
    if (madvise(b, BYTES, MADV_POPULATE_WRITE) != 0)
        memset(b, 0, BYTES);
    return b;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: ramp BUILDS PASSES read|write|copy [SLEEP_MS]\n");
        return 2;
    }
    int builds = atoi(argv[1]), passes = atoi(argv[2]);
    char op = argv[3][0];
    long sleep_ms = argc > 4 ? atol(argv[4]) : 0;
    size_t words = BYTES / 8;
    for (int k = 0; k < builds; k++) {
        char *m1, *m2 = NULL;
        double b0 = bl_now_ns();
        uint64_t *s = build(&m1), *d = NULL;
        memset(s, 1, BYTES);
        if (op == 'c')
            d = build(&m2);
        printf("build=%.2f ", (bl_now_ns() - b0) / 1e6);
        if (sleep_ms > 0) {
            struct timespec ts = {sleep_ms / 1000, (sleep_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL);
        }
        for (int p = 0; p < passes; p++) {
            double t0 = bl_now_ns();
            if (op == 'r') {
                sink = bl_read_words(s, words, 1);
            } else if (op == 'w') {
                uint64_t v = (uint64_t)(p % 255 + 1) * 0x0101010101010101ull;
                for (size_t i = 0; i < words; i += 4) {
                    s[i] = v;
                    s[i + 1] = v;
                    s[i + 2] = v;
                    s[i + 3] = v;
                }
                __asm__ volatile("" : : "r"(s) : "memory");
            } else {
                bl_copy_words(d, s, words);
                __asm__ volatile("" : : "r"(d) : "memory");
            }
            double gbs = (double)BYTES / (bl_now_ns() - t0);
            printf("%.4f/%.3f ", gbs, core_ghz());
        }
        printf("\n");
        munmap(m1, BYTES + ALIGN);
        if (m2)
            munmap(m2, BYTES + ALIGN);
    }
    return 0;
}
