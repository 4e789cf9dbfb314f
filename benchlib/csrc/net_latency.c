/*
 * net_latency.c -- round trips between processes over sockets, and the
 * cost of a TCP connection (the 1996 paper's IPC latencies, on loopback).
 *
 * ipc_latency: this process sends a 4-byte word to a forked echo child
 * and waits for it to come back, over an AF_UNIX stream socketpair, a
 * loopback TCP connection (TCP_NODELAY on both ends) or a pair of
 * connected loopback UDP sockets.  One iteration is one round trip.
 *
 * tcp_connect_latency: a forked child accepts connections on a loopback
 * listener; this process connects, waits until the child has accepted and
 * closed, and closes.  One iteration is one connection.
 *
 * The helper process and the sockets are helper.c's.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------------ ipc_latency */

typedef struct {
    int fd;
    int dgram;
    uint32_t word;
} echo_ctx;

static int echo_body(void *ctx, int64_t iters)
{
    echo_ctx *e = ctx;
    for (int64_t i = 0; i < iters; i++) {
        uint32_t out = ++e->word, back = 0;
        int rc = bl_put_all(e->fd, 1, &out, sizeof out);
        if (rc == BL_OK)
            rc = bl_get_all(e->fd, &back, sizeof back);
        if (rc != BL_OK)
            return rc;
        if (back != out) {
            bl_set_error("the echo came back wrong (sent %u, got %u)", out, back);
            return BL_ESYS;
        }
    }
    return BL_OK;
}

static void echo_child(int fd, int dgram)
{
    uint32_t w;
    for (;;) {
        if (dgram) {
            ssize_t n = recv(fd, &w, sizeof w, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n != (ssize_t)sizeof w || send(fd, &w, sizeof w, 0) != (ssize_t)sizeof w)
                _exit(1);
        } else {
            if (bl_child_read_all(fd, &w, sizeof w) != 0)
                _exit(0); /* the parent closed its end: done */
            if (bl_child_write_all(fd, &w, sizeof w) != 0)
                _exit(1);
        }
    }
}

int bl_ipc_latency(int transport, const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    int fds[2] = {-1, -1}, rc;
    if (transport == BL_NET_UNIX)
        rc = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0
                 ? BL_OK : bl_sys_error("socketpair");
    else if (transport == BL_NET_TCP)
        rc = bl_tcp_pair(0, 1, fds);
    else if (transport == BL_NET_UDP)
        rc = bl_udp_pair(0, 5, fds);
    else {
        bl_set_error("ipc_latency: transport must be unix, tcp or udp (got %d)", transport);
        return BL_EINVAL;
    }
    if (rc != BL_OK)
        return rc;
    bl_guard_begin();
    pid_t child = bl_fork_helper(BL_NET_HELPER, o->helper_cpu);
    if (child == 0) {
        close(fds[0]);
        echo_child(fds[1], transport == BL_NET_UDP);
        _exit(0);
    }
    bl_close_fd(&fds[1]);
    if (child < 0) {
        rc = bl_sys_error("fork");
    } else {
        info->helper_cpu = o->helper_cpu;
        echo_ctx e = {fds[0], transport == BL_NET_UDP, 0};
        /* one round trip first: a helper that failed to start is named as such */
        rc = bl_helper_failure(child, echo_body(&e, 1), o->helper_cpu);
        if (rc == BL_OK)
            rc = bl_measure(echo_body, NULL, &e, o, ns, ticks, info);
    }
    if (transport == BL_NET_TCP)
        bl_close_abortively(&fds[0]);
    bl_close_fd(&fds[0]);
    bl_stop_helper(child);
    bl_guard_end();
    return rc;
}

/* ------------------------------------------------------------ tcp_connect_latency */

/*
 * TIME_WAIT: the side that closes first keeps the connection in TIME_WAIT
 * for a minute, and millions of connections would fill the kernel's table
 * (and, on the client side, the ephemeral ports).  Here the server (the
 * child) closes first, abortively: SO_LINGER {on, 0 s} makes close() send
 * RST and free the connection at once.  The client waits in read() for
 * that RST (ECONNRESET, or 0), which also proves the child has accepted
 * and closed this connection, then closes a socket that is already CLOSED.
 * Neither end ever enters TIME_WAIT; Python counts what is left on the
 * listener's port afterwards and records it.
 */
typedef struct {
    struct sockaddr_in addr;
} connect_ctx;

static int connect_once(const connect_ctx *c)
{
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return bl_sys_error("socket");
    int rc = BL_OK;
    if (connect(s, (const struct sockaddr *)&c->addr, sizeof c->addr) != 0) {
        if (errno == EINTR && bl_interrupted())
            rc = BL_EINTR;
        else
            rc = bl_sys_error("connect 127.0.0.1");
    }
    while (rc == BL_OK) {
        char b;
        ssize_t n = read(s, &b, 1);
        if (n == 0 || (n < 0 && errno == ECONNRESET))
            break; /* the server accepted and closed */
        if (n < 0 && errno == EINTR) {
            if (bl_interrupted())
                rc = BL_EINTR;
            continue;
        }
        rc = n < 0 ? bl_sys_error("read") : (bl_set_error("the server sent data"), BL_ESYS);
    }
    close(s);
    return rc;
}

static int connect_body(void *ctx, int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        int rc = connect_once(ctx);
        if (rc != BL_OK)
            return rc;
    }
    return BL_OK;
}

static void accept_child(int l)
{
    struct linger abortive = {1, 0};
    for (;;) {
        int s = accept(l, NULL, NULL);
        if (s < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            _exit(1);
        }
        if (setsockopt(s, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive) != 0)
            _exit(1);
        close(s);
    }
}

int bl_tcp_connect_latency(const bl_opts *o, int *port, double *ns, double *ticks,
                           bl_info *info)
{
    connect_ctx c;
    int l = -1;
    int rc = bl_listener(0, &c.addr, &l);
    if (rc != BL_OK)
        return rc;
    *port = ntohs(c.addr.sin_port);
    bl_guard_begin();
    pid_t child = bl_fork_helper(BL_NET_HELPER, o->helper_cpu);
    if (child == 0)
        accept_child(l);
    bl_close_fd(&l);
    if (child < 0) {
        rc = bl_sys_error("fork");
    } else {
        info->helper_cpu = o->helper_cpu;
        rc = bl_helper_failure(child, connect_once(&c), o->helper_cpu);
        if (rc == BL_OK)
            rc = bl_measure(connect_body, NULL, &c, o, ns, ticks, info);
    }
    bl_stop_helper(child);
    bl_guard_end();
    return rc;
}
