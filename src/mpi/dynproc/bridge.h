/*
 * bridge.h — point-to-point between processes of different jobs (dynamic
 * processes: spawned children, ports, MPI_Comm_join).
 *
 * A job's own ranks talk over the Skiff channel (shm, tcp), which is opened
 * collectively at start-up for a fixed set of ranks.  Processes that meet
 * later are "bridge peers": the device numbers them after its own world ranks
 * (world index mpid.size + i) and carries their messages as whole frames over
 * TCP sockets, one connection per direction (so order per sender holds).
 * Each process that takes part listens on one socket; its endpoint string
 * "ip:port:jobkey:rank:bootid" names it to others.  Two processes on one
 * machine carry their messages over shared-memory rings instead (pair.h),
 * the sockets staying for liveness and wake-ups.
 */
#ifndef SKIFF_MPI_DYNPROC_BRIDGE_H
#define SKIFF_MPI_DYNPROC_BRIDGE_H

#include <sys/types.h>
#include <sys/uio.h>

#pragma GCC visibility push(hidden)

#define DYN_EP_LEN 160 /* an endpoint string with its NUL, fixed size on the wire */

extern int dyn_active; /* the bridge is up: progress and idle poll it */
extern int dyn_wakes;  /* bridge traffic wakes an idle channel wait (skf_kick) */
extern int dyn_backlog; /* bytes wait for a socket to take them: idle waits stay short */
extern int dyn_rings;   /* shared-memory rings from processes of other jobs (pair.h) */

/* Start listening (idempotent).  0 or an MPI error class (printed). */
int dyn_start(void);
/* My endpoint string (after dyn_start). */
const char *dyn_endpoint(void);
/* Device world index of the process named by endpoint: my own job's rank,
 * or a bridge peer (added on first sight).  -1: malformed or no memory. */
int dyn_peer(const char *endpoint);
/* Queue one whole message to a bridge peer; returns its length. */
ssize_t dyn_send(int world, const struct iovec *iov, int iovcnt);
/* Next complete message from a bridge peer (one piece), -EAGAIN if none. */
ssize_t dyn_recv(struct iovec *cont, int *ncont, int *world);
void dyn_recv_done(void);
/* An idle wait is about to sleep (dyn_rings): 1 when a ring has a message
 * (do not sleep); else the senders will wake it.  After the sleep: end. */
int dyn_idle_begin(void);
void dyn_idle_end(void);
/* Accept connections, read and write sockets; wait up to timeout_ms. */
void dyn_poll(int timeout_ms);
/* Connect to a bridge peer now (a join does, both ways, so that the end of
 * either process shows at the other as the end of a connection); fatal: the
 * joining group's handler ends the job when the peer is gone already. */
void dyn_connect(int world, int fatal);
/* NULL, or why the bridge peer world ended without a goodbye. */
const char *dyn_gone(int world);
/* A launcher this process started for MPI_Comm_spawn, whose processes are
 * worlds[n]: its end is watched (a failure loses them all: the job ends
 * unless they are reached only through communicators returning errors) and
 * waited for at MPI_Finalize. */
void dyn_watch_launcher(pid_t pid, const int *worlds, int n);
/* Flush, say goodbye to every peer, wait for spawned jobs, close. */
void dyn_finalize(void);

#pragma GCC visibility pop

#endif
