/*
 * tcp_auth_test — strangers on a rank's tcp port are dropped, the job goes on.
 *
 * Two ranks with SKIFF_TRANSPORTS=tcp.  Rank 1 just waits for messages on
 * port 20 (its waiting drives its tcp progress).  Rank 0 first plays the
 * stranger against rank 1's published listener:
 *   garbage      48 random bytes instead of a hello
 *   wrong key    a well-formed handshake, proof made with another key
 *   replay       a correct proof recorded on one connection, sent on another
 *   duplicate    a second data connection claiming to be rank 0 (after the
 *                real one): refused
 * and on rank 1's one-sided listener (its RMA service thread answers while
 * rank 1's main thread waits): garbage, a wrong key, and a data hello; an
 * RMA hello on the data listener is refused too.
 * and checks that each connection is closed by rank 1 (EOF/reset, never
 * data), and that rank 1's challenge proved rank 1 holds the key.  Then the
 * real traffic: 100000 bytes each way, checked byte by byte.  The ctest
 * wrapper also checks rank 1's one-line log for each case.  With an argument
 * N, N more strangers (garbage, each waiting for its drop) follow: a flood,
 * whose log the wrapper checks is a few lines and counts.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "boot/boot.h"
#include "skiff.h"
#include "testutil.h"
#include "transports/tcp/frame.h"

#define PORT 20
#define BIG 100000

static struct sockaddr_in victim, victim_data, victim_rma;

static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct timeval tv = {20, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&victim, sizeof victim) == 0);
    return fd;
}

static void read_exact(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        CHECK(r > 0);
        got += (size_t)r;
    }
}

/* The victim must hang up on us: EOF or reset, no bytes. */
static void expect_dropped(int fd, const char *what)
{
    char b;
    ssize_t r = read(fd, &b, 1);
    if (r != 0 && !(r < 0 && errno == ECONNRESET)) {
        fprintf(stderr, "%s: connection not dropped (read %zd, %s)\n", what, r, strerror(errno));
        CHECK(0);
    }
    close(fd);
    printf("stranger '%s': dropped\n", what);
}

static struct tcp_hello hello_from(int src)
{
    struct tcp_hello h = {.magic = TCP_HS_MAGIC, .version = TCP_HS_VERSION,
                          .kind = victim.sin_port == victim_rma.sin_port ? TCP_CONN_RMA : TCP_CONN_DATA,
                          .port = PORT, .src = (uint32_t)src, .dst = 1, .job_size = 2};
    h.max_frame = (uint32_t)(1048576 / 4 - sizeof(struct tcp_frame_hdr)); /* SKIFF_TCP_BUF default */
    CHECK(getrandom(h.nonce, sizeof h.nonce, 0) == sizeof h.nonce);
    return h;
}

/* Send a hello, read the challenge, check the victim's proof. */
static int handshake_start(const struct tcp_hello *h, struct tcp_challenge *ch, const char *key)
{
    int fd = dial();
    uint8_t want[SKF_AUTH_MAC];
    CHECK(write(fd, h, sizeof *h) == (ssize_t)sizeof *h);
    read_exact(fd, ch, sizeof *ch);
    CHECK(tcp_challenge_check(ch) == NULL);
    CHECK_EQ_INT(tcp_hs_mac(key, 1, h, ch->nonce, want), 0);
    CHECK(skf_auth_equal(want, ch->mac)); /* the listener holds the job key */
    return fd;
}

/* Garbage, then a handshake proved with another key, at the victim; returns
 * the hello used. */
static struct tcp_hello garbage_and_wrong_key(const char *key, const char *garbage_name,
                                              const char *wrong_key_name)
{
    int fd = dial();
    uint8_t junk[48];
    CHECK(getrandom(junk, sizeof junk, 0) == sizeof junk);
    junk[0] ^= 0x5a; /* never the magic by chance */
    CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk);
    expect_dropped(fd, garbage_name);

    struct tcp_hello h = hello_from(0);
    struct tcp_challenge ch;
    struct tcp_proof pr = {.magic = TCP_HS_MAGIC};
    fd = handshake_start(&h, &ch, key);
    CHECK_EQ_INT(tcp_hs_mac("0123456789abcdef0123456789abcdef", 0, &h, ch.nonce, pr.mac), 0);
    CHECK(write(fd, &pr, sizeof pr) == (ssize_t)sizeof pr);
    expect_dropped(fd, wrong_key_name);
    return h;
}

static void strangers(const char *key)
{
    struct tcp_hello h = garbage_and_wrong_key(key, "garbage", "wrong key");
    struct tcp_challenge ch;
    struct tcp_proof pr = {.magic = TCP_HS_MAGIC};
    int fd;

    /* replay: a correct proof for one challenge, sent after another */
    h = hello_from(0);
    fd = handshake_start(&h, &ch, key);
    CHECK_EQ_INT(tcp_hs_mac(key, 0, &h, ch.nonce, pr.mac), 0);
    close(fd); /* recorded, never sent */
    fd = handshake_start(&h, &ch, key);
    CHECK(write(fd, &pr, sizeof pr) == (ssize_t)sizeof pr);
    expect_dropped(fd, "replay");
}

static void flood(int n)
{
    for (int i = 0; i < n; i++) {
        int fd = dial();
        static const char junk[48] = "flood flood flood flood flood flood flood flood";
        CHECK(write(fd, junk, sizeof junk) == (ssize_t)sizeof junk);
        char b;
        CHECK(read(fd, &b, 1) <= 0); /* dropped: EOF or reset */
        close(fd);
    }
}

/* The same on the one-sided listener, and each listener offered the other's kind. */
static void rma_strangers(const char *key)
{
    victim = victim_rma;
    struct tcp_hello h = garbage_and_wrong_key(key, "rma garbage", "rma wrong key");
    int fd;

    h.kind = TCP_CONN_DATA; /* a data hello on the one-sided listener */
    fd = dial();
    CHECK(write(fd, &h, sizeof h) == (ssize_t)sizeof h);
    expect_dropped(fd, "data hello on the rma listener");

    victim = victim_data; /* a one-sided hello on the data listener */
    h.kind = TCP_CONN_RMA;
    fd = dial();
    CHECK(write(fd, &h, sizeof h) == (ssize_t)sizeof h);
    expect_dropped(fd, "rma hello on the data listener");
}

/* A second data connection from "rank 0" while the real one is open. */
static void duplicate(const char *key)
{
    struct tcp_hello h = hello_from(0);
    struct tcp_challenge ch;
    struct tcp_proof pr = {.magic = TCP_HS_MAGIC};
    int fd = handshake_start(&h, &ch, key);
    CHECK_EQ_INT(tcp_hs_mac(key, 0, &h, ch.nonce, pr.mac), 0);
    CHECK(write(fd, &pr, sizeof pr) == (ssize_t)sizeof pr);
    expect_dropped(fd, "duplicate");
}

static void send_all(skf_chan_t *ch, skf_addr_t dst, const unsigned char *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        struct iovec iov = {(void *)(buf + off), len - off};
        ssize_t n = skf_send(ch, dst, &iov, 1);
        if (n == -EAGAIN) {
            CHECK(skf_wait(ch, SKF_WRITABLE, -1) >= 0);
            continue;
        }
        CHECK(n > 0);
        off += (size_t)n;
    }
}

static void recv_all(skf_chan_t *ch, unsigned char *buf, size_t len, int from)
{
    size_t off = 0;
    while (off < len) {
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t src;
        ssize_t n = skf_recv(ch, cont, &ncont, &src);
        if (n == -EAGAIN) {
            CHECK(skf_wait(ch, SKF_READABLE, -1) > 0);
            continue;
        }
        CHECK(n >= 0 && skf_addr_rank(src) == from && off + (size_t)n <= len);
        for (int i = 0; i < ncont; i++) {
            memcpy(buf + off, cont[i].iov_base, cont[i].iov_len);
            off += cont[i].iov_len;
        }
        CHECK_EQ_INT(skf_recv_done(ch), 0);
    }
}

int main(int argc, char **argv)
{
    int nflood = argc > 1 ? atoi(argv[1]) : 0;
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    CHECK_EQ_INT(skf_init(&ctx), 0);
    int me = skf_rank(ctx);
    CHECK_EQ_INT(skf_size(ctx), 2);
    CHECK_EQ_INT(skf_chan_open(ctx, PORT, &ch), 0);
    const char *key = getenv("SKIFF_JOB_KEY");
    CHECK(key != NULL);
    unsigned char *out = malloc(BIG), *in = malloc(BIG);
    for (size_t i = 0; i < BIG; i++)
        out[i] = (unsigned char)(i * 7 + (size_t)me);
    if (me == 0) {
        /* Rank 1's listener, as published at open (white box: the key name
         * is the transport's, "skf-tcp-<open number>-<rank>"). */
        char val[BOOT_VAL_MAX], host[64];
        int port = 0, rma_port = 0, found = 0;
        for (int open_no = 0; open_no < 8 && !found; open_no++) {
            char k[BOOT_KEY_MAX];
            snprintf(k, sizeof k, "skf-tcp-%d-1", open_no);
            found = boot_get(k, val, sizeof val) == 0 &&
                    sscanf(val, "%63[^:]:%d:%d", host, &port, &rma_port) == 3;
        }
        CHECK(found);
        victim.sin_family = AF_INET;
        victim.sin_port = htons((uint16_t)port);
        CHECK_EQ_INT(inet_pton(AF_INET, host, &victim.sin_addr), 1);
        victim_data = victim_rma = victim;
        victim_rma.sin_port = htons((uint16_t)rma_port);
        strangers(key);
        rma_strangers(key);
        victim = victim_data;
        send_all(ch, skf_addr(ctx, 1, PORT), out, BIG); /* the real connection opens */
        recv_all(ch, in, BIG, 1); /* rank 1 answers only after it got everything */
        duplicate(key);
        flood(nflood);
        send_all(ch, skf_addr(ctx, 1, PORT), out, 1); /* rank 1 waits for this meanwhile */
    } else {
        unsigned char fin;
        recv_all(ch, in, BIG, 0);
        send_all(ch, skf_addr(ctx, 0, PORT), out, BIG);
        recv_all(ch, &fin, 1, 0);
        CHECK_EQ_INT(fin, 0); /* rank 0's byte 0: 0 * 7 + 0 */
    }
    int peer = 1 - me;
    for (size_t i = 0; i < BIG; i++)
        if (in[i] != (unsigned char)(i * 7 + (size_t)peer))
            CHECK(!"wrong byte from the peer");
    CHECK_EQ_INT(skf_chan_close(ch), 0);
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    printf("tcp_auth rank %d: ok\n", me);
    free(out);
    free(in);
    return 0;
}
