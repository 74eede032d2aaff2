/*
 * chan_msgrate.c — SkifCh's MsgRate test on Skiff's raw channel layer
 * (skiff.h, no MPI): rank 0 only sends, rank 1 only receives, millions of
 * messages per second by size.  Put next to the MPI msgrate it shows what
 * MPI's matching and protocol cost on top of the channel.
 *
 * Everything travels in-band on one user port, in sender order: per round,
 * rank 0 sends a header {count, size}, then `count` messages, and waits for
 * rank 1's one-message acknowledgement; count 0 ends the job.  Rank 0 grows
 * the count until a round takes an eighth of --time, then runs a round scaled
 * to --time (as the MPI programs do).  Fresh payload (default): every message
 * is stamped (payload.h) and rank 1 checks the stamp and the length.
 *
 *   chan_msgrate [--sizes a,b,c] [--time SEC] [--static]   (exactly 2 ranks)
 * Prints "@ msgrate SIZE 2 Mmsg/s VALUE" lines; skiff-bench files them as MPI
 * "skiff-chan".  Sizes above skf_max_msg() are reported as skipped; a message
 * the channel takes in parts (ring partly full) still counts as one.
 */
#include <errno.h>
#include <skiff.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "payload.h"

#define PORT (SKF_PORT_USER + 7)
#define MAX_SIZES 64
#define STALL_MS 10000

struct header {
    uint64_t count, size;
};

static skf_chan_t *ch;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fail(const char *what, long err)
{
    if (err < 0)
        fprintf(stderr, "chan_msgrate: %s: %s\n", what, skf_strerror((int)err));
    else
        fprintf(stderr, "chan_msgrate: %s\n", what);
    skf_abort(skf_chan_ctx(ch), 3, what);
}

/* One logical message of len bytes.  When the ring has less room than len,
 * skf_send takes a part and the rest goes as further channel messages (the
 * SkifCh contract); the receiver reassembles by length. */
static void send_one(skf_addr_t dst, const void *buf, size_t len)
{
    /* Loop until a send succeeded at least once: a 0-byte message that meets a
     * full ring (-EAGAIN) must be retried, not counted as sent. */
    size_t off = 0;
    int taken = 0;
    while (!taken || off < len) {
        struct iovec iov = {(char *)buf + off, len - off};
        ssize_t n = skf_send(ch, dst, &iov, 1);
        if (n >= 0) {
            off += (size_t)n;
            taken = 1;
            continue;
        }
        if (n != -EAGAIN)
            fail("skf_send", n);
        int w = skf_wait(ch, SKF_WRITABLE, -1);
        if (w < 0)
            fail("skf_wait(writable)", w);
    }
}

/* Receive one channel message; copy its first `want` bytes to out; return its length. */
static size_t recv_piece(void *out, size_t want)
{
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    for (;;) {
        ssize_t n = skf_recv(ch, cont, &ncont, &src);
        if (n >= 0) {
            size_t total = 0, copied = 0;
            for (int i = 0; i < ncont; i++) {
                size_t take = cont[i].iov_len < want - copied ? cont[i].iov_len : want - copied;
                memcpy((char *)out + copied, cont[i].iov_base, take);
                copied += take;
                total += cont[i].iov_len;
            }
            skf_recv_done(ch);
            return total;
        }
        if (n != -EAGAIN)
            fail("skf_recv", n);
        /* Both sides are always mid-round here, so a long silence means lost
         * messages: say so instead of hanging until the harness's timeout. */
        int w, quiet_ms = 0;
        while ((w = skf_wait(ch, SKF_READABLE, 1000)) == 0)
            if ((quiet_ms += 1000) >= STALL_MS)
                fail("no message for 10 s in the middle of a round (messages lost?)", 0);
        if (w < 0)
            fail("skf_wait(readable)", w);
    }
}

/* One logical message of `size` bytes (one or more channel messages); its
 * first min(size, want) bytes land in out. */
static void recv_one(void *out, size_t size, size_t want)
{
    size_t got = 0;
    do {
        size_t copy = got < want ? want - got : 0;
        size_t n = recv_piece((char *)out + got, copy);
        if (n == 0 && size > 0)
            fail("received an empty piece inside a message", 0);
        got += n;
    } while (got < size);
    if (got != size)
        fail("received a message longer than announced", 0);
}

/* Rank 0: one round of `count` messages; seconds until rank 1 acknowledged. */
static double round_trip(skf_addr_t peer, char *buf, size_t size, uint64_t count, uint64_t *next, int fresh)
{
    struct header h = {count, size};
    char ack;
    double t0 = now();
    send_one(peer, &h, sizeof h);
    for (uint64_t i = 0; i < count; i++) {
        if (fresh)
            payload_stamp(buf, size, (*next)++);
        send_one(peer, buf, size);
    }
    recv_one(&ack, 1, 1);
    return now() - t0;
}

static void receiver(skf_addr_t peer, char *buf, int fresh)
{
    uint64_t next = 0;
    for (;;) {
        struct header h;
        recv_one(&h, sizeof h, sizeof h);
        if (h.count == 0)
            return;
        for (uint64_t i = 0; i < h.count; i++) {
            size_t first = h.size < 8 ? h.size : 8;
            recv_one(buf, h.size, first);
            uint64_t stamp = next++;
            if (fresh && payload_mismatch(buf, first, stamp) >= 0)
                fail("payload check failed: stale or misplaced data", 0);
        }
        char ack = 1;
        send_one(peer, &ack, 1);
    }
}

static int parse_sizes(const char *list, size_t *sizes)
{
    int n = 0;
    for (const char *p = list; *p && n < MAX_SIZES;) {
        char *end;
        long long v = strtoll(p, &end, 10);
        if (end == p || v < 0)
            return -1;
        if (*end == 'K' || *end == 'k')
            v <<= 10, end++;
        else if (*end == 'M' || *end == 'm')
            v <<= 20, end++;
        if (*end && *end != ',')
            return -1;
        sizes[n++] = (size_t)v;
        p = *end ? end + 1 : end;
    }
    return n;
}

int main(int argc, char **argv)
{
    const char *sizes_arg = "0,1,4,16,64,256,1K,4K,16K,64K";
    double target = 0.05;
    int fresh = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes_arg = argv[++i];
        else if (!strcmp(argv[i], "--time") && i + 1 < argc)
            target = atof(argv[++i]);
        else if (!strcmp(argv[i], "--static"))
            fresh = 0;
        else {
            fprintf(stderr, "chan_msgrate: unknown argument '%s' (use --sizes LIST --time SEC --static)\n", argv[i]);
            return 2;
        }
    }
    size_t sizes[MAX_SIZES];
    int nsizes = parse_sizes(sizes_arg, sizes);
    if (nsizes <= 0 || target <= 0 || target > 60) {
        fprintf(stderr, "chan_msgrate: bad --sizes '%s' or --time %g\n", sizes_arg, target);
        return 2;
    }
    skf_ctx_t *ctx;
    int rc = skf_init(&ctx);
    if (rc < 0) {
        fprintf(stderr, "chan_msgrate: skf_init: %s\n", skf_strerror(rc));
        return 2;
    }
    if (skf_size(ctx) != 2) {
        fprintf(stderr, "chan_msgrate: needs exactly 2 ranks, got %d\n", skf_size(ctx));
        skf_finalize(ctx);
        return 2;
    }
    if ((rc = skf_chan_open(ctx, PORT, &ch)) < 0) {
        fprintf(stderr, "chan_msgrate: skf_chan_open: %s\n", skf_strerror(rc));
        skf_finalize(ctx);
        return 2;
    }
    int rank = skf_rank(ctx);
    skf_addr_t peer = skf_addr(ctx, 1 - rank, PORT);
    size_t max = 0;
    for (int i = 0; i < nsizes; i++)
        max = sizes[i] > max ? sizes[i] : max;
    char *buf = calloc(1, max + 8);
    if (!buf)
        fail("out of memory", -ENOMEM);
    if (rank == 1) {
        receiver(peer, buf, fresh);
    } else {
        uint64_t next = 0;
        size_t limit = skf_max_msg(ch, peer);
        for (int i = 0; i < nsizes; i++) {
            size_t size = sizes[i];
            if (size > limit) {
                printf("# msgrate %zu skipped: above skf_max_msg %zu\n", size, limit);
                continue;
            }
            round_trip(peer, buf, size, 64, &next, fresh); /* warm-up */
            uint64_t n = 256;
            double t;
            while ((t = round_trip(peer, buf, size, n, &next, fresh)) < target / 8 && n < (1u << 26))
                n *= 4;
            n = (uint64_t)(n * target / t) + 1;
            t = round_trip(peer, buf, size, n, &next, fresh);
            printf("@ msgrate %zu 2 Mmsg/s %.6g\n", size, n / t / 1e6);
            fflush(stdout);
        }
        struct header done = {0, 0};
        send_one(peer, &done, sizeof done);
    }
    free(buf);
    skf_chan_close(ch);
    skf_finalize(ctx);
    return 0;
}
