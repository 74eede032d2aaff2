/*
 * skiff.h — Skiff's channel layer (SkifCh-style), the low-level message-passing
 * interface that MPI, SHMEM and applications build on.
 *
 * Model (see docs/skiff-api.md):
 *  - A context (skf_ctx_t) is one process's membership in the job: rank, size,
 *    node map, transports.  Created by skf_init (bootstraps through PMI or as a
 *    singleton).
 *  - A channel (skf_chan_t) is a port: an independent message space.  MPI uses
 *    one port, SHMEM another, applications their own.  Opening is collective.
 *  - skf_send copies the caller's iovec once, into the receiver's ring, as ONE
 *    message.  It may take fewer bytes than offered (the rest is the caller's to
 *    send as further messages) and returns -EAGAIN when nothing fits.  It never
 *    buffers behind the caller's back and never blocks.
 *  - skf_recv hands out one message as up to SKF_CONT_SIZE pointers into Skiff's
 *    own receive memory (no copy).  The memory stays valid until skf_recv_done.
 *  - Messages from one sender on one channel arrive in the order sent.  Nothing
 *    is promised across senders.
 *
 * All functions returning int/ssize_t report errors as negative errno values:
 * -EAGAIN (no room / nothing to read), -EINVAL, -EPIPE (peer gone), -ENOMEM, ...
 * Thread safety: a channel is used by one thread at a time, and all channels of
 * a context by one thread at a time (they share the tcp transport's state).
 * Skiff itself runs one thread per process besides the caller's: the tcp
 * transport's RMA service, which answers peers' get/put/atomic requests on
 * my exposed memory while I compute (docs/tcp.md); it shares with the caller
 * only the exposure table (locked inside skf_mr_expose/release) and the
 * exposed memory itself (the caller's __atomic builtins and skf_atomic are
 * atomic with respect to each other; plain accesses race as with any peer).
 */
#ifndef SKIFF_H
#define SKIFF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SKIFF_VERSION_MAJOR 0
#define SKIFF_VERSION_MINOR 1
#define SKIFF_VERSION_PATCH 0
#define SKIFF_VERSION_STRING "0.1.0"

typedef struct skf_ctx skf_ctx_t;
typedef struct skf_chan skf_chan_t;
typedef uint64_t skf_addr_t; /* (rank << 16) | port */

#define SKF_CONT_SIZE 3 /* at most this many pieces per received message */
#define SKF_READABLE 1
#define SKF_WRITABLE 2
#define SKF_GET_DONE 4 /* skf_wait: a get started by skf_get_start has finished */

/* Ports below SKF_PORT_USER are reserved for Skiff's own subsystems. */
#define SKF_PORT_INTERNAL 0 /* core control traffic (one-sided fallback, ...) */
#define SKF_PORT_MPI 1
#define SKF_PORT_SHMEM 2
#define SKF_PORT_USER 16

/* ---- context ------------------------------------------------------------ */
/* A process joins once: a second skf_init (MPI and OpenSHMEM in one program)
 * returns the same context; the last skf_finalize leaves the job. */
int skf_init(skf_ctx_t **ctx);
int skf_finalize(skf_ctx_t *ctx);
int skf_rank(const skf_ctx_t *ctx);
int skf_size(const skf_ctx_t *ctx);
/* Node locality, from the launcher's process mapping (never from hostnames). */
int skf_node_id(const skf_ctx_t *ctx, int rank);  /* node index of a rank */
int skf_local_rank(const skf_ctx_t *ctx);         /* my index on my node  */
int skf_local_size(const skf_ctx_t *ctx);         /* ranks on my node     */
/* Abort the whole job (through the launcher when there is one). Never returns. */
void skf_abort(skf_ctx_t *ctx, int code, const char *why) __attribute__((noreturn));
/* The same for a layer that has printed why itself (MPI): no second line. */
void skf_abort_quiet(skf_ctx_t *ctx, int code, const char *why) __attribute__((noreturn));

/* ---- addresses ---------------------------------------------------------- */
skf_addr_t skf_addr(const skf_ctx_t *ctx, int rank, uint16_t port);
int skf_addr_rank(skf_addr_t a);
uint16_t skf_addr_port(skf_addr_t a);

/* ---- channels ----------------------------------------------------------- */
int skf_chan_open(skf_ctx_t *ctx, uint16_t port, skf_chan_t **ch); /* collective */
int skf_chan_close(skf_chan_t *ch);                                /* collective */
skf_ctx_t *skf_chan_ctx(const skf_chan_t *ch);
/* Largest message one skf_send can take to dst when the ring is empty: callers
 * that want a message in one piece keep below it. */
size_t skf_max_msg(const skf_chan_t *ch, skf_addr_t dst);

ssize_t skf_send(skf_chan_t *ch, skf_addr_t dst, const struct iovec *iov, int iovcnt);
/* Writes n bytes of a message's generated part, starting at its byte off, to
 * dst (a place in the receiver's ring).  Called once or twice per send (twice
 * when the message wraps around the ring's end), in order. */
typedef void (*skf_pack_fn)(void *arg, size_t off, void *dst, size_t n);
/* skf_send of the pieces iov[0..iovcnt) followed by len bytes that pack
 * generates straight into the receiver's ring: a packer (strided data, say)
 * saves the staging copy skf_send of its output would need.  Cut, -EAGAIN and
 * the return value as skf_send (bytes taken, the iovec's first).  On shm pack
 * is asked for exactly the generated bytes taken; where a transport cannot
 * hand out its buffer (tcp), the channel packs into its own staging buffer
 * first, as much as one message can hold, and the transport may take less. */
ssize_t skf_send_pack(skf_chan_t *ch, skf_addr_t dst, const struct iovec *iov, int iovcnt,
                      size_t len, skf_pack_fn pack, void *arg);
/* skf_send onto the pair's bulk ring (shm between node mates with
 * SKIFF_SHM_BULK_SIZE rings, MPI's port only): delivered by skf_recv like
 * any message but in NO order with the sender's skf_send messages (only with
 * its other bulk ones).  Where there is none it is skf_send.  skf_bulk_max:
 * the largest payload one takes, 0 when dst has no bulk ring. */
ssize_t skf_send_bulk(skf_chan_t *ch, skf_addr_t dst, const struct iovec *iov, int iovcnt);
size_t skf_bulk_max(const skf_chan_t *ch, skf_addr_t dst);
ssize_t skf_recv(skf_chan_t *ch, struct iovec cont[SKF_CONT_SIZE], int *ncont,
                 skf_addr_t *src);
int skf_recv_done(skf_chan_t *ch);
/* Block until one of events is true, timeout_ms passes (-1 = forever) or a peer
 * this channel depends on dies (-EPIPE).  Returns the events that are ready
 * (> 0), 0 on timeout, or a negative errno.  Polls briefly, then sleeps. */
int skf_wait(skf_chan_t *ch, int events, int timeout_ms);
/* From another thread of this process: make a skf_wait in progress on ch
 * return (0) soon, e.g. because that thread holds a lock another wants.  Safe
 * to call at any time from any thread; a wait that starts later is not cut. */
void skf_kick(skf_chan_t *ch);
/* After -EPIPE: which peer is gone.  Returns its rank (-1 when none is known,
 * -EINVAL for bad arguments) and, unless cap is 0, a few words about it in desc
 * ("pid 4242, this node, exited"; "on 10.0.0.2, connection reset by peer"). */
int skf_chan_lost(skf_chan_t *ch, char *desc, size_t cap);

/* ---- one-sided bulk (PUSH): expose memory, let a peer get/put it -------- */
/* A key is plain data: send it to a peer inside a message. */
typedef struct skf_mr_key {
    uint64_t base;   /* address in the owner's process */
    uint64_t len;    /* exposed length in bytes */
    int32_t owner;   /* owner's rank */
    int32_t pid;     /* owner's pid (for CMA) */
    uint64_t cookie; /* identifies the exposure (checked by fallback paths) */
} skf_mr_key_t;

int skf_mr_expose(skf_ctx_t *ctx, void *base, size_t len, skf_mr_key_t *key);
int skf_mr_release(skf_ctx_t *ctx, const skf_mr_key_t *key);
/* Copy len bytes at offset off of the peer's region into dst (get) or from src
 * into it (put).  Returns 0 when the bytes are in place, or a negative errno
 * (-EINVAL for a range outside the region, -EPIPE when the owner is gone).
 * The call drives the channel's progress while it waits.  The owner need not
 * help on CMA (same node) and over tcp (its RMA service thread answers); on the
 * same node's fallback path it must be inside Skiff (e.g. waiting on a channel). */
int skf_get(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, void *dst, size_t len);
int skf_put(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, const void *src, size_t len);
/* Vector get: the region's pieces remote[] (iov_base = offset in the region,
 * each range-checked like skf_get) are read in order into the local pieces
 * local[]; both lists must hold the same number of bytes, their piece
 * boundaries need not agree.  Same returns and progress rule as skf_get.  On
 * one node with CMA it is process_vm_readv with up to IOV_MAX pieces a side per
 * call; on every other path one skf_get per stretch, with identical results.
 * On an error some pieces may already be filled. */
int skf_getv(skf_chan_t *ch, const skf_mr_key_t *key, const struct iovec *remote, int nremote,
             const struct iovec *local, int nlocal);

/* A get in flight (skf_get_start).  The memory is the caller's and must stay
 * in place, untouched, until skf_get_test reports the end; the fields are
 * Skiff's. */
typedef struct skf_get_op {
    struct skf_get_op *next; /* queue of the transport carrying it */
    void *dst;
    uint64_t len, addr, cookie;
    uint32_t id;
    int8_t state;  /* SKF_GET_OP_* */
    int8_t write;  /* a put queued behind gets (blocking skf_put) */
    int8_t async;  /* started by skf_get_start: skf_wait reports its end */
    int32_t status; /* 0 or -errno once finished */
} skf_get_op_t;
enum { SKF_GET_OP_IDLE, SKF_GET_OP_QUEUED, SKF_GET_OP_DONE };

/* Start skf_get without waiting for it: several gets (to one owner or many)
 * can then be in flight at once, e.g. one per matched rendezvous, so a
 * network link never idles between them.  Returns 1 when the bytes are
 * already in place (same node: CMA copies at once; and every path without a
 * queue), 0 when the get is in flight, or a negative errno as skf_get.
 * Gets to one owner finish in the order started.  They move whenever the
 * channel's progress runs (skf_recv, skf_wait); skf_wait with SKF_GET_DONE
 * returns when one of them has finished. */
int skf_get_start(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, void *dst, size_t len,
                  skf_get_op_t *op);
/* The same for a put: src must stay in place, unchanged, until skf_get_test
 * reports the end (then the bytes are in the owner's memory).  Returns 1 when
 * they are already there (same node, every path without a queue), 0 when the
 * put is in flight, or a negative errno as skf_put.  Gets and puts to one
 * owner are carried out and finish in the order started (tcp: one queue per
 * owner), so a run of small puts costs one round trip, not one each. */
int skf_put_start(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, const void *src,
                  size_t len, skf_get_op_t *op);
/* skf_put_start whose request stays queued until skf_rma_push (or the next
 * progress pass) even when nothing is in flight to that owner, so that it
 * leaves in one send with the requests started right after it (a put and
 * its signal: one segment each way instead of two). */
int skf_put_start_held(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, const void *src,
                       size_t len, skf_get_op_t *op);
/* Send every request started on ch (skf_get_start, skf_put_start,
 * skf_atomic_start) that is still waiting in a queue, without waiting for
 * the answers: a started request otherwise may wait for the next progress
 * pass of ch (to leave together with the ones started after it), and one to
 * a peer first reached may wait for its connection.  For a caller that goes
 * elsewhere (another channel, computation) while a peer needs its request.
 * 0 (a request to a peer that is gone fails: skf_get_test says so), or
 * -EINVAL. */
int skf_rma_push(skf_chan_t *ch);
/* 1 when op's bytes are in place, 0 while it is in flight, a negative errno
 * when it failed (-EPIPE: owner gone; -EINVAL: range outside its exposure).
 * Only looks: progress comes from skf_recv and skf_wait. */
int skf_get_test(skf_chan_t *ch, skf_get_op_t *op);

/* Direct payloads: a large message body sent from the sender's memory
 * straight into a buffer the receiver posted, through the pair's stream
 * with no ring, window or copy in between (tcp: one plain send and recv a
 * side, as a raw TCP stream).  The receiver posts first (skf_recv_direct,
 * naming the buffer by an id of its choice) and then tells the sender (its
 * own message); the sender's skf_send_direct then takes the bytes into the
 * stream after its messages sent before, and they fill the posted buffer in
 * place of any message.  Both ops finish as skf_get_start's: skf_get_test
 * (1 done: the sender's buffer is free again, the receiver's full), and
 * skf_wait with SKF_GET_DONE wakes on the receiver's.  skf_send_direct
 * returns 1 (all out already), 0 (under way), -EAGAIN (one to dst is still
 * leaving: call again later), -EOPNOTSUPP, -EPIPE; skf_recv_direct 0,
 * -EOPNOTSUPP, -EPIPE.  A payload for which nothing was posted under its id
 * with that length breaks the connection (the peer counts as gone).
 * skf_direct_ok: 1 when the transport to dst offers them (tcp), else 0. */
int skf_direct_ok(const skf_chan_t *ch, skf_addr_t dst);
int skf_send_direct(skf_chan_t *ch, skf_addr_t dst, uint64_t id, const void *buf, size_t len,
                    skf_get_op_t *op);
int skf_recv_direct(skf_chan_t *ch, skf_addr_t src, uint64_t id, void *buf, size_t len,
                    skf_get_op_t *op);

/* ---- one-sided atomics on exposed memory ---- */
enum skf_aop {
    SKF_AOP_FETCH,  /* read the value atomically (operand unused) */
    SKF_AOP_SET,    /* store operand atomically (old value returned) */
    SKF_AOP_SWAP,   /* = SET; kept for readers used to SHMEM */
    SKF_AOP_CSWAP,  /* if value == compare then value = operand; old value returned */
    SKF_AOP_ADD, SKF_AOP_AND, SKF_AOP_OR, SKF_AOP_XOR,
    SKF_AOP_MIN, SKF_AOP_MAX,   /* signed */
    SKF_AOP_UMIN, SKF_AOP_UMAX  /* unsigned */
};
/* One atomic read-modify-write of the size-byte integer (size 4 or 8, naturally aligned) at offset off of
 * the peer's exposed region key.  *old (may be NULL) receives the value before the operation (zero-extended
 * for size 4).  Atomic with respect to every other skf_atomic on the same word from any rank, and to the
 * owner's own __atomic builtins (seq_cst) on it.  Returns 0 or a negative errno: -EINVAL (bad op/size,
 * misaligned, outside the exposure), -EPIPE (owner gone).  Same progress rule as skf_get.
 * (For size 4 only the low 32 bits of operand and compare count.)  The owner executes it: its own
 * process (key owner == me: the builtins right here), its tcp transport (a request on the one-sided
 * connection), or, on the same node over shm, its fallback server on the internal port, which
 * answers while the owner is inside Skiff and has memory exposed (CMA cannot do atomics: passive
 * same-node atomics need memory both map, as MPI windows and SHMEM set up themselves). */
int skf_atomic(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, int op, int size,
               uint64_t operand, uint64_t compare, uint64_t *old);

/* An atomic in flight (skf_atomic_start).  Caller's memory, in place until
 * skf_get_test(ch, &a->op) reports the end; then old holds the value before
 * (status 0).  The fields but old are Skiff's. */
typedef struct skf_atomic_op {
    skf_get_op_t op;
    uint32_t aop, size;         /* the request as it travels */
    uint64_t operand, compare;
    uint64_t old;
} skf_atomic_op_t;
/* skf_atomic without waiting for the answer: a run of atomics (and puts, in
 * the same per-owner queue, skf_put_start) to one owner costs one round trip,
 * not one each.  Same checks and errors as skf_atomic; returns 1 when it is
 * already done (my own word, a node mate: executed here and now), 0 when in
 * flight, or a negative errno.  Atomics, gets and puts to one owner are
 * executed in the order started. */
int skf_atomic_start(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, int op, int size,
                     uint64_t operand, uint64_t compare, skf_atomic_op_t *a);

/* ---- accumulates executed by the owner ---- */
enum skf_acc_op {
    SKF_ACC_SUM, SKF_ACC_PROD, SKF_ACC_MIN, SKF_ACC_MAX,
    SKF_ACC_BAND, SKF_ACC_BOR, SKF_ACC_BXOR, SKF_ACC_LAND, SKF_ACC_LOR, SKF_ACC_LXOR,
    SKF_ACC_REPLACE, SKF_ACC_NOOP, SKF_ACC_CSWAP, SKF_ACC_NOPS
};
enum skf_acc_type { /* element types (host byte order) */
    SKF_T_I8, SKF_T_U8, SKF_T_I16, SKF_T_U16, SKF_T_I32, SKF_T_U32, SKF_T_I64, SKF_T_U64,
    SKF_T_F32, SKF_T_F64, SKF_T_NTYPES
};
#define SKF_ACC_MAX_BYTES 65536 /* bytes of elements per request (longer calls are split) */
typedef struct skf_acc {
    int op;               /* enum skf_acc_op; floats: sum, prod, min, max, replace, no-op */
    int type;             /* enum skf_acc_type */
    size_t count;         /* elements (compare-and-swap: 1) */
    const void *operand;  /* count elements (unused by no-op) */
    const void *compare;  /* compare-and-swap: the value to find */
    void *old;            /* NULL, or count elements: the values before */
    /* NULL: every element is one atomic instruction (4/8-byte integers with sum,
     * band, bor, bxor, min, max, replace, no-op, compare-and-swap only).  Else
     * an 8-byte word of the same owner taken as a lock around all elements:
     * compare-and-swap 0 -> lock_val (non-zero), the op, store 0. */
    const skf_mr_key_t *lock;
    size_t lock_off;
    uint64_t lock_val;
} skf_acc_t;
/* target[i] = operand[i] op target[i] for count elements of type at offset off
 * of the peer's region (naturally aligned), executed by the owner: one request
 * and its answer over tcp, whether or not the owner is inside Skiff (its RMA
 * service thread answers); in my own process at once.  Atomic per element with
 * respect to every other skf_accumulate / skf_atomic on the same elements using
 * the same mode (no lock: atomic instructions, which the owner's own __atomic
 * builtins match; a lock word: whoever holds the same word).  A held lock is
 * waited for (asked again), never returned.  Returns 0 or a negative errno:
 * -EINVAL (bad op/type/count, misaligned, outside the exposure), -EPIPE (owner
 * gone), -EOPNOTSUPP (a node mate over shm: there the caller uses memory both
 * map).  Same progress rule as skf_get. */
int skf_accumulate(skf_chan_t *ch, const skf_mr_key_t *key, size_t off, const skf_acc_t *a);

const char *skf_strerror(int err);

#ifdef __cplusplus
}
#endif
#endif /* SKIFF_H */
