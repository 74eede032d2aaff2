/*
 * pmi_server — the launcher's side of the simple PMI-1 wire protocol.
 *
 * One connection per rank, each a small state machine over a stream fd: the
 * server only reads lines from the fd and writes one-line replies to it, so it
 * does not care how the connection was made (an inherited socketpair today,
 * a TCP connection through PMI_PORT later).  The caller owns the event loop:
 * it calls pmi_server_serve() when a connection's fd is readable and
 * pmi_server_detach() once serve() says the connection has ended.
 *
 * Served commands (docs/launcher.md lists the exact replies): init, get_maxes,
 * get_appnum, get_universe_size, get_my_kvsname, put, get, barrier_in,
 * finalize, abort.  Keys and values are opaque words, stored as received
 * (the client escapes them) and bounded by PMI_KEY_MAX / PMI_VAL_MAX.
 */
#ifndef SKIFF_LAUNCHER_PMI_SERVER_H
#define SKIFF_LAUNCHER_PMI_SERVER_H

#include <stddef.h>

#include "kvs.h"
#include "pmi_wire.h"

#define PMI_KVSNAME_MAX 256 /* kvsname_max announced by get_maxes            */
#define PMI_KEY_MAX 64      /* keylen_max: a key has at most 63 bytes        */
#define PMI_VAL_MAX 1024    /* vallen_max: a value has at most 1023 bytes    */
#define PMI_ERRORS_SHOWN 10 /* protocol errors printed per rank, then quiet */

typedef struct pmi_conn {
    int fd;          /* -1 once detached                                   */
    int rank;
    int initialized; /* sent cmd=init                                      */
    int in_barrier;  /* sent barrier_in, waiting for barrier_out          */
    int finalized;   /* sent cmd=finalize                                  */
    int aborted;     /* sent cmd=abort: nothing more is served             */
    int gone;        /* connection ended (EOF, error, or detached)         */
    int nerrors;     /* protocol errors so far (for the print limit)       */
    pmi_linebuf_t in;
} pmi_conn_t;

/* What the server asks of the job.  Nothing is served once the job has ended
 * (job_ended); before that, several ranks may abort. */
typedef struct pmi_server_ops {
    /* A rank sent cmd=abort.  msg is printable (unescaped, control bytes
     * replaced) or NULL when the rank gave none. */
    void (*abort)(void *ctx, int rank, int exitcode, const char *msg);
    /* Ranks wait in a barrier that `gone_rank` can no longer join. */
    void (*barrier_broken)(void *ctx, int gone_rank, int nwaiting);
    /* Print one line (no '\n') about a rank's protocol error. */
    void (*log)(void *ctx, const char *line);
} pmi_server_ops_t;

typedef struct pmi_server {
    int size;
    int universe_size; /* answered to get_universe_size (0: size) */
    char kvsname[PMI_KVSNAME_MAX];
    kvs_t kvs;
    pmi_conn_t *conns;        /* [size], indexed by rank                  */
    int nin_barrier;          /* connections waiting in the barrier        */
    int ngone_outside_barrier;/* ended connections that cannot join it     */
    int job_ended;            /* an ops callback fired: serve nothing more */
    const pmi_server_ops_t *ops;
    void *ctx;
} pmi_server_t;

/* One block of PMI_process_mapping: `num_nodes` consecutive nodes starting at
 * `first_node`, each with `ranks_per_node` consecutive ranks. */
typedef struct pmi_map_block {
    int first_node, num_nodes, ranks_per_node;
} pmi_map_block_t;

/* Format "(vector,(0,1,4))"-style text into out[cap].  Returns its length or
 * -1 if it does not fit. */
int pmi_mapping_format(const pmi_map_block_t *blocks, int nblocks, char *out, size_t cap);

/* Set up a server for `size` ranks.  The mapping text is published under the
 * reserved key PMI_process_mapping.  Returns 0, or -1 (out of memory, or a
 * kvsname/mapping too long). */
int pmi_server_init(pmi_server_t *s, int size, const char *kvsname, const char *process_mapping,
                    const pmi_server_ops_t *ops, void *ctx);
void pmi_server_destroy(pmi_server_t *s);

/* Give rank its connection; the server owns fd from now on. */
void pmi_server_attach(pmi_server_t *s, int rank, int fd);
/* Read once from rank's connection and answer every complete line.  Returns 1
 * while the connection stays usable, 0 when it has ended (EOF, read error, or
 * the server gave up on it): then remove the fd from the poller and call
 * pmi_server_detach(). */
int pmi_server_serve(pmi_server_t *s, int rank);
/* Close rank's connection (idempotent).  A barrier that this rank can no
 * longer join is reported through ops->barrier_broken. */
void pmi_server_detach(pmi_server_t *s, int rank);

#endif /* SKIFF_LAUNCHER_PMI_SERVER_H */
