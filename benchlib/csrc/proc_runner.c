/*
 * proc_runner.c -- a small process that runs bl_process_creation (or
 * bl_context_switch: the ring's processes forked from it).
 *
 * Forking copies the parent's page tables and exiting tears the copy down,
 * so a fork from the Python interpreter (tens of MB, hundreds of mappings)
 * costs far more than one from the small C program the paper timed.  With
 * parent=small, benchlib compiles this file with proc.c, timing.c and
 * add_chain.c (the same timing core and loops as the library) into a per-user
 * cache directory and runs it; it writes what the library call would have
 * filled in, as text, to stdout:
 *
 *   rc iterations n_samples overhead_ns clock_resolution_ns has_ticks
 *      calibration_ns cpu_first cpu_last cpu_migrations calibrated_sample_ns
 *      helper_cpu
 *   error message (or an empty line)
 *   one line per sample: ns ticks clock_ghz
 *
 * usage: proc_runner op program n_samples n_warmup target_sample_ns
 *                    max_total_ns cpu mapped_pages touch
 *        proc_runner ring processes process_bytes n_samples n_warmup
 *                    target_sample_ns max_total_ns cpu
 *
 * mapped_pages one-page mappings (written once if touch is 1) are made
 * before the timing, as LEBench's big fork does (bl_map_extra_pages).
 *
 * "ring" runs bl_context_switch instead (the ring's processes forked from
 * this small process, as lmbench3's lat_ctx forks them from its own; every
 * process pinned to cpu unless it is -1, the overhead paired sample by
 * sample).  Where the ring is forked moves its figure: docs/peers.md,
 * "lat_ctx -s 16 8: where the ring is forked".
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the library call filled in, as text (the format above). */
static void report(int rc, const bl_info *info, const double *ns, const double *ticks,
                   const double *ghz)
{
    printf("%d %lld %d %.17g %.17g %d %.17g %d %d %d %.17g %d\n%s\n", rc,
           (long long)info->iterations, info->n_samples, info->overhead_ns,
           info->clock_resolution_ns, info->has_ticks, info->calibration_ns, info->cpu_first,
           info->cpu_last, info->cpu_migrations, info->calibrated_sample_ns, info->helper_cpu,
           rc == BL_OK ? "" : bl_last_error());
    for (int i = 0; i < info->n_samples; i++)
        printf("%.17g %.17g %.17g\n", ns[i], ticks[i], ghz[i]);
}

static int ring(int argc, char **argv)
{
    if (argc != 9) {
        fprintf(stderr, "usage: %s ring processes process_bytes n_samples n_warmup target_ns "
                "max_total_ns cpu\n", argv[0]);
        return 2;
    }
    bl_opts o = {0};
    int processes = atoi(argv[2]);
    long long bytes = atoll(argv[3]);
    o.n_samples = atoi(argv[4]);
    o.n_warmup = atoi(argv[5]);
    o.target_sample_ns = atof(argv[6]);
    o.max_total_ns = atof(argv[7]);
    o.cpu = o.helper_cpu = atoi(argv[8]);
    o.subtract_overhead = 1;
    if (o.n_samples < 1 || o.n_samples > 10000000 || bytes < 0) {
        fprintf(stderr, "bad n_samples or process_bytes\n");
        return 2;
    }
    double *ns = calloc((size_t)o.n_samples, sizeof *ns);
    double *ticks = calloc((size_t)o.n_samples, sizeof *ticks);
    double *ghz = calloc((size_t)o.n_samples, sizeof *ghz);
    if (!ns || !ticks || !ghz)
        return 2;
    o.clock_ghz = ghz;
    bl_info info = {0};
    int rc = bl_context_switch(processes, (size_t)bytes, &o, ns, ticks, &info);
    report(rc, &info, ns, ticks, ghz);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "ring") == 0)
        return ring(argc, argv);
    if (argc != 10) {
        fprintf(stderr, "usage: %s op program n_samples n_warmup target_ns max_total_ns cpu "
                "mapped_pages touch\n", argv[0]);
        return 2;
    }
    bl_opts o = {0};
    int op = atoi(argv[1]);
    o.n_samples = atoi(argv[3]);
    o.n_warmup = atoi(argv[4]);
    o.target_sample_ns = atof(argv[5]);
    o.max_total_ns = atof(argv[6]);
    o.cpu = atoi(argv[7]);
    o.helper_cpu = -1;
    if (o.n_samples < 1 || o.n_samples > 10000000) {
        fprintf(stderr, "bad n_samples\n");
        return 2;
    }
    double *ns = calloc((size_t)o.n_samples, sizeof *ns);
    double *ticks = calloc((size_t)o.n_samples, sizeof *ticks);
    double *ghz = calloc((size_t)o.n_samples, sizeof *ghz);
    if (!ns || !ticks || !ghz)
        return 2;
    o.clock_ghz = ghz;
    bl_info info = {0};
    int rc = bl_map_extra_pages(atoi(argv[8]), atoi(argv[9]));
    if (rc == BL_OK)
        rc = bl_process_creation(op, argv[2], &o, ns, ticks, &info);
    bl_unmap_extra_pages();
    report(rc, &info, ns, ticks, ghz);
    return 0;
}
