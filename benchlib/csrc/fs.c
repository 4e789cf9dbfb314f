/*
 * fs.c -- the file system: open/close, create/delete, reading the cache.
 *
 * Every benchmark works inside a private directory made with mkdtemp in the
 * directory the caller chooses, through a directory descriptor (openat and
 * friends), so the process's working directory is never changed.  Every
 * return path removes what was created, interrupted runs included.
 */
#define _GNU_SOURCE
#include "benchlib.h"

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

static int make_file(int dirfd, const char *name, size_t bytes)
{
    int fd = openat(dirfd, name, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return bl_sys_error("create a file");
    char block[16384];
    memset(block, 'x', sizeof block);
    int rc = BL_OK;
    for (size_t done = 0; rc == BL_OK && done < bytes; done += sizeof block)
        rc = write_all(fd, block, bytes - done < sizeof block ? bytes - done : sizeof block);
    close(fd);
    return rc;
}

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
        rc = make_file(w.dirfd, "foo", 0);
    if (rc == BL_OK)
        rc = make_file(w.dirfd, "a/b/c/foo", 0);
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

/* ---------- reading a file from the page cache (Table 6) ---------- */

typedef struct {
    int fd;
    size_t block;
    char *buf;
} read_ctx;

static int read_file_body(void *ctx, int64_t iters)
{
    read_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        if (lseek(c->fd, 0, SEEK_SET) != 0)
            return bl_sys_error("lseek");
        for (;;) {
            ssize_t n = read(c->fd, c->buf, c->block); /* always the same buffer */
            if (n == 0)
                break;
            if (n < 0) {
                if (errno == EINTR && bl_interrupted())
                    return BL_EINTR;
                if (errno != EINTR)
                    return bl_sys_error("read");
            }
        }
    }
    return BL_OK;
}

int bl_file_read(const char *directory, size_t file_bytes, size_t block_bytes, const bl_opts *o,
                 double *ns, double *ticks, bl_info *info)
{
    static const char *const names[] = {"data"};
    if (block_bytes == 0 || file_bytes < block_bytes) {
        bl_set_error("need 0 < block_bytes <= file_bytes");
        return BL_EINVAL;
    }
    workdir w;
    int rc = workdir_open(&w, directory);
    if (rc != BL_OK)
        return rc;
    rc = make_file(w.dirfd, "data", file_bytes);
    read_ctx c = {-1, block_bytes, malloc(block_bytes)};
    if (rc == BL_OK && !c.buf)
        rc = BL_ENOMEM;
    if (rc == BL_OK) {
        c.fd = openat(w.dirfd, "data", O_RDONLY | O_CLOEXEC);
        if (c.fd < 0)
            rc = bl_sys_error("open");
    }
    if (rc == BL_OK) {
        info->helper_cpu = -1;
        rc = bl_measure(read_file_body, NULL, &c, o, ns, ticks, info);
    }
    if (c.fd >= 0)
        close(c.fd);
    free(c.buf);
    workdir_close(&w, names, 1);
    return rc;
}
