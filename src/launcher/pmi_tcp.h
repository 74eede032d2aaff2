/*
 * pmi_tcp — the launcher's PMI service for remote ranks: a TCP listener
 * (PMI_PORT=addr:port) and the job-key check every connection must pass
 * before its lines reach the PMI server.
 *
 * Before any PMI line, a connecting rank and the launcher prove to each other
 * that they hold the job key (HMAC-SHA256 challenge-response, see
 * src/transports/tcp/auth.h):
 *   rank:     cmd=skiff_hello rank=R nonce=<32 hex>
 *   launcher: cmd=skiff_challenge nonce=<32 hex> mac=<64 hex>
 *   rank:     cmd=skiff_proof mac=<64 hex>
 *   launcher: cmd=skiff_auth rc=0
 * Anything else (a stranger, a wrong key, a replayed proof, garbage) closes
 * the connection; the job goes on.  The first PMI_TCP_REFUSALS_SHOWN drops
 * get one line each on stderr; after that a flood is counted, with a line at
 * 100, 1000, 10000... drops and a last count when the job ends
 * (pmi_tcp_summary).
 */
#ifndef SKIFF_LAUNCHER_PMI_TCP_H
#define SKIFF_LAUNCHER_PMI_TCP_H

#include <stdint.h>

#include "pmi_wire.h"
#include "transports/tcp/auth.h"

#define PMI_TCP_PENDING_MAX 64 /* connections still proving themselves */
#define PMI_TCP_REFUSALS_SHOWN 5

typedef struct pmi_tcp_pending {
    int fd; /* -1: free slot */
    int state;
    int rank;
    uint64_t seq; /* age, to evict the oldest when every slot is taken */
    uint8_t nonce_rank[SKF_AUTH_NONCE], nonce_launcher[SKF_AUTH_NONCE];
    pmi_linebuf_t in;
} pmi_tcp_pending_t;

typedef struct pmi_tcp {
    int lfd;
    char port_env[96]; /* "addr:port" handed to ranks as PMI_PORT */
    const char *key;
    uint64_t next_seq;
    pmi_tcp_pending_t pend[PMI_TCP_PENDING_MAX];
    unsigned long refused;       /* connections dropped                   */
    unsigned long refused_said;  /* ... of which the lines so far told    */
    char last_refusal[400];      /* the latest, for the counting lines     */
} pmi_tcp_t;

/* Listen on addr (numeric; NULL: every address, and tell ranks the first
 * non-loopback IPv4 address of this host).  0, or -1 after one line. */
int pmi_tcp_open(pmi_tcp_t *t, const char *addr, const char *key);
void pmi_tcp_close(pmi_tcp_t *t);

/* The listener is readable: accept one connection.  Returns its slot (the
 * caller watches pend[slot].fd), or -1 when nothing was accepted. */
int pmi_tcp_accept(pmi_tcp_t *t, void (*log)(void *, const char *), void *ctx);
/* pend[slot].fd is readable: advance its handshake.  Returns 0 while it goes
 * on, -1 when the connection was dropped (closed; logged), or 1 when the
 * rank proved the key: *rank and *fd are set and the slot is free again. */
int pmi_tcp_step(pmi_tcp_t *t, int slot, int *rank, int *fd, int size,
                 void (*log)(void *, const char *), void *ctx);
/* At the end of the job: one line with the drops not told yet, if any. */
void pmi_tcp_summary(pmi_tcp_t *t, void (*log)(void *, const char *), void *ctx);

#endif
