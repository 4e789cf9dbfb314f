/*
 * net_calls.c -- the socket calls alone, as LEBench (Ren et al., SOSP
 * 2019) times them: one non-blocking send, or one non-blocking recv, of
 * message_bytes on a connected AF_UNIX stream socket.  Both ends are this
 * process's (a socketpair): the calls take the same kernel path as between
 * two processes, minus a wake-up, since nobody waits on the other end.
 *
 * send: a batch of sends is timed, then the other end is drained outside
 * the timing; recv: a batch of messages is sent outside the timing, then
 * the recvs are timed.  A batch is what the socket buffer holds easily: 32
 * small messages, one of 96,000 bytes.  One iteration is one call.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_BATCH 32
#define BATCH_BYTES ((size_t)128 << 10)

typedef struct {
    int fds[2];
    size_t bytes;
    int batch;
    char *buf;
    size_t buf_bytes;
} sock_ctx;

static int send_one(sock_ctx *c)
{
    ssize_t n = send(c->fds[0], c->buf, c->bytes, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n == (ssize_t)c->bytes)
        return BL_OK;
    if (n >= 0 || errno == EAGAIN) {
        bl_set_error("send of %zu bytes did not fit the socket buffer", c->bytes);
        return BL_ESYS;
    }
    return bl_sys_error("send");
}

/* Read `bytes` that are already queued on the other end. */
static int drain(sock_ctx *c, size_t bytes)
{
    while (bytes > 0) {
        size_t want = bytes < c->buf_bytes ? bytes : c->buf_bytes;
        ssize_t n = recv(c->fds[1], c->buf, want, MSG_DONTWAIT);
        if (n <= 0) {
            if (n < 0 && errno == EINTR && !bl_interrupted())
                continue;
            return n == 0 ? (bl_set_error("the socket closed"), BL_ESYS) : bl_sys_error("recv");
        }
        bytes -= (size_t)n;
    }
    return BL_OK;
}

static int send_body(void *ctx, int64_t iters)
{
    sock_ctx *c = ctx;
    for (int64_t done = 0; done < iters;) {
        int n = iters - done < c->batch ? (int)(iters - done) : c->batch;
        int rc = BL_OK;
        for (int j = 0; rc == BL_OK && j < n; j++)
            rc = send_one(c);
        bl_untimed_begin();
        if (rc == BL_OK)
            rc = drain(c, (size_t)n * c->bytes);
        bl_untimed_end();
        if (rc != BL_OK)
            return rc;
        done += n;
    }
    return BL_OK;
}

static int recv_body(void *ctx, int64_t iters)
{
    sock_ctx *c = ctx;
    for (int64_t done = 0; done < iters;) {
        int n = iters - done < c->batch ? (int)(iters - done) : c->batch;
        int rc = BL_OK;
        bl_untimed_begin();
        for (int j = 0; rc == BL_OK && j < n; j++)
            rc = send_one(c);
        bl_untimed_end();
        for (int j = 0; rc == BL_OK && j < n; j++) {
            ssize_t got = recv(c->fds[1], c->buf, c->bytes, MSG_DONTWAIT);
            if (got != (ssize_t)c->bytes)
                rc = got < 0 ? bl_sys_error("recv")
                             : (bl_set_error("recv returned %zd of %zu bytes", got, c->bytes),
                                BL_ESYS);
        }
        if (rc != BL_OK)
            return rc;
        done += n;
    }
    return BL_OK;
}

int bl_socket_call(int op, size_t message_bytes, const bl_opts *o, double *ns, double *ticks,
                   bl_info *info)
{
    if (op != BL_SOCKCALL_SEND && op != BL_SOCKCALL_RECV) {
        bl_set_error("socket_call: unknown op %d (0 send, 1 recv)", op);
        return BL_EINVAL;
    }
    if (message_bytes < 1 || message_bytes > BATCH_BYTES) {
        bl_set_error("message_bytes must be between 1 and %zu", BATCH_BYTES);
        return BL_EINVAL;
    }
    sock_ctx c;
    memset(&c, 0, sizeof c);
    c.bytes = message_bytes;
    size_t fit = BATCH_BYTES / message_bytes;
    c.batch = fit < 1 ? 1 : fit > MAX_BATCH ? MAX_BATCH : (int)fit;
    c.buf_bytes = message_bytes < 65536 ? 65536 : message_bytes;
    c.buf = malloc(c.buf_bytes);
    if (!c.buf) {
        bl_set_error("out of memory");
        return BL_ENOMEM;
    }
    memset(c.buf, 'a', c.buf_bytes);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, c.fds) != 0) {
        int rc = bl_sys_error("socketpair");
        free(c.buf);
        return rc;
    }
    info->helper_cpu = -1;
    int rc = bl_measure(op == BL_SOCKCALL_SEND ? send_body : recv_body, NULL, &c, o, ns, ticks,
                        info);
    close(c.fds[0]);
    close(c.fds[1]);
    free(c.buf);
    return rc;
}
