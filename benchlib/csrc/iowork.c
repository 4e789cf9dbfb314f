/*
 * iowork.c -- the synthetic I/O workload of Chen and Patterson's
 * self-scaling benchmark (ACM TOCS 12(4), 1994), written from the paper.
 *
 * A workload is five numbers: unique_bytes (the distinct data, here the
 * first unique_bytes of one file), size_mean_bytes (request sizes drawn
 * from a normal distribution with standard deviation equal to the mean),
 * read_frac, seq_frac (the chance that a request starts where the same
 * process's previous request ended) and process_num (processes issuing
 * requests at once, each with its own thread of addresses).
 *
 * The caller's process forks process_num workers.  Each joins the memory
 * cgroup it is given (so the page cache it fills is limited), opens the
 * file, and waits at a barrier; all are released together and issue
 * requests for duration_s (or until they have moved their share of
 * total_bytes).  Each worker times every request and its own CPU time
 * over the timed part; the results come back through shared memory.
 *
 * Draws of a size <= 0 or above the largest request (min(unique_bytes,
 * 8 x mean)) are redrawn: the sizes follow a truncated normal whose mean
 * is about 1.29 x size_mean_bytes; the realised mean is reported.  Random
 * offsets are 4 KiB aligned; with O_DIRECT sizes are rounded up to 4 KiB.
 *
 * Workers ignore SIGINT, die with their parent, and are killed and reaped
 * on every return path; the caller owns (and removes) the file.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORKER_NAME "bl-io-worker"
#define ALIGN 4096u
#define MAX_PROCESSES 64
#define MAX_REQUEST_BYTES (64ull << 20)

static double cpu_s(const struct timeval *tv)
{
    return tv->tv_sec + tv->tv_usec / 1e6;
}

/* ---------- the data file ---------- */

int bl_io_fill_file(const char *path, uint64_t bytes)
{
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return bl_sys_error("create the workload file");
    size_t chunk = 1 << 20;
    char *buf = malloc(chunk);
    if (!buf) {
        close(fd);
        return BL_ENOMEM;
    }
    /* incompressible, never-zero contents: no file system may elide them */
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < chunk; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(buf + i, &x, 8);
    }
    int rc = BL_OK;
    bl_guard_begin();
    for (uint64_t done = 0; rc == BL_OK && done < bytes;) {
        size_t n = bytes - done < chunk ? (size_t)(bytes - done) : chunk;
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR && bl_interrupted())
                rc = BL_EINTR;
            else if (errno != EINTR)
                rc = bl_sys_error("write the workload file");
            continue;
        }
        done += (uint64_t)w;
        if (bl_interrupted())
            rc = BL_EINTR;
    }
    if (rc == BL_OK && fdatasync(fd) != 0)
        rc = bl_sys_error("fdatasync the workload file");
    if (rc == BL_OK)
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    bl_guard_end();
    free(buf);
    close(fd);
    return rc;
}

/* ---------- one worker ---------- */

typedef struct {
    double start_ns, end_ns;
    uint64_t bytes, requests, reads, sequential;
    double response_ns_sum, response_ns_max;
    double user_s, system_s;
    double warm_ns;
    int failed;
    char error[200];
} slot;

typedef struct {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t x = r->s;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    r->s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

static double rng_unit(rng *r) /* uniform in (0, 1) */
{
    return ((rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(rng *r)
{
    return sqrt(-2.0 * log(rng_unit(r))) * cos(6.283185307179586 * rng_unit(r));
}

static void worker_fail(slot *s, const char *what)
{
    snprintf(s->error, sizeof s->error, "%s: %s", what, strerror(errno));
    s->failed = 1;
}

/* Read [from, to) sequentially through the page cache. */
static int warm_range(const char *path, uint64_t from, uint64_t to, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    for (uint64_t off = from; off < to;) {
        size_t n = to - off < len ? (size_t)(to - off) : len;
        ssize_t r = pread(fd, buf, n, (off_t)off);
        if (r <= 0) {
            close(fd);
            return -1;
        }
        off += (uint64_t)r;
    }
    close(fd);
    return 0;
}

static int transfer(int fd, int is_read, char *buf, size_t len, uint64_t off)
{
    while (len > 0) {
        ssize_t n = is_read ? pread(fd, buf, len, (off_t)off) : pwrite(fd, buf, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n, len -= (size_t)n, off += (uint64_t)n;
    }
    return 0;
}

static void worker(int index, const char *path, const bl_io_workload_params *p, char *buf,
                   size_t max_request, int ready_fd, int go_fd, slot *s)
{
    if (p->cgroup_procs && p->cgroup_procs[0]) {
        FILE *f = fopen(p->cgroup_procs, "w");
        if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f) != 0) {
            worker_fail(s, "join the memory cgroup");
            _exit(1);
        }
    }
    int fd = open(path, O_RDWR | O_CLOEXEC | (p->direct ? O_DIRECT : 0));
    if (fd < 0) {
        worker_fail(s, p->direct && errno == EINVAL ? "open with O_DIRECT (refused)"
                                                     : "open the workload file");
        _exit(1);
    }
    if (index == 0 && p->warm_bytes > 0) {
        double t = bl_now_ns();
        uint64_t to = p->unique_bytes, from = p->warm_bytes < to ? to - p->warm_bytes : 0;
        if (warm_range(path, from, to, buf, max_request < (1u << 20) ? (1u << 20) : max_request)) {
            worker_fail(s, "warm the page cache");
            _exit(1);
        }
        s->warm_ns = bl_now_ns() - t;
    }
    char c = 'r';
    if (write(ready_fd, &c, 1) != 1)
        _exit(1);
    close(ready_fd);
    if (read(go_fd, &c, 1) != 1) /* the caller gave up: leave quietly */
        _exit(0);

    rng r = {p->seed ^ (0x9E3779B97F4A7C15ull * (uint64_t)(index + 1))};
    for (int i = 0; i < 4; i++)
        rng_next(&r);
    uint64_t unit = p->direct ? ALIGN : 1;
    uint64_t quota = p->duration_s > 0 ? UINT64_MAX
                                       : (p->total_bytes + (uint64_t)p->process_num - 1) /
                                             (uint64_t)p->process_num;
    uint64_t next = (rng_next(&r) % (p->unique_bytes / ALIGN)) * ALIGN; /* own thread */
    struct rusage u0, u1;
    getrusage(RUSAGE_SELF, &u0);
    double start = bl_now_ns(), deadline = start + p->duration_s * 1e9, now = start;
    s->start_ns = start;
    while (s->bytes < quota && (p->duration_s <= 0 || now < deadline)) {
        double draw;
        do
            draw = p->size_mean_bytes * (1.0 + rng_normal(&r));
        while (draw < 1.0 || draw > (double)max_request);
        /* max_request is a multiple of unit, so rounding up stays within it */
        uint64_t size = ((uint64_t)draw + unit - 1) / unit * unit;
        int is_read = rng_unit(&r) < p->read_frac;
        int seq = rng_unit(&r) < p->seq_frac;
        uint64_t off;
        if (seq) {
            off = next + size <= p->unique_bytes ? next : 0; /* wrap to the start */
        } else {
            uint64_t slots = (p->unique_bytes - size) / ALIGN + 1;
            off = (rng_next(&r) % slots) * ALIGN;
        }
        double t0 = bl_now_ns();
        if (transfer(fd, is_read, buf, (size_t)size, off)) {
            worker_fail(s, is_read ? "read" : "write");
            _exit(1);
        }
        now = bl_now_ns();
        double rt = now - t0;
        s->response_ns_sum += rt;
        if (rt > s->response_ns_max)
            s->response_ns_max = rt;
        s->bytes += size, s->requests++, s->reads += is_read, s->sequential += seq;
        next = off + size;
    }
    s->end_ns = now;
    getrusage(RUSAGE_SELF, &u1);
    s->user_s = cpu_s(&u1.ru_utime) - cpu_s(&u0.ru_utime);
    s->system_s = cpu_s(&u1.ru_stime) - cpu_s(&u0.ru_stime);
    close(fd);
    _exit(0);
}

/* ---------- the caller's side ---------- */

static int check_params(const bl_io_workload_params *p)
{
    if (p->unique_bytes < ALIGN || (p->direct && p->unique_bytes % ALIGN)) {
        bl_set_error("unique_bytes must be at least %u (a multiple of it with O_DIRECT)", ALIGN);
        return BL_EINVAL;
    }
    if (!(p->size_mean_bytes >= 1.0) || p->size_mean_bytes > (double)MAX_REQUEST_BYTES / 8) {
        bl_set_error("size_mean_bytes must be between 1 and %llu",
                     (unsigned long long)MAX_REQUEST_BYTES / 8);
        return BL_EINVAL;
    }
    if (!(p->read_frac >= 0 && p->read_frac <= 1) || !(p->seq_frac >= 0 && p->seq_frac <= 1)) {
        bl_set_error("read_frac and seq_frac must be between 0 and 1");
        return BL_EINVAL;
    }
    if (p->process_num < 1 || p->process_num > MAX_PROCESSES) {
        bl_set_error("process_num must be between 1 and %d", MAX_PROCESSES);
        return BL_EINVAL;
    }
    if (!(p->duration_s > 0) && p->total_bytes == 0) {
        bl_set_error("give a duration_s or a total_bytes");
        return BL_EINVAL;
    }
    return BL_OK;
}

static void stop_workers(const pid_t *pids, int n)
{
    for (int i = 0; i < n; i++)
        if (pids[i] > 0)
            kill(pids[i], SIGKILL);
    for (int i = 0; i < n; i++)
        if (pids[i] > 0)
            while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
                ;
}

int bl_io_workload(const char *path, const bl_io_workload_params *p, bl_io_workload_result *res)
{
    memset(res, 0, sizeof *res);
    int rc = check_params(p);
    if (rc != BL_OK)
        return rc;
    int n = p->process_num;
    uint64_t max_request = (uint64_t)(8 * p->size_mean_bytes);
    if (max_request > p->unique_bytes)
        max_request = p->unique_bytes;
    if (p->direct)
        max_request = (max_request + ALIGN - 1) / ALIGN * ALIGN;
    if (max_request < ALIGN) /* unique_bytes >= ALIGN, so this still fits */
        max_request = ALIGN;

    /* Start from a known state: nothing of the file in the page cache. */
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return bl_sys_error("open the workload file");
    struct stat st;
    if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < p->unique_bytes) {
        close(fd);
        bl_set_error("the workload file is smaller than unique_bytes");
        return BL_EINVAL;
    }
    if (fdatasync(fd) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0) {
        rc = bl_sys_error("drop the file's cached pages");
        close(fd);
        return rc;
    }
    close(fd);

    /* One buffer shared by every worker, touched here so that it is charged
     * to us and not to the workers' cgroup (its contents never matter). */
    size_t warm_len = max_request < (1u << 20) ? (1u << 20) : (size_t)max_request;
    char *buf = mmap(NULL, warm_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    slot *slots = mmap(NULL, sizeof(slot) * (size_t)n, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED || slots == MAP_FAILED) {
        if (buf != MAP_FAILED)
            munmap(buf, warm_len);
        if (slots != MAP_FAILED)
            munmap(slots, sizeof(slot) * (size_t)n);
        return BL_ENOMEM;
    }
    memset(buf, 'w', warm_len);
    memset(slots, 0, sizeof(slot) * (size_t)n);

    int ready[2] = {-1, -1}, go[2] = {-1, -1};
    pid_t pids[MAX_PROCESSES] = {0};
    if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC)) {
        rc = bl_sys_error("pipe");
        goto out;
    }
    bl_guard_begin();
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    pid_t parent = getpid();
    for (int i = 0; i < n; i++) {
        sigprocmask(SIG_BLOCK, &block, &old);
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGINT, SIG_IGN);
            sigprocmask(SIG_SETMASK, &old, NULL);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(1);
            prctl(PR_SET_NAME, WORKER_NAME);
            close(ready[0]);
            close(go[1]);
            worker(i, path, p, buf, (size_t)max_request, ready[1], go[0], &slots[i]);
        }
        sigprocmask(SIG_SETMASK, &old, NULL);
        if (pid < 0) {
            rc = bl_sys_error("fork");
            break;
        }
        pids[i] = pid;
    }
    close(ready[1]);
    ready[1] = -1;
    close(go[0]);
    go[0] = -1;
    /* Barrier: every worker says ready (or dies, which closes its end). */
    int got = 0;
    while (rc == BL_OK && got < n) {
        char c[MAX_PROCESSES];
        ssize_t r = read(ready[0], c, sizeof c);
        if (r > 0)
            got += (int)r;
        else if (r < 0 && errno == EINTR && bl_interrupted())
            rc = BL_EINTR;
        else if (r == 0)
            break;
    }
    if (rc == BL_OK && got < n) {
        int named = 0;
        for (int i = 0; i < n && !named; i++)
            if (slots[i].failed) {
                bl_set_error("workload process %d: %s", i, slots[i].error);
                named = 1;
            }
        if (!named)
            bl_set_error("a workload process died before it started");
        rc = BL_ESYS;
    }
    if (rc == BL_OK) {
        char go_bytes[MAX_PROCESSES];
        memset(go_bytes, 'g', sizeof go_bytes);
        if (write(go[1], go_bytes, (size_t)n) != n)
            rc = bl_sys_error("release the workload processes");
    }
    close(go[1]);
    go[1] = -1;
    for (int i = 0; rc == BL_OK && i < n; i++) {
        int status;
        pid_t w = waitpid(pids[i], &status, 0);
        if (w < 0 && errno == EINTR) {
            if (bl_interrupted())
                rc = BL_EINTR;
            i--;
            continue;
        }
        pids[i] = 0;
        if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (slots[i].failed)
                bl_set_error("workload process %d: %s", i, slots[i].error);
            else
                bl_set_error("workload process %d ended abnormally", i);
            rc = BL_ESYS;
        }
    }
    stop_workers(pids, n);
    bl_guard_end();
    if (rc == BL_OK) {
        double first = slots[0].start_ns, last = slots[0].end_ns;
        for (int i = 0; i < n; i++) {
            slot *s = &slots[i];
            if (s->start_ns < first)
                first = s->start_ns;
            if (s->end_ns > last)
                last = s->end_ns;
            res->bytes += s->bytes;
            res->requests += s->requests;
            res->reads += s->reads;
            res->sequential += s->sequential;
            res->response_ns_sum += s->response_ns_sum;
            if (s->response_ns_max > res->response_ns_max)
                res->response_ns_max = s->response_ns_max;
            res->user_s += s->user_s;
            res->system_s += s->system_s;
        }
        res->elapsed_ns = last - first;
        res->warm_ns = slots[0].warm_ns;
        res->max_request_bytes = max_request;
    }
out:
    for (int k = 0; k < 2; k++) {
        if (ready[k] >= 0)
            close(ready[k]);
        if (go[k] >= 0)
            close(go[k]);
    }
    munmap(buf, warm_len);
    munmap(slots, sizeof(slot) * (size_t)n);
    return rc;
}
