/* frame — header checks and handshake MACs of the tcp transport (see frame.h). */
#include "transports/tcp/frame.h"

#include <string.h>

_Static_assert(sizeof(struct tcp_hello) == 48, "hello is sent as is");
_Static_assert(sizeof(struct tcp_frame_hdr) == 8, "frame header is 8 bytes");
_Static_assert(sizeof(struct tcp_rma_req) == 32, "request header is 32 bytes");
_Static_assert(sizeof(struct tcp_rma_resp) == 24, "response header is 24 bytes");
_Static_assert(sizeof(struct tcp_rma_atomic) == 24, "atomic payload is 24 bytes");
_Static_assert(sizeof(struct tcp_rma_acc) == 40, "accumulate payload header is 40 bytes");

const char *tcp_hello_check(const struct tcp_hello *h, uint16_t port, int me, int size,
                            uint32_t max_frame)
{
    if (h->magic != TCP_HS_MAGIC)
        return "not a Skiff tcp hello (bad magic)";
    if (h->version != TCP_HS_VERSION)
        return "unsupported handshake version";
    if (h->kind != TCP_CONN_DATA && h->kind != TCP_CONN_RMA)
        return "unknown connection kind";
    if (h->zero || h->zero2)
        return "reserved hello fields not zero";
    if (h->port != port)
        return "hello for another channel";
    if (h->job_size != (uint32_t)size || h->src >= (uint32_t)size)
        return "hello from a rank outside this job";
    if (h->dst != (uint32_t)me)
        return "hello meant for another rank";
    if (h->max_frame != max_frame)
        return "different SKIFF_TCP_BUF on the two ranks";
    return NULL;
}

const char *tcp_challenge_check(const struct tcp_challenge *c)
{
    return c->magic != TCP_HS_MAGIC || c->zero ? "malformed challenge" : NULL;
}

const char *tcp_proof_check(const struct tcp_proof *p)
{
    return p->magic != TCP_HS_MAGIC || p->zero ? "malformed proof" : NULL;
}

const char *tcp_frame_check(const struct tcp_frame_hdr *h, uint16_t port, uint32_t max_len)
{
    if (h->magic != TCP_FRAME_MAGIC || h->kind < TCP_FRAME_DATA || h->kind > TCP_FRAME_DIRECT)
        return "malformed frame header";
    if (h->kind != TCP_FRAME_DATA && h->kind != TCP_FRAME_CREDIT && h->kind != TCP_FRAME_DIRECT &&
        h->len)
        return "control frame with a payload";
    if (h->kind == TCP_FRAME_DIRECT && h->len != TCP_DIRECT_LEN)
        return "direct frame of the wrong length";
    if (h->kind == TCP_FRAME_CREDIT && h->len != TCP_CREDIT_LEN)
        return "credit frame of the wrong length";
    if (h->port != port)
        return "frame for another channel";
    if (h->len > max_len)
        return "frame longer than the largest message";
    return NULL;
}

const char *tcp_credit_check(uint64_t pos, uint64_t released, uint64_t sent)
{
    return pos < released || pos > sent || (pos & 7) ? "credit for bytes never sent" : NULL;
}

const char *tcp_rma_req_check(const struct tcp_rma_req *r, uint64_t max_len)
{
    if (r->op != TCP_RMA_GET && r->op != TCP_RMA_PUT && r->op != TCP_RMA_ATOMIC &&
        r->op != TCP_RMA_ACC)
        return "unknown one-sided request";
    if (r->op == TCP_RMA_ATOMIC && r->len != sizeof(struct tcp_rma_atomic))
        return "atomic request of the wrong length";
    if (r->op == TCP_RMA_ACC && (r->len < sizeof(struct tcp_rma_acc) || r->len > TCP_ACC_REQ_MAX))
        return "accumulate request of an impossible length";
    if (r->len > max_len || r->addr + r->len < r->addr)
        return "one-sided request with an impossible length";
    return NULL;
}

const char *tcp_rma_acc_check(const struct tcp_rma_acc *a, uint64_t len, size_t elem_size)
{
    if (!elem_size || a->count == 0 || a->count > TCP_ACC_ELEMS_MAX / elem_size ||
        (a->flags & ~TCP_ACC_FETCH))
        return "accumulate request: bad type, count or flags";
    uint64_t want = sizeof *a + (a->op == TCP_ACC_OP_NOOP ? 0 : (uint64_t)a->count * elem_size) +
                    (a->op == TCP_ACC_OP_CSWAP ? elem_size : 0);
    return len == want ? NULL : "accumulate request: length disagrees with its elements";
}

const char *tcp_rma_resp_check(const struct tcp_rma_resp *r, uint32_t id, uint32_t op, uint64_t len)
{
    if (r->op != op || r->id != id)
        return "response to no pending request";
    if (r->status > 0 || r->len != (r->status == 0 ? len : 0))
        return "response with an impossible status or length";
    return NULL;
}

int tcp_hs_mac(const char *key, int acceptor_side, const struct tcp_hello *h,
               const uint8_t nonce_acceptor[SKF_AUTH_NONCE], uint8_t mac[SKF_AUTH_MAC])
{
    return skf_auth_mac(key, acceptor_side ? "skiff-tcp acceptor" : "skiff-tcp connector", h,
                        sizeof *h, h->nonce, nonce_acceptor, mac);
}
