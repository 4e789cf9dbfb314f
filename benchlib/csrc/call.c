/*
 * call.c -- a procedure call against the same call made to another process.
 *
 * The comp.os.mach thread "Mach performance?" (December 1989) compared
 * "local" procedure calls in one address space with the same operations
 * invoked on a server process on the same machine: a null call, adding two
 * numbers, and a 200-byte string passed in by value, returned by value, or
 * both.  This file does both halves with the same procedures:
 *
 * local: the caller calls bl_proc_* directly.  The procedures are never
 * inlined or analysed across the call (noipa where the compiler has it),
 * each holds an empty asm that claims to touch memory, so a call cannot be
 * dropped or hoisted, and C's by-value semantics copy the 200-byte strings
 * into the callee's argument and out of its result.
 *
 * process: the client stub copies the arguments into a request and makes
 * one round trip to a forked server ("bl-call-server"): one write of the
 * request, one read of the reply.  The server stub copies the arguments out
 * of the request, calls the same procedure, and copies the results into
 * the reply.  Two pipes or one AF_UNIX socketpair carry the messages.
 *
 * Every result is checked: add is chained (x = add(x, 1)) and its final
 * value compared; the strings carry a byte that changes every call and
 * must come back.  After the calibrated samples, a fixed number of calls
 * (the thread's 10000) is made once more and timed with CLOCK_MONOTONIC and
 * getrusage in both processes, as the thread's table reports elapsed, user
 * and system time.  The server is killed and reaped on every path.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STRING_BYTES 200
#define HEADER_BYTES 4
#define SERVER_NAME "bl-call-server"

/* Requests only the measuring code sends, never timed. */
#define SRV_RESET 100   /* take a getrusage baseline */
#define SRV_REPORT 101  /* reply with the usage since the baseline */

typedef struct {
    char c[STRING_BYTES];
} bl_string;

/* ------------------------------------------------------------ the procedures */

/* GCC's noipa forbids inlining and every inter-procedural inference (a
 * pure or const callee, constant arguments, an unused result).  Clang has
 * no noipa: a weak definition does the same job there, since the linker
 * may replace it, so the compiler may assume nothing about its body; the
 * call stays a direct call. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define PROC __attribute__((noinline, noipa, visibility("hidden")))
#elif defined(__clang__)
#define PROC __attribute__((noinline, weak, visibility("hidden")))
#else
#define PROC __attribute__((noinline, visibility("hidden")))
#endif

/* What string_out returns; filled at run time so nothing is constant. */
static bl_string out_string;

/* External linkage as well (hidden: called directly, not through the PLT):
 * the compiler must keep the real signatures and calling convention. */
PROC void bl_proc_null(void);
PROC int32_t bl_proc_add(int32_t a, int32_t b);
PROC void bl_proc_string_in(bl_string s);
PROC bl_string bl_proc_string_out(void);
PROC bl_string bl_proc_string_inout(bl_string s);

PROC void bl_proc_null(void) { BL_CLOBBER(); }

PROC int32_t bl_proc_add(int32_t a, int32_t b)
{
    BL_CLOBBER();
    return a + b;
}

/* The string is copied into s by the caller; the asm says it is read. */
PROC void bl_proc_string_in(bl_string s) { BL_KEEP(&s); }

PROC bl_string bl_proc_string_out(void)
{
    BL_CLOBBER();
    return out_string;
}

PROC bl_string bl_proc_string_inout(bl_string s)
{
    BL_KEEP(&s);
    return s;
}

static size_t request_bytes(int op)
{
    switch (op) {
    case BL_CALL_ADD:
        return 2 * sizeof(int32_t);
    case BL_CALL_STRING_IN:
    case BL_CALL_STRING_INOUT:
        return STRING_BYTES;
    default:
        return 0;
    }
}

static size_t reply_bytes(int op)
{
    switch (op) {
    case BL_CALL_ADD:
        return sizeof(int32_t);
    case BL_CALL_STRING_OUT:
    case BL_CALL_STRING_INOUT:
        return STRING_BYTES;
    case SRV_REPORT:
        return 4 * sizeof(int64_t);
    default:
        return 0;
    }
}

static int known_op(int op)
{
    return (op >= BL_CALL_NULL && op <= BL_CALL_STRING_INOUT) || op == SRV_RESET ||
           op == SRV_REPORT;
}

/* ------------------------------------------------------------ the server */

static int64_t tv_ns(struct timeval tv) { return (int64_t)tv.tv_sec * 1000000000 + tv.tv_usec * 1000; }

/* Serve until the client closes its end.  A request is read with one read()
 * in the usual case (the client writes it whole, and it is far below
 * PIPE_BUF); the reply is one write(). */
static void server_child(int in, int out)
{
    char req[HEADER_BYTES + STRING_BYTES], rep[HEADER_BYTES + STRING_BYTES];
    struct rusage base;
    getrusage(RUSAGE_SELF, &base);
    for (;;) {
        size_t got = 0, need = HEADER_BYTES;
        uint32_t op = 0;
        while (got < need) {
            ssize_t n = read(in, req + got, need - got);
            if (n == 0)
                _exit(0); /* the client closed its end: done */
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                _exit(1);
            }
            got += (size_t)n;
            if (got >= HEADER_BYTES && need == HEADER_BYTES) {
                memcpy(&op, req, sizeof op);
                if (!known_op((int)op))
                    _exit(2);
                need += request_bytes((int)op);
            }
        }
        if (got > need) /* the client sends one request at a time */
            _exit(2);
        const char *args = req + HEADER_BYTES;
        char *res = rep + HEADER_BYTES;
        switch (op) {
        case BL_CALL_NULL:
            bl_proc_null();
            break;
        case BL_CALL_ADD: {
            int32_t a, b, r;
            memcpy(&a, args, sizeof a);
            memcpy(&b, args + sizeof a, sizeof b);
            r = bl_proc_add(a, b);
            memcpy(res, &r, sizeof r);
            break;
        }
        case BL_CALL_STRING_IN: {
            bl_string s;
            memcpy(&s, args, sizeof s);
            bl_proc_string_in(s);
            break;
        }
        case BL_CALL_STRING_OUT: {
            bl_string r = bl_proc_string_out();
            memcpy(res, &r, sizeof r);
            break;
        }
        case BL_CALL_STRING_INOUT: {
            bl_string s, r;
            memcpy(&s, args, sizeof s);
            r = bl_proc_string_inout(s);
            memcpy(res, &r, sizeof r);
            break;
        }
        case SRV_RESET:
            getrusage(RUSAGE_SELF, &base);
            break;
        case SRV_REPORT: {
            struct rusage now;
            getrusage(RUSAGE_SELF, &now);
            int64_t v[4] = {tv_ns(now.ru_utime) - tv_ns(base.ru_utime),
                            tv_ns(now.ru_stime) - tv_ns(base.ru_stime),
                            now.ru_nvcsw - base.ru_nvcsw, now.ru_nivcsw - base.ru_nivcsw};
            memcpy(res, v, sizeof v);
            break;
        }
        }
        memcpy(rep, &op, sizeof op);
        size_t len = HEADER_BYTES + reply_bytes((int)op), put = 0;
        while (put < len) {
            ssize_t n = write(out, rep + put, len - put);
            if (n > 0)
                put += (size_t)n;
            else if (!(n < 0 && errno == EINTR))
                _exit(1);
        }
    }
}

/* ------------------------------------------------------------ the client */

typedef struct {
    int op;
    int remote;
    int to_server, from_server, is_sock;
    int32_t sum;        /* add: the chained result */
    bl_string arg;      /* string_in, string_inout: byte 0 changes every call */
    bl_string result;   /* string_out, string_inout */
    char req[HEADER_BYTES + STRING_BYTES];
    char rep[HEADER_BYTES + STRING_BYTES];
} call_ctx;

static int wrong(const char *what)
{
    bl_set_error("procedure_call: %s came back wrong", what);
    return BL_ESYS;
}

/* One request and its reply; the reply's payload is left in c->rep. */
static int round_trip(call_ctx *c, uint32_t op, size_t args)
{
    memcpy(c->req, &op, sizeof op);
    int rc = bl_put_all(c->to_server, c->is_sock, c->req, HEADER_BYTES + args);
    if (rc == BL_OK)
        rc = bl_get_all(c->from_server, c->rep, HEADER_BYTES + reply_bytes((int)op));
    if (rc != BL_OK)
        return rc;
    uint32_t back;
    memcpy(&back, c->rep, sizeof back);
    return back == op ? BL_OK : wrong("the reply's operation");
}

static int local_body(call_ctx *c, int64_t iters)
{
    switch (c->op) {
    case BL_CALL_LOOP:
        for (int64_t i = 0; i < iters; i++)
            BL_CLOBBER();
        return BL_OK;
    case BL_CALL_SYSCALL:
        for (int64_t i = 0; i < iters; i++) {
            long r = syscall(SYS_getpid);
            BL_KEEP(r);
        }
        return BL_OK;
    case BL_CALL_NULL:
        for (int64_t i = 0; i < iters; i++)
            bl_proc_null();
        return BL_OK;
    case BL_CALL_ADD: {
        int32_t x = c->sum, start = x;
        for (int64_t i = 0; i < iters; i++)
            x = bl_proc_add(x, 1);
        c->sum = x;
        return (int32_t)(x - start) == (int32_t)iters ? BL_OK : wrong("the sum");
    }
    case BL_CALL_STRING_IN:
        for (int64_t i = 0; i < iters; i++) {
            c->arg.c[0] = (char)i;
            bl_proc_string_in(c->arg);
        }
        return BL_OK;
    case BL_CALL_STRING_OUT:
        for (int64_t i = 0; i < iters; i++) {
            c->result = bl_proc_string_out();
            if (c->result.c[STRING_BYTES - 1] != out_string.c[STRING_BYTES - 1])
                return wrong("the string");
        }
        return BL_OK;
    case BL_CALL_STRING_INOUT:
        for (int64_t i = 0; i < iters; i++) {
            c->arg.c[0] = (char)i;
            c->result = bl_proc_string_inout(c->arg);
            if (c->result.c[0] != (char)i)
                return wrong("the string");
        }
        return BL_OK;
    }
    return BL_EINVAL;
}

/* The client stub: arguments copied into the request, results copied out
 * of the reply into the caller's variables, as a generated stub does. */
static int remote_body(call_ctx *c, int64_t iters)
{
    char *args = c->req + HEADER_BYTES;
    const char *res = c->rep + HEADER_BYTES;
    for (int64_t i = 0; i < iters; i++) {
        int rc;
        switch (c->op) {
        case BL_CALL_NULL:
            rc = round_trip(c, BL_CALL_NULL, 0);
            break;
        case BL_CALL_ADD: {
            int32_t a = c->sum, b = 1, r;
            memcpy(args, &a, sizeof a);
            memcpy(args + sizeof a, &b, sizeof b);
            rc = round_trip(c, BL_CALL_ADD, 2 * sizeof a);
            memcpy(&r, res, sizeof r);
            if (rc == BL_OK && r != a + 1)
                rc = wrong("the sum");
            c->sum = r;
            break;
        }
        case BL_CALL_STRING_IN:
            c->arg.c[0] = (char)i;
            memcpy(args, &c->arg, STRING_BYTES);
            rc = round_trip(c, BL_CALL_STRING_IN, STRING_BYTES);
            break;
        case BL_CALL_STRING_OUT:
            rc = round_trip(c, BL_CALL_STRING_OUT, 0);
            memcpy(&c->result, res, STRING_BYTES);
            if (rc == BL_OK && c->result.c[STRING_BYTES - 1] != out_string.c[STRING_BYTES - 1])
                rc = wrong("the string");
            break;
        case BL_CALL_STRING_INOUT:
            c->arg.c[0] = (char)i;
            memcpy(args, &c->arg, STRING_BYTES);
            rc = round_trip(c, BL_CALL_STRING_INOUT, STRING_BYTES);
            memcpy(&c->result, res, STRING_BYTES);
            if (rc == BL_OK && c->result.c[0] != (char)i)
                rc = wrong("the string");
            break;
        default:
            return BL_EINVAL;
        }
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

static int call_body(void *ctx, int64_t iters)
{
    call_ctx *c = ctx;
    return c->remote ? remote_body(c, iters) : local_body(c, iters);
}

/* ------------------------------------------------------------ the fixed run */

/* `calls` calls timed once, with the CPU time and switches of this thread
 * and of the server, pinned as bl_measure pins. */
static int fixed_run(call_ctx *c, int64_t calls, const bl_opts *o, bl_call_usage *u)
{
    bl_pinning pin;
    int rc = bl_pin_begin(o->cpu, &pin);
    if (rc != BL_OK)
        return rc;
    if (c->remote)
        rc = round_trip(c, SRV_RESET, 0);
    struct rusage r0, r1;
    double t0 = 0, t1 = 0;
    if (rc == BL_OK) {
        getrusage(RUSAGE_THREAD, &r0);
        t0 = bl_now_ns();
        rc = call_body(c, calls);
        t1 = bl_now_ns();
        getrusage(RUSAGE_THREAD, &r1);
    }
    int64_t srv[4] = {-1, -1, -1, -1};
    if (rc == BL_OK && c->remote) {
        rc = round_trip(c, SRV_REPORT, 0);
        memcpy(srv, c->rep + HEADER_BYTES, sizeof srv);
    }
    if (rc == BL_OK) {
        u->calls = calls;
        u->elapsed_ns = t1 - t0;
        u->client_user_ns = (double)(tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime));
        u->client_system_ns = (double)(tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime));
        u->client_voluntary_switches = r1.ru_nvcsw - r0.ru_nvcsw;
        u->client_involuntary_switches = r1.ru_nivcsw - r0.ru_nivcsw;
        u->server_user_ns = (double)srv[0];
        u->server_system_ns = (double)srv[1];
        u->server_voluntary_switches = srv[2];
        u->server_involuntary_switches = srv[3];
    }
    bl_pin_end(&pin);
    return rc;
}

/* ------------------------------------------------------------ entry point */

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

int bl_procedure_call(int op, int mode, int transport, int64_t fixed_calls,
                      bl_call_usage *usage, const bl_opts *o, double *ns, double *ticks,
                      bl_info *info)
{
    memset(usage, 0, sizeof *usage);
    if (op < BL_CALL_LOOP || op > BL_CALL_STRING_INOUT) {
        bl_set_error("procedure_call: unknown op %d", op);
        return BL_EINVAL;
    }
    if (mode != BL_CALLMODE_LOCAL && mode != BL_CALLMODE_PROCESS) {
        bl_set_error("procedure_call: mode must be 0 (local) or 1 (process), got %d", mode);
        return BL_EINVAL;
    }
    if (mode == BL_CALLMODE_PROCESS && op < BL_CALL_NULL) {
        bl_set_error("procedure_call: op loop and syscall are local only");
        return BL_EINVAL;
    }
    if (mode == BL_CALLMODE_PROCESS && transport != BL_NET_PIPE && transport != BL_NET_UNIX) {
        bl_set_error("procedure_call: transport must be pipe or unix (socketpair), got %d",
                     transport);
        return BL_EINVAL;
    }
    if (fixed_calls < 0) {
        bl_set_error("procedure_call: fixed_calls must be >= 0");
        return BL_EINVAL;
    }
    for (int i = 0; i < STRING_BYTES; i++)
        out_string.c[i] = (char)('a' + i % 26);

    call_ctx c;
    memset(&c, 0, sizeof c);
    c.op = op;
    c.remote = mode == BL_CALLMODE_PROCESS;
    c.to_server = c.from_server = -1;
    memcpy(&c.arg, &out_string, sizeof c.arg);
    info->helper_cpu = -1;

    if (!c.remote) {
        int rc = bl_measure(call_body, NULL, &c, o, ns, ticks, info);
        if (rc == BL_OK && fixed_calls > 0)
            rc = fixed_run(&c, fixed_calls, o, usage);
        return rc;
    }

    /* ours[0]: requests out, ours[1]: replies in; theirs likewise. */
    int ours[2] = {-1, -1}, theirs[2] = {-1, -1}, rc = BL_OK;
    if (transport == BL_NET_PIPE) {
        rc = bl_pipe_pair(ours, theirs);
        if (rc != BL_OK)
            return rc;
    } else {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
            return bl_sys_error("socketpair");
        ours[0] = ours[1] = sv[0];
        theirs[0] = theirs[1] = sv[1];
        c.is_sock = 1;
    }
    bl_guard_begin();
    pid_t child = bl_fork_helper(SERVER_NAME, o->helper_cpu);
    if (child == 0) {
        close(ours[0]);
        if (ours[1] != ours[0])
            close(ours[1]);
        server_child(theirs[0], theirs[1]);
        _exit(0);
    }
    if (theirs[1] != theirs[0])
        close_fd(&theirs[1]);
    close_fd(&theirs[0]);
    if (child < 0) {
        rc = bl_sys_error("fork");
    } else {
        info->helper_cpu = o->helper_cpu;
        c.to_server = ours[0];
        c.from_server = ours[1];
        /* one call first: a server that failed to start is named as such */
        rc = bl_helper_failure(child, call_body(&c, 1), o->helper_cpu);
        if (rc == BL_OK)
            rc = bl_measure(call_body, NULL, &c, o, ns, ticks, info);
        if (rc == BL_OK && fixed_calls > 0)
            rc = fixed_run(&c, fixed_calls, o, usage);
    }
    if (ours[1] != ours[0])
        close_fd(&ours[1]);
    close_fd(&ours[0]);
    bl_stop_helper(child);
    bl_guard_end();
    return rc;
}
