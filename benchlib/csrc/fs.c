/*
 * fs.c -- the file system: open/close, create/delete, reading the cache.
 *
 * Every benchmark works inside a private directory made with mkdtemp in the
 * directory the caller chooses, through a directory descriptor (openat and
 * friends), so the process's working directory is never changed.  Every
 * return path removes what was created, interrupted runs included.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char path[PATH_MAX];
    int dirfd;
} workdir;

static int workdir_open(workdir *w, const char *parent)
{
    w->dirfd = -1;
    if (snprintf(w->path, sizeof w->path, "%s/benchlib-XXXXXX", parent) >= (int)sizeof w->path) {
        bl_set_error("directory name too long: %s", parent);
        return BL_EINVAL;
    }
    if (!mkdtemp(w->path)) {
        bl_set_error("cannot create a working directory in %s: %s", parent, strerror(errno));
        return errno == ENOENT || errno == EACCES || errno == EROFS || errno == ENOTDIR ? BL_EINVAL
                                                                                          : BL_ESYS;
    }
    w->dirfd = open(w->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (w->dirfd < 0) {
        int rc = bl_sys_error("open the working directory");
        rmdir(w->path);
        return rc;
    }
    return BL_OK;
}

/* Remove the names we may have made (deepest first), then the directory. */
static void workdir_close(workdir *w, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (unlinkat(w->dirfd, names[i], 0) != 0)
            unlinkat(w->dirfd, names[i], AT_REMOVEDIR); /* a directory (or absent) */
    close(w->dirfd);
    rmdir(w->path);
}

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR && !bl_interrupted())
                continue;
            return errno == EINTR ? BL_EINTR : bl_sys_error("write");
        }
        buf += n;
        len -= (size_t)n;
    }
    return BL_OK;
}

/* Make a file of `bytes` in write() calls of write_bytes each: a file system
 * with large folios (ext4, xfs on Linux 6.x) caches each write's pages in
 * folios up to as large as the write (to 2 MiB), and the larger they are, the
 * fewer folio look-ups a read and the fewer faults a mapping of it takes. */
static int make_file(int dirfd, const char *name, size_t bytes, size_t write_bytes)
{
    int fd = openat(dirfd, name, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return bl_sys_error("create a file");
    size_t chunk = write_bytes < bytes ? write_bytes : bytes;
    char *block = malloc(chunk ? chunk : 1);
    int rc = block ? BL_OK : BL_ENOMEM;
    if (block)
        memset(block, 'x', chunk);
    for (size_t done = 0; rc == BL_OK && done < bytes; done += chunk)
        rc = write_all(fd, block, bytes - done < chunk ? bytes - done : chunk);
    free(block);
    close(fd);
    return rc;
}

/* the O_DIRECT disk file is written as before write_bytes existed */
#define DISK_WRITE_BYTES 16384

/* ---------- open + close (Ousterhout Table 9) ---------- */

typedef struct {
    int dirfd;
    const char *name;
} open_ctx;

static int open_close_body(void *ctx, int64_t iters)
{
    open_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        int fd = openat(c->dirfd, c->name, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return bl_sys_error("open");
        close(fd);
    }
    return BL_OK;
}

int bl_open_close(const char *directory, int depth, const bl_opts *o, double *ns, double *ticks,
                  bl_info *info)
{
    static const char *const names[] = {"a/b/c/foo", "a/b/c", "a/b", "a", "foo"};
    if (depth != 1 && depth != 4) {
        bl_set_error("depth must be 1 (\"foo\") or 4 (\"a/b/c/foo\")");
        return BL_EINVAL;
    }
    workdir w;
    int rc = workdir_open(&w, directory);
    if (rc != BL_OK)
        return rc;
    if (mkdirat(w.dirfd, "a", 0700) || mkdirat(w.dirfd, "a/b", 0700) ||
        mkdirat(w.dirfd, "a/b/c", 0700))
        rc = bl_sys_error("mkdir");
    if (rc == BL_OK)
        rc = make_file(w.dirfd, "foo", 0, 0);
    if (rc == BL_OK)
        rc = make_file(w.dirfd, "a/b/c/foo", 0, 0);
    if (rc == BL_OK) {
        open_ctx c = {w.dirfd, depth == 1 ? "foo" : "a/b/c/foo"};
        info->helper_cpu = -1;
        rc = bl_measure(open_close_body, NULL, &c, o, ns, ticks, info);
    }
    workdir_close(&w, names, 5);
    return rc;
}

/* ---------- create, write, close, open, read, close, delete (Table 10) ---------- */

typedef struct {
    int dirfd;
    size_t bytes;
    int sync;
    char *buf;
} create_ctx;

static int create_delete_body(void *ctx, int64_t iters)
{
    create_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        int fd = openat(c->dirfd, "tmp", O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
        if (fd < 0)
            return bl_sys_error("create");
        int rc = write_all(fd, c->buf, c->bytes);
        if (rc == BL_OK && c->sync && fsync(fd) != 0)
            rc = bl_sys_error("fsync");
        close(fd);
        if (rc != BL_OK)
            return rc;
        fd = openat(c->dirfd, "tmp", O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return bl_sys_error("reopen");
        for (size_t got = 0; got < c->bytes;) {
            ssize_t n = read(fd, c->buf, c->bytes - got);
            if (n <= 0) {
                close(fd);
                return n == 0 ? (bl_set_error("short read"), BL_ESYS) : bl_sys_error("read");
            }
            got += (size_t)n;
        }
        close(fd);
        if (unlinkat(c->dirfd, "tmp", 0) != 0)
            return bl_sys_error("unlink");
        if (c->sync && fsync(c->dirfd) != 0) /* the directory entry too */
            return bl_sys_error("fsync directory");
    }
    return BL_OK;
}

int bl_create_delete(const char *directory, size_t file_bytes, int sync, const bl_opts *o,
                     double *ns, double *ticks, bl_info *info)
{
    static const char *const names[] = {"tmp"};
    workdir w;
    int rc = workdir_open(&w, directory);
    if (rc != BL_OK)
        return rc;
    create_ctx c = {w.dirfd, file_bytes, sync, malloc(file_bytes ? file_bytes : 1)};
    if (!c.buf) {
        workdir_close(&w, names, 1);
        return BL_ENOMEM;
    }
    memset(c.buf, 'x', file_bytes);
    info->helper_cpu = -1;
    rc = bl_measure(create_delete_body, NULL, &c, o, ns, ticks, info);
    free(c.buf);
    workdir_close(&w, names, 1);
    return rc;
}

/* ---------- reading a cached file: read() into one buffer (Table 6), read() or
 * mmap() and sum the words (McVoy and Staelin's file reread, USENIX 1996) ---------- */

#include <sys/mman.h>
#include <time.h>

typedef struct {
    int fd;
    size_t bytes, block;
    int sum_data;   /* read body: sum what each read() returned */
    uint64_t *buf;
    uint64_t sum;
    void *map;      /* mmap_once body: the mapping made before the timed loop */
} cached_file_ctx;

static int read_file_body(void *ctx, int64_t iters)
{
    cached_file_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        if (lseek(c->fd, 0, SEEK_SET) != 0)
            return bl_sys_error("lseek");
        for (;;) {
            ssize_t n = read(c->fd, c->buf, c->block); /* always the same buffer */
            if (n == 0)
                break;
            if (n < 0) {
                if (errno == EINTR && !bl_interrupted())
                    continue;
                return errno == EINTR ? BL_EINTR : bl_sys_error("read");
            }
            if (c->sum_data)
                c->sum += bl_sum_words(c->buf, (size_t)n / 8);
        }
    }
    BL_KEEP(c->sum);
    return BL_OK;
}

/* A fresh mapping every pass: the page-table set-up and the minor faults
 * are what reading a file through mmap costs, besides the memory reads. */
static int mmap_file_body(void *ctx, int64_t iters)
{
    cached_file_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        void *p = mmap(NULL, c->bytes, PROT_READ, MAP_SHARED, c->fd, 0);
        if (p == MAP_FAILED)
            return bl_sys_error("mmap");
        c->sum += bl_sum_words(p, c->bytes / 8);
        munmap(p, c->bytes);
    }
    BL_KEEP(c->sum);
    return BL_OK;
}

/* One mapping made before the timing, each pass only sums it: after the
 * warm-up every page is mapped, so this is memory read through the page
 * cache's pages, with no fault (the registration says which peer times it so). */
static int mmap_once_body(void *ctx, int64_t iters)
{
    cached_file_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++)
        c->sum += bl_sum_words(c->map, c->bytes / 8);
    BL_KEEP(c->sum);
    return BL_OK;
}

/* Make a file_bytes file (in write_bytes writes) in a private directory, open it, time `body`
 * over it, and remove everything. */
static int measure_cached_file(const char *directory, size_t file_bytes, size_t block_bytes,
                               size_t write_bytes, int sum_data, bl_body_fn body,
                               const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    static const char *const names[] = {"data"};
    workdir w;
    double t0 = bl_now_ns();
    int rc = workdir_open(&w, directory);
    if (rc != BL_OK)
        return rc;
    rc = make_file(w.dirfd, "data", file_bytes, write_bytes);
    cached_file_ctx c = {-1, file_bytes, block_bytes, sum_data, NULL, 0, NULL};
    if (rc == BL_OK && posix_memalign((void **)&c.buf, 4096, block_bytes) != 0)
        rc = BL_ENOMEM;
    if (rc == BL_OK) {
        c.fd = openat(w.dirfd, "data", O_RDONLY | O_CLOEXEC);
        if (c.fd < 0)
            rc = bl_sys_error("open");
    }
    if (rc == BL_OK && body == mmap_once_body) {
        c.map = mmap(NULL, file_bytes, PROT_READ, MAP_SHARED, c.fd, 0);
        if (c.map == MAP_FAILED) {
            c.map = NULL;
            rc = bl_sys_error("mmap");
        }
    }
    if (rc == BL_OK) {
        info->helper_cpu = -1;
        info->setup_ns = bl_now_ns() - t0;
        rc = bl_measure(body, NULL, &c, o, ns, ticks, info);
    }
    if (c.map)
        munmap(c.map, file_bytes);
    if (c.fd >= 0)
        close(c.fd);
    free(c.buf);
    workdir_close(&w, names, 1);
    return rc;
}

int bl_file_read(const char *directory, size_t file_bytes, size_t block_bytes, size_t write_bytes,
                 const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    if (block_bytes == 0 || file_bytes < block_bytes || write_bytes == 0) {
        bl_set_error("need 0 < block_bytes <= file_bytes and write_bytes > 0");
        return BL_EINVAL;
    }
    return measure_cached_file(directory, file_bytes, block_bytes, write_bytes, 0,
                               read_file_body, o, ns, ticks, info);
}

int bl_file_reread(const char *directory, size_t file_bytes, size_t block_bytes,
                   size_t write_bytes, int use_mmap, const bl_opts *o, double *ns, double *ticks,
                   bl_info *info)
{
    if (block_bytes < 8 || block_bytes % 8 || file_bytes < block_bytes || file_bytes % 8) {
        bl_set_error("need 8 <= block_bytes <= file_bytes, both multiples of 8");
        return BL_EINVAL;
    }
    if (write_bytes == 0) {
        bl_set_error("need write_bytes > 0");
        return BL_EINVAL;
    }
    if (use_mmap < 0 || use_mmap > 2) {
        bl_set_error("use_mmap must be 0 (read), 1 (a mapping per pass) or 2 (one mapping)");
        return BL_EINVAL;
    }
    bl_body_fn body = use_mmap == 2 ? mmap_once_body : use_mmap ? mmap_file_body : read_file_body;
    return measure_cached_file(directory, file_bytes, block_bytes, write_bytes, 1, body, o, ns,
                               ticks, info);
}

/* ---------- file-system latency: create n files, then delete them ---------- */

static void unlink_batch(int dirfd, int n)
{
    char name[32];
    for (int k = 0; k < n; k++) {
        snprintf(name, sizeof name, "f%06d", k);
        unlinkat(dirfd, name, 0);
    }
}

int bl_fs_latency(const char *directory, size_t file_bytes, int n_files, int batches,
                  double *create_ns, double *delete_ns, bl_info *info)
{
    static const char *const none[] = {NULL};
    if (n_files < 1 || n_files > 1000000 || batches < 1) {
        bl_set_error("n_files must be between 1 and 1,000,000 and batches at least 1");
        return BL_EINVAL;
    }
    workdir w;
    int rc = workdir_open(&w, directory);
    if (rc != BL_OK)
        return rc;
    char *buf = malloc(file_bytes ? file_bytes : 1);
    if (!buf) {
        workdir_close(&w, none, 0);
        return BL_ENOMEM;
    }
    memset(buf, 'x', file_bytes);
    bl_guard_begin();
    info->helper_cpu = -1;
    info->iterations = n_files;
    info->clock_resolution_ns = bl_clock_resolution_ns();
    info->n_samples = 0;
    char name[32];
    int made = 0;
    for (int b = 0; b < batches && rc == BL_OK; b++) {
        double t0 = bl_now_ns();
        for (made = 0; made < n_files; made++) {
            if (bl_interrupted()) {
                rc = BL_EINTR;
                break;
            }
            snprintf(name, sizeof name, "f%06d", made);
            int fd = openat(w.dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
            if (fd < 0) {
                rc = bl_sys_error("create");
                break;
            }
            rc = write_all(fd, buf, file_bytes);
            close(fd);
            if (rc != BL_OK) {
                made++;
                break;
            }
        }
        double t1 = bl_now_ns();
        if (rc != BL_OK)
            break;
        for (int k = 0; k < n_files; k++) {
            snprintf(name, sizeof name, "f%06d", k);
            if (unlinkat(w.dirfd, name, 0) != 0) {
                rc = bl_sys_error("unlink");
                break;
            }
        }
        double t2 = bl_now_ns();
        made = 0;
        if (rc != BL_OK)
            break;
        create_ns[b] = (t1 - t0) / n_files;
        delete_ns[b] = (t2 - t1) / n_files;
        info->n_samples = b + 1;
    }
    unlink_batch(w.dirfd, made > 0 ? made : (rc == BL_OK ? 0 : n_files));
    bl_guard_end();
    free(buf);
    workdir_close(&w, none, 0);
    return rc;
}

/* ---------- disk: O_DIRECT reads and writes, sequential or random ---------- */

typedef struct {
    int fd;
    size_t file_bytes, block;
    int write, random;
    char *buf;
    off_t next;
    uint64_t rng;
} disk_ctx;

static int disk_body(void *ctx, int64_t iters)
{
    disk_ctx *c = ctx;
    uint64_t blocks = c->file_bytes / c->block;
    for (int64_t i = 0; i < iters; i++) {
        off_t off;
        if (c->random) {
            c->rng ^= c->rng << 13;  /* xorshift64 */
            c->rng ^= c->rng >> 7;
            c->rng ^= c->rng << 17;
            off = (off_t)((c->rng % blocks) * c->block);
        } else {
            off = c->next;
            c->next = (off_t)((c->next + (off_t)c->block) % (off_t)(blocks * c->block));
        }
        ssize_t n = c->write ? pwrite(c->fd, c->buf, c->block, off)
                             : pread(c->fd, c->buf, c->block, off);
        if (n != (ssize_t)c->block) {
            if (n < 0 && errno == EINTR) {
                if (bl_interrupted())
                    return BL_EINTR;
                i--;
                continue;
            }
            return n < 0 ? bl_sys_error(c->write ? "pwrite" : "pread")
                         : (bl_set_error("short transfer"), BL_ESYS);
        }
    }
    return BL_OK;
}

int bl_disk_io(const char *directory, size_t file_bytes, size_t block_bytes, int write, int random,
               int direct, const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    static const char *const names[] = {"disk"};
    if (block_bytes < 512 || block_bytes % 512 || file_bytes < block_bytes) {
        bl_set_error("block_bytes must be a multiple of 512 and at most file_bytes");
        return BL_EINVAL;
    }
    workdir w;
    int rc = workdir_open(&w, directory);
    if (rc != BL_OK)
        return rc;
    disk_ctx c = {-1, file_bytes, block_bytes, write, random, NULL, 0, 0x9E3779B97F4A7C15ull};
    rc = make_file(w.dirfd, "disk", file_bytes, DISK_WRITE_BYTES);
    if (rc == BL_OK) {
        /* the file's blocks are on the device before any O_DIRECT read */
        int fd = openat(w.dirfd, "disk", O_RDONLY | O_CLOEXEC);
        if (fd < 0 || fsync(fd) != 0)
            rc = bl_sys_error("fsync the test file");
        if (fd >= 0)
            close(fd);
    }
    if (rc == BL_OK && posix_memalign((void **)&c.buf, 4096, block_bytes) != 0)
        rc = BL_ENOMEM;
    if (rc == BL_OK) {
        memset(c.buf, 'y', block_bytes);
        c.fd = openat(w.dirfd, "disk", (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC |
                                           (direct ? O_DIRECT : 0));
        if (c.fd < 0) {
            if (direct && errno == EINVAL) {
                bl_set_error("the file system under %s does not support O_DIRECT (tmpfs, for "
                             "one, has no disk); choose a directory on a disk-backed file system",
                             directory);
                rc = BL_EINVAL;
            } else {
                rc = bl_sys_error("open the test file");
            }
        }
    }
    if (rc == BL_OK && direct) {
        /* some file systems accept O_DIRECT at open and refuse the I/O */
        ssize_t n = pread(c.fd, c.buf, block_bytes, 0);
        if (n < 0 && errno == EINVAL) {
            bl_set_error("O_DIRECT I/O of %zu bytes was refused under %s (the device's block "
                         "size may be larger)", block_bytes, directory);
            rc = BL_EINVAL;
        }
    }
    if (rc == BL_OK) {
        info->helper_cpu = -1;
        rc = bl_measure(disk_body, NULL, &c, o, ns, ticks, info);
    }
    if (c.fd >= 0)
        close(c.fd);
    free(c.buf);
    workdir_close(&w, names, 1);
    return rc;
}

/* ---------- small files: create, write n bytes, read n bytes, delete (Lai & Baker 1996) ----------
 *
 * One batch: create n_files new, empty files in one directory (open with
 * O_CREAT | O_EXCL, close); then write size_bytes to each (open, write,
 * close); then read each back (open, read, close); then delete them all.
 * Each phase is timed over the whole batch, as the slides list the steps,
 * and every file is a new name, as a benchmark that "creates many files"
 * does: on a file system that avoids reusing recently freed inodes (ext4
 * without a journal skips inodes deleted in the last minute), creating a
 * new file costs what that search costs, and so it does here. */

#include <sched.h>

#define SMALL_FILE_PHASES 4

static int read_exact(int fd, char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = read(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR && !bl_interrupted())
                continue;
            return errno == EINTR ? BL_EINTR : bl_sys_error("read");
        }
        if (n == 0) {
            bl_set_error("short read: a file had fewer bytes than were written");
            return BL_ESYS;
        }
        buf += n;
        len -= (size_t)n;
    }
    return BL_OK;
}

/* One phase over the batch.  *done counts the files the phase got through,
 * so that a failure in the create phase knows what to remove. */
static int small_file_phase(int phase, int dirfd, int n_files, char *buf, size_t bytes, int *done)
{
    char name[32];
    for (int k = 0; k < n_files; k++) {
        if (bl_interrupted())
            return BL_EINTR;
        snprintf(name, sizeof name, "f%06d", k);
        int rc = BL_OK, fd;
        switch (phase) {
        case 0: /* create */
            fd = openat(dirfd, name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
            if (fd < 0)
                return bl_sys_error("create");
            close(fd);
            break;
        case 1: /* write n bytes */
            fd = openat(dirfd, name, O_WRONLY | O_CLOEXEC);
            if (fd < 0)
                return bl_sys_error("open for writing");
            rc = write_all(fd, buf, bytes);
            close(fd);
            break;
        case 2: /* read n bytes */
            fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                return bl_sys_error("open for reading");
            rc = read_exact(fd, buf, bytes);
            close(fd);
            break;
        default: /* delete */
            if (unlinkat(dirfd, name, 0) != 0)
                return bl_sys_error("unlink");
            break;
        }
        if (rc != BL_OK)
            return rc;
        *done = k + 1;
    }
    return BL_OK;
}

int bl_small_file(const char *directory, size_t size_bytes, int n_files, const bl_opts *o,
                  double *phase_ns, bl_info *info)
{
    static const char *const none[] = {NULL};
    if (n_files < 1 || n_files > 1000000) {
        bl_set_error("n_files must be between 1 and 1,000,000");
        return BL_EINVAL;
    }
    bl_pinning pin;
    int rc = bl_run_begin(o, &pin);
    if (rc != BL_OK)
        return rc;
    workdir w;
    rc = workdir_open(&w, directory);
    if (rc != BL_OK) {
        bl_pin_end(&pin);
        return rc;
    }
    char *buf = malloc(size_bytes ? size_bytes : 1);
    if (!buf) {
        workdir_close(&w, none, 0);
        bl_pin_end(&pin);
        return BL_ENOMEM;
    }
    memset(buf, 'x', size_bytes);
    bl_guard_begin();
    info->helper_cpu = -1;
    info->iterations = n_files;
    info->has_ticks = 0;
    info->overhead_ns = 0.0;
    info->cpu_migrations = 0;
    info->clock_resolution_ns = bl_clock_resolution_ns();
    info->n_samples = 0;
    info->cpu_first = info->cpu_last = sched_getcpu();
    double start = bl_now_ns();
    int prev_cpu = info->cpu_first;
    int created = 0; /* files of the current batch that may exist */
    for (int b = -o->n_warmup; b < o->n_samples && rc == BL_OK; b++) {
        double t[SMALL_FILE_PHASES + 1];
        t[0] = bl_now_ns();
        for (int p = 0; p < SMALL_FILE_PHASES && rc == BL_OK; p++) {
            int done = 0;
            rc = small_file_phase(p, w.dirfd, n_files, buf, size_bytes, &done);
            if (p == 0)
                created = rc == BL_OK ? n_files : done;
            if (p == SMALL_FILE_PHASES - 1 && rc == BL_OK)
                created = 0;
            t[p + 1] = bl_now_ns();
        }
        if (rc != BL_OK)
            break;
        if (b < 0) {
            if (b == -1)
                start = bl_now_ns(); /* the cap counts from the first kept batch */
            continue;
        }
        for (int p = 0; p < SMALL_FILE_PHASES; p++)
            phase_ns[b * SMALL_FILE_PHASES + p] = (t[p + 1] - t[p]) / n_files;
        info->n_samples = b + 1;
        int cpu = sched_getcpu();
        if (cpu != prev_cpu)
            info->cpu_migrations++;
        prev_cpu = info->cpu_last = cpu;
        if (o->max_total_ns > 0 && bl_now_ns() - start > o->max_total_ns)
            break;
    }
    /* whatever an interrupted or failed batch left behind (ENOENT is fine) */
    unlink_batch(w.dirfd, created);
    bl_guard_end();
    free(buf);
    workdir_close(&w, none, 0);
    bl_pin_end(&pin);
    return rc;
}
