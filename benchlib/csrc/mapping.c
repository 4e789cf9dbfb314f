/*
 * mapping.c -- the virtual-memory calls on a file, one kind at a time, as
 * LEBench (Ren et al., SOSP 2019) defines its mmap, munmap and page-fault
 * tests: a file of file_bytes in the page cache, mapped MAP_PRIVATE.
 *
 *   mmap:       mmap(file_bytes, PROT_READ) of the file; the call alone.
 *   munmap:     munmap of a writable mapping every page of which was
 *               written first (each write a copy-on-write copy), so the
 *               call frees file_bytes of private pages; the call alone.
 *   page_fault: the first read of a fresh read-only mapping: one fault,
 *               with the pages the kernel maps around it (fault-around,
 *               fault_around_bytes, 64 KiB by default) in the same fault.
 *
 * What each call needs around it (making the mappings, writing their
 * pages, unmapping them) is done in batches outside the timing
 * (bl_untimed_begin/end): one iteration is one call.  A batch holds up to
 * 64 mappings; a munmap batch at most BATCH_BYTES of written pages.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_BATCH 64
#define BATCH_BYTES ((size_t)16 << 20)

typedef struct {
    int fd;
    int op;
    size_t bytes;
    size_t page;
    int batch;
    void *maps[MAX_BATCH];
} map_ctx;

static void unmap_all(map_ctx *c, int n)
{
    for (int j = 0; j < n; j++) {
        if (c->maps[j]) {
            munmap(c->maps[j], c->bytes);
            c->maps[j] = NULL;
        }
    }
}

/* n fresh mappings (untimed), writable and written when `dirty`. */
static int map_batch(map_ctx *c, int n, int dirty)
{
    for (int j = 0; j < n; j++) {
        void *p = mmap(NULL, c->bytes, dirty ? PROT_READ | PROT_WRITE : PROT_READ, MAP_PRIVATE,
                       c->fd, 0);
        if (p == MAP_FAILED) {
            unmap_all(c, j);
            return bl_sys_error("mmap");
        }
        c->maps[j] = p;
        if (dirty)
            for (size_t off = 0; off < c->bytes; off += c->page)
                ((volatile char *)p)[off] = 'b';
    }
    return BL_OK;
}

static int mmap_body(void *ctx, int64_t iters)
{
    map_ctx *c = ctx;
    for (int64_t done = 0; done < iters;) {
        int n = iters - done < c->batch ? (int)(iters - done) : c->batch;
        for (int j = 0; j < n; j++) {
            void *p = mmap(NULL, c->bytes, PROT_READ, MAP_PRIVATE, c->fd, 0);
            if (p == MAP_FAILED) {
                int rc = bl_sys_error("mmap");
                unmap_all(c, j);
                return rc;
            }
            c->maps[j] = p;
        }
        bl_untimed_begin();
        unmap_all(c, n);
        bl_untimed_end();
        done += n;
    }
    return BL_OK;
}

static int munmap_body(void *ctx, int64_t iters)
{
    map_ctx *c = ctx;
    for (int64_t done = 0; done < iters;) {
        int n = iters - done < c->batch ? (int)(iters - done) : c->batch;
        bl_untimed_begin();
        int rc = map_batch(c, n, 1);
        bl_untimed_end();
        if (rc != BL_OK)
            return rc;
        for (int j = 0; j < n; j++) {
            if (munmap(c->maps[j], c->bytes) != 0) {
                rc = bl_sys_error("munmap");
                unmap_all(c, n);
                return rc;
            }
            c->maps[j] = NULL;
        }
        done += n;
        if (bl_interrupted())
            return BL_EINTR;
    }
    return BL_OK;
}

static int fault_body(void *ctx, int64_t iters)
{
    map_ctx *c = ctx;
    for (int64_t done = 0; done < iters;) {
        int n = iters - done < c->batch ? (int)(iters - done) : c->batch;
        bl_untimed_begin();
        int rc = map_batch(c, n, 0);
        bl_untimed_end();
        if (rc != BL_OK)
            return rc;
        for (int j = 0; j < n; j++) {
            char v = *(volatile char *)c->maps[j];
            BL_KEEP(v);
        }
        bl_untimed_begin();
        unmap_all(c, n);
        bl_untimed_end();
        done += n;
    }
    return BL_OK;
}

/* The test file: made in `directory`, unlinked at once (it lives while it
 * is open), written and so in the page cache. */
static int open_test_file(const char *directory, size_t bytes, int *fd_out)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/benchlib-map-XXXXXX", directory) >= (int)sizeof path) {
        bl_set_error("directory name too long: %s", directory);
        return BL_EINVAL;
    }
    int fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        bl_set_error("cannot create a file in %s: %s", directory, strerror(errno));
        return errno == ENOENT || errno == EACCES || errno == EROFS || errno == ENOTDIR
                   ? BL_EINVAL : BL_ESYS;
    }
    unlink(path);
    char block[16384];
    memset(block, 'a', sizeof block);
    for (size_t done = 0; done < bytes;) {
        size_t want = bytes - done < sizeof block ? bytes - done : sizeof block;
        ssize_t n = write(fd, block, want);
        if (n < 0 && errno == EINTR && !bl_interrupted())
            continue;
        if (n <= 0) {
            int rc = n < 0 && errno == EINTR ? BL_EINTR : bl_sys_error("write the test file");
            close(fd);
            return rc;
        }
        done += (size_t)n;
    }
    *fd_out = fd;
    return BL_OK;
}

int bl_mapping_latency(int op, const char *directory, size_t file_bytes, const bl_opts *o,
                       double *ns, double *ticks, bl_info *info)
{
    if (op != BL_MAPPING_MMAP && op != BL_MAPPING_MUNMAP && op != BL_MAPPING_PAGE_FAULT) {
        bl_set_error("mapping_latency: unknown op %d", op);
        return BL_EINVAL;
    }
    if (file_bytes == 0) {
        bl_set_error("file_bytes must be at least 1");
        return BL_EINVAL;
    }
    map_ctx c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.bytes = file_bytes;
    c.page = (size_t)sysconf(_SC_PAGESIZE);
    c.batch = MAX_BATCH;
    if (op == BL_MAPPING_MUNMAP) {
        size_t fit = BATCH_BYTES / file_bytes;
        c.batch = fit < 1 ? 1 : fit > MAX_BATCH ? MAX_BATCH : (int)fit;
    }
    int rc = open_test_file(directory, file_bytes, &c.fd);
    if (rc != BL_OK)
        return rc;
    info->helper_cpu = -1;
    bl_body_fn body = op == BL_MAPPING_MMAP ? mmap_body : op == BL_MAPPING_MUNMAP ? munmap_body
                                                                                   : fault_body;
    rc = bl_measure(body, NULL, &c, o, ns, ticks, info);
    close(c.fd);
    return rc;
}
