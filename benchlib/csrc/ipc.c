/*
 * ipc.c -- communication between processes.
 *
 * pipe_latency: the parent writes one byte into one pipe, a forked child
 * reads it and writes it back through a second pipe, the parent reads it.
 * One iteration is one round trip: two writes, two reads and, when both
 * processes share a CPU, two context switches (Ousterhout's "cswitch").
 *
 * The child never outlives the measurement: it dies with its parent
 * (PR_SET_PDEATHSIG), ignores the terminal's SIGINT so that the parent
 * alone decides when to stop, and is killed and reaped on every return
 * path.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int to_child;   /* parent writes here */
    int from_child; /* parent reads here */
} pipe_ctx;

/* Move one byte through a pipe, retrying after a signal; always inlined
 * with a constant `writing`, so each call site is a plain write or read. */
static inline __attribute__((always_inline)) int pipe_byte(int fd, int writing)
{
    char c = 'x';
    for (;;) {
        ssize_t n = writing ? write(fd, &c, 1) : read(fd, &c, 1);
        if (n == 1)
            return BL_OK;
        if (n < 0 && errno == EINTR) {
            if (bl_interrupted())
                return BL_EINTR;
            continue;
        }
        if (n == 0 && !writing) {
            bl_set_error("the echo process exited during the measurement");
            return BL_ESYS;
        }
        return bl_sys_error(writing ? "pipe write" : "pipe read");
    }
}

static int write_byte(int fd) { return pipe_byte(fd, 1); }

static int read_byte(int fd) { return pipe_byte(fd, 0); }

static int round_trip_body(void *ctx, int64_t iters)
{
    pipe_ctx *p = ctx;
    for (int64_t i = 0; i < iters; i++) {
        int rc = write_byte(p->to_child);
        if (rc == BL_OK)
            rc = read_byte(p->from_child);
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

static void echo_child(int in, int out, int cpu, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* parent died before prctl took effect */
        _exit(1);
    prctl(PR_SET_NAME, "bl-pipe-echo");
    signal(SIGINT, SIG_IGN);
    if (cpu >= 0 && bl_pin_self(cpu) != BL_OK)
        _exit(3);
    char c;
    for (;;) {
        ssize_t n = read(in, &c, 1);
        if (n == 0)
            _exit(0); /* parent closed its end: done */
        if (n < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        if (write(out, &c, 1) != 1)
            _exit(1);
    }
}

int bl_pipe_latency(const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    int ours[2], theirs[2];   /* ours[0] -> theirs[0] (down), theirs[1] -> ours[1] (up) */
    int rc0 = bl_pipe_pair(ours, theirs);
    if (rc0 != BL_OK)
        return rc0;
    bl_guard_begin();
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        int rc = bl_sys_error("fork");
        for (int k = 0; k < 2; k++) {
            close(ours[k]);
            close(theirs[k]);
        }
        bl_guard_end();
        return rc;
    }
    if (child == 0) {
        close(ours[0]);
        close(ours[1]);
        echo_child(theirs[0], theirs[1], o->helper_cpu, parent);
        _exit(0);
    }
    close(theirs[0]);
    close(theirs[1]);
    pipe_ctx p = {ours[0], ours[1]};
    info->helper_cpu = o->helper_cpu;

    /* One round trip first, so a child that failed to start (e.g. could not
     * pin itself) is reported as such rather than as a broken pipe later. */
    int rc = round_trip_body(&p, 1);
    if (rc == BL_ESYS) {
        int status;
        if (waitpid(child, &status, WNOHANG) == child && WIFEXITED(status) &&
            WEXITSTATUS(status) == 3) {
            bl_set_error("the echo process could not pin itself to CPU %d", o->helper_cpu);
            rc = BL_EINVAL;
        }
    }
    if (rc == BL_OK)
        rc = bl_measure(round_trip_body, NULL, &p, o, ns, ticks, info);

    close(p.to_child);
    close(p.from_child);
    kill(child, SIGKILL);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    bl_guard_end();
    return rc;
}

/* select with a zero timeout over n pipes, empty or each holding a byte
 * (Ousterhout's Table 4).  The fd_set is rebuilt every call, as a program
 * must. */
typedef struct {
    int n, maxfd, full;
    int fds[64];
} select_ctx;

static int select_body(void *ctx, int64_t iters)
{
    select_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        fd_set r;
        FD_ZERO(&r);
        for (int k = 0; k < c->n; k++)
            FD_SET(c->fds[k], &r);
        struct timeval tv = {0, 0};
        int ready = select(c->maxfd + 1, &r, NULL, NULL, &tv);
        if (ready != (c->full ? c->n : 0)) {
            if (ready < 0 && errno == EINTR && !bl_interrupted())
                continue;
            return ready < 0 ? bl_sys_error("select")
                             : (bl_set_error("select saw %d ready pipes", ready), BL_ESYS);
        }
    }
    return BL_OK;
}

int bl_select_latency(int pipes, int full, const bl_opts *o, double *ns, double *ticks,
                      bl_info *info)
{
    if (pipes < 1 || pipes > 64) {
        bl_set_error("pipes must be between 1 and 64");
        return BL_EINVAL;
    }
    select_ctx c = {pipes, 0, full, {0}};
    int wr[64], rc = BL_OK, made = 0;
    for (; made < pipes; made++) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) {
            rc = bl_sys_error("pipe");
            break;
        }
        c.fds[made] = p[0];
        wr[made] = p[1];
        if (p[0] >= FD_SETSIZE) {
            close(p[0]);
            close(p[1]);
            bl_set_error("descriptor %d is beyond FD_SETSIZE", p[0]);
            rc = BL_ESYS;
            break;
        }
        if (p[0] > c.maxfd)
            c.maxfd = p[0];
        if (full && write(p[1], "x", 1) != 1) {
            rc = bl_sys_error("write");
            made++;
            break;
        }
    }
    if (rc == BL_OK) {
        info->helper_cpu = -1;
        rc = bl_measure(select_body, NULL, &c, o, ns, ticks, info);
    }
    for (int k = 0; k < made; k++) {
        close(c.fds[k]);
        close(wr[k]);
    }
    return rc;
}

/*
 * The parts of a cswitch round trip, measured apart so the round trip can
 * be checked against them (Ousterhout: two writes, two reads, two context
 * switches).
 *
 * pipe_self: one process writes a byte into a pipe and reads it back, so
 * the reader never blocks and nothing switches.  One iteration is one write
 * plus one read.
 */
static int pipe_self_body(void *ctx, int64_t iters)
{
    int *fds = ctx;
    for (int64_t i = 0; i < iters; i++) {
        int rc = write_byte(fds[1]);
        if (rc == BL_OK)
            rc = read_byte(fds[0]);
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

int bl_pipe_self(const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
        return bl_sys_error("pipe");
    info->helper_cpu = -1;
    int rc = bl_measure(pipe_self_body, NULL, fds, o, ns, ticks, info);
    close(fds[0]);
    close(fds[1]);
    return rc;
}

/*
 * yield_switch: this process and a forked child, both pinned to one CPU,
 * call sched_yield in turn.  When each yield hands the CPU to the other,
 * one iteration (one yield here, one there) is two system calls and two
 * context switches, with no wake-up and no data.  Whether the hand-over
 * really alternates is checked, not assumed: both count their yields in
 * shared memory, and *child_per_parent reports the child's yields per
 * parent yield over the whole run (1.0 when they alternate).
 */
#include <sched.h>
#include <sys/mman.h>

typedef struct {
    volatile int64_t parent_yields, child_yields;
    volatile int stop;
} yield_shared;

static int yield_body(void *ctx, int64_t iters)
{
    yield_shared *y = ctx;
    for (int64_t i = 0; i < iters; i++) {
        sched_yield();
        y->parent_yields++;
    }
    return BL_OK;
}

int bl_yield_switch(const bl_opts *o, double *child_per_parent, double *ns, double *ticks,
                    bl_info *info)
{
    if (o->cpu < 0) {
        bl_set_error("yield_switch needs both processes on one CPU (cpu >= 0)");
        return BL_EINVAL;
    }
    yield_shared *y = mmap(NULL, sizeof *y, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (y == MAP_FAILED)
        return bl_sys_error("mmap");
    bl_guard_begin();
    pid_t parent = getpid();
    pid_t child = fork();
    if (child < 0) {
        int rc = bl_sys_error("fork");
        munmap(y, sizeof *y);
        bl_guard_end();
        return rc;
    }
    if (child == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
        prctl(PR_SET_NAME, "bl-yield");
        signal(SIGINT, SIG_IGN);
        if (bl_pin_self(o->cpu) != BL_OK)
            _exit(3);
        while (!y->stop) {
            sched_yield();
            y->child_yields++;
        }
        _exit(0);
    }
    info->helper_cpu = o->cpu;
    /* wait until the child runs, pinned, before timing anything */
    int rc = BL_OK;
    for (int spins = 0; y->child_yields == 0; spins++) {
        int status;
        if (waitpid(child, &status, WNOHANG) == child) {
            bl_set_error("the yielding child exited (could not pin itself to CPU %d?)", o->cpu);
            rc = BL_ESYS;
            break;
        }
        if (bl_interrupted()) {
            rc = BL_EINTR;
            break;
        }
        sched_yield();
    }
    int64_t p0 = y->parent_yields, c0 = y->child_yields;
    if (rc == BL_OK)
        rc = bl_measure(yield_body, NULL, y, o, ns, ticks, info);
    int64_t dp = y->parent_yields - p0, dc = y->child_yields - c0;
    *child_per_parent = dp > 0 ? (double)dc / (double)dp : 0.0;
    y->stop = 1;
    kill(child, SIGKILL);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    munmap(y, sizeof *y);
    bl_guard_end();
    return rc;
}
