/*
 * buffer.c -- the memory the memory benchmarks measure: mapped, aligned to
 * 2 MiB, every page faulted in before any timing, and returned at once.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static int populate_write(char *base, size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return madvise(base, (bytes + page - 1) & ~(page - 1), MADV_POPULATE_WRITE);
}

int bl_buffer_map(bl_buffer *b, size_t bytes, int huge)
{
    /* Whole 2 MiB units, so that even a small buffer can be one huge page:
     * THP backs only aligned 2 MiB ranges that are entirely advised. */
    size_t advised = (bytes + BL_HUGE_ALIGN - 1) & ~(BL_HUGE_ALIGN - 1);
    b->map_len = advised + BL_HUGE_ALIGN;
    b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b->map == MAP_FAILED) {
        bl_set_error("cannot map %zu bytes: %s", bytes, strerror(errno));
        return BL_ENOMEM;
    }
    b->base = (char *)(((uintptr_t)b->map + BL_HUGE_ALIGN - 1) & ~(uintptr_t)(BL_HUGE_ALIGN - 1));
#ifdef MADV_HUGEPAGE
    madvise(b->base, advised, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
#endif
    /* Every page faulted in now, in one call where the kernel can (Linux
     * 5.14: a 64 MiB buffer in 28 ms where a write fault per page takes 39
     * on the Zen 4 KVM guest), else by writing it.  The pages are the same
     * either way: zeroed, private, and of the size the advice above asks. */
    if (populate_write(b->base, bytes) != 0)
        memset(b->base, 0, bytes);
    return BL_OK;
}

void bl_buffer_unmap(bl_buffer *b)
{
    if (b->map && b->map != MAP_FAILED)
        munmap(b->map, b->map_len);
}

/* The mappings are listed in address order, so the reading stops at the
 * first one past the range: the kernel formats (and walks the page tables
 * of) each mapping only as it is read, and the worker's libraries lie above
 * an anonymous mapping (a full read cost more than the chase itself at a
 * small size: about 2 ms of a point's 8). */
size_t bl_huge_bytes(const void *addr, size_t len)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[256];
    uintptr_t a = (uintptr_t)addr, lo, hi;
    int inside = 0;
    size_t total = 0;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ' ') &&
            line[strspn(line, "0123456789abcdef")] == '-') {
            if (lo >= a + len)
                break;
            inside = lo < a + len && hi > a;
        } else if (inside && strncmp(line, "AnonHugePages:", 14) == 0) {
            total += strtoull(line + 14, NULL, 10) * 1024;
        }
    }
    fclose(f);
    return total;
}
