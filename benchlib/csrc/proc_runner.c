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
 *                    max_total_ns cpu mapped_pages touch [-]
 *        proc_runner ring processes process_bytes n_samples n_warmup
 *                    target_sample_ns max_total_ns cpu [-]
 *
 * A last argument "-": the adaptive stop (bl_opts.stop_*) on stdin, as
 * whitespace-separated text: rel_ci reciprocal prior_n, the prior_n
 * earlier samples (ns), then prior_n + n_samples + 1 ranks.
 *
 * mapped_pages one-page mappings (written once if touch is 1) are made
 * before the timing, as LEBench's big fork does (bl_map_extra_pages).
 *
 * "ring" runs bl_context_switch instead (the ring's processes forked from
 * this small process, as the paper's context-switch tool forks them from
 * itself; every process pinned to cpu unless it is -1, the overhead paired
 * sample by sample).  Where the ring is forked moves its figure:
 * docs/peers.md, "where the ring is forked".
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

/* n_samples n_warmup target_sample_ns max_total_ns from a[0..3] into o, and
 * the arrays the samples go to; nonzero (the exit status) when bad. */
static int timing_opts(char **a, bl_opts *o, double **ns, double **ticks, double **ghz)
{
    o->n_samples = atoi(a[0]);
    o->n_warmup = atoi(a[1]);
    o->target_sample_ns = atof(a[2]);
    o->max_total_ns = atof(a[3]);
    if (o->n_samples < 1 || o->n_samples > 10000000) {
        fprintf(stderr, "bad n_samples\n");
        return 2;
    }
    *ns = calloc((size_t)o->n_samples, sizeof **ns);
    *ticks = calloc((size_t)o->n_samples, sizeof **ticks);
    *ghz = calloc((size_t)o->n_samples, sizeof **ghz);
    if (!*ns || !*ticks || !*ghz)
        return 2;
    o->clock_ghz = *ghz;
    return 0;
}

/* The adaptive stop from stdin (the format above) into o; nonzero when bad. */
static int read_stop(bl_opts *o)
{
    double rel;
    int recip, m;
    if (scanf("%lf %d %d", &rel, &recip, &m) != 3 || m < 0 || m > 10000000)
        return 2;
    double *prior = calloc((size_t)m + 1, sizeof *prior);
    int n = m + o->n_samples + 1;
    int *ranks = calloc((size_t)n, sizeof *ranks);
    if (!prior || !ranks)
        return 2;
    for (int i = 0; i < m; i++)
        if (scanf("%lf", &prior[i]) != 1)
            return 2;
    for (int i = 0; i < n; i++)
        if (scanf("%d", &ranks[i]) != 1)
            return 2;
    o->stop_rel_ci = rel;
    o->stop_reciprocal = recip;
    o->stop_prior = prior;
    o->stop_prior_n = m;
    o->stop_ranks = ranks;   /* freed at exit */
    return 0;
}

static int ring(int argc, char **argv)
{
    if (argc != 9 && !(argc == 10 && strcmp(argv[9], "-") == 0)) {
        fprintf(stderr, "usage: %s ring processes process_bytes n_samples n_warmup target_ns "
                "max_total_ns cpu\n", argv[0]);
        return 2;
    }
    bl_opts o = {0};
    double *ns, *ticks, *ghz;
    int bad = timing_opts(argv + 4, &o, &ns, &ticks, &ghz);
    long long bytes = atoll(argv[3]);
    if (!bad && argc == 10)
        bad = read_stop(&o);
    if (bad || bytes < 0)
        return 2;
    o.cpu = o.helper_cpu = atoi(argv[8]);
    o.subtract_overhead = 1;
    bl_info info = {0};
    int rc = bl_context_switch(atoi(argv[2]), (size_t)bytes, &o, ns, ticks, &info);
    report(rc, &info, ns, ticks, ghz);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "ring") == 0)
        return ring(argc, argv);
    if (argc != 10 && !(argc == 11 && strcmp(argv[10], "-") == 0)) {
        fprintf(stderr, "usage: %s op program n_samples n_warmup target_ns max_total_ns cpu "
                "mapped_pages touch [-]\n", argv[0]);
        return 2;
    }
    bl_opts o = {0};
    double *ns, *ticks, *ghz;
    if (timing_opts(argv + 3, &o, &ns, &ticks, &ghz) || (argc == 11 && read_stop(&o)))
        return 2;
    o.cpu = atoi(argv[7]);
    o.helper_cpu = -1;
    bl_info info = {0};
    int rc = bl_map_extra_pages(atoi(argv[8]), atoi(argv[9]));
    if (rc == BL_OK)
        rc = bl_process_creation(atoi(argv[1]), argv[2], &o, ns, ticks, &info);
    bl_unmap_extra_pages();
    report(rc, &info, ns, ticks, ghz);
    return 0;
}
