/*
 * tcp_parsers_fuzz — fuzz target for everything Skiff parses from a TCP peer
 * before (or without) trusting it: the tcp transport's handshake messages,
 * frame, back-record and one-sided headers (src/transports/tcp/frame.c), the hex of MACs
 * and nonces (auth.c), and the PMI lines the launcher and the PMI-over-TCP
 * client read (src/common/pmi_wire.c).
 *
 * The first input byte picks the parser; the rest is its input.  Besides "no
 * crash, no sanitizer report", each accepted header must satisfy what the
 * transport relies on afterwards (lengths within bounds, the right port).
 * Built for libFuzzer (clang -fsanitize=fuzzer) or with fuzz_driver.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmi_wire.h"
#include "transports/tcp/auth.h"
#include "transports/tcp/frame.h"

#define MAX_LEN 262136u /* the default SKIFF_TCP_BUF / 4 - header */
#define PORT 16

static void must(int cond)
{
    if (!cond)
        abort();
}

/* A stream of frames as a receiver cuts it: every accepted header's
 * payload lies inside the stream, and the walk always moves forward. */
static void frames(const uint8_t *d, size_t n)
{
    size_t pos = 0;
    while (n - pos >= sizeof(struct tcp_frame_hdr)) {
        struct tcp_frame_hdr h;
        memcpy(&h, d + pos, sizeof h);
        if (tcp_frame_check(&h, PORT, MAX_LEN))
            return; /* the connection would be dropped here */
        must(h.len <= MAX_LEN && h.port == PORT);
        must(h.kind >= TCP_FRAME_DATA && h.kind <= TCP_FRAME_DIRECT);
        must(h.kind == TCP_FRAME_DATA || h.kind == TCP_FRAME_CREDIT || h.kind == TCP_FRAME_DIRECT ||
             h.len == 0);
        must(h.kind != TCP_FRAME_CREDIT || h.len == TCP_CREDIT_LEN);
        must(h.kind != TCP_FRAME_DIRECT || h.len == TCP_DIRECT_LEN);
        size_t frame = sizeof h + ((h.len + 7) & ~(size_t)7); /* padded to 8 */
        if (n - pos < frame)
            return; /* incomplete: wait for more */
        pos += frame;
    }
}

static void handshake(const uint8_t *d, size_t n)
{
    struct tcp_hello h;
    struct tcp_challenge c;
    struct tcp_proof p;
    if (n >= sizeof h) {
        memcpy(&h, d, sizeof h);
        if (!tcp_hello_check(&h, PORT, 1, 4, MAX_LEN))
            must(h.src < 4 && h.dst == 1 && h.port == PORT && h.magic == TCP_HS_MAGIC);
    }
    if (n >= sizeof c) {
        memcpy(&c, d, sizeof c);
        tcp_challenge_check(&c);
    }
    if (n >= sizeof p) {
        memcpy(&p, d, sizeof p);
        tcp_proof_check(&p);
    }
}

static void rma(const uint8_t *d, size_t n)
{
    struct tcp_rma_req q;
    struct tcp_rma_resp r;
    if (n >= sizeof q) {
        memcpy(&q, d, sizeof q);
        if (!tcp_rma_req_check(&q, UINT64_MAX / 2)) {
            must((q.op == TCP_RMA_GET || q.op == TCP_RMA_PUT || q.op == TCP_RMA_ATOMIC ||
                  q.op == TCP_RMA_ACC) &&
                 q.addr + q.len >= q.addr);
            /* an atomic's payload is exactly its operands: the owner reads no more */
            must(q.op != TCP_RMA_ATOMIC || q.len == sizeof(struct tcp_rma_atomic));
            /* an accumulate's fits the owner's buffer */
            must(q.op != TCP_RMA_ACC ||
                 (q.len >= sizeof(struct tcp_rma_acc) && q.len <= TCP_ACC_REQ_MAX));
        }
    }
    struct tcp_rma_acc a;
    if (n >= sizeof a + 2) {
        memcpy(&a, d, sizeof a);
        size_t es = (size_t)1 << (d[sizeof a] & 3); /* 1, 2, 4, 8: the element sizes */
        uint64_t len = sizeof a + d[sizeof a + 1] * 8u;
        if (!tcp_rma_acc_check(&a, len, es)) /* the elements the owner reads lie in the payload */
            must(a.count >= 1 && (uint64_t)a.count * es <= TCP_ACC_ELEMS_MAX &&
                 sizeof a + (a.op == TCP_ACC_OP_NOOP ? 0 : (uint64_t)a.count * es) +
                         (a.op == TCP_ACC_OP_CSWAP ? es : 0) ==
                     len &&
                 len <= TCP_ACC_REQ_MAX);
    }
    if (n >= sizeof r) {
        memcpy(&r, d, sizeof r);
        if (!tcp_rma_resp_check(&r, 7, TCP_RMA_GET_RESP, 4096))
            must(r.id == 7 && r.op == TCP_RMA_GET_RESP && (r.status < 0 ? r.len == 0 : r.len == 4096));
        if (!tcp_rma_resp_check(&r, 7, TCP_RMA_PUT_RESP, 0))
            must(r.id == 7 && r.op == TCP_RMA_PUT_RESP && r.len == 0 && r.status <= 0);
        /* an atomic's answer: 8 bytes of old value, or an error without payload */
        if (!tcp_rma_resp_check(&r, 7, TCP_RMA_ATOMIC_RESP, TCP_ATOMIC_RESP_LEN))
            must(r.id == 7 && r.op == TCP_RMA_ATOMIC_RESP &&
                 (r.status < 0 ? r.len == 0 : r.status == 0 && r.len == TCP_ATOMIC_RESP_LEN));
        /* an accumulate's answer: the old elements asked for, or nothing with an error */
        if (!tcp_rma_resp_check(&r, 7, TCP_RMA_ACC_RESP, 40))
            must(r.id == 7 && r.op == TCP_RMA_ACC_RESP &&
                 (r.status < 0 ? r.len == 0 : r.status == 0 && r.len == 40));
    }
}

/* Credit positions as a sender reads them: accepted credits never go
 * backwards nor past what was sent, so the window never grows beyond the ring. */
static void back_records(const uint8_t *d, size_t n)
{
    uint64_t released = 0, sent = 1u << 20;
    for (size_t pos = 0; n - pos >= 8; pos += 8) {
        uint64_t rec;
        memcpy(&rec, d + pos, sizeof rec);
        if (tcp_credit_check(rec, released, sent))
            return; /* the connection would be dropped here */
        must(rec >= released && rec <= sent && rec % 8 == 0);
        released = rec;
    }
}

static void pmi_lines(const uint8_t *d, size_t n)
{
    pmi_linebuf_t b;
    char line[PMI_WIRE_LINE_MAX];
    memset(&b, 0, sizeof b);
    while (n) { /* feed the buffer as reads would */
        size_t k = n < sizeof b.buf - b.len ? n : sizeof b.buf - b.len;
        if (k == 0) {
            b.len = 0;
            b.overflow = 1;
            continue;
        }
        memcpy(b.buf + b.len, d, k);
        b.len += k;
        d += k;
        n -= k;
        int rc;
        while ((rc = pmi_linebuf_next(&b, line, sizeof line)) != 0) {
            if (rc < 0)
                continue;
            pmi_kv_t kv[PMI_WIRE_MAX_WORDS];
            int w = pmi_wire_parse(line, kv, PMI_WIRE_MAX_WORDS);
            const char *nonce = w > 0 ? pmi_wire_find(kv, w, "nonce") : NULL;
            uint8_t raw[SKF_AUTH_MAC];
            if (nonce)
                skf_auth_unhex(nonce, raw, SKF_AUTH_NONCE);
            const char *mac = w > 0 ? pmi_wire_find(kv, w, "mac") : NULL;
            if (mac)
                skf_auth_unhex(mac, raw, SKF_AUTH_MAC);
            const char *v = w > 0 ? pmi_wire_find(kv, w, "value") : NULL;
            char out[PMI_WIRE_LINE_MAX];
            if (v)
                pmi_wire_unescape(v, out, sizeof out);
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    switch (data[0] % 4) {
    case 0: frames(data + 1, size - 1); back_records(data + 1, size - 1); break;
    case 1: handshake(data + 1, size - 1); break;
    case 2: rma(data + 1, size - 1); break;
    default: pmi_lines(data + 1, size - 1); break;
    }
    return 0;
}
