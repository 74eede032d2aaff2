/*
 * comm_create.h — making and freeing communicators beyond WORLD and SELF:
 * context-id agreement, the small internal collectives it needs (over
 * device point-to-point on the parent's collective context), building intra-
 * and intercommunicators, and the per-communicator extension (groups,
 * attributes, topology, info, name).
 */
#ifndef SKIFF_MPI_COMM_CREATE_H
#define SKIFF_MPI_COMM_CREATE_H

#include "attr/attr.h"
#include "group/group.h"
#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

struct topo;

struct comm_ext {
    struct MPI_ABI_Group *group;  /* local group (NULL until asked, for WORLD/SELF) */
    struct MPI_ABI_Group *remote; /* intercommunicator: the remote group; else NULL */
    struct MPI_ABI_Comm *local;   /* intercommunicator: internal intracomm of the local group */
    attr_t *attrs;
    struct topo *topo;
    struct MPI_ABI_Info *info;
    int owns_world_of; /* world_of was allocated here */
    unsigned idup_seq; /* MPI_Comm_idup calls on this communicator so far */
    struct bsend_pool *bpool;        /* MPI_Comm_attach_buffer's (binding/bsend.c) */
    struct MPI_ABI_Session *session; /* created from a session's group, or NULL */
    char name[128];
};

/* The extension of c, created on first use (WORLD/SELF); NULL: no memory. */
struct comm_ext *comm_ext_get(struct MPI_ABI_Comm *c);
static inline int comm_is_inter(const struct MPI_ABI_Comm *c) { return c->ext && c->ext->remote; }

/* Participants of an internal collective: ranks of cc (members NULL: all). */
typedef struct ic_set {
    struct MPI_ABI_Comm *cc; /* usually a collective shadow context */
    const int *members;      /* rank in cc of participant i; NULL: identity */
    int n, me;               /* number of participants, my index */
    int tag;
} ic_set_t;
void ic_allgather(const ic_set_t *s, const void *in, size_t len, void *out);
void ic_bcast(const ic_set_t *s, int root, void *buf, size_t len);

/* Context ids: a mask of free pairs, agreed by AND over the participants. */
#define CTX_MASK_WORDS (MPIR_MAX_CTX / 2 / 64)
typedef struct ctx_mask {
    uint64_t w[CTX_MASK_WORDS];
} ctx_mask_t;
void ctx_local_mask(ctx_mask_t *m);
void ctx_and(ctx_mask_t *acc, const ctx_mask_t *m);
/* A nonblocking creation's round offers the free ids of one stripe (pair
 * index % nstripes == stripe) that nothing else here has offered or holds,
 * and nothing else here takes them until it gives them back. */
void ctx_offer(ctx_mask_t *m, int stripe, int nstripes);
void ctx_unoffer(const ctx_mask_t *m);
/* A blocking creation holds the mask it contributed while it agrees (so a
 * nonblocking round started meanwhile by progress cannot offer those ids);
 * ctx_unhold gives them back (no-op when nothing is held). */
void ctx_hold(const ctx_mask_t *m);
void ctx_unhold(void);
/* Lowest free context in m (even, p2p; +1 is its collective twin), or -1. */
int ctx_first(const ctx_mask_t *m, int skip_ctx);
void ctx_take(int ctx);
/* MPI_THREAD_MULTIPLE: blocking intracommunicator creations running in
 * several threads at once (docs/threads.md).  Each registers its key (the
 * parent's context id and the creation's tag: the same at every member); in a round only the creation with the lowest registered parent
 * offers this process's free ids (the others offer none, say so, and every
 * member repeats the round), so the globally lowest one always completes. */
void ctx_mt_register(long long parent);
void ctx_mt_unregister(long long parent);
/* My mask for this round: 1 if offered, 0 if deferred (m is empty). */
int ctx_mt_offer(long long parent, ctx_mask_t *m);
/* The round is over: take ctx (>= 0) and give the rest of m back. */
void ctx_mt_settle(long long parent, const ctx_mask_t *m, int ctx);
void ctx_put(int ctx);

/* Build a communicator on ctx (and its collective twin ctx+1).  world_of
 * (size entries) and the groups are taken over; eh is inherited. */
struct MPI_ABI_Comm *comm_build(int ctx, int rank, int size, int *world_of,
                                struct MPI_ABI_Group *group, struct MPI_ABI_Group *remote,
                                struct MPI_ABI_Errhandler *eh);
/* Release the extension of WORLD/SELF at MPI_Finalize (name: its own again). */
void comm_ext_drop(struct MPI_ABI_Comm *c, const char *name);
/* Topology and info of a communicator (binding/comm_mgmt.c). */
void mpir_comm_free_ext(struct MPI_ABI_Comm *c);
/* The same into a zeroed communicator object handed out earlier (idup). */
struct MPI_ABI_Comm *comm_build_into(struct MPI_ABI_Comm *into, int ctx, int rank, int size,
                                     int *world_of, struct MPI_ABI_Group *group,
                                     struct MPI_ABI_Group *remote, struct MPI_ABI_Errhandler *eh);
/* Free a communicator built here (attributes must be gone already). */
void comm_destroy(struct MPI_ABI_Comm *c);
/* MPI_Comm_free: the handle is invalid at once, but receives posted and
 * sends started on c still complete; c (and its context id) goes once no
 * request uses it any more (comm_reap_freed, called where a creation starts
 * and at the next free — never from inside progress). */
void comm_free_when_idle(struct MPI_ABI_Comm *c);
/* MPI_Comm_split of intracommunicator c for internal use (*newcomm NULL: none). */
int mpir_comm_split(struct MPI_ABI_Comm *c, int color, int key, struct MPI_ABI_Comm **newcomm);
/* A message arrived for a context nobody here has created yet (comm.c). */
struct MPI_ABI_Comm *comm_early_arrival(int ctx);

#pragma GCC visibility pop

#endif
