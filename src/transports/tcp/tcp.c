/*
 * tcp — the transport between nodes: framed messages over TCP streams,
 * connections opened lazily and authenticated with the job key.
 *
 * Per channel, each rank listens on one socket whose address it publishes
 * through PMI at open.  The first send to a peer connects a *data*
 * connection, and both ranks send their messages on it (the ACK of a message
 * rides on the reply); when both dialled at once, the lower rank's connection
 * stays (SWITCH/MOVED, frame.h).  The first skf_get/skf_put/skf_atomic to
 * a peer connects an *RMA* connection (requests one way, responses back) to
 * the peer's second listener, which its RMA service thread owns: that
 * thread accepts, authenticates and answers by itself, so one-sided ops
 * complete while the owner computes outside Skiff (the section "the RMA
 * service thread" below); while the owner's own thread polls inside Skiff
 * it answers them instead, without a wake-up (svc_serve_here).  The main thread keeps everything else.  Every connection starts with the job-key handshake
 * (frame.h); nothing else is read from it until the peer has proved the key.
 *
 * Buffers (ULFM's fixed buffers, over a stream):
 *  - receive: one byte ring per data connection (SKIFF_TCP_BUF).  The
 *    socket is read only into free ring space; skf_recv hands out pointers to
 *    the frame's payload in the ring (two pieces when it wraps) until
 *    recv_done.  A full ring stops reading, so TCP's own flow control pushes
 *    back on the sender.
 *  - send: a message is written straight from the caller's iovec (writev);
 *    only what the socket did not take is copied into the connection's send
 *    ring.  The window: at most SKIFF_TCP_BUF - TCP_CTL_RESERVE bytes the
 *    receiver has not released (credit frames come back among its messages
 *    and are taken out of my ring on arrival, frame.h).  No room: -EAGAIN.
 *  - one-sided: the owner answers a GET by writev from the exposed memory,
 *    the requester reads the data straight into its buffer; a PUT goes the
 *    other way.  Nothing is staged, whatever the size.
 * Arrivals: a FIFO of incoming connections holding complete frames, so recv
 * is O(1) in the number of peers; epoll says which sockets moved.
 *
 * Faults: EOF, a reset, or the kernel's keepalive/user timeout
 * (SKIFF_TCP_TIMEOUT) mark the peer gone; sends to it and waits that depend
 * on it return -EPIPE.  A stranger (bad handshake, wrong key, replay, garbage
 * frame) loses its connection with one log line; the job goes on.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "boot/boot_pmi_tcp.h"
#include "core/config.h"
#include "core/core.h"
#include "transports/tcp/frame.h"
#include "transports/tcp/sock_call.h"

#define TCP_HDR ((uint64_t)sizeof(struct tcp_frame_hdr))
/* A frame on the wire and in the rings: header, payload, padding to 8 bytes,
 * so every payload starts 8-byte aligned in the receive ring (MPI reads its
 * headers in place, as from shm's 64-byte slots). */
#define TCP_FRAME_BYTES(len) (TCP_HDR + (((uint64_t)(len) + 7) & ~7ull))
#define TCP_MIN_TAKE 4096     /* a partial send takes at least this much (or all) */
#define TCP_SLEEP_SLICE_MS 100 /* a sleeper re-checks deadlines this often        */
#define TCP_EVENTS 32
#define TCP_STRANGERS_SHOWN 5  /* drops of key-less connections with a line each */
/* A busy-polling pass reads the receive connection that delivered last
 * straight away (one recv per pass, as a raw TCP ping-pong does) and asks
 * epoll about everything else only every TCP_EPOLL_EVERY passes: an
 * arrival on the hot connection is then one system call, not epoll_wait
 * + readv.  Others (handshakes, requests to serve, credits) wait at most
 * that many passes longer. */
#ifndef TCP_EPOLL_EVERY
#define TCP_EPOLL_EVERY 4
#endif
/* ... but while a receive connection is hot (it delivered last), epoll only
 * every this many passes: an 8-byte netns ping-pong measured 1.20x -> 1.13x a
 * raw TCP one with 16 instead of 4 (docs/tcp.md, issue 20); the others then
 * wait at most 15 passes (a few tens of us) longer. */
#define TCP_HOT_EPOLL_EVERY 16
/* A waiter that answered a one-sided request polls at least this long after
 * it (spin_ready), whatever SKIFF_TCP_SPIN_US says: the next request of a
 * requester's loop then finds it polling, not asleep (docs/tcp.md). */
#define TCP_SERVED_SPIN_NS 1000000LL
#define TCP_SMALL_SEND 256 /* frames up to this size go out by send() from a stack copy */

enum conn_state { C_LISTEN = 0, C_CONNECTING = 1, C_WAIT_CHALLENGE, A_WAIT_HELLO, A_WAIT_PROOF, C_OPEN, C_DEAD };
enum conn_role { ROLE_CONNECTOR = 1, ROLE_ACCEPTOR };

struct tcp_tp;

/* RMA progress of one connection.  An owner answers one request at a time,
 * in order; a requester keeps a queue of operations (skf_get_start, and the
 * blocking skf_get/skf_put behind them): requests go out back to back, the
 * answers come back in the same order, so the link never idles between two
 * gets. */
struct rma_state {
    int busy;          /* owner: 1 reading a put's data, 2 answering (a requester: q_head) */
    int64_t status;
    /* request / response header being written, then payload from `out` */
    uint8_t hdr_out[sizeof(struct tcp_rma_req)];
    size_t hdr_out_len, hdr_out_off;
    const uint8_t *out;
    uint64_t out_left;
    int out_exposed; /* owner: out is exposed memory (a get's answer), checked per write */
    /* header being read, then payload into `in` (NULL: discard) */
    uint8_t hdr_in[sizeof(struct tcp_rma_req)];
    size_t hdr_in_len, hdr_in_need;
    uint8_t *in;
    uint64_t in_left;
    struct tcp_rma_req req; /* owner: the request being served */
    struct tcp_rma_atomic atomic; /* owner: an ATOMIC request's payload */
    uint64_t old;           /* owner: an ATOMIC's answer */
    uint8_t *acc_buf;       /* owner: an ACC's payload, then its answer (TCP_ACC_REQ_MAX +
                               SKF_ACC_MAX_BYTES bytes, allocated at the first ACC) */
    /* Bytes read ahead (RMA_IBUF, allocated at the first read): a run of small
     * requests or answers costs one recv, not two each (header, payload). */
    uint8_t *ib;
    size_t ib_len, ib_pos;
    int ib_short; /* the last read ahead took less than it asked: the socket was empty */
    /* owner: small answers collected while more requests are readable, sent
     * in one go (RMA_OBUF) when none is left or before a large answer */
    uint8_t *ob;
    size_t ob_len, ob_off;
    unsigned long answered; /* owner: requests answered (svc_poll_hot sees whether it had work) */
    /* requester: head (answer being read) ... tail; wr: first request not
     * wholly written (its header is in hdr_out) */
    skf_get_op_t *q_head, *q_tail, *q_wr;
};

/* A byte ring of a data connection; positions count up forever. */
struct tcp_ring {
    uint8_t *buf;
    uint64_t cap, mask, head, tail;
};

/* Delivery of the frames that arrive on a connection I dialled to a higher
 * rank: nothing before the peer says where its messages stand (FIRST: here
 * only; MOVED: after those it sent on its own connection, up to its SWITCH). */
enum { ROUTE_WAIT, ROUTE_DELIVER, ROUTE_HELD };

struct tcp_conn {
    struct tcp_tp *tp;
    int fd;
    int kind;  /* TCP_CONN_DATA / TCP_CONN_RMA */
    int role;
    int state;
    int peer;  /* world rank; -1 until the acceptor has read the hello */
    uint32_t interest;
    int detached;    /* the hot receive connection, out of the epoll set while polled (hot_detach) */
    long long deadline_ms; /* handshake must finish by then */
    /* handshake */
    struct tcp_hello hello;
    uint8_t nonce_acceptor[SKF_AUTH_NONCE];
    uint8_t hs[sizeof(struct tcp_challenge)];
    size_t hs_have, hs_need;
    /* data connections carry frames both ways: rx holds what arrived (data
     * frames only: control frames are taken out as they arrive), tx what
     * the socket has not taken yet */
    struct tcp_ring rx, tx;
    uint64_t scan;   /* first byte of rx not yet checked as a frame */
    long nframes;    /* complete frames in [rx.head, scan) */
    int queued;
    int ack_owed;    /* reads since the last ACK left (ack_flush, or a frame I sent) */
    int tx_waits;    /* tx holds bytes that wait for EPOLLOUT (counted in tp->tx_waiting) */
    int eof;         /* the peer closed; deliver what is left */
    int bye;         /* the peer said goodbye (closed its channel) before its EOF */
    /* flow control (frame.h, credit frames): bytes of data frames I took for
     * this connection (sent) and the peer's last credit (released); the
     * position of its stream I last credited, and where in tx my credit
     * frame being sent ends (0: none pending) */
    uint64_t sent, released;
    uint64_t credited, cred_end;
    int bye_out;      /* my goodbye frame is in tx (I close) */
    int shut;         /* half-closed after the goodbye went out */
    /* one connection per pair (see "Connections" in docs/tcp.md) */
    int route;        /* its frames: ROUTE_WAIT / ROUTE_DELIVER / ROUTE_HELD */
    int announce;     /* TCP_FRAME_FIRST/MOVED owed before my first data frame (0: none) */
    int has_switch;   /* the peer's SWITCH lies at rx position switch_at */
    uint64_t switch_at;
    /* Direct payloads (TCP_FRAME_DIRECT, skf_send_direct / skf_recv_direct):
     * the one arriving, read straight into its posted buffer (din: din_left
     * bytes still to come at din_p), and the one leaving straight from the
     * sender's memory (dout: dout_left bytes at dout_p, written once tx has
     * gone out up to dout_at, where its header ends; what tx takes after
     * it waits behind it). */
    skf_get_op_t *din, *dout;
    uint8_t *din_p;
    const uint8_t *dout_p;
    uint64_t din_left, dout_left, dout_at;
    struct tcp_conn *next_dout; /* tp->douts */
    struct tcp_conn *next_ready;
    struct tcp_conn *next_hs; /* connections still in the handshake */
    struct rma_state rma;
    struct tcp_conn *next_rmaq; /* requester with operations queued (tp->rmaq) */
    struct tcp_svc *svc;        /* set: the RMA service thread's (an owner's side of an RMA
                                   connection, or its listener): its epoll set, its lists */
    struct tcp_conn *next_dead; /* svc: freed after the batch of events that may name it */
    char name[64];   /* "rank 3" or "10.0.0.5:4242", for log lines */
};

struct tcp_peer {
    struct tcp_conn *tx;     /* the data connection I send on: dial or acc */
    struct tcp_conn *dial;   /* my data connection to it (I connected) */
    struct tcp_conn *acc;    /* its data connection to me (I accepted) */
    struct tcp_conn *rma;    /* my requests to it (its requests to me: tcp_tp.served) */
    int gone;                /* died: EOF without goodbye, reset, timeout, refused */
    int closed;              /* closed its channel (said goodbye): sends fail     */
    const char *gone_why;    /* static text: how it went                          */
    char where[64];          /* its address, once a connection knew it            */
    int switched;            /* all its messages up to its SWITCH are delivered   */
    int redials;             /* my dials to it the peer ended in their handshake, in a row */
    skf_get_op_t *dq_head, *dq_tail; /* direct receives posted for it, in order   */
};

/* One epoll set per context, shared by the tcp part of every channel: any
 * channel's progress also answers one-sided requests and handshakes of the
 * others (as the shm fallback server does), so an owner waiting on one
 * port still serves gets on another. */
struct tcp_engine {
    skf_ctx_t *ctx;
    int epfd;
    int users;
    struct tcp_svc *svc; /* the process's RMA service (started with the engine) */
    struct tcp_engine *next;
};

/* The RMA service: one thread per process (per context) that accepts,
 * authenticates and answers one-sided connections by itself, so get, put and
 * atomic requests complete while the owner computes outside Skiff.  It owns
 * every channel's RMA listener and the accepted RMA connections; the main
 * thread's data path never touches them (nor they it). */
struct tcp_svc {
    skf_ctx_t *ctx;
    int epfd;                 /* listeners, handshakes, accepted connections */
    int outer;                /* what the thread sleeps on: wake, and epfd unless claimed */
    int wake;                 /* eventfd: stop */
    /* Serving from polling threads (svc_serve_here): while claimed, epfd is
     * out of outer and threads polling inside Skiff answer (the engine's
     * set holds epfd); the thread wakes every SVC_LEASE_US and takes epfd
     * back when fewer than SVC_LEASE_POLLS passes were counted (the
     * claimer left Skiff, or polls between sleeps of its own) and nobody
     * sleeps in an epoll set holding it; a claim again needs
     * SVC_CLAIM_POLLS passes.  Atomics: read outside the lock. */
    int claimed;
    int has_conns;            /* some connection was accepted: claiming is worth it */
    unsigned long polls;      /* progress passes (svc_note_poll) */
    unsigned long polls_at_release; /* polls when the thread took epfd back */
    int sleepers;             /* threads asleep in progress's epoll_wait */
    /* The connection whose request a polling thread answered last: while
     * claimed, progress reads it directly on every pass (svc_poll_hot), as
     * the hot receive connection, instead of at epoll's turn through the
     * nested set; dropped after SVC_HOT_IDLE passes without a request.
     * Under lock. */
    struct tcp_conn *hot;
    unsigned hot_idle;
    pthread_t thread;
    /* Held by the thread while it handles a batch of events, by a polling
     * thread while it does (svc_serve_here) or claims the service, and by
     * a channel's open and close while they add or remove its listener and
     * connections; never by the data path. */
    pthread_mutex_t lock;
    int stop;
    struct tcp_conn *hs_list; /* accepted connections still in the handshake */
    struct tcp_conn *dead;    /* freed once no event of the batch can name them */
    char cc[16];              /* SKIFF_TCP_CC for its sockets (tcp_tp.cc is the main thread's) */
    long long spin_ns;        /* SKIFF_TCP_SERVE_SPIN: poll this long after a request */
    int hs_patient;           /* SKIFF_TCP_HS_PATIENT (expire_handshakes) */
    int no_pwait2;            /* epoll_pwait2 said ENOSYS: leases of 1 ms */
};
static struct tcp_engine *engines;

/* Connections dropped before proving the job key: the first few are told,
 * then counts (drop). */
struct stranger_log {
    unsigned long strangers, said;
    char last[200]; /* the latest drop, for the counting lines */
};

struct tcp_tp {
    skf_ctx_t *ctx;
    uint16_t port;
    int me, size;
    unsigned open_no;   /* names this open's PMI keys */
    int lfd, epfd;      /* epfd: the engine's */
    int rma_lfd;        /* my RMA listener: the service thread accepts on it */
    struct tcp_conn *rma_listener; /* its pseudo-connection (the service's) */
    struct tcp_conn **served;      /* [size]: each rank's RMA connection to me (the service's) */
    struct tcp_engine *eng;
    struct tcp_conn *listener; /* pseudo-connection in state C_LISTEN */
    struct tcp_peer *peer;
    struct tcp_conn *hs_list;
    struct tcp_conn *ready_head, *ready_tail;
    struct tcp_conn *out; /* frame handed out by recv, not yet done */
    uint64_t out_len;
    int blocked;          /* peer of the last -EAGAIN, or -1 */
    uint64_t blocked_need; /* window bytes that send needed */
    int any_gone;
    uint64_t buf_bytes, max_msg;
    int timeout_ms;
    int hs_patient;         /* SKIFF_TCP_HS_PATIENT (expire_handshakes) */
    long spin;
    long long spin_ns;      /* SKIFF_TCP_SPIN_US: longest busy-poll of a wait */
    uint32_t rma_next_id;
    const char *key;
    char cc[16];            /* SKIFF_TCP_CC: congestion control, "" = the system's */
    struct tcp_conn *hot;   /* receive connection that delivered last (busy-polled) */
    struct tcp_conn *rmaq;  /* requesters with operations queued (polled every pass) */
    struct tcp_conn *douts; /* data connections writing a direct payload (polled every pass) */
    int gets_done;          /* an skf_get_start get finished since ready() said so */
    unsigned epoll_skipped; /* passes since the last epoll_wait(0) */
    int tx_waiting;         /* data connections whose tx waits for EPOLLOUT */
    int svc_polled;         /* the last svc_poll_hot read the hot served connection, which
                               had a request in its last SVC_HOT_STREAM passes */
    unsigned long served_here; /* one-sided requests this thread answered (svc_serve_here) */
    long long served_ns;       /* when it last answered one (spin_ready) */
    struct stranger_log strangers;     /* my data listener's (the main thread's) */
    struct stranger_log rma_strangers; /* my RMA listener's (the service thread's) */
};

/* ---- small helpers --------------------------------------------------------- */


/* The epoll set a connection is in: its channel's engine, or the service's. */
static int conn_epfd(const struct tcp_conn *c)
{
    return c->svc ? c->svc->epfd : c->tp->epfd;
}

static void hot_attach(struct tcp_conn *c);

static void set_interest(struct tcp_conn *c, uint32_t ev)
{
    if (c->fd < 0 || c->interest == ev)
        return;
    if (c->detached) { /* back in the set only when it has to wait for room */
        c->interest = ev;
        if (ev & EPOLLOUT)
            hot_attach(c);
        return;
    }
    struct epoll_event e = {.events = ev, .data.ptr = c};
    epoll_ctl(conn_epfd(c), EPOLL_CTL_MOD, c->fd, &e);
    c->interest = ev;
}

/* The hot receive connection is read by every polling pass (progress), so
 * while threads poll it stays out of the epoll set: a socket in a set runs
 * epoll's wake-up callback for every packet that arrives, in the sending
 * side's softirq, on the message's path.  A raw TCP ping-pong across the
 * veth took 0.14 us longer a round trip with its socket merely registered
 * (never waited on), 0.26 us with an epoll_wait every 16th poll (docs/tcp.md
 * "Out of the epoll set").  It goes back in before its channel sleeps, when
 * another connection becomes hot, and while its send ring waits for
 * EPOLLOUT, which only epoll reports.  Its EOF and errors show in the recv
 * of the next pass. */
static void hot_detach(struct tcp_conn *c)
{
    if (c->detached || c->fd < 0 || c->svc || (c->interest & EPOLLOUT))
        return;
    if (epoll_ctl(c->tp->epfd, EPOLL_CTL_DEL, c->fd, NULL) == 0)
        c->detached = 1;
}

static void hot_attach(struct tcp_conn *c)
{
    if (!c->detached)
        return;
    c->detached = 0;
    struct epoll_event e = {.events = c->interest, .data.ptr = c};
    if (epoll_ctl(c->tp->epfd, EPOLL_CTL_ADD, c->fd, &e) != 0)
        skf_error("rank %d: tcp: %s: cannot watch its socket again: %s", c->tp->me, c->name,
                  strerror(errno));
}

/* Sockets carry small latency-bound messages and large gets on a LAN:
 * TCP_NODELAY, keepalive and a user timeout (faults within
 * SKIFF_TCP_TIMEOUT), and SKIFF_TCP_CC's congestion control (docs/tcp.md:
 * BBR's pacing held a veth at a fraction of what reno/cubic reach). */
static void tune_socket(struct tcp_tp *t, int fd, char cc[16])
{
    int one = 1, idle = t->timeout_ms / 2000 > 0 ? t->timeout_ms / 2000 : 1;
    int cnt = idle, intvl = 1;
    unsigned int user_timeout = (unsigned int)t->timeout_ms;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &user_timeout, sizeof user_timeout);
    if (cc[0] && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc))) {
        /* Asked for by name (not the default): the user hears why it is not used. */
        if (getenv("SKIFF_TCP_CC"))
            skf_error("rank %d: port %u: tcp: SKIFF_TCP_CC=%s refused by the kernel (%s); using "
                      "the system's congestion control", t->me, t->port, cc, strerror(errno));
        else
            skf_verbose(t->ctx, "rank %d: port %u: tcp: congestion control %s refused (%s); using "
                        "the system's", t->me, t->port, cc, strerror(errno));
        cc[0] = 0; /* say it once (cc: the calling thread's copy) */
    }
}

/* Deferred ACKs on a receiving data connection.  Nothing ever travels back
 * on it but a credit per quarter ring, so each small message would be
 * acknowledged by a bare ACK that the kernel sends inside my recv (the
 * "pushed" rule), before I can answer: measured 4.6 -> 3.1 us per ping-pong
 * leg with raw sockets across the veth.  So the connection stays in the
 * kernel's delayed-ACK ("ping-pong") mode (TCP_QUICKACK 0), and I send the
 * ACK myself once I have nothing else to do: quick-ack (sends what is owed)
 * and back to delayed.  Before sleeping too: a sender limited by its
 * congestion window must not wait for the delayed-ACK timer. */
static void ack_defer(struct tcp_conn *c)
{
    int zero = 0;
    setsockopt(c->fd, IPPROTO_TCP, TCP_QUICKACK, &zero, sizeof zero);
}

static void ack_flush(struct tcp_conn *c)
{
    int one = 1;
    c->ack_owed = 0;
    if (c->state != C_OPEN)
        return;
    setsockopt(c->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
    ack_defer(c);
}

static void sock_name(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?", port[16] = "?";
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
        getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV);
    snprintf(out, cap, "%s:%s", host, port);
}

/* ---- connection life ----------------------------------------------------- */

static void unlink_hs(struct tcp_conn *c)
{
    for (struct tcp_conn **p = c->svc ? &c->svc->hs_list : &c->tp->hs_list; *p; p = &(*p)->next_hs)
        if (*p == c) {
            *p = c->next_hs;
            return;
        }
}

static void unqueue(struct tcp_tp *t, struct tcp_conn *c)
{
    if (!c->queued)
        return;
    struct tcp_conn *prev = NULL;
    for (struct tcp_conn *x = t->ready_head; x; prev = x, x = x->next_ready)
        if (x == c) {
            if (prev)
                prev->next_ready = x->next_ready;
            else
                t->ready_head = x->next_ready;
            if (t->ready_tail == x)
                t->ready_tail = prev;
            break;
        }
    c->queued = 0;
    c->next_ready = NULL;
}

static void enqueue(struct tcp_tp *t, struct tcp_conn *c)
{
    if (c->queued || c->route != ROUTE_DELIVER)
        return;
    c->queued = 1;
    c->next_ready = NULL;
    if (t->ready_tail)
        t->ready_tail->next_ready = c;
    else
        t->ready_head = c;
    t->ready_tail = c;
}

static void rmaq_fail_all(struct tcp_conn *c, int status);
static void rmaq_finish(struct tcp_tp *t, skf_get_op_t *op, int status);

/* The direct payload leaving on c is out (status 0) or failed. */
static void dout_finish(struct tcp_conn *c, int status)
{
    skf_get_op_t *op = c->dout;
    c->dout = NULL;
    for (struct tcp_conn **p = &c->tp->douts; *p; p = &(*p)->next_dout)
        if (*p == c) {
            *p = c->next_dout;
            break;
        }
    c->next_dout = NULL;
    rmaq_finish(c->tp, op, status);
}

/* c died: its direct payloads in flight fail. */
static void direct_fail(struct tcp_conn *c, int status)
{
    if (c->dout)
        dout_finish(c, status);
    if (c->din) {
        skf_get_op_t *op = c->din;
        c->din = NULL;
        rmaq_finish(c->tp, op, status);
    }
}

/* Whether c's send ring holds bytes that only an EPOLLOUT event flushes:
 * while any does, progress asks epoll at the old rate (TCP_EPOLL_EVERY). */
static void note_tx_waits(struct tcp_conn *c, int waits)
{
    if (c->tx_waits != waits) {
        c->tx_waits = waits;
        c->tp->tx_waiting += waits ? 1 : -1;
    }
}

static void close_fd(struct tcp_conn *c)
{
    note_tx_waits(c, 0);
    if (c->fd >= 0) {
        if (!c->detached)
            epoll_ctl(conn_epfd(c), EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
    }
    c->fd = -1;
    c->detached = 0;
}

static void svc_bury(struct tcp_conn *c);

static void free_conn(struct tcp_conn *c)
{
    if (c->svc) {
        svc_bury(c);
        return;
    }
    if (c->tp->hot == c)
        c->tp->hot = NULL;
    rmaq_fail_all(c, -EPIPE);
    direct_fail(c, -EPIPE);
    close_fd(c);
    unlink_hs(c);
    unqueue(c->tp, c);
    free(c->rx.buf);
    free(c->tx.buf);
    free(c->rma.acc_buf);
    free(c->rma.ib);
    free(c->rma.ob);
    free(c);
}

/* The peer is gone (or refused us): its connections die, operations on it
 * fail with -EPIPE; frames already received stay deliverable. */
static void peer_gone(struct tcp_tp *t, int rank, const char *why)
{
    struct tcp_peer *p = &t->peer[rank];
    if (!p->gone) {
        skf_verbose(t->ctx, "rank %d: port %u: tcp peer rank %d gone (%s)", t->me, t->port, rank, why);
        p->gone_why = why;
    }
    p->gone = 1;
    t->any_gone = 1;
    struct tcp_conn *cs[] = {p->dial, p->acc, p->rma};
    for (int i = 0; i < 3; i++)
        if (cs[i]) {
            close_fd(cs[i]);
            unlink_hs(cs[i]);
            cs[i]->state = C_DEAD;
            cs[i]->eof = 1;
        }
    if (p->rma)
        rmaq_fail_all(p->rma, -EPIPE);
    for (int i = 0; i < 2; i++)
        if (cs[i])
            direct_fail(cs[i], -EPIPE);
    for (skf_get_op_t *op = p->dq_head, *next; op; op = next) { /* posted, never to come */
        next = op->next;
        rmaq_finish(t, op, -EPIPE);
    }
    p->dq_head = p->dq_tail = NULL;
}

/* End of a data connection.  After the peer's goodbye it is a clean close
 * (the peer closed its channel and reads to my end: closing mine is its
 * cue), nobody waiting for other peers is disturbed, frames already here
 * stay deliverable.  After my own goodbye it is the peer's answer to it
 * (it closes on my goodbye without saying its own): clean too, and calling
 * that a death would close my other connections to the peer abruptly,
 * resetting what it has not read yet.  Otherwise the peer is gone. */
static void data_eof(struct tcp_conn *c)
{
    if (!c->bye && !c->bye_out) {
        peer_gone(c->tp, c->peer, "connection closed without goodbye");
        return;
    }
    c->tp->peer[c->peer].closed = 1;
    close_fd(c);
    c->state = C_DEAD;
    c->eof = 1;
}

static int is_power_of_ten(unsigned long n)
{
    while (n >= 10 && n % 10 == 0)
        n /= 10;
    return n == 1;
}

/* The drops not told yet, in one line (at 10, 100, ... drops and at close). */
static void strangers_summary(struct tcp_tp *t, struct stranger_log *log)
{
    if (log->strangers == log->said)
        return;
    skf_error("tcp: rank %d port %u: %lu connections dropped before proving the job key (the first "
              "%d shown; the last from %s)", t->me, t->port, log->strangers, TCP_STRANGERS_SHOWN,
              log->last);
    log->said = log->strangers;
}

/* A connection that broke the protocol: dropped.  A member of the job (it
 * proved the key, or I dialed it) is then gone, with one line (a one-sided
 * connection the service accepted just ends).  For an acceptor that never
 * proved the key nothing else changes, and a flood of such strangers prints
 * TCP_STRANGERS_SHOWN lines, then only counts (the RMA service counts its
 * own listener's: each thread its own log). */
static void drop(struct tcp_conn *c, const char *why)
{
    struct tcp_tp *t = c->tp;
    const char *dir = c->role == ROLE_ACCEPTOR ? "from" : "to";
    if (c->state == C_OPEN || c->role == ROLE_CONNECTOR) { /* it was a member of the job */
        skf_error("tcp: rank %d port %u: connection %s %s dropped: %s", t->me, t->port, dir, c->name, why);
        if (c->svc)
            free_conn(c);
        else
            peer_gone(t, c->peer, why);
        return;
    }
    struct stranger_log *log = c->svc ? &t->rma_strangers : &t->strangers;
    snprintf(log->last, sizeof log->last, "%s: %s", c->name, why);
    if (++log->strangers <= TCP_STRANGERS_SHOWN) {
        skf_error("tcp: rank %d port %u: connection %s %s dropped: %s%s", t->me, t->port, dir, c->name,
                  why, log->strangers == TCP_STRANGERS_SHOWN ? " (further drops are counted, not shown)" : "");
        log->said = log->strangers;
    } else if (is_power_of_ten(log->strangers)) {
        strangers_summary(t, log);
    }
    free_conn(c);
}

static struct tcp_conn *new_conn(struct tcp_tp *t, struct tcp_svc *svc, int fd, int kind, int role,
                                 int peer)
{
    struct tcp_conn *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->tp = t;
    c->fd = fd;
    c->kind = kind;
    c->role = role;
    c->peer = peer;
    c->route = ROUTE_DELIVER;
    c->deadline_ms = skf_now_ms() + t->timeout_ms;
    c->svc = svc;
    struct tcp_conn **hs = svc ? &svc->hs_list : &t->hs_list;
    c->next_hs = *hs;
    *hs = c;
    return c;
}

/* Both rings of a data connection (receive and send), cap bytes each. */
static int ring_alloc(struct tcp_conn *c, uint64_t cap)
{
    c->rx = (struct tcp_ring){malloc(cap), cap, cap - 1, 0, 0};
    c->tx = (struct tcp_ring){malloc(cap), cap, cap - 1, 0, 0};
    return c->rx.buf && c->tx.buf ? 0 : -ENOMEM;
}

/* ---- ring helpers ------------------------------------------------------- */

/* Copy n bytes at stream position pos out of the ring. */
static void ring_read(const struct tcp_ring *r, uint64_t pos, void *dst, uint64_t n)
{
    uint64_t off = pos & r->mask, first = r->cap - off < n ? r->cap - off : n;
    memcpy(dst, r->buf + off, first);
    memcpy((uint8_t *)dst + first, r->buf, n - first);
}

/* Copy n bytes into the ring at stream position pos. */
static void ring_put(struct tcp_ring *r, uint64_t pos, const void *src, uint64_t n)
{
    uint64_t off = pos & r->mask, first = r->cap - off < n ? r->cap - off : n;
    memcpy(r->buf + off, src, first);
    memcpy(r->buf, (const uint8_t *)src + first, n - first);
}

static void ring_write(struct tcp_ring *r, const void *src, uint64_t n)
{
    ring_put(r, r->tail, src, n);
    r->tail += n;
}

/* Take the n bytes at pos out of the ring: what follows them moves down.
 * Only credits and the goodbye are taken out; they are rare (a credit per
 * quarter ring of the other direction), and what follows them is at most
 * the rest of one read. */
static void ring_cut(struct tcp_ring *r, uint64_t pos, uint64_t n)
{
    uint8_t chunk[4096];
    for (uint64_t from = pos + n; from < r->tail;) {
        uint64_t k = r->tail - from < sizeof chunk ? r->tail - from : sizeof chunk;
        ring_read(r, from, chunk, k);
        ring_put(r, from - n, chunk, k);
        from += k;
    }
    r->tail -= n;
}

/* The free space (for reading into) or the used space (for writing out) as
 * at most two iovecs. */
static int ring_span(const struct tcp_ring *r, uint64_t from, uint64_t n, struct iovec *v)
{
    uint64_t off = from & r->mask, first = r->cap - off < n ? r->cap - off : n;
    v[0] = (struct iovec){r->buf + off, first};
    if (n == first)
        return 1;
    v[1] = (struct iovec){r->buf, n - first};
    return 2;
}

/* A data connection's epoll interest: data while its receive ring has room
 * (else the reader must make room first), writability while tx holds bytes. */
static void data_interest(struct tcp_conn *c)
{
    if (c->state != C_OPEN)
        return;
    set_interest(c, EPOLLRDHUP | (c->din || c->rx.tail - c->rx.head < c->rx.cap ? EPOLLIN : 0) |
                        (c->tx.tail != c->tx.head || c->dout ? EPOLLOUT : 0));
    note_tx_waits(c, c->tx.tail != c->tx.head);
}

/* ---- data: sending -------------------------------------------------------- */

/* writev without SIGPIPE: a peer that died must be an error return (EPIPE),
 * not the death of this process too.  Up to TCP_SMALL_SEND bytes in all go by
 * one send() of a stack copy, cheaper than sendmsg's iovec import: a frame, a
 * one-sided request (an atomic's header and operands) or a run of them. */
static ssize_t sock_writev(int fd, const struct iovec *v, int n)
{
    size_t total = 0;
    for (int i = 0; i < n && total <= TCP_SMALL_SEND; i++)
        total += v[i].iov_len;
    if (total <= TCP_SMALL_SEND) {
        uint8_t small[TCP_SMALL_SEND];
        size_t at = 0;
        for (int i = 0; i < n; i++) {
            memcpy(small + at, v[i].iov_base, v[i].iov_len);
            at += v[i].iov_len;
        }
        return sc_send(fd, small, total, MSG_NOSIGNAL);
    }
    struct msghdr m = {.msg_iov = (struct iovec *)v, .msg_iovlen = (size_t)n};
    return sc_sendmsg(fd, &m, MSG_NOSIGNAL);
}

static void send_credit(struct tcp_conn *c);

/* Write what the send ring holds, and a direct payload in its place in
 * the stream (after the ring's bytes up to dout_at: its header; one writev
 * takes both).  0, or -1 when the connection died. */
static int flush_tx(struct tcp_conn *c)
{
    struct tcp_ring *r = &c->tx;
    while ((r->tail != r->head || c->dout) && c->state == C_OPEN) {
        struct iovec v[3];
        int n = 0;
        uint64_t upto = c->dout ? c->dout_at : r->tail, ring_part = upto - r->head;
        if (ring_part)
            n = ring_span(r, r->head, ring_part, v);
        if (c->dout && c->dout_left)
            v[n++] = (struct iovec){(void *)c->dout_p, c->dout_left};
        if (!n) { /* an empty direct payload, its header out */
            dout_finish(c, 0);
            continue;
        }
        uint64_t want = ring_part + (c->dout ? c->dout_left : 0);
        ssize_t w = sock_writev(c->fd, v, n);
        if (w < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR)
                continue;
            peer_gone(c->tp, c->peer, strerror(errno));
            return -1;
        }
        c->ack_owed = 0; /* the ACK of what I read rode along */
        if ((uint64_t)w <= ring_part) {
            r->head += (uint64_t)w;
        } else {
            r->head = upto;
            c->dout_p += (uint64_t)w - ring_part;
            c->dout_left -= (uint64_t)w - ring_part;
        }
        if (c->dout && r->head == c->dout_at && !c->dout_left)
            dout_finish(c, 0);
        if ((uint64_t)w < want)
            break; /* the socket is full: the next try would say EAGAIN */
    }
    if (c->cred_end && r->head >= c->cred_end) {
        c->cred_end = 0;
        send_credit(c); /* another may be due by now */
    }
    data_interest(c);
    return 0;
}

/* A control frame (credit, goodbye) behind whatever tx holds: straight to
 * the socket when tx is empty, the rest into tx (the reserve keeps room). */
static void send_control(struct tcp_conn *c, const void *frame, uint64_t n)
{
    uint64_t w = 0;
    if (c->tx.tail == c->tx.head && !c->dout && c->state == C_OPEN) {
        ssize_t k;
        do
            k = sc_send(c->fd, frame, n, MSG_DONTWAIT | MSG_NOSIGNAL);
        while (k < 0 && errno == EINTR);
        if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            peer_gone(c->tp, c->peer, strerror(errno));
            return;
        }
        w = k > 0 ? (uint64_t)k : 0;
        if (w)
            c->ack_owed = 0;
    }
    ring_write(&c->tx, (const uint8_t *)frame + w, n - w);
    data_interest(c);
}

static struct tcp_conn *connect_peer(struct tcp_tp *t, int rank, int kind);
static int progress(struct tcp_tp *t, int timeout_ms);
static int douts_progress(struct tcp_tp *t);
static int svc_serve_here(struct tcp_tp *t);
static int svc_poll_hot(struct tcp_tp *t);
static void svc_note_poll(struct tcp_svc *v);
static void fill_rx(struct tcp_conn *c);

/* Bytes of data frames a sender may have unreleased on c. */
static uint64_t window(const struct tcp_conn *c)
{
    return c->rx.cap - TCP_CTL_RESERVE;
}

static ssize_t tcp_send(void *tpv, int peer, const struct iovec *iov, int iovcnt)
{
    struct tcp_tp *t = tpv;
    struct tcp_peer *p = &t->peer[peer];
    struct tcp_conn *c = p->tx;
    if (__builtin_expect(!c, 0)) { /* nobody connected yet: I do, and both directions use it */
        if (p->gone || !(c = p->dial = p->tx = connect_peer(t, peer, TCP_CONN_DATA)))
            return -EPIPE;
    }
    if (c->state == C_DEAD || p->closed)
        return -EPIPE;
    uint64_t want = 0;
    for (int i = 0; i < iovcnt; i++)
        want += iov[i].iov_len;
    /* The window: bytes the receiver has not released yet (in my send ring,
     * in the kernels, in its receive ring) stay below its ring's size less
     * the control reserve.  The send ring only ever holds part of them (and
     * a control frame or two), so it cannot overflow. */
    uint64_t room = window(c) - (c->sent - c->released);
    uint64_t take = want < t->max_msg ? want : t->max_msg;
    if (room < TCP_FRAME_BYTES(take)) {
        uint64_t least = take < TCP_MIN_TAKE ? take : TCP_MIN_TAKE;
        /* Full: read credits that may have come (on this connection, then a
         * few passes while sockets move). */
        if (c->state == C_OPEN)
            fill_rx(c);
        room = window(c) - (c->sent - c->released);
        for (int pass = 0; pass < 4 && room < TCP_FRAME_BYTES(least) && progress(t, 0); pass++)
            room = window(c) - (c->sent - c->released);
        if (p->tx != c) /* progress adopted the peer's connection (SWITCH): send there */
            return tcp_send(tpv, peer, iov, iovcnt);
        if (c->state == C_DEAD || p->closed)
            return -EPIPE;
        if (room < TCP_FRAME_BYTES(least)) {
            t->blocked = peer;
            t->blocked_need = TCP_FRAME_BYTES(least);
            return -EAGAIN;
        }
        uint64_t fits = (room - TCP_HDR) & ~7ull;
        take = fits < take ? fits : take;
    }
    if (c->announce) { /* the peer holds my frames here until it knows where they stand */
        struct tcp_frame_hdr a = {0, t->port, (uint8_t)c->announce, TCP_FRAME_MAGIC};
        c->announce = 0;
        send_control(c, &a, sizeof a);
    }
    /* header, the iovec cut to `take` bytes (and to what one writev takes),
     * padding */
    static const uint8_t zeros[8];
    struct tcp_frame_hdr h = {0, t->port, TCP_FRAME_DATA, TCP_FRAME_MAGIC};
    struct iovec v[IOV_MAX];
    int nv = 0;
    v[nv++] = (struct iovec){&h, TCP_HDR};
    uint64_t left = take;
    for (int i = 0; i < iovcnt && left && nv < IOV_MAX - 1; i++) {
        size_t n = iov[i].iov_len < left ? iov[i].iov_len : left;
        if (n)
            v[nv++] = (struct iovec){iov[i].iov_base, n};
        left -= n;
    }
    take -= left;
    h.len = (uint32_t)take;
    if (TCP_FRAME_BYTES(take) > TCP_HDR + take)
        v[nv++] = (struct iovec){(void *)zeros, TCP_FRAME_BYTES(take) - TCP_HDR - take};
    uint64_t written = 0, total = TCP_FRAME_BYTES(take);
    if (c->tx.tail == c->tx.head && !c->dout && c->state == C_OPEN) { /* straight from the caller's memory */
        ssize_t w;
        do
            w = sock_writev(c->fd, v, nv); /* a small frame: one send() of a copy */
        while (w < 0 && errno == EINTR);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            peer_gone(t, peer, strerror(errno));
            return -EPIPE;
        }
        written = w > 0 ? (uint64_t)w : 0;
        if (written)
            c->ack_owed = 0; /* the ACK of what I read rode along */
    }
    /* What the socket did not take goes to the send ring (it fits: checked). */
    uint64_t skip = written;
    for (int i = 0; i < nv; i++) {
        uint64_t n = v[i].iov_len;
        if (skip >= n) {
            skip -= n;
            continue;
        }
        ring_write(&c->tx, (const uint8_t *)v[i].iov_base + skip, n - skip);
        skip = 0;
    }
    c->sent += total;
    if (c->state == C_OPEN && (c->tx.tail - c->tx.head > total - written || c->dout))
        flush_tx(c); /* older bytes were waiting: push them along */
    else if (c->state == C_OPEN && c->tx.tail != c->tx.head)
        data_interest(c);
    t->blocked = -1;
    return (ssize_t)take;
}

/* ---- data: receiving ------------------------------------------------------ */

/* The peer's messages before its SWITCH are all delivered: those it sent
 * on my connection since follow now. */
static void switch_done(struct tcp_conn *c)
{
    struct tcp_peer *p = &c->tp->peer[c->peer];
    c->has_switch = 0;
    p->switched = 1;
    struct tcp_conn *d = p->dial;
    if (d && d->route == ROUTE_HELD) {
        d->route = ROUTE_DELIVER;
        if (d->nframes)
            enqueue(c->tp, d);
    }
}

/* SWITCH, FIRST or MOVED arrived on c (frame.h).  NULL, or why c breaks the
 * protocol: SWITCH comes only on a connection a higher rank dialled to me,
 * FIRST/MOVED only on mine to a higher rank, once, before its messages. */
static const char *route_frame(struct tcp_conn *c, int kind)
{
    struct tcp_tp *t = c->tp;
    if (kind == TCP_FRAME_SWITCH) {
        if (c->role != ROLE_ACCEPTOR || c->peer <= t->me || c->has_switch || t->peer[c->peer].switched)
            return "unexpected switch frame";
        c->has_switch = 1;
        c->switch_at = c->scan;
        return NULL;
    }
    if (c->role != ROLE_CONNECTOR || c->route != ROUTE_WAIT)
        return "unexpected route frame";
    c->route = kind == TCP_FRAME_FIRST || t->peer[c->peer].switched ? ROUTE_DELIVER : ROUTE_HELD;
    return NULL;
}

/* A DIRECT frame is complete at c->scan: find the receive posted under its
 * id (the peer's are in posting order: usually the first), take the frame
 * out of the ring, and the payload bytes that came with it (one read's
 * worth at most: the rest is read straight into place, fill_rx).  NULL, or
 * why the frame breaks the protocol. */
static const char *direct_arrived(struct tcp_conn *c)
{
    struct tcp_tp *t = c->tp;
    struct tcp_ring *r = &c->rx;
    struct tcp_peer *p = &t->peer[c->peer];
    uint64_t d[2]; /* id, length */
    ring_read(r, c->scan + TCP_HDR, d, sizeof d);
    skf_get_op_t **at = &p->dq_head, *op, *prev = NULL;
    while ((op = *at) && op->addr != d[0]) {
        prev = op;
        at = &op->next;
    }
    if (!op || op->len != d[1])
        return "a direct payload nobody posted";
    *at = op->next;
    if (p->dq_tail == op)
        p->dq_tail = prev;
    op->next = NULL;
    ring_cut(r, c->scan, TCP_FRAME_BYTES(TCP_DIRECT_LEN));
    uint64_t have = r->tail - c->scan, k = have < d[1] ? have : d[1];
    if (k) {
        ring_read(r, c->scan, op->dst, k);
        ring_cut(r, c->scan, k);
    }
    if (k == d[1]) {
        rmaq_finish(t, op, 0);
    } else {
        c->din = op;
        c->din_p = (uint8_t *)op->dst + k;
        c->din_left = d[1] - k;
    }
    return NULL;
}

/* Check the frames whose headers have arrived; queue the connection when one
 * is complete.  Credits and the goodbye are applied and taken out of the
 * ring.  0, or -1 after dropping the connection for a malformed frame. */
static int scan_frames(struct tcp_conn *c)
{
    struct tcp_tp *t = c->tp;
    struct tcp_ring *r = &c->rx;
    while (r->tail - c->scan >= TCP_HDR) {
        struct tcp_frame_hdr h;
        ring_read(r, c->scan, &h, TCP_HDR);
        const char *bad = c->bye ? "bytes after the goodbye"
                                 : tcp_frame_check(&h, t->port, (uint32_t)t->max_msg);
        if (bad) {
            drop(c, bad);
            return -1;
        }
        if (r->tail - c->scan < TCP_FRAME_BYTES(h.len))
            break;
        if (h.kind == TCP_FRAME_CREDIT) {
            uint64_t pos;
            ring_read(r, c->scan + TCP_HDR, &pos, sizeof pos);
            if ((bad = tcp_credit_check(pos, c->released, c->sent))) {
                drop(c, bad);
                return -1;
            }
            c->released = pos;
            ring_cut(r, c->scan, TCP_FRAME_BYTES(h.len));
            continue;
        }
        if (h.kind == TCP_FRAME_DIRECT) {
            if ((bad = direct_arrived(c))) {
                drop(c, bad);
                return -1;
            }
            continue;
        }
        if (h.kind == TCP_FRAME_BYE) { /* the peer closed its channel: my sends to it fail */
            c->bye = 1;
            t->peer[c->peer].closed = 1;
            ring_cut(r, c->scan, TCP_HDR);
            continue;
        }
        if (h.kind != TCP_FRAME_DATA) { /* where the peer's messages stand */
            if ((bad = route_frame(c, h.kind))) {
                drop(c, bad);
                return -1;
            }
            ring_cut(r, c->scan, TCP_HDR);
            if (c->has_switch && r->head == c->switch_at)
                switch_done(c); /* nothing of the peer's before it is left to deliver */
            continue;
        }
        if (c->route == ROUTE_WAIT) {
            drop(c, "a message before the connection's route");
            return -1;
        }
        c->scan += TCP_FRAME_BYTES(h.len);
        c->nframes++;
    }
    if (c->nframes)
        enqueue(t, c);
    return 0;
}

/* Receiver: tell the sender how far its stream is released, once a quarter
 * of the ring has been freed since the last credit (one small frame per
 * SKIFF_TCP_BUF/4 bytes taken, never per message), one credit frame in
 * flight at a time.  Whatever is left (and so whatever the sender waits for)
 * is below a quarter: a sender whose messages were all taken always has
 * room for a cut message. */
static void send_credit(struct tcp_conn *c)
{
    if (c->state != C_OPEN || c->bye_out || c->cred_end || c->rx.head - c->credited < c->rx.cap / 4)
        return;
    struct {
        struct tcp_frame_hdr h;
        uint64_t pos;
    } f = {{TCP_CREDIT_LEN, c->tp->port, TCP_FRAME_CREDIT, TCP_FRAME_MAGIC}, c->rx.head};
    c->credited = c->rx.head;
    send_control(c, &f, sizeof f);
    if (c->tx.tail != c->tx.head)
        c->cred_end = c->tx.tail; /* not all out: no second one until it is */
}

/* c brought messages: it is the connection progress polls from now on.  The
 * one before settles the ACK it is owed and goes back into the epoll set. */
static void make_hot(struct tcp_conn *c)
{
    struct tcp_conn *was = c->tp->hot;
    if (was == c)
        return;
    if (was) {
        if (was->ack_owed) /* another sender: settle what it is owed */
            ack_flush(was);
        hot_attach(was);
    }
    c->tp->hot = c;
}

static void fill_rx(struct tcp_conn *c)
{
    struct tcp_ring *ring = &c->rx;
    for (;;) {
        uint64_t room = ring->cap - (ring->tail - ring->head);
        if (!room && !c->din) {
            data_interest(c);
            return;
        }
        struct iovec v[2];
        /* A direct payload is posted from this peer: its header may be next
         * in the stream, and whatever of the payload a read takes into the
         * ring is copied twice more (cut behind the header, then out).  With
         * the socket backed up (the receiver is the slow end of a stream) one
         * read took up to a ring (1 MiB) of it; now a few KiB at most. */
        if (!c->din && room > TCP_MIN_TAKE && c->tp->peer[c->peer].dq_head)
            room = TCP_MIN_TAKE;
        int n = c->din ? 0 : ring_span(ring, ring->tail, room, v);
        /* a direct payload straight into its buffer; else recv into the
         * ring's first span when it is big (the usual case): cheaper than
         * readv, and the next call takes the rest after the wrap */
        ssize_t r = c->din ? sc_recv(c->fd, c->din_p, c->din_left, 0)
                    : n == 1 || v[0].iov_len >= TCP_MIN_TAKE * 16
                        ? sc_recv(c->fd, v[0].iov_base, v[0].iov_len, 0)
                        : sc_readv(c->fd, v, n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                peer_gone(c->tp, c->peer, strerror(errno));
            return;
        }
        if (r == 0) {
            data_eof(c);
            return;
        }
        if (c->din) {
            make_hot(c); /* no ACK owed here: a stream is acknowledged by the kernel */
            c->tp->ctx->io_moved++;
            c->din_p += r;
            c->din_left -= (uint64_t)r;
            if (c->din_left)
                return; /* took what there was */
            skf_get_op_t *op = c->din;
            c->din = NULL;
            rmaq_finish(c->tp, op, 0);
            data_interest(c);
            continue; /* what follows goes to the ring */
        }
        uint64_t before = ring->tail;
        ring->tail += (uint64_t)r;
        c->ack_owed++;
        if (scan_frames(c) < 0)
            return;
        /* hot: the connection that brings messages, not one that brought
         * only control frames (credits: cut out of the ring again) back -- a
         * sender to itself then polled its sending side, and its messages
         * waited for epoll's turn (tcp_basic_3, with epoll every 16th pass) */
        if (c->tp->hot != c && (ring->tail != before || c->din))
            make_hot(c);
        if ((uint64_t)r < room)
            return;
    }
}


static ssize_t deliver(struct tcp_tp *t, struct iovec *cont, int *ncont, int *src)
{
    struct tcp_conn *c = t->ready_head;
    struct tcp_frame_hdr h;
    ring_read(&c->rx, c->rx.head, &h, TCP_HDR);
    *ncont = h.len ? ring_span(&c->rx, c->rx.head + TCP_HDR, h.len, cont) : 0;
    *src = c->peer;
    t->out = c;
    t->out_len = h.len;
    return (ssize_t)h.len;
}

static ssize_t tcp_recv(void *tpv, struct iovec *cont, int *ncont, int *src_rank)
{
    struct tcp_tp *t = tpv;
    if (t->douts && t->ready_head) /* a direct payload leaving moves on with every
                                      receive too (progress below pushes it otherwise) */
        douts_progress(t);
    /* A pass that moved bytes (e.g. flushed my own send ring to myself) may
     * have made frames readable that the next pass finds: up to three. */
    for (int pass = 0; !t->ready_head && pass < 3; pass++)
        if (!progress(t, 0))
            break;
    return t->ready_head ? deliver(t, cont, ncont, src_rank) : -EAGAIN;
}

static void tcp_recv_done(void *tpv)
{
    struct tcp_tp *t = tpv;
    struct tcp_conn *c = t->out;
    c->rx.head += TCP_FRAME_BYTES(t->out_len);
    c->nframes--;
    t->out = NULL;
    unqueue(t, c);
    if (c->nframes)
        enqueue(t, c); /* to the back: senders take turns */
    if (c->has_switch && c->rx.head == c->switch_at)
        switch_done(c);
    send_credit(c);
    if (c->state == C_OPEN && !(c->interest & EPOLLIN))
        data_interest(c); /* there is room again */
}

static size_t tcp_max_msg(void *tpv, int peer)
{
    (void)peer;
    return ((struct tcp_tp *)tpv)->max_msg;
}

/* ---- handshake ------------------------------------------------------------ */

static void hs_expect(struct tcp_conn *c, size_t n)
{
    c->hs_have = 0;
    c->hs_need = n;
}

#define TCP_REDIALS 3 /* dials in a row the peer may end in their handshake */

/* My data dial ended by the peer's side during the handshake (EOF or reset
 * after its kernel took the connection): the process is alive -- it
 * accepted -- and dropped the handshake, which expired while I computed
 * outside MPI and strangers crowded its listener (expire_handshakes).
 * Taking the peer for gone would be mine alone: its receives from me would
 * wait forever.  So dial again, with the frames queued meanwhile (nothing
 * leaves a connection still in its handshake), at most TCP_REDIALS times in
 * a row.  1: handled (dialling again, or the peer is gone now). */
static int redial(struct tcp_conn *c)
{
    struct tcp_tp *t = c->tp;
    struct tcp_peer *p = &t->peer[c->peer];
    if (c->role != ROLE_CONNECTOR || c->kind != TCP_CONN_DATA || c->svc || p->gone ||
        p->dial != c || c->dout || c->din || p->redials >= TCP_REDIALS)
        return 0;
    p->redials++;
    skf_error("tcp: rank %d port %u: connection to %s ended by the peer during the handshake: "
              "dialling again (%d of %d)", t->me, t->port, c->name, p->redials, TCP_REDIALS);
    struct tcp_conn *n = connect_peer(t, c->peer, TCP_CONN_DATA);
    if (!n)
        return 0;
    if (n->state == C_DEAD || p->gone) /* its connect failed at once: the peer is gone now */
        return 1;
    struct tcp_ring queued = c->tx;
    c->tx = n->tx;
    n->tx = queued;
    n->sent = c->sent;
    n->released = c->released;
    n->announce = c->announce;
    n->bye_out = c->bye_out;
    p->dial = n;
    if (p->tx == c)
        p->tx = n;
    free_conn(c);
    return 1;
}

/* Read toward hs_need bytes (exactly: never past the handshake).  1 when
 * complete, 0 to wait, -1 when the connection failed (handled). */
static int hs_read(struct tcp_conn *c)
{
    while (c->hs_have < c->hs_need) {
        ssize_t r = sc_recv(c->fd, c->hs + c->hs_have, c->hs_need - c->hs_have, 0);
        if (r > 0) {
            c->hs_have += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if ((r == 0 || errno == ECONNRESET) && redial(c))
            return -1;
        drop(c, r == 0 ? "closed during the handshake" : strerror(errno));
        return -1;
    }
    return 1;
}

static int send_small(struct tcp_conn *c, const void *buf, size_t n)
{
    /* A handshake message is far below a fresh socket's buffer. */
    ssize_t w = sc_send(c->fd, buf, n, MSG_NOSIGNAL);
    if (w == (ssize_t)n)
        return 0;
    if (w < 0 && (errno == EPIPE || errno == ECONNRESET) && redial(c))
        return -1;
    drop(c, "cannot send the handshake");
    return -1;
}

static void became_open(struct tcp_conn *c)
{
    struct tcp_tp *t = c->tp;
    unlink_hs(c);
    c->state = C_OPEN;
    if (!c->svc && c->role == ROLE_CONNECTOR && c->kind == TCP_CONN_DATA)
        t->peer[c->peer].redials = 0;
    char *where = t->peer[c->peer].where;
    if (!c->svc && !where[0] && c->role == ROLE_ACCEPTOR) /* its host, from "host:port" */
        snprintf(where, sizeof t->peer[c->peer].where, "%.*s", (int)strcspn(c->name, ":"), c->name);
    snprintf(c->name, sizeof c->name, "rank %d", c->peer);
    if (c->kind == TCP_CONN_DATA) {
        ack_defer(c);
        flush_tx(c); /* what was sent during the handshake; sets the interest */
        return;
    }
    set_interest(c, EPOLLIN | EPOLLRDHUP);
    if (c->role == ROLE_ACCEPTOR && c->kind == TCP_CONN_RMA)
        c->rma.hdr_in_need = sizeof(struct tcp_rma_req);
    (void)t;
}

/* connector: the connect finished; say hello */
static void on_connected(struct tcp_conn *c)
{
    int err = 0;
    socklen_t el = sizeof err;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &el);
    if (err) {
        drop(c, strerror(err));
        return;
    }
    if (send_small(c, &c->hello, sizeof c->hello) < 0)
        return;
    c->state = C_WAIT_CHALLENGE;
    hs_expect(c, sizeof(struct tcp_challenge));
    set_interest(c, EPOLLIN | EPOLLRDHUP);
}

/* connector: the acceptor proved the key; prove mine */
static void on_challenge(struct tcp_conn *c)
{
    struct tcp_tp *t = c->tp;
    struct tcp_challenge ch;
    struct tcp_proof pr = {.magic = TCP_HS_MAGIC};
    uint8_t want[SKF_AUTH_MAC];
    memcpy(&ch, c->hs, sizeof ch);
    const char *bad = tcp_challenge_check(&ch);
    if (bad) {
        drop(c, bad);
        return;
    }
    if (tcp_hs_mac(t->key, 1, &c->hello, ch.nonce, want) || !skf_auth_equal(want, ch.mac)) {
        drop(c, "the listener does not hold the job key");
        return;
    }
    if (tcp_hs_mac(t->key, 0, &c->hello, ch.nonce, pr.mac) || send_small(c, &pr, sizeof pr) < 0)
        return;
    became_open(c);
}

/* acceptor: a hello arrived; answer with my nonce and proof */
static void on_hello(struct tcp_conn *c)
{
    struct tcp_tp *t = c->tp;
    struct tcp_challenge ch = {.magic = TCP_HS_MAGIC};
    memcpy(&c->hello, c->hs, sizeof c->hello);
    const char *bad = tcp_hello_check(&c->hello, t->port, t->me, t->size, (uint32_t)t->max_msg);
    if (bad) {
        drop(c, bad);
        return;
    }
    c->kind = c->hello.kind;
    if ((c->kind == TCP_CONN_RMA) != (c->svc != NULL)) {
        drop(c, c->svc ? "a data connection on the one-sided listener"
                       : "a one-sided connection on the data listener");
        return;
    }
    if (skf_auth_nonce(c->nonce_acceptor) || tcp_hs_mac(t->key, 1, &c->hello, c->nonce_acceptor, ch.mac)) {
        drop(c, "cannot make a challenge");
        return;
    }
    memcpy(ch.nonce, c->nonce_acceptor, sizeof ch.nonce);
    if (send_small(c, &ch, sizeof ch) < 0)
        return;
    c->state = A_WAIT_PROOF;
    hs_expect(c, sizeof(struct tcp_proof));
}

/* A data connection the peer dialled.  One connection both ways is the aim
 * (the ACK of each message then rides on the reply instead of being a
 * packet of its own): unless I dialled too, I send on this one.  When we
 * both dialled, the connection of the lower rank stays: if that is this
 * one, I end mine with SWITCH and go on here after MOVED (frame.h). */
static void adopt_accepted(struct tcp_tp *t, struct tcp_peer *p, struct tcp_conn *c)
{
    int lower = c->peer < t->me; /* its dial is the one that stays */
    if (!p->tx) {
        p->tx = c;
        c->announce = lower ? TCP_FRAME_FIRST : 0;
    } else if (lower && p->tx == p->dial && p->dial->state != C_DEAD) {
        struct tcp_frame_hdr sw = {0, t->port, TCP_FRAME_SWITCH, TCP_FRAME_MAGIC};
        send_control(p->dial, &sw, sizeof sw);
        p->tx = c;
        c->announce = TCP_FRAME_MOVED;
    }
}

/* acceptor: the connector's proof; on success the connection joins its peer */
static void on_proof(struct tcp_conn *c)
{
    struct tcp_tp *t = c->tp;
    struct tcp_proof pr;
    uint8_t want[SKF_AUTH_MAC];
    memcpy(&pr, c->hs, sizeof pr);
    const char *bad = tcp_proof_check(&pr);
    if (bad) {
        drop(c, bad);
        return;
    }
    if (tcp_hs_mac(t->key, 0, &c->hello, c->nonce_acceptor, want) || !skf_auth_equal(want, pr.mac)) {
        drop(c, "wrong job key");
        return;
    }
    int src = (int)c->hello.src;
    struct tcp_peer *p = &t->peer[src];
    struct tcp_conn **slot = c->svc ? &t->served[src] : &p->acc;
    if ((!c->svc && p->gone) || (*slot && (*slot)->state != C_DEAD)) {
        drop(c, "a second connection of the same kind from that rank");
        return;
    }
    if (c->kind == TCP_CONN_DATA && ring_alloc(c, t->buf_bytes) < 0) {
        drop(c, "out of memory for the rings");
        return;
    }
    if (*slot) {
        if (!c->svc && p->tx == *slot)
            p->tx = NULL;
        free_conn(*slot);
    }
    *slot = c;
    c->peer = src;
    if (c->kind == TCP_CONN_DATA)
        adopt_accepted(t, p, c);
    became_open(c);
}

/* New connections on my data listener (svc NULL) or on my RMA listener (by
 * the service thread). */
static void on_accept(struct tcp_tp *t, struct tcp_svc *svc)
{
    for (;;) {
        int fd = accept4(svc ? t->rma_lfd : t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return;
        tune_socket(t, fd, svc ? svc->cc : t->cc);
        struct tcp_conn *c = new_conn(t, svc, fd, 0, ROLE_ACCEPTOR, -1);
        struct epoll_event e = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
        if (!c || epoll_ctl(svc ? svc->epfd : t->epfd, EPOLL_CTL_ADD, fd, &e) != 0) {
            if (c)
                free_conn(c);
            else
                close(fd);
            continue;
        }
        c->interest = e.events;
        c->state = A_WAIT_HELLO;
        if (svc)
            __atomic_store_n(&svc->has_conns, 1, __ATOMIC_RELAXED);
        sock_name(fd, c->name, sizeof c->name);
        hs_expect(c, sizeof(struct tcp_hello));
    }
}

/* ---- addresses ------------------------------------------------------------ */

/* The address I publish: SKIFF_TCP_IF (an interface name or an address),
 * else the address from which I reach the launcher, else loopback when the
 * job has one node, else the first non-loopback IPv4 address.  No DNS. */
static int pick_address(struct tcp_tp *t, char *out, size_t cap)
{
    const char *want = skf_param_str("SKIFF_TCP_IF");
    struct in_addr probe;
    if (*want && strcmp(want, "auto") != 0) {
        if (inet_pton(AF_INET, want, &probe) == 1) {
            snprintf(out, cap, "%s", want);
            return 0;
        }
    } else if (boot_pmi_tcp_local_addr(out, cap) == 0) {
        return 0;
    } else if (t->ctx->boot->num_nodes == 1) {
        snprintf(out, cap, "127.0.0.1");
        return 0;
    }
    struct ifaddrs *all;
    int found = -1;
    if (getifaddrs(&all) != 0)
        return -errno;
    for (struct ifaddrs *a = all; a && found; a = a->ifa_next) {
        if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || !(a->ifa_flags & IFF_UP))
            continue;
        int named = *want && strcmp(want, "auto") != 0;
        if (named ? strcmp(a->ifa_name, want) != 0 : (a->ifa_flags & IFF_LOOPBACK) != 0)
            continue;
        inet_ntop(AF_INET, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, out, (socklen_t)cap);
        found = 0;
    }
    freeifaddrs(all);
    if (found)
        skf_error("tcp: rank %d: no usable IPv4 address%s%s (set SKIFF_TCP_IF to an interface "
                  "or address)", t->me, *want && strcmp(want, "auto") ? " on SKIFF_TCP_IF=" : "",
                  *want && strcmp(want, "auto") ? want : "");
    return found ? -EADDRNOTAVAIL : 0;
}

static void addr_key(const struct tcp_tp *t, int rank, char *key, size_t cap)
{
    snprintf(key, cap, "skf-tcp-%u-%d", t->open_no, rank);
}

static struct tcp_conn *connect_peer(struct tcp_tp *t, int rank, int kind)
{
    char key[BOOT_KEY_MAX], val[BOOT_VAL_MAX], host[64];
    int port, rma_port;
    addr_key(t, rank, key, sizeof key);
    if (boot_get(key, val, sizeof val) != 0 ||
        sscanf(val, "%63[^:]:%d:%d", host, &port, &rma_port) != 3) {
        skf_error("tcp: rank %d port %u: no address published by rank %d", t->me, t->port, rank);
        peer_gone(t, rank, "no address");
        return NULL;
    }
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)(kind == TCP_CONN_RMA ? rma_port : port))};
    inet_pton(AF_INET, host, &sa.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    tune_socket(t, fd, t->cc);
    struct tcp_conn *c = new_conn(t, NULL, fd, kind, ROLE_CONNECTOR, rank);
    if (!c || (kind == TCP_CONN_DATA && ring_alloc(c, t->buf_bytes) < 0)) {
        if (c)
            free_conn(c);
        else
            close(fd);
        return NULL;
    }
    snprintf(c->name, sizeof c->name, "rank %d (%.40s)", rank, val);
    snprintf(t->peer[rank].where, sizeof t->peer[rank].where, "%s", host);
    if (kind == TCP_CONN_DATA && rank > t->me)
        c->route = ROUTE_WAIT; /* until it says FIRST or MOVED */
    c->hello = (struct tcp_hello){.magic = TCP_HS_MAGIC, .version = TCP_HS_VERSION,
                                  .kind = (uint8_t)kind, .port = t->port, .src = (uint32_t)t->me,
                                  .dst = (uint32_t)rank, .job_size = (uint32_t)t->size,
                                  .max_frame = (uint32_t)t->max_msg};
    skf_auth_nonce(c->hello.nonce);
    c->state = C_CONNECTING;
    c->interest = EPOLLOUT;
    struct epoll_event e = {.events = EPOLLOUT, .data.ptr = c};
    epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &e);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno != EINPROGRESS) {
        drop(c, strerror(errno));
        return c; /* dead: the caller sees C_DEAD */
    }
    return c;
}

/* ---- one-sided (RMA) -------------------------------------------------------- */

/* A queued operation's kind: op->write is 0 (get), 1 (put), RMA_OP_ATOMIC,
 * whose dst is a struct atomic_io (the payload sent, then the answer), or
 * RMA_OP_ACC, whose dst is the payload of a struct acc_io. */
#define RMA_OP_ATOMIC 2
#define RMA_OP_ACC 3
_Static_assert(TCP_ACC_ELEMS_MAX == SKF_ACC_MAX_BYTES && TCP_ACC_OP_NOOP == SKF_ACC_NOOP &&
                   TCP_ACC_OP_CSWAP == SKF_ACC_CSWAP,
               "frame.h's accumulate constants are skiff.h's");
struct atomic_io {
    struct tcp_rma_atomic req;
    uint64_t old;
};
struct acc_io {
    void *old;         /* where the answer's old elements go (NULL: none wanted) */
    uint64_t old_len;
    union {
        struct tcp_rma_acc hdr;
        uint8_t bytes[sizeof(struct tcp_rma_acc)];
    } payload;         /* the request's payload: header, elements, compare */
};
static struct acc_io *acc_io_of(const skf_get_op_t *op)
{
    return (struct acc_io *)((char *)op->dst - offsetof(struct acc_io, payload));
}

/* An RMA connection broke.  The main thread's (my requests) takes its peer
 * for gone; an owner's side (the service's) just ends: the requester learns
 * of it on its own side, and my data path is none of the service's business. */
static void rma_broken(struct tcp_conn *c, const char *why)
{
    if (!c->svc) {
        peer_gone(c->tp, c->peer, why);
        return;
    }
    skf_verbose(c->tp->ctx, "rank %d: port %u: one-sided connection from rank %d ended (%s)",
                c->tp->me, c->tp->port, c->peer, why);
    free_conn(c);
}

/* Write the pending header, then the payload, as far as the socket takes.
 * 1 when all is out, 0 to wait, -1 when the connection died. */
static int rma_write(struct tcp_conn *c)
{
    struct rma_state *s = &c->rma;
    while (s->hdr_out_off < s->hdr_out_len || s->out_left) {
        struct iovec v[2];
        int n = 0;
        if (s->hdr_out_off < s->hdr_out_len)
            v[n++] = (struct iovec){s->hdr_out + s->hdr_out_off, s->hdr_out_len - s->hdr_out_off};
        /* A get's answer reads exposed memory: hold the exposure table while
         * the socket copies it, and if the region was released meanwhile (a
         * stale request: its requester cannot be waiting for these bytes)
         * send zeros instead of reading memory that is no longer exposed. */
        skf_ctx_t *ctx = c->tp->ctx;
        int guard = s->out_left && s->out_exposed;
        if (guard) {
            pthread_mutex_lock(&ctx->mr_lock);
            if (!skf_mr_range_ok_locked(ctx, s->req.cookie, (uint64_t)(uintptr_t)s->out,
                                        s->out_left)) {
                static const uint8_t zeros[16384];
                v[n++] = (struct iovec){(void *)zeros,
                                        s->out_left < sizeof zeros ? s->out_left : sizeof zeros};
            } else {
                v[n++] = (struct iovec){(void *)s->out, s->out_left};
            }
        } else if (s->out_left) {
            v[n++] = (struct iovec){(void *)s->out, s->out_left};
        }
        ssize_t w = sock_writev(c->fd, v, n);
        if (guard)
            pthread_mutex_unlock(&ctx->mr_lock);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                set_interest(c, EPOLLIN | EPOLLRDHUP | EPOLLOUT);
                return 0;
            }
            rma_broken(c, strerror(errno));
            return -1;
        }
        uint64_t h = s->hdr_out_len - s->hdr_out_off;
        if ((uint64_t)w <= h)
            s->hdr_out_off += (size_t)w;
        else {
            s->hdr_out_off = s->hdr_out_len;
            s->out += (uint64_t)w - h;
            s->out_left -= (uint64_t)w - h;
        }
    }
    set_interest(c, EPOLLIN | EPOLLRDHUP);
    return 1;
}

#define RMA_IBUF 16384
#define RMA_OBUF 16384
#define RMA_SMALL_ANSWER 512 /* answers up to this size (header included) are collected */

/* recv for an RMA connection: from the bytes read ahead first; a large read
 * with nothing ahead goes straight to its destination (a get's data, a put's
 * payload: no copy through the buffer). */
static ssize_t rma_recv(struct tcp_conn *c, void *to, size_t n)
{
    struct rma_state *s = &c->rma;
    if (s->ib_pos == s->ib_len) {
        if (n >= RMA_IBUF / 2)
            return sc_recv(c->fd, to, n, 0);
        if (!s->ib && !(s->ib = malloc(RMA_IBUF))) {
            errno = ENOMEM;
            return -1;
        }
        ssize_t r = sc_recv(c->fd, s->ib, RMA_IBUF, 0);
        if (r <= 0)
            return r;
        s->ib_short = r < RMA_IBUF;
        s->ib_len = (size_t)r;
        s->ib_pos = 0;
    }
    size_t k = s->ib_len - s->ib_pos < n ? s->ib_len - s->ib_pos : n;
    memcpy(to, s->ib + s->ib_pos, k);
    s->ib_pos += k;
    return (ssize_t)k;
}

/* Read the header (exactly), then the payload into s->in (or discard it).
 * 1 when both are complete, 0 to wait, -1 when the connection died. */
static int rma_read(struct tcp_conn *c)
{
    struct rma_state *s = &c->rma;
    while (s->hdr_in_len < s->hdr_in_need) {
        ssize_t r = rma_recv(c, s->hdr_in + s->hdr_in_len, s->hdr_in_need - s->hdr_in_len);
        if (r > 0) {
            s->hdr_in_len += (size_t)r;
            if (s->hdr_in_len == s->hdr_in_need)
                return 2; /* header complete: the caller decides where the payload goes */
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (r == 0 && s->hdr_in_len == 0 && !(c->role == ROLE_CONNECTOR && s->q_head)) {
            if (c->svc) { /* idle and closed by the other side: a clean close */
                free_conn(c);
                return -1;
            }
            close_fd(c);
            c->state = C_DEAD;
            return -1;
        }
        rma_broken(c, r == 0 ? "connection closed" : strerror(errno));
        return -1;
    }
    while (s->in_left) {
        uint8_t sink[4096];
        uint8_t *to = s->in ? s->in : sink;
        size_t n = s->in ? s->in_left : (s->in_left < sizeof sink ? s->in_left : sizeof sink);
        ssize_t r = rma_recv(c, to, n);
        if (r > 0) {
            if (s->in)
                s->in += r;
            s->in_left -= (uint64_t)r;
            if (c->role == ROLE_CONNECTOR) /* my get's answer is streaming in */
                c->tp->ctx->io_moved++;
            continue;
        }
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        rma_broken(c, r == 0 ? "connection closed" : strerror(errno));
        return -1;
    }
    return 1;
}

/* Owner side of an ACC whose payload has arrived: execute it, fill the
 * answer (resp, s->out).  -1 when the payload was malformed (dropped). */
static int acc_serve(struct tcp_conn *c, struct tcp_rma_resp *resp)
{
    struct rma_state *s = &c->rma;
    struct tcp_rma_acc a;
    memcpy(&a, s->acc_buf, sizeof a);
    size_t es = skf_acc_type_size((int)a.type);
    const char *bad = tcp_rma_acc_check(&a, s->req.len, es);
    if (bad) {
        drop(c, bad);
        return -1;
    }
    const uint8_t *elems = s->acc_buf + sizeof a;
    size_t n = (size_t)a.count * es;
    uint8_t *old = s->acc_buf + TCP_ACC_REQ_MAX; /* 8-byte aligned: TCP_ACC_REQ_MAX is */
    int fetch = (a.flags & TCP_ACC_FETCH) != 0;
    resp->status = skf_acc_exec(c->tp->ctx, s->req.cookie, s->req.addr, (int)a.op, (int)a.type,
                                a.count, a.op == SKF_ACC_NOOP ? NULL : elems,
                                a.op == SKF_ACC_CSWAP ? elems + n : NULL, fetch ? old : NULL,
                                a.lock_cookie, a.lock_addr, a.lock_val);
    resp->op = TCP_RMA_ACC_RESP;
    resp->len = resp->status == 0 && fetch ? n : 0;
    s->out = old;
    return 0;
}

/* Owner: send the collected answers.  1 all out, 0 to wait (EPOLLOUT), -1 dead. */
static int ob_flush(struct tcp_conn *c)
{
    struct rma_state *s = &c->rma;
    while (s->ob_off < s->ob_len) {
        ssize_t w = sc_send(c->fd, s->ob + s->ob_off, s->ob_len - s->ob_off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            set_interest(c, EPOLLIN | EPOLLRDHUP | EPOLLOUT);
            return 0;
        }
        if (w < 0) {
            rma_broken(c, strerror(errno));
            return -1;
        }
        s->ob_off += (size_t)w;
    }
    if (s->ob_len)
        set_interest(c, EPOLLIN | EPOLLRDHUP);
    s->ob_len = s->ob_off = 0;
    return 1;
}

/* Owner: a small answer (in hdr_out + out, none of it sent yet) joins the
 * collected ones; a get's data is copied while its exposure is held (zeros
 * when it went, as rma_write does).  0 when it does not fit or is partly
 * sent already (rma_write goes on with it): send it the ordinary way. */
static int ob_add(struct tcp_conn *c)
{
    struct rma_state *s = &c->rma;
    size_t n = s->hdr_out_len + s->out_left;
    if (s->hdr_out_off || n > RMA_SMALL_ANSWER || s->ob_off || s->ob_len + n > RMA_OBUF ||
        (!s->ob && !(s->ob = malloc(RMA_OBUF))))
        return 0;
    uint8_t *at = s->ob + s->ob_len;
    memcpy(at, s->hdr_out, s->hdr_out_len);
    at += s->hdr_out_len;
    if (s->out_left && s->out_exposed) {
        skf_ctx_t *ctx = c->tp->ctx;
        pthread_mutex_lock(&ctx->mr_lock);
        if (skf_mr_range_ok_locked(ctx, s->req.cookie, (uint64_t)(uintptr_t)s->out, s->out_left))
            memcpy(at, s->out, s->out_left);
        else
            memset(at, 0, s->out_left);
        pthread_mutex_unlock(&ctx->mr_lock);
    } else if (s->out_left) {
        memcpy(at, s->out, s->out_left);
    }
    s->ob_len += n;
    return 1;
}

/* Owner side: read requests and answer them.  Small answers are collected
 * while more requests are readable and leave together once none is: a run
 * of queued puts (or gets, atomics) costs one send, not one each. */
static void rma_serve(struct tcp_conn *c)
{
    struct tcp_tp *t = c->tp;
    struct rma_state *s = &c->rma;
    for (;;) {
        if (s->busy == 2) { /* answering */
            if (!ob_add(c) && (ob_flush(c) != 1 || rma_write(c) != 1))
                return;
            s->busy = 0;
            s->hdr_in_len = 0;
            s->hdr_in_need = sizeof(struct tcp_rma_req);
        }
        /* Everything read ahead is answered and that read emptied the
         * socket: the collected answers leave now, not after one more recv
         * that most likely says EAGAIN (one system call less between a
         * request's arrival and its answer). */
        if (s->ob_len && s->ib_pos == s->ib_len && s->ib_short && ob_flush(c) < 0)
            return;
        int r = rma_read(c);
        if (r == 0 && s->ob_len)
            ob_flush(c); /* nothing more to read now: what was collected leaves */
        if (r <= 0)
            return;
        if (r == 2) { /* a request header */
            memcpy(&s->req, s->hdr_in, sizeof s->req);
            const char *bad = tcp_rma_req_check(&s->req, UINT64_MAX / 2);
            if (bad) {
                drop(c, bad);
                return;
            }
            s->in = NULL;
            s->in_left = 0;
            if (s->req.op == TCP_RMA_ATOMIC) { /* its operands follow */
                s->in = (uint8_t *)&s->atomic;
                s->in_left = sizeof s->atomic;
                s->busy = 1;
                continue;
            }
            if (s->req.op == TCP_RMA_ACC) { /* header and elements follow */
                if (!s->acc_buf && !(s->acc_buf = malloc(TCP_ACC_REQ_MAX + SKF_ACC_MAX_BYTES))) {
                    drop(c, "out of memory for an accumulate");
                    return;
                }
                s->in = s->acc_buf;
                s->in_left = s->req.len;
                s->busy = 1;
                continue;
            }
            int ok = skf_mr_range_ok(t->ctx, s->req.cookie, s->req.addr, s->req.len);
            s->status = ok ? 0 : -EINVAL;
            if (s->req.op == TCP_RMA_PUT) { /* the data follows: into place, or discarded */
                s->in = ok ? (uint8_t *)(uintptr_t)s->req.addr : NULL;
                s->in_left = s->req.len;
                s->busy = 1;
                continue;
            }
        }
        /* request complete: answer */
        struct tcp_rma_resp resp = {.id = s->req.id, .status = s->status};
        s->out = (const uint8_t *)(uintptr_t)s->req.addr;
        if (s->req.op == TCP_RMA_ATOMIC) {
            resp.status = skf_atomic_exec(t->ctx, s->req.cookie, s->req.addr, (int)s->atomic.op,
                                          (int)s->atomic.size, s->atomic.operand,
                                          s->atomic.compare, &s->old);
            resp.op = TCP_RMA_ATOMIC_RESP;
            resp.len = resp.status == 0 ? TCP_ATOMIC_RESP_LEN : 0;
            s->out = (const uint8_t *)&s->old;
        } else if (s->req.op == TCP_RMA_ACC) {
            if (acc_serve(c, &resp) < 0)
                return;
        } else {
            resp.op = s->req.op == TCP_RMA_GET ? TCP_RMA_GET_RESP : TCP_RMA_PUT_RESP;
            resp.len = s->req.op == TCP_RMA_GET && s->status == 0 ? s->req.len : 0;
        }
        memcpy(s->hdr_out, &resp, sizeof resp);
        s->hdr_out_len = sizeof resp;
        s->hdr_out_off = 0;
        s->out_left = resp.len;
        s->out_exposed = s->req.op == TCP_RMA_GET;
        s->busy = 2;
        s->answered++;
    }
}

/* ---- requester queue ---- */

static struct tcp_rma_req req_of(const skf_get_op_t *op)
{
    return (struct tcp_rma_req){.op = op->write == RMA_OP_ACC      ? TCP_RMA_ACC
                                      : op->write == RMA_OP_ATOMIC ? TCP_RMA_ATOMIC
                                      : op->write                  ? TCP_RMA_PUT
                                                                   : TCP_RMA_GET,
                                .id = op->id,
                                .cookie = op->cookie, .addr = op->addr, .len = op->len};
}

/* The request of c's first unwritten operation into hdr_out (+ a put's data). */
static void rmaq_load(struct tcp_conn *c)
{
    struct rma_state *s = &c->rma;
    const skf_get_op_t *op = s->q_wr;
    struct tcp_rma_req req = req_of(op);
    memcpy(s->hdr_out, &req, sizeof req);
    s->hdr_out_len = sizeof req;
    s->hdr_out_off = 0;
    s->out = op->write ? op->dst : NULL; /* a put's data, an atomic's operands */
    s->out_exposed = 0;
    s->out_left = op->write ? op->len : 0;
}

static void rmaq_unlist(struct tcp_conn *c)
{
    for (struct tcp_conn **p = &c->tp->rmaq; *p; p = &(*p)->next_rmaq)
        if (*p == c) {
            *p = c->next_rmaq;
            break;
        }
    c->next_rmaq = NULL;
}

static void rmaq_finish(struct tcp_tp *t, skf_get_op_t *op, int status)
{
    op->status = status;
    op->state = SKF_GET_OP_DONE;
    if (op->async)
        t->gets_done = 1;
}

/* The connection died (or closes): every queued operation fails. */
static void rmaq_fail_all(struct tcp_conn *c, int status)
{
    struct rma_state *s = &c->rma;
    if (c->role != ROLE_CONNECTOR || c->kind != TCP_CONN_RMA || !s->q_head)
        return;
    for (skf_get_op_t *op = s->q_head, *next; op; op = next) {
        next = op->next;
        rmaq_finish(c->tp, op, status);
    }
    s->q_head = s->q_tail = s->q_wr = NULL;
    rmaq_unlist(c);
}

#define RMA_BATCH 32                /* requests per sendmsg */
#define RMA_QUICKACK_MIN 4096       /* gets from this size on set TCP_QUICKACK when done */
#define RMA_BATCH_BYTES (256 << 10) /* ... and bytes */

/* Requester: the unwritten requests from q_wr on (none of the first written
 * yet) in one sendmsg, as many as RMA_BATCH / RMA_BATCH_BYTES allow: a run
 * of queued puts leaves together, and the owner reads them with one recv.
 * q_wr ends at the first request not wholly written, loaded, with what of
 * it went out.  1 all out, 0 to wait (EPOLLOUT), -1 dead. */
static int rmaq_write_batch(struct tcp_conn *c)
{
    struct rma_state *s = &c->rma;
    struct tcp_rma_req h[RMA_BATCH];
    struct iovec v[2 * RMA_BATCH];
    skf_get_op_t *ops[RMA_BATCH];
    int n = 0, nv = 0;
    size_t total = 0;
    for (skf_get_op_t *op = s->q_wr; op && n < RMA_BATCH; op = op->next) {
        size_t pay = op->write ? op->len : 0;
        if (n && total + sizeof h[0] + pay > RMA_BATCH_BYTES)
            break;
        h[n] = req_of(op);
        v[nv++] = (struct iovec){&h[n], sizeof h[n]};
        if (pay)
            v[nv++] = (struct iovec){op->dst, pay};
        ops[n++] = op;
        total += sizeof h[0] + pay;
    }
    ssize_t w;
    do
        w = sock_writev(c->fd, v, nv);
    while (w < 0 && errno == EINTR);
    if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        rma_broken(c, strerror(errno));
        return -1;
    }
    size_t left = w < 0 ? 0 : (size_t)w;
    int i = 0;
    for (; i < n; i++) {
        size_t sz = sizeof h[0] + (ops[i]->write ? ops[i]->len : 0);
        if (left < sz)
            break;
        left -= sz;
    }
    s->q_wr = i < n ? ops[i] : ops[n - 1]->next;
    if (s->q_wr)
        rmaq_load(c);
    if (i == n) {
        set_interest(c, EPOLLIN | EPOLLRDHUP);
        return 1;
    }
    if (left <= s->hdr_out_len) { /* the part of ops[i] that went */
        s->hdr_out_off = left;
    } else {
        s->hdr_out_off = s->hdr_out_len;
        s->out += left - s->hdr_out_len;
        s->out_left -= left - s->hdr_out_len;
    }
    set_interest(c, EPOLLIN | EPOLLRDHUP | EPOLLOUT);
    return 0;
}

/* Requester: write the queued requests as far as the socket takes them (an
 * open connection).  1 all written, 0 to wait (EPOLLOUT), -1 the connection
 * died (its operations have failed). */
static int rmaq_write(struct tcp_conn *c)
{
    struct rma_state *s = &c->rma;
    while (s->q_wr) {
        if (s->hdr_out_off == 0 && s->q_wr->next) { /* several waiting: together */
            int b = rmaq_write_batch(c);
            if (b < 0) {
                rmaq_fail_all(c, -EPIPE);
                return -1;
            }
            if (b == 0)
                return 0;
            continue;
        }
        int w = rma_write(c);
        if (w < 0) {
            rmaq_fail_all(c, -EPIPE);
            return -1;
        }
        if (w == 0)
            return 0;
        s->q_wr = s->q_wr->next;
        if (s->q_wr)
            rmaq_load(c);
    }
    return 1;
}

/* Requester: push queued requests, take the answers in order.  Returns how
 * many operations finished. */
static int rma_request_progress(struct tcp_conn *c)
{
    struct rma_state *s = &c->rma;
    int finished = 0;
    if (!s->q_head || c->state != C_OPEN)
        return 0;
    if (rmaq_write(c) < 0)
        return 1;
    while (s->q_head) {
        skf_get_op_t *op = s->q_head;
        int r = rma_read(c);
        if (r < 0) {
            rmaq_fail_all(c, -EPIPE);
            return finished + 1;
        }
        if (r == 0)
            break;
        if (r == 2) {
            struct tcp_rma_resp resp;
            memcpy(&resp, s->hdr_in, sizeof resp);
            int atomic = op->write == RMA_OP_ATOMIC, acc = op->write == RMA_OP_ACC;
            const char *bad = tcp_rma_resp_check(&resp, op->id,
                                                 acc         ? TCP_RMA_ACC_RESP
                                                 : atomic    ? TCP_RMA_ATOMIC_RESP
                                                 : op->write ? TCP_RMA_PUT_RESP
                                                             : TCP_RMA_GET_RESP,
                                                 acc         ? acc_io_of(op)->old_len
                                                 : atomic    ? TCP_ATOMIC_RESP_LEN
                                                 : op->write ? 0
                                                             : op->len);
            if (bad) {
                drop(c, bad); /* the peer is gone: the queue fails */
                return finished + 1;
            }
            s->status = resp.status;
            /* GET data straight into the caller's buffer; an atomic's old value into its io */
            s->in = acc        ? acc_io_of(op)->old
                    : atomic    ? (uint8_t *)&((struct atomic_io *)op->dst)->old
                    : op->write ? NULL
                                : op->dst;
            s->in_left = resp.len;
            continue;
        }
        /* op's answer is complete */
        s->q_head = op->next;
        if (!s->q_head) {
            s->q_tail = NULL;
            rmaq_unlist(c);
        }
        s->hdr_in_len = 0;
        s->in = NULL;
        if (!op->write && op->len >= RMA_QUICKACK_MIN) {
            /* acknowledge a large get's data now, not on the delayed-ACK timer
             * (64 KiB gets: 49 -> 30 us with reno, docs/tcp.md); a small
             * answer is one segment, acknowledged by my next request */
            int one = 1;
            setsockopt(c->fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
        }
        rmaq_finish(c->tp, op, (int)s->status);
        finished++;
    }
    return finished;
}

/* Something on my RMA connection while no request of mine is pending: the
 * owner's end (its channel closed or it died: the next request reconnects
 * and learns which) or a reset; bytes would break the protocol.  Without
 * this, the readable EOF would wake every epoll_wait for good. */
static void rma_idle_event(struct tcp_conn *c)
{
    char b;
    ssize_t r = sc_recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (r > 0) {
        drop(c, "an answer with no request pending");
        return;
    }
    close_fd(c);
    c->state = C_DEAD;
}

/* Requesters with work are polled on every progress pass, as the hot
 * receive connection is: an answer streaming in is read at once. */
static int rmaq_progress_all(struct tcp_tp *t)
{
    int finished = 0;
    for (struct tcp_conn *c = t->rmaq, *next; c; c = next) {
        next = c->next_rmaq;
        finished += rma_request_progress(c);
    }
    return finished;
}

/* Queue op (its fields but state/id set by the caller) on my RMA connection to peer. */
static int rmaq_start(struct tcp_tp *t, int peer, skf_get_op_t *op)
{
    struct tcp_peer *p = &t->peer[peer];
    if (p->rma && p->rma->state == C_DEAD && !p->gone) { /* closed while idle: start over */
        free_conn(p->rma);
        p->rma = NULL;
    }
    if (!p->rma) {
        if (p->gone || p->closed || !(p->rma = connect_peer(t, peer, TCP_CONN_RMA)))
            return -EPIPE;
    }
    struct tcp_conn *c = p->rma;
    if (c->state == C_DEAD)
        return -EPIPE;
    struct rma_state *s = &c->rma;
    op->next = NULL;
    op->id = ++t->rma_next_id;
    op->state = SKF_GET_OP_QUEUED;
    op->status = 0;
    if (!s->q_head) { /* an idle requester: fresh answer state */
        s->q_head = op;
        s->hdr_in_len = 0;
        s->hdr_in_need = sizeof(struct tcp_rma_resp);
        s->in = NULL;
        s->in_left = 0;
        c->next_rmaq = t->rmaq;
        t->rmaq = c;
    } else {
        s->q_tail->next = op;
    }
    s->q_tail = op;
    if (!s->q_wr) {
        s->q_wr = op;
        rmaq_load(c);
    }
    /* The request leaves now when the connection is open and idle; a started
     * get or put behind others in flight waits for the next progress pass
     * (the flush that completes it, at the latest), so a run of them leaves
     * in one sendmsg (rmaq_write_batch) and the owner reads it with one recv.
     * A held put (skf_put_start_held) waits for the push even when first: it
     * leaves with what its caller starts next (SHMEM's put and signal). */
    if (!op->async || (s->q_head == op && op->async != SKF_ASYNC_HELD))
        rma_request_progress(c);
    return 0;
}

static int tcp_rma_start(void *tpv, int peer, int write, const skf_mr_key_t *key, uint64_t addr,
                         void *buf, size_t len, skf_get_op_t *op)
{
    op->write = (int8_t)(write != 0);
    op->cookie = key->cookie;
    op->addr = addr;
    op->dst = buf;
    op->len = len;
    return rmaq_start(tpv, peer, op);
}

/* skf_rma_push: write every queued request, progress while some cannot be
 * (a full socket, a connection in its handshake).  The answers are not read
 * here: they wait in the socket for the next progress pass or wait (quiet's),
 * which reads a run of them with one recv -- a stream of 64 KiB _nbi puts
 * made 1-2 recv per put in each push, a fifth of the origin's CPU beside the
 * copies into the socket (perf), and each took the socket's lock against the
 * softirq delivering to it. */
static int tcp_push(void *tpv)
{
    struct tcp_tp *t = tpv;
    for (long polls = 0;; polls++) {
        int unwritten = 0;
        for (struct tcp_conn *c = t->rmaq, *next; c; c = next) {
            next = c->next_rmaq; /* a connection that dies leaves the list */
            if (!c->rma.q_wr || c->state == C_DEAD)
                continue; /* a dead connection's operations have failed (skf_get_test says) */
            if (c->state != C_OPEN || rmaq_write(c) == 0)
                unwritten = 1;
        }
        if (!unwritten)
            return 0;
        progress(t, polls < t->spin ? 0 : 1);
    }
}

/* Blocking get/put/atomic: queued behind any gets in flight, then waited for. */
static int rma_blocking(struct tcp_tp *t, int peer, int write, const skf_mr_key_t *key,
                        uint64_t addr, void *buf, size_t len)
{
    skf_get_op_t op = {.write = (int8_t)write, .cookie = key->cookie, .addr = addr, .dst = buf,
                       .len = len};
    int rc = rmaq_start(t, peer, &op);
    if (rc < 0)
        return rc;
    /* Poll first (SKIFF_SPIN rounds: the answer usually comes within a
     * round trip, and a sleeper pays a wake-up per chunk), then sleep.  Node
     * mates' one-sided requests to me are served meanwhile (mr.c): one of
     * them may be what my owner is waiting for. */
    for (long polls = 0; op.state != SKF_GET_OP_DONE; polls++) {
        if (t->ctx->fb_serve)
            skf_fallback_progress(t->ctx);
        if (polls < t->spin && (polls % TCP_EPOLL_EVERY) != TCP_EPOLL_EVERY - 1) {
            /* the answer, and requests to me: one recv each, not the
             * hot receive connection too (epoll's passes see it) */
            svc_note_poll(t->eng->svc);
            rmaq_progress_all(t);
            svc_poll_hot(t);
            t->epoll_skipped++;
            continue;
        }
        progress(t, polls < t->spin ? 0 : (t->ctx->fb_serve ? 1 : TCP_SLEEP_SLICE_MS));
    }
    return op.status;
}

static int tcp_rma(void *tpv, int peer, int write, const skf_mr_key_t *key, uint64_t addr,
                   void *buf, size_t len)
{
    return rma_blocking(tpv, peer, write, key, addr, buf, len);
}

static int tcp_atomic(void *tpv, int peer, const skf_mr_key_t *key, uint64_t addr, int op,
                      int size, uint64_t operand, uint64_t compare, uint64_t *old)
{
    struct atomic_io io = {{(uint32_t)op, (uint32_t)size, operand, compare}, 0};
    int rc = rma_blocking(tpv, peer, RMA_OP_ATOMIC, key, addr, &io, sizeof io.req);
    if (rc == 0)
        *old = io.old;
    return rc;
}

/* skf_atomic_start: the request's payload and the answer live in a itself,
 * laid out as struct atomic_io. */
_Static_assert(offsetof(skf_atomic_op_t, compare) - offsetof(skf_atomic_op_t, aop) ==
                       offsetof(struct atomic_io, req.compare) &&
                   offsetof(skf_atomic_op_t, old) - offsetof(skf_atomic_op_t, aop) ==
                       offsetof(struct atomic_io, old),
               "skf_atomic_op_t carries a struct atomic_io from its aop field on");
static int tcp_atomic_start(void *tpv, int peer, const skf_mr_key_t *key, uint64_t addr,
                            skf_atomic_op_t *a)
{
    skf_get_op_t *op = &a->op;
    op->write = RMA_OP_ATOMIC;
    op->cookie = key->cookie;
    op->addr = addr;
    op->dst = &a->aop;
    op->len = sizeof(struct tcp_rma_atomic);
    return rmaq_start(tpv, peer, op);
}

/* One accumulate request (skf_accumulate): the payload built in one block,
 * queued like an atomic, waited for. */
static int tcp_acc(void *tpv, int peer, const skf_mr_key_t *key, uint64_t addr, int op, int type,
                   size_t count, const void *operand, const void *compare, void *old,
                   uint64_t lock_cookie, uint64_t lock_addr, uint64_t lock_val)
{
    size_t es = skf_acc_type_size(type), n = count * es;
    size_t len = sizeof(struct tcp_rma_acc) + (op == SKF_ACC_NOOP ? 0 : n) +
                 (op == SKF_ACC_CSWAP ? es : 0);
    union {
        struct acc_io io;
        uint8_t room[sizeof(struct acc_io) + 256];
    } small;
    struct acc_io *io = len <= sizeof small.room - offsetof(struct acc_io, payload)
                            ? &small.io
                            : malloc(offsetof(struct acc_io, payload) + len);
    if (!io)
        return -ENOMEM;
    io->old = old;
    io->old_len = old ? n : 0;
    io->payload.hdr = (struct tcp_rma_acc){(uint32_t)op, (uint32_t)type, (uint32_t)count,
                                           old ? TCP_ACC_FETCH : 0, lock_cookie, lock_addr,
                                           lock_val};
    uint8_t *at = io->payload.bytes + sizeof(struct tcp_rma_acc);
    if (op != SKF_ACC_NOOP)
        memcpy(at, operand, n);
    if (op == SKF_ACC_CSWAP)
        memcpy(at + n, compare, es);
    int rc = rma_blocking(tpv, peer, RMA_OP_ACC, key, addr, io->payload.bytes, len);
    if (io != &small.io)
        free(io);
    return rc;
}

/* ---- progress and waiting ------------------------------------------------- */

static void on_event(struct tcp_conn *c, uint32_t ev)
{
    switch (c->state) {
    case C_CONNECTING:
        on_connected(c);
        return;
    case C_WAIT_CHALLENGE:
        if (hs_read(c) == 1)
            on_challenge(c);
        return;
    case A_WAIT_HELLO:
        if (hs_read(c) == 1)
            on_hello(c);
        return;
    case A_WAIT_PROOF:
        if (hs_read(c) == 1)
            on_proof(c);
        return;
    case C_OPEN:
        break;
    default:
        return;
    }
    if (c->kind == TCP_CONN_DATA) {
        if (ev & EPOLLOUT)
            flush_tx(c);
        if (c->state == C_OPEN && (ev & ~(uint32_t)EPOLLOUT))
            fill_rx(c);
        return;
    }
    if (c->role == ROLE_ACCEPTOR)
        rma_serve(c);
    else if (c->rma.q_head)
        rma_request_progress(c);
    else
        rma_idle_event(c);
}

/* Handshakes that take too long.  A handshake moves only when both
 * processes run Skiff's progress, and a member of the job may compute
 * outside MPI for minutes: a first message to a rank that is busy (its
 * challenge waits), or a dial whose caller left MPI right after (its hello
 * or proof waits), must not cost the job that peer.  So:
 *  - a connect still unanswered (SYN) expires: the host is unreachable;
 *  - a connection the peer's kernel took never does on the dialling side:
 *    the peer's process answers when it next polls, its death is an RST or
 *    EOF, its host's loss keepalive's error;
 *  - an accepted one (it has proved nothing yet) expires only while more
 *    than SKIFF_TCP_HS_PATIENT (8) accepted handshakes are pending on the
 *    list: a flood of silent strangers stays bounded, a slow member among a
 *    few is waited for (its host's loss: keepalive, set on accepted sockets
 *    too); if one is dropped all the same, its dialler dials again (redial). */
static void expire_handshakes(struct tcp_conn *hs_list, int patient)
{
    long long now = skf_now_ms();
    int accepted = 0;
    for (struct tcp_conn *c = hs_list; c; c = c->next_hs)
        accepted += c->role == ROLE_ACCEPTOR;
    for (struct tcp_conn *c = hs_list, *next; c; c = next) {
        next = c->next_hs;
        if (now <= c->deadline_ms || (c->role == ROLE_CONNECTOR ? c->state != C_CONNECTING
                                                                 : accepted <= patient))
            continue;
        accepted -= c->role == ROLE_ACCEPTOR;
        drop(c, "handshake timed out");
    }
}

/* Direct payloads leaving are pushed on every pass (a sender waiting in
 * MPI for its send: the socket takes more as soon as the receiver reads),
 * not at epoll's turn.  How many moved. */
static int douts_progress(struct tcp_tp *t)
{
    int moved = 0;
    for (struct tcp_conn *c = t->douts, *next; c; c = next) {
        next = c->next_dout;
        if (c->state == C_DEAD) {
            dout_finish(c, -EPIPE);
            moved++;
        } else if (c->state == C_OPEN) {
            uint64_t left = c->dout_left, head = c->tx.head;
            flush_tx(c);
            moved += c->dout != NULL ? c->dout_left != left || c->tx.head != head : 1;
        }
    }
    return moved;
}

/* A direct payload's op under way: addr holds its id, dst its buffer. */
static void direct_op_init(skf_get_op_t *op, void *buf, size_t len, uint64_t id, int send)
{
    op->next = NULL;
    op->dst = buf;
    op->len = len;
    op->addr = id;
    op->write = (int8_t)send;
    op->status = 0;
    op->state = SKF_GET_OP_QUEUED;
}

/* skf_send_direct: the header into tx (behind what waits there), the
 * payload written from the caller's memory after it.  One at a time per
 * connection (-EAGAIN while one is leaving).  1 all out, 0 under way. */
static int tcp_send_direct(void *tpv, int peer, uint64_t id, const void *buf, size_t len,
                           skf_get_op_t *op)
{
    struct tcp_tp *t = tpv;
    struct tcp_peer *p = &t->peer[peer];
    struct tcp_conn *c = p->tx;
    if (!c && (p->gone || !(c = p->dial = p->tx = connect_peer(t, peer, TCP_CONN_DATA))))
        return -EPIPE;
    if (c->state == C_DEAD || p->closed || p->gone)
        return -EPIPE;
    if (c->dout)
        return -EAGAIN;
    if (c->announce) { /* as tcp_send: the peer holds my frames until it knows where they stand */
        struct tcp_frame_hdr a = {0, t->port, (uint8_t)c->announce, TCP_FRAME_MAGIC};
        c->announce = 0;
        send_control(c, &a, sizeof a);
    }
    struct {
        struct tcp_frame_hdr h;
        uint64_t id, len;
    } f = {{TCP_DIRECT_LEN, t->port, TCP_FRAME_DIRECT, TCP_FRAME_MAGIC}, id, len};
    /* never more than one header in tx besides the control frames: the
     * reserve the window leaves covers it */
    ring_write(&c->tx, &f, sizeof f);
    direct_op_init(op, (void *)buf, len, id, 1);
    c->dout = op;
    c->dout_p = buf;
    c->dout_left = len;
    c->dout_at = c->tx.tail;
    c->next_dout = t->douts;
    t->douts = c;
    if (c->state == C_OPEN)
        flush_tx(c);
    return op->state == SKF_GET_OP_DONE ? (op->status < 0 ? op->status : 1) : 0;
}

/* skf_recv_direct: the peer's direct payload named id goes to buf. */
static int tcp_recv_direct(void *tpv, int peer, uint64_t id, void *buf, size_t len,
                           skf_get_op_t *op)
{
    struct tcp_tp *t = tpv;
    struct tcp_peer *p = &t->peer[peer];
    if (p->gone || p->closed)
        return -EPIPE;
    direct_op_init(op, buf, len, id, 0);
    if (p->dq_tail)
        p->dq_tail->next = op;
    else
        p->dq_head = op;
    p->dq_tail = op;
    return 0;
}

/* Handle what epoll reports (waiting up to timeout_ms).  Returns how many
 * sockets had something. */
static int progress(struct tcp_tp *t, int timeout_ms)
{
    struct tcp_conn *h = t->hot;
    struct tcp_svc *v = t->eng->svc;
    svc_note_poll(v);
    int moved = t->rmaq ? rmaq_progress_all(t) : 0;
    if (t->douts)
        moved += douts_progress(t);
    if (timeout_ms == 0)
        moved += svc_poll_hot(t);
    /* One-sided requests to me stream in (the served connection is hot and
     * had a request in its last SVC_HOT_STREAM passes): three passes of
     * TCP_EPOLL_EVERY read only its connection, one system call a pass, so
     * a request waits half a call for its answer, not one and a half; the
     * hot receive connection and epoll get every TCP_EPOLL_EVERY-th pass, as
     * epoll does anyway (a fetch_add's owner: 2.25 calls a pass before, 1.5
     * after).  Not once the stream has paused: a waiter that yields between
     * passes (SHMEM's barrier) would wait three yields for a message. */
    if (timeout_ms == 0 && t->svc_polled && ++t->epoll_skipped < TCP_EPOLL_EVERY)
        return moved;
    if (timeout_ms == 0 && h && h->state == C_OPEN && (h->din || h->rx.tail - h->rx.head < h->rx.cap)) {
        uint64_t had = h->rx.tail, rel = h->released, din = h->din_left;
        long frames = h->nframes;
        hot_detach(h);
        fill_rx(h); /* may drop it, or end it (EOF): moved either way */
        moved |= h->rx.tail != had || h->nframes != frames || h->released != rel ||
                 h->din_left != din || h->state != C_OPEN;
        if (!moved && h->ack_owed) /* idle now: the ACK costs nobody a wait */
            ack_flush(h);
        /* every TCP_HOT_EPOLL_EVERY-th pass asks epoll (TCP_EPOLL_EVERY-th
         * while serving a stream of requests, as above, or while a send ring
         * waits for EPOLLOUT, which only epoll reports), busy hot stream or not: other
         * peers, requests to serve and handshakes are never starved.  A pass
         * whose read brought something asks on the next pass instead (up to
         * one interval late): its epoll_wait would stand between a message
         * and the answer the caller is about to send. */
        unsigned every = t->svc_polled || t->tx_waiting ? TCP_EPOLL_EVERY : TCP_HOT_EPOLL_EVERY;
        if (++t->epoll_skipped < every || (moved && t->epoll_skipped < 2 * every))
            return moved;
    }
    if (timeout_ms != 0 && h) {
        if (h->ack_owed)
            ack_flush(h);
        hot_attach(h); /* a sleeper is woken by it */
    }
    t->epoll_skipped = 0;
    struct epoll_event ev[TCP_EVENTS];
    int asleep = timeout_ms != 0 && __atomic_load_n(&v->claimed, __ATOMIC_ACQUIRE);
    if (asleep) /* requests still wake me: the service stays claimed */
        __atomic_add_fetch(&v->sleepers, 1, __ATOMIC_SEQ_CST);
    int n = sc_epoll_wait(t->epfd, ev, TCP_EVENTS, timeout_ms);
    if (asleep)
        __atomic_sub_fetch(&v->sleepers, 1, __ATOMIC_SEQ_CST);
    for (int i = 0; i < n; i++) {
        struct tcp_conn *c = ev[i].data.ptr;
        if (!c) /* the RMA service's epoll set: requests to answer */
            moved += svc_serve_here(t);
        else if (c->state == C_LISTEN)
            on_accept(c->tp, NULL);
        else
            on_event(c, ev[i].events);
    }
    if (t->hs_list)
        expire_handshakes(t->hs_list, t->hs_patient);
    return (n > 0 ? n : 0) + moved;
}

static int tcp_lost_peer(void *tpv, char *desc, size_t cap)
{
    const struct tcp_tp *t = tpv;
    for (int r = 0; r < t->size; r++) {
        const struct tcp_peer *p = &t->peer[r];
        if (r == t->me || !(p->gone || p->closed))
            continue;
        int local = t->ctx->local_of_rank[r];
        if (local >= 0)
            snprintf(desc, cap, "pid %d, this node, ", (int)t->ctx->local_pid[local]);
        else
            snprintf(desc, cap, "%s%s%s", p->where[0] ? "on " : "", p->where, p->where[0] ? ", " : "");
        size_t n = strlen(desc);
        snprintf(desc + n, cap - n, "%s", p->gone ? (p->gone_why ? p->gone_why : "gone")
                                                  : "closed the channel");
        return r;
    }
    return -1;
}

static int tcp_peer_died(void *tpv)
{
    return ((const struct tcp_tp *)tpv)->any_gone;
}

static int writable(struct tcp_tp *t)
{
    if (t->blocked < 0)
        return 1;
    struct tcp_peer *p = &t->peer[t->blocked];
    if (p->gone || p->closed)
        return 0; /* wait reports -EPIPE */
    struct tcp_conn *c = p->tx;
    return c && window(c) - (c->sent - c->released) >= t->blocked_need;
}

static int tcp_ready(void *tpv, int events)
{
    struct tcp_tp *t = tpv;
    int r = 0;
    if ((events & SKF_WRITABLE) && t->blocked >= 0 && t->peer[t->blocked].tx &&
        t->peer[t->blocked].tx->state == C_OPEN)
        fill_rx(t->peer[t->blocked].tx); /* its credits, without waiting for epoll's turn */
    if (!((events & SKF_READABLE) && (t->out || t->ready_head)) &&
        !((events & SKF_WRITABLE) && writable(t)) && !((events & SKF_GET_DONE) && t->gets_done))
        progress(t, 0);
    if ((events & SKF_READABLE) && (t->out || t->ready_head))
        r |= SKF_READABLE;
    if ((events & SKF_GET_DONE) && t->gets_done) {
        t->gets_done = 0;
        r |= SKF_GET_DONE;
    }
    if ((events & SKF_WRITABLE) && writable(t))
        r |= SKF_WRITABLE;
    return r;
}

/* A peer on my node that died without closing its sockets cleanly yet (a
 * zombie, or a peer I never talked to): the same pidfd check shm makes.
 * Between nodes the launcher ends the job when a rank dies. */
static int local_peer_died(struct tcp_tp *t)
{
    const boot_info_t *b = t->ctx->boot;
    for (int l = 0; l < b->local_size; l++) {
        int r = b->local_ranks[l];
        if (l != b->local_rank && !t->peer[r].gone && !t->peer[r].closed &&
            skf_local_dead(t->ctx, l)) {
            peer_gone(t, r, "process died");
            return 1;
        }
    }
    return 0;
}


/* Busy-poll: SKIFF_SPIN polls, but for no longer than SKIFF_TCP_SPIN_US.  A
 * tcp poll is a system call, so 20000 polls (SKIFF_SPIN's default) spin
 * for 10-20 ms: on a machine whose cores other work wants, the spinner then
 * runs out of its time slice and, when the message comes, waits behind the
 * others for its next turn -- where a sleeper in epoll_wait is woken at once
 * (8-byte netns ping-pong at load 24: 303 us spinning, 53 us sleeping after
 * 200 polls; docs/tcp.md "Waiting").  The clock is read only from the 16th
 * poll on, so a message that is already there costs nothing more.  A
 * one-sided request answered here (svc_serve_here) starts the phase over: a
 * requester is active.  > 0: ready; 0: spun out; -1: end_ms has passed. */
static int spin_ready(struct tcp_tp *t, int events, long long end_ms)
{
    unsigned long served = t->served_here, moved = t->ctx->io_moved;
    long long until = 0;
    int r;
    for (long i = 0; i < t->spin; i++) {
        if ((r = tcp_ready(t, events)))
            return r;
        if (t->served_here != served || t->ctx->io_moved != moved) {
            served = t->served_here;
            moved = t->ctx->io_moved;
            if (end_ms >= 0 && skf_now_ms() >= end_ms)
                return -1;
            i = 0;
            until = 0;
        } else if (t->spin_ns > 0 && (i & 15) == 15 && skf_spin_over(&until, t->spin_ns)) {
            if (t->served_ns + TCP_SERVED_SPIN_NS > until) { /* answered lately: poll on */
                until = t->served_ns + TCP_SERVED_SPIN_NS;
                continue;
            }
            break;
        }
    }
    return 0;
}

/* Poll (spin_ready), then sleep in epoll_wait.  One-sided requests to me are
 * answered by this thread while it polls (svc_serve_here); a request
 * answered starts the polling phase over, so a waiter that is the target of
 * a stream of gets or atomics keeps answering them without a wake-up each
 * (as long as it waits). */
static int tcp_wait(void *tpv, int events, int timeout_ms)
{
    struct tcp_tp *t = tpv;
    int r;
    long long end = timeout_ms < 0 ? -1 : skf_now_ms() + timeout_ms;
    for (;;) {
        if ((r = spin_ready(t, events, end)))
            return r > 0 ? r : 0;
        for (;;) {
            if ((r = tcp_ready(t, events)))
                return r;
            if ((events & SKF_READABLE)
                    ? t->any_gone
                    : (t->blocked >= 0 &&
                       (t->peer[t->blocked].gone || t->peer[t->blocked].closed)))
                return -EPIPE;
            long long left = end < 0 ? TCP_SLEEP_SLICE_MS : end - skf_now_ms();
            if (left <= 0)
                return 0;
            unsigned long served = t->served_here, moved = t->ctx->io_moved;
            if (!progress(t, left < TCP_SLEEP_SLICE_MS ? (int)left : TCP_SLEEP_SLICE_MS))
                local_peer_died(t);
            if (t->served_here != served || t->ctx->io_moved != moved)
                break; /* woken by a request, or a transfer streaming in: poll again */
        }
    }
}

static void tcp_poll(void *tpv)
{
    progress(tpv, 0);
}

/* ---- the RMA service thread ----------------------------------------------- */

#define SVC_STACK (1 << 20) /* its stack (virtual; it touches a few pages) */

/* A connection of the service ends: out of its epoll set and lists now, its
 * memory after the batch of events (one of them may still name it).  For
 * the service's connections, C_DEAD means exactly "buried". */
static void svc_bury(struct tcp_conn *c)
{
    struct tcp_svc *v = c->svc;
    if (c->state == C_DEAD)
        return;
    if (v->hot == c)
        __atomic_store_n(&v->hot, NULL, __ATOMIC_RELAXED);
    close_fd(c);
    unlink_hs(c);
    if (c->state != C_LISTEN && c->peer >= 0 && c->tp->served[c->peer] == c)
        c->tp->served[c->peer] = NULL;
    c->state = C_DEAD;
    c->next_dead = v->dead;
    v->dead = c;
}

static void svc_free_dead(struct tcp_svc *v)
{
    while (v->dead) {
        struct tcp_conn *c = v->dead;
        v->dead = c->next_dead;
        free(c->rx.buf);
        free(c->tx.buf);
        free(c->rma.acc_buf);
        free(c->rma.ib);
        free(c->rma.ob);
        free(c);
    }
}


/* A claimed service checks this often that its claimer still polls, and
 * answers what waits: a claimer off its CPU (a loaded machine) delays a
 * request at most about this long.  By epoll_pwait2 (Linux 5.11; without
 * it, 1 ms, epoll_wait's unit), and only while the claimer polls: one
 * asleep in progress's epoll_wait is woken by the request itself, and the
 * thread then checks every 1 ms. */
#define SVC_LEASE_US 250
#define SVC_LEASE (-2) /* svc_wait's timeout: one lease */
/* A claimer must poll at least this often per lease (one pass per 10 us on
 * average: a spinning waiter makes hundreds to thousands, one that sleeps
 * 20 us between passes -- SHMEM's long waits -- a few dozen, and a request
 * would wait for its sleeps), and this many passes after a release claim
 * again. */
#define SVC_LEASE_POLLS (100 * SVC_LEASE_US / 1000)
#define SVC_CLAIM_POLLS 1000
/* Requests waiting at a lease check while the claimer made fewer passes than
 * this (a spinning claimer makes 500-3000 per ms): it is mostly off its
 * CPU, and the thread takes the answering back. */
#define SVC_BUSY_POLLS (300 * SVC_LEASE_US / 1000)

/* Handle what epoll_wait(epfd, 0) reports now, under v->lock: accepts and
 * handshakes on every channel's RMA listener, requests (rma_serve), expired
 * handshakes; then the connections that ended are freed (no thread keeps an
 * event of epfd outside the lock, so none can name them).  Returns how many
 * sockets had something. */
static int svc_handle(struct tcp_svc *v, int here)
{
    struct epoll_event ev[TCP_EVENTS];
    int n = sc_epoll_wait(v->epfd, ev, TCP_EVENTS, 0);
    for (int i = 0; i < n; i++) {
        struct tcp_conn *c = ev[i].data.ptr;
        if (c->state == C_LISTEN) {
            on_accept(c->tp, v);
        } else if (c->state != C_DEAD) { /* buried by an earlier event or a channel's close */
            unsigned long answered = c->rma.answered;
            on_event(c, ev[i].events);
            if (here && c->state == C_OPEN && c->rma.answered != answered) {
                __atomic_store_n(&v->hot, c, __ATOMIC_RELAXED); /* read directly: svc_poll_hot */
                v->hot_idle = 0;
            }
        }
    }
    if (v->hs_list)
        expire_handshakes(v->hs_list, v->hs_patient);
    svc_free_dead(v);
    return n > 0 ? n : 0;
}

/* The thread answers again: epfd back in its sleep.  Under v->lock. */
static void svc_unclaim(struct tcp_svc *v, unsigned long polls)
{
    struct epoll_event in = {.events = EPOLLIN, .data.ptr = v};
    if (epoll_ctl(v->outer, EPOLL_CTL_ADD, v->epfd, &in) == 0 || errno == EEXIST) {
        __atomic_store_n(&v->polls_at_release, polls, __ATOMIC_RELAXED);
        __atomic_store_n(&v->claimed, 0, __ATOMIC_RELEASE);
    }
}

/* The claimer went back to computing, or polls between sleeps of its own
 * (fewer than SVC_LEASE_POLLS passes in the lease, nobody asleep in
 * progress): the thread answers again.  Under v->lock. */
static unsigned long svc_unclaim_if_idle(struct tcp_svc *v, unsigned long *polls_seen)
{
    unsigned long polls = __atomic_load_n(&v->polls, __ATOMIC_RELAXED), made = polls - *polls_seen;
    if (made < SVC_LEASE_POLLS && !__atomic_load_n(&v->sleepers, __ATOMIC_SEQ_CST))
        svc_unclaim(v, polls);
    *polls_seen = polls;
    return made;
}

/* epoll_wait on outer, but after a batch that had work first poll for
 * spin_ns: the next request of a requester in a loop (lock, op, flush, ...)
 * usually comes one round trip later, and a sleeping thread pays a wake-up
 * -- on a loaded machine a scheduler delay -- on the critical path of each
 * one. */
static int svc_wait(struct tcp_svc *v, struct epoll_event *ev, int timeout, int was_busy)
{
    if (was_busy && v->spin_ns > 0) {
        long long until = skf_now_ns() + v->spin_ns;
        do {
            int n = sc_epoll_wait(v->outer, ev, 2, 0);
            if (n != 0)
                return n;
        } while (skf_now_ns() < until);
    }
    if (timeout == SVC_LEASE) {
        struct timespec ts = {0, SVC_LEASE_US * 1000L};
        int n = v->no_pwait2 ? -1 : epoll_pwait2(v->outer, ev, 2, &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        v->no_pwait2 = 1;
        timeout = 1;
    }
    return sc_epoll_wait(v->outer, ev, 2, timeout);
}

/* The thread: sleep on outer (the wake-up, and epfd unless a polling thread
 * claimed it), handle epfd's events under the lock. */
static void *svc_main(void *arg)
{
    struct tcp_svc *v = arg;
    int timeout = -1, busy = 0;
    unsigned long polls_seen = 0;
    for (;;) {
        struct epoll_event ev[2];
        int n = svc_wait(v, ev, timeout, busy);
        pthread_mutex_lock(&v->lock);
        if (v->stop) {
            pthread_mutex_unlock(&v->lock);
            return NULL;
        }
        for (int i = 0; i < n; i++) {
            if (!ev[i].data.ptr) { /* the wake-up: stop, or a new claim */
                uint64_t x;
                if (read(v->wake, &x, sizeof x) < 0 && errno != EAGAIN)
                    skf_error("tcp: RMA service: reading its wake-up: %s", strerror(errno));
            }
        }
        unsigned long made = SVC_BUSY_POLLS;
        if (__atomic_load_n(&v->claimed, __ATOMIC_ACQUIRE))
            made = svc_unclaim_if_idle(v, &polls_seen);
        /* whatever woke the thread, what waits in epfd is answered -- while
         * claimed too, at each lease check: the claimer may be off its CPU
         * on a loaded machine, and a request then waits at most one lease,
         * not the claimer's time slice */
        busy = svc_handle(v, 0);
        int claimed = __atomic_load_n(&v->claimed, __ATOMIC_ACQUIRE);
        if (claimed && busy && made < SVC_BUSY_POLLS && !__atomic_load_n(&v->sleepers, __ATOMIC_SEQ_CST)) {
            /* requests waited while the claimer polled little: it is off its CPU */
            svc_unclaim(v, __atomic_load_n(&v->polls, __ATOMIC_RELAXED));
            claimed = 0;
        }
        timeout = !claimed ? (v->hs_list ? TCP_SLEEP_SLICE_MS : -1)
                  : __atomic_load_n(&v->sleepers, __ATOMIC_SEQ_CST) ? 1
                                                                     : SVC_LEASE;
        pthread_mutex_unlock(&v->lock);
    }
}

/* Requests this thread answered: counted, and when (spin_ready polls on). */
static void svc_count_served(struct tcp_tp *t, int served)
{
    if (served > 0) {
        t->served_here += (unsigned long)served;
        t->served_ns = skf_now_ns();
    }
}

/* Answer requests from a thread polling inside Skiff (progress): while it
 * polls, the thread claims the service (epfd out of the thread's sleep,
 * svc_note_poll), the engine's epoll set holds epfd, so a pass that finds
 * it readable takes the service's lock if free and handles epfd's events
 * here (svc_handle: accepts, handshakes, rma_serve), with no thread wake-up
 * on the answer's path.  The lock makes one reader per connection at a time
 * and the state in struct rma_state is the connection's, so whichever
 * thread serves next goes on where the other stopped; answers keep their
 * order.  A busy lock means the service thread is at it: nothing is lost
 * (level-triggered). */
static int svc_serve_here(struct tcp_tp *t)
{
    struct tcp_svc *v = t->eng->svc;
    if (pthread_mutex_trylock(&v->lock) != 0)
        return 0;
    int served = v->stop ? 0 : svc_handle(v, 1);
    pthread_mutex_unlock(&v->lock);
    svc_count_served(t, served);
    return served;
}

#define SVC_HOT_IDLE 256 /* passes without a request before svc_poll_hot stops reading */
#define SVC_HOT_STREAM 64 /* ... and before progress reads the hot receive connection every
                             pass again (a request in the last this many: a stream) */

/* Read the hot served connection directly (one recv; the answer leaves by
 * the same pass): a request waits neither for epoll's turn (every
 * TCP_EPOLL_EVERY-th pass) nor for two epoll_waits (the engine's set, then
 * the service's).  Only while claimed: otherwise the service thread is
 * woken by the request anyway and the two would meet on the lock.  An
 * answer waiting for room in the socket is left to EPOLLOUT. */
static int svc_poll_hot(struct tcp_tp *t)
{
    struct tcp_svc *v = t->eng->svc;
    t->svc_polled = 0;
    if (!__atomic_load_n(&v->hot, __ATOMIC_RELAXED) ||
        !__atomic_load_n(&v->claimed, __ATOMIC_ACQUIRE) || pthread_mutex_trylock(&v->lock) != 0)
        return 0;
    struct tcp_conn *c = v->hot;
    int served = 0;
    if (c && !v->stop && c->state == C_OPEN && !(c->interest & EPOLLOUT)) {
        unsigned long answered = c->rma.answered;
        rma_serve(c);
        served = c->rma.answered != answered;
        if (served)
            v->hot_idle = 0;
        else if (++v->hot_idle >= SVC_HOT_IDLE && v->hot == c)
            __atomic_store_n(&v->hot, NULL, __ATOMIC_RELAXED);
        t->svc_polled = v->hot_idle < SVC_HOT_STREAM;
        svc_free_dead(v); /* rma_serve may have ended it */
    }
    pthread_mutex_unlock(&v->lock);
    svc_count_served(t, served);
    return served;
}

/* A progress pass: counted (the service's lease), and the service claimed
 * for polling threads once it has connections to serve. */
static void svc_note_poll(struct tcp_svc *v)
{
    if (!__atomic_load_n(&v->has_conns, __ATOMIC_RELAXED))
        return;
    unsigned long polls = __atomic_load_n(&v->polls, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&v->polls, polls, __ATOMIC_RELAXED);
    if (__atomic_load_n(&v->claimed, __ATOMIC_ACQUIRE) ||
        polls - __atomic_load_n(&v->polls_at_release, __ATOMIC_RELAXED) < SVC_CLAIM_POLLS ||
        pthread_mutex_trylock(&v->lock) != 0)
        return;
    uint64_t one = 1;
    if (!v->stop && (epoll_ctl(v->outer, EPOLL_CTL_DEL, v->epfd, NULL) == 0 || errno == ENOENT)) {
        __atomic_store_n(&v->claimed, 1, __ATOMIC_RELEASE);
        /* the thread may sleep without a timeout: it must start its lease checks */
        if (write(v->wake, &one, sizeof one) != sizeof one)
            skf_error("tcp: RMA service: cannot wake it: %s", strerror(errno));
    }
    pthread_mutex_unlock(&v->lock);
}

/* Start the process's service: its epoll set and thread (all signals blocked
 * there: they are the application's, delivered to its threads). */
static struct tcp_svc *svc_start(skf_ctx_t *ctx, const char *cc)
{
    struct tcp_svc *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->ctx = ctx;
    v->spin_ns = skf_param_ll("SKIFF_TCP_SERVE_SPIN") * 1000;
    v->hs_patient = (int)skf_param_ll("SKIFF_TCP_HS_PATIENT");
    snprintf(v->cc, sizeof v->cc, "%s", cc);
    v->epfd = epoll_create1(EPOLL_CLOEXEC);
    v->outer = epoll_create1(EPOLL_CLOEXEC);
    v->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    pthread_mutex_init(&v->lock, NULL);
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = NULL};
    struct epoll_event in = {.events = EPOLLIN, .data.ptr = v};
    int rc = v->epfd < 0 || v->outer < 0 || v->wake < 0 ||
                     epoll_ctl(v->outer, EPOLL_CTL_ADD, v->wake, &e) ||
                     epoll_ctl(v->outer, EPOLL_CTL_ADD, v->epfd, &in)
                 ? errno
                 : 0;
    if (!rc) {
        pthread_attr_t a;
        sigset_t all, old;
        sigfillset(&all);
        pthread_attr_init(&a);
        pthread_attr_setstacksize(&a, SVC_STACK);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        rc = pthread_create(&v->thread, &a, svc_main, v);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&a);
    }
    if (rc) {
        skf_error("tcp: rank %d: cannot start the RMA service thread: %s", ctx->rank, strerror(rc));
        if (v->epfd >= 0)
            close(v->epfd);
        if (v->outer >= 0)
            close(v->outer);
        if (v->wake >= 0)
            close(v->wake);
        pthread_mutex_destroy(&v->lock);
        free(v);
        return NULL;
    }
    return v;
}

static void svc_stop(struct tcp_svc *v)
{
    uint64_t one = 1;
    pthread_mutex_lock(&v->lock);
    v->stop = 1;
    pthread_mutex_unlock(&v->lock);
    if (write(v->wake, &one, sizeof one) != sizeof one)
        skf_error("tcp: RMA service: cannot wake it to stop: %s", strerror(errno));
    pthread_join(v->thread, NULL);
    svc_free_dead(v); /* every channel removed its connections before */
    close(v->epfd);
    close(v->outer);
    close(v->wake);
    pthread_mutex_destroy(&v->lock);
    free(v);
}

/* A channel's RMA listener on addr (any port): from now on the service
 * accepts on it.  0 or -errno; *port: the port it got. */
static int svc_add_port(struct tcp_svc *v, struct tcp_tp *t, const char *addr, int *port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t sl = sizeof sa;
    inet_pton(AF_INET, addr, &sa.sin_addr);
    t->served = calloc((size_t)t->size, sizeof *t->served);
    struct tcp_conn *l = calloc(1, sizeof *l);
    t->rma_lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (!t->served || !l || t->rma_lfd < 0 || bind(t->rma_lfd, (struct sockaddr *)&sa, sizeof sa) ||
        listen(t->rma_lfd, 1024) || getsockname(t->rma_lfd, (struct sockaddr *)&sa, &sl)) {
        int rc = t->served && l ? -errno : -ENOMEM;
        free(l);
        return rc;
    }
    *l = (struct tcp_conn){.tp = t, .svc = v, .fd = -1, .state = C_LISTEN};
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = l};
    pthread_mutex_lock(&v->lock);
    int rc = epoll_ctl(v->epfd, EPOLL_CTL_ADD, t->rma_lfd, &e) ? -errno : 0;
    if (!rc)
        t->rma_listener = l;
    pthread_mutex_unlock(&v->lock);
    if (rc)
        free(l);
    *port = ntohs(sa.sin_port);
    return rc;
}

/* The channel closes: its listener and the connections accepted on it end
 * (the memory goes with the thread's next batch, or with the thread). */
static void svc_remove_port(struct tcp_svc *v, struct tcp_tp *t)
{
    if (v) {
        pthread_mutex_lock(&v->lock);
        for (int r = 0; t->served && r < t->size; r++)
            if (t->served[r])
                svc_bury(t->served[r]);
        for (struct tcp_conn *c = v->hs_list, *next; c; c = next) {
            next = c->next_hs;
            if (c->tp == t)
                svc_bury(c);
        }
        if (t->rma_listener) {
            epoll_ctl(v->epfd, EPOLL_CTL_DEL, t->rma_lfd, NULL);
            svc_bury(t->rma_listener);
            t->rma_listener = NULL;
        }
        strangers_summary(t, &t->rma_strangers);
        pthread_mutex_unlock(&v->lock);
    }
    if (t->rma_lfd >= 0)
        close(t->rma_lfd);
    t->rma_lfd = -1;
    free(t->served);
    t->served = NULL;
}

/* ---- open / close ------------------------------------------------------------ */

static struct tcp_engine *engine_get(skf_ctx_t *ctx, const char *cc)
{
    for (struct tcp_engine *e = engines; e; e = e->next)
        if (e->ctx == ctx) {
            e->users++;
            return e;
        }
    struct tcp_engine *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->epfd = epoll_create1(EPOLL_CLOEXEC);
    if (e->epfd < 0) {
        free(e);
        return NULL;
    }
    e->svc = svc_start(ctx, cc);
    if (!e->svc) {
        close(e->epfd);
        free(e);
        return NULL;
    }
    /* the service's set inside mine: a polling pass sees requests to serve */
    struct epoll_event sv = {.events = EPOLLIN, .data.ptr = NULL};
    if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->svc->epfd, &sv))
        skf_verbose(ctx, "tcp: requests are answered by the service thread only: %s",
                    strerror(errno));
    e->ctx = ctx;
    e->users = 1;
    e->next = engines;
    engines = e;
    return e;
}

static void engine_put(struct tcp_engine *e)
{
    if (!e || --e->users)
        return;
    for (struct tcp_engine **p = &engines; *p; p = &(*p)->next)
        if (*p == e) {
            *p = e->next;
            break;
        }
    svc_stop(e->svc);
    close(e->epfd);
    free(e);
}

static int tcp_chan_open(skf_chan_t *ch, int *peer_id, void **tpp)
{
    skf_ctx_t *ctx = ch->ctx;
    struct tcp_tp *t = calloc(1, sizeof *t);
    char addr[64], key[BOOT_KEY_MAX], val[BOOT_VAL_MAX];
    int rc = 0, rma_port = 0;
    if (!t)
        return -ENOMEM;
    t->ctx = ctx;
    t->port = ch->port;
    t->me = ctx->rank;
    t->size = ctx->size;
    t->open_no = ctx->chan_opens;
    t->blocked = -1;
    t->lfd = t->epfd = t->rma_lfd = -1;
    t->key = ctx->boot->job_key;
    t->spin = ctx->shm.spin;
    t->spin_ns = ctx->shm.tcp_spin_ns;
    const char *cc = skf_param_str("SKIFF_TCP_CC");
    if (strcmp(cc, "system") != 0)
        snprintf(t->cc, sizeof t->cc, "%s", cc);
    /* In range: skf_init checked them (config.c). */
    long long buf = skf_param_ll("SKIFF_TCP_BUF"), tmo = skf_param_ll("SKIFF_TCP_TIMEOUT");
    if (!getenv("SKIFF_JOB_KEY")) { /* every rank made up its own: no handshake could pass */
        skf_error("skf_chan_open(port %u): tcp needs the job key every rank shares: start the job "
                  "with skiffrun, or give mpiexec.mpich -genv SKIFF_JOB_KEY <32 hex digits>",
                  ch->port);
        rc = -EACCES;
    }
    t->buf_bytes = (uint64_t)buf;
    t->max_msg = (uint64_t)buf / 4 - TCP_HDR; /* several messages in flight per connection */
    t->timeout_ms = (int)tmo;
    t->hs_patient = (int)skf_param_ll("SKIFF_TCP_HS_PATIENT");
    t->peer = calloc((size_t)t->size, sizeof *t->peer);
    if (!rc && !t->peer)
        rc = -ENOMEM;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t sl = sizeof sa;
    if (!rc && !(rc = pick_address(t, addr, sizeof addr))) {
        inet_pton(AF_INET, addr, &sa.sin_addr);
        t->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        t->eng = engine_get(ctx, t->cc);
        t->epfd = t->eng ? t->eng->epfd : -1;
        t->listener = calloc(1, sizeof *t->listener);
        if (t->listener) {
            t->listener->tp = t;
            t->listener->state = C_LISTEN;
            t->listener->fd = -1;
        }
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = t->listener};
        if (t->lfd < 0 || t->epfd < 0 || !t->listener || bind(t->lfd, (struct sockaddr *)&sa, sizeof sa) ||
            listen(t->lfd, 1024) || getsockname(t->lfd, (struct sockaddr *)&sa, &sl) ||
            epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->lfd, &e)) {
            rc = -errno;
            skf_error("skf_chan_open(port %u): tcp: cannot listen on %s: %s", ch->port, addr,
                      strerror(errno));
        } else if ((rc = svc_add_port(t->eng->svc, t, addr, &rma_port))) {
            skf_error("skf_chan_open(port %u): tcp: cannot listen for one-sided connections on "
                      "%s: %s", ch->port, addr, strerror(-rc));
        }
    }
    /* Publish (an empty value tells peers I failed), then the collective fence. */
    addr_key(t, t->me, key, sizeof key);
    snprintf(val, sizeof val, "%s:%d:%d", rc ? "-" : addr, rc ? 0 : ntohs(sa.sin_port),
             rc ? 0 : rma_port);
    int prc = boot_put(key, val);
    int frc = prc ? prc : boot_fence();
    if (!rc)
        rc = frc;
    if (rc) {
        if (t->lfd >= 0) {
            if (t->epfd >= 0)
                epoll_ctl(t->epfd, EPOLL_CTL_DEL, t->lfd, NULL);
            close(t->lfd);
        }
        svc_remove_port(t->eng ? t->eng->svc : NULL, t);
        engine_put(t->eng);
        free(t->listener);
        free(t->peer);
        free(t);
        return rc;
    }
    int all = skf_tcp_for_all();
    for (int r = 0; r < t->size; r++)
        peer_id[r] = (all || ctx->boot->node_of_rank[r] != ctx->boot->node_of_rank[t->me]) ? r : -1;
    skf_verbose(ctx, "rank %d: port %u: tcp listening on %s:%d, buffers %llu bytes, timeout %d ms",
                t->me, t->port, addr, ntohs(sa.sin_port), (unsigned long long)t->buf_bytes,
                t->timeout_ms);
    *tpp = t;
    return 0;
}

/* Messages already taken by skf_send must leave before the socket closes. */
static void drain_sends(struct tcp_tp *t)
{
    long long end = skf_now_ms() + t->timeout_ms;
    for (;;) {
        int pending = 0;
        for (int r = 0; r < t->size; r++) {
            struct tcp_conn *cs[] = {t->peer[r].dial, t->peer[r].acc};
            for (int i = 0; i < 2; i++)
                if (cs[i] && cs[i]->state != C_DEAD && (cs[i]->tx.tail != cs[i]->tx.head || cs[i]->dout))
                    pending = 1;
        }
        if (!pending)
            return;
        if (skf_now_ms() > end) {
            skf_error("tcp: rank %d port %u: closing with unsent messages (peers not reading)",
                      t->me, t->port);
            return;
        }
        progress(t, 10);
    }
}

/* Tell every peer this is a clean close: a goodbye frame, my last, on each
 * data connection (through tx: a full socket buffer takes it later, whole). */
static void say_goodbye(struct tcp_tp *t)
{
    struct tcp_frame_hdr bye = {0, t->port, TCP_FRAME_BYE, TCP_FRAME_MAGIC};
    for (int r = 0; r < t->size; r++) {
        struct tcp_conn *cs[] = {t->peer[r].dial, t->peer[r].acc};
        for (int i = 0; i < 2; i++)
            if (cs[i] && cs[i]->state == C_OPEN && !cs[i]->bye_out) {
                cs[i]->bye_out = 1;
                send_control(cs[i], &bye, sizeof bye);
            }
    }
}

/* After the goodbyes: half-close each data connection once my goodbye is
 * out, and keep reading until the peer's end (it reads to mine the same way,
 * and on my goodbye and end closes its side): closing with frames of the peer
 * unread would answer them with a reset, which a peer still taking my last
 * messages would take for my death.  Bounded by SKIFF_TCP_TIMEOUT (a peer
 * outside Skiff that long is not waited for). */
static void await_peers(struct tcp_tp *t)
{
    long long end = skf_now_ms() + t->timeout_ms;
    for (;;) {
        int waiting = 0;
        for (int r = 0; r < t->size; r++) {
            struct tcp_conn *cs[] = {t->peer[r].dial, t->peer[r].acc};
            for (int i = 0; i < 2; i++) {
                struct tcp_conn *c = cs[i];
                if (!c || c->state != C_OPEN)
                    continue;
                if (!c->shut && c->tx.tail == c->tx.head && !c->dout) { /* the goodbye is out */
                    c->shut = 1;
                    shutdown(c->fd, SHUT_WR);
                }
                waiting = 1;
            }
        }
        if (!waiting || skf_now_ms() > end)
            return;
        progress(t, 10);
    }
}

static int tcp_chan_close(void *tpv)
{
    struct tcp_tp *t = tpv;
    drain_sends(t);
    say_goodbye(t);
    await_peers(t);
    strangers_summary(t, &t->strangers);
    if (t->served_here)
        skf_verbose(t->ctx, "rank %d: port %u: %lu one-sided socket events handled while polling "
                    "(the rest by the service thread)", t->me, t->port, t->served_here);
    svc_remove_port(t->eng->svc, t); /* served peers' gets up to here (close is collective) */
    for (int r = 0; r < t->size; r++) {
        struct tcp_peer *p = &t->peer[r];
        struct tcp_conn *cs[] = {p->dial, p->acc, p->rma};
        for (int i = 0; i < 3; i++)
            if (cs[i])
                free_conn(cs[i]);
    }
    while (t->hs_list)
        free_conn(t->hs_list);
    epoll_ctl(t->epfd, EPOLL_CTL_DEL, t->lfd, NULL);
    close(t->lfd);
    engine_put(t->eng);
    free(t->listener);
    free(t->peer);
    free(t);
    return 0;
}

const struct skf_transport_ops skf_tcp_ops = {
    .name = "tcp",
    .chan_open = tcp_chan_open,
    .chan_close = tcp_chan_close,
    .max_msg = tcp_max_msg,
    .send = tcp_send,
    .recv = tcp_recv,
    .recv_done = tcp_recv_done,
    .ready = tcp_ready,
    .wait = tcp_wait,
    .rma = tcp_rma,
    .rma_start = tcp_rma_start,
    .send_direct = tcp_send_direct,
    .recv_direct = tcp_recv_direct,
    .acc = tcp_acc,
    .lost_peer = tcp_lost_peer,
    .peer_died = tcp_peer_died,
    .atomic = tcp_atomic,
    .atomic_start = tcp_atomic_start,
    .poll = tcp_poll,
    .push = tcp_push,
};
