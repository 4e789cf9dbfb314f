/*
 * proc.c -- signals, process creation and context switches.
 *
 * signal_latency: installing a handler with sigaction, and delivering a
 * signal to this very thread and running its handler (no context switch:
 * the signal goes to the process that sent it).
 *
 * process_creation: fork and wait for a child that exits at once; the same
 * with the child exec'ing a tiny program; the same with the child exec'ing
 * /bin/sh -c, which finds and runs the tiny program.  One iteration is one
 * whole process, from fork to the parent's waitpid.
 *
 * context_switch: N processes in a ring of pipes pass a one-word token;
 * each, between receiving and passing it on, sums a private array so the
 * switch also pays for refilling the caches.  The same pipe write, read
 * and sum done by one process alone (no switch, hot caches) is the
 * overhead subtracted from each hop.
 *
 * Every child dies with its parent (PR_SET_PDEATHSIG), ignores the
 * terminal's SIGINT, and is killed and reaped on every return path.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* ================================================================ signals */

static volatile sig_atomic_t sig_count = 0;

static void on_sigusr1(int sig) { sig_count++; }

typedef struct {
    struct sigaction sa;
    pid_t pid, tid;
    int flags; /* BL_SIGNAL_SAVE_OLD, BL_SIGNAL_KILL */
} sig_ctx;

/* One sigaction call installing the handler; with BL_SIGNAL_SAVE_OLD it
 * also hands back the previous action (the kernel copies it out), as
 * some other tools time it (see the registration's description). */
static int install_body(void *ctx, int64_t iters)
{
    sig_ctx *c = ctx;
    struct sigaction old;
    struct sigaction *keep = (c->flags & BL_SIGNAL_SAVE_OLD) ? &old : NULL;
    for (int64_t i = 0; i < iters; i++) {
        if (sigaction(SIGUSR1, &c->sa, keep) != 0)
            return bl_sys_error("sigaction");
    }
    if (keep)
        BL_KEEP(old.sa_flags);
    return BL_OK;
}

/* Send signal `sig` the way the flags say: tgkill to this thread, or kill
 * to this process (BL_SIGNAL_KILL). */
static inline int send_sig(const sig_ctx *c, int sig)
{
    return (c->flags & BL_SIGNAL_KILL) ? kill(c->pid, sig)
                                       : (int)syscall(SYS_tgkill, c->pid, c->tid, sig);
}

/* The send alone: signal 0 (a permission check, no signal).  With
 * BL_SIGNAL_MINUS_SEND it is the overhead subtracted from each delivery,
 * leaving the handler's own cost (the definition some tools report). */
static int send_zero_body(void *ctx, int64_t iters)
{
    sig_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        if (send_sig(c, 0) != 0)
            return bl_sys_error("kill(0)");
    }
    return BL_OK;
}

/* One signal sent to this thread (tgkill: thread-directed, so the kernel
 * delivers it to us on the way out of the call even when the interpreter
 * has other threads) and its handler run.  The count is checked after
 * every send, so a signal that was not handled is an error, not a fast
 * iteration. */
static int deliver_body(void *ctx, int64_t iters)
{
    sig_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        sig_atomic_t want = sig_count + 1;
        if (send_sig(c, SIGUSR1) != 0)
            return bl_sys_error((c->flags & BL_SIGNAL_KILL) ? "kill" : "tgkill");
        if (sig_count != want) {
            bl_set_error("SIGUSR1 was sent but its handler did not run");
            return BL_ESYS;
        }
    }
    return BL_OK;
}

int bl_signal_latency(int op, const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    int flags = op & ~0xff;
    op &= 0xff;
    if ((op != BL_SIGNAL_INSTALL && op != BL_SIGNAL_DELIVER)
        || (flags & ~(BL_SIGNAL_SAVE_OLD | BL_SIGNAL_KILL | BL_SIGNAL_MINUS_SEND))) {
        bl_set_error("signal_latency: unknown op %d or flags 0x%x (0 install, 1 deliver)", op,
                     flags);
        return BL_EINVAL;
    }
    sig_ctx c;
    memset(&c, 0, sizeof c);
    c.flags = flags;
    c.sa.sa_handler = on_sigusr1;
    sigemptyset(&c.sa.sa_mask);
    c.sa.sa_flags = SA_RESTART;
    c.pid = getpid();
    c.tid = (pid_t)syscall(SYS_gettid);

    struct sigaction old;
    if (sigaction(SIGUSR1, &c.sa, &old) != 0)
        return bl_sys_error("sigaction");
    sigset_t usr1, oldmask;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    if (sigprocmask(SIG_UNBLOCK, &usr1, &oldmask) != 0) {
        int rc = bl_sys_error("sigprocmask");
        sigaction(SIGUSR1, &old, NULL);
        return rc;
    }
    info->helper_cpu = -1;
    bl_body_fn overhead = (op == BL_SIGNAL_DELIVER && (flags & BL_SIGNAL_MINUS_SEND))
                              ? send_zero_body : NULL;
    int rc = bl_measure(op == BL_SIGNAL_INSTALL ? install_body : deliver_body, overhead, &c, o,
                        ns, ticks, info);
    sigprocmask(SIG_SETMASK, &oldmask, NULL);
    sigaction(SIGUSR1, &old, NULL);
    return rc;
}

/* ======================================================= process creation */

typedef struct {
    int op;                 /* BL_PROCESS_*: fork+exit, fork+exec, fork+sh -c */
    const char *program;    /* exec and sh: the tiny program's absolute path */
    char *const *argv;      /* exec and sh: what the child execs */
    char *const *envp;
    int libc_exit;          /* fork+exit: the child calls exit(), not _exit() */
} fork_ctx;

/* The child: out of the terminal's Ctrl-C (the parent alone decides when to
 * stop, and waits for it), then exit or exec.  Exec keeps SIGINT ignored. */
static void fork_child(const fork_ctx *c)
{
    signal(SIGINT, SIG_IGN);
    if (c->op == BL_PROCESS_FORK_EXIT) {
        if (c->libc_exit)
            exit(0); /* atexit handlers run and stdio flushed */
        _exit(0);
    }
    execve(c->argv[0], c->argv, c->envp);
    _exit(127);
}

static int reap(pid_t child, int *status)
{
    for (;;) {
        pid_t r = waitpid(child, status, 0);
        if (r == child)
            return BL_OK;
        if (r < 0 && errno == EINTR) {
            /* Ctrl-C: the child ignores it and is about to exit anyway.  It
             * is not killed: a shell killed now would orphan the program it
             * started.  Wait for it, then go back. */
            continue;
        }
        return bl_sys_error("waitpid");
    }
}

static int fork_body(void *ctx, int64_t iters)
{
    const fork_ctx *c = ctx;
    for (int64_t i = 0; i < iters; i++) {
        pid_t child = fork();
        if (child < 0)
            return bl_sys_error("fork");
        if (child == 0)
            fork_child(c);
        int status = 0;
        int rc = reap(child, &status);
        if (rc != BL_OK)
            return rc;
        if (bl_interrupted())
            return BL_EINTR;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
                bl_set_error("the child could not run %s", c->argv[0]);
            else if (WIFSIGNALED(status))
                bl_set_error("the child was killed by signal %d", WTERMSIG(status));
            else
                bl_set_error("the child exited with status %d", WEXITSTATUS(status));
            return BL_ESYS;
        }
    }
    return BL_OK;
}

int bl_process_creation(int op, const char *program, const bl_opts *o, double *ns,
                        double *ticks, bl_info *info)
{
    int libc_exit = (op & BL_PROCESS_LIBC_EXIT) != 0;
    int empty_env = (op & BL_PROCESS_EMPTY_ENV) != 0;
    op &= ~(BL_PROCESS_LIBC_EXIT | BL_PROCESS_EMPTY_ENV);
    if (op < BL_PROCESS_FORK_EXIT || op > BL_PROCESS_FORK_SH_EXIT) {
        bl_set_error("process_creation: unknown op %d (0 fork_exit, 1 fork_exec_exit, "
                     "2 fork_sh_exit)", op);
        return BL_EINVAL;
    }
    if (empty_env && op != BL_PROCESS_FORK_EXEC_EXIT) {
        bl_set_error("process_creation: an empty environment applies to fork_exec_exit only "
                     "(fork_exit execs nothing; the shell needs PATH to find the program)");
        return BL_EINVAL;
    }
    if (op != BL_PROCESS_FORK_EXIT && (program == NULL || program[0] != '/')) {
        bl_set_error("process_creation: the tiny program needs an absolute path");
        return BL_EINVAL;
    }
    if (op != BL_PROCESS_FORK_EXIT && access(program, X_OK) != 0) {
        bl_set_error("process_creation: cannot execute %s: %s", program, strerror(errno));
        return BL_EINVAL;
    }

    fork_ctx c = {op, program, NULL, environ, libc_exit};
    char *argv_exec[2] = {(char *)program, NULL};
    char *argv_sh[4] = {"/bin/sh", "-c", NULL, NULL};
    char **envp = NULL;
    char *path_var = NULL, *dir = NULL;
    int rc = BL_OK;

    static char *no_env[1] = {NULL};
    if (op == BL_PROCESS_FORK_EXEC_EXIT) {
        c.argv = argv_exec;
        if (empty_env)
            c.envp = no_env;
    } else if (op == BL_PROCESS_FORK_SH_EXIT) {
        /* As a user starts a program by name: the shell is given the bare
         * name and finds it along PATH, to which the program's directory is
         * appended (so every directory of the user's PATH is tried first). */
        const char *slash = strrchr(program, '/');
        argv_sh[2] = (char *)(slash + 1);
        size_t n_env = 0;
        while (environ[n_env])
            n_env++;
        envp = calloc(n_env + 2, sizeof *envp);
        dir = strndup(program, (size_t)(slash - program));
        const char *old_path = getenv("PATH");
        if (!old_path || !*old_path)
            old_path = "/usr/bin:/bin";
        size_t len = strlen(old_path) + strlen(dir) + 8;
        path_var = malloc(len);
        if (!envp || !dir || !path_var) {
            rc = BL_ENOMEM;
            bl_set_error("out of memory");
            goto out;
        }
        snprintf(path_var, len, "PATH=%s:%s", old_path, dir[0] ? dir : "/");
        size_t k = 0;
        for (size_t i = 0; i < n_env; i++)
            if (strncmp(environ[i], "PATH=", 5) != 0)
                envp[k++] = environ[i];
        envp[k++] = path_var;
        envp[k] = NULL;
        c.argv = argv_sh;
        c.envp = envp;
        if (access("/bin/sh", X_OK) != 0) {
            rc = bl_sys_error("/bin/sh");
            goto out;
        }
    }

    info->helper_cpu = -1;
    rc = bl_measure(fork_body, NULL, &c, o, ns, ticks, info);
out:
    free(envp);
    free(path_var);
    free(dir);
    return rc;
}

/* ===================================== mapped pages a fork has to copy */

/* LEBench's "big fork" and "huge fork": the forking process first maps
 * 6,000 or 12,000 pages, each its own one-page shared anonymous mapping
 * (so fork copies that many mappings); touch 1 also writes each page. */
static void **extra_pages;
static int n_extra_pages;

void bl_unmap_extra_pages(void)
{
    for (int i = 0; i < n_extra_pages; i++)
        munmap(extra_pages[i], (size_t)sysconf(_SC_PAGESIZE));
    free(extra_pages);
    extra_pages = NULL;
    n_extra_pages = 0;
}

int bl_map_extra_pages(int pages, int touch)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    bl_unmap_extra_pages();
    if (pages < 0 || pages > BL_MAX_EXTRA_PAGES) {
        bl_set_error("mapped pages must be between 0 and %d", BL_MAX_EXTRA_PAGES);
        return BL_EINVAL;
    }
    if (pages == 0)
        return BL_OK;
    extra_pages = calloc((size_t)pages, sizeof *extra_pages);
    if (!extra_pages) {
        bl_set_error("out of memory");
        return BL_ENOMEM;
    }
    for (int i = 0; i < pages; i++) {
        void *p = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            int rc = bl_sys_error("mmap of a page to fork with");
            bl_unmap_extra_pages();
            return rc;
        }
        extra_pages[n_extra_pages++] = p;
        if (touch)
            *(volatile char *)p = 1;
    }
    return BL_OK;
}

/* ======================================================== thread creation */

static void *thread_noop(void *arg) { return arg; }

static int thread_body(void *ctx, int64_t iters)
{
    (void)ctx;
    for (int64_t i = 0; i < iters; i++) {
        pthread_t t;
        int e = pthread_create(&t, NULL, thread_noop, NULL);
        if (e == 0)
            e = pthread_join(t, NULL);
        if (e != 0) {
            errno = e;
            return bl_sys_error("pthread_create/join");
        }
    }
    return BL_OK;
}

int bl_thread_creation(const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    info->helper_cpu = -1;
    return bl_measure(thread_body, NULL, NULL, o, ns, ticks, info);
}

/* ========================================================= context switch */

#define RING_MAX 64

typedef struct {
    int n;                  /* processes in the ring, this one included */
    int to_next;            /* parent writes the token here (pipe 1) */
    int from_prev;          /* parent reads it back here (pipe 0) */
    int self[2];            /* the overhead loop's pipe to itself */
    long *array;            /* the parent's private array */
    size_t words;
    pid_t kids[RING_MAX];
    int n_kids;
} ring_ctx;

static int put_word(int fd, long w)
{
    for (;;) {
        ssize_t n = write(fd, &w, sizeof w);
        if (n == (ssize_t)sizeof w)
            return BL_OK;
        if (n < 0 && errno == EINTR) {
            if (bl_interrupted())
                return BL_EINTR;
            continue;
        }
        if (n < 0 && errno == EPIPE) {
            bl_set_error("a process of the ring exited during the measurement");
            return BL_ESYS;
        }
        return bl_sys_error("pipe write");
    }
}

static int get_word(int fd, long *w)
{
    for (;;) {
        ssize_t n = read(fd, w, sizeof *w);
        if (n == (ssize_t)sizeof *w)
            return BL_OK;
        if (n < 0 && errno == EINTR) {
            if (bl_interrupted())
                return BL_EINTR;
            continue;
        }
        if (n >= 0) {
            bl_set_error("a process of the ring exited during the measurement");
            return BL_ESYS;
        }
        return bl_sys_error("pipe read");
    }
}

/* The cache footprint: sum every word (a long, 8 bytes) of the array, one
 * load a word, in four independent chains (bl_sum_words).  The loop's
 * speed is part of the figure: the overhead subtracted is the same sum
 * over a hot array, and a loop bound by its adds makes the hot and the
 * refilled sums alike, hiding the refill the footprint is there to show.
 * (Summing 4-byte ints made twice the loads.  One chain of adds summed a
 * hot 16 KiB in 0.6-1.9 us on the EPYC guest, the peer's loop in
 * 0.3-0.7, and the four chains in 0.26-0.43: the overhead of 8 processes
 * x 16 KB, less that of 0 KB, runs of 2026-11-27 in docs/peers.md.) */
/* The array is the same every hop, so a compiler that saw the whole loop
 * (LTO) could sum it once and reuse the result.  The empty asm makes the
 * pointer, and the memory behind it, new to the compiler on every call:
 * each hop really reads process_kb of memory.
 * Its own function, on a 64-byte boundary and never inlined: inlined, the
 * loop sat wherever the code before it ended, and code added elsewhere in
 * proc_runner moved the 8 x 16 KB ring's figure by 6 % (3.39 -> 3.19 us,
 * the same loop, docs/peers.md); here its place in the cache lines and
 * the loop buffer is the same in every build. */
__attribute__((noinline, aligned(64)))
static long sum_array(const long *a, size_t words)
{
    __asm__ __volatile__("" : "+r"(a) : : "memory");
    return (long)bl_sum_words((const uint64_t *)a, words);
}

/* mmap rather than malloc: the children make theirs after fork. */
static long *make_array(size_t words)
{
    if (words == 0)
        return NULL;
    long *a = mmap(NULL, words * sizeof *a, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (a == MAP_FAILED)
        return NULL;
    for (size_t i = 0; i < words; i++) /* touch every page, once */
        a[i] = (long)(i & 0xff);
    return a;
}

/* One iteration: the token once round the ring, n hops.  The parent sums
 * its array, passes the token on and waits for it to come back. */
static int ring_body(void *ctx, int64_t iters)
{
    ring_ctx *r = ctx;
    long token = 0;
    for (int64_t i = 0; i < iters; i++) {
        long s = sum_array(r->array, r->words);
        BL_KEEP(s);
        int rc = put_word(r->to_next, token);
        if (rc == BL_OK)
            rc = get_word(r->from_prev, &token);
        if (rc != BL_OK)
            return rc;
        token++;
    }
    return BL_OK;
}

/* The overhead of the same iteration without switching: n times, the one
 * process sums its (hot) array, writes the token into its own pipe and
 * reads it back. */
static int ring_overhead_body(void *ctx, int64_t iters)
{
    ring_ctx *r = ctx;
    long token = 0;
    for (int64_t i = 0; i < iters; i++) {
        for (int h = 0; h < r->n; h++) {
            long s = sum_array(r->array, r->words);
            BL_KEEP(s);
            int rc = put_word(r->self[1], token);
            if (rc == BL_OK)
                rc = get_word(r->self[0], &token);
            if (rc != BL_OK)
                return rc;
        }
        token++;
    }
    return BL_OK;
}

/* Child k of the ring: read from pipe k, sum, write to pipe k+1 (mod n). */
static void ring_child(int in, int out, size_t words, int cpu, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(1);
    prctl(PR_SET_NAME, "bl-ctx-ring");
    signal(SIGINT, SIG_IGN);
    if (cpu >= 0 && bl_pin_self(cpu) != BL_OK)
        _exit(3);
    long *a = make_array(words); /* private: allocated after the fork */
    if (words > 0 && !a)
        _exit(4);
    long token;
    for (;;) {
        ssize_t n = read(in, &token, sizeof token);
        if (n == 0)
            _exit(0); /* the ring is closing */
        if (n < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        if (n != (ssize_t)sizeof token)
            _exit(1);
        long s = sum_array(a, words);
        BL_KEEP(s);
        if (write(out, &token, sizeof token) != (ssize_t)sizeof token)
            _exit(1);
    }
}

static void ring_teardown(ring_ctx *r)
{
    for (int k = 0; k < r->n_kids; k++)
        kill(r->kids[k], SIGKILL);
    for (int k = 0; k < r->n_kids; k++)
        while (waitpid(r->kids[k], NULL, 0) < 0 && errno == EINTR)
            ;
    r->n_kids = 0;
}

/* After a failed first trip: say why, if a child told us by its status. */
static int ring_explain(ring_ctx *r, int rc, int cpu)
{
    for (int k = 0; k < r->n_kids; k++) {
        int status;
        if (waitpid(r->kids[k], &status, WNOHANG) == r->kids[k]) {
            r->kids[k] = r->kids[--r->n_kids]; /* reaped: no longer ours */
            k--;
            if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
                bl_set_error("a ring process could not pin itself to CPU %d", cpu);
                return BL_EINVAL;
            }
            if (WIFEXITED(status) && WEXITSTATUS(status) == 4) {
                bl_set_error("a ring process could not allocate its array");
                return BL_ENOMEM;
            }
        }
    }
    return rc;
}

int bl_context_switch(int processes, size_t process_bytes, const bl_opts *o, double *ns,
                      double *ticks, bl_info *info)
{
    if (processes < 2 || processes > RING_MAX) {
        bl_set_error("processes must be between 2 and %d; got %d", RING_MAX, processes);
        return BL_EINVAL;
    }
    ring_ctx r;
    memset(&r, 0, sizeof r);
    r.n = processes;
    r.words = process_bytes / sizeof(long);
    r.self[0] = r.self[1] = -1;

    int p[RING_MAX][2];
    int made = 0, rc = BL_OK;
    for (; made < processes; made++) {
        if (pipe2(p[made], O_CLOEXEC) != 0) {
            rc = bl_sys_error("pipe");
            break;
        }
    }
    if (rc == BL_OK && pipe2(r.self, O_CLOEXEC) != 0) {
        r.self[0] = r.self[1] = -1;
        rc = bl_sys_error("pipe");
    }
    if (rc != BL_OK)
        goto close_pipes;

    bl_guard_begin();
    pid_t parent = getpid();
    for (int k = 1; k < processes && rc == BL_OK; k++) {
        pid_t child = fork();
        if (child < 0) {
            rc = bl_sys_error("fork");
            break;
        }
        if (child == 0) {
            int in = p[k][0], out = p[(k + 1) % processes][1];
            for (int j = 0; j < processes; j++) {
                if (p[j][0] != in)
                    close(p[j][0]);
                if (p[j][1] != out)
                    close(p[j][1]);
            }
            close(r.self[0]);
            close(r.self[1]);
            ring_child(in, out, r.words, o->helper_cpu, parent);
            _exit(0);
        }
        r.kids[r.n_kids++] = child;
    }
    /* The parent keeps the write end of pipe 1 and the read end of pipe 0;
     * with every other end closed here, a child that dies breaks the ring
     * visibly (EOF or EPIPE) instead of leaving the parent waiting. */
    r.to_next = p[1][1];
    r.from_prev = p[0][0];
    for (int j = 0; j < processes; j++) {
        if (p[j][0] != r.from_prev)
            close(p[j][0]);
        if (p[j][1] != r.to_next)
            close(p[j][1]);
    }
    made = 0;

    if (rc == BL_OK && r.words > 0) {
        r.array = make_array(r.words);
        if (!r.array) {
            bl_set_error("cannot allocate %zu bytes for the array", process_bytes);
            rc = BL_ENOMEM;
        }
    }
    info->helper_cpu = o->helper_cpu;
    /* One trip first: every child runs, pinned, with its array touched. */
    if (rc == BL_OK) {
        rc = ring_body(&r, 1);
        if (rc == BL_ESYS)
            rc = ring_explain(&r, rc, o->helper_cpu);
    }
    if (rc == BL_OK)
        rc = bl_measure(ring_body, ring_overhead_body, &r, o, ns, ticks, info);

    close(r.to_next);
    close(r.from_prev);
    ring_teardown(&r);
    if (r.array)
        munmap(r.array, r.words * sizeof(long));
    bl_guard_end();
close_pipes:
    for (int j = 0; j < made; j++) {
        close(p[j][0]);
        close(p[j][1]);
    }
    if (r.self[0] >= 0) {
        close(r.self[0]);
        close(r.self[1]);
    }
    return rc;
}
