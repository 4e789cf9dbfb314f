/*
 * memory.c -- the memory hierarchy: load latency, bandwidth, line size, TLB.
 *
 * Buffers come from buffer.c (mapped, aligned to 2 MiB so that huge pages
 * can back them when asked, every page faulted in before timing so that
 * page faults are not part of any sample, returned at once), and every
 * chase walks its whole ring once before the first sample so that a ring
 * that fits a cache is measured in it.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/* xorshift64*: a fixed seed, so every run lays out the same chain. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1Dull;
}

static void shuffle(size_t *a, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(rng() % i);
        size_t t = a[i - 1];
        a[i - 1] = a[j];
        a[j] = t;
    }
}

/* ---------- pointer chases ---------- */

typedef struct {
    void **p;  /* where the chase stands: each sample goes on from here */
    int spin;  /* dependent adds after each load (0: none) */
} chase_ctx;

static void *volatile chase_sink; /* the chain's end is stored: loads are live */

#define CHASE1 p = (void **)*p;
#define CHASE4 CHASE1 CHASE1 CHASE1 CHASE1
#define CHASE16 CHASE4 CHASE4 CHASE4 CHASE4
#define CHASE100 CHASE16 CHASE16 CHASE16 CHASE16 CHASE16 CHASE16 CHASE4

/* The chase with LOADS load instructions in its loop: each instruction
 * takes every LOADS-th load of the chain, which is what a per-instruction
 * stride prefetcher follows (on the Zen 4 guest, a stride-128 chase over 8
 * MiB: 1.9 ns with 1, 2.1 with 16, 5.0 with 100; docs/memory.md). */
#define CHASE_BODY(name, LOADS, BLOCK)                                   \
    static int name(void *ctx, int64_t iters)                            \
    {                                                                    \
        chase_ctx *c = ctx;                                              \
        void **p = c->p;                                                 \
        int64_t blocks = iters / (LOADS), rest = iters % (LOADS);        \
        for (int64_t i = 0; i < blocks; i++) {                           \
            BLOCK                                                        \
        }                                                                \
        for (int64_t i = 0; i < rest; i++) {                             \
            CHASE1                                                       \
        }                                                                \
        c->p = p;                                                        \
        chase_sink = p;                                                  \
        return BL_OK;                                                    \
    }
CHASE_BODY(chase_body_1, 1, CHASE1)
CHASE_BODY(chase_body, 16, CHASE16)
CHASE_BODY(chase_body_100, 100, CHASE100)

/* One load, then `spin` adds that each depend on the last (of a zero the
 * compiler cannot see), so the next load waits for all of them. */
static int chase_spin_body(void *ctx, int64_t iters)
{
    chase_ctx *c = ctx;
    void **p = c->p;
    uintptr_t zero = 0;
    __asm__ volatile("" : "+r"(zero));
    for (int64_t i = 0; i < iters; i++) {
        p = (void **)*p;
        for (int k = 0; k < c->spin; k++) {
            p = (void **)((uintptr_t)p + zero);
            __asm__ volatile("" : "+r"(p));
        }
    }
    c->p = p;
    chase_sink = p;
    return BL_OK;
}

/* The random walk: the next slot is pointer (r & 7) of this one, r a
 * xorshift in a register.  r does not depend on the loads, so its three
 * operations overlap them: the loads form the only dependent chain. */
typedef struct {
    void **p;
    uint64_t r;
} walk_ctx;

static volatile uint64_t walk_sink;

static int walk_body(void *ctx, int64_t iters)
{
    walk_ctx *c = ctx;
    void **p = c->p;
    uint64_t r = c->r;
    for (int64_t i = 0; i < iters; i++) {
        p = (void **)p[r & 7];
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
    }
    c->p = p;
    c->r = r;
    chase_sink = p;
    walk_sink = r;
    return BL_OK;
}

/* Slot i's pointer j leads to slot perm_j(i): 8 random permutations, so
 * every slot has 8 ways in and 8 out and the walk visits all slots alike. */
static int link_walk(char *base, size_t stride, size_t n)
{
    size_t *perm = malloc(n * sizeof *perm);
    if (!perm) {
        bl_set_error("cannot allocate the walk's permutations");
        return BL_ENOMEM;
    }
    for (int j = 0; j < 8; j++) {
        for (size_t i = 0; i < n; i++)
            perm[i] = i;
        shuffle(perm, n);
        for (size_t i = 0; i < n; i++)
            ((void **)(base + i * stride))[j] = base + perm[i] * stride;
    }
    free(perm);
    return BL_OK;
}

static int run_walk(bl_buffer *b, size_t n, const bl_opts *o, double *ns, double *ticks,
                    bl_info *info)
{
    walk_ctx c = {(void **)b->base, 0x9E3779B97F4A7C15ull};
    /* as many steps as slots first: a walk that fits a cache is measured in it */
    walk_body(&c, (int64_t)(n < ((size_t)1 << 20) ? 4 * n : ((size_t)1 << 20)));
    info->helper_cpu = -1;
    return bl_measure(walk_body, NULL, &c, o, ns, ticks, info);
}

/* Link the slots at the given byte offsets, in that order, into one ring. */
static void link_ring(char *base, const size_t *offsets, size_t n)
{
    for (size_t i = 0; i < n; i++)
        *(void **)(base + offsets[i]) = base + offsets[(i + 1) % n];
}

/* Random order that defeats prefetchers without paying a TLB miss per load:
 * windows of `window` bytes are visited in random order, and within each
 * window its slots in random order; every slot once, one single cycle.
 * The window must span many pages: inside a single page the L2's page
 * prefetchers learn the page after a few misses and fetch the rest. */
static int random_offsets(size_t size, size_t slot, size_t window, size_t **out, size_t *n_out)
{
    if (window < slot)
        window = slot;
    if (window > size)
        window = size - size % slot;
    size_t per = window / slot, nwin = size / window, n = per * nwin;
    size_t *order = malloc(n * sizeof *order), *wins = malloc(nwin * sizeof *wins),
           *inner = malloc(per * sizeof *inner);
    if (!order || !wins || !inner) {
        free(order);
        free(wins);
        free(inner);
        bl_set_error("cannot allocate the chain's order");
        return BL_ENOMEM;
    }
    for (size_t w = 0; w < nwin; w++)
        wins[w] = w;
    shuffle(wins, nwin);
    size_t k = 0;
    for (size_t w = 0; w < nwin; w++) {
        for (size_t s = 0; s < per; s++)
            inner[s] = s;
        shuffle(inner, per);
        for (size_t s = 0; s < per; s++)
            order[k++] = wins[w] * window + inner[s] * slot;
    }
    free(wins);
    free(inner);
    *out = order;
    *n_out = n;
    return BL_OK;
}

static int run_chase(bl_buffer *b, size_t first, size_t lap, int spin, int loop_loads,
                     const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    chase_ctx c = {(void **)(b->base + first), spin};
    int (*body)(void *, int64_t) = spin > 0 ? chase_spin_body
                                   : loop_loads == 1 ? chase_body_1
                                   : loop_loads == 100 ? chase_body_100 : chase_body;
    /* One full lap, so that a ring which fits a cache is measured in it.  A
     * ring larger than 2^20 slots (64 MiB of lines) fits no cache we know
     * of, and a lap of it would only cost time. */
    body(&c, (int64_t)(lap < ((size_t)1 << 20) ? lap : ((size_t)1 << 20)));
    info->helper_cpu = -1;
    return bl_measure(body, NULL, &c, o, ns, ticks, info);
}

static int mem_latency(size_t size_bytes, size_t stride_bytes, int pattern, int huge_pages,
                       int spin_adds, int loop_loads, size_t window_bytes, const bl_opts *o,
                       double *ns, double *ticks, bl_info *info);

int bl_mem_latency(size_t size_bytes, size_t stride_bytes, int pattern, int huge_pages,
                   int loop_loads, size_t window_bytes, const bl_opts *o, double *ns,
                   double *ticks, bl_info *info)
{
    if (window_bytes != 0 && window_bytes < stride_bytes) {
        bl_set_error("window_bytes (%zu) must be 0 or at least stride_bytes (%zu)",
                     window_bytes, stride_bytes);
        return BL_EINVAL;
    }
    if (loop_loads != 1 && loop_loads != 16 && loop_loads != 100) {
        bl_set_error("loop_loads must be 1, 16 or 100; got %d", loop_loads);
        return BL_EINVAL;
    }
    if (pattern == BL_CHASE_WALK && loop_loads != 16) {
        bl_set_error("the walk pattern has a loop of its own: loop_loads must be 16");
        return BL_EINVAL;
    }
    return mem_latency(size_bytes, stride_bytes, pattern, huge_pages, 0, loop_loads,
                       window_bytes, o, ns, ticks, info);
}

int bl_mem_latency_spin(size_t size_bytes, size_t stride_bytes, int pattern, int huge_pages,
                        int spin_adds, const bl_opts *o, double *ns, double *ticks,
                        bl_info *info)
{
    return mem_latency(size_bytes, stride_bytes, pattern, huge_pages, spin_adds, 16,
                       BL_HUGE_ALIGN, o, ns, ticks, info);
}

static int mem_latency(size_t size_bytes, size_t stride_bytes, int pattern, int huge_pages,
                       int spin_adds, int loop_loads, size_t window_bytes, const bl_opts *o,
                       double *ns, double *ticks, bl_info *info)
{
    if (spin_adds < 0 || spin_adds > 100000) {
        bl_set_error("spin_adds must be between 0 and 100000; got %d", spin_adds);
        return BL_EINVAL;
    }
    if (stride_bytes < sizeof(void *) || stride_bytes % sizeof(void *) != 0) {
        bl_set_error("stride_bytes must be a positive multiple of %zu", sizeof(void *));
        return BL_EINVAL;
    }
    if (size_bytes / stride_bytes < 2) {
        bl_set_error("size_bytes (%zu) must hold at least two strides of %zu bytes",
                     size_bytes, stride_bytes);
        return BL_EINVAL;
    }
    if (pattern != BL_CHASE_STRIDE && pattern != BL_CHASE_RANDOM && pattern != BL_CHASE_WALK) {
        bl_set_error("unknown pattern %d", pattern);
        return BL_EINVAL;
    }
    if (pattern == BL_CHASE_WALK && spin_adds != 0) {
        bl_set_error("the walk pattern takes no spin_adds");
        return BL_EINVAL;
    }
    if (pattern == BL_CHASE_WALK && stride_bytes < 8 * sizeof(void *)) {
        bl_set_error("the walk pattern needs stride_bytes >= %zu (8 pointers a slot)",
                     8 * sizeof(void *));
        return BL_EINVAL;
    }
    bl_buffer b = {0};
    int rc = bl_buffer_map(&b, size_bytes, huge_pages);
    if (rc != BL_OK)
        return rc;
    size_t n = size_bytes / stride_bytes;
    if (pattern == BL_CHASE_WALK) {
        rc = link_walk(b.base, stride_bytes, n);
        if (rc == BL_OK) {
            info->huge_bytes = (double)bl_huge_bytes(b.base, size_bytes);
            rc = run_walk(&b, n, o, ns, ticks, info);
        }
        bl_buffer_unmap(&b);
        return rc;
    }
    if (pattern == 0) {
        /* The paper's method: slot i points to slot i+1, prefetchers and all. */
        for (size_t i = 0; i < n; i++)
            *(void **)(b.base + i * stride_bytes) = b.base + ((i + 1) % n) * stride_bytes;
    } else {
        size_t *order, m;
        /* windows of 2 MiB by default: one huge page (one TLB entry), or
         * 512 small pages, which the second-level TLB holds; 0: the whole
         * buffer (another page nearly every load) */
        rc = random_offsets(size_bytes, stride_bytes, window_bytes ? window_bytes : size_bytes,
                            &order, &m);
        if (rc != BL_OK) {
            bl_buffer_unmap(&b);
            return rc;
        }
        link_ring(b.base, order, m);
        free(order);
        n = m;
    }
    info->huge_bytes = (double)bl_huge_bytes(b.base, size_bytes);
    rc = run_chase(&b, 0, n, spin_adds, loop_loads, o, ns, ticks, info);
    bl_buffer_unmap(&b);
    return rc;
}

/* Line size: pages in random order; in each, a load at A and a dependent
 * load at A - distance.  A is the last word of a 256-byte block, so it is
 * the last word of its line for any line of up to 256 bytes: distances up to
 * line - 8 stay in A's line and `line` leaves it.  The line reached first is
 * then the other half of A's adjacent-line pair: an adjacent-line prefetcher
 * shows as a middle level (that line comes from a nearer cache), not as a
 * second miss, up to twice the line. */
int bl_line_pair_latency(size_t size_bytes, size_t distance_bytes, const bl_opts *o,
                         double *ns, double *ticks, bl_info *info)
{
    const size_t page = 4096, anchor = 2048 + 248;
    if (distance_bytes < 8 || distance_bytes % 8 || distance_bytes > 2048) {
        bl_set_error("distance_bytes must be a multiple of 8 between 8 and 2048; got %zu",
                     distance_bytes);
        return BL_EINVAL;
    }
    if (size_bytes < 4 * page) {
        bl_set_error("size_bytes must be at least %zu", 4 * page);
        return BL_EINVAL;
    }
    bl_buffer b = {0};
    int rc = bl_buffer_map(&b, size_bytes, 0);
    if (rc != BL_OK)
        return rc;
    size_t npages = size_bytes / page;
    size_t *pages = malloc(npages * sizeof *pages);
    if (!pages) {
        bl_buffer_unmap(&b);
        return BL_ENOMEM;
    }
    for (size_t i = 0; i < npages; i++)
        pages[i] = i;
    shuffle(pages, npages);
    for (size_t i = 0; i < npages; i++) {
        char *a = b.base + pages[i] * page + anchor;
        char *next = b.base + pages[(i + 1) % npages] * page + anchor;
        *(void **)a = a - distance_bytes;
        *(void **)(a - distance_bytes) = next;
    }
    size_t first = pages[0] * page + anchor;
    free(pages);
    info->huge_bytes = 0;
    /* One iteration of chase_body is one load; a pair is two. */
    rc = run_chase(&b, first, 2 * npages, 0, 16, o, ns, ticks, info);
    for (int i = 0; rc == BL_OK && i < info->n_samples; i++) {
        ns[i] *= 2.0;
        if (ticks)
            ticks[i] *= 2.0;
    }
    bl_buffer_unmap(&b);
    return rc;
}

/* TLB: `pages` lines, one per page (spread) or packed together (dense), in
 * random order.  Same cache footprint, so the difference is the TLB. */
int bl_tlb_latency(size_t pages, int dense, const bl_opts *o, double *ns, double *ticks,
                   bl_info *info)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE), line = 64;
    if (pages < 2) {
        bl_set_error("pages must be at least 2");
        return BL_EINVAL;
    }
    size_t bytes = dense ? pages * line : pages * page;
    bl_buffer b = {0};
    int rc = bl_buffer_map(&b, bytes, 0);
    if (rc != BL_OK)
        return rc;
    size_t *order = malloc(pages * sizeof *order);
    if (!order) {
        bl_buffer_unmap(&b);
        return BL_ENOMEM;
    }
    for (size_t i = 0; i < pages; i++)
        order[i] = i;
    shuffle(order, pages);
    /* Spread: vary the line within each page so the lines use every cache set. */
    for (size_t i = 0; i < pages; i++)
        order[i] = dense ? order[i] * line : order[i] * page + ((order[i] * 7) % (page / line)) * line;
    link_ring(b.base, order, pages);
    size_t first = order[0];
    free(order);
    info->huge_bytes = 0;
    rc = run_chase(&b, first, pages, 0, 16, o, ns, ticks, info);
    bl_buffer_unmap(&b);
    return rc;
}

/* ---------- what the CPU says about its TLBs (read, never timed) ---------- */

int bl_cpuid(unsigned leaf, unsigned subleaf, unsigned *out)
{
#if defined(__x86_64__) || defined(__i386__)
    __cpuid_count(leaf, subleaf, out[0], out[1], out[2], out[3]);
    return 0;
#else
    out[0] = out[1] = out[2] = out[3] = 0;
    (void)leaf;
    (void)subleaf;
    return -1;
#endif
}

/* ---------- bandwidth ---------- */

typedef struct {
    char *src, *dst;
    size_t bytes, stride;
    int op;
    unsigned fill; /* the last value written by write and memset (never 0) */
} bandwidth_ctx;

/* The next byte for write and memset: a new one every pass, 1 to 255,
 * never 0 (write repeats it in every byte of its words).  A memset of
 * zeros is not the memory's write speed: on the EPYC guest 64 MiB of zeros
 * ran at 16-38 GB/s over zeros and 23-31 over ones, where ones over ones
 * or a changing value ran at 14.5-19 (bench/zero_stores, 2026-11-27
 * 22:03-23:12 UTC; a memcpy of zeros ran as fast as one of ones); and with
 * one pass a sample, a value taken from the sample's own pass count, as
 * before, was 0 every time. */
static unsigned next_fill(bandwidth_ctx *c)
{
    c->fill = c->fill % 255 + 1;
    return c->fill;
}

/* The byte the source is filled with before any pass (and the fill the
 * first pass of write or memset moves on from). */
#define SOURCE_BYTE 1

/* Every step-th word of s set to v (add 0) or increased by v (add 1), four
 * a loop turn; add is a constant at each call, so each inlined copy has no
 * branch in its loop. */
static inline __attribute__((always_inline)) void four_a_turn(uint64_t *s, size_t words,
                                                              size_t step, uint64_t v, int add)
{
    size_t i = 0, n4 = words - words % (4 * step);
    for (; i < n4; i += 4 * step) {
        s[i] = add ? s[i] + v : v;
        s[i + step] = add ? s[i + step] + v : v;
        s[i + 2 * step] = add ? s[i + 2 * step] + v : v;
        s[i + 3 * step] = add ? s[i + 3 * step] + v : v;
    }
    for (; i < words; i += step)
        s[i] = add ? s[i] + v : v;
}

enum { BANDWIDTH_READ, BANDWIDTH_WRITE, BANDWIDTH_RMW, BANDWIDTH_COPY_UNROLLED, BANDWIDTH_MEMSET, BANDWIDTH_COPY_LIBC };

static int bandwidth_body(void *ctx, int64_t iters)
{
    bandwidth_ctx *c = ctx;
    size_t words = c->bytes / 8, step = c->stride / 8;
    uint64_t *s = (uint64_t *)c->src, *d = (uint64_t *)c->dst;
    for (int64_t it = 0; it < iters; it++) {
        switch (c->op) {
        case BANDWIDTH_READ:
            BL_KEEP(bl_read_words(s, words, step));
            break;
        /* write and rmw take four words a loop turn, as read does: one a
         * turn left the loop, not the memory, setting the pace (a 64 MiB
         * write ran at 8.6-11.9 GB/s one store a turn and 10.9-13.8 four a
         * turn, bench/store_loops on the EPYC guest, 2026-11-27 22:09 UTC,
         * where likwid-bench's store kernel read 10.9-12.8); rmw is made
         * the same shape, not measured on its own */
        case BANDWIDTH_WRITE:
            four_a_turn(s, words, step, next_fill(c) * 0x0101010101010101ull, 0);
            BL_CLOBBER();
            break;
        case BANDWIDTH_RMW:
            four_a_turn(s, words, step, 1, 1);
            BL_CLOBBER();
            break;
        case BANDWIDTH_COPY_UNROLLED:
            bl_copy_words(d, s, words);
            BL_CLOBBER();
            break;
        case BANDWIDTH_MEMSET:
            memset(c->src, (int)next_fill(c), c->bytes);
            BL_KEEP(c->src);
            break;
        case BANDWIDTH_COPY_LIBC:
            memcpy(c->dst, c->src, c->bytes);
            BL_KEEP(c->dst);
            break;
        }
    }
    return BL_OK;
}

static int needs_dst(int op) { return op == BANDWIDTH_COPY_UNROLLED || op == BANDWIDTH_COPY_LIBC; }

/* A buffer just faulted in is slower for its first passes: on the Zen 4
 * KVM guest a 64 MiB read ran at 28-29.5 GB/s over its first three passes,
 * 30.6-32.6 over the next seven and 32.4-33.0 from the 50th on, a write
 * 25.4-29.0, 29.6-31.2 and 29.9-32.3 (four runs of 200 one-pass samples,
 * no warm-up, 2026-11-28 13:36 UTC); after this many untimed passes the
 * first three samples read as the later ones (read 32.8-34.5 against
 * 34.0-34.8).  The calibration's passes (three where one pass outlasts a
 * sample) had left the first samples in the climb.  A copy, at 13 GB/s,
 * showed no climb that day (memcpy 12.7-13.2 over its first three passes,
 * 12.8-13.1 from the 50th) and takes none: its passes are the longest.
 * How long the climb lasts is the host's, not a count of passes: on
 * another day (session 27, bench/fresh_buffer_ramp) a read held its speed
 * after 22 ms of passes at the median and 101 at most, and a copy climbed
 * too (0.88-0.91 of its steady speed at first, 44 ms at the median); yet
 * settling every op for 80 ms moved the adaptive medians by +1.7 % (read),
 * +0.7 % (write) and +0.3 % (copy) and cost 50-80 ms a figure, since the
 * adaptive stop's two halves keep a run still climbing from stopping
 * (docs/peers.md). */
#define SETTLE_PASSES 8

int bl_mem_bandwidth_settle_passes(int op) { return needs_dst(op) ? 0 : SETTLE_PASSES; }

/* Map the buffers an op needs, fill the source, measure, unmap.  Each
 * buffer starts its offset past a 2 MiB boundary (0: aligned). */
static int run_bandwidth(int op, size_t size_bytes, size_t stride_bytes, size_t src_offset,
                         size_t dst_offset, const bl_opts *o, double *ns, double *ticks,
                         bl_info *info)
{
    bl_buffer src = {0}, dst = {0};
    double t0 = bl_now_ns();
    int rc = bl_buffer_map(&src, size_bytes + src_offset, 0);
    if (rc == BL_OK && needs_dst(op))
        rc = bl_buffer_map(&dst, size_bytes + dst_offset, 0);
    if (rc == BL_OK) {
        memset(src.base + src_offset, SOURCE_BYTE, size_bytes);
        bandwidth_ctx c = {src.base + src_offset, needs_dst(op) ? dst.base + dst_offset : NULL,
                           size_bytes, stride_bytes, op, SOURCE_BYTE};
        info->helper_cpu = -1;
        info->huge_bytes = 0;
        /* untimed passes before the calibration's: see SETTLE_PASSES */
        int settle = bl_mem_bandwidth_settle_passes(op);
        double t1 = bl_now_ns();
        rc = bandwidth_body(&c, settle);
        double t2 = bl_now_ns();
        info->settle_ns = settle ? t2 - t1 : 0.0;
        info->setup_ns = t2 - t0;
        if (rc == BL_OK)
            rc = bl_measure(bandwidth_body, NULL, &c, o, ns, ticks, info);
    }
    bl_buffer_unmap(&src);
    bl_buffer_unmap(&dst);
    return rc;
}

int bl_mem_bandwidth(int op, size_t size_bytes, size_t stride_bytes, const bl_opts *o,
                     double *ns, double *ticks, bl_info *info)
{
    if (op < BANDWIDTH_READ || op > BANDWIDTH_COPY_LIBC) {
        bl_set_error("unknown bandwidth op %d", op);
        return BL_EINVAL;
    }
    if (size_bytes < 64 || stride_bytes < 8 || stride_bytes % 8 || stride_bytes > size_bytes) {
        bl_set_error("size_bytes must be >= 64 and stride_bytes a multiple of 8 no larger "
                     "than the size");
        return BL_EINVAL;
    }
    if (stride_bytes != 8 && op >= BANDWIDTH_COPY_UNROLLED) {
        bl_set_error("copies and memset are dense: stride_bytes must be 8");
        return BL_EINVAL;
    }
    return run_bandwidth(op, size_bytes & ~(size_t)7, stride_bytes, 0, 0, o, ns, ticks, info);
}

int bl_mem_bandwidth_stored(int op, size_t words, int passes, uint64_t *out)
{
    if (op < BANDWIDTH_READ || op > BANDWIDTH_COPY_LIBC || words < 1 || words > SIZE_MAX / 8 ||
        passes < 1) {
        bl_set_error("bl_mem_bandwidth_stored: bad op, words or passes");
        return BL_EINVAL;
    }
    size_t bytes = words * 8;
    uint64_t *src = malloc(bytes), *dst = malloc(bytes);
    if (!src || !dst) {
        free(src);
        free(dst);
        bl_set_error("cannot allocate %zu bytes", bytes);
        return BL_ENOMEM;
    }
    memset(src, SOURCE_BYTE, bytes);  /* as run_bandwidth fills the source */
    memset(dst, 0, bytes);
    bandwidth_ctx c = {(char *)src, needs_dst(op) ? (char *)dst : NULL, bytes, 8, op, SOURCE_BYTE};
    for (int i = 0; i < passes; i++) {
        bandwidth_body(&c, 1);       /* one pass a call, as a long sample runs */
        const uint64_t *w = needs_dst(op) ? dst : src;
        out[2 * i] = w[0];
        out[2 * i + 1] = w[words - 1];
    }
    free(src);
    free(dst);
    return BL_OK;
}

/* ---------- bcopy (Ousterhout's Table 5): libc memcpy, any size ---------- */

/* The offsets place each buffer that many bytes past a page boundary: how
 * far the destination is from a cache line, and the source from the
 * destination modulo a page, choose libc's path and the core's speed on it
 * (on Zen 3 a 64 KiB copy between malloc'd neighbours, 16 bytes apart
 * modulo 4 KiB, is slower than between aligned buffers). */
int bl_bcopy(size_t size_bytes, size_t src_offset, size_t dst_offset, const bl_opts *o,
             double *ns, double *ticks, bl_info *info)
{
    if (size_bytes == 0) {
        bl_set_error("size_bytes must be > 0");
        return BL_EINVAL;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (src_offset >= page || dst_offset >= page) {
        bl_set_error("src_offset_bytes and dst_offset_bytes must be below the page size (%zu)",
                     page);
        return BL_EINVAL;
    }
    return run_bandwidth(BANDWIDTH_COPY_LIBC, size_bytes, 8, src_offset, dst_offset, o, ns,
                         ticks, info);
}

/* ---------- page faults ---------- */

/*
 * One iteration is one page of a fresh anonymous mapping written for the
 * first time: the fault allocates a page, zeroes it and maps it.  The body
 * maps `iters` pages, writes one byte to each in order and unmaps them, so
 * the page's share of the munmap that frees it is counted too; the same
 * mmap and munmap with no page touched is the overhead subtracted.  Small
 * pages only (MADV_NOHUGEPAGE): a huge page would take one fault for 512.
 */
#define FAULT_MAX_PAGES ((int64_t)1 << 16) /* 256 MiB of 4 KiB pages per sample */

static int fault_map(int64_t pages, int touch)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = (size_t)pages * page;
    char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        bl_set_error("cannot map %zu bytes: %s", len, strerror(errno));
        return BL_ENOMEM;
    }
#ifdef MADV_NOHUGEPAGE
    madvise(p, len, MADV_NOHUGEPAGE);
#endif
    if (touch) {
        for (int64_t i = 0; i < pages; i++)
            p[(size_t)i * page] = (char)i;
        BL_KEEP(p);
    }
    munmap(p, len);
    return BL_OK;
}

static int fault_body(void *ctx, int64_t iters) { return fault_map(iters, 1); }

static int fault_overhead(void *ctx, int64_t iters) { return fault_map(iters, 0); }

int bl_page_fault(const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    bl_opts own = *o;
    if (own.max_iterations <= 0 || own.max_iterations > FAULT_MAX_PAGES)
        own.max_iterations = FAULT_MAX_PAGES;
    if (own.iterations > FAULT_MAX_PAGES) {
        bl_set_error("page_fault: at most %lld pages per sample", (long long)FAULT_MAX_PAGES);
        return BL_EINVAL;
    }
    own.subtract_overhead = 1;
    info->helper_cpu = -1;
    info->huge_bytes = 0;
    return bl_measure(fault_body, fault_overhead, NULL, &own, ns, ticks, info);
}
