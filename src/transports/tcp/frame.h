/*
 * frame — the bytes the tcp transport puts on a connection, and the checks
 * every incoming header passes before anything trusts it.  Pure functions
 * over buffers (no sockets), so the fuzz harnesses drive them directly.
 *
 * A connection starts with a handshake (hello, challenge, proof: the job-key
 * check of auth.h), then carries frames.  A data connection carries messages
 * both ways (one connection per pair of ranks; two only when both dialled at
 * once): each message is one frame: an 8-byte header, the payload, zero
 * padding to a multiple of 8 (so payloads lie 8-byte aligned in the
 * receiver's ring); credits and the goodbye are frames too, taken out of the
 * stream by the transport as they arrive.  A one-sided (RMA) connection
 * (to the peer's RMA listener, its service thread) carries requests from
 * the side that connected and responses back.
 * Integers are in the host's byte order: all ranks of a job run the same
 * build on one architecture (the hello's magic catches a mismatch).
 */
#ifndef SKIFF_TCP_FRAME_H
#define SKIFF_TCP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "transports/tcp/auth.h"

#define TCP_HS_MAGIC 0x534b4654u /* "SKFT" */
#define TCP_HS_VERSION 1
#define TCP_FRAME_MAGIC 0xa5

enum tcp_conn_kind { TCP_CONN_DATA = 1, TCP_CONN_RMA = 2 };

/* connector -> acceptor */
struct tcp_hello {
    uint32_t magic;
    uint16_t version;
    uint8_t kind;  /* enum tcp_conn_kind */
    uint8_t zero;
    uint32_t port; /* channel (skiff port) the connection belongs to */
    uint32_t src;  /* connector's rank */
    uint32_t dst;  /* rank it wants to reach */
    uint32_t job_size;
    uint32_t max_frame; /* connector's largest payload: the acceptor's must match */
    uint32_t zero2;
    uint8_t nonce[SKF_AUTH_NONCE];
};

/* acceptor -> connector: its nonce and its proof of the key */
struct tcp_challenge {
    uint32_t magic;
    uint32_t zero;
    uint8_t nonce[SKF_AUTH_NONCE];
    uint8_t mac[SKF_AUTH_MAC];
};

/* connector -> acceptor: the connector's proof */
struct tcp_proof {
    uint32_t magic;
    uint32_t zero;
    uint8_t mac[SKF_AUTH_MAC];
};

/* One message on a data connection: header, then len payload bytes. */
struct tcp_frame_hdr {
    uint32_t len;
    uint16_t port;
    uint8_t kind; /* 1: data */
    uint8_t magic;
};
#define TCP_FRAME_DATA 1
#define TCP_FRAME_BYE 2 /* empty, my last frame: I closed the channel (I send nothing more; I read on only to the peer's end) */
/* 8-byte payload: the position up to which I have released the other side's
 * stream of data frames.  A sender keeps at most SKIFF_TCP_BUF - TCP_CTL_RESERVE
 * bytes unreleased, so its room (and skf_wait WRITABLE) moves only when the
 * receiver takes messages, as with shm's ring, never with the kernel's
 * buffering; the reserve keeps room in the receiver's ring for control
 * frames, so credits are read even when the ring is full of messages. */
#define TCP_FRAME_CREDIT 3
#define TCP_CREDIT_LEN 8
#define TCP_CTL_RESERVE 64
/* One connection per pair: when two ranks dialled each other at once, the
 * connection dialled by the lower rank stays.  The higher one ends its own
 * with SWITCH (empty: "my next messages come on the connection you
 * dialled"), and its first data frame on the lower one's connection follows
 * MOVED (empty: "after those before my SWITCH"); without a race that first
 * frame follows FIRST (empty: "no messages of mine came elsewhere"). */
#define TCP_FRAME_SWITCH 4
#define TCP_FRAME_FIRST 5
#define TCP_FRAME_MOVED 6
/* 16-byte payload {id, n}: a direct payload (skf_send_direct) of n raw bytes
 * follows this frame at once (no padding), read by the receiver straight into
 * the buffer it posted under id (skf_recv_direct), never into its ring, and
 * not counted in the window (the receiver posted room for it).  At most one
 * in flight per connection and direction. */
#define TCP_FRAME_DIRECT 7
#define TCP_DIRECT_LEN 16

/* RMA request (requester -> owner); a PUT's payload follows it, an
 * ATOMIC's struct tcp_rma_atomic (len = its size). */
struct tcp_rma_req {
    uint32_t op;
    uint32_t id;
    uint64_t cookie; /* the exposure (skf_mr_key_t.cookie)  */
    uint64_t addr;   /* owner's address of the first byte   */
    uint64_t len;
};
/* The payload of an ATOMIC request: skf_atomic on the word at req.addr.
 * The owner checks op, size, alignment and range itself (skf_atomic_exec)
 * and answers -EINVAL to what it refuses. */
struct tcp_rma_atomic {
    uint32_t op;   /* enum skf_aop */
    uint32_t size; /* 4 or 8 */
    uint64_t operand, compare;
};
/* The payload of an ACC request (skf_accumulate): this, then count
 * elements of operand (none for the no-op), then one compare element for a
 * compare-and-swap (req.len says the total).  The owner answers with
 * ACC_RESP: the count old elements when ACC_FETCH is set and the status is
 * 0; -EAGAIN when the lock word was held (the requester asks again). */
struct tcp_rma_acc {
    uint32_t op;     /* enum skf_acc_op */
    uint32_t type;   /* enum skf_acc_type */
    uint32_t count;
    uint32_t flags;  /* TCP_ACC_FETCH */
    uint64_t lock_cookie, lock_addr, lock_val; /* lock_addr 0: atomic per element */
};
#define TCP_ACC_FETCH 1u
/* skiff.h's SKF_ACC_MAX_BYTES, SKF_ACC_NOOP, SKF_ACC_CSWAP (this header stays
 * free of the public one for the fuzz harness; tcp.c checks they agree) */
#define TCP_ACC_ELEMS_MAX 65536
#define TCP_ACC_OP_NOOP 11
#define TCP_ACC_OP_CSWAP 12
/* RMA response (owner -> requester); a GET's data follows it, an ATOMIC's
 * old value (8 bytes) when its status is 0, an ACC's old elements. */
struct tcp_rma_resp {
    uint32_t op;
    uint32_t id;
    int64_t status; /* 0 or -errno (-EINVAL: outside the exposure) */
    uint64_t len;   /* payload bytes that follow */
};
enum { TCP_RMA_GET = 1, TCP_RMA_PUT, TCP_RMA_GET_RESP, TCP_RMA_PUT_RESP, TCP_RMA_ATOMIC,
       TCP_RMA_ATOMIC_RESP, TCP_RMA_ACC, TCP_RMA_ACC_RESP };
/* Largest ACC payload: header, SKF_ACC_MAX_BYTES bytes of elements, a compare element. */
#define TCP_ACC_REQ_MAX (sizeof(struct tcp_rma_acc) + TCP_ACC_ELEMS_MAX + 8)
#define TCP_ATOMIC_RESP_LEN 8

/* Each check returns NULL when the header is acceptable, else a short
 * reason for the one log line that accompanies dropping the connection. */
const char *tcp_hello_check(const struct tcp_hello *h, uint16_t port, int me, int size,
                            uint32_t max_frame);
const char *tcp_challenge_check(const struct tcp_challenge *c);
const char *tcp_proof_check(const struct tcp_proof *p);
const char *tcp_frame_check(const struct tcp_frame_hdr *h, uint16_t port, uint32_t max_len);
/* A credit's position, given the sender's state: released so far and bytes sent. */
const char *tcp_credit_check(uint64_t pos, uint64_t released, uint64_t sent);
const char *tcp_rma_req_check(const struct tcp_rma_req *r, uint64_t max_len);
/* An ACC payload of len bytes (header included): element bytes that agree
 * with op, type and count.  Op/type combinations are the owner's to refuse. */
const char *tcp_rma_acc_check(const struct tcp_rma_acc *a, uint64_t len, size_t elem_size);
/* An answer to request id: op the response expected, len its payload when
 * the status is 0 (a PUT's: 0; an ATOMIC's: TCP_ATOMIC_RESP_LEN). */
const char *tcp_rma_resp_check(const struct tcp_rma_resp *r, uint32_t id, uint32_t op, uint64_t len);

/* The MACs of the handshake: both bind the whole hello (ranks, port, kind,
 * the connector's nonce) and the acceptor's nonce; labels tell the sides
 * apart.  0 or -errno. */
int tcp_hs_mac(const char *key, int acceptor_side, const struct tcp_hello *h,
               const uint8_t nonce_acceptor[SKF_AUTH_NONCE], uint8_t mac[SKF_AUTH_MAC]);

#endif
