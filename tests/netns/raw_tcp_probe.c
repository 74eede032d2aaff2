/*
 * raw_tcp_probe — the physical floor of the netns benchmark: what one plain
 * TCP connection does between the two namespaced hosts, with no MPI at all,
 * measured in the same run as the MPIs (tests/netns/bench_netns.sh).
 *
 *   raw_tcp_probe server PORT                 (in host 2; serves one client)
 *   raw_tcp_probe client ADDR PORT latency|bw SIZES
 *
 * latency  ping-pong of SIZE bytes, half round trip (us); the receiver
 *          busy-polls with non-blocking recv, as an MPI rank does
 * bw       windows of 64 writes of SIZE bytes, then a 4-byte ack back
 *          (the shape of bench/mpi_pt2pt.c's bw; MB/s, 1e6 bytes/s)
 * One TCP_NODELAY connection, default socket buffers, no pinning (the
 * caller runs it under taskset).  RAW_TCP_CC=name sets the congestion
 * control of both ends (TCP_CONGESTION; default: the system's); RAW_TCP_ITERS=n
 * fixes the iterations (else a budget like bench/mpi_pt2pt.c's).  Output as mpi_pt2pt: "bench,size,value,unit".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 64
#define MAX_SIZE (4 << 20)

static void die(const char *what)
{
    fprintf(stderr, "raw_tcp_probe: %s: %s\n", what, strerror(errno));
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Busy-polling exact read (MSG_DONTWAIT: spins instead of sleeping). */
static void get_all(int fd, char *p, size_t n)
{
    while (n) {
        ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
        if (r > 0) {
            p += r;
            n -= (size_t)r;
        } else if (r == 0) {
            fprintf(stderr, "raw_tcp_probe: peer closed\n");
            exit(1);
        } else if (errno != EAGAIN && errno != EINTR) {
            die("recv");
        }
    }
}

static void put_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        } else if (w < 0 && errno != EINTR && errno != EAGAIN) {
            die("send");
        }
    }
}

static void tune(int fd)
{
    int one = 1;
    const char *cc = getenv("RAW_TCP_CC");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (cc && *cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, (socklen_t)strlen(cc)))
        die("TCP_CONGESTION");
}

static long iters_for(int lat, long size)
{
    const char *fixed = getenv("RAW_TCP_ITERS"); /* bench_netns.sh ITERS=n: as the MPIs' --iters */
    if (fixed && atol(fixed) > 0)
        return atol(fixed);
    long n = (long)((lat ? 1e8 : 4e9) / (double)(size + 256)) / (lat ? 1 : WINDOW);
    return n < 20 ? 20 : n > 100000 ? 100000 : n;
}

/* The protocol: the client sends a 16-byte command {mode, size, iters},
 * both sides then run the same loop; size 0 ends the session. */
struct cmd {
    int32_t lat;
    int32_t pad;
    int64_t size;
    int64_t iters;
};

static void run(int fd, int client, const struct cmd *c, char *buf)
{
    int32_t ack = 0;
    for (long i = 0; i < c->iters; i++) {
        if (c->lat) {
            if (client) {
                put_all(fd, buf, (size_t)c->size);
                get_all(fd, buf, (size_t)c->size);
            } else {
                get_all(fd, buf, (size_t)c->size);
                put_all(fd, buf, (size_t)c->size);
            }
        } else {
            for (int w = 0; w < WINDOW; w++)
                client ? put_all(fd, buf, (size_t)c->size) : get_all(fd, buf, (size_t)c->size);
            client ? get_all(fd, (char *)&ack, sizeof ack) : put_all(fd, (char *)&ack, sizeof ack);
        }
    }
}

int main(int argc, char **argv)
{
    int one = 1;
    char *buf = malloc(MAX_SIZE);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    if (!buf)
        die("malloc");
    /* Written once, as bench/mpi_pt2pt.c writes its buffers: pages never
     * written all map the kernel's one zero page, and a send copying from
     * that 4 KiB (always in cache) ran 1.35x faster at 4 MiB than from real
     * memory (11.9 vs 8.8 GB/s on the veth) -- a floor no program sees. */
    memset(buf, 'a', MAX_SIZE);
    if (argc == 3 && !strcmp(argv[1], "server")) {
        int lfd = socket(AF_INET, SOCK_STREAM, 0);
        sa.sin_port = htons((uint16_t)atoi(argv[2]));
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 1))
            die("listen");
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            die("accept");
        tune(fd);
        for (;;) {
            struct cmd c;
            get_all(fd, (char *)&c, sizeof c);
            if (c.size <= 0 || c.size > MAX_SIZE || c.iters <= 0)
                break;
            run(fd, 0, &c, buf);
        }
        close(fd);
        close(lfd);
        free(buf);
        return 0;
    }
    if (argc != 6 || strcmp(argv[1], "client") || (strcmp(argv[4], "latency") && strcmp(argv[4], "bw"))) {
        fprintf(stderr, "usage: raw_tcp_probe server PORT | client ADDR PORT latency|bw SIZES\n");
        return 2;
    }
    int fd = -1;
    sa.sin_port = htons((uint16_t)atoi(argv[3]));
    if (inet_pton(AF_INET, argv[2], &sa.sin_addr) != 1) {
        fprintf(stderr, "raw_tcp_probe: bad address %s\n", argv[2]);
        return 2;
    }
    for (int tries = 0; tries < 200; tries++) { /* the server may still be starting */
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
            break;
        close(fd);
        fd = -1;
        usleep(20000);
    }
    if (fd < 0)
        die("connect");
    tune(fd);
    int lat = !strcmp(argv[4], "latency");
    for (char *tok = strtok(argv[5], ","); tok; tok = strtok(NULL, ",")) {
        struct cmd c = {.lat = lat, .size = atol(tok)};
        if (c.size <= 0 || c.size > MAX_SIZE)
            continue;
        long iters = iters_for(lat, c.size);
        c.iters = iters / 10 + 2; /* warm-up */
        put_all(fd, (char *)&c, sizeof c);
        run(fd, 1, &c, buf);
        c.iters = iters;
        put_all(fd, (char *)&c, sizeof c);
        double t0 = now_s();
        run(fd, 1, &c, buf);
        double t = now_s() - t0;
        if (lat)
            printf("latency,%ld,%.3f,us\n", (long)c.size, t * 1e6 / (2.0 * (double)iters));
        else
            printf("bw,%ld,%.1f,MB/s\n", (long)c.size, (double)c.size * WINDOW * (double)iters / t / 1e6);
        fflush(stdout);
    }
    struct cmd end = {0};
    put_all(fd, (char *)&end, sizeof end);
    close(fd);
    free(buf);
    return 0;
}
