/*
 * helper.c -- the helper processes every two-process benchmark forks (the
 * net_*.c and rpc.c echo and sink children, call.c's server), the blocking
 * I/O loops between them, and the loopback sockets they talk over.
 *
 * Every socket is bound to 127.0.0.1 and made before the fork, so the
 * child has nothing to set up that could fail silently.  The child is
 * named, dies with its parent (PR_SET_PDEATHSIG), ignores SIGINT (the
 * parent alone decides when to stop), and is killed and reaped on every
 * return path; every descriptor is closed on every path.
 */
#define _GNU_SOURCE
#include "internal.h"

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

#define HELPER_PIN_FAILED 3

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

void bl_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* ------------------------------------------------------------ I/O */

/* Move all n bytes: read (how 0), write (1) or send with MSG_NOSIGNAL (2),
 * so a dead peer is an error, not SIGPIPE.  EINTR is SIGINT (the guard
 * installs no SA_RESTART).  Always inlined with a constant `how`, so
 * bl_put_all and bl_get_all are each one plain loop. */
static inline __attribute__((always_inline)) int move_all(int fd, char *p, size_t n, int how)
{
    while (n > 0) {
        ssize_t k = how == 0 ? read(fd, p, n)
                  : how == 1 ? write(fd, p, n) : send(fd, p, n, MSG_NOSIGNAL);
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
        if (how != 0 ? k < 0 && (errno == EPIPE || errno == ECONNRESET)
                     : k == 0 || errno == ECONNRESET) {
            bl_set_error("the helper process exited during the measurement");
            return BL_ESYS;
        }
        if (how == 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            bl_set_error("no reply from the helper process within 5 s");
            return BL_ESYS;
        }
        return bl_sys_error(how == 0 ? "read" : "write");
    }
    return BL_OK;
}

int bl_put_all(int fd, int is_sock, const void *buf, size_t n)
{
    return is_sock ? move_all(fd, (char *)buf, n, 2) : move_all(fd, (char *)buf, n, 1);
}

int bl_get_all(int fd, void *buf, size_t n) { return move_all(fd, buf, n, 0); }

/* Two pipes between this process and a helper: ours[0] writes to
 * theirs[0], theirs[1] writes to ours[1]; all four close on exec. */
int bl_pipe_pair(int ours[2], int theirs[2])
{
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) != 0)
        return bl_sys_error("pipe");
    if (pipe2(up, O_CLOEXEC) != 0) {
        int rc = bl_sys_error("pipe");
        close(down[0]);
        close(down[1]);
        return rc;
    }
    ours[0] = down[1];
    theirs[0] = down[0];
    ours[1] = up[0];
    theirs[1] = up[1];
    return BL_OK;
}

/* Child side: plain loops, no signal to care about (SIGINT is ignored).
 * 0 once all n bytes are moved, -1 at end of file or on an error. */
static int child_all(int fd, char *p, size_t n, int writing)
{
    while (n > 0) {
        ssize_t k = writing ? write(fd, p, n) : read(fd, p, n);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (!(k < 0 && errno == EINTR)) {
            return -1;
        }
    }
    return 0;
}

int bl_child_read_all(int fd, void *buf, size_t n) { return child_all(fd, buf, n, 0); }

int bl_child_write_all(int fd, const void *buf, size_t n)
{
    return child_all(fd, (char *)buf, n, 1);
}

/* ------------------------------------------------------------ sockets */

struct sockaddr_in bl_loopback(uint16_t port_net)
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
void bl_close_abortively(int *fd)
{
    struct linger abortive = {1, 0};
    if (*fd >= 0)
        setsockopt(*fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
    bl_close_fd(fd);
}

int bl_set_buffers(int fd, int bytes)
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
int bl_bound_socket(int type, int buffer_bytes, struct sockaddr_in *addr, int *fd_out)
{
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return bl_sys_error("socket");
    int rc = bl_set_buffers(fd, buffer_bytes);
    struct sockaddr_in a = bl_loopback(0);
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

int bl_listener(int buffer_bytes, struct sockaddr_in *addr, int *fd_out)
{
    int rc = bl_bound_socket(SOCK_STREAM, buffer_bytes, addr, fd_out);
    if (rc == BL_OK && listen(*fd_out, 128) != 0) {
        rc = bl_sys_error("listen");
        bl_close_fd(fd_out);
    }
    return rc;
}

/* The end of making a pair: on success both go to fds, else both are
 * closed (the first abortively if asked, leaving nothing in TIME_WAIT). */
static int hand_over(int rc, int a, int b, int abortive, int fds[2])
{
    if (rc != BL_OK) {
        if (abortive)
            bl_close_abortively(&a);
        else
            bl_close_fd(&a);
        bl_close_fd(&b);
        return rc;
    }
    fds[0] = a;
    fds[1] = b;
    return BL_OK;
}

/* A connected loopback TCP pair made in this process: fds[0] the client,
 * fds[1] the accepted end. */
int bl_tcp_pair(int buffer_bytes, int nodelay, int fds[2])
{
    struct sockaddr_in a;
    int l = -1, c = -1, s = -1;
    int rc = bl_listener(buffer_bytes, &a, &l);
    if (rc != BL_OK)
        return rc;
    c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0)
        rc = bl_sys_error("socket");
    if (rc == BL_OK)
        rc = bl_set_buffers(c, buffer_bytes);
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
    bl_close_fd(&l);
    return hand_over(rc, c, s, 1, fds);
}

/* Two loopback UDP sockets connected to each other, both buffers sized
 * when buffer_bytes > 0.  timeout_s > 0 gives fds[0], ours, a receive
 * timeout, so a lost datagram is an error, not a hang. */
int bl_udp_pair(int buffer_bytes, int timeout_s, int fds[2])
{
    struct sockaddr_in a0, a1;
    int s0 = -1, s1 = -1;
    int rc = bl_bound_socket(SOCK_DGRAM, buffer_bytes, &a0, &s0);
    if (rc == BL_OK)
        rc = bl_bound_socket(SOCK_DGRAM, buffer_bytes, &a1, &s1);
    if (rc == BL_OK && (connect(s0, (struct sockaddr *)&a1, sizeof a1) != 0 ||
                        connect(s1, (struct sockaddr *)&a0, sizeof a0) != 0))
        rc = bl_sys_error("connect (udp)");
    struct timeval tv = {timeout_s, 0};
    if (rc == BL_OK && timeout_s > 0 &&
        setsockopt(s0, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) != 0)
        rc = bl_sys_error("setsockopt(SO_RCVTIMEO)");
    return hand_over(rc, s0, s1, 0, fds);
}
