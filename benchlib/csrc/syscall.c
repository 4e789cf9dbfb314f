/*
 * syscall.c -- the cost of entering and leaving the kernel.
 *
 * getpid goes through syscall(2) because some C libraries have cached the
 * pid in user space (Ousterhout saw this on HP-UX in 1990; glibc did it
 * until 2.25), and a cached getpid never enters the kernel.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct {
    int fd;
} syscall_ctx;

static int getpid_body(void *ctx, int64_t iters)
{
    (void)ctx;
    for (int64_t i = 0; i < iters; i++) {
        long r = syscall(SYS_getpid);
        BL_KEEP(r);
    }
    return BL_OK;
}

/* getppid reads the parent under RCU: a little more work than getpid, and
 * the call `perf bench syscall basic` makes, so the two can be compared. */
static int getppid_body(void *ctx, int64_t iters)
{
    (void)ctx;
    for (int64_t i = 0; i < iters; i++) {
        long r = syscall(SYS_getppid);
        BL_KEEP(r);
    }
    return BL_OK;
}

static int write_body(void *ctx, int64_t iters)
{
    int fd = ((syscall_ctx *)ctx)->fd;
    char c = 'x';
    for (int64_t i = 0; i < iters; i++) {
        if (write(fd, &c, 1) != 1)
            return bl_sys_error("write to /dev/null");
    }
    return BL_OK;
}

static int read_body(void *ctx, int64_t iters)
{
    int fd = ((syscall_ctx *)ctx)->fd;
    char c;
    for (int64_t i = 0; i < iters; i++) {
        if (read(fd, &c, 1) != 1)
            return bl_sys_error("read from /dev/zero");
        BL_KEEP(c);
    }
    return BL_OK;
}

/* stat of a two-component path: the name lookup is part of the cost */
static int stat_body(void *ctx, int64_t iters)
{
    (void)ctx;
    struct stat st;
    for (int64_t i = 0; i < iters; i++) {
        if (stat("/dev/null", &st) != 0)
            return bl_sys_error("stat /dev/null");
        BL_CLOBBER();
    }
    return BL_OK;
}

static int fstat_body(void *ctx, int64_t iters)
{
    int fd = ((syscall_ctx *)ctx)->fd;
    struct stat st;
    for (int64_t i = 0; i < iters; i++) {
        if (fstat(fd, &st) != 0)
            return bl_sys_error("fstat");
        BL_CLOBBER();
    }
    return BL_OK;
}

/* The loop with the call taken out, for subtract_overhead. */
static int empty_body(void *ctx, int64_t iters)
{
    (void)ctx;
    for (int64_t i = 0; i < iters; i++)
        BL_CLOBBER();
    return BL_OK;
}

int bl_syscall_latency(int op, const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    syscall_ctx c = {-1};
    bl_body_fn body;
    switch (op) {
    case BL_SYSCALL_GETPID:
        body = getpid_body;
        break;
    case BL_SYSCALL_GETPPID:
        body = getppid_body;
        break;
    case BL_SYSCALL_WRITE:
        c.fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (c.fd < 0)
            return bl_sys_error("open /dev/null");
        body = write_body;
        break;
    case BL_SYSCALL_READ:
        c.fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
        if (c.fd < 0)
            return bl_sys_error("open /dev/zero");
        body = read_body;
        break;
    case BL_SYSCALL_STAT:
        body = stat_body;
        break;
    case BL_SYSCALL_FSTAT:
        c.fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (c.fd < 0)
            return bl_sys_error("open /dev/null");
        body = fstat_body;
        break;
    default:
        bl_set_error("unknown syscall op %d", op);
        return BL_EINVAL;
    }
    info->helper_cpu = -1;
    int rc = bl_measure(body, empty_body, &c, o, ns, ticks, info);
    if (c.fd >= 0)
        close(c.fd);
    return rc;
}
