/*
 * net_bandwidth.c -- bulk transfer between processes (the 1996 paper's
 * pipe and TCP bandwidth, and UDP's, on loopback).
 *
 * ipc_bandwidth: this process writes to a forked child that reads and
 * discards; one iteration is transfer_bytes written in one call.
 *
 * udp_bandwidth: this process sends datagrams over loopback UDP to a forked
 * child that counts the bytes that arrive; each sample ends with an end
 * marker the child acknowledges, so loss is measured, not waited for.
 *
 * The helper process and the sockets are helper.c's.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The send buffer: `bytes` of 'x' in a private anonymous mapping. */
static int map_filled(size_t bytes, char **out)
{
    char *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
        bl_set_error("could not map %zu bytes", bytes);
        return BL_ENOMEM;
    }
    memset(buf, 'x', bytes);
    *out = buf;
    return BL_OK;
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
        if (bl_child_read_all(data, &left, sizeof left) != 0)
            _exit(0);
        while (left > 0) {
            ssize_t n = read(data, buf, left < transfer ? left : transfer);
            if (n > 0)
                left -= (uint64_t)n;
            else if (!(n < 0 && errno == EINTR))
                _exit(1);
        }
        if (bl_child_write_all(ack, "a", 1) != 0)
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
        is_sock = 0;
        rc = bl_pipe_pair(ours, theirs);
        if (rc != BL_OK)
            return rc;
        if (buffer_bytes > 0 && fcntl(ours[0], F_SETPIPE_SZ, buffer_bytes) < 0)
            rc = errno == EPERM
                     ? (bl_set_error("F_SETPIPE_SZ %d: above /proc/sys/fs/pipe-max-size for an "
                                     "unprivileged process", buffer_bytes), BL_EINVAL)
                     : bl_sys_error("fcntl(F_SETPIPE_SZ)");
        if (rc == BL_OK) {
            *send_buffer = *receive_buffer = fcntl(ours[0], F_GETPIPE_SZ);
        }
    } else {
        int fds[2] = {-1, -1};
        if (transport == BL_NET_UNIX) {
            rc = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0
                     ? BL_OK : bl_sys_error("socketpair");
            if (rc == BL_OK && ((rc = bl_set_buffers(fds[0], buffer_bytes)) != BL_OK ||
                                (rc = bl_set_buffers(fds[1], buffer_bytes)) != BL_OK)) {
                bl_close_fd(&fds[0]);
                bl_close_fd(&fds[1]);
            }
        } else if (transport == BL_NET_TCP) {
            rc = bl_tcp_pair(buffer_bytes, 1, fds); /* TCP_NODELAY: see the comment above bandwidth_body */
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
    if (rc == BL_OK)
        rc = map_filled(transfer_bytes, &buf);
    pid_t child = -1;
    bl_guard_begin();
    if (rc == BL_OK) {
        child = bl_fork_helper(BL_NET_HELPER, o->helper_cpu);
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
        bl_close_fd(&theirs[1]);
    bl_close_fd(&theirs[0]);
    if (rc == BL_OK) {
        info->helper_cpu = o->helper_cpu;
        bandwidth_ctx b = {ours[0], ours[1], is_sock, buf, transfer_bytes};
        rc = bl_helper_failure(child, bandwidth_body(&b, 1), o->helper_cpu);
        if (rc == BL_OK)
            rc = bl_measure(bandwidth_body, NULL, &b, o, ns, ticks, info);
    }
    if (ours[1] != ours[0])
        bl_close_fd(&ours[1]);
    if (transport == BL_NET_TCP)
        bl_close_abortively(&ours[0]);
    bl_close_fd(&ours[0]);
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

/* The datagrams per sample, found here rather than by bl_measure: a sample
 * must hold at least 16 datagrams and 1 MiB, so that the end marker's round
 * trip (tens of µs; more when a full buffer drops the marker or the machine
 * is busy) stays a small part of it, and one slow first call cannot fix the
 * sample at a single datagram.  Then as bl_measure does: grow the count
 * until a sample lasts o->target_sample_ns (and 1000 clock steps). */
static int udp_calibrate(udp_ctx *u, const bl_opts *o, int64_t *iters_out)
{
    int64_t it = (int64_t)((1 << 20) / u->size);
    double t;
    return bl_calibrate(udp_body, u, o, it < 16 ? 16 : it, iters_out, &t);
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
            if (bl_child_write_all(ctrl, &a, sizeof a) != 0)
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
    int data[2] = {-1, -1}, ctrl[2] = {-1, -1};
    int rc = bl_udp_pair(buffer_bytes, 0, data);
    int d0 = data[0], d1 = data[1];
    if (rc == BL_OK && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctrl) != 0)
        rc = bl_sys_error("socketpair");
    if (rc == BL_OK) {
        *send_buffer = sock_buffer(d0, SO_SNDBUF);
        *receive_buffer = sock_buffer(d1, SO_RCVBUF);
    }
    char *buf = MAP_FAILED;
    double *log = NULL;
    if (rc == BL_OK)
        rc = map_filled(datagram_bytes, &buf);
    if (rc == BL_OK && (log = calloc((size_t)o->n_samples, sizeof *log)) == NULL)
        rc = BL_ENOMEM, bl_set_error("could not allocate the delivery log");
    pid_t child = -1;
    bl_guard_begin();
    if (rc == BL_OK) {
        child = bl_fork_helper(BL_NET_HELPER, o->helper_cpu);
        if (child == 0) {
            close(d0);
            close(ctrl[0]);
            udp_sink_child(d1, ctrl[1]);
            _exit(0);
        }
        if (child < 0)
            rc = bl_sys_error("fork");
    }
    bl_close_fd(&d1);
    bl_close_fd(&ctrl[1]);
    udp_ctx u = {d0, ctrl[0], buf, datagram_bytes, 0, 0, o->n_samples, log};
    /* pinned for the calibration too (bl_measure pins only itself) */
    bl_pinning pin = {.pinned = 0};
    if (rc == BL_OK)
        rc = bl_pin_begin(o->cpu, &pin);
    if (rc == BL_OK) {
        info->helper_cpu = o->helper_cpu;
        rc = bl_helper_failure(child, udp_body(&u, 1), o->helper_cpu);
        bl_opts fixed = *o;
        double c0 = bl_now_ns();
        if (rc == BL_OK && fixed.iterations <= 0)
            rc = udp_calibrate(&u, o, &fixed.iterations);
        double cal_ns = bl_now_ns() - c0;
        if (rc == BL_OK) {
            rc = bl_measure(udp_body, NULL, &u, &fixed, ns, ticks, info);
            info->calibration_ns += cal_ns;
        }
    }
    bl_pin_end(&pin);
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
    bl_close_fd(&d0);
    bl_close_fd(&ctrl[0]);
    bl_stop_helper(child);
    bl_guard_end();
    free(log);
    if (buf != MAP_FAILED)
        munmap(buf, datagram_bytes);
    return rc;
}
