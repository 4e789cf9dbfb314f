/*
 * net.c -- communication between processes over sockets, and bulk
 * transfer over pipes and sockets (the 1996 paper's IPC and network
 * section, measured on loopback).
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
 * rpc_latency: a Sun RPC procedure that returns its integer argument,
 * served by a forked child through libtirpc over TCP or UDP; one
 * iteration is one clnt_call.
 *
 * ipc_bandwidth: this process writes to a forked child that reads and
 * discards; one iteration is transfer_bytes written in one call.
 *
 * udp_bandwidth: this process sends datagrams over loopback UDP to a forked
 * child that counts the bytes that arrive; each sample ends with an end
 * marker the child acknowledges, so loss is measured, not waited for.
 *
 * Every socket is bound to 127.0.0.1 and made before the fork, so the
 * child has nothing to set up that could fail silently.  The child is
 * named "bl-net-echo", dies with its parent (PR_SET_PDEATHSIG), ignores
 * SIGINT (the parent alone decides when to stop), and is killed and
 * reaped on every return path; every descriptor is closed on every path.
 */
#define _GNU_SOURCE
#include "benchlib.h"

#include <arpa/inet.h>
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

#define HELPER_NAME "bl-net-echo"
#define HELPER_PIN_FAILED 3

/* The helper's fork, stop and first-exchange check, and the blocking I/O
 * loops below, are shared with call.c (declared in benchlib.h). */

/* ------------------------------------------------------------ the helper */

/* fork a helper: returns its pid in the parent, 0 in the child (already
 * named, tied to the parent's life, deaf to SIGINT and pinned), -1 on
 * failure.  SIGINT is blocked across the fork so the child can never run
 * the parent's handler. */
pid_t bl_fork_helper(const char *name, int helper_cpu)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &old);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        return pid;
    }
    signal(SIGINT, SIG_IGN);
    sigprocmask(SIG_SETMASK, &old, NULL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* the parent died before prctl took effect */
        _exit(1);
    prctl(PR_SET_NAME, name);
    if (helper_cpu >= 0 && bl_pin_self(helper_cpu) != BL_OK)
        _exit(HELPER_PIN_FAILED);
    return 0;
}

void bl_stop_helper(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* After a failed first exchange: say so if the helper could not pin itself. */
int bl_helper_failure(pid_t pid, int rc, int helper_cpu)
{
    if (rc != BL_ESYS)
        return rc;
    for (int i = 0; i < 100; i++) {
        int status;
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            if (WIFEXITED(status) && WEXITSTATUS(status) == HELPER_PIN_FAILED) {
                bl_set_error("the helper process could not pin itself to CPU %d", helper_cpu);
                return BL_EINVAL;
            }
            return rc;
        }
        if (w < 0)
            return rc;
        usleep(1000);
    }
    return rc;
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ------------------------------------------------------------ I/O */

/* Write all n bytes.  Sockets use send(MSG_NOSIGNAL) so a dead peer is an
 * error, not SIGPIPE.  EINTR is SIGINT (the guard installs no SA_RESTART). */
int bl_put_all(int fd, int is_sock, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = is_sock ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR) {
            if (bl_interrupted())
                return BL_EINTR;
            continue;
        }
        if (k < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            bl_set_error("the helper process exited during the measurement");
            return BL_ESYS;
        }
        return bl_sys_error("write");
    }
    return BL_OK;
}

int bl_get_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
            continue;
        }
        if (k < 0 && errno == EINTR) {
            if (bl_interrupted())
                return BL_EINTR;
            continue;
        }
        if (k == 0 || errno == ECONNRESET) {
            bl_set_error("the helper process exited during the measurement");
            return BL_ESYS;
        }
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            bl_set_error("no reply from the helper process within 5 s");
            return BL_ESYS;
        }
        return bl_sys_error("read");
    }
    return BL_OK;
}

/* Child side: plain loops, no signal to care about (SIGINT is ignored). */
static int child_read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t k = read(fd, p, n);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (!(k < 0 && errno == EINTR)) {
            return -1;
        }
    }
    return 0;
}

static int child_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t k = write(fd, p, n);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (!(k < 0 && errno == EINTR)) {
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ sockets */

static struct sockaddr_in loopback(uint16_t port_net)
{
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = port_net;
    return a;
}

/* Close a TCP end abortively (SO_LINGER 0: a reset, no TIME_WAIT), so that a
 * run leaves no connection behind in the kernel.  Used on the end this
 * process closes first; the helper's end, closed when it is killed, has
 * then already been reset. */
static void close_abortively(int *fd)
{
    struct linger abortive = {1, 0};
    if (*fd >= 0)
        setsockopt(*fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
    close_fd(fd);
}

static int set_buffers(int fd, int bytes)
{
    if (bytes <= 0)
        return BL_OK;
    if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes) != 0)
        return bl_sys_error("setsockopt(SO_SNDBUF/SO_RCVBUF)");
    return BL_OK;
}

/* A socket of `type` bound to 127.0.0.1 on a port the kernel picks;
 * *addr gets the address.  buffer_bytes > 0 sets both buffers first (for
 * TCP that must precede listen/connect to size the window). */
static int bound_socket(int type, int buffer_bytes, struct sockaddr_in *addr, int *fd_out)
{
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return bl_sys_error("socket");
    int rc = set_buffers(fd, buffer_bytes);
    struct sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    if (rc == BL_OK && bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
        rc = bl_sys_error("bind 127.0.0.1");
    if (rc == BL_OK && getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        rc = bl_sys_error("getsockname");
    if (rc != BL_OK) {
        close(fd);
        return rc;
    }
    *addr = a;
    *fd_out = fd;
    return BL_OK;
}

static int listener(int buffer_bytes, struct sockaddr_in *addr, int *fd_out)
{
    int rc = bound_socket(SOCK_STREAM, buffer_bytes, addr, fd_out);
    if (rc == BL_OK && listen(*fd_out, 128) != 0) {
        rc = bl_sys_error("listen");
        close_fd(fd_out);
    }
    return rc;
}

/* A connected loopback TCP pair made in this process: fds[0] the client,
 * fds[1] the accepted end. */
static int tcp_pair(int buffer_bytes, int nodelay, int fds[2])
{
    struct sockaddr_in a;
    int l = -1, c = -1, s = -1;
    int rc = listener(buffer_bytes, &a, &l);
    if (rc != BL_OK)
        return rc;
    c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0)
        rc = bl_sys_error("socket");
    if (rc == BL_OK)
        rc = set_buffers(c, buffer_bytes);
    /* loopback connect completes against the backlog, before accept */
    if (rc == BL_OK && connect(c, (struct sockaddr *)&a, sizeof a) != 0)
        rc = errno == EINTR && bl_interrupted() ? BL_EINTR : bl_sys_error("connect 127.0.0.1");
    if (rc == BL_OK) {
        s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
        if (s < 0)
            rc = errno == EINTR && bl_interrupted() ? BL_EINTR : bl_sys_error("accept");
    }
    int one = 1;
    if (rc == BL_OK && nodelay &&
        (setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0 ||
         setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0))
        rc = bl_sys_error("setsockopt(TCP_NODELAY)");
    close_fd(&l);
    if (rc != BL_OK) {
        close_abortively(&c);
        close_fd(&s);
        return rc;
    }
    fds[0] = c;
    fds[1] = s;
    return BL_OK;
}

/* Two loopback UDP sockets connected to each other.  fds[0], ours, gets a
 * 5 s receive timeout so a lost datagram is an error, not a hang. */
static int udp_pair(int fds[2])
{
    struct sockaddr_in a0, a1;
    int s0 = -1, s1 = -1;
    int rc = bound_socket(SOCK_DGRAM, 0, &a0, &s0);
    if (rc == BL_OK)
        rc = bound_socket(SOCK_DGRAM, 0, &a1, &s1);
    if (rc == BL_OK && (connect(s0, (struct sockaddr *)&a1, sizeof a1) != 0 ||
                        connect(s1, (struct sockaddr *)&a0, sizeof a0) != 0))
        rc = bl_sys_error("connect (udp)");
    struct timeval tv = {5, 0};
    if (rc == BL_OK && setsockopt(s0, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
        rc = bl_sys_error("setsockopt(SO_RCVTIMEO)");
    if (rc != BL_OK) {
        close_fd(&s0);
        close_fd(&s1);
        return rc;
    }
    fds[0] = s0;
    fds[1] = s1;
    return BL_OK;
}

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
            if (child_read_all(fd, &w, sizeof w) != 0)
                _exit(0); /* the parent closed its end: done */
            if (child_write_all(fd, &w, sizeof w) != 0)
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
        rc = tcp_pair(0, 1, fds);
    else if (transport == BL_NET_UDP)
        rc = udp_pair(fds);
    else {
        bl_set_error("ipc_latency: transport must be unix, tcp or udp (got %d)", transport);
        return BL_EINVAL;
    }
    if (rc != BL_OK)
        return rc;
    bl_guard_begin();
    pid_t child = bl_fork_helper(HELPER_NAME, o->helper_cpu);
    if (child == 0) {
        close(fds[0]);
        echo_child(fds[1], transport == BL_NET_UDP);
        _exit(0);
    }
    close_fd(&fds[1]);
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
        close_abortively(&fds[0]);
    close_fd(&fds[0]);
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
    int rc = listener(0, &c.addr, &l);
    if (rc != BL_OK)
        return rc;
    *port = ntohs(c.addr.sin_port);
    bl_guard_begin();
    pid_t child = bl_fork_helper(HELPER_NAME, o->helper_cpu);
    if (child == 0)
        accept_child(l);
    close_fd(&l);
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

/* ------------------------------------------------------------ ipc_bandwidth */

/*
 * One call of the body writes an 8-byte count, then `iters` writes of
 * transfer_bytes, then waits for a 1-byte acknowledgement that the child
 * sends once it has read every byte of the count.  So a sample ends only
 * when all its data has been received: the writer can never be ahead by
 * more than the buffers while the clock runs, and never at its end.
 *
 * TCP runs with TCP_NODELAY on both ends.  Without it, Nagle's rule holds
 * a write smaller than a segment (64 KiB on loopback) while the 8-byte
 * count is unacknowledged, and the reader acknowledges that count only
 * when its delayed-ACK timer fires: every sample of a transfer below 64k
 * took 40 ms and reported well under 1 MB/s.
 */
typedef struct {
    int data, ack, is_sock;
    char *buf;
    size_t transfer;
} bandwidth_ctx;

static int bandwidth_body(void *ctx, int64_t iters)
{
    bandwidth_ctx *b = ctx;
    uint64_t total = (uint64_t)iters * b->transfer;
    int rc = bl_put_all(b->data, b->is_sock, &total, sizeof total);
    for (int64_t i = 0; rc == BL_OK && i < iters; i++)
        rc = bl_put_all(b->data, b->is_sock, b->buf, b->transfer);
    char a;
    if (rc == BL_OK)
        rc = bl_get_all(b->ack, &a, 1);
    return rc;
}

static void sink_child(int data, int ack, size_t transfer)
{
    char *buf = mmap(NULL, transfer, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        _exit(1);
    memset(buf, 0, transfer);
    for (;;) {
        uint64_t left;
        if (child_read_all(data, &left, sizeof left) != 0)
            _exit(0);
        while (left > 0) {
            ssize_t n = read(data, buf, left < transfer ? left : transfer);
            if (n > 0)
                left -= (uint64_t)n;
            else if (!(n < 0 && errno == EINTR))
                _exit(1);
        }
        if (child_write_all(ack, "a", 1) != 0)
            _exit(1);
    }
}

static int sock_buffer(int fd, int opt)
{
    int v = 0;
    socklen_t len = sizeof v;
    return getsockopt(fd, SOL_SOCKET, opt, &v, &len) == 0 ? v : -1;
}

int bl_ipc_bandwidth(int transport, size_t transfer_bytes, int buffer_bytes, const bl_opts *o,
                     int *send_buffer, int *receive_buffer, double *ns, double *ticks,
                     bl_info *info)
{
    if (transfer_bytes < 1 || transfer_bytes > ((size_t)1 << 30)) {
        bl_set_error("transfer_bytes must be between 1 and 1 GiB");
        return BL_EINVAL;
    }
    if (buffer_bytes < 0) {
        bl_set_error("buffer_bytes must be >= 0");
        return BL_EINVAL;
    }
    /* ours[0]: we write data, ours[1]: we read acks; theirs likewise */
    int ours[2] = {-1, -1}, theirs[2] = {-1, -1}, rc = BL_OK, is_sock = 1;
    if (transport == BL_NET_PIPE) {
        int d[2], a[2];
        is_sock = 0;
        if (pipe2(d, O_CLOEXEC) != 0)
            return bl_sys_error("pipe");
        if (pipe2(a, O_CLOEXEC) != 0) {
            rc = bl_sys_error("pipe");
            close(d[0]);
            close(d[1]);
            return rc;
        }
        ours[0] = d[1];
        theirs[0] = d[0];
        ours[1] = a[0];
        theirs[1] = a[1];
        if (buffer_bytes > 0 && fcntl(d[1], F_SETPIPE_SZ, buffer_bytes) < 0)
            rc = errno == EPERM
                     ? (bl_set_error("F_SETPIPE_SZ %d: above /proc/sys/fs/pipe-max-size for an "
                                     "unprivileged process", buffer_bytes), BL_EINVAL)
                     : bl_sys_error("fcntl(F_SETPIPE_SZ)");
        if (rc == BL_OK) {
            *send_buffer = *receive_buffer = fcntl(d[1], F_GETPIPE_SZ);
        }
    } else {
        int fds[2] = {-1, -1};
        if (transport == BL_NET_UNIX) {
            rc = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0
                     ? BL_OK : bl_sys_error("socketpair");
            if (rc == BL_OK && ((rc = set_buffers(fds[0], buffer_bytes)) != BL_OK ||
                                (rc = set_buffers(fds[1], buffer_bytes)) != BL_OK)) {
                close_fd(&fds[0]);
                close_fd(&fds[1]);
            }
        } else if (transport == BL_NET_TCP) {
            rc = tcp_pair(buffer_bytes, 1, fds); /* TCP_NODELAY: see the comment above bandwidth_body */
        } else {
            bl_set_error("ipc_bandwidth: transport must be pipe, unix or tcp (got %d)", transport);
            return BL_EINVAL;
        }
        if (rc != BL_OK)
            return rc;
        ours[0] = ours[1] = fds[0];
        theirs[0] = theirs[1] = fds[1];
        *send_buffer = sock_buffer(fds[0], SO_SNDBUF);
        *receive_buffer = sock_buffer(fds[1], SO_RCVBUF);
    }
    char *buf = MAP_FAILED;
    if (rc == BL_OK) {
        buf = mmap(NULL, transfer_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (buf == MAP_FAILED)
            rc = BL_ENOMEM, bl_set_error("could not map %zu bytes", transfer_bytes);
        else
            memset(buf, 'x', transfer_bytes);
    }
    pid_t child = -1;
    bl_guard_begin();
    if (rc == BL_OK) {
        child = bl_fork_helper(HELPER_NAME, o->helper_cpu);
        if (child == 0) {
            close(ours[0]);
            if (ours[1] != ours[0])
                close(ours[1]);
            sink_child(theirs[0], theirs[1], transfer_bytes);
            _exit(0);
        }
        if (child < 0)
            rc = bl_sys_error("fork");
    }
    if (theirs[1] != theirs[0])
        close_fd(&theirs[1]);
    close_fd(&theirs[0]);
    if (rc == BL_OK) {
        info->helper_cpu = o->helper_cpu;
        bandwidth_ctx b = {ours[0], ours[1], is_sock, buf, transfer_bytes};
        rc = bl_helper_failure(child, bandwidth_body(&b, 1), o->helper_cpu);
        if (rc == BL_OK)
            rc = bl_measure(bandwidth_body, NULL, &b, o, ns, ticks, info);
    }
    if (ours[1] != ours[0])
        close_fd(&ours[1]);
    if (transport == BL_NET_TCP)
        close_abortively(&ours[0]);
    close_fd(&ours[0]);
    bl_stop_helper(child);
    bl_guard_end();
    if (buf != MAP_FAILED)
        munmap(buf, transfer_bytes);
    return rc;
}

/* ------------------------------------------------------------ udp_bandwidth */

/*
 * Every datagram starts with a header: the sample's sequence number and its
 * kind, data or end marker.  The helper adds up the bytes of the data
 * datagrams of the newest sample it has seen (older ones are ignored).
 * Loopback delivers one socket's datagrams in order, so when the sample's
 * end marker arrives every datagram sent before it has been counted or
 * dropped; the helper then answers over a stream socket with the sequence
 * number and its count.  The marker itself is dropped when it finds the
 * receive buffer full, so it is resent, after 50 us and then at doubling
 * intervals up to 10 ms, until the answer comes; a repeated marker gets the
 * same count again and the sender skips answers to older samples.  5 s
 * without an answer (a dead helper) is an error, never a hang.
 */
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <time.h>

#define UDP_MAX_DATAGRAM 65507
#define UDP_DATA 0u
#define UDP_END 1u

typedef struct {
    uint32_t seq, kind;
} udp_header;

typedef struct {
    uint32_t seq, pad;
    uint64_t bytes;
} udp_ack;

typedef struct {
    int data, ctrl;
    char *buf;
    size_t size;
    uint32_t seq;
    int64_t calls;        /* successful body calls so far */
    int cap;              /* slots in delivered_log */
    double *delivered_log; /* fraction delivered per call, a ring of cap slots */
} udp_ctx;

static int udp_send_one(int fd, const void *buf, size_t n)
{
    for (;;) {
        ssize_t k = send(fd, buf, n, 0);
        if (k == (ssize_t)n)
            return BL_OK;
        if (k >= 0) {
            bl_set_error("short datagram sent (%zd of %zu bytes)", k, n);
            return BL_ESYS;
        }
        if (errno == EINTR) {
            if (bl_interrupted())
                return BL_EINTR;
            continue;
        }
        if (errno == ENOBUFS || errno == EAGAIN)
            continue; /* transient: no memory for the skb; try again */
        if (errno == ECONNREFUSED) {
            bl_set_error("the helper process exited during the measurement");
            return BL_ESYS;
        }
        return bl_sys_error("send (udp)");
    }
}

/* Send the end marker of sample `seq` until the helper answers. */
static int udp_end_sample(udp_ctx *u, uint32_t seq, uint64_t *got)
{
    udp_header m = {seq, UDP_END};
    int wait_us = 50;
    double waited_us = 0.0;
    while (waited_us < 5e6) {
        int rc = udp_send_one(u->data, &m, sizeof m);
        if (rc != BL_OK)
            return rc;
        struct pollfd p = {u->ctrl, POLLIN, 0};
        struct timespec ts = {0, (long)wait_us * 1000};
        int n = ppoll(&p, 1, &ts, NULL);
        waited_us += wait_us;
        if (wait_us < 10000)
            wait_us *= 2;
        if (n < 0) {
            if (errno == EINTR) {
                if (bl_interrupted())
                    return BL_EINTR;
                continue;
            }
            return bl_sys_error("poll");
        }
        while (n > 0) {
            udp_ack a;
            rc = bl_get_all(u->ctrl, &a, sizeof a);
            if (rc != BL_OK)
                return rc;
            if (a.seq == seq) {
                *got = a.bytes;
                return BL_OK;
            }
            /* an answer to a repeated marker of an earlier sample: skip it */
            p.revents = 0;
            n = poll(&p, 1, 0);
        }
    }
    bl_set_error("no answer from the helper process within 5 s");
    return BL_ESYS;
}

static int udp_body(void *ctx, int64_t iters)
{
    udp_ctx *u = ctx;
    uint32_t seq = ++u->seq;
    udp_header h = {seq, UDP_DATA};
    memcpy(u->buf, &h, sizeof h);
    for (int64_t i = 0; i < iters; i++) {
        int rc = udp_send_one(u->data, u->buf, u->size);
        if (rc != BL_OK)
            return rc;
    }
    uint64_t got = 0;
    int rc = udp_end_sample(u, seq, &got);
    if (rc != BL_OK)
        return rc;
    u->delivered_log[u->calls++ % u->cap] = (double)got / ((double)iters * (double)u->size);
    return BL_OK;
}

static double udp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The datagrams per sample, found here rather than by bl_measure: a sample
 * must hold at least 16 datagrams and 1 MiB, so that the end marker's round
 * trip (tens of µs; more when a full buffer drops the marker or the machine
 * is busy) stays a small part of it, and one slow first call cannot fix the
 * sample at a single datagram.  Then as bl_measure does: grow the count
 * until a sample lasts o->target_sample_ns (and 1000 clock steps). */
static int udp_calibrate(udp_ctx *u, const bl_opts *o, int64_t *iters_out)
{
    int64_t it = (int64_t)((1 << 20) / u->size);
    if (it < 16)
        it = 16;
    int64_t max_it = o->max_iterations > 0 ? o->max_iterations : ((int64_t)1 << 40);
    if (it > max_it)
        it = max_it;
    double target = o->target_sample_ns;
    if (target < 1000.0 * bl_clock_resolution_ns())
        target = 1000.0 * bl_clock_resolution_ns();
    for (;;) {
        double t0 = udp_now_ns();
        int rc = udp_body(u, it);
        double t = udp_now_ns() - t0;
        if (rc != BL_OK)
            return rc;
        if (bl_interrupted())
            return BL_EINTR;
        if (t >= target || it >= max_it)
            break;
        int64_t next = (int64_t)ceil((double)it * target * 1.05 / t);
        if (next > 10 * it)
            next = 10 * it;
        if (next <= it)
            next = it + 1;
        it = next < max_it ? next : max_it;
    }
    *iters_out = it;
    return BL_OK;
}

static void udp_sink_child(int data, int ctrl)
{
    char *buf = mmap(NULL, UDP_MAX_DATAGRAM + 1, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED)
        _exit(1);
    uint32_t cur = 0;
    uint64_t count = 0;
    for (;;) {
        ssize_t n = recv(data, buf, UDP_MAX_DATAGRAM + 1, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            _exit(1);
        }
        udp_header h;
        if ((size_t)n < sizeof h)
            continue;
        memcpy(&h, buf, sizeof h);
        int32_t ahead = (int32_t)(h.seq - cur);
        if (ahead < 0)
            continue; /* from a sample already answered */
        if (ahead > 0) {
            cur = h.seq;
            count = 0;
        }
        if (h.kind == UDP_DATA) {
            count += (uint64_t)n;
        } else {
            udp_ack a = {cur, 0, count};
            if (child_write_all(ctrl, &a, sizeof a) != 0)
                _exit(0);
        }
    }
}

int bl_udp_bandwidth(size_t datagram_bytes, int buffer_bytes, const bl_opts *o,
                     int *send_buffer, int *receive_buffer, double *delivered, double *ns,
                     double *ticks, bl_info *info)
{
    if (datagram_bytes < sizeof(udp_header) || datagram_bytes > UDP_MAX_DATAGRAM) {
        bl_set_error("datagram_bytes must be between %zu and %d (the largest UDP payload over "
                     "IPv4)", sizeof(udp_header), UDP_MAX_DATAGRAM);
        return BL_EINVAL;
    }
    if (buffer_bytes < 0) {
        bl_set_error("buffer_bytes must be >= 0");
        return BL_EINVAL;
    }
    if (o->n_samples < 1) {
        bl_set_error("n_samples must be at least 1");
        return BL_EINVAL;
    }
    /* data: two connected loopback UDP sockets; ctrl: the helper's answers */
    struct sockaddr_in a0, a1;
    int d0 = -1, d1 = -1, ctrl[2] = {-1, -1}, rc;
    rc = bound_socket(SOCK_DGRAM, buffer_bytes, &a0, &d0);
    if (rc == BL_OK)
        rc = bound_socket(SOCK_DGRAM, buffer_bytes, &a1, &d1);
    if (rc == BL_OK && (connect(d0, (struct sockaddr *)&a1, sizeof a1) != 0 ||
                        connect(d1, (struct sockaddr *)&a0, sizeof a0) != 0))
        rc = bl_sys_error("connect (udp)");
    if (rc == BL_OK && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctrl) != 0)
        rc = bl_sys_error("socketpair");
    if (rc == BL_OK) {
        *send_buffer = sock_buffer(d0, SO_SNDBUF);
        *receive_buffer = sock_buffer(d1, SO_RCVBUF);
    }
    char *buf = MAP_FAILED;
    double *log = NULL;
    if (rc == BL_OK) {
        buf = mmap(NULL, datagram_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
        log = calloc((size_t)o->n_samples, sizeof *log);
        if (buf == MAP_FAILED || log == NULL)
            rc = BL_ENOMEM, bl_set_error("could not allocate the send buffer");
        else
            memset(buf, 'x', datagram_bytes);
    }
    pid_t child = -1;
    bl_guard_begin();
    if (rc == BL_OK) {
        child = bl_fork_helper(HELPER_NAME, o->helper_cpu);
        if (child == 0) {
            close(d0);
            close(ctrl[0]);
            udp_sink_child(d1, ctrl[1]);
            _exit(0);
        }
        if (child < 0)
            rc = bl_sys_error("fork");
    }
    close_fd(&d1);
    close_fd(&ctrl[1]);
    udp_ctx u = {d0, ctrl[0], buf, datagram_bytes, 0, 0, o->n_samples, log};
    /* pinned for the calibration too (bl_measure pins only itself) */
    cpu_set_t saved;
    int pinned = 0;
    if (rc == BL_OK && o->cpu >= 0) {
        if (sched_getaffinity(0, sizeof saved, &saved) != 0)
            rc = bl_sys_error("sched_getaffinity");
        else if ((rc = bl_pin_self(o->cpu)) == BL_OK)
            pinned = 1;
    }
    if (rc == BL_OK) {
        info->helper_cpu = o->helper_cpu;
        rc = bl_helper_failure(child, udp_body(&u, 1), o->helper_cpu);
        bl_opts fixed = *o;
        double c0 = udp_now_ns();
        if (rc == BL_OK && fixed.iterations <= 0)
            rc = udp_calibrate(&u, o, &fixed.iterations);
        double cal_ns = udp_now_ns() - c0;
        if (rc == BL_OK) {
            rc = bl_measure(udp_body, NULL, &u, &fixed, ns, ticks, info);
            info->calibration_ns += cal_ns;
        }
    }
    if (pinned)
        sched_setaffinity(0, sizeof saved, &saved);
    /* the last n_samples body calls were the samples, in order */
    /* A sample whose datagrams all found the receiver's buffer full (on a
     * busy host the receiver may not run at all for a sample) delivered
     * nothing: its time per datagram received is infinite and its bandwidth
     * 0, and it is kept as such.  Only a run in which no sample delivered
     * anything is an error. */
    int k = rc == BL_OK || rc == BL_EINTR ? info->n_samples : 0;
    int starved = 0;
    for (int i = 0; i < k; i++) {
        double f = log[(u.calls - k + i) % u.cap];
        delivered[i] = f;
        if (f > 0.0) {
            ns[i] /= f;
            if (ticks && info->has_ticks)
                ticks[i] /= f;
        } else {
            starved++;
            ns[i] = INFINITY;
            if (ticks && info->has_ticks)
                ticks[i] = INFINITY;
        }
    }
    if (rc == BL_OK && k > 0 && starved == k) {
        bl_set_error("no datagram of any of the %d samples reached the receiver", k);
        rc = BL_ESYS;
    }
    close_fd(&d0);
    close_fd(&ctrl[0]);
    bl_stop_helper(child);
    bl_guard_end();
    free(log);
    if (buf != MAP_FAILED)
        munmap(buf, datagram_bytes);
    return rc;
}

/* ------------------------------------------------------------ rpc_latency */

#ifdef BL_HAVE_TIRPC
#include <rpc/rpc.h>

/* A program number from the range Sun RPC leaves to users (0x20000000 to
 * 0x3fffffff); nothing is registered with rpcbind, so it only has to be
 * unique between this client and its own server. */
#define BL_RPC_PROG 0x2b1e0001UL
#define BL_RPC_VERS 1UL
#define BL_RPC_ECHO 1UL

int bl_have_rpc(void) { return 1; }

static void rpc_dispatch(struct svc_req *rq, SVCXPRT *xprt)
{
    int v = 0;
    switch (rq->rq_proc) {
    case NULLPROC:
        svc_sendreply(xprt, (xdrproc_t)(void (*)(void))xdr_void, NULL);
        return;
    case BL_RPC_ECHO:
        if (!svc_getargs(xprt, (xdrproc_t)xdr_int, (caddr_t)&v)) {
            svcerr_decode(xprt);
            return;
        }
        svc_sendreply(xprt, (xdrproc_t)xdr_int, (caddr_t)&v);
        return;
    default:
        svcerr_noproc(xprt);
    }
}

/* Serve on the already bound (and, for TCP, listening) socket.  Protocol
 * 0 in svc_register: the service is not announced to rpcbind. */
static void rpc_server_child(int sock, int udp)
{
    SVCXPRT *x = udp ? svcudp_create(sock) : svctcp_create(sock, 0, 0);
    if (x == NULL)
        _exit(1);
    if (!svc_register(x, BL_RPC_PROG, BL_RPC_VERS, rpc_dispatch, 0))
        _exit(1);
    svc_run();
    _exit(1);
}

typedef struct {
    CLIENT *clnt;
    int word;
} rpc_ctx;

static int rpc_body(void *ctx, int64_t iters)
{
    rpc_ctx *r = ctx;
    struct timeval total = {5, 0};
    for (int64_t i = 0; i < iters; i++) {
        int out = ++r->word, back = 0;
        enum clnt_stat st = clnt_call(r->clnt, BL_RPC_ECHO, (xdrproc_t)xdr_int, (caddr_t)&out,
                                      (xdrproc_t)xdr_int, (caddr_t)&back, total);
        if (st != RPC_SUCCESS) {
            if (bl_interrupted())
                return BL_EINTR;
            bl_set_error("clnt_call: %s", clnt_sperrno(st));
            return BL_ESYS;
        }
        if (back != out) {
            bl_set_error("the RPC echo came back wrong (sent %d, got %d)", out, back);
            return BL_ESYS;
        }
    }
    return BL_OK;
}

int bl_rpc_latency(int transport, const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    if (transport != BL_NET_TCP && transport != BL_NET_UDP) {
        bl_set_error("rpc_latency: transport must be tcp or udp (got %d)", transport);
        return BL_EINVAL;
    }
    int udp = transport == BL_NET_UDP;
    struct sockaddr_in a;
    int srv = -1;
    int rc = udp ? bound_socket(SOCK_DGRAM, 0, &a, &srv) : listener(0, &a, &srv);
    if (rc != BL_OK)
        return rc;
    bl_guard_begin();
    pid_t child = bl_fork_helper(HELPER_NAME, o->helper_cpu);
    if (child == 0)
        rpc_server_child(srv, udp);
    close_fd(&srv);
    CLIENT *clnt = NULL;
    if (child < 0) {
        rc = bl_sys_error("fork");
    } else {
        info->helper_cpu = o->helper_cpu;
        /* a non-zero port: the client library asks no port mapper */
        int sock = RPC_ANYSOCK;
        struct timeval retry = {1, 0};
        clnt = udp ? clntudp_create(&a, BL_RPC_PROG, BL_RPC_VERS, retry, &sock)
                   : clnttcp_create(&a, BL_RPC_PROG, BL_RPC_VERS, &sock, 0, 0);
        if (clnt == NULL) {
            bl_set_error("%s", clnt_spcreateerror(udp ? "clntudp_create" : "clnttcp_create"));
            rc = BL_ESYS;
        }
    }
    if (rc == BL_OK) {
        rpc_ctx r = {clnt, 0};
        rc = bl_helper_failure(child, rpc_body(&r, 1), o->helper_cpu);
        if (rc == BL_OK)
            rc = bl_measure(rpc_body, NULL, &r, o, ns, ticks, info);
    }
    if (clnt != NULL) {
        int fd = -1;
        if (!udp && clnt_control(clnt, CLGET_FD, (char *)&fd)) {
            struct linger abortive = {1, 0}; /* no TIME_WAIT left behind */
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
        }
        clnt_destroy(clnt); /* closes the socket the library opened */
    }
    bl_stop_helper(child);
    bl_guard_end();
    return rc;
}

#else /* built without libtirpc */

int bl_have_rpc(void) { return 0; }

int bl_rpc_latency(int transport, const bl_opts *o, double *ns, double *ticks, bl_info *info)
{
    bl_set_error("built without libtirpc (install libtirpc-dev and reinstall)");
    return BL_EINVAL;
}

#endif
