/*
 * skf_chan_bench — the raw channel (skiff.h, no MPI) between ranks 0 and 1.
 *
 *   skf_chan_bench msgrate|pingpong|tokenring [--sizes 1,8,64,...] [--iters N] [--pin]
 *
 * msgrate  (SkifCh's MsgRate test): rank 0 only sends, rank 1 only receives
 *          (reads the first byte of each message, no copy); messages/s by
 *          size, timed on rank 0 from the first send until rank 1's one-message
 *          acknowledgement of the last.
 * pingpong half round trip by size (rank 0 sends, rank 1 sends back).
 * tokenring any number of ranks pass a token around a ring: time per hop,
 *          the oversubscription probe (8 ranks on 2 cores).
 * get      one-sided: rank 1 exposes 4 MiB and waits in skf_wait; rank 0 does
 *          blocking skf_get of each size (time per get, and MB/s), then an
 *          8-byte skf_atomic fetch-add (time per op).  Over tcp the owner's
 *          RMA service answers.  --poll: the owner busy-polls skf_recv instead
 *          (as MPI's progress does) rather than sleeping in skf_wait.
 * --expose (any mode): each rank keeps 4 KiB exposed meanwhile, as an MPI
 *          window does (with node mates the channel calls then also serve
 *          the same-node one-sided fallback: its cost on the data path).
 * Waiting is always skf_wait (spin, then sleep), never an app busy loop.
 * --pin binds rank r to CPU r (the MPI runs are bound the same way).
 * Output: one line per size, "bench,size,value,unit" (CSV-ish, as bench/mpi_pt2pt.c).
 */
#include <errno.h>
#include <sched.h>
#include <skiff.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PORT (SKF_PORT_USER + 1)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int owner_polls; /* get --poll */

static void die(const char *what, long rc)
{
    fprintf(stderr, "skf_chan_bench: %s: %s\n", what, skf_strerror((int)rc));
    exit(1);
}

/* Send one message of len bytes (several if len > skf_max_msg).  An empty
 * message is sent once too: loop until a send succeeded, not while bytes
 * remain (a do-while on "bytes left" would drop a 0-byte message that first
 * met a full ring). */
static void send_msg(skf_chan_t *ch, skf_addr_t dst, const char *buf, size_t len)
{
    size_t done = 0;
    for (;;) {
        struct iovec iov = {(char *)buf + done, len - done};
        ssize_t n = skf_send(ch, dst, &iov, 1);
        if (n >= 0) {
            done += (size_t)n;
            if (done >= len)
                return;
            continue;
        }
        if (n != -EAGAIN)
            die("skf_send", n);
        int r = skf_wait(ch, SKF_WRITABLE, -1);
        if (r < 0)
            die("skf_wait", r);
    }
}

/* Receive len bytes (one or more messages); returns a byte of the data. */
static unsigned recv_msg(skf_chan_t *ch, size_t len)
{
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    unsigned sum = 0;
    size_t got = 0;
    for (;;) {
        ssize_t n = skf_recv(ch, cont, &ncont, NULL);
        if (n == -EAGAIN) {
            int r = skf_wait(ch, SKF_READABLE, -1);
            if (r < 0)
                die("skf_wait", r);
            continue;
        }
        if (n < 0)
            die("skf_recv", n);
        if (ncont)
            sum += *(volatile unsigned char *)cont[0].iov_base;
        got += (size_t)n;
        skf_recv_done(ch);
        if (got >= len)
            return sum;
    }
}

static long iters_for(size_t size, long fixed, int pingpong)
{
    if (fixed > 0)
        return fixed;
    long n = (long)((pingpong ? 200e6 : 1e9) / (double)(size + 64));
    long lo = pingpong ? 2000 : 20000, hi = pingpong ? 200000 : 4000000;
    return n < lo ? lo : n > hi ? hi : n;
}

/* get mode (see the top): rank 1 owns, rank 0 measures. */
static void one_sided(skf_ctx_t *ctx, skf_chan_t *ch, int me, skf_addr_t peer, char *buf,
                      char *sizes_s, long fixed)
{
    skf_mr_key_t key;
    int rc;
    if (me == 1) {
        if ((rc = skf_mr_expose(ctx, buf, 4 << 20, &key)))
            die("skf_mr_expose", rc);
        send_msg(ch, peer, (const char *)&key, sizeof key);
        if (owner_polls) { /* until rank 0 is done */
            struct iovec cont[SKF_CONT_SIZE];
            int ncont;
            while (skf_recv(ch, cont, &ncont, NULL) == -EAGAIN)
                ;
            skf_recv_done(ch);
        } else
            recv_msg(ch, 1);
        skf_mr_release(ctx, &key);
        return;
    }
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    while (skf_recv(ch, cont, &ncont, NULL) == -EAGAIN)
        skf_wait(ch, SKF_READABLE, -1);
    memcpy(&key, cont[0].iov_base, sizeof key);
    skf_recv_done(ch);
    for (char *tok = strtok(sizes_s, ","); tok; tok = strtok(NULL, ",")) {
        size_t size = (size_t)strtoull(tok, NULL, 0);
        long iters = iters_for(size, fixed, 1) / 4 + 10;
        double t0 = 0;
        for (long i = -iters / 10; i < iters; i++) {
            if (i == 0)
                t0 = now();
            if ((rc = skf_get(ch, &key, 0, buf, size)))
                die("skf_get", rc);
        }
        double t = now() - t0;
        printf("skf_get_lat,%zu,%.3f,us\n", size, t * 1e6 / (double)iters);
        printf("skf_get_bw,%zu,%.1f,MB/s\n", size, (double)size * (double)iters / t / 1e6);
        fflush(stdout);
    }
    long iters = fixed > 0 ? fixed : 20000;
    double t0 = 0;
    for (long i = -iters / 10; i < iters; i++) {
        if (i == 0)
            t0 = now();
        if ((rc = skf_atomic(ch, &key, 0, SKF_AOP_ADD, 8, 1, 0, NULL)))
            die("skf_atomic", rc);
    }
    printf("skf_atomic_fadd_lat,8,%.3f,us\n", (now() - t0) * 1e6 / (double)iters);
    send_msg(ch, peer, buf, 1);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "msgrate";
    char sizes_s[512] = "1,8,64,256,1024,4096,16384,65536";
    long fixed = 0;
    int pin = 0, expose = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            snprintf(sizes_s, sizeof sizes_s, "%s", argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            fixed = atol(argv[++i]);
        else if (!strcmp(argv[i], "--pin"))
            pin = 1;
        else if (!strcmp(argv[i], "--poll"))
            owner_polls = 1;
        else if (!strcmp(argv[i], "--expose"))
            expose = 1;
    }
    int pp = !strcmp(mode, "pingpong"), ring = !strcmp(mode, "tokenring"), get = !strcmp(mode, "get");
    if (!pp && !ring && !get && strcmp(mode, "msgrate")) {
        fprintf(stderr, "usage: skf_chan_bench msgrate|pingpong|tokenring|get [--sizes a,b] [--iters N] [--pin]\n");
        return 2;
    }
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    int rc;
    if ((rc = skf_init(&ctx)) || (rc = skf_chan_open(ctx, PORT, &ch)))
        die("start-up", rc);
    int me = skf_rank(ctx), np = skf_size(ctx);
    static char exposed[4096];
    skf_mr_key_t exposed_key;
    if (expose && (rc = skf_mr_expose(ctx, exposed, sizeof exposed, &exposed_key)))
        die("skf_mr_expose", rc);
    if (ring) {
        long laps = fixed > 0 ? fixed : 20000;
        skf_addr_t next = skf_addr(ctx, (me + 1) % np, PORT);
        char tok[8] = {0};
        double t0 = 0;
        for (long lap = -laps / 10; lap < laps; lap++) {
            if (lap == 0)
                t0 = now();
            if (me == 0)
                send_msg(ch, next, tok, sizeof tok);
            recv_msg(ch, sizeof tok);
            if (me != 0)
                send_msg(ch, next, tok, sizeof tok);
        }
        if (me == 0)
            printf("skf_tokenring_np%d,8,%.3f,us/hop\n", np, (now() - t0) * 1e6 / ((double)laps * np));
        skf_chan_close(ch);
        skf_finalize(ctx);
        return 0;
    }
    if (np != 2) {
        if (me == 0)
            fprintf(stderr, "skf_chan_bench: needs exactly 2 ranks\n");
        return 2;
    }
    if (pin) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(me, &set);
        sched_setaffinity(0, sizeof set, &set);
    }
    skf_addr_t peer = skf_addr(ctx, 1 - me, PORT);
    char *buf = calloc(1, 4 << 20);
    if (get) {
        one_sided(ctx, ch, me, peer, buf, sizes_s, fixed);
        free(buf);
        skf_chan_close(ch);
        skf_finalize(ctx);
        return 0;
    }
    for (char *tok = strtok(sizes_s, ","); tok; tok = strtok(NULL, ",")) {
        size_t size = (size_t)strtoull(tok, NULL, 0);
        long iters = iters_for(size, fixed, pp), warm = iters / 10 + 10;
        double t0 = 0;
        if (pp) {
            for (long i = -warm; i < iters; i++) {
                if (i == 0)
                    t0 = now();
                if (me == 0) {
                    buf[0] = (char)i;
                    send_msg(ch, peer, buf, size);
                    recv_msg(ch, size);
                } else {
                    recv_msg(ch, size);
                    send_msg(ch, peer, buf, size);
                }
            }
            if (me == 0)
                printf("skf_pingpong,%zu,%.3f,us\n", size, (now() - t0) * 1e6 / (2.0 * (double)iters));
        } else {
            for (int round = 0; round < 2; round++) { /* round 0 warms up */
                long n = round ? iters : warm;
                if (me == 0) {
                    t0 = now();
                    for (long i = 0; i < n; i++)
                        send_msg(ch, peer, buf, size);
                    recv_msg(ch, 1);
                } else {
                    for (long i = 0; i < n; i++)
                        recv_msg(ch, size);
                    send_msg(ch, peer, buf, 1);
                }
            }
            if (me == 0)
                printf("skf_msgrate,%zu,%.3f,Mmsg/s\n", size, (double)iters / (now() - t0) / 1e6);
        }
        fflush(stdout);
    }
    free(buf);
    skf_chan_close(ch);
    skf_finalize(ctx);
    return 0;
}
