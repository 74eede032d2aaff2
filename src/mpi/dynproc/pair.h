/*
 * pair.h — a shared-memory ring between two processes of different jobs on
 * one node (bridge.c's fast path; docs/dynamic-processes.md).
 *
 * The sender of a direction creates a memfd region (node_shared.h: never in
 * /dev/shm, freed with the last process that maps it) holding one
 * single-producer ring of src/transports/shm/ring.h and a few flags, and names
 * it in the hello of its TCP connection.  The receiver maps it and says so in
 * the region; the sender then drops the name (closes its descriptor) and
 * writes every later message of that direction into the ring.  Messages it
 * had sent over TCP before come first: the region holds how many (the
 * "gate"), and the receiver reads the ring only once it has that many.
 * The TCP connections stay: their end is how a lost peer is noticed, and a
 * one-frame kick over them wakes a receiver that sleeps (or a sender that
 * waits for room) — the flags say when one is needed, so a busy pair makes
 * no system call per message.
 */
#ifndef SKIFF_MPI_DYNPROC_PAIR_H
#define SKIFF_MPI_DYNPROC_PAIR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "core/node_shared.h"
#include "transports/shm/ring.h"

#pragma GCC visibility push(hidden)

enum { PAIR_NONE, PAIR_OFFERED, PAIR_LIVE };

typedef struct pair {
    int state;            /* PAIR_*: a sender's ring goes NONE -> OFFERED -> LIVE */
    struct pair_hdr *h;   /* the region's flags */
    struct shm_ring ring;
    void *base;
    size_t size;
    uint64_t pos;         /* sender: tail; receiver: head (lines) */
    uint64_t head_cache;  /* sender: the receiver's head last read */
    uint64_t stale_until; /* sender: ring.h's shm_prepare_next_sp */
    uint32_t cur_len;     /* receiver: length of the message handed out */
    int full;             /* sender: the last send found the ring full */
    char name[SKF_NODE_SHM_NAME];
} pair_t;

/* Sender: create the region (ring of ring_bytes); 0, or -errno with why. */
int pair_offer(pair_t *p, skf_ctx_t *ctx, size_t ring_bytes, char *why, size_t cap);
/* Receiver: map the region named name (a ring of lines lines, as the
 * sender said) and tell the sender; 0 or -errno with why. */
int pair_accept(pair_t *p, const char *name, uint64_t lines, char *why, size_t cap);
/* Sender with an offered ring: 1 once the receiver mapped it (the name is
 * dropped, tcp_sent becomes the gate: the ring is live), else 0. */
int pair_live(pair_t *p, uint64_t tcp_sent);
/* Sender: put what fits of the message into the ring: bytes taken, or
 * -EAGAIN (full: the receiver will kick when it makes room).  *kick: the
 * receiver sleeps, wake it. */
ssize_t pair_send(pair_t *p, const struct iovec *iov, int iovcnt, int *kick);
/* Sender whose ring was full: 1 once the receiver has made room. */
int pair_room(const pair_t *p);
/* Receiver: the next message's length, or -1 when none (or still gated
 * behind tcp_recvd messages over TCP); its one or two pieces in cont. */
ssize_t pair_recv(pair_t *p, uint64_t tcp_recvd, struct iovec *cont, int *ncont);
/* Receiver: a message waits in the ring (gated or not). */
int pair_pending(const pair_t *p);
/* Receiver: hand the message back; 1 when the sender waits for room (kick). */
int pair_recv_done(pair_t *p);
/* Receiver about to sleep (on 1) or awake (0): with on, 1 when a message
 * is there after all (do not sleep). */
int pair_sleep(pair_t *p, int on);
/* Unmap (and drop the name when still held). */
void pair_close(pair_t *p);

#pragma GCC visibility pop

#endif
