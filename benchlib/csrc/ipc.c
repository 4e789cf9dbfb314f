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
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
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

/* select, poll or epoll_wait with a zero timeout over n pipes, empty or
 * each holding a byte (Ousterhout's Table 4 for select; LEBench's 10 and
 * 1,000 descriptors for all three).  select overwrites its fd_set, so each
 * call starts from a copy of one built before the loop (a program's usual
 * master set; rebuilding it with FD_SET per descriptor would add ~1 ns a
 * descriptor of user time to the kernel's); poll's array is reused (the kernel writes only
 * revents); epoll's interest set is built once, before the timed loop, and
 * each call only collects the ready list.
 *
 * 1,000 empty pipes need 2,000 descriptors (a pipe whose write end is
 * closed reads as ready).  The soft RLIMIT_NOFILE is raised to the hard
 * limit for the run and put back after it, and the write ends are moved to
 * descriptors >= FD_SETSIZE so that select's read ends fit under it.
 *
 * files=1 waits on n opens of one regular file instead (the classic
 * "select on files" figure): a file has no poll method, so each descriptor costs
 * the call only its lookup and the default "ready" mask, where a pipe's
 * poll takes its lock and its wait queue.  The file is a memfd (nothing
 * left on disk), each descriptor a separate open of it (its own struct
 * file); files=2 makes them dups of one open instead (one struct file
 * behind every descriptor, as the classic select-on-files figure has
 * them).  epoll refuses regular files (EPERM), so files is select or poll
 * only. */
#define BL_WAIT_SELECT 0
#define BL_WAIT_POLL 1
#define BL_WAIT_EPOLL 2
#define BL_WAIT_MAX_FDS 1000

typedef struct {
    int n, maxfd, full, call, epfd;
    fd_set master; /* select's set, built once: each call starts from a copy */
    int *fds;
    struct pollfd *pfds;
    struct epoll_event *events;
} wait_ctx;

static int wait_check(const wait_ctx *c, int ready, const char *what)
{
    if (ready == (c->full ? c->n : 0))
        return BL_OK;
    if (ready < 0 && errno == EINTR && !bl_interrupted())
        return 1; /* again */
    return ready < 0 ? bl_sys_error(what)
                     : (bl_set_error("%s saw %d ready pipes of %d", what, ready, c->n), BL_ESYS);
}

static int select_body(void *ctx, int64_t iters)
{
    wait_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        fd_set r = c->master;
        struct timeval tv = {0, 0};
        int rc = wait_check(c, select(c->maxfd + 1, &r, NULL, NULL, &tv), "select");
        if (rc == 1)
            continue;
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

static int poll_body(void *ctx, int64_t iters)
{
    wait_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        int rc = wait_check(c, poll(c->pfds, (nfds_t)c->n, 0), "poll");
        if (rc == 1)
            continue;
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

static int epoll_body(void *ctx, int64_t iters)
{
    wait_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        int rc = wait_check(c, epoll_wait(c->epfd, c->events, c->n, 0), "epoll_wait");
        if (rc == 1)
            continue;
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

int bl_select_latency(int pipes, int full, int call, int files, const bl_opts *o, double *ns,
                      double *ticks, bl_info *info)
{
    if (files && call == BL_WAIT_EPOLL) {
        bl_set_error("epoll cannot wait on regular files (the kernel refuses them): use "
                     "descriptor=pipe, or call=select or poll");
        return BL_EINVAL;
    }
    if (pipes < 1 || pipes > BL_WAIT_MAX_FDS) {
        bl_set_error("pipes must be between 1 and %d", BL_WAIT_MAX_FDS);
        return BL_EINVAL;
    }
    if (call < BL_WAIT_SELECT || call > BL_WAIT_EPOLL) {
        bl_set_error("call must be select, poll or epoll");
        return BL_EINVAL;
    }
    struct rlimit saved, raised;
    if (getrlimit(RLIMIT_NOFILE, &saved) != 0)
        return bl_sys_error("getrlimit");
    rlim_t need = (rlim_t)FD_SETSIZE + (rlim_t)pipes + 64;
    raised = saved;
    if (raised.rlim_cur < need)
        raised.rlim_cur = raised.rlim_max == RLIM_INFINITY || raised.rlim_max >= need
                              ? need : raised.rlim_max;
    if (raised.rlim_cur != saved.rlim_cur && setrlimit(RLIMIT_NOFILE, &raised) != 0)
        return bl_sys_error("setrlimit RLIMIT_NOFILE");

    wait_ctx c = {.n = pipes, .full = full || files, .call = call, .epfd = -1};
    FD_ZERO(&c.master);
    int memfd = -1;
    if (files) {
        memfd = (int)syscall(SYS_memfd_create, "bl-select", 1U /* MFD_CLOEXEC */);
        if (memfd < 0) {
            if (raised.rlim_cur != saved.rlim_cur)
                setrlimit(RLIMIT_NOFILE, &saved);
            return bl_sys_error("memfd_create");
        }
    }
    int *wr = calloc((size_t)pipes, sizeof *wr);
    c.fds = calloc((size_t)pipes, sizeof *c.fds);
    c.pfds = calloc((size_t)pipes, sizeof *c.pfds);
    c.events = calloc((size_t)pipes, sizeof *c.events);
    int rc = BL_OK, made = 0;
    if (!wr || !c.fds || !c.pfds || !c.events) {
        bl_set_error("out of memory for %d pipes", pipes);
        rc = BL_ESYS;
    }
    for (; rc == BL_OK && made < pipes; made++) {
        int p[2];
        if (files) {
            /* files=1: a separate open of the memfd (its own struct file);
             * files=2: the first open, then dups of it.  No write end. */
            int dup_it = files == 2 && made > 0;
            char path[64];
            snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
            p[0] = dup_it ? fcntl(c.fds[0], F_DUPFD_CLOEXEC, 0) : open(path, O_RDONLY | O_CLOEXEC);
            if (p[0] < 0) {
                rc = bl_sys_error(dup_it ? "dup of the memfd's open" : "open of the memfd");
                break;
            }
            p[1] = -1;
        } else if (pipe2(p, O_CLOEXEC) != 0) {
            rc = errno == EMFILE ? (bl_set_error("%d pipes need %d descriptors; this process may "
                                                 "open %llu (RLIMIT_NOFILE)", pipes, 2 * pipes,
                                                 (unsigned long long)raised.rlim_cur), BL_ESYS)
                                 : bl_sys_error("pipe");
            break;
        }
        /* the write end out of select's way, above FD_SETSIZE when allowed */
        int hi = files ? -1 : fcntl(p[1], F_DUPFD_CLOEXEC, FD_SETSIZE);
        if (hi >= 0) {
            close(p[1]);
            p[1] = hi;
        }
        c.fds[made] = p[0];
        wr[made] = p[1];
        if (p[0] < FD_SETSIZE)
            FD_SET(p[0], &c.master);
        c.pfds[made].fd = p[0];
        c.pfds[made].events = POLLIN;
        if (p[0] > c.maxfd)
            c.maxfd = p[0];
        if (call == BL_WAIT_SELECT && p[0] >= FD_SETSIZE) {
            made++;
            bl_set_error("descriptor %d is beyond select's FD_SETSIZE (%d): use call=poll or "
                         "epoll for this many pipes", p[0], FD_SETSIZE);
            rc = BL_EINVAL;
            break;
        }
        if (full && !files && write(p[1], "x", 1) != 1) {
            rc = bl_sys_error("write");
            made++;
            break;
        }
    }
    if (rc == BL_OK && call == BL_WAIT_EPOLL) {
        c.epfd = epoll_create1(EPOLL_CLOEXEC);
        if (c.epfd < 0)
            rc = bl_sys_error("epoll_create1");
        for (int k = 0; rc == BL_OK && k < pipes; k++) {
            struct epoll_event ev = {.events = EPOLLIN, .data.fd = c.fds[k]};
            if (epoll_ctl(c.epfd, EPOLL_CTL_ADD, c.fds[k], &ev) != 0)
                rc = bl_sys_error("epoll_ctl");
        }
    }
    if (rc == BL_OK) {
        info->helper_cpu = -1;
        bl_body_fn body = call == BL_WAIT_SELECT ? select_body
                        : call == BL_WAIT_POLL   ? poll_body : epoll_body;
        rc = bl_measure(body, NULL, &c, o, ns, ticks, info);
    }
    if (c.epfd >= 0)
        close(c.epfd);
    for (int k = 0; k < made; k++) {
        close(c.fds[k]);
        if (wr[k] >= 0)
            close(wr[k]);
    }
    if (memfd >= 0)
        close(memfd);
    free(wr);
    free(c.fds);
    free(c.pfds);
    free(c.events);
    if (raised.rlim_cur != saved.rlim_cur)
        setrlimit(RLIMIT_NOFILE, &saved);
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
