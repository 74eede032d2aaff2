/*
 * chan_basic_test — the channel API at any rank count (1 = singleton):
 * argument checking (-EINVAL/-EBUSY), self-sends incl. empty and wrapping
 * messages, a token passed around all ranks with blocking waits, no
 * /dev/shm leftovers once the channel is open, and port isolation.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/core.h"
#include "skftest.h"

static void check_args(skf_ctx_t *ctx, skf_chan_t *ch)
{
    int size = skf_size(ctx), me = skf_rank(ctx);
    char b[8] = "x";
    struct iovec iov = {b, 1}, cont[SKF_CONT_SIZE];
    int ncont;
    skf_chan_t *dup;
    CHECK_EQ_INT(skf_chan_open(ctx, 16, &dup), -EBUSY);
    CHECK_EQ_INT(skf_chan_open(ctx, SKF_PORT_INTERNAL, &dup), -EINVAL);
    CHECK_EQ_INT(skf_chan_open(NULL, 20, &dup), -EINVAL);
    CHECK_EQ_INT(skf_send(ch, skf_addr(ctx, size, 16), &iov, 1), -EINVAL);
    CHECK_EQ_INT(skf_send(ch, skf_addr(ctx, -1, 16), &iov, 1), -EINVAL);
    CHECK_EQ_INT(skf_send(ch, skf_addr(ctx, me, 17), &iov, 1), -EINVAL); /* other port */
    CHECK_EQ_INT(skf_send(ch, skf_addr(ctx, me, 16), &iov, -1), -EINVAL);
    CHECK_EQ_INT(skf_send(ch, skf_addr(ctx, me, 16), NULL, 1), -EINVAL);
    CHECK_EQ_INT(skf_send(NULL, skf_addr(ctx, me, 16), &iov, 1), -EINVAL);
    /* skf_send_pack: the same checks, one iovec entry less, and a generator */
    CHECK_EQ_INT(skf_send_pack(NULL, skf_addr(ctx, me, 16), &iov, 1, 0, NULL, NULL), -EINVAL);
    CHECK_EQ_INT(skf_send_pack(ch, skf_addr(ctx, size, 16), &iov, 1, 0, NULL, NULL), -EINVAL);
    CHECK_EQ_INT(skf_send_pack(ch, skf_addr(ctx, me, 17), &iov, 1, 0, NULL, NULL), -EINVAL);
    CHECK_EQ_INT(skf_send_pack(ch, skf_addr(ctx, me, 16), &iov, IOV_MAX, 0, NULL, NULL), -EINVAL);
    CHECK_EQ_INT(skf_send_pack(ch, skf_addr(ctx, me, 16), NULL, 1, 0, NULL, NULL), -EINVAL);
    CHECK_EQ_INT(skf_send_pack(ch, skf_addr(ctx, me, 16), &iov, 1, 5, NULL, NULL), -EINVAL);
    CHECK_EQ_INT(skf_recv(ch, NULL, &ncont, NULL), -EINVAL);
    CHECK_EQ_INT(skf_recv(ch, cont, NULL, NULL), -EINVAL);
    CHECK_EQ_INT(skf_recv_done(ch), -EINVAL);
    CHECK_EQ_INT(skf_wait(ch, 0, 0), -EINVAL);
    CHECK_EQ_INT(skf_wait(ch, 8, 0), -EINVAL); /* no such event */
    CHECK_EQ_INT(skf_wait(ch, SKF_READABLE, -2), -EINVAL);
    CHECK_EQ_INT(skf_node_id(ctx, size), -EINVAL);
    CHECK(skf_node_id(ctx, me) >= 0);
    CHECK(skf_local_rank(ctx) >= 0 && skf_local_rank(ctx) < skf_local_size(ctx));
    CHECK_EQ_INT(skf_addr_rank(skf_addr(ctx, 7, 3)), 7);
    CHECK_EQ_INT(skf_addr_port(skf_addr(ctx, 7, 3)), 3);
    CHECK(skf_chan_ctx(ch) == ctx);
    CHECK(skf_max_msg(ch, skf_addr(ctx, me, 16)) >= 1024);
    CHECK_EQ_INT(skf_max_msg(ch, skf_addr(ctx, size, 16)), 0);
    CHECK(strlen(skf_strerror(-EAGAIN)) > 0);
}

/* Port 18 carries only self-sends, so everything received there is mine. */
static void self_sends(skf_ctx_t *ctx, skf_chan_t *ch)
{
    int me = skf_rank(ctx);
    skf_addr_t self = skf_addr(ctx, me, 18), src;
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    size_t max = skf_max_msg(ch, self);
    unsigned char *buf = malloc(max), *got = malloc(max);
    CHECK(buf && got);

    /* An empty message is a message. */
    CHECK_EQ_INT(skf_send(ch, self, NULL, 0), 0);
    CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), 0);
    CHECK_EQ_INT(ncont, 0);
    CHECK_EQ_INT(skf_addr_rank(src), me);
    CHECK_EQ_INT(skf_addr_port(src), 18);
    /* Holding a message, a second skf_recv is refused. */
    CHECK_EQ_INT(skf_recv(ch, cont, &ncont, &src), -EINVAL);
    CHECK_EQ_INT(skf_recv_done(ch), 0);

    /* Three-piece gather of "hello" into one message. */
    struct iovec parts[3] = {{"he", 2}, {"ll", 2}, {"o", 1}};
    CHECK_EQ_INT(skf_send(ch, self, parts, 3), 5);
    CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), 5);
    CHECK_EQ_INT(gather(cont, ncont, got, max), 5);
    CHECK(memcmp(got, "hello", 5) == 0);
    CHECK_EQ_INT(skf_recv_done(ch), 0);

    /* Messages of every size class, many times around the ring: some wrap
     * (two pieces), an offer larger than max is cut to max. */
    int wrapped = 0;
    for (int i = 0; i < 200; i++) {
        size_t len = (size_t)(i * 7919) % max + 1;
        for (size_t k = 0; k < len; k++)
            buf[k] = pattern(me, me, k + (size_t)i);
        struct iovec iov = {buf, len};
        CHECK_EQ_INT(skf_send(ch, self, &iov, 1), (long long)len);
        CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), (long long)len);
        wrapped += ncont == 2;
        CHECK_EQ_INT(gather(cont, ncont, got, max), (long long)len);
        CHECK(memcmp(got, buf, len) == 0);
        CHECK_EQ_INT(skf_recv_done(ch), 0);
    }
    /* rings split a message at their end; ofi hands out whole receive buffers */
    const char *tr = getenv("SKIFF_TRANSPORTS");
    CHECK(wrapped > 0 || (tr && strcmp(tr, "ofi") == 0));
    unsigned char *big = calloc(1, 2 * max);
    struct iovec iov = {big, 2 * max};
    CHECK_EQ_INT(skf_send(ch, self, &iov, 1), (long long)max);
    CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), (long long)max);
    CHECK_EQ_INT(skf_recv_done(ch), 0);
    /* Fill my own ring until it refuses: -EAGAIN, never overwrite. */
    int sent = 0;
    for (;;) {
        struct iovec one = {buf, 1000};
        buf[0] = (unsigned char)sent;
        ssize_t n = skf_send(ch, self, &one, 1);
        if (n == -EAGAIN)
            break;
        CHECK(n > 0);
        sent++;
        CHECK(sent < 1000000);
    }
    CHECK(skf_wait(ch, SKF_WRITABLE, 0) == 0); /* still full */
    for (int i = 0; i < sent; i++) {
        ssize_t n = skf_recv(ch, cont, &ncont, &src);
        CHECK(n > 0);
        CHECK_EQ_INT(((unsigned char *)cont[0].iov_base)[0], (unsigned char)i);
        CHECK_EQ_INT(skf_recv_done(ch), 0);
    }
    CHECK_EQ_INT(skf_recv(ch, cont, &ncont, &src), -EAGAIN);
    CHECK_EQ_INT(skf_wait(ch, SKF_WRITABLE, 0), SKF_WRITABLE);
    free(big);
    free(buf);
    free(got);
}

/* A token goes around all ranks `laps` times; each rank checks who sent it. */
static void token_ring(skf_ctx_t *ctx, skf_chan_t *ch, int laps)
{
    int me = skf_rank(ctx), size = skf_size(ctx);
    skf_addr_t next = skf_addr(ctx, (me + 1) % size, 16), src;
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    unsigned long long token = 0;
    for (int lap = 0; lap < laps; lap++) {
        if (me == 0) {
            token = (unsigned long long)lap * size;
            send_all(ch, next, &token, sizeof token);
        }
        CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), sizeof token);
        CHECK_EQ_INT(skf_addr_rank(src), (me + size - 1) % size);
        CHECK_EQ_INT(gather(cont, ncont, &token, sizeof token), sizeof token);
        CHECK_EQ_INT(skf_recv_done(ch), 0);
        CHECK_EQ_INT(token, (unsigned long long)lap * size + (unsigned)(me ? me - 1 : size - 1));
        token++;
        if (me != 0)
            send_all(ch, next, &token, sizeof token);
    }
}

/* Messages on port 17 never show up on port 16 and vice versa. */
static void ports(skf_ctx_t *ctx, skf_chan_t *a, skf_chan_t *b)
{
    int me = skf_rank(ctx), size = skf_size(ctx);
    int to = (me + 1) % size;
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    char tag;
    for (int i = 0; i < 50; i++) {
        send_all(a, skf_addr(ctx, to, 16), "A", 1);
        send_all(b, skf_addr(ctx, to, 17), "B", 1);
    }
    for (int i = 0; i < 50; i++) {
        CHECK_EQ_INT(recv_wait(b, cont, &ncont, &src), 1);
        gather(cont, ncont, &tag, 1);
        CHECK_EQ_INT(tag, 'B');
        CHECK_EQ_INT(skf_addr_port(src), 17);
        skf_recv_done(b);
        CHECK_EQ_INT(recv_wait(a, cont, &ncont, &src), 1);
        gather(cont, ncont, &tag, 1);
        CHECK_EQ_INT(tag, 'A');
        skf_recv_done(a);
    }
}

/* Run with a ring size too big for the node (its memory: segments are memfd
 * objects; or /dev/shm with SKIFF_SHM_OBJECTS=dev-shm): every rank's
 * skf_chan_open fails with -ENOSPC (the creator prints sizes), nobody hangs,
 * and the context still works afterwards (the internal port has its own
 * small rings). */
static int no_space(skf_ctx_t *ctx)
{
    skf_chan_t *ch;
    struct statvfs sv;
    long long ring = atoll(getenv("SKIFF_SHM_RING_SIZE") ? getenv("SKIFF_SHM_RING_SIZE") : "0");
    long long need = (long long)skf_local_size(ctx) * skf_local_size(ctx) * ring;
    const char *objects = getenv("SKIFF_SHM_OBJECTS");
    unsigned long long room = (unsigned long long)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    CHECK(ring > 0 && statvfs("/dev/shm", &sv) == 0);
    if (objects && !strcmp(objects, "dev-shm"))
        room = (unsigned long long)sv.f_bavail * sv.f_frsize;
    if (room >= (unsigned long long)need) {
        printf("chan_basic: the node has room for %lld bytes; nothing to test\n", need);
        return 0;
    }
    CHECK_EQ_INT(skf_chan_open(ctx, 16, &ch), -ENOSPC);
    CHECK_EQ_INT(skf_chan_open(ctx, 16, &ch), -ENOSPC); /* and again: nothing was left half-open */
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    printf("chan_basic rank %d: -ENOSPC ok\n", testutil_rank);
    return 0;
}

int main(int argc, char **argv)
{
    skf_ctx_t *ctx;
    skf_chan_t *ch, *ch2;
    int expect = argc > 1 ? atoi(argv[1]) : -1;
    CHECK_EQ_INT(skf_init(&ctx), 0);
    testutil_rank = skf_rank(ctx);
    if (expect > 0)
        CHECK_EQ_INT(skf_size(ctx), expect);
    if (argc > 2 && !strcmp(argv[2], "nospace"))
        return no_space(ctx);
    CHECK_EQ_INT(skf_chan_open(ctx, 16, &ch), 0);
    check_args(ctx, ch);
    skf_chan_t *selfch;
    CHECK_EQ_INT(skf_chan_open(ctx, 18, &selfch), 0);
    self_sends(ctx, selfch);
    CHECK_EQ_INT(skf_chan_close(selfch), 0);
    token_ring(ctx, ch, 300);
    /* Port 16's segment was unlinked as soon as everyone attached (the
     * token has been through every rank since, so all are past that open;
     * faster ranks may already be creating port 17's). */
    char prefix[64];
    snprintf(prefix, sizeof prefix, "skiff-%s-", ctx->boot->shm_tag);
    CHECK_EQ_INT(shm_entries_with(prefix, "-p16"), 0);
    CHECK_EQ_INT(skf_chan_open(ctx, 17, &ch2), 0);
    ports(ctx, ch, ch2);
    CHECK_EQ_INT(skf_chan_close(ch2), 0);
    CHECK_EQ_INT(skf_chan_close(ch), 0);
    CHECK_EQ_INT(shm_entries(prefix), 0);
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    printf("chan_basic rank %d: ok\n", testutil_rank);
    return 0;
}
