/*
 * timing.c -- the timing core every benchmark runs under.
 *
 * bl_measure() calibrates the iteration count so that one timed sample is
 * long against the clock's resolution, warms up, takes samples with
 * CLOCK_MONOTONIC (and the TSC beside it where there is one), and can
 * subtract the benchmark's own empty-loop cost.  It also watches for
 * SIGINT so that Ctrl-C ends a measurement between samples rather than
 * after it.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define BL_HAVE_TSC 1
static inline uint64_t bl_ticks(void) { return __rdtsc(); }
#else
#define BL_HAVE_TSC 0
static inline uint64_t bl_ticks(void) { return 0; }
#endif

#ifndef BL_CFLAGS
#define BL_CFLAGS "unknown"
#endif
#ifndef BL_PACKAGE_VERSION
#define BL_PACKAGE_VERSION "unknown"
#endif

/* ---------- errors ---------- */

static char bl_errbuf[512];

const char *bl_last_error(void) { return bl_errbuf; }

void bl_set_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(bl_errbuf, sizeof bl_errbuf, fmt, ap);
    va_end(ap);
}

int bl_sys_error(const char *what)
{
    bl_set_error("%s: %s", what, strerror(errno));
    return BL_ESYS;
}

/* ---------- build facts ---------- */

const char *bl_version(void) { return BL_PACKAGE_VERSION; }
const char *bl_compiler(void)
{
#ifdef __VERSION__
#if defined(__clang__)
    return "clang " __VERSION__;
#else
    return "gcc " __VERSION__;
#endif
#else
    return "unknown";
#endif
}
const char *bl_cflags(void) { return BL_CFLAGS; }

int bl_online_cpus(void) { return (int)sysconf(_SC_NPROCESSORS_ONLN); }

/* ---------- clocks ---------- */

/* The smallest non-zero step between two consecutive clock reads: this, not
 * clock_getres(), is what limits a short interval's precision. */
double bl_clock_resolution_ns(void)
{
    static double cached = 0.0;
    if (cached > 0.0)
        return cached;
    double best = 1e9;
    for (int i = 0; i < 2000; i++) {
        double a = bl_now_ns(), b;
        do {
            b = bl_now_ns();
        } while (b == a);
        if (b - a < best)
            best = b - a;
    }
    cached = best;
    return cached;
}

double bl_tsc_ticks_per_ns(void)
{
    static double cached = -1.0;
    if (!BL_HAVE_TSC)
        return 0.0;
    if (cached > 0.0)
        return cached;
    double t0 = bl_now_ns();
    uint64_t k0 = bl_ticks();
    struct timespec req = {0, 20 * 1000 * 1000}; /* 20 ms */
    while (nanosleep(&req, &req) != 0 && errno == EINTR)
        ;
    double t1 = bl_now_ns();
    uint64_t k1 = bl_ticks();
    cached = (double)(k1 - k0) / (t1 - t0);
    return cached;
}

/* ---------- SIGINT guard ---------- */

/* Python's own SIGINT handler only sets a flag that the interpreter looks
 * at when the C call returns.  We install a handler that records the
 * interrupt for the C loops and then calls Python's, so both learn of it. */
static volatile sig_atomic_t bl_sigint_seen = 0;
static struct sigaction bl_old_sigint;
static int bl_guard_depth = 0;

static void bl_on_sigint(int sig, siginfo_t *si, void *uc)
{
    bl_sigint_seen = 1;
    if (bl_old_sigint.sa_flags & SA_SIGINFO) {
        if (bl_old_sigint.sa_sigaction)
            bl_old_sigint.sa_sigaction(sig, si, uc);
    } else if (bl_old_sigint.sa_handler != SIG_DFL && bl_old_sigint.sa_handler != SIG_IGN) {
        bl_old_sigint.sa_handler(sig);
    }
}

void bl_guard_begin(void)
{
    if (bl_guard_depth++ > 0)
        return;
    bl_sigint_seen = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = bl_on_sigint;
    sa.sa_flags = SA_SIGINFO; /* no SA_RESTART: blocking calls return EINTR */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &bl_old_sigint);
}

void bl_guard_end(void)
{
    if (--bl_guard_depth > 0)
        return;
    sigaction(SIGINT, &bl_old_sigint, NULL);
    /* Nobody but us was listening: behave as the default would have. */
    if (bl_sigint_seen && !(bl_old_sigint.sa_flags & SA_SIGINFO) &&
        bl_old_sigint.sa_handler == SIG_DFL)
        raise(SIGINT);
}

int bl_interrupted(void) { return bl_sigint_seen != 0; }

/* ---------- CPU pinning ---------- */

int bl_pin_self(int cpu)
{
    if (cpu < 0 || cpu >= CPU_SETSIZE) {
        bl_set_error("CPU %d is out of range", cpu);
        return BL_EINVAL;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        bl_set_error("cannot pin to CPU %d: %s", cpu, strerror(errno));
        return errno == EINVAL ? BL_EINVAL : BL_ESYS;
    }
    return BL_OK;
}

int bl_pin_begin(int cpu, bl_pinning *p)
{
    p->pinned = 0;
    if (cpu < 0)
        return BL_OK;
    if (sched_getaffinity(0, sizeof p->saved, &p->saved) != 0)
        return bl_sys_error("sched_getaffinity");
    int rc = bl_pin_self(cpu);
    if (rc == BL_OK)
        p->pinned = 1;
    return rc;
}

void bl_pin_end(const bl_pinning *p)
{
    if (p->pinned)
        sched_setaffinity(0, sizeof p->saved, &p->saved);
}

/* ---------- untimed stretches inside a body ---------- */

/* A body whose every call needs set-up that is not the operation (a
 * mapping made before the munmap that is timed, a socket drained after
 * the sends) brackets that set-up with bl_untimed_begin/end; time_once
 * takes the bracketed time out of the sample.  Each bracket costs about
 * one clock read of timed time, so a body brackets batches, not calls. */
static double untimed_ns, untimed_t0;
static uint64_t untimed_ticks, untimed_k0;

void bl_untimed_begin(void)
{
    untimed_t0 = bl_now_ns();
    untimed_k0 = bl_ticks();
}

void bl_untimed_end(void)
{
    uint64_t k = bl_ticks();
    double t = bl_now_ns();
    untimed_ns += t - untimed_t0;
    untimed_ticks += k - untimed_k0;
}

/* ---------- the measurement loop ---------- */

static int time_once(bl_body_fn body, void *ctx, int64_t iters, double *ns, uint64_t *ticks)
{
    untimed_ns = 0.0;
    untimed_ticks = 0;
    uint64_t k0 = bl_ticks();
    double t0 = bl_now_ns();
    int rc = body(ctx, iters);
    double t1 = bl_now_ns();
    uint64_t k1 = bl_ticks();
    *ns = t1 - t0 - untimed_ns;
    *ticks = k1 - k0 - untimed_ticks;
    return rc;
}

/* Noise only ever adds time.  A reading below the target is therefore
 * trustworthy (the true time is lower still), but one at or above it may be
 * a preemption or a host stall: it is confirmed by up to two more readings
 * at the same count, and the least of them decides.  Without this, one
 * slow first call on a busy host fixed a whole run at one iteration per
 * sample. */
static int time_confirmed(bl_body_fn body, void *ctx, int64_t it, double target, double *t,
                          int *runs)
{
    uint64_t k;
    int rc = time_once(body, ctx, it, t, &k);
    *runs = 1;
    for (int again = 0; rc == BL_OK && *t >= target && again < 2; again++) {
        double t2;
        rc = time_once(body, ctx, it, &t2, &k);
        ++*runs;
        if (t2 < *t)
            *t = t2;
    }
    return rc;
}

/* The next count to try when `it` iterations took t ns against a target:
 * the count that would reach the target with 5% to spare, at most ten
 * times the last (one fast reading must not overshoot wildly), at least
 * one more, never above max_it. */
static int64_t bl_next_count(int64_t it, double t, double target, int64_t max_it)
{
    int64_t next = t < target / 1000.0 ? it * 10 : (int64_t)ceil((double)it * target * 1.05 / t);
    if (next > 10 * it)
        next = 10 * it;
    if (next <= it)
        next = it + 1;
    return next < max_it ? next : max_it;
}

/* Calibration: from start_it iterations, grow the count until a confirmed
 * reading lasts o->target_sample_ns and at least 1000 clock steps.
 * *runs_out: how many times it ran the body at the count it chose (its
 * confirming readings), which bl_measure counts as warm-ups: a warm-up is
 * exactly a run at the sample's count before the first sample. */
static int calibrate(bl_body_fn body, void *ctx, const bl_opts *o, int64_t start_it,
                     int64_t *iters_out, double *sample_ns_out, int *runs_out)
{
    double res = bl_clock_resolution_ns();
    double target = o->target_sample_ns;
    if (target < 1000.0 * res)
        target = 1000.0 * res; /* keep the clock's step below 0.1% of a sample */
    int64_t max_it = o->max_iterations > 0 ? o->max_iterations : ((int64_t)1 << 40);
    int64_t it = start_it < 1 ? 1 : start_it < max_it ? start_it : max_it;
    double t = 0.0;
    for (;;) {
        int rc = time_confirmed(body, ctx, it, target, &t, runs_out);
        if (rc != BL_OK)
            return rc;
        if (bl_interrupted())
            return BL_EINTR;
        if (t >= target || it >= max_it)
            break;
        it = bl_next_count(it, t, target, max_it);
    }
    *iters_out = it;
    *sample_ns_out = t;
    return BL_OK;
}

/* Shared by bl_measure (from 1) and benchmarks that must start higher. */
int bl_calibrate(bl_body_fn body, void *ctx, const bl_opts *o, int64_t start_it,
                 int64_t *iters_out, double *sample_ns_out)
{
    int runs;
    return calibrate(body, ctx, o, start_it, iters_out, sample_ns_out, &runs);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The core clock right now: a dependent-add chain of about 10 us (500x
 * the clock's step).  The TSC runs at a constant rate, so only this shows
 * the turbo and power states a guest cannot read from cpufreq. */
static int64_t probe_iters = 0;

static double probe_ghz(void)
{
    if (probe_iters == 0) {
        int64_t it = 16;
        for (;;) {
            double t0 = bl_now_ns();
            bl_add_chain(it);
            double dt = bl_now_ns() - t0;
            if (dt >= 10000.0 || it > (1 << 24))
                break;
            it *= 2;
        }
        probe_iters = it;
    }
    double t0 = bl_now_ns();
    bl_add_chain(probe_iters);
    double dt = bl_now_ns() - t0;
    return (double)probe_iters * 100.0 / dt;
}

double bl_rel_halfwidth(const double *s, int n, int k, int reciprocal)
{
    if (n < 1 || k < 1 || k > n - k + 1)
        return INFINITY;
    double lo = s[k - 1], hi = s[n - k], med;
    if (reciprocal) {
        if (s[0] <= 0.0)
            return INFINITY;
        /* the unit's values are c / s, in the opposite order */
        med = n % 2 ? 1.0 / s[n / 2] : 0.5 * (1.0 / s[n / 2 - 1] + 1.0 / s[n / 2]);
        return med > 0.0 ? (1.0 / lo - 1.0 / hi) / 2.0 / med : INFINITY;
    }
    med = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    return med != 0.0 ? (hi - lo) / 2.0 / fabs(med) : INFINITY;
}

/* The median of m values of x (1/x if reciprocal), sorting tmp. */
static double median_of(const double *x, int m, int reciprocal, double *tmp)
{
    for (int i = 0; i < m; i++)
        tmp[i] = reciprocal ? 1.0 / x[i] : x[i];
    qsort(tmp, (size_t)m, sizeof *tmp, cmp_double);
    return m % 2 ? tmp[m / 2] : 0.5 * (tmp[m / 2 - 1] + tmp[m / 2]);
}

int bl_halves_agree(const double *x, int n, double rel, int reciprocal)
{
    if (n < 2)
        return 0;
    double *tmp = malloc(sizeof *tmp * (size_t)n);
    if (!tmp)
        return 0;
    int h = n / 2;
    double all = median_of(x, n, reciprocal, tmp);
    double first = median_of(x, h, reciprocal, tmp);
    double last = median_of(x + (n - h), h, reciprocal, tmp);
    free(tmp);
    return fabs(first - last) <= 2.0 * rel * fabs(all);
}

/* Insert x into the ascending s[0..n-1] (room for one more). */
static void insert_sorted(double *s, int n, double x)
{
    int i = n;
    while (i > 0 && s[i - 1] > x) {
        s[i] = s[i - 1];
        i--;
    }
    s[i] = x;
}

int bl_run_begin(const bl_opts *o, bl_pinning *pin)
{
    pin->pinned = 0;
    if (o->n_samples < 1) {
        bl_set_error("n_samples must be at least 1");
        return BL_EINVAL;
    }
    return bl_pin_begin(o->cpu, pin);
}

int bl_measure(bl_body_fn body, bl_body_fn overhead, void *ctx,
               const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    bl_pinning pin;
    int rc = bl_run_begin(o, &pin);
    if (rc != BL_OK)
        return rc;
    bl_guard_begin();

    double res = bl_clock_resolution_ns();
    info->clock_resolution_ns = res;
    /* whether samples carry ticks, not their rate: measuring the rate
     * sleeps 20 ms, which a process that runs one measurement (proc_runner,
     * once per call of a parent=small benchmark) would pay every time */
    info->has_ticks = BL_HAVE_TSC;
    info->n_samples = 0;
    info->overhead_ns = 0.0;
    info->cpu_migrations = 0;
    info->cpu_first = info->cpu_last = sched_getcpu();

    double c0 = bl_now_ns();
    int64_t iters = o->iterations;
    info->calibrated_sample_ns = 0.0;
    /* the calibration's runs at its count are warm-ups already */
    info->warmup_runs = 0;
    if (iters <= 0)
        rc = calibrate(body, ctx, o, 1, &iters, &info->calibrated_sample_ns, &info->warmup_runs);
    info->iterations = iters;
    while (rc == BL_OK && info->warmup_runs < o->n_warmup) {
        info->warmup_runs++;
        rc = body(ctx, iters);
        if (rc == BL_OK && bl_interrupted())
            rc = BL_EINTR;
    }
    /* Overhead is subtracted sample by sample: each sample's overhead run is
     * timed right beside it (before it on even samples, after it on odd ones),
     * so both see the same state of the host.  On a host whose speed moves
     * (a busy SMT sibling, another guest) a floor of the overhead taken once
     * and subtracted from every sample leaves the host's slowdown of the
     * overhead's own work inside the figure. */
    int paired = overhead && o->subtract_overhead;
    double *oh = NULL;
    if (rc == BL_OK && paired) {
        oh = malloc(sizeof *oh * (size_t)o->n_samples);
        if (!oh)
            rc = bl_sys_error("malloc");
        double t;
        uint64_t k;
        if (rc == BL_OK) /* warm the overhead's own path, untimed */
            rc = time_once(overhead, ctx, iters, &t, &k);
    }
    /* the adaptive stop: the samples so far, kept sorted */
    double *sorted = NULL, *timed = NULL;   /* the earlier samples, then these */
    int prior = o->stop_prior ? o->stop_prior_n : 0;
    if (rc == BL_OK && o->stop_rel_ci > 0.0 && o->stop_ranks) {
        sorted = malloc(sizeof *sorted * (size_t)(prior + o->n_samples));
        timed = malloc(sizeof *timed * (size_t)(prior + o->n_samples));
        if (!sorted || !timed)
            rc = bl_sys_error("malloc");
        else if (prior > 0) {
            memcpy(timed, o->stop_prior, sizeof *timed * (size_t)prior);
            memcpy(sorted, o->stop_prior, sizeof *sorted * (size_t)prior);
            qsort(sorted, (size_t)prior, sizeof *sorted, cmp_double);
        }
    }
    info->calibration_ns = bl_now_ns() - c0;

    double start = bl_now_ns();
    int prev_cpu = sched_getcpu();
    info->cpu_first = prev_cpu;
    for (int i = 0; rc == BL_OK && i < o->n_samples; i++) {
        double t, g0 = 0.0, ot = 0.0;
        uint64_t k, ok = 0;
        if (o->clock_ghz)
            g0 = probe_ghz();
        if (paired && i % 2 == 0)
            rc = time_once(overhead, ctx, iters, &ot, &ok);
        if (rc == BL_OK)
            rc = time_once(body, ctx, iters, &t, &k);
        if (rc == BL_OK && paired && i % 2 == 1)
            rc = time_once(overhead, ctx, iters, &ot, &ok);
        if (rc != BL_OK)
            break;
        if (o->clock_ghz)
            o->clock_ghz[i] = 0.5 * (g0 + probe_ghz());
        double oh_ns = ot / (double)iters;
        if (oh)
            oh[i] = oh_ns;
        ns[i] = t / (double)iters - oh_ns;
        if (ticks)
            ticks[i] = info->has_ticks ? ((double)k - (double)ok) / (double)iters : NAN;
        info->n_samples = i + 1;
        int cpu = sched_getcpu();
        if (cpu != prev_cpu)
            info->cpu_migrations++;
        prev_cpu = cpu;
        info->cpu_last = cpu;
        if (bl_interrupted()) {
            rc = BL_EINTR;
            break;
        }
        if (sorted) {
            int n = prior + i + 1;
            insert_sorted(sorted, n - 1, ns[i]);
            timed[n - 1] = ns[i];
            if (bl_rel_halfwidth(sorted, n, o->stop_ranks[n], o->stop_reciprocal)
                <= o->stop_rel_ci
                && bl_halves_agree(timed, n, o->stop_rel_ci, o->stop_reciprocal))
                break;
        }
        if (o->max_total_ns > 0 && bl_now_ns() - start > o->max_total_ns)
            break;
    }
    free(sorted);
    free(timed);
    if (oh && info->n_samples > 0) { /* the median overhead, as reported */
        qsort(oh, (size_t)info->n_samples, sizeof *oh, cmp_double);
        int n = info->n_samples;
        info->overhead_ns = n % 2 ? oh[n / 2] : 0.5 * (oh[n / 2 - 1] + oh[n / 2]);
    }
    free(oh);

    bl_guard_end();
    bl_pin_end(&pin);
    return rc;
}

/* ---------- a body for testing the interrupt path ---------- */

static int sleep_body(void *ctx, int64_t iters)
{
    double us = *(double *)ctx;
    for (int64_t i = 0; i < iters; i++) {
        struct timespec req = {(time_t)(us / 1e6), (long)(fmod(us, 1e6) * 1000.0)};
        if (nanosleep(&req, NULL) != 0) {
            if (errno == EINTR && bl_interrupted())
                return BL_EINTR;
            if (errno != EINTR)
                return bl_sys_error("nanosleep");
        }
    }
    return BL_OK;
}

int bl_sleep_loop(double sleep_us, const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    if (!(sleep_us >= 0.0)) {
        bl_set_error("sleep_us must be >= 0");
        return BL_EINVAL;
    }
    return bl_measure(sleep_body, NULL, &sleep_us, o, ns, ticks, info);
}

/* A body for testing calibration: its very first iteration (in the whole
 * run) sleeps first_us, every other one then_us, as a host that stalls the
 * first call of a run would. */
typedef struct {
    double first_us, then_us;
    int stalled;
} stall_ctx;

static int stall_once_body(void *ctx, int64_t iters)
{
    stall_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        double us = c->stalled ? c->then_us : c->first_us;
        c->stalled = 1;
        int rc = sleep_body(&us, 1);
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

int bl_stall_once_loop(double first_us, double then_us, const bl_opts *o, double *ns,
                       double *ticks, bl_info *info)
{
    if (!(first_us >= 0.0) || !(then_us >= 0.0)) {
        bl_set_error("sleep times must be >= 0");
        return BL_EINVAL;
    }
    stall_ctx c = {first_us, then_us, 0};
    return bl_measure(stall_once_body, NULL, &c, o, ns, ticks, info);
}

/* A body for testing the untimed brackets: each iteration sleeps
 * untimed_us inside bl_untimed_begin/end, then timed_us in the open. */
typedef struct {
    double untimed_us, timed_us;
} untimed_ctx;

static int untimed_sleep_body(void *ctx, int64_t iters)
{
    untimed_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        bl_untimed_begin();
        int rc = sleep_body(&c->untimed_us, 1);
        bl_untimed_end();
        if (rc == BL_OK)
            rc = sleep_body(&c->timed_us, 1);
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

int bl_untimed_sleep_loop(double untimed_us, double timed_us, const bl_opts *o, double *ns,
                          double *ticks, bl_info *info)
{
    if (!(untimed_us >= 0.0) || !(timed_us >= 0.0)) {
        bl_set_error("sleep times must be >= 0");
        return BL_EINVAL;
    }
    untimed_ctx c = {untimed_us, timed_us};
    return bl_measure(untimed_sleep_body, NULL, &c, o, ns, ticks, info);
}
