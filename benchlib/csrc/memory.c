/*
 * memory.c -- the memory hierarchy: copy bandwidth and load latency.
 *
 * Buffers come from mmap so they start page-aligned and are returned to
 * the system at once; every page is written before timing so that page
 * faults are not part of any sample.
 */
#define _GNU_SOURCE
#include "benchlib.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static void *map_buffer(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* ---------- bcopy: memcpy bandwidth ---------- */

typedef struct {
    char *src, *dst;
    size_t bytes;
} copy_ctx;

static int memcpy_body(void *ctx, int64_t iters)
{
    copy_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        memcpy(c->dst, c->src, c->bytes);
        BL_KEEP(c->dst); /* the copy is observable: it cannot be dropped */
    }
    return BL_OK;
}

int bl_bcopy(size_t size_bytes, const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    if (size_bytes == 0) {
        bl_set_error("size_bytes must be > 0");
        return BL_EINVAL;
    }
    copy_ctx c = {map_buffer(size_bytes), map_buffer(size_bytes), size_bytes};
    if (!c.src || !c.dst) {
        bl_set_error("cannot map two buffers of %zu bytes: %s", size_bytes, strerror(errno));
        if (c.src)
            munmap(c.src, size_bytes);
        if (c.dst)
            munmap(c.dst, size_bytes);
        return BL_ENOMEM;
    }
    memset(c.src, 1, size_bytes);
    memset(c.dst, 2, size_bytes);
    info->helper_cpu = -1;
    int rc = bl_measure(memcpy_body, NULL, &c, o, ns, ticks, info);
    munmap(c.src, size_bytes);
    munmap(c.dst, size_bytes);
    return rc;
}

/* ---------- mem_latency: dependent loads ---------- */

typedef struct {
    void **start;
} chase_ctx;

static void *volatile chase_sink; /* the chain's end is stored: loads are live */

#define CHASE1 p = (void **)*p;
#define CHASE8 CHASE1 CHASE1 CHASE1 CHASE1 CHASE1 CHASE1 CHASE1 CHASE1

static int chase_body(void *ctx, int64_t iters)
{
    void **p = ((chase_ctx *)ctx)->start;
    int64_t blocks = iters / 16, rest = iters % 16;
    for (int64_t i = 0; i < blocks; i++) {
        CHASE8 CHASE8
    }
    for (int64_t i = 0; i < rest; i++) {
        CHASE1
    }
    chase_sink = p;
    return BL_OK;
}

int bl_mem_latency(size_t size_bytes, size_t stride_bytes, const bl_opts *o,
                   double *ns, double *ticks, bl_info *info)
{
    if (stride_bytes < sizeof(void *) || stride_bytes % sizeof(void *) != 0) {
        bl_set_error("stride_bytes must be a positive multiple of %zu", sizeof(void *));
        return BL_EINVAL;
    }
    if (size_bytes / stride_bytes < 2) {
        bl_set_error("size_bytes (%zu) must hold at least two strides of %zu bytes",
                     size_bytes, stride_bytes);
        return BL_EINVAL;
    }
    char *buf = map_buffer(size_bytes);
    if (!buf) {
        bl_set_error("cannot map %zu bytes: %s", size_bytes, strerror(errno));
        return BL_ENOMEM;
    }
    memset(buf, 0, size_bytes);
    /* Slot i points to slot i+1; the last closes the ring. */
    size_t n = size_bytes / stride_bytes;
    for (size_t i = 0; i < n; i++)
        *(void **)(buf + i * stride_bytes) = buf + ((i + 1) % n) * stride_bytes;
    chase_ctx c = {(void **)buf};
    info->helper_cpu = -1;
    int rc = bl_measure(chase_body, NULL, &c, o, ns, ticks, info);
    munmap(buf, size_bytes);
    return rc;
}
