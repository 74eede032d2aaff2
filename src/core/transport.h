/*
 * transport — the boundary between the skiff core and a transport (shm now,
 * tcp later).  A transport is this table of functions; the core picks one per
 * peer when a channel opens and never looks inside.  One transport instance
 * ("tp") exists per channel per transport kind and serves a set of peers,
 * named by the transport's own small integer ids.
 *
 * Arrival merging: each transport keeps its own arrival structure (shm: a
 * bitmap of non-empty rings), so `recv` of a transport is O(1) in the number
 * of its peers; the core keeps one entry per transport kind, not per peer,
 * and asks the transport that delivered last first.
 */
#ifndef SKIFF_CORE_TRANSPORT_H
#define SKIFF_CORE_TRANSPORT_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "skiff.h"

#define SKF_ASYNC_HELD 2 /* skf_get_op_t.async of skf_put_start_held */

struct skf_transport_ops {
    /* Name for skiff-info and verbose output ("shm"). */
    const char *name;
    /* Collective among all ranks of the job: set up this transport's part of
     * channel ch (port) and fill peer_id[rank] for each rank it serves (-1 for
     * the others).  Returns 0 with *tp set, or a negative errno (then every
     * rank gets an error, nobody hangs). */
    int (*chan_open)(skf_chan_t *ch, int *peer_id, void **tp);
    /* Release what chan_open set up.  Collective like chan_open.  Never fails
     * for a valid tp (errors are reported, resources are freed anyway). */
    int (*chan_close)(void *tp);
    /* Largest payload one send to peer can take when its ring is empty. */
    size_t (*max_msg)(void *tp, int peer);
    /* Copy the gathered iovec into peer's receive memory as one message.
     * Returns bytes taken (may be fewer than offered), -EAGAIN when nothing
     * fits now, -EPIPE when the peer is known dead.  Must not block, allocate
     * or make a system call unless it must wake a sleeping receiver. */
    ssize_t (*send)(void *tp, int peer, const struct iovec *iov, int iovcnt);
    /* send, the message continuing with len bytes pack writes in place
     * (skf_send_pack).  NULL: the core stages them and calls send. */
    ssize_t (*send_pack)(void *tp, int peer, const struct iovec *iov, int iovcnt, size_t len,
                         skf_pack_fn pack, void *arg);
    /* Optional (skf_send_bulk): send onto a separate large ring of the pair,
     * in no order with the sender's other messages; and the largest payload
     * one such send can take (0: none to that peer).  NULL: plain send. */
    ssize_t (*send_bulk)(void *tp, int peer, const struct iovec *iov, int iovcnt);
    size_t (*bulk_max)(void *tp, int peer);
    /* Hand out the oldest deliverable message as pieces in cont (at most
     * SKF_CONT_SIZE) and its sender's world rank.  Returns its length or
     * -EAGAIN.  The first piece of every message starts 8-byte aligned (the
     * MPI layer reads its headers in place).  The memory stays the
     * transport's until recv_done.  Must not block. */
    ssize_t (*recv)(void *tp, struct iovec *cont, int *ncont, int *src_rank);
    /* Give back the message recv handed out last.  Must not block. */
    void (*recv_done)(void *tp);
    /* Which of events (SKF_READABLE|SKF_WRITABLE|SKF_GET_DONE) are true now;
     * WRITABLE refers
     * to the peer the last send returned -EAGAIN for (always true when no send
     * failed) and turns true only when that peer has taken messages, never
     * by buffering elsewhere (a full ring stays full while nobody reads);
     * GET_DONE: a get started by get_start finished since it was last
     * reported.  Must not block. */
    int (*ready)(void *tp, int events);
    /* Sleep until ready(events) would be non-zero, timeout_ms passes (-1 =
     * forever) or a peer dies.  Returns ready events, 0 on timeout, -EPIPE. */
    int (*wait)(void *tp, int events, int timeout_ms);
    /* Optional: make a wait in progress (another thread) return 0 soon.
     * Async-safe with respect to every other op. */
    void (*kick)(void *tp);
    /* One-sided copy between buf and len bytes at addr inside peer's exposed
     * region key (write: buf -> region).  Blocks, driving this transport's
     * progress, until done: 0, -EINVAL (outside the exposure), -EPIPE (peer
     * gone).  NULL for same-node transports: the core uses CMA or its copy
     * pipeline instead. */
    int (*rma)(void *tp, int peer, int write, const skf_mr_key_t *key, uint64_t addr, void *buf,
               size_t len);
    /* Start a one-sided get or put like rma without waiting: op (and buf)
     * are the caller's and stay in place until this transport's progress
     * sets its state to SKF_GET_OP_DONE (status 0, -EINVAL or -EPIPE).
     * Operations to one peer finish in the order started.  Returns 0 when
     * queued or a negative errno when it cannot start.  NULL where rma is
     * NULL.  op->async == SKF_ASYNC_HELD (skf_put_start_held): the request
     * may not leave before the next push or progress pass, even to an idle
     * peer. */
    int (*rma_start)(void *tp, int peer, int write, const skf_mr_key_t *key, uint64_t addr,
                     void *buf, size_t len, skf_get_op_t *op);
    /* Optional (skf_send_direct / skf_recv_direct): a payload of len bytes
     * sent straight from buf into the buffer the receiver posted under id,
     * in its place in the stream of the sender's messages (after those sent
     * before it) but never through the receiver's ring or window.  send:
     * 1 when all of it is out (buf free again), 0 when under way (op finishes
     * as rma_start's: buf stays untouched until then), -EAGAIN when another
     * one to peer is still leaving, -EPIPE.  recv: 0 posted (op finishes
     * when the bytes are in buf), -EPIPE.  A payload arriving with no
     * receive posted under its id, or of another length, breaks the
     * connection: the receiver posts before it tells the sender to go.
     * NULL: not offered (the caller uses another protocol). */
    int (*send_direct)(void *tp, int peer, uint64_t id, const void *buf, size_t len,
                       skf_get_op_t *op);
    int (*recv_direct)(void *tp, int peer, uint64_t id, void *buf, size_t len, skf_get_op_t *op);
    /* After -EPIPE: the world rank of a peer this transport has lost, with a
     * few words about it in desc ("pid 4242"); -1 when it lost none. */
    int (*lost_peer)(void *tp, char *desc, size_t cap);
    /* Optional: 1 once a peer died (not a clean close of its channel): a
     * wait for READABLE on this transport alone would return -EPIPE now.
     * The core asks it between the sleep slices of a wait that sleeps in
     * another transport (a node mate's doorbell while a tcp peer was cut
     * off). */
    int (*peer_died)(void *tp);
    /* One skf_atomic (enum skf_aop op, size 4 or 8) on the word at addr
     * inside peer's exposure key, executed by the owner: blocks like rma;
     * 0 with *old set, -EINVAL (refused by the owner), -EPIPE.  NULL where
     * rma is NULL. */
    int (*atomic)(void *tp, int peer, const skf_mr_key_t *key, uint64_t addr, int op, int size,
                  uint64_t operand, uint64_t compare, uint64_t *old);
    /* skf_atomic started like rma_start: a->op finishes as rma_start's op,
     * with a->old set.  NULL: the core runs atomic (or its own paths) now. */
    int (*atomic_start)(void *tp, int peer, const skf_mr_key_t *key, uint64_t addr,
                        skf_atomic_op_t *a);
    /* One skf_accumulate request (count elements, at most SKF_ACC_MAX_BYTES)
     * executed by the owner (skf_acc_exec there): blocks like rma; 0 with
     * old filled (when not NULL), -EINVAL, -EAGAIN (the lock word is held:
     * the caller asks again), -EPIPE.  NULL: not offered. */
    int (*acc)(void *tp, int peer, const skf_mr_key_t *key, uint64_t addr, int op, int type,
               size_t count, const void *operand, const void *compare, void *old,
               uint64_t lock_cookie, uint64_t lock_addr, uint64_t lock_val);
    /* One pass of progress for a rank blocked elsewhere (in a same-node
     * one-sided op): handshakes of peers dialling me, answers to my own
     * requests; never blocks, delivers nothing and reports nothing.  NULL:
     * nothing to do. */
    void (*poll)(void *tp);
    /* Write every queued one-sided request onto its connection now (a
     * connection still in its handshake finishes it first); answers are not
     * waited for.  0 (operations to a peer that is gone fail as usual).
     * NULL: requests always leave when started. */
    int (*push)(void *tp);
    /* Non-zero: data moves only while this process polls the transport
     * (libfabric's manual progress: a peer's fi_read of my memory, the
     * rest of a large send).  A wait over several transports then never
     * sleeps in another one's wait while the rank has a core of its own:
     * it keeps polling them all (skf_wait). */
    int polled;
};

extern const struct skf_transport_ops skf_shm_ops;
extern const struct skf_transport_ops skf_tcp_ops;
#ifdef SKIFF_HAVE_OFI
extern const struct skf_transport_ops skf_ofi_ops; /* transports/ofi: libfabric */
#endif

#endif /* SKIFF_CORE_TRANSPORT_H */
