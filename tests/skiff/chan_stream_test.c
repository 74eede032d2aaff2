/*
 * chan_stream_test — byte streams between ranks, checked byte by byte.
 *
 *   chan_stream_test all|n1 BYTES
 *   chan_stream_test zero COUNT
 * all: every rank streams BYTES to every rank (itself included); n1: every
 * rank streams to rank 0 only; zero: every rank sends COUNT empty messages
 * to rank 0, which counts them per sender (an empty message is a message:
 * none may be lost when the ring is full).  Messages have random sizes up to twice
 * skf_max_msg and are gathered from one, two or three iovec pieces, or one piece
 * and the rest written in place by skf_send_pack's generator; a send may take
 * fewer bytes, and the sender continues from there.  The receiver tracks one
 * offset per sender, so a lost, duplicated, reordered or foreign byte fails
 * the test.  With a small SKIFF_SHM_DEDICATED_AFTER/MAX (set by ctest) senders
 * move from the shared ring to dedicated rings mid-stream, so per-sender
 * order across the switch is checked too.  Waiting uses skf_wait with both
 * READABLE and WRITABLE, never a busy loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skftest.h"

#define PORT 16

/* skf_send_pack's generator: the stream bytes from `from` on, asked in order. */
struct gen {
    int src, dst;
    unsigned long long from;
    size_t done;
};

static void generate(void *arg, size_t off, void *dst, size_t n)
{
    struct gen *g = arg;
    CHECK_EQ_INT(off, g->done);
    CHECK(n > 0);
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)dst)[i] = pattern(g->src, g->dst, g->from + off + i);
    g->done += n;
}

static void zero_stream(skf_ctx_t *ctx, skf_chan_t *ch, long count)
{
    int me = skf_rank(ctx), size = skf_size(ctx);
    long *got = calloc((size_t)size, sizeof *got), total = 0;
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    CHECK(got);
    for (long i = 0; me != 0 && i < count; i++)
        send_all(ch, skf_addr(ctx, 0, PORT), NULL, 0);
    if (me == 0) { /* my own empties interleave with receiving (my ring is small) */
        long mine = 0;
        while (total < count * size) {
            if (mine < count) {
                struct iovec none = {NULL, 0};
                ssize_t n = skf_send(ch, skf_addr(ctx, 0, PORT), &none, 1);
                CHECK(n == 0 || n == -EAGAIN);
                mine += n == 0;
            }
            ssize_t n = skf_recv(ch, cont, &ncont, &src);
            if (n == -EAGAIN) {
                if (mine == count)
                    CHECK(skf_wait(ch, SKF_READABLE, -1) > 0);
                continue;
            }
            CHECK_EQ_INT(n, 0);
            CHECK_EQ_INT(ncont, 0);
            got[skf_addr_rank(src)]++;
            total++;
            CHECK_EQ_INT(skf_recv_done(ch), 0);
        }
        for (int s = 0; s < size; s++)
            CHECK_EQ_INT(got[s], count);
    }
    free(got);
}

int main(int argc, char **argv)
{
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    CHECK(argc == 3);
    if (!strcmp(argv[1], "zero")) {
        CHECK_EQ_INT(skf_init(&ctx), 0);
        testutil_rank = skf_rank(ctx);
        CHECK_EQ_INT(skf_chan_open(ctx, PORT, &ch), 0);
        zero_stream(ctx, ch, atol(argv[2]));
        CHECK_EQ_INT(skf_chan_close(ch), 0);
        CHECK_EQ_INT(skf_finalize(ctx), 0);
        printf("chan_stream rank %d: ok (empty messages)\n", testutil_rank);
        return 0;
    }
    int n1 = strcmp(argv[1], "n1") == 0;
    unsigned long long total = strtoull(argv[2], NULL, 0);
    CHECK_EQ_INT(skf_init(&ctx), 0);
    int me = skf_rank(ctx), size = skf_size(ctx);
    testutil_rank = me;
    CHECK_EQ_INT(skf_chan_open(ctx, PORT, &ch), 0);

    unsigned long long *sent = calloc((size_t)size, sizeof *sent);
    unsigned long long *recvd = calloc((size_t)size, sizeof *recvd);
    size_t max = skf_max_msg(ch, skf_addr(ctx, 0, PORT));
    unsigned char *buf = malloc(2 * max + 16);
    CHECK(sent && recvd && buf && max > 0);
    unsigned seed = 12345u + (unsigned)me * 7919u;
    /* peers reached through shm: my node, unless SKIFF_TRANSPORTS=tcp */
    const char *tr = getenv("SKIFF_TRANSPORTS");
    char *shm_to = calloc((size_t)size, 1);
    CHECK(shm_to);
    for (int r = 0; r < size; r++)
        shm_to[r] = skf_node_id(ctx, r) == skf_node_id(ctx, me) && !(tr && !strcmp(tr, "tcp"));
    int nsenders = n1 ? (me == 0 ? size : 0) : size;
    unsigned long long expect_in = (unsigned long long)nsenders * total, got_in = 0;
    int next_dst = 0;
    unsigned long long partial = 0, msgs = 0;

    for (;;) {
        int progress = 0, all_sent = 1;
        /* Send one message to each destination that still has bytes. */
        for (int k = 0; k < size; k++) {
            int dst = (next_dst + k) % size;
            if (n1 && dst != 0)
                continue;
            if (sent[dst] == total)
                continue;
            all_sent = 0;
            unsigned long long left = total - sent[dst];
            size_t len = (size_t)(rand_r(&seed) % (2 * max)) + 1;
            if (len > left)
                len = (size_t)left;
            for (size_t i = 0; i < len; i++)
                buf[i] = pattern(me, dst, sent[dst] + i);
            /* 1, 2 or 3 pieces in turn (the fast paths take 1 and 2), or one
             * piece and the rest generated in place (skf_send_pack) */
            int pieces = 1 + (int)(msgs % 4);
            size_t a = pieces == 1 ? len : len / 3, b = pieces == 3 ? len / 2 : len;
            struct iovec iov[3] = {{buf, a}, {buf + a, b - a}, {buf + b, len - b}};
            struct gen g = {me, dst, sent[dst] + a, 0};
            ssize_t n = pieces == 4 ? skf_send_pack(ch, skf_addr(ctx, dst, PORT), iov, 1, len - a,
                                                    generate, &g)
                                    : skf_send(ch, skf_addr(ctx, dst, PORT), iov, pieces);
            if (n == -EAGAIN)
                continue;
            CHECK(n > 0 && (size_t)n <= len);
            if (pieces == 4) { /* asked for every generated byte taken, in order: on
                                * shm exactly those, a staging transport (tcp) may ask more */
                size_t gen_taken = (size_t)n > a ? (size_t)n - a : 0;
                CHECK(shm_to[dst] ? g.done == gen_taken : g.done >= gen_taken);
            }
            partial += (size_t)n < len;
            msgs++;
            sent[dst] += (unsigned long long)n;
            progress = 1;
        }
        next_dst = (next_dst + 1) % size;
        /* Take everything that is there. */
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t src;
        ssize_t n;
        while ((n = skf_recv(ch, cont, &ncont, &src)) >= 0) {
            int s = skf_addr_rank(src);
            CHECK(s >= 0 && s < size && (!n1 || me == 0));
            CHECK(n > 0 && ncont >= 1 && ncont <= 2);
            size_t off = 0;
            for (int c = 0; c < ncont; c++)
                for (size_t i = 0; i < cont[c].iov_len; i++, off++)
                    if (((unsigned char *)cont[c].iov_base)[i] != pattern(s, me, recvd[s] + off)) {
                        fprintf(stderr, "rank %d: byte %llu from rank %d is wrong\n", me,
                                recvd[s] + off, s);
                        CHECK(0);
                    }
            CHECK_EQ_INT(off, n);
            recvd[s] += (unsigned long long)n;
            CHECK(recvd[s] <= total);
            got_in += (unsigned long long)n;
            CHECK_EQ_INT(skf_recv_done(ch), 0);
            progress = 1;
        }
        CHECK_EQ_INT(n, -EAGAIN);
        if (all_sent && got_in == expect_in)
            break;
        if (!progress) {
            int r = skf_wait(ch, all_sent ? SKF_READABLE : SKF_READABLE | SKF_WRITABLE, 1000);
            if (r < 0)
                fprintf(stderr, "rank %d: skf_wait: %s\n", me, strerror(-r));
            CHECK(r >= 0);
        }
    }
    for (int s = 0; s < size; s++)
        if (!n1 || me == 0)
            CHECK_EQ_INT(recvd[s], total);
    /* Close only after everybody received everything: closing is collective. */
    CHECK_EQ_INT(skf_chan_close(ch), 0);
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    printf("chan_stream rank %d: ok (%llu messages, %llu partial)\n", me, msgs, partial);
    free(shm_to);
    free(sent);
    free(recvd);
    free(buf);
    return 0;
}
