/*
 * device.h — the MPI device: point-to-point over one Skiff channel.
 *
 * The binding layer (src/mpi/binding) checks arguments and calls these; the
 * device owns requests (request.c), the matching queues (match.c), the wire
 * protocols (proto.c: short, eager, rendezvous; send FIFOs) and progress
 * (progress.c: arrivals, waiting).  Sizes are bytes: a datatype's pieces are
 * turned into an iovec by the caller, so derived types plug in above.
 */
#ifndef SKIFF_MPI_DEVICE_H
#define SKIFF_MPI_DEVICE_H

#include "mpi_impl.h"
#include "device/mt.h"

#pragma GCC visibility push(hidden)

/* ---- wire format (one Skiff message = header + payload) ----------------- */
enum wire_kind {
    W_SHORT = 1, /* whole message fits the header's cache line             */
    W_EAGER,     /* first piece of an eager message, W_CONT pieces follow  */
    W_RTS,       /* rendezvous: request to send, carries a memory key      */
    W_CONT,      /* more payload of the eager message in progress          */
    W_ACK,       /* receiver matched a synchronous send                    */
    W_FIN,       /* receiver finished pulling a rendezvous payload         */
    W_CTS,       /* split rendezvous: receiver's key, sender puts the tail  */
    W_PUTDONE,   /* split rendezvous: sender's put of the tail is in place  */
    W_GO,        /* streamed rendezvous: receiver matched, send the data    */
    W_DATA,      /* streamed rendezvous: first piece of the data, W_CONTs follow */
    W_CANCEL,    /* sender cancels a send still waiting for its receiver (wire_cancel_t) */
    W_CANCEL_OK, /* receiver: the message was unmatched, it is gone (wire_ctl_t) */
    W_CANCEL_NO, /* receiver: too late, it is matched (its ACK/FIN went first) */
    W_BDATA,     /* streamed rendezvous through the bulk ring: one piece (wire_bdata_t) */
};
#define W_FLAG_SYNC 1 /* sender waits for W_ACK; header is wire_sync_t */
/* RTS of a streamed rendezvous (a derived-type send, datatype/p2p.c): no
 * key; h.len is the length; on W_GO the sender packs the data chunk by chunk
 * into the ring (W_DATA + W_CONTs) while the receiver unpacks it. */
#define W_FLAG_STREAM 2
/* with STREAM: the sender's data is one contiguous buffer it can push as a
 * direct payload (skf_send_direct) if the receiver's W_GO asks for one */
#define W_FLAG_DIRECT 4

typedef struct wire_hdr { /* 16 bytes: envelope of SHORT/EAGER */
    uint8_t kind, flags;
    uint16_t ctx;
    int32_t src; /* sender's rank in the communicator */
    int32_t tag;
    uint32_t len; /* payload bytes of the whole message */
} wire_hdr_t;
typedef struct wire_sync { /* SHORT/EAGER with W_FLAG_SYNC */
    wire_hdr_t h;
    uint64_t sreq; /* sender's request, echoed in W_ACK */
} wire_sync_t;
typedef struct wire_rts {
    wire_hdr_t h; /* h.len unused: the length is key.len */
    uint64_t sreq;
    skf_mr_key_t key;
} wire_rts_t;
typedef struct wire_ctl { /* W_ACK, W_FIN; W_DATA (sreq: the receiver's request) */
    uint8_t kind, pad[7];
    uint64_t sreq;
} wire_ctl_t;
/* W_CTS: the receiver pulls bytes [0, split) itself and lets the sender,
 * which waits in MPI anyway, put [split, n) into key (both cores copy). */
typedef struct wire_cts {
    uint8_t kind, pad[3];
    uint32_t split_kib; /* split offset / 1024 (split is page aligned) */
    uint64_t sreq;      /* sender's request (its exposed buffer)       */
    uint64_t rreq;      /* receiver's request, echoed in W_PUTDONE     */
    skf_mr_key_t key;   /* receiver's buffer from split to the end      */
} wire_cts_t;
typedef struct wire_go {
    uint8_t kind;
    uint8_t direct; /* 1: send len bytes by skf_send_direct (id rreq): the
                       receiver posted its buffer (tcp, docs/tcp.md) */
    uint8_t pad[2];
    uint32_t len;   /* direct: the bytes the receiver takes (truncation)  */
    uint64_t sreq;  /* sender's request, waiting since its RTS       */
    uint64_t rreq;  /* receiver's request, named by the W_DATA header */
} wire_go_t;
typedef struct wire_cancel {
    uint8_t kind, pad;
    uint16_t ctx;
    int32_t src;   /* sender's rank in the communicator: the unexpected bin */
    uint64_t sreq; /* the send, as its SYNC/RTS header named it */
} wire_cancel_t;
/* Every piece of a stream through the pair's bulk ring names its receive and
 * place: the bulk ring is in no order with the ordinary one (skf_send_bulk). */
typedef struct wire_bdata {
    uint8_t kind, pad[7];
    uint64_t rreq; /* receiver's request, from its W_GO */
    uint64_t off;  /* the piece's first byte in the message */
} wire_bdata_t;
typedef struct wire_cont {
    uint8_t kind, pad[7];
} wire_cont_t;
typedef union wire_any {
    wire_hdr_t h;
    wire_sync_t s;
    wire_rts_t r;
    wire_ctl_t c;
    wire_cts_t cts;
    wire_go_t go;
    wire_cancel_t cancel;
    wire_bdata_t bd;
} wire_any_t;

/* Short payload: the channel's 8-byte message word, a 16-byte header and this
 * many bytes fill exactly one 64-byte ring line. */
#define MPID_SHORT_MAX (64 - 8 - (int)sizeof(wire_hdr_t))
/* SKIFF_MPI_BULK_MAX=auto: the largest message streamed through a bulk ring
 * (larger ones: the CMA rendezvous, equal to the stream at 16 MiB). */
#define MPID_BULK_AUTO_MAX ((size_t)8 << 20)
/* auto: a stream slower than this (bytes per ns = GB/s) was starved of a CPU */
#define MPID_BULK_STARVED 4
#define MPID_BULK_BACKOFF_MIN 16u
#define MPID_BULK_BACKOFF_MAX 4096u
/* The channel takes at least one ring line (56 payload bytes) when it takes
 * anything, so headers up to this size are never split. */
#define MPID_HDR_ATOMIC 56
_Static_assert(sizeof(wire_rts_t) <= MPID_HDR_ATOMIC, "RTS header must fit one ring line");
_Static_assert(sizeof(wire_sync_t) <= MPID_HDR_ATOMIC, "sync header must fit one ring line");
_Static_assert(sizeof(wire_cts_t) <= MPID_HDR_ATOMIC, "CTS header must fit one ring line");
_Static_assert(sizeof(wire_go_t) <= MPID_HDR_ATOMIC, "GO header must fit one ring line");

/* ---- requests ----------------------------------------------------------- */
/* REQ_COLL: a nonblocking collective, completed by its schedule (coll/sched.c). */
/* REQ_GREQ: a generalized request, completed by the application (binding/grequest.c). */
enum req_kind { REQ_SEND = 1, REQ_RECV, REQ_PERSIST, REQ_CTL, REQ_DONE, REQ_COLL, REQ_GREQ };
enum send_mode { MODE_STD, MODE_SYNC, MODE_READY, MODE_BUFFERED,
                 MODE_PCOLL, /* persistent request: a persistent collective */
                 MODE_PART /* persistent request: partitioned (binding/partitioned.c) */ };
enum send_need { NEED_PUSH = 1, NEED_ACK = 2, NEED_FIN = 4, NEED_CANCEL_REPLY = 8 };

struct MPI_ABI_Request {
    uint32_t magic;
    uint8_t kind;      /* enum req_kind                                  */
    uint8_t wire;      /* enum wire_kind of the message sent/received    */
    uint8_t user_freed; /* MPI_Request_free: release at completion       */
    uint8_t done;
    uint8_t cancelled;
    uint8_t posted;    /* receive sits in a posted queue                 */
    uint8_t attached;  /* receive: user buffer known (else unexpected)   */
    uint8_t sync;      /* receive: sender waits for our W_ACK            */
    uint8_t stream;    /* streamed rendezvous (W_FLAG_STREAM); 2: W_FLAG_DIRECT too */
    uint8_t need;      /* send: enum send_need bits still outstanding    */
    uint8_t bulk;      /* send: streams through the bulk ring (W_BDATA)  */
    uint8_t direct;    /* streamed rendezvous by skf_send_direct (pull: its op) */
    long long bulk_t0; /* send: when its stream's first piece went into the ring, ns */
    struct MPI_ABI_Comm *comm;
    int peer, tag;     /* send: dest and tag; receive: filter            */
    int world;         /* world rank of the peer (receive: once matched) */
    mpid_req_t *next;  /* queue link                                      */
    uint64_t seq;      /* posting / arrival order                         */
    /* data */
    void *buf;
    size_t cap;        /* receive: user buffer bytes; send: payload bytes */
    size_t msg_len;    /* receive: bytes the sender sent; streamed send: bytes to stream */
    size_t got;        /* receive: bytes of the message arrived so far    */
    char *tmp;         /* unexpected payload (inline_buf or malloc)       */
    uint64_t sreq;     /* receive: sender's request for ACK/FIN           */
    skf_mr_key_t key;  /* rendezvous memory key                           */
    skf_mr_key_t rkey; /* receive: own buffer exposed for a split rendezvous  */
    /* status */
    int st_source, st_tag, st_error;
    /* send progress */
    wire_any_t hdr;
    uint32_t hdr_len;
    size_t sent;       /* bytes of header+payload taken by the channel    */
    /* persistent requests and buffered sends */
    mpid_req_t *active; /* persistent: the started operation             */
    int p_mode, p_is_recv;
    void *bsend_block;
    void *dtp;         /* typed receive to unpack at completion (datatype/p2p.c) */
    struct greq *greq; /* REQ_GREQ: the application's callbacks          */
    skf_get_op_t pull; /* receive: rendezvous get or direct payload in flight
                          (over tcp); send: its direct payload leaving */
    mpid_req_t *next_pull;
    /* MPI_Isendrecv (binding/isendrecv.c): the receive is the user's request
     * and counts as done only when its send half (pair) is done too; a
     * receive that arrived first waits with pair_arrived set. */
    mpid_req_t *pair;
    uint8_t pair_arrived;
    char inline_buf[MPID_SHORT_MAX];
};

mpid_req_t *req_alloc(int kind);
void req_release(mpid_req_t *r);
/* Mark done; a request the user already freed goes back to the pool. */
void req_complete(mpid_req_t *r);
void req_pool_free_all(void);
/* 1 if a live request satisfies pred (the pool is walked: rare uses only). */
int req_any(int (*pred)(const mpid_req_t *r, const void *arg), const void *arg);
static inline void req_status(const mpid_req_t *r, MPI_Status *st)
{
    if (st) {
        st->MPI_SOURCE = r->st_source;
        st->MPI_TAG = r->st_tag;
        st->MPI_ERROR = r->st_error;
        int64_t n = (int64_t)(r->kind == REQ_RECV ? (r->msg_len < r->cap ? r->msg_len : r->cap) : 0);
        st->MPI_internal[0] = (int)(n & 0xffffffff);
        st->MPI_internal[1] = (int)(n >> 32);
        st->MPI_internal[2] = r->cancelled;
    }
}
void mpid_status_empty(MPI_Status *st);

/* ---- generalized requests (binding/grequest.c) --------------------------- */
/* Started and not yet completed: while there are any, waits poll every
 * millisecond, since another thread completes them without a message. */
extern int mpir_greq_open;
/* Wait/Test finishing a completed one: status from its query callback, then
 * its free callback; r goes back to the pool.  Returns the first error. */
int mpir_greq_finish(mpid_req_t *r, MPI_Status *st);
/* MPI_Request_get_status on a completed one: the query callback only. */
int mpir_greq_query(mpid_req_t *r, MPI_Status *st);
/* MPI_Request_free: freed now if complete, else when it completes. */
int mpir_greq_free(mpid_req_t *r);
/* MPI_Cancel: the cancel callback, told whether it is complete already. */
int mpir_greq_cancel(mpid_req_t *r);

/* ---- device state ------------------------------------------------------- */
struct mpid_state {
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    int rank, size;              /* world */
    skf_addr_t *addr;            /* [size] channel address of each world rank */
    size_t eager_max;            /* above: rendezvous (SKIFF_MPI_EAGER_MAX)    */
    size_t *eager_to;            /* [size] eager limit towards each rank: eager_max,
                                    or SKIFF_MPI_EAGER_MAX_TCP for ranks over tcp */
    uint8_t *remote;             /* [size] 1: the rank is reached over tcp      */
    size_t rndv_split;           /* from here the sender puts half (0: never)  */
    size_t pipe_chunk;           /* larger payloads to a node mate go into the ring
                                    in pieces of this size (SKIFF_MPI_PIPE_CHUNK; 0: off) */
    int node;                    /* my node (a split needs a same-node peer)   */
    size_t stream_remote_max;    /* rendezvous over tcp up to this: streamed (SKIFF_MPI_RNDV_STREAM) */
    int stream_local;            /* no CMA on my node: every rendezvous to a node mate streams */
    uint8_t *direct_to;          /* [size] 1: rendezvous above stream_remote_max to that rank
                                    go by direct payload (SKIFF_MPI_RNDV_DIRECT, tcp) */
    size_t bulk_max;             /* contiguous sends to a node mate with a bulk ring up to this
                                    stream through it (SKIFF_MPI_BULK_MAX; 0: never) */
    size_t *bulk_piece;          /* [size] payload bytes per W_BDATA piece to that rank
                                    (SKIFF_MPI_BULK_CHUNK, fitted); 0: it has no bulk ring */
    int bulk_auto;               /* SKIFF_MPI_BULK_MAX=auto: back off to CMA after a starved stream */
    unsigned bulk_skip;          /* eligible sends still to give to CMA (proto.c, bulk_judge) */
    unsigned bulk_backoff;       /* the next such run's length: doubles while streams starve */
    int *rndv_out;               /* [size] my rendezvous sends awaiting FIN    */
    req_list_t *sendq;           /* [size] send FIFO per destination          */
    int *active;                 /* destinations with a non-empty send FIFO   */
    int n_active;
    mpid_req_t **inflight;       /* [size] eager message whose W_CONTs arrive */
    long n_posted;               /* posted receives in all communicators      */
    mpid_req_t *pulls;           /* receives whose rendezvous get is in flight */
    int direct_out;              /* direct payloads leaving (each the head of its send FIFO):
                                    a wait for them sleeps for GET_DONE, not WRITABLE */
    int npeers;                  /* world indices: size, plus processes of other jobs
                                    met through dynamic processes (dynproc/bridge.h) */
    int dyn_cur;                 /* the message handed out came from the bridge */
};
extern struct mpid_state mpid;

int mpid_init(void);
void mpid_finalize(void);

/* ---- the two ways a message travels: the channel (my job's ranks) or the
 * bridge (world index >= mpid.size: a process of another job) ------------ */
ssize_t dyn_send(int world, const struct iovec *iov, int iovcnt);
void dyn_recv_done(void);
static inline ssize_t mpid_chan_send(int world, const struct iovec *iov, int n)
{
    if (unlikely(world >= mpid.size))
        return dyn_send(world, iov, n);
    return skf_send(mpid.ch, mpid.addr[world], iov, n);
}
static inline void mpid_recv_done(void)
{
    if (unlikely(mpid.dyn_cur)) {
        mpid.dyn_cur = 0;
        dyn_recv_done();
    } else {
        skf_recv_done(mpid.ch);
    }
}
/* Node of a world index; a process of another job is on no node of mine. */
static inline int mpid_node_of(int world)
{
    return world < mpid.size ? skf_node_id(mpid.ctx, world) : -2 - (world - mpid.size);
}

/* A process of another job has ended and every communicator that reaches it
 * returns errors (dynproc/bridge.c): every operation waiting on it completes
 * with err (request.c); later ones naming it fail at once (dyn_gone). */
void mpid_fail_peer(int world, int err);
const char *dyn_gone(int world);

/* ---- sends (proto.c) ---------------------------------------------------- */
/* Blocking send; small standard sends with nothing queued skip the request. */
int mpid_send(const void *buf, size_t len, int dest, int tag, struct MPI_ABI_Comm *c, int mode);
mpid_req_t *mpid_isend(const void *buf, size_t len, int dest, int tag, struct MPI_ABI_Comm *c,
                       int mode);
/* The same with a typed send (datatype/p2p.c) whose payload pieces
 * mpir_dt_iov supplies; buf NULL: eager whatever len is. */
mpid_req_t *mpid_isend_dt(const void *buf, void *dtp, size_t len, int dest, int tag,
                          struct MPI_ABI_Comm *c, int mode);
/* A typed send of len (< 4 GiB) bytes as a streamed rendezvous: RTS, and
 * once the receiver has matched it the pieces from mpir_dt_iov. */
mpid_req_t *mpid_isend_stream(void *dtp, size_t len, int dest, int tag, struct MPI_ABI_Comm *c,
                              int mode);
/* Sender side of W_GO. */
void mpid_on_go(const wire_go_t *m);
void mpid_send_ctl(int world, int kind, uint64_t sreq);
void mpid_send_cancel(int world, const wire_hdr_t *envelope, uint64_t sreq);
/* direct: the sender pushes direct_len bytes by skf_send_direct (wire_go_t). */
void mpid_send_go(int world, uint64_t sreq, uint64_t rreq, size_t direct_len, int direct);
void mpid_send_cts(int world, uint64_t sreq, uint64_t rreq, size_t split, const skf_mr_key_t *key);
int mpid_progress_sends(void);
void mpid_send_pushed(mpid_req_t *r);

/* ---- receives (recv.c) -------------------------------------------------- */
/* Blocking receive; returns MPI_SUCCESS or MPI_ERR_TRUNCATE (st, never NULL, is
 * filled; *sent gets the length the sender sent). */
int mpid_recv(void *buf, size_t cap, int src, int tag, struct MPI_ABI_Comm *c, MPI_Status *st,
              size_t *sent);
mpid_req_t *mpid_irecv(void *buf, size_t cap, int src, int tag, struct MPI_ABI_Comm *c);
/* Give an unexpected (or probed) message its user buffer. */
void mpid_recv_attach(mpid_req_t *u, void *buf, size_t cap);
/* Look for a message; with msg != NULL the match is removed (mprobe). */
int mpid_iprobe(int src, int tag, struct MPI_ABI_Comm *c, MPI_Status *st, mpid_req_t **msg);
/* Cancel a receive not yet matched (done at once), or ask the receiver to
 * drop a synchronous or rendezvous send it has not matched (the request
 * completes with the answer, cancelled or not).  1: cancelled at once. */
int mpid_cancel(mpid_req_t *r);
/* One arrived channel message (header already validated to exist). */
void mpid_on_message(int src_world, struct iovec *cont, int ncont, size_t total);
/* Finish the receives whose rendezvous get has come in; 1 if any did. */
int mpid_progress_pulls(void);

/* ---- matching (match.c) ------------------------------------------------- */
/* MPI_ANY_TAG matches user tags only: negative tags are internal
 * (partitioned communication, binding/partitioned.c). */
static inline int match_tag(int want, int tag)
{
    return want == MPI_ANY_TAG ? tag >= 0 : want == tag;
}
/* Partitioned sends waiting for a hello or with data due: moved on by every
 * progress pass while any is pending. */
extern int part_n_pending;
int part_progress(void);
void match_post(struct MPI_ABI_Comm *c, mpid_req_t *r);
mpid_req_t *match_take_posted(struct MPI_ABI_Comm *c, int src, int tag);
int match_unpost(struct MPI_ABI_Comm *c, mpid_req_t *r);
void match_add_unexp(struct MPI_ABI_Comm *c, mpid_req_t *u);
mpid_req_t *match_find_unexp(struct MPI_ABI_Comm *c, int src, int tag, int remove);
/* Remove and return the unexpected message from src whose sender's request
 * is sreq, unless it is busy (still arriving): NULL. */
mpid_req_t *match_take_unexp_sreq(struct MPI_ABI_Comm *c, int src, uint64_t sreq,
                                  const mpid_req_t *busy);
void match_free_all(struct MPI_ABI_Comm *c);

/* ---- progress (progress.c) ---------------------------------------------- */
int mpid_progress(void);       /* one pass: push sends, drain arrivals; 1 if anything moved */
void mpid_idle(void);          /* nothing moved: let skf_wait poll, then sleep */
/* A wait saw -EPIPE: end the job with a line naming the peer that is gone. */
void mpid_peer_gone(void) __attribute__((noreturn));
void mpid_wait(mpid_req_t *r); /* progress until r->done */
/* MULTIPLE, device lock held: sleep in the channel (1 ms at most) unless
 * another thread waits for the lock.  > 0: events ready; 0: timeout, kick. */
int mpid_mt_wait_locked(void);

/* copy len bytes from offset off of a received message's pieces */
void mpid_copy_out(void *dst, const struct iovec *cont, int ncont, size_t off, size_t len);

#pragma GCC visibility pop

#endif /* SKIFF_MPI_DEVICE_H */
