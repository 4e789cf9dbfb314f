/*
 * proc_runner.c -- a small process that runs bl_process_creation.
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
 *      calibration_ns cpu_first cpu_last cpu_migrations
 *   error message (or an empty line)
 *   one line per sample: ns ticks clock_ghz
 *
 * usage: proc_runner op program n_samples n_warmup target_sample_ns
 *                    max_total_ns cpu mapped_pages touch
 *
 * mapped_pages one-page mappings (written once if touch is 1) are made
 * before the timing, as LEBench's big fork does (bl_map_extra_pages).
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
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
    printf("%d %lld %d %.17g %.17g %d %.17g %d %d %d\n%s\n", rc, (long long)info.iterations,
           info.n_samples, info.overhead_ns, info.clock_resolution_ns, info.has_ticks,
           info.calibration_ns, info.cpu_first, info.cpu_last, info.cpu_migrations,
           rc == BL_OK ? "" : bl_last_error());
    for (int i = 0; i < info.n_samples; i++)
        printf("%.17g %.17g %.17g\n", ns[i], ticks[i], ghz[i]);
    return 0;
}
