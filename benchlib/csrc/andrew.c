/*
 * andrew.c -- the Modified Andrew Benchmark (Ousterhout 1990, section 9).
 *
 * One run works on a copy of a source tree in a private directory:
 *   I   make the directories,           II  copy every file,
 *   III stat every file,                IV  read every file,
 *   V   compile: each line of the tree's BUILD list through /bin/sh.
 * Each phase is timed here.  Copies are made in-process, or with one
 * /bin/cp per file as the original did (process creation is then part of
 * the copy phase).  The private directory is removed on every path.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAB_PHASES 5

/* Lines of a text file, newline-terminated in one buffer. */
typedef struct {
    char *text;
    char **line;
    int n;
} lines;

static int read_lines(const char *path, lines *out)
{
    out->text = NULL;
    out->line = NULL;
    out->n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        bl_set_error("cannot read %s: %s", path, strerror(errno));
        return BL_EINVAL;
    }
    size_t cap = 0, len = 0;
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + got + 1 > cap) {
            cap = (len + got + 1) * 2;
            char *t = realloc(out->text, cap);
            if (!t) {
                fclose(f);
                return BL_ENOMEM;
            }
            out->text = t;
        }
        memcpy(out->text + len, buf, got);
        len += got;
    }
    fclose(f);
    if (!out->text)
        return BL_OK;
    out->text[len] = 0;
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += out->text[i] == '\n';
    out->line = calloc((size_t)n + 1, sizeof *out->line);
    if (!out->line)
        return BL_ENOMEM;
    for (char *s = strtok(out->text, "\n"); s; s = strtok(NULL, "\n"))
        if (*s)
            out->line[out->n++] = s;
    return BL_OK;
}

static void free_lines(lines *l)
{
    free(l->text);
    free(l->line);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_tree(const char *path) { nftw(path, rm_entry, 32, FTW_DEPTH | FTW_PHYS); }

/* Run argv in `dir`, wait.  The child leads its own process group, so that
 * on an interrupt the whole group (sh, cc and cc's own children) is killed
 * before the directory is removed; it also dies with us (PDEATHSIG).
 * Returns BL_EINTR if we were interrupted meanwhile. */
static int run_child(const char *dir, char *const argv[], const char *what)
{
    pid_t parent = getpid(), pid = fork();
    if (pid < 0)
        return bl_sys_error("fork");
    if (pid == 0) {
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        signal(SIGINT, SIG_DFL);
        if (chdir(dir) != 0)
            _exit(126);
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0)
            dup2(devnull, STDOUT_FILENO); /* keep compiler chatter off the results */
        execv(argv[0], argv);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: whichever runs first */
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR)
            return bl_sys_error("waitpid");
        if (bl_interrupted())
            kill(-pid, SIGKILL);
    }
    if (bl_interrupted())
        kill(-pid, SIGKILL); /* anything the child left running */
    if (bl_interrupted())
        return BL_EINTR;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        bl_set_error("%s failed (status %d)", what, status);
        return BL_ESYS;
    }
    return BL_OK;
}

static int copy_file(const char *src, int dirfd, const char *rel)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return bl_sys_error(src);
    int out = openat(dirfd, rel, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
    if (out < 0) {
        close(in);
        return bl_sys_error("create a copy");
    }
    char buf[65536];
    ssize_t n;
    int rc = BL_OK;
    while (rc == BL_OK && (n = read(in, buf, sizeof buf)) != 0) {
        if (n < 0) {
            rc = errno == EINTR && !bl_interrupted() ? BL_OK : bl_sys_error("read");
            continue;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0) {
                rc = bl_sys_error("write");
                break;
            }
            off += w;
        }
    }
    close(in);
    close(out);
    return rc;
}

static int one_run(const char *tree, const char *parent, int copy_with_cp, const lines *files,
                   const lines *build, double *phase)
{
    char dest[PATH_MAX];
    if (snprintf(dest, sizeof dest, "%s/benchlib-mab-XXXXXX", parent) >= (int)sizeof dest) {
        bl_set_error("directory name too long");
        return BL_EINVAL;
    }
    if (!mkdtemp(dest)) {
        bl_set_error("cannot create a working directory in %s: %s", parent, strerror(errno));
        return BL_EINVAL;
    }
    int dirfd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = dirfd < 0 ? bl_sys_error("open the working directory") : BL_OK;
    char path[PATH_MAX], dst[PATH_MAX];

    /* I: every directory named in the manifest, parents first */
    double t0 = bl_now_ns();
    for (int i = 0; rc == BL_OK && i < files->n; i++) {
        snprintf(path, sizeof path, "%s", files->line[i]);
        for (char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
            *s = 0;
            if (mkdirat(dirfd, path, 0755) != 0 && errno != EEXIST)
                rc = bl_sys_error("mkdir");
            *s = '/';
        }
    }
    double t1 = bl_now_ns();
    /* II: copy */
    for (int i = 0; rc == BL_OK && i < files->n; i++) {
        snprintf(path, sizeof path, "%s/%s", tree, files->line[i]);
        if (copy_with_cp) {
            snprintf(dst, sizeof dst, "%s/%s", dest, files->line[i]);
            char *argv[] = {"/bin/cp", path, dst, NULL};
            rc = run_child(dest, argv, "cp");
        } else {
            rc = copy_file(path, dirfd, files->line[i]);
        }
        if (rc == BL_OK && bl_interrupted())
            rc = BL_EINTR;
    }
    double t2 = bl_now_ns();
    /* III: stat every file */
    struct stat st;
    long long bytes = 0;
    for (int i = 0; rc == BL_OK && i < files->n; i++) {
        if (fstatat(dirfd, files->line[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            rc = bl_sys_error("stat");
        else
            bytes += st.st_size;
    }
    double t3 = bl_now_ns();
    /* IV: read every file */
    char buf[65536];
    for (int i = 0; rc == BL_OK && i < files->n; i++) {
        int fd = openat(dirfd, files->line[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            rc = bl_sys_error("open");
            break;
        }
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            bytes -= n;
        close(fd);
    }
    BL_KEEP(bytes);
    double t4 = bl_now_ns();
    /* V: compile, line by line as the BUILD list gives it */
    for (int i = 0; rc == BL_OK && i < build->n; i++) {
        char *argv[] = {"/bin/sh", "-c", build->line[i], NULL};
        rc = run_child(dest, argv, build->line[i]);
    }
    double t5 = bl_now_ns();
    phase[0] = t1 - t0;
    phase[1] = t2 - t1;
    phase[2] = t3 - t2;
    phase[3] = t4 - t3;
    phase[4] = t5 - t4;
    if (dirfd >= 0)
        close(dirfd);
    remove_tree(dest);
    return rc;
}

int bl_andrew(const char *tree, const char *directory, int copy_with_cp, int runs,
              double *total_ns, double *phase_ns, bl_info *info)
{
    char path[PATH_MAX];
    lines files, build;
    snprintf(path, sizeof path, "%s/FILES", tree);
    int rc = read_lines(path, &files);
    if (rc != BL_OK)
        return rc;
    snprintf(path, sizeof path, "%s/BUILD", tree);
    rc = read_lines(path, &build);
    if (rc != BL_OK) {
        free_lines(&files);
        return rc;
    }
    memset(info, 0, sizeof *info);
    info->helper_cpu = -1;
    info->iterations = 1;
    info->clock_resolution_ns = bl_clock_resolution_ns();
    bl_guard_begin();
    for (int r = 0; rc == BL_OK && r < runs; r++) {
        rc = one_run(tree, directory, copy_with_cp, &files, &build, phase_ns + MAB_PHASES * r);
        if (rc == BL_OK) {
            total_ns[r] = 0;
            for (int p = 0; p < MAB_PHASES; p++)
                total_ns[r] += phase_ns[MAB_PHASES * r + p];
            info->n_samples = r + 1;
        }
    }
    bl_guard_end();
    free_lines(&files);
    free_lines(&build);
    return rc;
}
