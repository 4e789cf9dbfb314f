/*
 * internal.h -- what benchlib's C files share among themselves: the timing
 * core, errors, the SIGINT guard, CPU pinning, helper processes and the
 * I/O loops between them.  Not seen by cffi; the public API is benchlib.h.
 */
#ifndef BENCHLIB_INTERNAL_H
#define BENCHLIB_INTERNAL_H

#include "benchlib.h"

/* A benchmark body runs `iters` iterations of its operation and returns
 * BL_OK or an error code.  It must do nothing else that costs time. */
typedef int (*bl_body_fn)(void *ctx, int64_t iters);

/* The timing core: calibrate, warm up, take samples, optionally subtract
 * the cost of `overhead` (same iteration count) from each sample. */
int bl_measure(bl_body_fn body, bl_body_fn overhead, void *ctx,
               const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* cpu.c: `iters` x 100 dependent adds (100 core cycles each). */
int bl_add_chain(int64_t iters);

void bl_set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int bl_sys_error(const char *what);          /* sets message from errno, returns BL_ESYS */
int bl_interrupted(void);                   /* SIGINT seen since the guard began */
/* Watch for SIGINT (nests; bl_measure does it itself). */
void bl_guard_begin(void);
void bl_guard_end(void);
int bl_pin_self(int cpu);                   /* 0 or BL_ESYS/BL_EINVAL */
#ifdef _GNU_SOURCE /* cpu_set_t; every C file of the library defines it */
#include <sched.h>
/* A thread pinned for a measurement and the affinity to give back after. */
typedef struct {
    cpu_set_t saved;
    int pinned;
} bl_pinning;
int bl_pin_begin(int cpu, bl_pinning *p);   /* cpu < 0: leaves the thread as it is */
void bl_pin_end(const bl_pinning *p);
#endif

/* net.c, shared with call.c: fork a helper process named `name` (dies with
 * its parent, ignores SIGINT, pinned to helper_cpu if >= 0; returns 0 in
 * the child, its pid in the parent, -1 on failure); kill and reap it; after
 * a failed first exchange, name a helper that could not pin itself; write
 * or read exactly n bytes (sockets with MSG_NOSIGNAL; BL_EINTR on SIGINT). */
pid_t bl_fork_helper(const char *name, int helper_cpu);
void bl_stop_helper(pid_t pid);
int bl_helper_failure(pid_t pid, int rc, int helper_cpu);
int bl_put_all(int fd, int is_sock, const void *buf, size_t n);
int bl_get_all(int fd, void *buf, size_t n);

/* Keep a value alive so the compiler cannot drop the work that made it. */
#define BL_KEEP(x) __asm__ __volatile__("" : : "r"(x) : "memory")
#define BL_CLOBBER() __asm__ __volatile__("" : : : "memory")

#endif
