/*
 * bridge.c — whole-message TCP links to processes of other jobs (bridge.h).
 *
 * Frames: 4-byte length (of what follows), 1 type byte, payload.  Types:
 * 'H' hello (the sender's endpoint: names the connection), 'M' a device
 * message, 'B' goodbye (the sender is finalizing: its end of file is normal).
 * I send to a peer only over the connection I made to it, and read only the
 * connections others made to me, so each direction is one ordered stream.
 * Sends never block the device: what the socket does not take waits in the
 * peer's output buffer and leaves in dyn_poll.
 * On one machine (same boot id at the end of the endpoints) the hello also
 * names a shared-memory ring (pair.h) that carries the messages of that
 * direction once the receiver mapped it; then 'K' (wake up: the receiver
 * slept, or the sender waits for room) and 'N' (the ring could not be
 * mapped: stay on TCP) are the only other frames besides goodbye.
 */
#include "dynproc/bridge.h"
#include "dynproc/pair.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "boot/boot.h"
#include "common/shm_name.h"
#include "core/config.h"
#include "core/relax.h"
#include "device/device.h"

int dyn_active;
int dyn_wakes;
int dyn_backlog;
int dyn_rings;

typedef struct peer {
    char ep[DYN_EP_LEN];
    int fd;          /* my connection to it, -1 until the first send */
    char *out;       /* bytes the socket has not taken yet */
    size_t off, len, cap;
    int bye;         /* it said goodbye */
    char *gone;      /* it ended without a goodbye: why (its operations fail) */
    pair_t tx, rx;   /* same node: the shared-memory rings to it and from it (pair.h) */
    uint64_t tcp_sent, tcp_recvd; /* messages over TCP (the rings' gates) */
    char *losing;    /* its connection ended but its ring still holds messages:
                      * why, for peer_lost once they are read */
} peer_t;

typedef struct conn { /* a connection another process made to me */
    int fd;
    int peer;         /* index in peers once its hello came, else -1 */
    int parked;       /* its hello (in buf) names no process I know yet: not read
                       * further until one joins under that name (dyn_peer) */
    unsigned char hdr[4];
    size_t hgot;
    char *buf;
    size_t need, got;
} conn_t;

typedef struct msg {
    struct msg *next;
    int world;
    size_t len;
    char data[];
} msg_t;

static int listen_fd = -1;
static char my_ep[DYN_EP_LEN];
static char my_job[SHM_TAG_HEX + 1]; /* the job's public tag in endpoints (never its key) */
static char my_boot[37]; /* this machine's boot id: peers with the same one share memory */
static size_t ring_bytes; /* of a pair ring; 0: TCP only */
static const char *no_ring; /* why not, when ring_bytes is 0 */
static int cur_rx = -1;    /* the message handed out is in peers[cur_rx].rx */
static int rx_next;        /* the peer whose ring dyn_recv looks at first */
static int nlosing;        /* peers with losing set */
static int my_rank;
static peer_t *peers;
static int npeers, peers_cap;
static conn_t *conns;
static int nconns, conns_cap;
static int nparked; /* conns parked (their hello names nobody known) */
#define PARKED_MAX 64 /* more would be strangers filling my descriptor table */
/* the largest hello: type, endpoint, ring name, ring lines */
#define HELLO_MAX (1 + DYN_EP_LEN + SKF_NODE_SHM_NAME + 24)
static msg_t *q_head, *q_tail, *current;
typedef struct launcher { /* a job I spawned: its launcher and its processes */
    pid_t pid;
    int *worlds, n;
} launcher_t;
static launcher_t *launchers;
static int nlaunchers;
static int finalizing; /* in dyn_finalize: a peer that has closed already is no fault */
static int joining_fatal; /* dyn_connect of a join whose group's handler is fatal */
static struct pollfd *pf; /* dyn_poll's set, kept: it runs in every progress pass */
static int pf_cap;

/* The watcher: a thread asleep in epoll on the listening socket and the
 * connections from other processes.  When one has something it kicks the
 * channel (skf_kick: the shm transport's sleep returns, and a kick before the
 * sleep is kept), so a rank idle in the channel wakes for bridge traffic at
 * once instead of looking between 1 ms sleeps.  It then waits until dyn_poll
 * has read (watch_pending back to 0) before it looks again. */
static pthread_t watcher;
static int watch_ep = -1, watch_stop_fd = -1, watching;
static int watch_pending, watch_stop;
static pthread_mutex_t watch_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cv = PTHREAD_COND_INITIALIZER;

static void watch_fd(int fd)
{
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    if (watching)
        epoll_ctl(watch_ep, EPOLL_CTL_ADD, fd, &ev);
}

static void *watch_main(void *arg)
{
    (void)arg;
    for (;;) {
        struct epoll_event ev[8];
        int n = epoll_wait(watch_ep, ev, 8, -1);
        if (n < 0 && errno != EINTR)
            break;
        pthread_mutex_lock(&watch_mu);
        if (!watch_stop && n > 0) {
            __atomic_store_n(&watch_pending, 1, __ATOMIC_RELEASE);
            skf_kick(mpid.ch);
            while (__atomic_load_n(&watch_pending, __ATOMIC_ACQUIRE) && !watch_stop)
                pthread_cond_wait(&watch_cv, &watch_mu);
        }
        int stop = watch_stop;
        pthread_mutex_unlock(&watch_mu);
        if (stop)
            break;
    }
    return NULL;
}

/* dyn_poll is about to read everything: the watcher may look again. */
static void watch_rearm(void)
{
    if (__atomic_load_n(&watch_pending, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&watch_mu);
        __atomic_store_n(&watch_pending, 0, __ATOMIC_RELEASE);
        pthread_cond_signal(&watch_cv);
        pthread_mutex_unlock(&watch_mu);
    }
}

/* A kick reaches a sleeping rank only through a channel of shm alone (tcp's
 * sleep cannot be cut, and with several transports the channel sleeps in 1 ms
 * slices anyway): elsewhere idle waits keep their 1 ms steps. */
static int channel_kickable(void)
{
    if (strcmp(skf_param_str("SKIFF_TRANSPORTS"), "tcp") == 0)
        return 0;
    for (int w = 0; w < mpid.size; w++)
        if (mpid.remote[w])
            return 0;
    return 1;
}

static void watch_start(void)
{
    if (!channel_kickable())
        return;
    watch_ep = epoll_create1(EPOLL_CLOEXEC);
    watch_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (watch_ep < 0 || watch_stop_fd < 0)
        goto fail;
    watching = 1;
    watch_fd(watch_stop_fd);
    watch_fd(listen_fd);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* signals stay the application's */
    int rc = pthread_create(&watcher, NULL, watch_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc == 0) {
        dyn_wakes = 1;
        return;
    }
fail: /* no watcher: idle waits poll the sockets between 1 ms sleeps */
    watching = 0;
    if (watch_ep >= 0)
        close(watch_ep);
    if (watch_stop_fd >= 0)
        close(watch_stop_fd);
    watch_ep = watch_stop_fd = -1;
}

static void watch_end(void)
{
    if (!dyn_wakes)
        return;
    pthread_mutex_lock(&watch_mu);
    watch_stop = 1;
    pthread_cond_signal(&watch_cv);
    pthread_mutex_unlock(&watch_mu);
    uint64_t one = 1;
    if (write(watch_stop_fd, &one, sizeof one) < 0) { /* cannot fail: counter far from max */
    }
    pthread_join(watcher, NULL);
    close(watch_ep);
    close(watch_stop_fd);
    watch_ep = watch_stop_fd = -1;
    watching = dyn_wakes = watch_stop = 0;
    __atomic_store_n(&watch_pending, 0, __ATOMIC_RELAXED);
}

static void first_ipv4(char *out, size_t cap)
{
    snprintf(out, cap, "127.0.0.1");
    const char *forced = getenv("SKIFF_DYN_ADDR");
    if (forced && *forced) {
        snprintf(out, cap, "%s", forced);
        return;
    }
    struct ifaddrs *ifs, *i;
    if (getifaddrs(&ifs) != 0)
        return;
    for (i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
            strcmp(i->ifa_name, "lo") != 0) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, out,
                      (socklen_t)cap);
            break;
        }
    freeifaddrs(ifs);
}

/* How messages name a process of another job: "rank R of the job at IP:PORT"
 * (the endpoint's job tag means nothing to a reader). */
static const char *ep_public(const char *ep, char *out, size_t cap)
{
    char ip[64] = "?";
    unsigned port = 0;
    int rank = -1;
    sscanf(ep, "%63[^:]:%u:%*[^:]:%d", ip, &port, &rank);
    snprintf(out, cap, "rank %d of the job at %s:%u", rank, ip, port);
    return out;
}

/* SKIFF_VERBOSE: which path a process of another job takes, and why. */
static void say_path(const peer_t *p, const char *dir, const char *path, const char *why)
{
    if (skf_param_ll("SKIFF_VERBOSE") <= 0)
        return;
    char line[400], who[120];
    snprintf(line, sizeof line, "%s %s: over %s%s%s%s", dir, ep_public(p->ep, who, sizeof who),
             path, why ? " (" : "", why ? why : "", why ? ")" : "");
    mpir_say(line);
}

/* Whether pair rings can be offered at all, and their size. */
static void rings_setup(void)
{
    const char *tp = skf_param_str("SKIFF_TRANSPORTS");
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(my_boot, sizeof my_boot, f))
        snprintf(my_boot, sizeof my_boot, "-");
    if (f)
        fclose(f);
    my_boot[strcspn(my_boot, "\n:")] = '\0';
    ring_bytes = 0;
    if (strcmp(tp, "tcp") == 0 || strcmp(tp, "ofi") == 0)
        no_ring = "SKIFF_TRANSPORTS asks for one network transport";
    else if (strcmp(my_boot, "-") == 0)
        no_ring = "no boot id to tell this machine by";
    else if (!(ring_bytes = (size_t)skf_param_ll("SKIFF_DYN_SHM_RING")))
        no_ring = "SKIFF_DYN_SHM_RING=0";
    else if (ring_bytes < 16384)
        ring_bytes = 16384;
}

/* Same machine as the process of endpoint ep (its boot id, the last field). */
static int same_node(const char *ep)
{
    const char *b = strrchr(ep, ':');
    return b && strcmp(b + 1, my_boot) == 0;
}

int dyn_start(void)
{
    if (listen_fd >= 0)
        return MPI_SUCCESS;
    boot_info_t *bi;
    if (boot_init(&bi) != 0)
        return mpir_error(NULL, MPI_ERR_INTERN, "dynamic processes: no job information");
    /* Endpoints travel in the clear (the port handshake, hellos): they name
     * the job by a tag derived from its key, as /dev/shm names do, so the key
     * that authenticates tcp and PMI connections never leaves the job. */
    if (job_key_tag(bi->job_key, "skiff dynproc endpoints v1", my_job) != 0)
        return mpir_error(NULL, MPI_ERR_INTERN, "dynamic processes: the job key is malformed");
    my_rank = mpid.rank;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t alen = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 128) ||
        getsockname(fd, (struct sockaddr *)&a, &alen)) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return mpir_error(NULL, MPI_ERR_INTERN, "dynamic processes: cannot listen on a TCP "
                          "socket: %s", strerror(e));
    }
    char ip[48];
    first_ipv4(ip, sizeof ip);
    rings_setup();
    snprintf(my_ep, sizeof my_ep, "%s:%u:%s:%d:%s", ip, ntohs(a.sin_port), my_job, my_rank,
             my_boot);
    listen_fd = fd;
    dyn_active = 1;
    watch_start();
    return MPI_SUCCESS;
}

const char *dyn_endpoint(void)
{
    return my_ep;
}

/* The device's per-peer tables grow by one world index. */
static int device_grow(int n)
{
#define GROW(field)                                                                         \
    do {                                                                                    \
        void *p = realloc(mpid.field, (size_t)n * sizeof *mpid.field);                      \
        if (!p)                                                                             \
            return -1;                                                                      \
        mpid.field = p;                                                                     \
        memset(&mpid.field[n - 1], 0, sizeof *mpid.field);                                  \
    } while (0)
    GROW(addr);
    GROW(sendq);
    GROW(active);
    GROW(inflight);
    GROW(rndv_out);
    GROW(eager_to);
    GROW(remote);
    GROW(bulk_piece); /* 0: no bulk ring to another job's process */
#undef GROW
    /* as over tcp: eager up to SKIFF_MPI_EAGER_MAX_TCP, larger ones stream
     * after the receiver matched (proto.c: no memory keys cross jobs) */
    long long eager = skf_param_ll("SKIFF_MPI_EAGER_MAX_TCP");
    mpid.eager_to[n - 1] = eager < MPID_SHORT_MAX ? MPID_SHORT_MAX
                         : eager > (1LL << 30) ? (size_t)1 << 30 : (size_t)eager;
    mpid.remote[n - 1] = 1;
    mpid.npeers = n;
    return 0;
}

#define EP_MALFORMED (-2)
#define EP_UNKNOWN (-1)

/* The world index of the process of endpoint ep: a rank of my own job, or a
 * peer already known; EP_UNKNOWN, or EP_MALFORMED. */
static int known_peer(const char *ep)
{
    char ip[64], job[40];
    unsigned port;
    int rank;
    if (sscanf(ep, "%63[^:]:%u:%39[^:]:%d", ip, &port, job, &rank) != 4)
        return EP_MALFORMED;
    if (strcmp(job, my_job) == 0)
        return rank >= 0 && rank < mpid.size ? rank : EP_MALFORMED; /* the channel reaches it */
    for (int i = 0; i < npeers; i++)
        if (strcmp(peers[i].ep, ep) == 0)
            return mpid.size + i;
    return EP_UNKNOWN;
}

static int on_frame(conn_t *c);

int dyn_peer(const char *ep)
{
    int w = known_peer(ep);
    if (w != EP_UNKNOWN)
        return w < 0 ? -1 : w;
    if (npeers == peers_cap) {
        int cap = peers_cap ? 2 * peers_cap : 8;
        peer_t *p = realloc(peers, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        peers = p;
        peers_cap = cap;
    }
    if (device_grow(mpid.size + npeers + 1))
        return -1;
    peer_t *p = &peers[npeers];
    memset(p, 0, sizeof *p);
    snprintf(p->ep, sizeof p->ep, "%s", ep);
    p->fd = -1;
    npeers++;
    /* its hello may have come before its group told mine who joins */
    for (int i = 0; i < nconns; i++)
        if (conns[i].parked && strcmp(conns[i].buf + 1, ep) == 0) {
            conns[i].parked = 0;
            nparked--;
            on_frame(&conns[i]);
            watch_fd(conns[i].fd); /* what it sent since is read as usual */
            __atomic_store_n(&watch_pending, 1, __ATOMIC_RELEASE);
        }
    return mpid.size + npeers - 1;
}

/* 1 when a communicator that reaches world has MPI_ERRORS_ARE_FATAL (or
 * MPI_ERRORS_ABORT): losing world then ends the job as a lost rank does. */
static int fatal_to_lose(int world)
{
    for (int ctx = 0; ctx < MPIR_MAX_CTX; ctx++) {
        struct MPI_ABI_Comm **slot = comm_ctx_slot(ctx), *c = slot ? *slot : NULL;
        if (!c || !c->coll) /* the collective shadows follow their communicator */
            continue;
        int reaches = 0;
        for (int r = 0; r < c->size && !reaches; r++)
            reaches = comm_world_rank(c, r) == world;
        if (reaches && (!c->eh || c->eh->kind == EH_FATAL || c->eh->kind == EH_ABORT))
            return 1;
    }
    return 0;
}

/* Peer i has ended without saying goodbye.  Under MPI_ERRORS_RETURN (or a
 * user handler) on every communicator that reaches it, what waits on it fails
 * with MPI_ERR_OTHER and later operations naming it do too; otherwise the job
 * ends, as it does when one of its own ranks dies. */
static void peer_lost(int i, const char *why)
{
    peer_t *p = &peers[i];
    if (p->gone || p->bye)
        return;
    int world = mpid.size + i;
    if (joining_fatal || fatal_to_lose(world))
        mpir_fatal("%s; ending the job", why);
    if (!(p->gone = strdup(why)))
        mpir_fatal("out of memory");
    if (p->fd >= 0)
        close(p->fd);
    p->fd = -1;
    p->off = p->len = 0;
    if (p->tx.state == PAIR_OFFERED) /* never mapped: drop the memfd now */
        pair_close(&p->tx);
    char line[300];
    snprintf(line, sizeof line, "%s; the communicators that reach it return errors "
             "(MPI_ERRORS_RETURN)", why);
    mpir_say(line);
    mpid_fail_peer(world, MPI_ERR_OTHER);
}

const char *dyn_gone(int world)
{
    return world >= mpid.size && world < mpid.npeers ? peers[world - mpid.size].gone : NULL;
}

static void append(peer_t *p, const void *data, size_t n)
{
    if (p->len + n > p->cap) {
        size_t cap = p->cap ? p->cap : 4096;
        while (cap < p->len + n)
            cap *= 2;
        char *b = realloc(p->out, cap);
        if (!b) {
            char who[120];
            mpir_fatal("out of memory for messages to %s", ep_public(p->ep, who, sizeof who));
        }
        p->out = b;
        p->cap = cap;
    }
    memcpy(p->out + p->len, data, n);
    p->len += n;
}

/* Its connection to me is still open: what it sent before it closed its end
 * (its goodbye among them) may be unread there, so that connection's end, not
 * a failed write to it, says whether it left or died.  (A process that stops
 * reading and exits makes our writes fail at once: the reset of a close with
 * unread data, e.g. our 'N' to a ring it offered just before leaving.) */
static int reads_pending_from(const peer_t *p)
{
    for (int i = 0; i < nconns; i++)
        if (conns[i].fd >= 0 && conns[i].peer == (int)(p - peers))
            return 1;
    return 0;
}

/* Write what the socket takes; 0 when all is out. */
static int flush(peer_t *p)
{
    while (p->off < p->len) {
        ssize_t w = send(p->fd, p->out + p->off, p->len - p->off, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (w < 0) {
            if (p->bye || finalizing || reads_pending_from(p)) {
                /* it has gone on purpose, or its connection to me will say
                 * (its goodbye may be unread): what it would not read is dropped */
                p->off = p->len = 0;
                return 0;
            }
            char why[300], who[120];
            snprintf(why, sizeof why, "a connected process of another job is gone (%s): %s",
                     ep_public(p->ep, who, sizeof who), strerror(errno));
            peer_lost((int)(p - peers), why);
            return 0;
        }
        p->off += (size_t)w;
    }
    p->off = p->len = 0;
    return 0;
}

static void frame(peer_t *p, char type, const struct iovec *iov, int n)
{
    size_t total = 1;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (total > UINT32_MAX)
        mpir_fatal("a %zu-byte message to another job is more than the bridge carries (4 GiB)",
                   total);
    uint32_t len = (uint32_t)total;
    append(p, &len, sizeof len);
    append(p, &type, 1);
    for (int i = 0; i < n; i++)
        append(p, iov[i].iov_base, iov[i].iov_len);
}

/* The hello: my endpoint, and on one node the ring I will write to it.
 * Made before connecting: offering a ring (a memfd of up to 2 MiB, touched)
 * is the slow part, and a process killed between its connect and its hello
 * leaves the other side a connection it cannot name. */
static size_t make_hello(peer_t *p, char *buf, size_t cap)
{
    char why[200];
    size_t hl = (size_t)snprintf(buf, cap, "%s", my_ep) + 1;
    if (!same_node(p->ep)) {
        say_path(p, "to", "tcp", "on another machine");
    } else if (!ring_bytes) {
        say_path(p, "to", "tcp", no_ring);
    } else if (p->tx.state == PAIR_NONE &&
               pair_offer(&p->tx, mpid.ctx, ring_bytes, why, sizeof why) != 0) {
        say_path(p, "to", "tcp", why);
    } else if (p->tx.state == PAIR_OFFERED) {
        hl += (size_t)snprintf(buf + hl, cap - hl, "%s", p->tx.name) + 1;
        hl += (size_t)snprintf(buf + hl, cap - hl, "%llu",
                               (unsigned long long)p->tx.ring.lines) + 1;
    }
    return hl;
}

static void connect_peer(peer_t *p)
{
    char ip[64];
    unsigned port;
    if (sscanf(p->ep, "%63[^:]:%u", ip, &port) != 2)
        mpir_fatal("malformed endpoint of another job (%zu characters, no IP:PORT first)",
                   strlen(p->ep));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, ip, &a.sin_addr) != 1)
        mpir_fatal("malformed address '%s' in the endpoint of another job", ip);
    char hello_buf[DYN_EP_LEN + SKF_NODE_SHM_NAME + 24];
    struct iovec hello = {hello_buf, make_hello(p, hello_buf, sizeof hello_buf)};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc;
    do
        rc = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&a, sizeof a);
    while (rc < 0 && errno == EINTR);
    if (rc < 0) {
        char why[300], who[120];
        snprintf(why, sizeof why, "cannot connect to the process of another job (%s): %s",
                 ep_public(p->ep, who, sizeof who), strerror(errno));
        if (fd >= 0)
            close(fd);
        peer_lost((int)(p - peers), why); /* also drops a ring offered above */
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    p->fd = fd;
    /* the hello goes first: it may sit in front of bytes queued already */
    char *queued = p->out;
    size_t qlen = p->len;
    p->out = NULL;
    p->len = p->cap = p->off = 0;
    frame(p, 'H', &hello, 1);
    if (qlen)
        append(p, queued, qlen);
    free(queued);
}

/* A frame with no payload but its type ('K': wake up, 'N': no ring). */
static void signal_peer(peer_t *p, char type)
{
    if (p->fd < 0 && !p->gone)
        connect_peer(p);
    if (p->gone)
        return;
    frame(p, type, NULL, 0);
    if (flush(p))
        dyn_backlog = 1;
}

ssize_t dyn_send(int world, const struct iovec *iov, int iovcnt)
{
    peer_t *p = &peers[world - mpid.size];
    if (p->fd < 0 && !p->gone)
        connect_peer(p);
    if (p->tx.state == PAIR_OFFERED && !p->gone && pair_live(&p->tx, p->tcp_sent)) {
        char why[64];
        snprintf(why, sizeof why, "a ring of %zu bytes", (size_t)p->tx.ring.lines * SHM_LINE);
        say_path(p, "to", "shm", why);
        /* eager as to a node mate: the ring takes it without a rendezvous */
        size_t eager = (size_t)skf_param_ll("SKIFF_MPI_EAGER_MAX");
        if (eager > p->tx.ring.max_payload)
            eager = p->tx.ring.max_payload;
        if (eager > mpid.eager_to[world])
            mpid.eager_to[world] = eager;
    }
    if (p->tx.state == PAIR_LIVE && !p->gone) {
        int kick = 0;
        ssize_t k = pair_send(&p->tx, iov, iovcnt, &kick);
        if (kick) /* it sleeps: one frame over TCP wakes its watcher */
            signal_peer(p, 'K');
        return k;
    }
    if (!p->gone) { /* to a process that is gone (an answer, a goodbye) nothing goes */
        frame(p, 'M', iov, iovcnt);
        p->tcp_sent++;
        if (flush(p))
            dyn_backlog = 1;
    }
    ssize_t n = 0;
    for (int i = 0; i < iovcnt; i++)
        n += (ssize_t)iov[i].iov_len;
    return n;
}

void dyn_connect(int world, int fatal)
{
    peer_t *p = &peers[world - mpid.size];
    joining_fatal = fatal; /* the new intercommunicator is not in the tables yet */
    if (p->fd < 0 && !p->gone) {
        connect_peer(p);
        if (p->fd >= 0)
            flush(p);
    }
    joining_fatal = 0;
}

ssize_t dyn_recv(struct iovec *cont, int *ncont, int *world)
{
    if (current || cur_rx >= 0)
        dyn_recv_done();
    if (!q_head) {
        /* the rings (a peer's ring is gated until its earlier TCP messages are
         * in; those in the queue go first) */
        for (int k = 0; k < npeers && dyn_rings; k++) {
            int i = (rx_next + k) % npeers;
            peer_t *p = &peers[i];
            if (p->rx.state != PAIR_LIVE)
                continue;
            ssize_t n = pair_recv(&p->rx, p->tcp_recvd, cont, ncont);
            if (n < 0)
                continue;
            cur_rx = rx_next = i;
            *world = mpid.size + i;
            return n;
        }
        return -EAGAIN;
    }
    current = q_head;
    q_head = q_head->next;
    if (!q_head)
        q_tail = NULL;
    cont[0].iov_base = current->data;
    cont[0].iov_len = current->len;
    *ncont = 1;
    *world = current->world;
    return (ssize_t)current->len;
}

void dyn_recv_done(void)
{
    free(current);
    current = NULL;
    if (cur_rx >= 0) {
        int i = cur_rx;
        cur_rx = -1;
        if (pair_recv_done(&peers[i].rx)) /* its sender waits for room */
            signal_peer(&peers[i], 'K');
    }
}

/* An idle wait is about to sleep: look at the rings a while (a message in,
 * or room in one that was full), then tell their senders to kick (over TCP:
 * the watcher turns that into skf_kick).  1: something is there after all. */
int dyn_idle_begin(void)
{
    for (int spin = 0; spin < 2000; spin++) {
        for (int i = 0; i < npeers; i++) {
            const peer_t *p = &peers[i];
            if ((p->rx.state == PAIR_LIVE &&
                 atomic_load_explicit(shm_ring_word(&p->rx.ring, p->rx.pos),
                                      memory_order_acquire)) ||
                (p->tx.state == PAIR_LIVE && p->tx.full && pair_room(&p->tx)))
                return 1;
        }
        skf_cpu_relax();
    }
    int there = 0;
    for (int i = 0; i < npeers; i++)
        if (peers[i].rx.state == PAIR_LIVE)
            there |= pair_sleep(&peers[i].rx, 1);
    if (there)
        dyn_idle_end();
    return there;
}

void dyn_idle_end(void)
{
    for (int i = 0; i < npeers; i++)
        if (peers[i].rx.state == PAIR_LIVE)
            pair_sleep(&peers[i].rx, 0);
}

static void accept_all(void)
{
    for (;;) {
        int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            return;
        if (nconns == conns_cap) {
            int cap = conns_cap ? 2 * conns_cap : 8;
            conn_t *c = realloc(conns, (size_t)cap * sizeof *c);
            if (!c)
                mpir_fatal("out of memory for connections from other jobs");
            conns = c;
            conns_cap = cap;
        }
        conns[nconns++] = (conn_t){.fd = fd, .peer = -1};
        watch_fd(fd);
    }
}

/* A connection that is not from a process of a job joined to mine (a
 * stranger on the network, or garbage): closed, the job goes on. */
static int stranger(const char *why)
{
    if (skf_param_ll("SKIFF_VERBOSE") > 0) {
        char line[200];
        snprintf(line, sizeof line, "dynamic processes: a connection to my endpoint %s; "
                 "closed", why);
        mpir_say(line);
    }
    return -1;
}

/* c's hello names nobody known yet: keep it, read nothing more from it. */
static void park(conn_t *c)
{
    c->parked = 1;
    nparked++;
    if (watching)
        epoll_ctl(watch_ep, EPOLL_CTL_DEL, c->fd, NULL);
}

/* A whole frame arrived on c.  0, or -1: close c (a stranger's). */
static int on_frame(conn_t *c)
{
    char type = c->buf[0];
    if (type == 'H') {
        if (c->peer >= 0)
            mpir_fatal("a process of another job sent a second hello");
        c->buf[c->need - 1] = '\0';
        int w = known_peer(c->buf + 1);
        if (w == EP_UNKNOWN) {
            if (nparked >= PARKED_MAX)
                return stranger("named an unknown process, with many such waiting");
            park(c);
            return 0;
        }
        if (w < mpid.size) /* malformed, or a rank of my own job (which the channel reaches) */
            return stranger("sent a hello that names no process of another job");
        c->peer = w - mpid.size;
        peer_t *p = &peers[c->peer];
        size_t el = strlen(c->buf + 1) + 2; /* after the type, the endpoint and its NUL */
        if (el < c->need && p->rx.state == PAIR_NONE) { /* it offers a ring */
            const char *name = c->buf + el;
            size_t nl = strlen(name) + 1;
            char why[SKF_NODE_SHM_NAME + 100];
            unsigned long long lines = el + nl < c->need ? strtoull(name + nl, NULL, 10) : 0;
            if (pair_accept(&p->rx, name, lines, why, sizeof why) == 0) {
                dyn_rings++;
                say_path(p, "from", "shm", NULL);
            } else {
                say_path(p, "from", "tcp", why);
                signal_peer(p, 'N');
            }
        }
    } else if (c->peer < 0) {
        return stranger("sent data before a hello");
    } else if (type == 'B') {
        peers[c->peer].bye = 1;
    } else if (type == 'N') { /* it could not map my ring: TCP it is */
        peer_t *p = &peers[c->peer];
        if (p->tx.state == PAIR_OFFERED) {
            pair_close(&p->tx);
            say_path(p, "to", "tcp", "the other side could not map the ring");
        }
    } else if (type == 'M') {
        peers[c->peer].tcp_recvd++;
        msg_t *m = malloc(sizeof *m + c->need - 1);
        if (!m)
            mpir_fatal("out of memory for a message from another job");
        m->next = NULL;
        m->world = mpid.size + c->peer;
        m->len = c->need - 1;
        memcpy(m->data, c->buf + 1, m->len);
        if (q_tail)
            q_tail->next = m;
        else
            q_head = m;
        q_tail = m;
    }
    free(c->buf);
    c->buf = NULL;
    c->hgot = c->got = c->need = 0;
    return 0;
}

/* Read what c has; 0 once it has ended. */
static int read_conn(conn_t *c)
{
    for (;;) {
        ssize_t r;
        if (c->hgot < 4) {
            r = recv(c->fd, c->hdr + c->hgot, 4 - c->hgot, 0);
        } else {
            if (!c->buf) {
                uint32_t len;
                memcpy(&len, c->hdr, 4);
                if (c->peer < 0 && (len == 0 || len > HELLO_MAX)) {
                    stranger("began with a frame that is no hello");
                    return 0; /* closed by the caller */
                }
                if (len == 0 || !(c->buf = malloc(len)))
                    mpir_fatal("a connection from another job sent a bad frame");
                c->need = len;
            }
            r = recv(c->fd, c->buf + c->got, c->need - c->got, 0);
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (r <= 0) {
            if (c->peer >= 0 && peers[c->peer].bye && c->hgot == 0)
                return 0;
            if (c->peer < 0) {
                /* It ended before its hello: a stranger, or a process that
                 * died between its connect and its hello (killed by its
                 * launcher, say).  It sent nothing, so nothing is lost, and
                 * who it was cannot be told: a death reaches us as its
                 * launcher's exit (check_launchers) or on its other links. */
                stranger("ended before its hello (a process of another job that died, "
                         "or a stranger)");
                return 0;
            }
            char why[300], who[120];
            snprintf(why, sizeof why, "a connected process of another job is gone (%s)",
                     ep_public(peers[c->peer].ep, who, sizeof who));
            peer_t *p = &peers[c->peer];
            if (p->rx.state == PAIR_LIVE && pair_pending(&p->rx) && !p->losing && !p->gone) {
                /* what it wrote before it died comes first (as over TCP,
                 * where its data precedes the end of the stream) */
                if (!(p->losing = strdup(why)))
                    mpir_fatal("out of memory");
                nlosing++;
            } else {
                peer_lost(c->peer, why);
            }
            return 0;
        }
        if (c->hgot < 4)
            c->hgot += (size_t)r;
        else if ((c->got += (size_t)r) == c->need && on_frame(c) != 0)
            return 0;
        if (c->parked)
            return 1;
    }
}

static void check_launchers(void)
{
    for (int i = 0; i < nlaunchers; i++) {
        int st;
        launcher_t l = launchers[i];
        if (waitpid(l.pid, &st, WNOHANG) != l.pid)
            continue;
        launchers[i--] = launchers[--nlaunchers];
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            /* its processes are gone: each is lost (the job ends unless all
             * communicators reaching them return errors) */
            int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            char why[160];
            snprintf(why, sizeof why, "a job started by MPI_Comm_spawn failed (its launcher "
                     "exited with status %d)", code);
            for (int k = 0; k < l.n; k++)
                if (l.worlds[k] >= mpid.size)
                    peer_lost(l.worlds[k] - mpid.size, why);
        }
        free(l.worlds);
    }
}

void dyn_poll(int timeout_ms)
{
    if (!dyn_active)
        return;
    /* the watcher sees every socket: with nothing reported, no poll call */
    if (timeout_ms == 0 && dyn_wakes && !__atomic_load_n(&watch_pending, __ATOMIC_ACQUIRE) &&
        !dyn_backlog && !nlaunchers && !nlosing)
        return;
    watch_rearm();
    if (nconns + 1 > pf_cap) {
        free(pf);
        pf_cap = 2 * (nconns + 1);
        if (!(pf = malloc((size_t)pf_cap * sizeof *pf)))
            mpir_fatal("out of memory polling connections from other jobs");
    }
    pf[0] = (struct pollfd){.fd = listen_fd, .events = POLLIN};
    for (int i = 0; i < nconns; i++) /* parked ones wait for their name (a negative fd: skipped) */
        pf[i + 1] = (struct pollfd){.fd = conns[i].parked ? -1 : conns[i].fd, .events = POLLIN};
    int n = poll(pf, (nfds_t)nconns + 1, timeout_ms);
    int nc = nconns;
    if (n > 0) {
        for (int i = 0; i < nc; i++)
            if (pf[i + 1].revents && !read_conn(&conns[i])) {
                close(conns[i].fd);
                free(conns[i].buf);
                conns[i].fd = -1;
            }
        if (pf[0].revents)
            accept_all();
    }
    for (int i = 0; i < nconns; i++)
        if (conns[i].fd < 0)
            conns[i--] = conns[--nconns];
    dyn_backlog = 0;
    for (int i = 0; i < npeers; i++)
        if (peers[i].fd >= 0 && peers[i].len && flush(&peers[i]))
            dyn_backlog = 1;
    if (nlaunchers)
        check_launchers();
    for (int i = 0; i < npeers && nlosing; i++)
        if (peers[i].losing && !pair_pending(&peers[i].rx) && cur_rx != i) {
            char *why = peers[i].losing;
            peers[i].losing = NULL;
            nlosing--;
            peer_lost(i, why);
            free(why);
        }
}

void dyn_watch_launcher(pid_t pid, const int *worlds, int n)
{
    launcher_t *l = realloc(launchers, (size_t)(nlaunchers + 1) * sizeof *l);
    int *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (!l || !w)
        mpir_fatal("out of memory");
    memcpy(w, worlds, (size_t)n * sizeof *w);
    launchers = l;
    launchers[nlaunchers++] = (launcher_t){.pid = pid, .worlds = w, .n = n};
}

void dyn_finalize(void)
{
    if (!dyn_active)
        return;
    dyn_poll(0); /* goodbyes already here: their senders may have closed */
    finalizing = 1;
    watch_end();
    for (int i = 0; i < npeers; i++) {
        peer_t *p = &peers[i];
        if (p->fd < 0)
            continue;
        frame(p, 'B', NULL, 0);
        fcntl(p->fd, F_SETFL, fcntl(p->fd, F_GETFL) & ~O_NONBLOCK);
        flush(p);
        shutdown(p->fd, SHUT_WR);
    }
    /* the jobs I spawned end before I do (MPI_Finalize is collective over
     * connected processes); their ends still count as failures */
    while (nlaunchers) {
        dyn_poll(20);
    }
    if (cur_rx >= 0)
        dyn_recv_done();
    for (int i = 0; i < npeers; i++) {
        if (peers[i].fd >= 0)
            close(peers[i].fd);
        pair_close(&peers[i].tx);
        pair_close(&peers[i].rx);
        free(peers[i].losing);
        free(peers[i].out);
        free(peers[i].gone);
    }
    for (int i = 0; i < nconns; i++) {
        close(conns[i].fd);
        free(conns[i].buf);
    }
    while (q_head) {
        msg_t *m = q_head;
        q_head = m->next;
        free(m);
    }
    free(current);
    free(peers);
    free(conns);
    free(launchers);
    free(pf);
    pf = NULL;
    pf_cap = 0;
    current = q_tail = NULL;
    peers = NULL;
    conns = NULL;
    launchers = NULL;
    npeers = nconns = nlaunchers = peers_cap = conns_cap = 0;
    dyn_rings = rx_next = nlosing = nparked = 0;
    finalizing = 0;
    close(listen_fd);
    listen_fd = -1;
    dyn_active = 0;
}
