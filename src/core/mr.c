/*
 * mr — one-sided bulk transfers: exposed memory regions, skf_get/skf_put.
 *
 * On one node the bytes move by CMA (process_vm_readv/writev: one copy, no
 * help from the owner).  CMA is probed once at start-up with a real read of a
 * peer's memory; when the kernel forbids it (or SKIFF_CMA=0) the transfer
 * runs as a copy pipeline through the rings of SKF_PORT_INTERNAL: requests and
 * data chunks that the owner answers whenever it is inside Skiff (skf_recv,
 * skf_wait or skf_send on any channel) — the fallback server.
 *
 * skf_atomic: the owner executes every atomic with the __atomic builtins
 * (skf_atomic_exec): in place when I own the word, through the tcp
 * transport's request, or — same node over shm, where CMA cannot help — as
 * a request of the fallback protocol, which every rank with memory exposed
 * and node mates then serves.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/config.h"
#include "core/core.h"


/* ---- fallback protocol ----------------------------------------------------- */

enum fb_op {
    FB_GET_REQ = 1, FB_GET_DATA, FB_PUT_DATA, FB_PUT_DONE, FB_PUT_ACK, FB_ERR,
    FB_ATOMIC_REQ,  /* answered by ATOMIC_RESP (the old value) or ERR */
    FB_ATOMIC_RESP
};

/* Header of every SKF_PORT_INTERNAL message of the fallback; data follows. */
struct fb_hdr {
    uint32_t op;
    uint32_t id;     /* requester's operation number */
    uint64_t cookie; /* exposure the request is about */
    uint64_t addr;   /* owner's address of this chunk (GET_REQ: of the range) */
    uint64_t len;    /* GET_REQ: bytes wanted */
    uint64_t off;    /* offset of this chunk in the operation */
    int64_t status;  /* FB_ERR / FB_PUT_ACK: 0 or -errno */
    /* atomics travel whole in the header (a cut send can never split them) */
    uint32_t aop, size; /* ATOMIC_REQ: enum skf_aop, 4 or 8 */
    uint64_t value;     /* ATOMIC_REQ: the operand; ATOMIC_RESP: the old value */
    uint64_t compare;   /* ATOMIC_REQ: CSWAP's comparand */
};

/* A GET the owner is still streaming back, or an answer not yet sent. */
struct fb_job {
    struct fb_job *next;
    int dst;
    struct fb_hdr h; /* op is what to send next */
    uint64_t sent;
};

/* The requester's single outstanding operation (skf_get/put block). */
struct skf_fallback {
    struct fb_job *jobs;
    uint32_t next_id;
    uint32_t cur_id;
    uint8_t *get_dst;
    uint64_t got, want;
    int done;
    int64_t status;
    uint64_t old; /* an atomic's answer */
};

/* ---- regions ------------------------------------------------------------------ */

static struct skf_mr_entry *find_mr(skf_ctx_t *ctx, uint64_t cookie)
{
    for (int i = 0; i < ctx->nmrs; i++)
        if (ctx->mrs[i].cookie == cookie)
            return &ctx->mrs[i];
    return NULL;
}

int skf_mr_range_ok_locked(skf_ctx_t *ctx, uint64_t cookie, uint64_t addr, uint64_t len)
{
    const struct skf_mr_entry *m = find_mr(ctx, cookie);
    return m && addr >= m->base && len <= m->len && addr - m->base <= m->len - len;
}

/* Is [addr, addr+len) inside an exposure named by cookie? */
int skf_mr_range_ok(skf_ctx_t *ctx, uint64_t cookie, uint64_t addr, uint64_t len)
{
    pthread_mutex_lock(&ctx->mr_lock);
    int ok = skf_mr_range_ok_locked(ctx, cookie, addr, len);
    pthread_mutex_unlock(&ctx->mr_lock);
    return ok;
}

int skf_mr_expose(skf_ctx_t *ctx, void *base, size_t len, skf_mr_key_t *key)
{
    if (!ctx || !key || (!base && len)) {
        skf_error("skf_mr_expose: invalid arguments (ctx %p, base %p, len %zu, key %p)",
                  (void *)ctx, base, len, (void *)key);
        return -EINVAL;
    }
    pthread_mutex_lock(&ctx->mr_lock);
    if (ctx->nmrs == ctx->mrs_cap) {
        int cap = ctx->mrs_cap ? 2 * ctx->mrs_cap : 16;
        struct skf_mr_entry *m = realloc(ctx->mrs, (size_t)cap * sizeof *m);
        if (!m) {
            pthread_mutex_unlock(&ctx->mr_lock);
            return -ENOMEM;
        }
        ctx->mrs = m;
        ctx->mrs_cap = cap;
    }
    uint64_t cookie = ctx->mr_next_cookie++;
    ctx->mrs[ctx->nmrs++] = (struct skf_mr_entry){(uint64_t)(uintptr_t)base, len, cookie};
    ctx->fb_serve = ctx->fallback_needed || ctx->boot->local_size > 1;
    pthread_mutex_unlock(&ctx->mr_lock);
    *key = (skf_mr_key_t){(uint64_t)(uintptr_t)base, len, ctx->rank, (int32_t)getpid(), cookie};
    if (ctx->mr_notify)
        ctx->mr_notify(ctx->mr_notify_arg, 0, key->base, len, cookie);
    return 0;
}

int skf_mr_release(skf_ctx_t *ctx, const skf_mr_key_t *key)
{
    struct skf_mr_entry *m = NULL;
    if (ctx && key && key->owner == ctx->rank) {
        if (ctx->mr_notify) /* no network read starts on it from now on */
            ctx->mr_notify(ctx->mr_notify_arg, 1, key->base, key->len, key->cookie);
        pthread_mutex_lock(&ctx->mr_lock);
        m = find_mr(ctx, key->cookie);
        if (m) {
            *m = ctx->mrs[--ctx->nmrs];
            ctx->fb_serve = ctx->fallback_needed || (ctx->nmrs && ctx->boot->local_size > 1);
        }
        pthread_mutex_unlock(&ctx->mr_lock);
    }
    if (!m) {
        skf_error("skf_mr_release: not a region this process exposed (owner %d, cookie %llx)",
                  key ? key->owner : -1, key ? (unsigned long long)key->cookie : 0ull);
        return -EINVAL;
    }
    return 0;
}

/* ---- CMA ----------------------------------------------------------------------- */

/* One process_vm_readv/writev loop: 0, or -errno of the first failure. */
static int cma_copy(pid_t pid, int write, void *local, uint64_t remote, size_t len)
{
    while (len) {
        struct iovec l = {local, len}, r = {(void *)(uintptr_t)remote, len};
        ssize_t n = write ? process_vm_writev(pid, &l, 1, &r, 1, 0)
                          : process_vm_readv(pid, &l, 1, &r, 1, 0);
        if (n < 0) {
            if (errno == EINTR) /* interrupted before copying anything: try again */
                continue;
            return -errno;
        }
        if (n == 0)
            return -EFAULT;
        local = (uint8_t *)local + n;
        remote += (uint64_t)n;
        len -= (size_t)n;
    }
    return 0;
}

static int probe_peer(pid_t pid, uint64_t addr)
{
    uint64_t v = 0;
    int rc = cma_copy(pid, 0, &v, addr, sizeof v);
    return rc ? rc : (v == SKF_CMA_PROBE_MAGIC ? 0 : -EIO);
}

/* Alone on the node: a forked child reads its parent, as a sibling rank would. */
static int probe_alone(skf_ctx_t *ctx)
{
    pid_t parent = getpid(), child = fork();
    if (child < 0)
        return -errno;
    if (child == 0)
        _exit(probe_peer(parent, (uint64_t)(uintptr_t)&ctx->cma_probe_word) ? 1 : 0);
    int st;
    while (waitpid(child, &st, 0) < 0)
        if (errno != EINTR)
            return -errno;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EPERM;
}

int skf_mr_init(skf_ctx_t *ctx)
{
    const boot_info_t *b = ctx->boot;
    char key[BOOT_KEY_MAX], val[BOOT_VAL_MAX];
    int rc;
    ctx->fb = calloc(1, sizeof *ctx->fb);
    if (!ctx->fb)
        return -ENOMEM;
    pthread_mutex_init(&ctx->mr_lock, NULL);
    if (getrandom(&ctx->mr_next_cookie, sizeof ctx->mr_next_cookie, 0) < 0)
        ctx->mr_next_cookie = (uint64_t)getpid() << 32;
    ctx->cma_forced_off = skf_param_ll("SKIFF_CMA") == 0;
    if (ctx->cma_forced_off)
        ctx->cma_usable = 0;
    else if (b->local_size == 1)
        ctx->cma_usable = probe_alone(ctx) == 0;
    else { /* read the next rank on my node */
        int l = (b->local_rank + 1) % b->local_size;
        snprintf(key, sizeof key, "skf-pid-%d", b->local_ranks[l]);
        unsigned long long addr = 0;
        int pid = 0;
        if (boot_get(key, val, sizeof val) == 0 && sscanf(val, "%d %llu", &pid, &addr) == 2)
            ctx->cma_usable = probe_peer(pid, addr) == 0;
    }
    /* Everybody on the node must know whether somebody needs the fallback
     * server (then every rank serves it) and whether everybody can take part
     * in the membarrier protocol of the shm doorbells (then senders need no
     * fence).  One key carries both: "<cma> <membarrier>". */
    int mb = skf_membarrier_register(ctx);
    snprintf(key, sizeof key, "skf-cap-%d", ctx->rank);
    snprintf(val, sizeof val, "%d %d", ctx->cma_usable, mb);
    if ((rc = boot_put(key, val)) || (rc = boot_fence()))
        return rc;
    ctx->asym_fence = 1;
    for (int l = 0; l < b->local_size; l++) {
        snprintf(key, sizeof key, "skf-cap-%d", b->local_ranks[l]);
        if ((rc = boot_get(key, val, sizeof val)))
            return rc;
        if (val[0] != '1')
            ctx->fallback_needed = 1;
        if (strcmp(val + 1, " 1") != 0)
            ctx->asym_fence = 0;
    }
    ctx->fb_serve = ctx->fallback_needed;
    ctx->fb_every = ctx->fallback_needed ? 1 : 16;
    return 0;
}

void skf_mr_fini(skf_ctx_t *ctx)
{
    if (!ctx->fb)
        return;
    while (ctx->fb->jobs) {
        struct fb_job *j = ctx->fb->jobs;
        ctx->fb->jobs = j->next;
        free(j);
    }
    free(ctx->fb);
    ctx->fb = NULL;
    pthread_mutex_destroy(&ctx->mr_lock);
}

/* ---- fallback: owner side -------------------------------------------------------- */

static ssize_t fb_send(skf_ctx_t *ctx, int dst, const struct fb_hdr *h, const void *data,
                       size_t len)
{
    struct iovec iov[2] = {{(void *)h, sizeof *h}, {(void *)data, len}};
    skf_chan_t *ch = ctx->internal;
    ssize_t n = skf_send(ch, skf_addr(ctx, dst, SKF_PORT_INTERNAL), iov, len ? 2 : 1);
    if (n >= 0 && (size_t)n < sizeof *h)
        return -EPROTO; /* never happens: a ring line holds more than a header */
    return n < 0 ? n : n - (ssize_t)sizeof *h;
}

static size_t fb_chunk(skf_ctx_t *ctx, int dst)
{
    return skf_max_msg(ctx->internal, skf_addr(ctx, dst, SKF_PORT_INTERNAL)) - sizeof(struct fb_hdr);
}

/* Push a job as far as the ring lets it; 1 when finished. */
static int run_job(skf_ctx_t *ctx, struct fb_job *j)
{
    if (j->h.op != FB_GET_DATA)
        return fb_send(ctx, j->dst, &j->h, NULL, 0) >= 0;
    while (j->sent < j->h.len) {
        struct fb_hdr h = j->h;
        size_t chunk = fb_chunk(ctx, j->dst);
        uint64_t left = j->h.len - j->sent;
        h.off = j->sent;
        ssize_t n = fb_send(ctx, j->dst, &h, (const void *)(uintptr_t)(j->h.addr + j->sent),
                            left < chunk ? left : chunk);
        if (n < 0)
            return 0;
        j->sent += (uint64_t)n;
    }
    return 1;
}

static void add_job(skf_ctx_t *ctx, int dst, const struct fb_hdr *h)
{
    struct fb_job *j = calloc(1, sizeof *j);
    if (!j) {
        skf_error("fallback server: out of memory; rank %d's request %u is dropped", dst, h->id);
        return;
    }
    j->dst = dst;
    j->h = *h;
    j->next = ctx->fb->jobs;
    ctx->fb->jobs = j;
}

static void reply(skf_ctx_t *ctx, int dst, uint32_t op, uint32_t id, int64_t status)
{
    struct fb_hdr h = {.op = op, .id = id, .status = status};
    if (fb_send(ctx, dst, &h, NULL, 0) < 0)
        add_job(ctx, dst, &h);
}

/* The first n bytes of a received message (it may be split by the ring's end). */
static void gather_head(const struct iovec *cont, int ncont, void *out, size_t n)
{
    size_t got = 0;
    for (int i = 0; i < ncont && got < n; i++) {
        size_t c = cont[i].iov_len < n - got ? cont[i].iov_len : n - got;
        memcpy((uint8_t *)out + got, cont[i].iov_base, c);
        got += c;
    }
}

/* Owner: execute an atomic request and answer it (the old value, or the error). */
static void serve_atomic(skf_ctx_t *ctx, int src, const struct fb_hdr *h)
{
    uint64_t old = 0;
    int rc = skf_atomic_exec(ctx, h->cookie, h->addr, (int)h->aop, (int)h->size, h->value,
                             h->compare, &old);
    struct fb_hdr r = {.op = rc ? FB_ERR : FB_ATOMIC_RESP, .id = h->id, .status = rc, .value = old};
    if (fb_send(ctx, src, &r, NULL, 0) < 0)
        add_job(ctx, src, &r);
}

/* One message of the internal port, owner or requester side. */
static void handle(skf_ctx_t *ctx, int src, const struct fb_hdr *h, const struct iovec *cont,
                   int ncont, size_t hdr_in_first)
{
    struct skf_fallback *fb = ctx->fb;
    size_t dlen = 0;
    for (int i = 0; i < ncont; i++)
        dlen += cont[i].iov_len;
    dlen -= sizeof *h;
    switch (h->op) {
    case FB_GET_REQ:
        if (!skf_mr_range_ok(ctx, h->cookie, h->addr, h->len)) {
            reply(ctx, src, FB_ERR, h->id, -EINVAL);
            return;
        }
        struct fb_hdr g = *h;
        g.op = FB_GET_DATA;
        add_job(ctx, src, &g);
        return;
    case FB_PUT_DATA: {
        if (!skf_mr_range_ok(ctx, h->cookie, h->addr, dlen)) {
            reply(ctx, src, FB_ERR, h->id, -EINVAL);
            return;
        }
        uint8_t *to = (uint8_t *)(uintptr_t)h->addr;
        size_t skip = hdr_in_first; /* data starts after the header */
        for (int i = 0; i < ncont; i++) {
            size_t n = cont[i].iov_len, s = skip < n ? skip : n;
            memcpy(to, (const uint8_t *)cont[i].iov_base + s, n - s);
            to += n - s;
            skip -= s;
        }
        return;
    }
    case FB_PUT_DONE: /* after all the data, thanks to per-sender order */
        reply(ctx, src, FB_PUT_ACK, h->id, 0);
        return;
    case FB_ATOMIC_REQ:
        serve_atomic(ctx, src, h);
        return;
    case FB_GET_DATA:
        if (h->id == fb->cur_id && !fb->done && h->off + dlen <= fb->want) {
            uint8_t *to = fb->get_dst + h->off;
            size_t skip = hdr_in_first;
            for (int i = 0; i < ncont; i++) {
                size_t n = cont[i].iov_len, s = skip < n ? skip : n;
                memcpy(to, (const uint8_t *)cont[i].iov_base + s, n - s);
                to += n - s;
                skip -= s;
            }
            fb->got += dlen;
            if (fb->got == fb->want)
                fb->done = 1;
        }
        return;
    case FB_ATOMIC_RESP:
    case FB_PUT_ACK:
    case FB_ERR:
        if (h->id == fb->cur_id && !fb->done) {
            fb->done = 1;
            fb->status = h->status;
            fb->old = h->value;
        }
        return;
    default:
        skf_error("fallback: unknown message %u from rank %d dropped", h->op, src);
    }
}

void skf_fallback_progress(skf_ctx_t *ctx)
{
    skf_chan_t *ch = ctx->internal;
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    for (int budget = 64; budget > 0; budget--) {
        ssize_t n = skf_recv(ch, cont, &ncont, &src);
        if (n < 0)
            break;
        struct fb_hdr h;
        if ((size_t)n >= sizeof h) { /* the header may itself be split by the ring's end */
            gather_head(cont, ncont, &h, sizeof h);
            handle(ctx, skf_addr_rank(src), &h, cont, ncont, sizeof h);
        }
        skf_recv_done(ch);
    }
    for (struct fb_job **p = &ctx->fb->jobs; *p;) {
        struct fb_job *j = *p;
        if (run_job(ctx, j)) {
            *p = j->next;
            free(j);
        } else
            p = &j->next;
    }
}

/* ---- fallback: requester side --------------------------------------------------- */

/* While I wait for a node mate, the other transports of my channels keep
 * moving: a peer on another node dialling me gives up after
 * SKIFF_TCP_TIMEOUT, and a run of same-node ops may last longer. */
static void poll_channels(skf_ctx_t *ctx)
{
    for (skf_chan_t *c = ctx->open_chans; c; c = c->next_open)
        for (int i = 0; i < c->ntp; i++)
            if (c->tops[i]->poll)
                c->tops[i]->poll(c->tp[i]);
}

/* Progress until my operation completes or the owner is gone. */
static int fb_finish(skf_ctx_t *ctx, int owner)
{
    struct skf_fallback *fb = ctx->fb;
    int local = ctx->local_of_rank[owner];
    while (!fb->done) {
        skf_fallback_progress(ctx);
        if (fb->done)
            break;
        poll_channels(ctx);
        int r = skf_wait(ctx->internal, SKF_READABLE, 100);
        if (r < 0 || (r == 0 && local >= 0 && skf_local_dead(ctx, local)))
            return -EPIPE;
    }
    return (int)fb->status;
}

/* Send request h (one header) and wait for its answer. */
static int fb_request(skf_ctx_t *ctx, const skf_mr_key_t *key, struct fb_hdr *h)
{
    struct skf_fallback *fb = ctx->fb;
    h->id = ++fb->next_id;
    fb->cur_id = h->id;
    fb->done = 0;
    fb->status = 0;
    while (fb_send(ctx, key->owner, h, NULL, 0) < 0) {
        skf_fallback_progress(ctx);
        if (skf_wait(ctx->internal, SKF_WRITABLE, 100) < 0)
            return -EPIPE;
    }
    return fb_finish(ctx, key->owner);
}

static int fb_get(skf_ctx_t *ctx, const skf_mr_key_t *key, uint64_t addr, void *dst, size_t len)
{
    struct skf_fallback *fb = ctx->fb;
    struct fb_hdr h = {.op = FB_GET_REQ, .cookie = key->cookie, .addr = addr, .len = len};
    if (len == 0)
        return 0;
    fb->get_dst = dst;
    fb->got = 0;
    fb->want = len;
    return fb_request(ctx, key, &h);
}

static int fb_atomic(skf_ctx_t *ctx, const skf_mr_key_t *key, uint64_t addr, int op, int size,
                     uint64_t operand, uint64_t compare, uint64_t *old)
{
    struct fb_hdr h = {.op = FB_ATOMIC_REQ, .cookie = key->cookie, .addr = addr,
                       .aop = (uint32_t)op, .size = (uint32_t)size, .value = operand,
                       .compare = compare};
    int rc = fb_request(ctx, key, &h);
    *old = ctx->fb->old;
    return rc;
}

static int fb_put(skf_ctx_t *ctx, const skf_mr_key_t *key, uint64_t addr, const void *src,
                  size_t len)
{
    struct skf_fallback *fb = ctx->fb;
    struct fb_hdr h = {.op = FB_PUT_DATA, .id = ++fb->next_id, .cookie = key->cookie};
    uint64_t sent = 0;
    fb->cur_id = h.id;
    fb->done = 0;
    fb->status = 0;
    while (!fb->done) { /* data chunks (the ring may take less), then DONE */
        size_t chunk = fb_chunk(ctx, key->owner);
        uint64_t left = len - sent;
        h.op = left ? FB_PUT_DATA : FB_PUT_DONE;
        h.addr = addr + sent;
        h.off = sent;
        ssize_t n = fb_send(ctx, key->owner, &h, (const uint8_t *)src + sent,
                            left < chunk ? left : chunk);
        if (n >= 0 && !left)
            break;
        if (n >= 0) {
            sent += (uint64_t)n;
            continue;
        }
        skf_fallback_progress(ctx);
        if (skf_wait(ctx->internal, SKF_WRITABLE, 100) < 0)
            return -EPIPE;
    }
    return fb_finish(ctx, key->owner);
}

/* ---- get / put ------------------------------------------------------------------ */

static int check_rma(skf_chan_t *ch, const char *call, const skf_mr_key_t *key, size_t off,
                     const void *buf, size_t len)
{
    if (!ch || !key || (!buf && len)) {
        skf_error("%s: invalid arguments (channel %p, key %p, buffer %p)", call, (void *)ch,
                  (const void *)key, buf);
        return -EINVAL;
    }
    if (key->owner < 0 || key->owner >= ch->ctx->size || off > key->len || len > key->len - off) {
        skf_error("%s: range [%zu, +%zu) outside the region of %llu bytes owned by rank %d", call,
                  off, len, (unsigned long long)key->len, key->owner);
        return -EINVAL;
    }
    return 0;
}

static int rma(skf_chan_t *ch, const char *call, int write, const skf_mr_key_t *key, size_t off,
               void *buf, size_t len)
{
    int rc = check_rma(ch, call, key, off, buf, len);
    if (rc)
        return rc;
    skf_ctx_t *ctx = ch->ctx;
    uint64_t addr = key->base + off;
    if (key->owner == ctx->rank) {
        if (!skf_mr_range_ok(ctx, key->cookie, addr, len)) {
            skf_error("%s: key names no region exposed by this process", call);
            return -EINVAL;
        }
        if (write)
            memcpy((void *)(uintptr_t)addr, buf, len);
        else
            memcpy(buf, (const void *)(uintptr_t)addr, len);
        return 0;
    }
    const struct skf_peer *via = &ch->peer[key->owner];
    if (via->ops && via->ops->rma) /* a remote transport moves it (tcp: request/response) */
        return via->ops->rma(via->tp, via->id, write, key, addr, buf, len);
    int local = ctx->local_of_rank[key->owner];
    if (local < 0) {
        skf_error("%s: rank %d is on another node; no transport for remote one-sided yet", call,
                  key->owner);
        return -EHOSTUNREACH;
    }
    if (ctx->cma_usable) {
        rc = cma_copy(key->pid, write, buf, addr, len);
        if (rc == 0)
            return 0;
        if (rc == -ESRCH)
            return -EPIPE;
        if (rc != -EPERM && rc != -ENOSYS) {
            skf_error("%s: %s of %zu bytes at rank %d's %#llx: %s", call,
                      write ? "process_vm_writev" : "process_vm_readv", len, key->owner,
                      (unsigned long long)addr, strerror(-rc));
            return rc;
        }
        ctx->cma_usable = 0; /* forbidden after all: the peers serve the fallback */
        skf_verbose(ctx, "rank %d: CMA refused (%s); using the copy pipeline", ctx->rank,
                    strerror(-rc));
        if (!ctx->fallback_needed) {
            skf_error("%s: CMA refused at run time and the node's ranks do not serve the "
                      "fallback (start with SKIFF_CMA=0)", call);
            return rc;
        }
    }
    return write ? fb_put(ctx, key, addr, buf, len) : fb_get(ctx, key, addr, buf, len);
}

int skf_get(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, void *dst, size_t len)
{
    return rma(ch, "skf_get", 0, key, off, dst, len);
}

int skf_put(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, const void *src, size_t len)
{
    return rma(ch, "skf_put", 1, key, off, (void *)src, len);
}

/* ---- atomics -------------------------------------------------------------------- */

/* The read-modify-write of one word of type T (S: its signed twin), seq_cst;
 * returns the value before.  MIN/MAX and their unsigned kin are a CAS loop. */
#define DEFINE_AOP(name, T, S)                                                                     \
    static T name(T *p, int op, T v, T cmp)                                                         \
    {                                                                                              \
        switch (op) {                                                                              \
        case SKF_AOP_FETCH:                                                                        \
            return __atomic_load_n(p, __ATOMIC_SEQ_CST);                                           \
        case SKF_AOP_SET:                                                                          \
        case SKF_AOP_SWAP:                                                                         \
            return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                    \
        case SKF_AOP_CSWAP:                                                                        \
            __atomic_compare_exchange_n(p, &cmp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);        \
            return cmp; /* the value found, whether it matched or not */                          \
        case SKF_AOP_ADD:                                                                          \
            return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);                                     \
        case SKF_AOP_AND:                                                                          \
            return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);                                     \
        case SKF_AOP_OR:                                                                           \
            return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);                                      \
        case SKF_AOP_XOR:                                                                          \
            return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);                                     \
        }                                                                                          \
        T cur = __atomic_load_n(p, __ATOMIC_SEQ_CST), next;                                        \
        do {                                                                                       \
            int take = op == SKF_AOP_MIN    ? (S)v < (S)cur                                        \
                       : op == SKF_AOP_MAX  ? (S)v > (S)cur                                        \
                       : op == SKF_AOP_UMIN ? v < cur                                              \
                                            : v > cur;                                             \
            next = take ? v : cur;                                                                 \
        } while (!__atomic_compare_exchange_n(p, &cur, next, 0, __ATOMIC_SEQ_CST,                  \
                                              __ATOMIC_SEQ_CST));                                  \
        return cur;                                                                                \
    }
DEFINE_AOP(aop32, uint32_t, int32_t)
DEFINE_AOP(aop64, uint64_t, int64_t)

uint64_t skf_aop_word(void *p, int op, int size, uint64_t operand, uint64_t compare)
{
    return size == 4 ? aop32(p, op, (uint32_t)operand, (uint32_t)compare)
                     : aop64(p, op, operand, compare);
}

static int aop_valid(int op, int size)
{
    return op >= SKF_AOP_FETCH && op <= SKF_AOP_UMAX && (size == 4 || size == 8);
}

int skf_atomic_exec(skf_ctx_t *ctx, uint64_t cookie, uint64_t addr, int op, int size,
                    uint64_t operand, uint64_t compare, uint64_t *old)
{
    if (!aop_valid(op, size) || addr % (uint64_t)size)
        return -EINVAL;
    pthread_mutex_lock(&ctx->mr_lock); /* the exposure stays while the word changes */
    int ok = skf_mr_range_ok_locked(ctx, cookie, addr, (uint64_t)size);
    if (ok && size == 4)
        *old = aop32((uint32_t *)(uintptr_t)addr, op, (uint32_t)operand, (uint32_t)compare);
    else if (ok)
        *old = aop64((uint64_t *)(uintptr_t)addr, op, operand, compare);
    pthread_mutex_unlock(&ctx->mr_lock);
    return ok ? 0 : -EINVAL;
}

/* skf_atomic's argument checks (call names the entry point): 0 or -EINVAL. */
static int check_atomic(skf_chan_t *ch, const char *call, const skf_mr_key_t *key, size_t off,
                        int op, int size)
{
    if (!ch || !key) {
        skf_error("%s: invalid arguments (channel %p, key %p)", call, (void *)ch,
                  (const void *)key);
        return -EINVAL;
    }
    skf_ctx_t *ctx = ch->ctx;
    if (!aop_valid(op, size)) {
        skf_error("%s: rank %d: op %d / size %d (ops %d..%d, sizes 4 and 8)", call, ctx->rank,
                  op, size, SKF_AOP_FETCH, SKF_AOP_UMAX);
        return -EINVAL;
    }
    const char *bad = key->owner < 0 || key->owner >= ctx->size                  ? "no such rank"
                      : off > key->len || (uint64_t)size > key->len - off      ? "outside the region"
                      : (key->base + off) % (uint64_t)size                      ? "not naturally aligned"
                                                                                : NULL;
    if (bad) {
        skf_error("%s: rank %d: %d bytes at offset %zu of the %llu-byte region of rank "
                  "%d (base %#llx): %s", call, ctx->rank, size, off, (unsigned long long)key->len,
                  key->owner, (unsigned long long)key->base, bad);
        return -EINVAL;
    }
    return 0;
}

int skf_atomic(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, int op, int size,
               uint64_t operand, uint64_t compare, uint64_t *old)
{
    uint64_t ignored;
    if (!old)
        old = &ignored;
    int rc = check_atomic(ch, "skf_atomic", key, off, op, size);
    if (rc)
        return rc;
    skf_ctx_t *ctx = ch->ctx;
    uint64_t addr = key->base + off;
    if (key->owner == ctx->rank) {
        if (ctx->fb_serve) /* a spin on my own word must not starve node mates' requests */
            skf_fallback_progress(ctx);
        rc = skf_atomic_exec(ctx, key->cookie, addr, op, size, operand, compare, old);
        if (rc)
            skf_error("skf_atomic: rank %d: key names no region exposed by this process (cookie "
                      "%llx)", ctx->rank, (unsigned long long)key->cookie);
        return rc;
    }
    const struct skf_peer *via = &ch->peer[key->owner];
    if (via->ops && via->ops->atomic) /* a remote transport asks the owner (tcp: a request) */
        return via->ops->atomic(via->tp, via->id, key, addr, op, size, operand, compare, old);
    if (ctx->local_of_rank[key->owner] < 0) {
        skf_error("skf_atomic: rank %d: rank %d is on another node and no transport reaches it",
                  ctx->rank, key->owner);
        return -EHOSTUNREACH;
    }
    return fb_atomic(ctx, key, addr, op, size, operand, compare, old);
}

int skf_atomic_start(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, int op, int size,
                     uint64_t operand, uint64_t compare, skf_atomic_op_t *a)
{
    if (!a) {
        skf_error("skf_atomic_start: invalid arguments (channel %p, key %p, op NULL)", (void *)ch,
                  (const void *)key);
        return -EINVAL;
    }
    int rc = check_atomic(ch, "skf_atomic_start", key, off, op, size);
    if (rc)
        return rc;
    *a = (skf_atomic_op_t){.op = {.async = 1}, .aop = (uint32_t)op, .size = (uint32_t)size,
                           .operand = operand, .compare = compare};
    const struct skf_peer *via = &ch->peer[key->owner];
    if (key->owner != ch->ctx->rank && via->ops && via->ops->atomic_start) {
        rc = via->ops->atomic_start(via->tp, via->id, key, key->base + off, a);
        return rc < 0 ? rc : 0;
    }
    rc = skf_atomic(ch, key, off, op, size, operand, compare, &a->old); /* here and now */
    a->op.state = SKF_GET_OP_DONE;
    a->op.status = rc;
    return rc < 0 ? rc : 1;
}

/* skf_get_start / skf_put_start: queued on a transport that has a queue
 * (tcp), else done here and now (CMA, my own memory, the copy pipeline). */
static int rma_start(skf_chan_t *ch, const char *call, int write, const skf_mr_key_t *key,
                     size_t off, void *buf, size_t len, skf_get_op_t *op, int held)
{
    if (!op) {
        skf_error("%s: invalid arguments (channel %p, key %p, op NULL)", call, (void *)ch,
                  (const void *)key);
        return -EINVAL;
    }
    int rc = check_rma(ch, call, key, off, buf, len);
    if (rc)
        return rc;
    *op = (skf_get_op_t){.async = held ? SKF_ASYNC_HELD : 1};
    const struct skf_peer *via = &ch->peer[key->owner];
    if (key->owner != ch->ctx->rank && via->ops && via->ops->rma_start) {
        rc = via->ops->rma_start(via->tp, via->id, write, key, key->base + off, buf, len, op);
        return rc < 0 ? rc : 0;
    }
    rc = rma(ch, call, write, key, off, buf, len);
    op->state = SKF_GET_OP_DONE;
    op->status = rc;
    return rc < 0 ? rc : 1;
}

int skf_get_start(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, void *dst, size_t len,
                  skf_get_op_t *op)
{
    return rma_start(ch, "skf_get_start", 0, key, off, dst, len, op, 0);
}

int skf_put_start(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, const void *src,
                  size_t len, skf_get_op_t *op)
{
    return rma_start(ch, "skf_put_start", 1, key, off, (void *)src, len, op, 0);
}

int skf_put_start_held(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, const void *src,
                       size_t len, skf_get_op_t *op)
{
    return rma_start(ch, "skf_put_start_held", 1, key, off, (void *)src, len, op, 1);
}

int skf_rma_push(skf_chan_t *ch)
{
    if (!ch) {
        skf_error("skf_rma_push: invalid arguments (channel NULL)");
        return -EINVAL;
    }
    int rc = 0;
    for (int i = 0; i < ch->ntp; i++)
        if (ch->tops[i]->push) {
            int r = ch->tops[i]->push(ch->tp[i]);
            if (r < 0)
                rc = r;
        }
    return rc;
}

int skf_get_test(skf_chan_t *ch, skf_get_op_t *op)
{
    if (!ch || !op || op->state == SKF_GET_OP_IDLE) {
        skf_error("skf_get_test: invalid arguments (channel %p, op %p%s)", (void *)ch, (void *)op,
                  op && op->state == SKF_GET_OP_IDLE ? ", never started" : "");
        return -EINVAL;
    }
    if (op->state != SKF_GET_OP_DONE)
        return 0;
    return op->status < 0 ? op->status : 1;
}

/* ---- vector get ------------------------------------------------------------------ */

/* A position inside an iovec list. */
struct iov_cursor {
    const struct iovec *v;
    int n, i;
    size_t at; /* bytes of v[i] already done */
};

static void cursor_skip_empty(struct iov_cursor *c)
{
    while (c->i < c->n && c->at == c->v[c->i].iov_len) {
        c->i++;
        c->at = 0;
    }
}

static void cursor_advance(struct iov_cursor *c, size_t len)
{
    while (len) {
        size_t left = c->v[c->i].iov_len - c->at;
        size_t k = len < left ? len : left;
        c->at += k;
        len -= k;
        cursor_skip_empty(c);
    }
    cursor_skip_empty(c);
}

/* Up to IOV_MAX pieces from the cursor on, the first one cut at its offset;
 * remote pieces are region offsets, turned into the owner's addresses. */
static int cursor_batch(const struct iov_cursor *c, struct iovec *out, uint64_t base)
{
    int k = 0;
    for (int i = c->i; i < c->n && k < IOV_MAX; i++) {
        size_t skip = i == c->i ? c->at : 0;
        if (c->v[i].iov_len == skip)
            continue;
        out[k].iov_base = (void *)((uintptr_t)c->v[i].iov_base + (uintptr_t)base + skip);
        out[k].iov_len = c->v[i].iov_len - skip;
        k++;
    }
    return k;
}

/* Scatter-gather read by process_vm_readv, IOV_MAX pieces a side per call;
 * a short read just moves both cursors on.  0 or -errno. */
static int cma_readv(pid_t pid, uint64_t base, struct iov_cursor *r, struct iov_cursor *l)
{
    struct iovec rv[IOV_MAX], lv[IOV_MAX];
    cursor_skip_empty(r);
    cursor_skip_empty(l);
    while (r->i < r->n && l->i < l->n) {
        int nr = cursor_batch(r, rv, base), nl = cursor_batch(l, lv, 0);
        ssize_t got = process_vm_readv(pid, lv, (unsigned long)nl, rv, (unsigned long)nr, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        if (got == 0)
            return -EFAULT;
        cursor_advance(r, (size_t)got);
        cursor_advance(l, (size_t)got);
    }
    return 0;
}

int skf_getv(skf_chan_t *ch, const skf_mr_key_t *key, const struct iovec *remote, int nremote,
             const struct iovec *local, int nlocal)
{
    if (!ch || !key || nremote < 0 || nlocal < 0 || (!remote && nremote) || (!local && nlocal)) {
        skf_error("skf_getv: invalid arguments (channel %p, key %p, remote %p x %d, local %p x %d)",
                  (void *)ch, (const void *)key, (const void *)remote, nremote,
                  (const void *)local, nlocal);
        return -EINVAL;
    }
    size_t rtotal = 0, ltotal = 0;
    for (int i = 0; i < nremote; i++) {
        size_t off = (size_t)(uintptr_t)remote[i].iov_base;
        int rc = check_rma(ch, "skf_getv", key, off, (void *)1, remote[i].iov_len);
        if (rc)
            return rc;
        rtotal += remote[i].iov_len;
    }
    for (int i = 0; i < nlocal; i++) {
        if (!local[i].iov_base && local[i].iov_len) {
            skf_error("skf_getv: local piece %d is NULL with %zu bytes", i, local[i].iov_len);
            return -EINVAL;
        }
        ltotal += local[i].iov_len;
    }
    if (rtotal != ltotal) {
        skf_error("skf_getv: remote pieces hold %zu bytes, local pieces %zu", rtotal, ltotal);
        return -EINVAL;
    }
    struct iov_cursor r = {remote, nremote, 0, 0}, l = {local, nlocal, 0, 0};
    skf_ctx_t *ctx = ch->ctx;
    const struct skf_peer *via = &ch->peer[key->owner];
    if (key->owner != ctx->rank && !(via->ops && via->ops->rma) &&
        ctx->local_of_rank[key->owner] >= 0 && ctx->cma_usable) {
        int rc = cma_readv(key->pid, key->base, &r, &l);
        if (rc == -ESRCH)
            return -EPIPE;
        if (rc != -EPERM && rc != -ENOSYS) {
            if (rc)
                skf_error("skf_getv: process_vm_readv of rank %d's region: %s", key->owner,
                          strerror(-rc));
            return rc;
        }
        /* refused: the rest goes piece by piece, where skf_get switches to the fallback */
    }
    /* every other path: one skf_get per stretch that is whole on both sides */
    cursor_skip_empty(&r);
    cursor_skip_empty(&l);
    while (r.i < r.n && l.i < l.n) {
        size_t rl = r.v[r.i].iov_len - r.at, ll = l.v[l.i].iov_len - l.at;
        size_t len = rl < ll ? rl : ll;
        int rc = rma(ch, "skf_getv", 0, key, (size_t)(uintptr_t)r.v[r.i].iov_base + r.at,
                     (char *)l.v[l.i].iov_base + l.at, len);
        if (rc)
            return rc;
        cursor_advance(&r, len);
        cursor_advance(&l, len);
    }
    return 0;
}
