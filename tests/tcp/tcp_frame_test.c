/*
 * tcp_frame_test — regression tests of the tcp transport's framing and flow
 * control, run with SKIFF_TRANSPORTS=tcp over loopback (no root).
 *
 *   tcp_frame_test stream BYTES
 *     Every rank streams BYTES to every rank (itself included) in messages of
 *     odd and even sizes from 0 to twice skf_max_msg, gathered from 1, 2 or 3
 *     iovec pieces (empty pieces included) and now and then from IOV_MAX
 *     pieces.  Run with a small SKIFF_TCP_BUF, so sends are cut and frames
 *     wrap around the rings.  Checks: every send returns 0..len (0 only for an
 *     empty offer) and says exactly how many bytes went; every received
 *     message has at most two pieces whose lengths add up to its size; its
 *     first piece starts 8-byte aligned (MPI reads its headers in place);
 *     the bytes of each sender's stream arrive complete, in order, byte by byte.
 *   tcp_frame_test window
 *     Each rank fills its own connection until -EAGAIN, then, while nobody
 *     takes messages, skf_wait(WRITABLE, 0) must stay 0 — also after pauses
 *     that let the kernels move every byte they can (as shm: only the receiver
 *     taking messages makes room).  After draining, WRITABLE again.
 *   tcp_frame_test flood        (3 or more ranks)
 *     Rank 1 floods rank 0 with 4 KiB messages, faster than rank 0 takes
 *     them (rank 0 reads every byte and pauses 20 us: the window stays full,
 *     so rank 1's connection has bytes at every poll), until rank 0 says stop; every other
 *     rank sends rank 0 one message meanwhile.  Rank 0 must get those while
 *     the flood goes on: the connection that keeps delivering (polled
 *     directly on every pass) must not starve the others (found by epoll).
 *     A bound on flood messages turns a starvation into a failed check.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skftest.h"

#define PORT 21

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Check one received message against the sender's stream; returns its size. */
static size_t check_message(int me, int s, const struct iovec *cont, int ncont, ssize_t n,
                            unsigned long long at)
{
    CHECK(n >= 0 && ncont >= 0 && ncont <= 2);
    CHECK((n == 0) == (ncont == 0));
    if (ncont)
        CHECK_EQ_INT((uintptr_t)cont[0].iov_base % 8, 0);
    size_t off = 0;
    for (int c = 0; c < ncont; c++) {
        CHECK(cont[c].iov_len > 0);
        for (size_t i = 0; i < cont[c].iov_len; i++, off++)
            if (((const unsigned char *)cont[c].iov_base)[i] != pattern(s, me, at + off)) {
                fprintf(stderr, "rank %d: byte %llu from rank %d is wrong\n", me, at + off, s);
                CHECK(0);
            }
    }
    CHECK_EQ_INT(off, n);
    return off;
}

static void stream(skf_ctx_t *ctx, skf_chan_t *ch, unsigned long long total)
{
    int me = skf_rank(ctx), size = skf_size(ctx);
    size_t max = skf_max_msg(ch, skf_addr(ctx, me, PORT));
    CHECK(max > 0);
    unsigned long long *sent = calloc((size_t)size, sizeof *sent);
    unsigned long long *recvd = calloc((size_t)size, sizeof *recvd);
    unsigned char *buf = malloc(2 * max + 1);
    struct iovec *many = malloc(IOV_MAX * sizeof *many);
    CHECK(sent && recvd && buf && many);
    unsigned seed = 777u + (unsigned)me;
    unsigned long long msgs = 0, cut = 0, empties = 0, got_in = 0, expect_in = total * (unsigned)size;
    for (;;) {
        int progress = 0, all_sent = 1;
        for (int dst = 0; dst < size; dst++) {
            if (sent[dst] == total)
                continue;
            all_sent = 0;
            unsigned long long left = total - sent[dst];
            /* mostly odd sizes, some empty, up to twice what one send takes */
            size_t len = msgs % 17 == 5 ? 0 : ((size_t)rand_r(&seed) % (2 * max)) | 1;
            if (len > left)
                len = (size_t)left;
            for (size_t i = 0; i < len; i++)
                buf[i] = pattern(me, dst, sent[dst] + i);
            struct iovec iov[3];
            int cnt;
            if (msgs % 23 == 11) { /* IOV_MAX pieces of 1..3 bytes (and the rest in the last) */
                size_t off = 0;
                for (cnt = 0; cnt < IOV_MAX - 1 && off < len; cnt++) {
                    size_t n = 1 + (size_t)cnt % 3;
                    n = n < len - off ? n : len - off;
                    many[cnt] = (struct iovec){buf + off, n};
                    off += n;
                }
                many[cnt++] = (struct iovec){buf + off, len - off};
            } else { /* 1, 2 or 3 pieces, empty ones included for small sizes */
                cnt = 1 + (int)(msgs % 3);
                size_t a = cnt == 1 ? len : len / 3, b = cnt == 3 ? len / 2 : len;
                iov[0] = (struct iovec){buf, a};
                iov[1] = (struct iovec){buf + a, b - a};
                iov[2] = (struct iovec){buf + b, len - b};
            }
            ssize_t n = skf_send(ch, skf_addr(ctx, dst, PORT), msgs % 23 == 11 ? many : iov, cnt);
            if (n == -EAGAIN)
                continue;
            if (n < 0 || (size_t)n > len || (n == 0 && len > 0)) {
                fprintf(stderr, "rank %d: skf_send of %zu bytes in %d pieces to rank %d returned %zd\n",
                        me, len, cnt, dst, n);
                CHECK(0);
            }
            cut += (size_t)n < len;
            empties += len == 0;
            msgs++;
            sent[dst] += (unsigned long long)n;
            progress = 1;
        }
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t src;
        ssize_t n;
        while ((n = skf_recv(ch, cont, &ncont, &src)) >= 0) {
            int s = skf_addr_rank(src);
            CHECK(s >= 0 && s < size);
            recvd[s] += check_message(me, s, cont, ncont, n, recvd[s]);
            CHECK(recvd[s] <= total);
            got_in += (unsigned long long)n;
            CHECK_EQ_INT(skf_recv_done(ch), 0);
            progress = 1;
        }
        CHECK_EQ_INT(n, -EAGAIN);
        if (all_sent && got_in == expect_in)
            break;
        if (!progress)
            CHECK(skf_wait(ch, all_sent ? SKF_READABLE : SKF_READABLE | SKF_WRITABLE, 1000) >= 0);
    }
    for (int s = 0; s < size; s++)
        CHECK_EQ_INT(recvd[s], total);
    CHECK(cut > 0); /* the small ring did cut messages */
    printf("tcp_frame stream rank %d: ok (%llu messages, %llu cut, %llu empty)\n", me, msgs, cut,
           empties);
    free(sent);
    free(recvd);
    free(buf);
    free(many);
}

static void window(skf_ctx_t *ctx, skf_chan_t *ch)
{
    int me = skf_rank(ctx);
    skf_addr_t self = skf_addr(ctx, me, PORT);
    unsigned char msg[1001];
    struct iovec one = {msg, sizeof msg};
    long sent = 0;
    CHECK_EQ_INT(skf_wait(ch, SKF_WRITABLE, 0), SKF_WRITABLE); /* nothing blocked */
    for (;;) {
        memset(msg, (unsigned char)sent, sizeof msg);
        ssize_t n = skf_send(ch, self, &one, 1);
        if (n == -EAGAIN)
            break;
        CHECK_EQ_INT(n, (long long)sizeof msg);
        CHECK(++sent < 1000000);
    }
    /* Nobody takes messages: no room may appear, however long the kernel
     * gets to move bytes between the sockets. */
    for (int round = 0; round < 20; round++) {
        CHECK_EQ_INT(skf_wait(ch, SKF_WRITABLE, 0), 0);
        pause_ms(round % 4 == 3 ? 20 : 1);
    }
    CHECK_EQ_INT(skf_wait(ch, SKF_WRITABLE, 50), 0);
    CHECK_EQ_INT(skf_send(ch, self, &one, 1), -EAGAIN);
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    for (long i = 0; i < sent; i++) {
        ssize_t n = recv_wait(ch, cont, &ncont, &src);
        CHECK_EQ_INT(n, (long long)sizeof msg);
        CHECK_EQ_INT((uintptr_t)cont[0].iov_base % 8, 0);
        CHECK_EQ_INT(((unsigned char *)cont[0].iov_base)[0], (unsigned char)i);
        CHECK_EQ_INT(skf_recv_done(ch), 0);
    }
    CHECK_EQ_INT(skf_recv(ch, cont, &ncont, &src), -EAGAIN);
    CHECK_EQ_INT(skf_wait(ch, SKF_WRITABLE, 1000), SKF_WRITABLE); /* the receiver made room */
    CHECK_EQ_INT(skf_send(ch, self, &one, 1), (long long)sizeof msg);
    CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), (long long)sizeof msg);
    CHECK_EQ_INT(skf_recv_done(ch), 0);
    printf("tcp_frame window rank %d: ok (%ld messages filled the window)\n", me, sent);
}

#define FLOOD_MSG 4096
#define FLOOD_MAX 500000 /* flood messages rank 0 takes before calling it starvation */

static void flood(skf_ctx_t *ctx, skf_chan_t *ch)
{
    int me = skf_rank(ctx), np = skf_size(ctx);
    CHECK(np >= 3);
    static unsigned char msg[FLOOD_MSG];
    struct iovec one = {msg, sizeof msg}, cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    if (me == 1) { /* flood until rank 0 says stop, then one last 1-byte message */
        int stop = 0;
        for (unsigned long k = 0; !stop; k++) {
            memset(msg, (unsigned char)k, sizeof msg);
            ssize_t w;
            while ((w = skf_send(ch, skf_addr(ctx, 0, PORT), &one, 1)) == -EAGAIN)
                ; /* window full: rank 0 is behind, as wanted */
            CHECK_EQ_INT(w, FLOOD_MSG); /* a cut takes at least 4 KiB: never cut */
            ssize_t n = skf_recv(ch, cont, &ncont, &src);
            if (n >= 0) {
                CHECK_EQ_INT(skf_addr_rank(src), 0);
                CHECK_EQ_INT(skf_recv_done(ch), 0);
                stop = 1;
            }
        }
        send_all(ch, skf_addr(ctx, 0, PORT), msg, 1);
        return;
    }
    if (me >= 2) {
        pause_ms(20); /* the flood is under way */
        unsigned char hello = (unsigned char)me;
        send_all(ch, skf_addr(ctx, 0, PORT), &hello, 1);
        return;
    }
    int hellos = 0, ended = 0;
    long floods = 0;
    unsigned long sum = 0;
    while (!ended) {
        ssize_t n = recv_wait(ch, cont, &ncont, &src);
        int from = skf_addr_rank(src);
        if (from >= 2) {
            CHECK_EQ_INT(n, 1);
            CHECK_EQ_INT(((unsigned char *)cont[0].iov_base)[0], from);
            if (++hellos == np - 2) { /* everyone got through: stop the flood */
                unsigned char z = 0;
                send_all(ch, skf_addr(ctx, 1, PORT), &z, 1);
            }
        } else {
            CHECK_EQ_INT(from, 1);
            if (n == 1) {
                CHECK_EQ_INT(hellos, np - 2);
                ended = 1;
            } else {
                CHECK_EQ_INT(n, FLOOD_MSG);
                for (int c = 0; c < ncont; c++) /* take it slowly: read every byte */
                    for (size_t i = 0; i < cont[c].iov_len; i++)
                        sum += ((unsigned char *)cont[c].iov_base)[i];
                struct timespec pause = {0, 20000};
                nanosleep(&pause, NULL);
                if (++floods > FLOOD_MAX) {
                    fprintf(stderr, "rank 0: %ld flood messages, %d of %d other senders heard: starved\n",
                            floods, hellos, np - 2);
                    CHECK(0);
                }
            }
        }
        CHECK_EQ_INT(skf_recv_done(ch), 0);
    }
    printf("tcp_frame flood rank 0: ok (%d senders heard during %ld flood messages, sum %lu)\n",
           hellos, floods, sum);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "stream") && strcmp(argv[1], "window") && strcmp(argv[1], "flood")) ||
        (!strcmp(argv[1], "stream") && argc < 3)) {
        fprintf(stderr, "usage: tcp_frame_test stream BYTES | window | flood\n");
        return 2;
    }
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    CHECK_EQ_INT(skf_init(&ctx), 0);
    CHECK_EQ_INT(skf_chan_open(ctx, PORT, &ch), 0);
    if (!strcmp(argv[1], "stream"))
        stream(ctx, ch, strtoull(argv[2], NULL, 10));
    else if (!strcmp(argv[1], "window"))
        window(ctx, ch);
    else
        flood(ctx, ch);
    /* Close only after everybody is done: closing is collective. */
    CHECK_EQ_INT(skf_chan_close(ch), 0);
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    return 0;
}
