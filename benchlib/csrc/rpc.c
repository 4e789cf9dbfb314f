/*
 * rpc.c -- rpc_latency: a Sun RPC procedure that returns its integer
 * argument, served by a forked child through libtirpc over TCP or UDP
 * (not registered with rpcbind); one iteration is one clnt_call.  Built
 * without libtirpc, bl_rpc_latency says how to get it.
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
    int rc = udp ? bl_bound_socket(SOCK_DGRAM, 0, &a, &srv) : bl_listener(0, &a, &srv);
    if (rc != BL_OK)
        return rc;
    bl_guard_begin();
    pid_t child = bl_fork_helper(BL_NET_HELPER, o->helper_cpu);
    if (child == 0)
        rpc_server_child(srv, udp);
    bl_close_fd(&srv);
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
