/* pmi_tcp — PMI over TCP for remote ranks, with the job-key check (see pmi_tcp.h). */
#include "pmi_tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { WAIT_HELLO = 1, WAIT_PROOF };

#define LABEL_LAUNCHER "skiff-pmi launcher"
#define LABEL_RANK "skiff-pmi rank"

/* First non-loopback IPv4 address, without DNS. */
static int first_address(char *out, size_t cap)
{
    struct ifaddrs *all, *a;
    if (getifaddrs(&all) != 0)
        return -1;
    int found = -1;
    for (a = all; a && found < 0; a = a->ifa_next)
        if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && (a->ifa_flags & IFF_UP) &&
            !(a->ifa_flags & IFF_LOOPBACK) &&
            inet_ntop(AF_INET, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, out, (socklen_t)cap))
            found = 0;
    freeifaddrs(all);
    return found;
}

int pmi_tcp_open(pmi_tcp_t *t, const char *addr, const char *key)
{
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_PASSIVE, .ai_socktype = SOCK_STREAM}, *ai;
    char shown[INET6_ADDRSTRLEN + 2] = "";
    memset(t, 0, sizeof *t);
    t->lfd = -1;
    t->key = key;
    for (int i = 0; i < PMI_TCP_PENDING_MAX; i++)
        t->pend[i].fd = -1;
    int rc = getaddrinfo(addr, "0", &hints, &ai);
    if (rc != 0) {
        fprintf(stderr, "skiffrun: --launcher-addr '%s': not a numeric IPv4/IPv6 address (%s)\n",
                addr ? addr : "", gai_strerror(rc));
        return -1;
    }
    t->lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (t->lfd < 0 || bind(t->lfd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(t->lfd, 512) != 0) {
        fprintf(stderr, "skiffrun: cannot listen for remote ranks on %s: %s\n",
                addr ? addr : "any address", strerror(errno));
        freeaddrinfo(ai);
        return -1;
    }
    int family = ai->ai_family;
    freeaddrinfo(ai);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    getsockname(t->lfd, (struct sockaddr *)&ss, &sl);
    int port = family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&ss)->sin6_port)
                                  : ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (addr)
        snprintf(shown, sizeof shown, family == AF_INET6 ? "[%s]" : "%s", addr);
    else if (first_address(shown, sizeof shown) != 0)
        strcpy(shown, "127.0.0.1");
    snprintf(t->port_env, sizeof t->port_env, "%s:%d", shown, port);
    return 0;
}

static void drop(pmi_tcp_t *t, int slot)
{
    if (t->pend[slot].fd >= 0)
        close(t->pend[slot].fd);
    t->pend[slot].fd = -1;
}

void pmi_tcp_close(pmi_tcp_t *t)
{
    for (int i = 0; i < PMI_TCP_PENDING_MAX; i++)
        drop(t, i);
    if (t->lfd >= 0)
        close(t->lfd);
    t->lfd = -1;
}

static void peer_name(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?", port[16] = "?";
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
        getnameinfo((struct sockaddr *)&ss, sl, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV);
    snprintf(out, cap, "%s:%s", host, port);
}

static int is_power_of_ten(unsigned long n)
{
    while (n >= 10 && n % 10 == 0)
        n /= 10;
    return n == 1;
}

__attribute__((format(printf, 5, 6))) static int refuse(pmi_tcp_t *t, int slot,
                                                        void (*log)(void *, const char *),
                                                        void *ctx, const char *fmt, ...)
{
    char why[256], who[80], line[440];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    peer_name(t->pend[slot].fd, who, sizeof who);
    snprintf(t->last_refusal, sizeof t->last_refusal, "from %s: %s", who, why);
    t->refused++;
    if (t->refused <= PMI_TCP_REFUSALS_SHOWN) {
        snprintf(line, sizeof line, "skiffrun: PMI connection from %s dropped: %s%s", who, why,
                 t->refused == PMI_TCP_REFUSALS_SHOWN ? " (further drops are counted, not shown)" : "");
        log(ctx, line);
        t->refused_said = t->refused;
    } else if (is_power_of_ten(t->refused)) {
        pmi_tcp_summary(t, log, ctx);
    }
    drop(t, slot);
    return -1;
}

void pmi_tcp_summary(pmi_tcp_t *t, void (*log)(void *, const char *), void *ctx)
{
    if (t->refused == t->refused_said)
        return;
    char line[600];
    snprintf(line, sizeof line, "skiffrun: %lu PMI connections dropped (the first %d shown; the "
             "last %.400s)", t->refused, PMI_TCP_REFUSALS_SHOWN, t->last_refusal);
    log(ctx, line);
    t->refused_said = t->refused;
}

int pmi_tcp_accept(pmi_tcp_t *t, void (*log)(void *, const char *), void *ctx)
{
    int fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return -1;
    int slot = -1;
    for (int i = 0; i < PMI_TCP_PENDING_MAX && slot < 0; i++)
        if (t->pend[i].fd < 0)
            slot = i;
    if (slot < 0) { /* all taken: the oldest has had the longest to answer */
        slot = 0;
        for (int i = 1; i < PMI_TCP_PENDING_MAX; i++)
            if (t->pend[i].seq < t->pend[slot].seq)
                slot = i;
        refuse(t, slot, log, ctx, "too many unauthenticated connections; it was the oldest");
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    memset(&t->pend[slot], 0, sizeof t->pend[slot]);
    t->pend[slot].fd = fd;
    t->pend[slot].state = WAIT_HELLO;
    t->pend[slot].seq = ++t->next_seq;
    return slot;
}

static int send_line(int fd, const char *line)
{
    size_t n = strlen(line);
    return send(fd, line, n, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)n ? 0 : -1;
}

/* The MAC context: the rank the connection speaks for. */
static int mac_for(const pmi_tcp_t *t, const pmi_tcp_pending_t *p, const char *label,
                   uint8_t mac[SKF_AUTH_MAC])
{
    uint32_t r = (uint32_t)p->rank;
    return skf_auth_mac(t->key, label, &r, sizeof r, p->nonce_rank, p->nonce_launcher, mac);
}

static int on_line(pmi_tcp_t *t, int slot, char *line, int *rank, int *fd, int size,
                   void (*log)(void *, const char *), void *ctx)
{
    pmi_tcp_pending_t *p = &t->pend[slot];
    pmi_kv_t kv[PMI_WIRE_MAX_WORDS];
    int n = pmi_wire_parse(line, kv, PMI_WIRE_MAX_WORDS);
    const char *cmd = n > 0 ? pmi_wire_find(kv, n, "cmd") : NULL;
    if (p->state == WAIT_HELLO) {
        const char *r = pmi_wire_find(kv, n, "rank"), *nonce = pmi_wire_find(kv, n, "nonce");
        char *end;
        long rv = r ? strtol(r, &end, 10) : -1;
        if (!cmd || strcmp(cmd, "skiff_hello") != 0 || !r || *end || rv < 0 || rv >= size || !nonce ||
            skf_auth_unhex(nonce, p->nonce_rank, SKF_AUTH_NONCE) != 0)
            return refuse(t, slot, log, ctx, "expected 'cmd=skiff_hello rank=R nonce=HEX' first");
        p->rank = (int)rv;
        uint8_t mac[SKF_AUTH_MAC];
        char reply[256], nhex[2 * SKF_AUTH_NONCE + 1], mhex[2 * SKF_AUTH_MAC + 1];
        if (skf_auth_nonce(p->nonce_launcher) != 0 || mac_for(t, p, LABEL_LAUNCHER, mac) != 0)
            return refuse(t, slot, log, ctx, "cannot make a challenge (getrandom/HMAC failed)");
        skf_auth_hex(p->nonce_launcher, SKF_AUTH_NONCE, nhex);
        skf_auth_hex(mac, SKF_AUTH_MAC, mhex);
        snprintf(reply, sizeof reply, "cmd=skiff_challenge nonce=%s mac=%s\n", nhex, mhex);
        if (send_line(p->fd, reply) != 0)
            return refuse(t, slot, log, ctx, "cannot send the challenge");
        p->state = WAIT_PROOF;
        return 0;
    }
    const char *m = n > 0 ? pmi_wire_find(kv, n, "mac") : NULL;
    uint8_t got[SKF_AUTH_MAC], want[SKF_AUTH_MAC];
    if (!cmd || strcmp(cmd, "skiff_proof") != 0 || !m || skf_auth_unhex(m, got, SKF_AUTH_MAC) != 0)
        return refuse(t, slot, log, ctx, "expected 'cmd=skiff_proof mac=HEX' after the challenge");
    if (mac_for(t, p, LABEL_RANK, want) != 0 || !skf_auth_equal(got, want))
        return refuse(t, slot, log, ctx, "wrong job key (claimed rank %d)", p->rank);
    if (send_line(p->fd, "cmd=skiff_auth rc=0\n") != 0)
        return refuse(t, slot, log, ctx, "cannot confirm the authentication");
    *rank = p->rank;
    *fd = p->fd;
    p->fd = -1;
    return 1;
}

int pmi_tcp_step(pmi_tcp_t *t, int slot, int *rank, int *fd, int size,
                 void (*log)(void *, const char *), void *ctx)
{
    pmi_tcp_pending_t *p = &t->pend[slot];
    if (p->fd < 0)
        return -1;
    long got = pmi_linebuf_fill(&p->in, p->fd);
    if (got == -EAGAIN || got == -EWOULDBLOCK || got == -EINTR)
        return 0;
    if (got <= 0)
        return refuse(t, slot, log, ctx, got == 0 ? "closed before proving the job key"
                                                  : "read error before proving the job key");
    char line[PMI_WIRE_LINE_MAX];
    int rc;
    while ((rc = pmi_linebuf_next(&p->in, line, sizeof line)) != 0) {
        if (rc < 0)
            return refuse(t, slot, log, ctx, "over-long line before proving the job key");
        int r = on_line(t, slot, line, rank, fd, size, log, ctx);
        if (r != 0)
            return r;
    }
    return 0;
}
