/*
 * fuzz_driver — runs a libFuzzer-style target without clang: random inputs
 * and mutations (bit flips, byte sets, splices, truncations) of seeds that
 * are valid messages, for N iterations.  Deterministic for a given seed so a
 * failure reproduces.  Usage: tcp_parsers_fuzz_run [iterations] [seed]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transports/tcp/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Valid-looking starting points, so mutations reach past the magic checks. */
static size_t seed_input(uint8_t *buf, size_t cap)
{
    size_t n = 1;
    switch (next() % 5) {
    case 0: { /* a stream of frames */
        buf[0] = 0;
        while (n + 64 < cap && next() % 4) {
            struct tcp_frame_hdr h = {(uint32_t)(next() % 48), 16, TCP_FRAME_DATA, TCP_FRAME_MAGIC};
            memcpy(buf + n, &h, sizeof h);
            n += sizeof h + ((h.len + 7) & ~7u);
        }
        return n;
    }
    case 1: {
        struct tcp_hello h = {.magic = TCP_HS_MAGIC, .version = TCP_HS_VERSION, .kind = 1, .port = 16,
                              .src = 2, .dst = 1, .job_size = 4, .max_frame = 262136};
        buf[0] = 1;
        memcpy(buf + 1, &h, sizeof h);
        return 1 + sizeof h;
    }
    case 2: { /* a get's answer, an atomic's answer, an atomic request */
        struct tcp_rma_resp r = {.op = TCP_RMA_GET_RESP, .id = 7, .len = 4096};
        struct tcp_rma_req q = {.op = TCP_RMA_ATOMIC, .id = 7, .cookie = 99, .addr = 4096,
                                .len = sizeof(struct tcp_rma_atomic)};
        uint64_t pick = next() % 3;
        buf[0] = 2;
        if (pick == 2) {
            memcpy(buf + 1, &q, sizeof q);
            return 1 + sizeof q;
        }
        if (pick == 1)
            r = (struct tcp_rma_resp){.op = TCP_RMA_ATOMIC_RESP, .id = 7, .len = TCP_ATOMIC_RESP_LEN};
        memcpy(buf + 1, &r, sizeof r);
        return 1 + sizeof r;
    }
    default: {
        const char *l = "cmd=skiff_hello rank=3 nonce=00112233445566778899aabbccddeeff\n"
                        "cmd=skiff_proof mac=" "00112233445566778899aabbccddeeff"
                        "00112233445566778899aabbccddeeff\ncmd=put key=a value=b%20c\n";
        buf[0] = 3;
        memcpy(buf + 1, l, strlen(l));
        return 1 + strlen(l);
    }
    }
}

static size_t mutate(uint8_t *buf, size_t n, size_t cap)
{
    for (int k = (int)(next() % 8); k >= 0; k--) {
        size_t at = n > 1 ? 1 + next() % (n - 1) : 1;
        switch (next() % 5) {
        case 0: if (at < n) buf[at] ^= (uint8_t)(1u << (next() % 8)); break;
        case 1: if (at < n) buf[at] = (uint8_t)next(); break;
        case 2: n = at; break; /* truncate */
        case 3: /* grow with random bytes */
            while (n < cap && next() % 16)
                buf[n++] = (uint8_t)next();
            break;
        default: if (at < n && n - at > 4) memcpy(buf + at, buf + 1 + next() % (n - at), 4); break;
        }
    }
    return n;
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 200000;
    rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x9e3779b97f4a7c15ull;
    if (!rng)
        rng = 1;
    static uint8_t buf[16384];
    for (long i = 0; i < iters; i++) {
        size_t n;
        if (i % 4 == 0) { /* pure noise */
            n = next() % sizeof buf;
            for (size_t k = 0; k < n; k++)
                buf[k] = (uint8_t)next();
        } else
            n = mutate(buf, seed_input(buf, sizeof buf), sizeof buf);
        LLVMFuzzerTestOneInput(buf, n);
    }
    printf("tcp_parsers_fuzz: %ld inputs, no failure\n", iters);
    return 0;
}
