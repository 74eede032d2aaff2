/* boot_pmi_tcp — PMI over TCP with the job-key check (see boot_pmi_tcp.h). */
#include "boot/boot_pmi_tcp.h"
#include "boot/boot_internal.h"
#include "pmi_wire.h"
#include "transports/tcp/auth.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define LABEL_LAUNCHER "skiff-pmi launcher"
#define LABEL_RANK "skiff-pmi rank"
#define AUTH_TIMEOUT_S 30 /* the launcher answers at once; a silent peer is not it */

static char local_addr[INET6_ADDRSTRLEN];

int boot_pmi_tcp_local_addr(char *out, size_t cap)
{
    if (!local_addr[0])
        return -ENOENT;
    snprintf(out, cap, "%s", local_addr);
    return 0;
}

static int env_number(const char *name, long lo, long hi, int *out)
{
    const char *v = getenv(name);
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || x < lo || x > hi)
        return -EINVAL;
    *out = (int)x;
    return 0;
}

static int split_port(const char *spec, char *host, size_t cap, char *port, size_t pcap)
{
    const char *colon = strrchr(spec, ':');
    if (!colon || colon == spec || !colon[1] || strlen(colon + 1) >= pcap)
        return -EINVAL;
    const char *h = spec;
    size_t hn = (size_t)(colon - spec);
    if (h[0] == '[' && hn >= 2 && h[hn - 1] == ']') {
        h++;
        hn -= 2;
    }
    if (hn >= cap)
        return -EINVAL;
    memcpy(host, h, hn);
    host[hn] = '\0';
    strcpy(port, colon + 1);
    return 0;
}

/* One reply line, waiting at most AUTH_TIMEOUT_S (set on the socket). */
static int read_line(int fd, pmi_linebuf_t *b, char *line, size_t cap)
{
    for (;;) {
        int rc = pmi_linebuf_next(b, line, cap);
        if (rc != 0)
            return rc < 0 ? -EPROTO : 0;
        long n = pmi_linebuf_fill(b, fd);
        if (n == 0)
            return -ECONNRESET;
        if (n < 0)
            return (int)n;
    }
}

static int authenticate(int fd, int rank, const char *key)
{
    uint8_t nonce_rank[SKF_AUTH_NONCE], nonce_launcher[SKF_AUTH_NONCE], mac[SKF_AUTH_MAC],
        want[SKF_AUTH_MAC];
    char line[PMI_WIRE_LINE_MAX], hex[2 * SKF_AUTH_MAC + 1];
    pmi_linebuf_t in = {.len = 0};
    pmi_kv_t kv[PMI_WIRE_MAX_WORDS];
    uint32_t ctx = (uint32_t)rank;
    int rc;
    if ((rc = skf_auth_nonce(nonce_rank)))
        return rc;
    skf_auth_hex(nonce_rank, SKF_AUTH_NONCE, hex);
    snprintf(line, sizeof line, "cmd=skiff_hello rank=%d nonce=%s\n", rank, hex);
    if ((rc = pmi_wire_write_all(fd, line, strlen(line))) || (rc = read_line(fd, &in, line, sizeof line)))
        return rc;
    int n = pmi_wire_parse(line, kv, PMI_WIRE_MAX_WORDS);
    const char *cmd = n > 0 ? pmi_wire_find(kv, n, "cmd") : NULL;
    const char *nh = n > 0 ? pmi_wire_find(kv, n, "nonce") : NULL;
    const char *mh = n > 0 ? pmi_wire_find(kv, n, "mac") : NULL;
    if (!cmd || strcmp(cmd, "skiff_challenge") || !nh || !mh ||
        skf_auth_unhex(nh, nonce_launcher, SKF_AUTH_NONCE) || skf_auth_unhex(mh, mac, SKF_AUTH_MAC))
        return -EPROTO;
    if ((rc = skf_auth_mac(key, LABEL_LAUNCHER, &ctx, sizeof ctx, nonce_rank, nonce_launcher, want)))
        return rc;
    if (!skf_auth_equal(mac, want))
        return -EACCES; /* whoever answered does not hold our job key */
    if ((rc = skf_auth_mac(key, LABEL_RANK, &ctx, sizeof ctx, nonce_rank, nonce_launcher, mac)))
        return rc;
    skf_auth_hex(mac, SKF_AUTH_MAC, hex);
    snprintf(line, sizeof line, "cmd=skiff_proof mac=%s\n", hex);
    if ((rc = pmi_wire_write_all(fd, line, strlen(line))) || (rc = read_line(fd, &in, line, sizeof line)))
        return rc == -ECONNRESET ? -EACCES : rc; /* the launcher hangs up on a wrong key */
    return strcmp(line, "cmd=skiff_auth rc=0") == 0 && in.len == 0 ? 0 : -EPROTO;
}

int boot_pmi_tcp_connect(const char *port_env, int *rank, int *size, int *fdp)
{
    char host[256], port[16];
    const char *key = getenv("SKIFF_JOB_KEY");
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM};
    struct addrinfo *ai;
    if (env_number("PMI_SIZE", 1, 1 << 24, size) ||
        (env_number("PMI_ID", 0, *size - 1, rank) && env_number("PMI_RANK", 0, *size - 1, rank))) {
        boot_error("PMI_PORT is set, but PMI_SIZE and PMI_ID (or PMI_RANK) are missing or out of range");
        return -EINVAL;
    }
    if (!key || !*key) {
        boot_error("PMI_PORT=%.80s is set without SKIFF_JOB_KEY: Skiff's PMI over TCP needs the "
                   "job key its launcher (skiffrun) hands out", port_env);
        return -EINVAL;
    }
    if (split_port(port_env, host, sizeof host, port, sizeof port) ||
        getaddrinfo(host, port, &hints, &ai) != 0) {
        boot_error("PMI_PORT=%.80s: expected a numeric address and port (a.b.c.d:port)", port_env);
        return -EINVAL;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0), rc = 0;
    struct timeval tv = {AUTH_TIMEOUT_S, 0};
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) ||
        connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        rc = -errno;
        boot_error("cannot reach the launcher at PMI_PORT=%s: %s", port_env, strerror(-rc));
    }
    freeaddrinfo(ai);
    if (!rc) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if ((rc = authenticate(fd, *rank, key)))
            boot_error("the launcher at PMI_PORT=%s refused or failed the job-key check: %s",
                       port_env, rc == -EACCES ? "wrong job key" : strerror(-rc));
    }
    if (rc) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    struct timeval none = {0, 0}; /* PMI barriers may take as long as the job needs */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        getnameinfo((struct sockaddr *)&ss, sl, local_addr, sizeof local_addr, NULL, 0, NI_NUMERICHOST);
    *fdp = fd;
    return 0;
}
