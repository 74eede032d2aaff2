/*
 * raw_ofi_probe — the provider's floor for the ofi rows of the netns
 * benchmark: a ping-pong over one libfabric RDM endpoint per host, no Skiff
 * and no MPI, measured in the same run (tests/netns/bench_netns.sh, impl
 * rawofi).  What Skiff's ofi transport adds is the difference to this.
 *
 *   raw_ofi_probe server PORT SIZES            (in host 2; serves one client)
 *   raw_ofi_probe client ADDR PORT SIZES       (prints "latency,size,us,us")
 *
 * RAW_OFI_MODE=bw (both ends): windows of 64 messages from client to server,
 * each window answered by a 4-byte message, as bench/mpi_pt2pt.c's bw does
 * (prints "bw,size,MB/s,MB/s"); RAW_OFI_ITERS then counts windows (default
 * 200).
 * Provider: RAW_OFI_PROV (default "tcp;ofi_rxm"); RAW_OFI_ITERS=n fixes the
 * round trips per size (default 20000).  Both ends busy-poll fi_cq_read on a
 * CQ without a wait object (as a Skiff rank with a core of its own does),
 * FI_THREAD_DOMAIN, untagged messages; fi_inject up to the provider's inject
 * size, else fi_send.  The client's first message carries its address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define MAXSZ (4 << 20)
#define WINDOW 64 /* messages in flight in bw mode, as bench/mpi_pt2pt.c */

static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fi_context rx_ctx, tx_ctx;
static char *rbuf, *sbuf;
static size_t inject_max;

static void die(const char *what, int rc)
{
    fprintf(stderr, "raw_ofi_probe: %s: %s\n", what, fi_strerror(rc < 0 ? -rc : rc));
    exit(1);
}

/* Poll until the completion with context c arrives (others are counted off). */
static void wait_for(struct fi_context *c)
{
    struct fi_cq_entry e[8];
    static int seen_tx;
    if (c == &tx_ctx && seen_tx) {
        seen_tx = 0;
        return;
    }
    for (;;) {
        ssize_t n = fi_cq_read(cq, e, 8);
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            die("completion", err.err);
        }
        int got = 0;
        for (ssize_t i = 0; i < n; i++) {
            if (e[i].op_context == c)
                got = 1;
            else if (e[i].op_context == &tx_ctx)
                seen_tx = 1;
        }
        if (got)
            return;
    }
}

/* bw mode: the contexts of a window's sends (client) or receives (server). */
static struct fi_context win_ctx[WINDOW];

/* Poll until `want` completions of window operations have come.  On the
 * server (rx_counts) its one pending post_rx receive (rx_ctx) counts as one
 * of the window's receives; on the client rx_ctx is the window's answer,
 * which may come before the last send's completion is read (*answered).
 * Returns whether rx_ctx was among them. */
static int wait_window(int want, int rx_counts, int *answered)
{
    struct fi_cq_entry e[16];
    int got = 0, plain = 0;
    while (got < want) {
        ssize_t n = fi_cq_read(cq, e, 16);
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            die("completion", err.err);
        }
        for (ssize_t i = 0; i < n; i++) {
            struct fi_context *c = e[i].op_context;
            if (c >= win_ctx && c < win_ctx + WINDOW)
                got++;
            else if (c == &rx_ctx && rx_counts) {
                got++;
                plain = 1;
            } else if (c == &rx_ctx) {
                *answered = 1;
            }
        }
    }
    return plain;
}

static void post_rx(void)
{
    ssize_t rc;
    while ((rc = fi_recv(ep, rbuf, MAXSZ, NULL, FI_ADDR_UNSPEC, &rx_ctx)) == -FI_EAGAIN)
        fi_cq_read(cq, NULL, 0);
    if (rc)
        die("fi_recv", (int)rc);
}

static void send_to(fi_addr_t to, const void *b, size_t n)
{
    ssize_t rc;
    int inj = n <= inject_max;
    for (;;) {
        rc = inj ? fi_inject(ep, b, n, to) : fi_send(ep, b, n, NULL, to, &tx_ctx);
        if (rc != -FI_EAGAIN)
            break;
        fi_cq_read(cq, NULL, 0);
    }
    if (rc)
        die(inj ? "fi_inject" : "fi_send", (int)rc);
    if (!inj)
        wait_for(&tx_ctx);
}

/* One round trip of the latency mode. */
static void pingpong_round(int server, fi_addr_t peer, size_t size)
{
    if (server) {
        wait_for(&rx_ctx);
        post_rx();
        send_to(peer, sbuf, size);
    } else {
        send_to(peer, sbuf, size);
        wait_for(&rx_ctx);
        post_rx();
    }
}

/* One window of the bw mode: the client's 64 sends and their completions,
 * then the server's 4-byte answer. */
static void window_round(int server, fi_addr_t peer, size_t size)
{
    static int rx_pending = 1; /* post_rx's receive, posted before the first window */
    if (server) { /* a window's receives (the pending one among them), then the answer */
        for (int w = rx_pending; w < WINDOW; w++) {
            ssize_t r;
            while ((r = fi_recv(ep, rbuf, MAXSZ, NULL, FI_ADDR_UNSPEC, &win_ctx[w])) == -FI_EAGAIN)
                fi_cq_read(cq, NULL, 0);
            if (r)
                die("fi_recv", (int)r);
        }
        if (wait_window(WINDOW, 1, NULL))
            rx_pending = 0;
        send_to(peer, sbuf, 4);
        return;
    }
    for (int w = 0; w < WINDOW; w++) {
        ssize_t r;
        while ((r = fi_send(ep, sbuf, size, NULL, peer, &win_ctx[w])) == -FI_EAGAIN)
            fi_cq_read(cq, NULL, 0);
        if (r)
            die("fi_send", (int)r);
    }
    int answered = 0;
    wait_window(WINDOW, 0, &answered);
    if (!answered)
        wait_for(&rx_ctx);
    post_rx();
}

int main(int argc, char **argv)
{
    if (argc < 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client")) ||
        (!strcmp(argv[1], "client") && argc < 5)) {
        fprintf(stderr, "usage: raw_ofi_probe server PORT SIZES | client ADDR PORT SIZES\n");
        return 2;
    }
    int server = !strcmp(argv[1], "server");
    const char *node = server ? NULL : argv[2], *port = server ? argv[2] : argv[3];
    const char *sizes = server ? argv[3] : argv[4];
    const char *prov = getenv("RAW_OFI_PROV");
    long iters = getenv("RAW_OFI_ITERS") && atol(getenv("RAW_OFI_ITERS")) > 0
                     ? atol(getenv("RAW_OFI_ITERS"))
                     : 20000;
    struct fi_info *hints = fi_allocinfo(), *info;
    hints->caps = FI_MSG;
    hints->mode = FI_CONTEXT;
    hints->ep_attr->type = FI_EP_RDM;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    hints->fabric_attr->prov_name = strdup(prov && *prov ? prov : "tcp;ofi_rxm");
    int rc = fi_getinfo(FI_VERSION(1, 9), node, port, server ? FI_SOURCE : 0, hints, &info);
    if (rc)
        die("fi_getinfo", rc);
    inject_max = info->tx_attr->inject_size;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 256,
                                 .wait_obj = FI_WAIT_NONE};
    if ((rc = fi_fabric(info->fabric_attr, &fabric, NULL)) ||
        (rc = fi_domain(fabric, info, &domain, NULL)) ||
        (rc = fi_av_open(domain, &av_attr, &av, NULL)) ||
        (rc = fi_cq_open(domain, &cq_attr, &cq, NULL)) ||
        (rc = fi_endpoint(domain, info, &ep, NULL)) || (rc = fi_ep_bind(ep, &av->fid, 0)) ||
        (rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)) || (rc = fi_enable(ep)))
        die("opening the endpoint", rc);
    rbuf = malloc(MAXSZ);
    sbuf = malloc(MAXSZ);
    if (!rbuf || !sbuf)
        die("malloc", -FI_ENOMEM);
    /* written, as the MPI benchmarks' buffers are: untouched pages all map the
     * kernel's zero page, a 4 KiB source always in cache (raw_tcp_probe.c) */
    memset(sbuf, 'a', MAXSZ);
    memset(rbuf, 'b', MAXSZ);
    char name[256];
    size_t namelen = sizeof name;
    if ((rc = fi_getname(&ep->fid, name, &namelen)))
        die("fi_getname", rc);
    fi_addr_t peer;
    post_rx();
    if (server) { /* the client's address first, then a go */
        wait_for(&rx_ctx);
        if (fi_av_insert(av, rbuf, 1, &peer, 0, NULL) != 1)
            die("fi_av_insert", -FI_EINVAL);
        post_rx();
        send_to(peer, "go", 3);
    } else {
        if (fi_av_insert(av, info->dest_addr, 1, &peer, 0, NULL) != 1)
            die("fi_av_insert", -FI_EINVAL);
        send_to(peer, name, namelen);
        wait_for(&rx_ctx);
        post_rx();
    }
    const char *mode = getenv("RAW_OFI_MODE");
    int bw = mode && !strcmp(mode, "bw");
    if (bw && !(getenv("RAW_OFI_ITERS") && atol(getenv("RAW_OFI_ITERS")) > 0))
        iters = 200;
    for (const char *p = sizes; *p; p += strcspn(p, ","), p += *p == ',') {
        size_t size = strtoul(p, NULL, 10);
        if (size > MAXSZ)
            size = MAXSZ;
        long warm = iters / 10 + 2;
        struct timespec t0 = {0, 0}, t1;
        for (long i = -warm; i < iters; i++) {
            if (i == 0)
                clock_gettime(CLOCK_MONOTONIC, &t0);
            (bw ? window_round : pingpong_round)(server, peer, size);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double t = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
        if (!server && bw)
            printf("bw,%zu,%.1f,MB/s\n", size, (double)size * WINDOW * (double)iters / t / 1e6);
        else if (!server)
            printf("latency,%zu,%.3f,us\n", size, t * 1e6 / (2.0 * (double)iters));
    }
    fflush(stdout);
    fi_close(&ep->fid);
    fi_close(&cq->fid);
    fi_close(&av->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    return 0;
}
