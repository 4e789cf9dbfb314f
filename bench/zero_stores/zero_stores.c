/*
 * zero_stores.c -- is a memset of zeros the memory's write speed?
 *
 * One 64 MiB anonymous buffer (small pages), written whole by memset again
 * and again: the value 0 every pass over a buffer of zeros, the value 1
 * every pass over a buffer of ones, a value that changes every pass, or
 * zeros over a buffer that an untimed memset filled with ones just before
 * each pass.  Each of the four takes 15 passes after the buffer is set up,
 * and prints their median in MB/s (10^6 bytes); the order of the four
 * turns every round, so that a slow stretch of the host does not fall on
 * one.
 *
 * Our own program: it shows why benchlib's write and memset bandwidths
 * write a new, non-zero value every pass (benchlib/csrc/memory.c,
 * next_fill).  Usage: zero_stores [ROUNDS]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "median_timing.h"

#define BYTES ((size_t)64 << 20)
#define PASSES 15


#define KINDS 4

/* kind 0: zeros over zeros; 1: ones over ones; 2: a new value each pass;
 * 3: zeros over ones (refilled, untimed, before each pass) */
static double median_mb_s(char *p, int kind)
{
    double mb_s[PASSES];
    int base = kind == 0 || kind == 3 ? 0 : kind == 1 ? 1 : 7;
    memset(p, kind == 3 ? 1 : base, BYTES);
    __asm__ volatile("" : : "r"(p) : "memory");
    for (int i = 0; i < PASSES; i++) {
        int value = kind == 2 ? (i & 1 ? 3 : 5) : base;
        if (kind == 3) {
            memset(p, 1, BYTES);
            __asm__ volatile("" : : "r"(p) : "memory");
        }
        double t0 = now_ns();
        memset(p, value, BYTES);
        double t1 = now_ns();
        mb_s[i] = BYTES / (t1 - t0) * 1e3;
    }
    __asm__ volatile("" : : "r"(p) : "memory");
    return median_of(mb_s, PASSES);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 6;
    char *p = small_pages(BYTES);
    static const char *name[KINDS] = {"zeros over zeros", "ones over ones",
                                      "a new value each pass", "zeros over ones"};
    for (int r = 0; r < rounds; r++) {
        double v[KINDS];
        for (int k = 0; k < KINDS; k++) {
            int kind = (k + r) % KINDS;
            v[kind] = median_mb_s(p, kind);
        }
        printf("round %d:", r);
        for (int k = 0; k < KINDS; k++)
            printf(" %s %.0f%s", name[k], v[k], k + 1 < KINDS ? " |" : " MB/s\n");
        fflush(stdout);
    }
    munmap(p, BYTES);
    return 0;
}
