/*
 * ofi — the libfabric transport (docs/ofi.md): reliable datagram endpoints
 * (FI_EP_RDM) of whatever provider SKIFF_OFI_PROVIDER names or libfabric
 * ranks first ("tcp;ofi_rxm", "udp;ofi_rxd", "shm", verbs, efa, cxi ...).
 *
 * Per process one engine: fabric, domain, one address vector, and the
 * one-sided service endpoint with its thread.  Per channel one data
 * endpoint and its completion queue, driven by the channel's own calls.
 *
 * Messages: untagged fi_send into receive buffers the receiver posted
 * (OFI_NRX of OFI_RXSZ each); recv hands out the oldest posted buffer once
 * it is complete and recv_done posts it again.  Every message starts with the sender's rank
 * and the credits it hands back (8 bytes, so the payload stays 8-byte
 * aligned).  Small messages leave by fi_inject, the rest from a pool of send
 * slots.  Flow control is the receiver's, as with a ring: a sender holds
 * OFI_CREDITS per receiver, spends one a message and gets them back as the
 * receiver releases messages (riding on its messages, or a credit-only one
 * after half of them); no credit or no slot = -EAGAIN, and WRITABLE turns
 * true when credits come back, never because a provider buffers more.
 *
 * One-sided (get/put/atomic/accumulate): a request message to the owner's
 * service endpoint, where a thread executes it on the owner's memory (range
 * checks and atomics are the core's: skf_mr_range_ok_locked,
 * skf_atomic_exec, skf_acc_exec) and answers with a tagged message to the
 * requester's data endpoint: a get's bytes go straight from the exposure
 * into the buffer the requester posted for that tag.  So the owner need not
 * be inside Skiff (as with tcp's service thread), and every provider with
 * FI_MSG and FI_TAGGED serves, whatever its RMA, atomics or progress model.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "core/config.h"
#include "core/core.h"
#include "boot/boot_pmi_tcp.h"
#include "transports/ofi/ofi.h"

/* Every libfabric call on the domain runs under fi_mu: the service thread
 * and the application's threads drive one domain (rxm progresses all its
 * endpoints from any CQ read), and two threads inside the provider at once
 * were seen to send a rendezvous answer twice (docs/ofi.md, the use-after-free
 * of 2026-11-25).  The domain is opened FI_THREAD_DOMAIN accordingly.  No
 * thread sleeps with it held (poll(2) on a CQ descriptor is outside). */
static pthread_mutex_t fi_mu = PTHREAD_MUTEX_INITIALIZER;
#define LK(call)                                                                                   \
    __extension__({                                                                                \
        pthread_mutex_lock(&fi_mu);                                                                \
        ssize_t lk_rc_ = (ssize_t)(call);                                                          \
        pthread_mutex_unlock(&fi_mu);                                                              \
        lk_rc_;                                                                                    \
    })
#define OFI_VERSION FI_VERSION(1, 9)
#define OFI_NRX 32                        /* posted receive buffers per channel (<= 64) */
#define OFI_HDR 8                         /* sender rank + pad ahead of every payload   */
#define OFI_MAX_PAYLOAD (64 * 1024 + 64)  /* one MPI eager message (64 KiB) and its header */
#define OFI_RXSZ (OFI_HDR + OFI_MAX_PAYLOAD)
#define OFI_NTX 32                        /* send slots per channel                     */
#define OFI_CREDITS 64                    /* messages a sender may have unread at one receiver */
#define CREDIT_ONLY 0x80000000u           /* header word 1: no payload, only credits back */
#define OFI_PUT_CHUNK (64 * 1024)         /* put bytes per request                      */
#define SVC_NRX 8
#define SVC_RXSZ (sizeof(struct svc_req) + 2 * SKF_ACC_MAX_BYTES + 64)
#define TAG_ERR (1ull << 62)              /* a get's answer carries no bytes: it failed */
/* Waiting for the provider (docs/ofi.md, "The send path"): a call answered
 * -FI_EAGAIN is tried again with progress driven in between, at most
 * OFI_ROUNDS times; a message send then returns -EAGAIN to the channel
 * layer (which waits and retries, as for a full ring).  Posting a receive,
 * a one-sided request or a service answer has nobody to hand -EAGAIN to:
 * those keep trying for OFI_STUCK_MS (and OFI_ROUNDS rounds), then count
 * the provider as stuck — an error naming the call, never a silent hang. */
#define OFI_ROUNDS 2000
#define OFI_STUCK_MS 10000

enum ctx_kind { K_RX, K_TX, K_OP_REPLY, K_OP_REQ, K_SVC_RX, K_SVC_TX, K_OP_READ };

/* Every libfabric context we pass starts with this (FI_CONTEXT mode). */
struct octx {
    struct fi_context fc;
    int kind;
};

enum { REQ_GET = 1, REQ_PUT, REQ_ATOMIC, REQ_ACC };

/* A one-sided request as it travels to the owner's service endpoint; a
 * put's bytes or an accumulate's operand (and compare) follow. */
struct svc_req {
    uint32_t type, rank; /* requester */
    uint32_t seq;        /* requester's channel (chan_opens number) */
    uint32_t has_operand; /* accumulate: operand elements follow (not for no-op) */
    uint64_t tag;        /* the answer's tag */
    uint64_t cookie, addr, len;
    uint32_t aop, size;  /* atomic */
    uint64_t operand, compare;
    int32_t acc_op, acc_type, has_compare, want_old; /* accumulate */
    uint64_t count, lock_cookie, lock_addr, lock_val;
};

/* The answer to a put, atomic or accumulate (an accumulate's old values follow). */
struct svc_ans {
    int64_t status;
    uint64_t old;
};

struct ofi_engine;

/* A requester's one-sided operation (or one chunk of a put) in flight: done
 * when its request has left and its answer arrived. */
struct ofi_op {
    struct octx reply_ctx, req_ctx;
    struct ofi_tp *tp;
    skf_get_op_t *op;      /* the caller's */
    skf_atomic_op_t *aop;  /* an atomic's: old goes there */
    void *acc_old;         /* an accumulate's old values go there (bytes acc_old_len) */
    size_t acc_old_len;
    int pending;           /* request send + answer */
    int status;
    int is_get;            /* the answer is the bytes (or an empty TAG_ERR message) */
    int peer;
    void *dst;             /* a get's destination (an fi_read that failed asks again) */
    struct svc_ans ans;
    void *ans_buf;         /* accumulate: answer + old values */
    struct svc_req req;    /* then inline payload when this op carries one */
};

struct ofi_rx {
    struct octx c;
    int complete;    /* the message is in */
    int internal;    /* ... and was only credits (or failed): skipped */
    uint32_t len;
    uint8_t *buf;
};

struct ofi_tx {
    struct octx c;
    struct ofi_tx *next_free;
    int peer;
    uint8_t *buf;
};

struct ofi_tp {
    struct ofi_engine *e;
    skf_ctx_t *ctx;
    struct ofi_tp *next; /* the engine's list (the service thread finds answers' addresses) */
    unsigned seq;
    int me, size;
    struct fid_ep *ep;
    struct fid_cq *cq;
    int cq_waits;        /* the CQ's descriptor to sleep on, or -1 */
    fi_addr_t *addr;     /* [size] data endpoints */
    struct ofi_rx rx[OFI_NRX];
    uint8_t *rx_mem;
    /* posted receives in posting order (ring of rx indices): messages match
     * them in arrival order, but a large one (a provider's rendezvous) may
     * complete after smaller ones behind it, so delivery follows this order */
    int posted[OFI_NRX];
    unsigned posted_head, posted_n;
    int out;             /* handed out by recv */
    uint64_t unposted;   /* rx buffers a busy provider did not take yet (bit = index) */
    struct ofi_tx tx[OFI_NTX];
    uint8_t *tx_mem;
    struct ofi_tx *free_tx;
    int tx_busy;
    int blocked;         /* the last send said -EAGAIN ... */
    int blocked_peer;    /* ... to this peer */
    int get_done;        /* an operation finished since ready last said so */
    int ops_busy;
    int *reqs_busy;      /* [size]: puts/atomics/accumulates in flight to each owner */
    unsigned idle_polls;
    uint64_t next_tag;
    volatile int kicked;
    int lost_rank;
    char *lost;          /* [size]: peers gone */
    int *credits;        /* [size]: messages I may still send to each peer */
    int *owed;           /* [size]: messages of each peer I released, not yet told */
    int owing;           /* some owed[] reached OFI_CREDITS/2 and its message did not leave */
    size_t inject;
};

struct ofi_engine {
    skf_ctx_t *ctx;
    int refs;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_ep *svc_ep;
    struct fid_cq *svc_cq;
    int svc_waits;       /* the service CQ's descriptor, or -1 */
    fi_addr_t *svc_addr; /* [size] */
    int svc_known;       /* svc_addr filled (by the first channel's exchange) */
    struct ofi_rx svc_rx[SVC_NRX];
    uint8_t *svc_mem;
    struct ofi_rx *backlog[SVC_NRX]; /* requests read while an answer waited for room */
    int nbacklog;
    int svc_tx_busy;     /* answers posted, their provider completion not yet read */
    uint64_t svc_unposted; /* service receives a busy provider did not take yet (bit = index) */
    struct svc_job *held, **held_tail; /* answers a busy provider did not take yet, in order */
    int answer_rank;     /* the requester of the request being executed (for messages) */
    /* svc_mu: held by whichever thread runs a pass of the service endpoint
     * (svc_pass: backlog, svc_tx_busy, the service receives) — its thread,
     * or the main thread's progress while it polls anyway */
    pthread_mutex_t svc_mu;
    long long main_svc_ns; /* when the main thread last ran a pass (svc_main defers to it) */
    pthread_t thread;
    volatile int stop;
    pthread_mutex_t lock; /* tps */
    struct ofi_tp *tps;
    /* FI_RMA: gets are fi_read from the owner's exposures, registered with
     * the cookie as their key (under fi_mu) */
    int rma;
    int virt_addr;       /* FI_MR_VIRT_ADDR: remote addresses are virtual, else offsets */
    struct ofi_mr { uint64_t cookie, base; struct fid_mr *mr; } *mrs;
    int nmrs, mrs_cap;
};

static struct ofi_engine *engine;

/* ---- helpers ---------------------------------------------------------------- */

static int fail(const char *what, int rc)
{
    skf_error("ofi: %s: %s", what, fi_strerror(rc < 0 ? -rc : rc));
    return rc < 0 ? rc : -rc;
}

static void to_hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static size_t from_hex(const char *s, uint8_t *b, size_t cap)
{
    size_t n = 0;
    unsigned v;
    while (n < cap && s[0] && s[1] && sscanf(s, "%2x", &v) == 1) {
        b[n++] = (uint8_t)v;
        s += 2;
    }
    return n;
}

/* The provider asked for: SKIFF_OFI_PROVIDER, else libfabric's first. */
static struct fi_info *hints_new(int rma)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->caps = FI_MSG | FI_TAGGED | (rma ? FI_RMA | FI_READ | FI_REMOTE_READ : 0);
    h->mode = FI_CONTEXT;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->threading = FI_THREAD_DOMAIN; /* calls serialized by fi_mu */
    /* no memory is registered (one-sided runs through messages): any
     * provider that does not need local descriptors serves */
    h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    if (rma) /* keys are the exposures' cookies, which the requester has */
        h->domain_attr->mr_mode = FI_MR_VIRT_ADDR | FI_MR_ALLOCATED;
    h->tx_attr->msg_order = FI_ORDER_SAS;
    h->rx_attr->msg_order = FI_ORDER_SAS;
    const char *prov = skf_param_str("SKIFF_OFI_PROVIDER");
    if (prov && *prov && strcmp(prov, "auto") != 0)
        h->fabric_attr->prov_name = strdup(prov);
    return h;
}

static int getinfo(struct fi_info **info, int rma)
{
    struct fi_info *h = hints_new(rma);
    if (!h)
        return -ENOMEM;
    int rc = fi_getinfo(OFI_VERSION, NULL, NULL, 0, h, info);
    fi_freeinfo(h);
    return rc;
}

int skf_ofi_describe(char *out, size_t cap)
{
    struct fi_info *info = NULL;
    int rc = getinfo(&info, 0);
    if (rc) {
        snprintf(out, cap, "no provider (SKIFF_OFI_PROVIDER=%s): %s",
                 skf_param_str("SKIFF_OFI_PROVIDER"), fi_strerror(-rc));
        return rc;
    }
    snprintf(out, cap, "provider %s, domain %s, fabric %s (libfabric %u.%u)",
             info->fabric_attr->prov_name, info->domain_attr->name, info->fabric_attr->name,
             FI_MAJOR(fi_version()), FI_MINOR(fi_version()));
    fi_freeinfo(info);
    return 0;
}

static void nap(void)
{
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
}

/* Bounded waiting for a call that said -FI_EAGAIN: returns 1 while the
 * caller may drive progress and try again (round counts from 0), 0 once
 * both OFI_ROUNDS rounds and stuck_ms milliseconds (from *start, set on
 * round 0) have passed. */
static int may_retry(int round, long long *start, long long stuck_ms)
{
    if (round == 0)
        *start = skf_now_ms();
    return round < OFI_ROUNDS || skf_now_ms() - *start < stuck_ms;
}

/* Of the providers' entries, the one bound to the address Skiff's own tcp
 * would publish (SKIFF_TCP_IF, else the one reaching the launcher, else
 * loopback on one node): libfabric lists every interface, and the first may
 * be a bridge that comes and goes.  Not IP-addressed (shm, verbs GIDs ...):
 * libfabric's first. */
static struct fi_info *pick_entry(skf_ctx_t *ctx, struct fi_info *list)
{
    char want[64] = "";
    const char *conf = skf_param_str("SKIFF_TCP_IF");
    struct in_addr ip;
    if (*conf && strcmp(conf, "auto") != 0)
        snprintf(want, sizeof want, "%s", conf);
    else if (boot_pmi_tcp_local_addr(want, sizeof want) != 0 && ctx->boot->num_nodes == 1)
        snprintf(want, sizeof want, "127.0.0.1");
    if (!*want || inet_pton(AF_INET, want, &ip) != 1)
        return list;
    for (struct fi_info *i = list; i; i = i->next)
        if (i->addr_format == FI_SOCKADDR_IN && i->src_addr &&
            ((struct sockaddr_in *)i->src_addr)->sin_addr.s_addr == ip.s_addr)
            return i;
    return list;
}

/* A CQ with a file descriptor to sleep on (*fd), else one we poll (-1).
 * We sleep in poll(2), outside libfabric: fi_cq_sread would hold the
 * provider's locks while it sleeps, and the service thread and the main
 * thread would take turns waiting up to a slice for each other.  Slices
 * are short (1 ms): with tcp;ofi_rxm (manual progress) the descriptor does
 * not always turn readable when a message arrives that nobody progressed,
 * and 100 ms slices made 8-byte ping-pongs take seconds. */
static int open_cq(struct fid_domain *d, struct fid_cq **cq, int *fd, int want_fd)
{
    struct fi_cq_attr a = {.format = FI_CQ_FORMAT_TAGGED, .size = 1024, .wait_obj = FI_WAIT_FD};
    *fd = -1;
    if (!want_fd) {
        a.wait_obj = FI_WAIT_NONE;
        return fi_cq_open(d, &a, cq, NULL);
    }
    if (fi_cq_open(d, &a, cq, NULL) == 0) {
        if (fi_control(&(*cq)->fid, FI_GETWAIT, fd) == 0 && *fd >= 0)
            return 0;
        fi_close(&(*cq)->fid);
        *fd = -1;
    }
    a.wait_obj = FI_WAIT_NONE; /* the provider cannot sleep: we poll and nap */
    return fi_cq_open(d, &a, cq, NULL);
}

/* Sleep until cq may have completions (fi_trywait says when it is safe to),
 * at most ms; without a descriptor, nap. */
static void cq_sleep(struct ofi_engine *e, struct fid_cq *cq, int fd, int ms)
{
    struct fid *f = &cq->fid;
    if (fd < 0 || LK(fi_trywait(e->fabric, &f, 1)) != FI_SUCCESS) {
        if (fd < 0)
            nap();
        return;
    }
    struct pollfd p = {.fd = fd, .events = POLLIN};
    poll(&p, 1, ms);
}

static int open_ep_locked(struct ofi_engine *e, struct fid_ep **ep, struct fid_cq **cq,
                          int *waits, int want_fd)
{
    int rc = open_cq(e->domain, cq, waits, want_fd);
    if (rc)
        return fail("fi_cq_open", rc);
    if ((rc = fi_endpoint(e->domain, e->info, ep, NULL)))
        return fail("fi_endpoint", rc);
    if ((rc = fi_ep_bind(*ep, &e->av->fid, 0)) ||
        (rc = fi_ep_bind(*ep, &(*cq)->fid, FI_TRANSMIT | FI_RECV)) || (rc = fi_enable(*ep)))
        return fail("binding the endpoint", rc);
    return 0;
}

static int open_ep(struct ofi_engine *e, struct fid_ep **ep, struct fid_cq **cq, int *waits,
                   int want_fd)
{
    pthread_mutex_lock(&fi_mu); /* the service thread may be inside the domain */
    int rc = open_ep_locked(e, ep, cq, waits, want_fd);
    pthread_mutex_unlock(&fi_mu);
    return rc;
}


/* ---- the owner's service endpoint ------------------------------------------------ */

/* Post receive buffer r (i: its index, size: its bytes) on ep.  A provider
 * that says -FI_EAGAIN gets progress (cq read, completions stay queued) and
 * up to `rounds` more tries.  1: posted.  0: not now -- bit i of *unposted
 * is set (the first time with a line naming why) and the owner's next
 * progress pass tries again: fewer buffers for a while, never a hang. */
static int post_recv(skf_ctx_t *ctx, struct fid_ep *ep, struct fid_cq *cq, struct ofi_rx *r,
                     size_t size, int i, uint64_t *unposted, int rounds, const char *what)
{
    ssize_t rc;
    for (int round = 0;; round++) {
        rc = LK(fi_recv(ep, r->buf, size, NULL, FI_ADDR_UNSPEC, &r->c.fc));
        if (rc != -FI_EAGAIN || round >= rounds)
            break;
        LK(fi_cq_read(cq, NULL, 0));
    }
    if (rc == 0) {
        *unposted &= ~(1ull << i);
        return 1;
    }
    if (!(*unposted & (1ull << i))) {
        if (rc == -FI_EAGAIN) {
            skf_verbose(ctx, "ofi: rank %d: fi_recv of %s %d said -FI_EAGAIN %d times; posted later",
                        ctx->rank, what, i, rounds + 1);
        } else {
            char why[96];
            snprintf(why, sizeof why, "fi_recv (posting %s %d; tried again later)", what, i);
            fail(why, (int)rc);
        }
    }
    *unposted |= 1ull << i;
    return 0;
}

/* Post a service receive (post_recv; svc_pass tries again). */
static void svc_post_rounds(struct ofi_engine *e, struct ofi_rx *r, int rounds)
{
    post_recv(e->ctx, e->svc_ep, e->svc_cq, r, SVC_RXSZ, (int)(r - e->svc_rx), &e->svc_unposted,
              rounds, "service receive");
}

static void svc_post(struct ofi_engine *e, struct ofi_rx *r) { svc_post_rounds(e, r, OFI_ROUNDS); }

/* Read service completions: sent answers are freed, requests queued on the
 * backlog (handled by the loop).  Returns how many were read. */
static int svc_reap(struct ofi_engine *e, int timeout_ms)
{
    struct fi_cq_tagged_entry ent[8];
    ssize_t n = LK(fi_cq_read(e->svc_cq, ent, 8));
    if (n == -FI_EAGAIN && timeout_ms > 0) {
        cq_sleep(e, e->svc_cq, e->svc_waits, timeout_ms);
        n = LK(fi_cq_read(e->svc_cq, ent, 8));
    }
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        if (LK(fi_cq_readerr(e->svc_cq, &err, 0)) > 0 && err.op_context) {
            struct octx *c = err.op_context;
            if (c->kind == K_SVC_TX) {
                free(c);
                e->svc_tx_busy--;
            }
            else if (c->kind == K_SVC_RX && !e->stop)
                svc_post(e, (struct ofi_rx *)c);
        }
        return 1;
    }
    if (n <= 0)
        return 0;
    for (ssize_t i = 0; i < n; i++) {
        struct octx *c = ent[i].op_context;
        if (c->kind == K_SVC_TX) {
            free(c); /* the provider is done with the answer's bytes */
            e->svc_tx_busy--;
        } else {
            struct ofi_rx *r = (struct ofi_rx *)c;
            r->len = (uint32_t)ent[i].len;
            e->backlog[e->nbacklog++] = r;
        }
    }
    return (int)n;
}

/* An answer on its way: the provider's context, where it goes, then its
 * bytes (job + 1). */
struct svc_job {
    struct octx c;
    struct svc_job *next; /* e->held */
    fi_addr_t to;
    uint64_t tag;
    size_t n;
    int rank;             /* the requester (for messages) */
};

/* One try to send an answer: 0 when it left (or failed for good: named,
 * freed), -FI_EAGAIN when the provider has no room now (job kept).  An
 * answer up to the provider's inject size is injected (libfabric copies it
 * before fi_tinject returns), a larger one is sent with fi_tsend and job
 * freed by svc_reap on its completion.  The bytes are always the service
 * thread's own copy: a provider reads them after the call returns (rxm's
 * rendezvous answers the requester's read from whatever thread progresses
 * the domain next), so they must not be memory the owner may release. */
static int svc_try(struct ofi_engine *e, struct svc_job *job)
{
    int inject = job->n <= e->info->tx_attr->inject_size;
    ssize_t rc;
    if (inject)
        rc = LK(fi_tinject(e->svc_ep, job + 1, job->n, job->to, job->tag));
    else {
        job->c.kind = K_SVC_TX;
        rc = LK(fi_tsend(e->svc_ep, job + 1, job->n, NULL, job->to, job->tag, &job->c.fc));
    }
    if (rc == -FI_EAGAIN)
        return (int)rc;
    if (rc)
        skf_error("ofi: rank %d: %s of a one-sided answer (%zu bytes) to rank %d: %s",
                  e->ctx->rank, inject ? "fi_tinject" : "fi_tsend", job->n, job->rank,
                  fi_strerror((int)-rc));
    if (rc || inject)
        free(job);
    else
        e->svc_tx_busy++;
    return 0;
}

/* Send an answer (its bytes in job + 1): tried for OFI_ROUNDS rounds with
 * the service endpoint progressed in between, then held (in order, behind
 * any held before it) for the next service pass: a provider without room
 * never holds the service thread, which must keep reading requests. */
static void svc_send(struct ofi_engine *e, fi_addr_t to, uint64_t tag, struct svc_job *job, size_t n)
{
    *job = (struct svc_job){.to = to, .tag = tag, .n = n, .rank = e->answer_rank};
    for (int round = 0; !e->held; round++) {
        if (svc_try(e, job) == 0)
            return;
        if (round >= OFI_ROUNDS) {
            skf_verbose(e->ctx, "ofi: rank %d: the provider took no answer (%zu bytes to rank %d) "
                        "in %d rounds; held for the next service pass", e->ctx->rank, n,
                        job->rank, OFI_ROUNDS);
            break;
        }
        svc_reap(e, 0);
    }
    *e->held_tail = job;
    e->held_tail = &job->next;
}

/* Held answers, oldest first, until the provider says -FI_EAGAIN again. */
static void svc_flush(struct ofi_engine *e)
{
    while (e->held) {
        struct svc_job *j = e->held, *next = j->next;
        if (svc_try(e, j) == -FI_EAGAIN)
            return;
        if (!(e->held = next))
            e->held_tail = &e->held;
    }
}

static struct svc_job *answer_new(size_t n)
{
    struct svc_job *job = malloc(sizeof *job + (n ? n : 1));
    if (!job)
        skf_error("ofi: no memory to answer a one-sided request (%zu bytes)", n);
    return job;
}

/* An answer of hdr then body. */
static void svc_answer(struct ofi_engine *e, fi_addr_t to, uint64_t tag, const void *hdr,
                       size_t hlen, const void *body, size_t blen)
{
    struct svc_job *job = answer_new(hlen + blen);
    if (!job)
        return;
    if (hlen)
        memcpy(job + 1, hdr, hlen);
    if (blen)
        memcpy((uint8_t *)(job + 1) + hlen, body, blen);
    svc_send(e, to, tag, job, hlen + blen);
}

/* A get's answer: the exposed bytes, copied while the exposure table is
 * held and the range still exposed (the owner may release it and free the
 * memory the moment the requester has its bytes, or a stale request may
 * name a released region); else an empty answer with the error bit. */
static void svc_get(struct ofi_engine *e, fi_addr_t to, const struct svc_req *q)
{
    skf_ctx_t *ctx = e->ctx;
    struct svc_job *job = answer_new(q->len);
    pthread_mutex_lock(&ctx->mr_lock);
    int ok = job && skf_mr_range_ok_locked(ctx, q->cookie, q->addr, q->len);
    if (ok)
        memcpy(job + 1, (const void *)(uintptr_t)q->addr, q->len);
    pthread_mutex_unlock(&ctx->mr_lock);
    if (ok)
        svc_send(e, to, q->tag, job, q->len);
    else {
        free(job);
        svc_answer(e, to, q->tag | TAG_ERR, NULL, 0, NULL, 0);
    }
}

static void svc_execute(struct ofi_engine *e, const struct svc_req *q, size_t len)
{
    skf_ctx_t *ctx = e->ctx;
    fi_addr_t to = FI_ADDR_NOTAVAIL;
    pthread_mutex_lock(&e->lock);
    for (struct ofi_tp *t = e->tps; t; t = t->next)
        if (t->seq == q->seq && q->rank < (uint32_t)t->size)
            to = t->addr[q->rank];
    pthread_mutex_unlock(&e->lock);
    if (to == FI_ADDR_NOTAVAIL)
        return; /* that channel is closed here: nobody waits */
    e->answer_rank = (int)q->rank;
    const uint8_t *payload = (const uint8_t *)(q + 1);
    size_t plen = len - sizeof *q;
    struct svc_ans a = {0, 0};
    switch (q->type) {
    case REQ_GET:
        svc_get(e, to, q);
        return;
    case REQ_PUT:
        pthread_mutex_lock(&ctx->mr_lock); /* the exposure stays while the bytes land */
        if (plen == q->len && skf_mr_range_ok_locked(ctx, q->cookie, q->addr, q->len))
            memcpy((void *)(uintptr_t)q->addr, payload, q->len);
        else
            a.status = -EINVAL;
        pthread_mutex_unlock(&ctx->mr_lock);
        break;
    case REQ_ATOMIC:
        a.status = skf_atomic_exec(ctx, q->cookie, q->addr, (int)q->aop, (int)q->size, q->operand,
                                   q->compare, &a.old);
        break;
    case REQ_ACC: {
        size_t tsz = skf_acc_type_size(q->acc_type), ob = tsz * q->count;
        size_t ib = q->has_operand ? ob : 0; /* operand bytes in the payload */
        if (!tsz || ob > SKF_ACC_MAX_BYTES || plen < ib + (q->has_compare ? tsz : 0)) {
            a.status = -EINVAL;
            break;
        }
        uint8_t *old = q->want_old ? malloc(ob ? ob : 1) : NULL;
        if (q->want_old && !old) {
            a.status = -ENOMEM;
            break;
        }
        a.status = skf_acc_exec(ctx, q->cookie, q->addr, q->acc_op, q->acc_type, q->count,
                                q->has_operand ? payload : NULL,
                                q->has_compare ? payload + ib : NULL, old,
                                q->lock_cookie, q->lock_addr, q->lock_val);
        svc_answer(e, to, q->tag, &a, sizeof a, old, old && !a.status ? ob : 0);
        free(old);
        return;
    }
    default:
        a.status = -EINVAL;
    }
    svc_answer(e, to, q->tag, &a, sizeof a, NULL, 0);
}

/* Read the service endpoint's completions and execute the requests they
 * brought; the caller holds svc_mu.  Returns completions read + requests run. */
static int svc_pass(struct ofi_engine *e)
{
    if (e->held)
        svc_flush(e);
    for (int i = 0; i < SVC_NRX && e->svc_unposted; i++)
        if (e->svc_unposted & (1ull << i))
            svc_post_rounds(e, &e->svc_rx[i], 0);
    int n = e->nbacklog ? 0 : svc_reap(e, 0);
    while (e->nbacklog) {
        struct ofi_rx *r = e->backlog[0];
        memmove(e->backlog, e->backlog + 1, (size_t)--e->nbacklog * sizeof *e->backlog);
        if (r->len >= sizeof(struct svc_req))
            svc_execute(e, (const struct svc_req *)r->buf, r->len);
        svc_post(e, r);
        n++;
    }
    return n;
}

/* The main thread's share (from progress, every 8th empty poll): a rank
 * that polls anyway serves its own one-sided requests and peers' fi_reads
 * of its memory (manual progress: its provider sends the read's data only
 * while someone progresses the service endpoint), and its service thread
 * stays out of the domain meanwhile — with both in it they handed fi_mu to
 * each other on every poll, the thread on the other rank's core. */
static void svc_poll_main(struct ofi_engine *e)
{
    if (pthread_mutex_trylock(&e->svc_mu) == 0) {
        svc_pass(e);
        __atomic_store_n(&e->main_svc_ns, skf_now_ns(), __ATOMIC_RELAXED);
        pthread_mutex_unlock(&e->svc_mu);
    } else /* the thread runs a pass: just progress */
        LK(fi_cq_read(e->svc_cq, NULL, 0));
}

#define SVC_DEFER_NS 1000000 /* the main thread ran a pass this recently: the thread stays out */
#define SVC_PARK_MS 10        /* ... and sleeps this long at most (or until its CQ wakes it) */

static void *svc_main(void *arg)
{
    struct ofi_engine *e = arg;
    int idle = 0; /* sleeps since the last request: 1 ms slices while busy, 10 ms after 100 */
    while (!e->stop) {
        if (skf_now_ns() - __atomic_load_n(&e->main_svc_ns, __ATOMIC_RELAXED) < SVC_DEFER_NS) {
            /* The main thread serves the endpoint.  Sleep on the service
             * CQ's descriptor (a request the main thread no longer polls
             * for may wake it), at most SVC_PARK_MS; woken early, or with
             * no descriptor to sleep on, nap out the main thread's claim.
             * Not 1 ms naps throughout: each wake-up lands on a core a rank
             * spins on, and 1000 a second cost an 8-byte ping-pong across
             * the netns hosts 0.3-0.5 us (docs/ofi.md). */
            int r = -1;
            struct fid *f = &e->svc_cq->fid;
            if (e->svc_waits >= 0 && LK(fi_trywait(e->fabric, &f, 1)) == FI_SUCCESS) {
                struct pollfd p = {.fd = e->svc_waits, .events = POLLIN};
                r = poll(&p, 1, SVC_PARK_MS);
            }
            long long left = SVC_DEFER_NS - (skf_now_ns() -
                                             __atomic_load_n(&e->main_svc_ns, __ATOMIC_RELAXED));
            if (r != 0 && left > 0) {
                struct timespec ts = {0, left};
                nanosleep(&ts, NULL);
            }
            idle = 0;
            continue;
        }
        pthread_mutex_lock(&e->svc_mu);
        int n = svc_pass(e);
        pthread_mutex_unlock(&e->svc_mu);
        if (n)
            idle = 0;
        else {
            cq_sleep(e, e->svc_cq, e->svc_waits, idle < 100 ? 1 : 10);
            idle++;
        }
    }
    /* Stopping (every channel closed, so every requester has its answers):
     * the provider may still hold answers whose completion has not been
     * read; their buffers are freed as it reports them. */
    long long end = skf_now_ms() + 2000;
    pthread_mutex_lock(&e->svc_mu);
    while (e->svc_tx_busy > 0 && skf_now_ms() < end)
        svc_reap(e, 1);
    e->nbacklog = 0;
    pthread_mutex_unlock(&e->svc_mu);
    return NULL;
}

/* ---- engine (once per process) -------------------------------------------------- */

/* The service thread serves this rank's memory while the main thread does
 * not poll.  A request can only name an exposure, so it starts with the
 * first one (or with the channel, if memory was exposed before): a rank that
 * never exposes anything — an 8-byte MPI ping-pong — runs without it (even
 * parked, its wake-ups cost that ping-pong 0.37 us across the netns hosts,
 * docs/ofi.md).  Once started it stays until the engine closes.  Only with a
 * channel listed: the thread answers through the channels' addresses. */
static void svc_thread_start(struct ofi_engine *e)
{
    pthread_mutex_lock(&e->lock);
    if (!e->thread && !e->stop && e->tps) {
        int rc = pthread_create(&e->thread, NULL, svc_main, e);
        if (rc) { /* the main thread still serves whenever it polls */
            e->thread = 0;
            skf_error("ofi: rank %d: cannot start the one-sided service thread: %s", e->ctx->rank,
                      strerror(rc));
        }
    }
    pthread_mutex_unlock(&e->lock);
}

/* core/mr.c tells of each exposure: registered for remote reads with its
 * cookie as key, closed before the release removes it (a read asked after
 * that fails at the owner's provider and the requester asks the service
 * thread instead, which refuses the released range). */
static void mr_notify(void *arg, int release, uint64_t base, uint64_t len, uint64_t cookie)
{
    struct ofi_engine *e = arg;
    if (!release)
        svc_thread_start(e);
    if (!e->rma) /* nothing to register: gets go through the service thread */
        return;
    pthread_mutex_lock(&fi_mu);
    if (release) {
        for (int i = 0; i < e->nmrs; i++)
            if (e->mrs[i].cookie == cookie) {
                fi_close(&e->mrs[i].mr->fid);
                e->mrs[i] = e->mrs[--e->nmrs];
                break;
            }
    } else if (len) {
        if (e->nmrs == e->mrs_cap) {
            int cap = e->mrs_cap ? 2 * e->mrs_cap : 64;
            struct ofi_mr *m = realloc(e->mrs, (size_t)cap * sizeof *m);
            if (m) {
                e->mrs = m;
                e->mrs_cap = cap;
            }
        }
        struct fid_mr *mr = NULL;
        int rc = e->nmrs < e->mrs_cap
                     ? fi_mr_reg(e->domain, (void *)(uintptr_t)base, len, FI_REMOTE_READ, 0, cookie,
                                 0, &mr, NULL)
                     : -FI_ENOMEM;
        if (rc == 0)
            e->mrs[e->nmrs++] = (struct ofi_mr){cookie, base, mr};
        else /* its gets go through the service thread */
            skf_verbose(e->ctx, "ofi: rank %d: fi_mr_reg of %llu bytes: %s", e->ctx->rank,
                        (unsigned long long)len, fi_strerror(-rc));
    }
    pthread_mutex_unlock(&fi_mu);
}

static void engine_free(struct ofi_engine *e)
{
    if (e->ctx->mr_notify_arg == e) {
        e->ctx->mr_notify = NULL;
        e->ctx->mr_notify_arg = NULL;
    }
    pthread_mutex_lock(&fi_mu);
    for (int i = 0; i < e->nmrs; i++)
        fi_close(&e->mrs[i].mr->fid);
    pthread_mutex_unlock(&fi_mu);
    free(e->mrs);
    if (e->thread) {
        e->stop = 1;
        if (e->svc_cq && e->svc_waits >= 0)
            LK(fi_cq_signal(e->svc_cq));
        pthread_join(e->thread, NULL);
    }
    if (e->svc_ep)
        fi_close(&e->svc_ep->fid);
    while (e->held) { /* answers the provider never took: nobody waits for them now */
        struct svc_job *j = e->held;
        e->held = j->next;
        free(j);
    }
    /* cancelled receives, answers still counted: read them, errors too (a
     * provider that reports the cancelled receives as errors, e.g. net,
     * answered -FI_EAVAIL to every plain read, and this loop never ended) */
    long long drain_end = skf_now_ms() + 2000;
    while (e->svc_cq && skf_now_ms() < drain_end) {
        struct fi_cq_tagged_entry ent[8];
        ssize_t n = LK(fi_cq_read(e->svc_cq, ent, 8));
        if (n == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            LK(fi_cq_readerr(e->svc_cq, &err, 0));
        } else if (n <= 0)
            break;
    }
    if (e->svc_cq)
        fi_close(&e->svc_cq->fid);
    if (e->av)
        fi_close(&e->av->fid);
    if (e->domain)
        fi_close(&e->domain->fid);
    if (e->fabric)
        fi_close(&e->fabric->fid);
    if (e->info)
        fi_freeinfo(e->info);
    pthread_mutex_destroy(&e->lock);
    pthread_mutex_destroy(&e->svc_mu);
    free(e->svc_addr);
    free(e->svc_mem);
    free(e);
}

static int engine_new(skf_ctx_t *ctx, struct ofi_engine **out)
{
    struct ofi_engine *e = calloc(1, sizeof *e);
    if (!e)
        return -ENOMEM;
    pthread_mutex_init(&e->lock, NULL);
    pthread_mutex_init(&e->svc_mu, NULL);
    e->ctx = ctx;
    e->held_tail = &e->held;
    e->rma = skf_param_ll("SKIFF_OFI_RMA") > 0;
    int rc = e->rma ? getinfo(&e->info, 1) : -FI_ENODATA;
    if (rc) { /* no FI_RMA with our own keys: every get goes through the service thread */
        e->rma = 0;
        rc = getinfo(&e->info, 0);
    }
    if (rc) {
        skf_error("ofi: rank %d: no libfabric provider with reliable datagrams, messages and tags "
                  "(SKIFF_OFI_PROVIDER=%s): %s", ctx->rank, skf_param_str("SKIFF_OFI_PROVIDER"),
                  fi_strerror(-rc));
        engine_free(e);
        return -ENODEV;
    }
    struct fi_info *mine = fi_dupinfo(pick_entry(ctx, e->info));
    fi_freeinfo(e->info);
    e->info = mine;
    if (!mine) {
        engine_free(e);
        return -ENOMEM;
    }
    struct fi_av_attr av = {.type = FI_AV_TABLE};
    e->svc_addr = calloc((size_t)ctx->size, sizeof *e->svc_addr);
    e->svc_mem = malloc(SVC_NRX * SVC_RXSZ);
    if (!e->svc_addr || !e->svc_mem)
        rc = -ENOMEM;
    else if ((rc = fi_fabric(e->info->fabric_attr, &e->fabric, NULL)))
        rc = fail("fi_fabric", rc);
    else if ((rc = fi_domain(e->fabric, e->info, &e->domain, NULL)))
        rc = fail("fi_domain", rc);
    else if ((rc = fi_av_open(e->domain, &av, &e->av, NULL)))
        rc = fail("fi_av_open", rc);
    else
        rc = open_ep(e, &e->svc_ep, &e->svc_cq, &e->svc_waits, 1);
    if (rc) {
        engine_free(e);
        return rc;
    }
    for (int i = 0; i < SVC_NRX; i++) {
        e->svc_rx[i] = (struct ofi_rx){.c.kind = K_SVC_RX, .buf = e->svc_mem + i * SVC_RXSZ};
        svc_post(e, &e->svc_rx[i]);
    }
    /* fi_read needs keys the requester knows (the cookies: no
     * FI_MR_PROV_KEY), no local descriptors and no per-endpoint binding */
    int mode = e->info->domain_attr->mr_mode;
    if (e->rma && ((mode & (FI_MR_PROV_KEY | FI_MR_LOCAL | FI_MR_ENDPOINT | FI_MR_RAW)) ||
                   e->info->domain_attr->mr_key_size < sizeof(uint64_t)))
        e->rma = 0;
    e->virt_addr = (mode & FI_MR_VIRT_ADDR) != 0;
    ctx->mr_notify_arg = e; /* registers exposures (FI_RMA), starts the service thread */
    ctx->mr_notify = mr_notify;
    if (e->rma) {
        pthread_mutex_lock(&ctx->mr_lock); /* the exposures made before this engine */
        int n = ctx->nmrs;
        struct skf_mr_entry *copy = n ? malloc((size_t)n * sizeof *copy) : NULL;
        if (copy)
            memcpy(copy, ctx->mrs, (size_t)n * sizeof *copy);
        pthread_mutex_unlock(&ctx->mr_lock);
        for (int i = 0; copy && i < n; i++)
            mr_notify(e, 0, copy[i].base, copy[i].len, copy[i].cookie);
        free(copy);
    }
    skf_verbose(ctx, "rank %d: ofi %s, domain %s, gets %s", ctx->rank,
                e->info->fabric_attr->prov_name, e->info->domain_attr->name,
                e->rma ? "by fi_read" : "answered by the owner");
    *out = e;
    return 0;
}

/* ---- data path ---------------------------------------------------------------- */

/* Post a receive buffer (rounds: how long to wait for a provider that says
 * -FI_EAGAIN).  One that cannot be posted now waits in t->unposted and is
 * tried again by progress: fewer buffers for a while, never a hang. */
static void post_rx_rounds(struct ofi_tp *t, struct ofi_rx *r, int rounds)
{
    r->complete = r->internal = 0;
    int i = (int)(r - t->rx);
    if (post_recv(t->ctx, t->ep, t->cq, r, OFI_RXSZ, i, &t->unposted, rounds, "receive buffer"))
        t->posted[(t->posted_head + t->posted_n++) % OFI_NRX] = i;
}

static void post_rx(struct ofi_tp *t, struct ofi_rx *r) { post_rx_rounds(t, r, OFI_ROUNDS); }

/* Buffers post_rx could not post, in index order (one try each). */
static void repost_rx(struct ofi_tp *t)
{
    for (int i = 0; i < OFI_NRX && t->unposted; i++)
        if (t->unposted & (1ull << i))
            post_rx_rounds(t, &t->rx[i], 0);
}

static void op_finish(struct ofi_tp *t, struct ofi_op *o)
{
    skf_get_op_t *op = o->op;
    if (o->aop && !o->status)
        o->aop->old = o->ans.old;
    if (o->acc_old && !o->status)
        memcpy(o->acc_old, (struct svc_ans *)o->ans_buf + 1, o->acc_old_len);
    if (o->status && !op->status)
        op->status = o->status;
    if (--op->id == 0) { /* the last piece */
        op->state = SKF_GET_OP_DONE;
        t->get_done = 1;
    }
    t->ops_busy--;
    if (!o->is_get && o->peer >= 0 && o->peer < t->size)
        t->reqs_busy[o->peer]--;
    free(o->ans_buf);
    free(o);
}

static int op_post(struct ofi_tp *t, int peer, struct ofi_op *o, void *ans, size_t ans_len,
                   const void *payload, size_t plen, const void *payload2, size_t plen2);

static void op_event(struct ofi_tp *t, struct octx *c, const struct fi_cq_tagged_entry *ent, int err)
{
    if (c->kind == K_OP_READ) {
        struct ofi_op *o = (struct ofi_op *)c;
        if (err && !t->lost[o->peer]) {
            /* refused by the owner's provider (not registered there, or the
             * range was released): the owner's service thread answers
             * instead, with the bytes or the error tag */
            t->ops_busy--; /* op_post counts it in again */
            if (op_post(t, o->peer, o, o->dst, o->req.len, NULL, 0, NULL, 0) == 0)
                return;
            t->ops_busy++;
        }
        if (err)
            o->status = -EPIPE;
        op_finish(t, o);
        return;
    }
    int reply = c->kind == K_OP_REPLY;
    struct ofi_op *o = reply ? (struct ofi_op *)c
                             : (struct ofi_op *)((char *)c - offsetof(struct ofi_op, req_ctx));
    if (err && !o->status)
        o->status = -EPIPE;
    else if (reply && !err) {
        if (o->is_get) {
            if ((ent->tag & TAG_ERR) && !o->status)
                o->status = -EINVAL;
        } else {
            const struct svc_ans *a = o->ans_buf ? o->ans_buf : &o->ans;
            if (a->status && !o->status)
                o->status = (int)a->status;
        }
    }
    if (--o->pending == 0)
        op_finish(t, o);
}

static void mark_lost(struct ofi_tp *t, int peer)
{
    if (peer >= 0 && peer < t->size && !t->lost[peer]) {
        t->lost[peer] = 1;
        if (t->lost_rank < 0)
            t->lost_rank = peer;
    }
}

static void handle(struct ofi_tp *t, const struct fi_cq_tagged_entry *ent, int err)
{
    struct octx *c = ent->op_context;
    switch (c->kind) {
    case K_RX: {
        struct ofi_rx *r = (struct ofi_rx *)c;
        r->complete = 1;
        if (err) { /* cancelled at close, or a provider's failure: nothing to hand out */
            r->internal = 1;
            return;
        }
        uint32_t hdr[2];
        memcpy(hdr, r->buf, sizeof hdr);
        if (hdr[0] < (uint32_t)t->size && (hdr[1] & ~CREDIT_ONLY)) {
            t->credits[hdr[0]] += (int)(hdr[1] & ~CREDIT_ONLY);
            t->blocked = 0;
        }
        r->internal = (hdr[1] & CREDIT_ONLY) != 0;
        r->len = (uint32_t)ent->len;
        return;
    }
    case K_TX: {
        struct ofi_tx *x = (struct ofi_tx *)c;
        if (err)
            mark_lost(t, x->peer);
        x->next_free = t->free_tx;
        t->free_tx = x;
        t->tx_busy--;
        return;
    }
    default:
        op_event(t, c, ent, err);
    }
}

/* Read what completed; returns how many completions. */
static void give_credits(struct ofi_tp *t);

static int progress(struct ofi_tp *t)
{
    struct fi_cq_tagged_entry ent[16];
    if (t->owing)
        give_credits(t);
    if (t->unposted)
        repost_rx(t);
    ssize_t n = LK(fi_cq_read(t->cq, ent, 16));
    /* now and then the service endpoint too: a peer's fi_read of my memory
     * and a get's answer are sent by whoever progresses it, and the
     * requests it brings are served at once (svc_poll_main) */
    if (n == -FI_EAGAIN && (++t->idle_polls & 7) == 0)
        svc_poll_main(t->e);
    if (n > 0) {
        for (ssize_t i = 0; i < n; i++)
            handle(t, &ent[i], 0);
        return (int)n;
    }
    if (n == -FI_EAVAIL) {
        struct fi_cq_err_entry err = {0};
        if (LK(fi_cq_readerr(t->cq, &err, 0)) > 0) {
            struct fi_cq_tagged_entry e = {.op_context = err.op_context, .len = err.len,
                                           .tag = err.tag};
            if (err.err != FI_ECANCELED)
                skf_verbose(t->ctx, "ofi: rank %d: %s", t->me, fi_strerror(err.err));
            if (e.op_context)
                handle(t, &e, 1);
        }
        return 1;
    }
    return 0;
}

static size_t ofi_max_msg(void *tpv, int peer)
{
    (void)tpv;
    (void)peer;
    return OFI_MAX_PAYLOAD;
}

static size_t gather(uint8_t *to, const struct iovec *iov, int iovcnt, size_t take)
{
    size_t n = 0;
    for (int i = 0; i < iovcnt && n < take; i++) {
        size_t k = iov[i].iov_len < take - n ? iov[i].iov_len : take - n;
        memcpy(to + n, iov[i].iov_base, k);
        n += k;
    }
    return n;
}

/* A message to peer left: a credit spent, the credits it carried told. */
static ssize_t sent(struct ofi_tp *t, int peer, uint32_t told, size_t take)
{
    t->credits[peer]--;
    t->owed[peer] -= (int)told;
    return (ssize_t)take;
}

/* Hand credits back to the senders owed half a window (credit-only
 * messages, injected; one that does not leave now is tried again later). */
static void give_credits(struct ofi_tp *t)
{
    t->owing = 0;
    for (int p = 0; p < t->size; p++) {
        if (t->owed[p] < OFI_CREDITS / 2 || t->lost[p])
            continue;
        uint32_t hdr[2] = {(uint32_t)t->me, CREDIT_ONLY | (uint32_t)t->owed[p]};
        if (LK(fi_inject(t->ep, hdr, sizeof hdr, t->addr[p])) == 0)
            t->owed[p] = 0;
        else
            t->owing = 1;
    }
}

/* The send path (docs/ofi.md, "The send path"): one bounded loop for both
 * ways out — fi_inject (up to the inject size, from the stack) and fi_send
 * (from a send slot, which must first come free).  While the provider says
 * -FI_EAGAIN or no slot is free, progress is driven (CQ reads free slots and
 * let the provider drain) for up to OFI_ROUNDS rounds; then -EAGAIN to the
 * channel layer, which waits (WRITABLE) and sends again, as for a full ring.
 * Any other answer of the provider is an error: named, and the peer lost. */
static ssize_t ofi_send(void *tpv, int peer, const struct iovec *iov, int iovcnt)
{
    struct ofi_tp *t = tpv;
    if (t->lost[peer])
        return -EPIPE;
    size_t total = 0;
    for (int i = 0; i < iovcnt; i++)
        total += iov[i].iov_len;
    size_t take = total < OFI_MAX_PAYLOAD ? total : OFI_MAX_PAYLOAD;
    t->blocked_peer = peer;
    if (t->credits[peer] <= 0 && (!progress(t) || t->credits[peer] <= 0)) {
        t->blocked = 1; /* the receiver's flow control: its credits come back by themselves */
        return -EAGAIN;
    }
    uint32_t hdr[2] = {(uint32_t)t->me, (uint32_t)t->owed[peer]};
    int injected = OFI_HDR + take <= t->inject;
    uint8_t b[OFI_HDR + 512] __attribute__((aligned(8)));
    if (injected) {
        memcpy(b, hdr, OFI_HDR);
        gather(b + OFI_HDR, iov, iovcnt, take);
    }
    struct ofi_tx *x = NULL;
    ssize_t rc = -FI_EAGAIN;
    for (int round = 0;; round++) {
        if (injected)
            rc = LK(fi_inject(t->ep, b, OFI_HDR + take, t->addr[peer]));
        else {
            if (!x && (x = t->free_tx)) { /* a slot came free: take it, fill it once */
                t->free_tx = x->next_free;
                memcpy(x->buf, hdr, OFI_HDR);
                gather(x->buf + OFI_HDR, iov, iovcnt, take);
                x->peer = peer;
            }
            if (x && (rc = LK(fi_send(t->ep, x->buf, OFI_HDR + take, NULL, t->addr[peer],
                                      &x->c.fc))) == 0) {
                t->tx_busy++;
                x = NULL; /* the provider's until its completion */
            }
        }
        if (rc == 0)
            return sent(t, peer, hdr[1], take);
        if (rc != -FI_EAGAIN || round >= OFI_ROUNDS)
            break;
        progress(t);
        if (t->lost[peer]) { /* a completion said the peer is gone (the error names the call) */
            rc = -FI_ECONNRESET;
            break;
        }
    }
    if (x) { /* the slot goes back unsent */
        x->next_free = t->free_tx;
        t->free_tx = x;
    }
    if (rc == -FI_EAGAIN) {
        skf_verbose(t->ctx, "ofi: rank %d: send of %zu bytes to rank %d: %s after %d progress "
                    "rounds; -EAGAIN to the channel", t->me, take, peer,
                    injected ? "fi_inject said -FI_EAGAIN" : x ? "fi_send said -FI_EAGAIN"
                                                               : "no send slot came free",
                    OFI_ROUNDS);
        t->blocked = 1;
        return -EAGAIN;
    }
    skf_error("ofi: rank %d: %s of %zu bytes to rank %d: %s", t->me,
              injected ? "fi_inject" : "fi_send", OFI_HDR + take, peer, fi_strerror((int)-rc));
    mark_lost(t, peer);
    return -EPIPE;
}

/* The oldest posted receive when its message is in (credit-only ones are
 * posted again on the way), else NULL. */
static struct ofi_rx *deliverable(struct ofi_tp *t)
{
    while (t->posted_n && t->out < 0) {
        struct ofi_rx *r = &t->rx[t->posted[t->posted_head]];
        if (!r->complete)
            return NULL;
        if (!r->internal)
            return r;
        t->posted_head = (t->posted_head + 1) % OFI_NRX;
        t->posted_n--;
        post_rx(t, r);
    }
    return NULL;
}

static ssize_t ofi_recv(void *tpv, struct iovec *cont, int *ncont, int *src_rank)
{
    struct ofi_tp *t = tpv;
    struct ofi_rx *r = deliverable(t);
    if (!r && progress(t))
        r = deliverable(t);
    if (!r)
        return -EAGAIN;
    t->out = (int)(r - t->rx);
    uint32_t src;
    memcpy(&src, r->buf, sizeof src);
    *src_rank = (int)src;
    cont[0] = (struct iovec){r->buf + OFI_HDR, r->len - OFI_HDR};
    *ncont = r->len > OFI_HDR;
    return (ssize_t)(r->len - OFI_HDR);
}

static void ofi_recv_done(void *tpv)
{
    struct ofi_tp *t = tpv;
    if (t->out < 0)
        return;
    struct ofi_rx *r = &t->rx[t->out];
    uint32_t src;
    memcpy(&src, r->buf, sizeof src);
    t->posted_head = (t->posted_head + 1) % OFI_NRX;
    t->posted_n--;
    t->out = -1;
    post_rx(t, r);
    if (src < (uint32_t)t->size && ++t->owed[src] >= OFI_CREDITS / 2)
        t->owing = 1;
    if (t->owing)
        give_credits(t);
}

static int now_events(struct ofi_tp *t, int events)
{
    int r = 0;
    if ((events & SKF_READABLE) && deliverable(t))
        r |= SKF_READABLE;
    /* a credit and a slot: the send may go (a provider's own -FI_EAGAIN, e.g.
     * while it connects, clears with the progress ready makes) */
    if ((events & SKF_WRITABLE) &&
        (!t->blocked || (t->credits[t->blocked_peer] > 0 && t->free_tx)))
        r |= SKF_WRITABLE;
    if ((events & SKF_GET_DONE) && t->get_done) {
        t->get_done = 0;
        r |= SKF_GET_DONE;
    }
    return r;
}

static int ofi_ready(void *tpv, int events)
{
    struct ofi_tp *t = tpv;
    int r = now_events(t, events);
    if (r)
        return r;
    progress(t);
    return now_events(t, events);
}


static int ofi_wait(void *tpv, int events, int timeout_ms)
{
    struct ofi_tp *t = tpv;
    long long end = timeout_ms >= 0 ? skf_now_ms() + timeout_ms : 0;
    long spin = t->ctx->shm.spin;
    for (long polls = 0;; polls++) {
        int r = ofi_ready(t, events);
        if (r)
            return r;
        if (t->kicked) {
            t->kicked = 0;
            return 0;
        }
        if (t->lost_rank >= 0)
            return -EPIPE;
        if (polls < spin)
            continue;
        long long left = timeout_ms >= 0 ? end - skf_now_ms() : 100;
        if (left <= 0)
            return 0;
        if (t->ctx->oversubscribed)
            cq_sleep(t->e, t->cq, t->cq_waits, 1);
        else { /* a core of my own: poll (the descriptor may stay quiet; the CQ has none) */
            long long until = skf_now_ms() + 1;
            while (!now_events(t, events) && !t->kicked && skf_now_ms() < until)
                progress(t);
        }
    }
}

static void ofi_kick(void *tpv)
{
    struct ofi_tp *t = tpv;
    t->kicked = 1;
    if (t->cq_waits >= 0)
        LK(fi_cq_signal(t->cq));
}

static int ofi_lost_peer(void *tpv, char *desc, size_t cap)
{
    struct ofi_tp *t = tpv;
    if (t->lost_rank >= 0 && cap)
        snprintf(desc, cap, "its %s endpoint failed", t->e->info->fabric_attr->prov_name);
    return t->lost_rank;
}

/* ---- one-sided: the requester ------------------------------------------------------ */

/* Post the answer's receive, then send the request (plus payload). */
static int op_post(struct ofi_tp *t, int peer, struct ofi_op *o, void *ans, size_t ans_len,
                   const void *payload, size_t plen, const void *payload2, size_t plen2)
{
    o->tp = t;
    o->peer = peer;
    o->reply_ctx.kind = K_OP_REPLY;
    o->req_ctx.kind = K_OP_REQ;
    o->pending = 2;
    o->req.rank = (uint32_t)t->me;
    o->req.seq = t->seq;
    o->req.tag = t->next_tag++ & (TAG_ERR - 1);
    ssize_t rc;
    long long since;
    for (int round = 0;; round++) {
        rc = LK(fi_trecv(t->ep, ans, ans_len, NULL, FI_ADDR_UNSPEC, o->req.tag, TAG_ERR,
                         &o->reply_ctx.fc));
        if (rc != -FI_EAGAIN || !may_retry(round, &since, OFI_STUCK_MS))
            break;
        progress(t);
    }
    if (rc) {
        skf_error("ofi: rank %d: fi_trecv of a one-sided answer (%zu bytes) from rank %d: %s%s",
                  t->me, ans_len, peer, fi_strerror((int)-rc),
                  rc == -FI_EAGAIN ? " for 10 s: the provider is stuck" : "");
        return rc == -FI_EAGAIN ? -ETIMEDOUT : (int)rc;
    }
    struct iovec v[3] = {{&o->req, sizeof o->req}, {(void *)payload, plen}, {(void *)payload2, plen2}};
    int n = plen2 ? 3 : plen ? 2 : 1;
    for (int round = 0;; round++) {
        rc = LK(fi_sendv(t->ep, v, NULL, (size_t)n, t->e->svc_addr[peer], &o->req_ctx.fc));
        if (rc != -FI_EAGAIN || !may_retry(round, &since, OFI_STUCK_MS))
            break;
        progress(t);
        if (t->lost[peer]) { /* a completion said the owner is gone */
            rc = -FI_ECONNRESET;
            break;
        }
    }
    t->ops_busy++;
    if (!o->is_get)
        t->reqs_busy[peer]++;
    if (rc) {
        /* The answer's receive is posted with o as its context: o stays
         * until that receive is cancelled (its completion finishes the op
         * with -EPIPE), never freed under the provider. */
        skf_error("ofi: rank %d: fi_sendv of a one-sided request (%zu bytes) to rank %d: %s%s",
                  t->me, sizeof o->req + plen + plen2, peer, fi_strerror((int)-rc),
                  rc == -FI_EAGAIN ? " for 10 s: the provider is stuck" : "");
        mark_lost(t, peer);
        o->status = -EPIPE;
        o->pending = 1;
        LK(fi_cancel(&t->ep->fid, &o->reply_ctx.fc));
    }
    return 0;
}

static struct ofi_op *op_new(size_t extra)
{
    return calloc(1, sizeof(struct ofi_op) + extra);
}

/* A get as an fi_read of the owner's registered exposure (its service
 * endpoint's address; the owner's service thread progresses it while the
 * owner computes).  Not while a put, atomic or accumulate to that owner is
 * in flight: those run at the owner's service thread, and a get started
 * after them must see them.  Returns 1 when started. */
static int read_start(struct ofi_tp *t, int peer, struct ofi_op *o, const skf_mr_key_t *key,
                      void *buf)
{
    struct ofi_engine *e = t->e;
    if (!e->rma || !o->req.len || t->reqs_busy[peer])
        return 0;
    o->tp = t;
    o->peer = peer;
    o->dst = buf;
    o->reply_ctx.kind = K_OP_READ;
    uint64_t at = e->virt_addr ? o->req.addr : o->req.addr - key->base;
    ssize_t rc;
    for (int round = 0;; round++) {
        rc = LK(fi_read(t->ep, buf, o->req.len, NULL, e->svc_addr[peer], at, key->cookie,
                        &o->reply_ctx.fc));
        if (rc != -FI_EAGAIN || round >= OFI_ROUNDS)
            break;
        progress(t);
    }
    if (rc) /* the service thread answers it (op_post waits for a busy provider) */
        return 0;
    t->ops_busy++;
    return 1;
}

static int ofi_rma_start(void *tpv, int peer, int write, const skf_mr_key_t *key, uint64_t addr,
                         void *buf, size_t len, skf_get_op_t *op)
{
    struct ofi_tp *t = tpv;
    if (t->lost[peer])
        return -EPIPE;
    op->state = SKF_GET_OP_QUEUED;
    op->status = 0;
    op->write = (int8_t)write;
    op->dst = buf;
    op->addr = addr;
    op->cookie = key->cookie;
    op->len = len;
    size_t pieces = write ? (len + OFI_PUT_CHUNK - 1) / OFI_PUT_CHUNK : 1;
    if (!pieces)
        pieces = 1;
    op->id = (uint32_t)pieces;
    for (size_t i = 0; i < pieces; i++) {
        struct ofi_op *o = op_new(0);
        if (!o)
            return -ENOMEM;
        o->op = op;
        o->is_get = !write;
        size_t off = i * OFI_PUT_CHUNK, n = write ? (len - off < OFI_PUT_CHUNK ? len - off : OFI_PUT_CHUNK) : len;
        o->req = (struct svc_req){.type = write ? REQ_PUT : REQ_GET, .cookie = key->cookie,
                                  .addr = addr + off, .len = n};
        if (!write && read_start(t, peer, o, key, buf))
            return 0;
        int rc = write ? op_post(t, peer, o, &o->ans, sizeof o->ans, (uint8_t *)buf + off, n, NULL, 0)
                       : op_post(t, peer, o, buf, len, NULL, 0, NULL, 0);
        if (rc) {
            free(o);
            op->id -= (uint32_t)(pieces - i);
            op->status = rc;
            if (op->id == 0)
                op->state = SKF_GET_OP_DONE;
            return op->id ? 0 : rc;
        }
    }
    return 0;
}

/* Drive progress until op is done; its status. */
static int op_wait(struct ofi_tp *t, skf_get_op_t *op)
{
    for (long polls = 0; op->state != SKF_GET_OP_DONE; polls++) {
        if (!progress(t) && polls > t->ctx->shm.spin)
            cq_sleep(t->e, t->cq, t->cq_waits, 10);
    }
    return op->status;
}

static int ofi_rma(void *tpv, int peer, int write, const skf_mr_key_t *key, uint64_t addr,
                   void *buf, size_t len)
{
    skf_get_op_t op = {0};
    int rc = ofi_rma_start(tpv, peer, write, key, addr, buf, len, &op);
    if (rc && op.state != SKF_GET_OP_DONE)
        return rc;
    return op_wait(tpv, &op);
}

static int ofi_atomic_start(void *tpv, int peer, const skf_mr_key_t *key, uint64_t addr,
                            skf_atomic_op_t *a)
{
    struct ofi_tp *t = tpv;
    if (t->lost[peer])
        return -EPIPE;
    struct ofi_op *o = op_new(0);
    if (!o)
        return -ENOMEM;
    a->op.state = SKF_GET_OP_QUEUED;
    a->op.status = 0;
    a->op.write = 1;
    a->op.id = 1;
    o->op = &a->op;
    o->aop = a;
    o->req = (struct svc_req){.type = REQ_ATOMIC, .cookie = key->cookie, .addr = addr, .len = a->size,
                              .aop = a->aop, .size = a->size, .operand = a->operand,
                              .compare = a->compare};
    int rc = op_post(t, peer, o, &o->ans, sizeof o->ans, NULL, 0, NULL, 0);
    if (rc)
        free(o);
    return rc;
}

static int ofi_atomic(void *tpv, int peer, const skf_mr_key_t *key, uint64_t addr, int op, int size,
                      uint64_t operand, uint64_t compare, uint64_t *old)
{
    skf_atomic_op_t a = {.aop = (uint32_t)op, .size = (uint32_t)size, .operand = operand,
                         .compare = compare};
    int rc = ofi_atomic_start(tpv, peer, key, addr, &a);
    if (rc)
        return rc;
    rc = op_wait(tpv, &a.op);
    if (!rc)
        *old = a.old;
    return rc;
}

static int ofi_acc(void *tpv, int peer, const skf_mr_key_t *key, uint64_t addr, int op, int type,
                   size_t count, const void *operand, const void *compare, void *old,
                   uint64_t lock_cookie, uint64_t lock_addr, uint64_t lock_val)
{
    struct ofi_tp *t = tpv;
    if (t->lost[peer])
        return -EPIPE;
    size_t tsz = skf_acc_type_size(type), ob = tsz * count;
    struct ofi_op *o = op_new(0);
    void *ans = o ? malloc(sizeof(struct svc_ans) + ob) : NULL;
    if (!ans) {
        free(o);
        return -ENOMEM;
    }
    skf_get_op_t sync = {.id = 1, .write = 1, .state = SKF_GET_OP_QUEUED};
    o->op = &sync;
    o->ans_buf = ans;
    o->acc_old = old;
    o->acc_old_len = old ? ob : 0;
    o->req = (struct svc_req){.type = REQ_ACC, .cookie = key->cookie, .addr = addr, .len = ob,
                              .has_operand = operand != NULL,
                              .acc_op = op, .acc_type = type, .has_compare = compare != NULL,
                              .want_old = old != NULL, .count = count, .lock_cookie = lock_cookie,
                              .lock_addr = lock_addr, .lock_val = lock_val};
    int rc = op_post(t, peer, o, ans, sizeof(struct svc_ans) + ob, operand, operand ? ob : 0,
                     compare, compare ? tsz : 0);
    if (rc) {
        free(ans);
        free(o);
        return rc;
    }
    return op_wait(t, &sync);
}

static void ofi_poll(void *tpv) { progress(tpv); }

/* ---- open / close -------------------------------------------------------------------- */

static int exchange(struct ofi_tp *t)
{
    struct ofi_engine *e = t->e;
    uint8_t name[2][256];
    size_t nl[2] = {sizeof name[0], sizeof name[1]};
    int rc;
    if ((rc = fi_getname(&e->svc_ep->fid, name[0], &nl[0])) ||
        (rc = fi_getname(&t->ep->fid, name[1], &nl[1])))
        return fail("fi_getname", rc);
    char key[BOOT_KEY_MAX], val[BOOT_VAL_MAX];
    if (2 * (nl[0] + nl[1]) + 2 > sizeof val)
        return -ENAMETOOLONG;
    snprintf(key, sizeof key, "skf-ofi-%u-%d", t->seq, t->me);
    to_hex(name[0], nl[0], val);
    val[2 * nl[0]] = ' ';
    to_hex(name[1], nl[1], val + 2 * nl[0] + 1);
    if ((rc = boot_put(key, val)) || (rc = boot_fence()))
        return rc;
    for (int r = 0; r < t->size; r++) {
        snprintf(key, sizeof key, "skf-ofi-%u-%d", t->seq, r);
        if ((rc = boot_get(key, val, sizeof val))) {
            skf_error("ofi: rank %d: no endpoint address published by rank %d", t->me, r);
            return rc;
        }
        char *sp = strchr(val, ' ');
        if (!sp)
            return -EPROTO;
        *sp = 0;
        if (!from_hex(val, name[0], sizeof name[0]) || !from_hex(sp + 1, name[1], sizeof name[1]))
            return -EPROTO;
        if (LK(fi_av_insert(e->av, name[1], 1, &t->addr[r], 0, NULL)) != 1)
            return fail("fi_av_insert", -FI_EINVAL);
        if (!e->svc_known && LK(fi_av_insert(e->av, name[0], 1, &e->svc_addr[r], 0, NULL)) != 1)
            return fail("fi_av_insert", -FI_EINVAL);
    }
    e->svc_known = 1;
    return 0;
}

static void tp_free(struct ofi_tp *t)
{
    pthread_mutex_lock(&fi_mu);
    if (t->ep)
        fi_close(&t->ep->fid);
    if (t->cq)
        fi_close(&t->cq->fid);
    pthread_mutex_unlock(&fi_mu);
    free(t->addr);
    free(t->lost);
    free(t->credits);
    free(t->owed);
    free(t->reqs_busy);
    free(t->rx_mem);
    free(t->tx_mem);
    free(t);
}

static void engine_put(void)
{
    if (engine && --engine->refs == 0) {
        engine_free(engine);
        engine = NULL;
    }
}

static int ofi_chan_open(skf_chan_t *ch, int *peer_id, void **tpp)
{
    skf_ctx_t *ctx = ch->ctx;
    int rc = 0;
    if (!engine && (rc = engine_new(ctx, &engine)))
        return rc;
    engine->refs++;
    struct ofi_tp *t = calloc(1, sizeof *t);
    if (!t) {
        engine_put();
        return -ENOMEM;
    }
    t->e = engine;
    t->ctx = ctx;
    t->seq = ctx->chan_opens;
    t->me = ctx->rank;
    t->size = ctx->size;
    t->out = -1;
    t->lost_rank = -1;
    t->inject = engine->info->tx_attr->inject_size;
    if (t->inject > OFI_HDR + 512)
        t->inject = OFI_HDR + 512;
    t->addr = calloc((size_t)t->size, sizeof *t->addr);
    t->lost = calloc((size_t)t->size, 1);
    t->credits = malloc((size_t)t->size * sizeof *t->credits);
    t->owed = calloc((size_t)t->size, sizeof *t->owed);
    t->reqs_busy = calloc((size_t)t->size, sizeof *t->reqs_busy);
    for (int r = 0; t->credits && r < t->size; r++)
        t->credits[r] = OFI_CREDITS;
    t->rx_mem = aligned_alloc(64, OFI_NRX * ((OFI_RXSZ + 63) & ~(size_t)63));
    t->tx_mem = aligned_alloc(64, OFI_NTX * ((OFI_RXSZ + 63) & ~(size_t)63));
    if (!t->addr || !t->lost || !t->credits || !t->owed || !t->reqs_busy || !t->rx_mem || !t->tx_mem)
        rc = -ENOMEM;
    else
        rc = open_ep(engine, &t->ep, &t->cq, &t->cq_waits, ctx->oversubscribed ||
                     skf_param_ll("SKIFF_OFI_CQ_FD") > 0);
    if (!rc)
        rc = exchange(t);
    if (rc) {
        tp_free(t);
        engine_put();
        return rc;
    }
    size_t stride = (OFI_RXSZ + 63) & ~(size_t)63;
    for (int i = 0; i < OFI_NRX; i++) {
        t->rx[i] = (struct ofi_rx){.c.kind = K_RX, .buf = t->rx_mem + (size_t)i * stride};
        post_rx(t, &t->rx[i]);
    }
    for (int i = OFI_NTX - 1; i >= 0; i--) {
        t->tx[i] = (struct ofi_tx){.c.kind = K_TX, .buf = t->tx_mem + (size_t)i * stride,
                                   .next_free = t->free_tx};
        t->free_tx = &t->tx[i];
    }
    const boot_info_t *b = ctx->boot;
    int all = strcmp(skf_param_str("SKIFF_TRANSPORTS"), "ofi") == 0;
    for (int r = 0; r < t->size; r++)
        peer_id[r] = all || b->node_of_rank[r] != b->node_of_rank[t->me] ? r : -1;
    pthread_mutex_lock(&engine->lock);
    t->next = engine->tps;
    engine->tps = t;
    pthread_mutex_unlock(&engine->lock);
    pthread_mutex_lock(&ctx->mr_lock);
    int exposed = ctx->nmrs > 0;
    pthread_mutex_unlock(&ctx->mr_lock);
    if (exposed)
        svc_thread_start(engine);
    *tpp = t;
    return 0;
}

static int ofi_chan_close(void *tpv)
{
    struct ofi_tp *t = tpv;
    /* my messages and requests leave before the endpoint does */
    long long end = skf_now_ms() + 10000;
    while ((t->tx_busy || t->ops_busy) && skf_now_ms() < end)
        if (!progress(t))
            nap();
    boot_fence(); /* nobody sends to this endpoint any more */
    pthread_mutex_lock(&t->e->lock);
    for (struct ofi_tp **p = &t->e->tps; *p; p = &(*p)->next)
        if (*p == t) {
            *p = t->next;
            break;
        }
    pthread_mutex_unlock(&t->e->lock);
    if (t->tx_busy || t->ops_busy) {
        /* the provider still holds sends or answer receives in our buffers:
         * close the endpoint but leave the buffers to it (never freed under it) */
        skf_error("ofi: rank %d: closing with %d sends and %d one-sided operations unfinished "
                  "after 10 s; their buffers are not freed", t->me, t->tx_busy, t->ops_busy);
        t->rx_mem = t->tx_mem = NULL;
    }
    tp_free(t);
    engine_put();
    return 0;
}

const char *skf_ofi_provider(void) { return engine ? engine->info->fabric_attr->prov_name : NULL; }

const struct skf_transport_ops skf_ofi_ops = {
    .name = "ofi",
    .chan_open = ofi_chan_open,
    .chan_close = ofi_chan_close,
    .max_msg = ofi_max_msg,
    .send = ofi_send,
    .recv = ofi_recv,
    .recv_done = ofi_recv_done,
    .ready = ofi_ready,
    .wait = ofi_wait,
    .kick = ofi_kick,
    .rma = ofi_rma,
    .rma_start = ofi_rma_start,
    .atomic = ofi_atomic,
    .atomic_start = ofi_atomic_start,
    .acc = ofi_acc,
    .lost_peer = ofi_lost_peer,
    .poll = ofi_poll,
    .polled = 1, /* manual progress (tcp;ofi_rxm, verbs;ofi_rxm ...): ofi_wait polls too */
};
