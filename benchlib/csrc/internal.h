/*
 * internal.h -- what benchlib's C files share among themselves: the timing
 * core, errors, the SIGINT guard, CPU pinning, helper processes and the
 * I/O loops between them.  Not seen by cffi; the public API is benchlib.h.
 */
#ifndef BENCHLIB_INTERNAL_H
#define BENCHLIB_INTERNAL_H

#include "benchlib.h"

#include <time.h>

/* CLOCK_MONOTONIC in ns: the clock every timed interval is read from. */
static inline double bl_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A benchmark body runs `iters` iterations of its operation and returns
 * BL_OK or an error code.  It must do nothing else that costs time. */
typedef int (*bl_body_fn)(void *ctx, int64_t iters);

/* The timing core: calibrate, warm up, take samples, optionally subtract
 * the cost of `overhead` (same iteration count) from each sample. */
int bl_measure(bl_body_fn body, bl_body_fn overhead, void *ctx,
               const bl_opts *o, double *ns, double *ticks, bl_info *info);

/* timing.c: leave a body's set-up out of the sample it is timed in (a
 * body brackets batches of set-up, not single calls: each bracket costs
 * about one clock read of timed time). */
void bl_untimed_begin(void);
void bl_untimed_end(void);

/* Sum 64-bit words in four independent chains, so that the adds are not
 * the limit and the loads are: a file reread's summing (fs.c) and the
 * context switch's cache footprint (proc.c). */
static inline uint64_t bl_sum_words(const uint64_t *p, size_t words)
{
    uint64_t a = 0, b = 0, c = 0, d = 0;
    size_t i = 0;
    for (; i + 4 <= words; i += 4) {
        a += p[i];
        b += p[i + 1];
        c += p[i + 2];
        d += p[i + 3];
    }
    for (; i < words; i++)
        a += p[i];
    return a + b + c + d;
}

/* Read every step-th word of s (words of them) in four independent sums, so
 * the adds do not serialise the loads: mem_bandwidth's read (memory.c). */
static inline uint64_t bl_read_words(const uint64_t *s, size_t words, size_t step)
{
    uint64_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    size_t i = 0, n4 = words - words % (4 * step);
    for (; i < n4; i += 4 * step) {
        a0 += s[i];
        a1 += s[i + step];
        a2 += s[i + 2 * step];
        a3 += s[i + 3 * step];
    }
    for (; i < words; i += step)
        a0 += s[i];
    return a0 + a1 + a2 + a3;
}

/* Copy 64-bit words, eight an iteration: mem_bandwidth's copy (memory.c). */
static inline void bl_copy_words(uint64_t *d, const uint64_t *s, size_t words)
{
    size_t i = 0, n8 = words - words % 8;
    for (; i < n8; i += 8) {
        d[i] = s[i];
        d[i + 1] = s[i + 1];
        d[i + 2] = s[i + 2];
        d[i + 3] = s[i + 3];
        d[i + 4] = s[i + 4];
        d[i + 5] = s[i + 5];
        d[i + 6] = s[i + 6];
        d[i + 7] = s[i + 7];
    }
    for (; i < words; i++)
        d[i] = s[i];
}

/* add_chain.c: `iters` x 100 dependent adds (100 core cycles each); the
 * body form is the cpu_clock benchmark's (ctx: the chain's start value). */
int bl_add_chain(int64_t iters);
int bl_add_chain_body(void *ctx, int64_t iters);

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
int bl_calibrate(bl_body_fn body, void *ctx, const bl_opts *o, int64_t start_it,
                 int64_t *iters_out, double *sample_ns_out);  /* timing.c */
int bl_pin_begin(int cpu, bl_pinning *p);   /* cpu < 0: leaves the thread as it is */
/* The start of a run that times itself: BL_EINVAL for no samples, then
 * pinned to o->cpu (bl_pin_end after). */
int bl_run_begin(const bl_opts *o, bl_pinning *pin);
void bl_pin_end(const bl_pinning *p);
#endif

/* helper.c: fork a helper process named `name` (dies with its parent,
 * ignores SIGINT, pinned to helper_cpu if >= 0; returns 0 in the child, its
 * pid in the parent, -1 on failure); kill and reap it; after a failed first
 * exchange, name a helper that could not pin itself; write or read exactly
 * n bytes (sockets with MSG_NOSIGNAL; BL_EINTR on SIGINT); the same in the
 * child (0, or -1 on end of file or error); close a descriptor and mark it
 * closed (-1). */
#define BL_NET_HELPER "bl-net-echo"   /* the net_*.c and rpc.c children */
pid_t bl_fork_helper(const char *name, int helper_cpu);
void bl_stop_helper(pid_t pid);
int bl_helper_failure(pid_t pid, int rc, int helper_cpu);
int bl_put_all(int fd, int is_sock, const void *buf, size_t n);
int bl_get_all(int fd, void *buf, size_t n);
int bl_child_read_all(int fd, void *buf, size_t n);
int bl_child_write_all(int fd, const void *buf, size_t n);
void bl_close_fd(int *fd);
int bl_pipe_pair(int ours[2], int theirs[2]);   /* ours[0] -> theirs[0], theirs[1] -> ours[1] */

/* helper.c: loopback sockets, made before the fork.  bl_loopback: 127.0.0.1
 * at a port (network order); bl_close_abortively: close with SO_LINGER 0 (a
 * reset, no TIME_WAIT); bl_set_buffers: SO_SNDBUF and SO_RCVBUF (bytes > 0);
 * bl_bound_socket: a socket of `type` bound to an ephemeral loopback port
 * (*addr); bl_listener: a bound, listening TCP socket; bl_tcp_pair: both
 * ends of a loopback TCP connection (TCP_NODELAY on both if nodelay);
 * bl_udp_pair: two loopback UDP sockets connected to each other (buffers
 * sized if buffer_bytes > 0; a receive timeout on ours if timeout_s > 0). */
#include <netinet/in.h>
struct sockaddr_in bl_loopback(uint16_t port_net);
void bl_close_abortively(int *fd);
int bl_set_buffers(int fd, int bytes);
int bl_bound_socket(int type, int buffer_bytes, struct sockaddr_in *addr, int *fd_out);
int bl_listener(int buffer_bytes, struct sockaddr_in *addr, int *fd_out);
int bl_tcp_pair(int buffer_bytes, int nodelay, int fds[2]);
int bl_udp_pair(int buffer_bytes, int timeout_s, int fds[2]);

/* Measured memory (buffer.c): bl_buffer_map maps `bytes` aligned to
 * BL_HUGE_ALIGN (2 MiB, so that huge pages can back it when asked: huge = 1
 * asks for transparent huge pages, 0 for none, so that a system set to THP
 * "always" does not change a measurement silently) with every page faulted
 * in; bl_buffer_unmap returns it; bl_huge_bytes: the bytes of a range that
 * huge pages back, from /proc/self/smaps. */
#define BL_HUGE_ALIGN ((size_t)2 << 20)
typedef struct {
    char *base;   /* aligned start handed out */
    void *map;    /* what mmap returned */
    size_t map_len;
} bl_buffer;
int bl_buffer_map(bl_buffer *b, size_t bytes, int huge);
void bl_buffer_unmap(bl_buffer *b);
size_t bl_huge_bytes(const void *addr, size_t len);

/* Keep a value alive so the compiler cannot drop the work that made it. */
#define BL_KEEP(x) __asm__ __volatile__("" : : "r"(x) : "memory")
#define BL_CLOBBER() __asm__ __volatile__("" : : : "memory")

#endif
