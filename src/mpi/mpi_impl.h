/*
 * mpi_impl.h — the MPI library's objects and how handles resolve to them.
 *
 * A user-visible handle is the address of one of these structs.  Predefined
 * handles are small integers (standard ABI values, all below MPIR_PREDEF_BOUND)
 * that index static tables; resolving any handle is one compare.  Each object
 * starts with a magic number so argument checks can reject foreign handles.
 */
#ifndef SKIFF_MPI_IMPL_H
#define SKIFF_MPI_IMPL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "mpi.h"
#include "skiff.h"

/* Everything internal is hidden: only MPI_* leave libmpi, and calls and data
 * inside the library bind directly (no PLT/GOT hop on the fast path). */
#pragma GCC visibility push(hidden)

#define MPIR_PREDEF_BOUND 0x400 /* every predefined handle value is below this */
#define MPIR_TAG_UB 0x7fffffff
#define MPIR_MAX_CTX 4096 /* context ids (pairs: p2p, collectives) */

enum mpir_magic {
    MAGIC_COMM = 0x6d6d6f43,
    MAGIC_COMM_PENDING = 0x646e6550, /* new communicator of an MPI_Comm_idup in flight */
    MAGIC_DTYPE = 0x65707954,
    MAGIC_DTYPE_NEW = 0x77656e54, /* derived type not yet committed */
    MAGIC_EH = 0x6e646c45,
    MAGIC_REQ = 0x74716552,
};

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* ---- error handlers ---------------------------------------------------- */
enum eh_kind { EH_FATAL, EH_RETURN, EH_ABORT, EH_USER };
struct MPI_ABI_Errhandler {
    uint32_t magic;
    int kind;
    MPI_Comm_errhandler_function *fn; /* EH_USER only */
    int refs;                         /* user objects: handle + communicators using it */
    int win;                          /* made by MPI_Win_create_errhandler */
    int fortran; /* fn is a Fortran subroutine: handle and code by MPI_Fint */
    int session;                      /* made by MPI_Session_create_errhandler */
};
extern struct MPI_ABI_Errhandler mpir_eh_predef[4]; /* indexed by value - 0x140 */

/* ---- datatypes ---------------------------------------------------------- */
/* A datatype says how its data maps onto iovec pieces; predefined ones are one
 * contiguous piece per buffer.  Derived types and the pair types carry their
 * layout in rep (datatype/dtype.h); contiguous == 0 sends them through it. */
struct dtype_rep;
struct MPI_ABI_Datatype {
    uint32_t magic;   /* MAGIC_DTYPE once committed (usable in communication) */
    uint64_t size;    /* bytes of data in one element        */
    int64_t extent;   /* stride between consecutive elements */
    int contiguous;   /* data of count elements is one piece starting at buf */
    const char *name; /* "MPI_INT"                           */
    struct dtype_rep *rep; /* layout, bounds, constructor (datatype/dtype.h) */
};
extern struct MPI_ABI_Datatype mpir_dtype_predef[256]; /* indexed by value - 0x200 */

static inline struct MPI_ABI_Datatype *dtype_of(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    return likely(v < MPIR_PREDEF_BOUND) ? &mpir_dtype_predef[v & 0xff]
                                         : (struct MPI_ABI_Datatype *)h;
}

/* ---- requests (defined by the device) ----------------------------------- */
typedef struct MPI_ABI_Request mpid_req_t;
typedef struct req_list {
    mpid_req_t *head, *tail;
} req_list_t;

/* ---- communicators ------------------------------------------------------ */
struct MPI_ABI_Comm {
    uint32_t magic;
    int ctx;             /* context id carried in every message header     */
    int rank, size;      /* my rank, number of ranks                       */
    int *world_of;       /* comm rank -> world rank; NULL: the identity    */
    struct MPI_ABI_Errhandler *eh;
    const char *name;
    /* matching queues, binned per source (device/match.c) */
    req_list_t *posted;  /* [size] receives posted for one source          */
    req_list_t posted_any; /* receives posted with MPI_ANY_SOURCE          */
    req_list_t *unexp;   /* [size] arrived, not yet matched, per source    */
    uint64_t post_seq;   /* order of posting, to arbitrate ANY_SOURCE       */
    uint64_t arrive_seq; /* order of arrival, for ANY_SOURCE receives      */
    long n_unexp;        /* messages in all unexp bins                     */
    struct MPI_ABI_Comm *coll; /* same group on context ctx+1, for collectives */
    struct comm_ext *ext;      /* groups, attributes, topology, info (comm_create.h) */
    struct coll_comm *coll_state; /* collectives' state (coll/coll.h), NULL until used */
};
extern struct MPI_ABI_Comm mpir_comm_predef[3]; /* NULL, WORLD, SELF (value - 0x100) */

static inline struct MPI_ABI_Comm *comm_of(MPI_Comm h)
{
    uintptr_t v = (uintptr_t)h;
    return likely(v < MPIR_PREDEF_BOUND) ? &mpir_comm_predef[v & 3] : (struct MPI_ABI_Comm *)h;
}
static inline int comm_world_rank(const struct MPI_ABI_Comm *c, int r)
{
    return c->world_of ? c->world_of[r] : r;
}
/* Communicator for a context id from a message header (NULL if unknown). */
struct MPI_ABI_Comm *comm_from_ctx(int ctx);
/* comm_create.c builds further communicators with these (comm.c). */
void comm_setup(struct MPI_ABI_Comm *c, int ctx, int rank, int size, int *world_of,
                const char *name);
void comm_teardown(struct MPI_ABI_Comm *c);
struct MPI_ABI_Comm **comm_ctx_slot(int ctx);
struct MPI_ABI_Comm *comm_early_arrival(int ctx); /* message for a comm not made here yet */
int mpir_attr_finalize(void); /* MPI_Finalize: delete SELF's, then WORLD's attributes */
/* Local group of c: for an intercommunicator size/world_of describe the
 * remote group (where point-to-point goes), these the local one. */
int mpir_comm_local_size(const struct MPI_ABI_Comm *c);
const int *mpir_comm_local_world(const struct MPI_ABI_Comm *c);
int comm_init_predefined(int world_rank, int world_size);
void comm_free_predefined(void);
/* Destroy the communicators MPI_Comm_free left for their pending operations
 * once none remains (force: all of them, at MPI_Finalize). */
void comm_reap_freed(int force);
/* Release what the collectives keep for c (coll/select.c). */
void coll_comm_free(struct MPI_ABI_Comm *c);

/* ---- library state ------------------------------------------------------ */
extern int mpir_initialized; /* 1 while the world model is on or a session is open */
extern int mpir_finalized;
/* Sessions (binding/session.c) share the device with the world model
 * (binding/env.c): up at the first of MPI_Init / MPI_Session_init, down when
 * neither uses it any more. */
extern int mpir_sessions;
int mpir_device_up(const char *fn);
void mpir_device_release(void);

/* ---- errors (errors.c) -------------------------------------------------- */
/* Report an error of class cls on communicator c (NULL: MPI_COMM_WORLD's
 * handler): format "MPI_Send: invalid rank 7 (communicator size 4)", then
 * fatal handlers print it with the rank and end the job; otherwise the user
 * handler runs and the class is returned. */
int mpir_error(struct MPI_ABI_Comm *c, int cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same for any object: eh its handler (NULL: fatal), handle what a user
 * handler receives the address of. */
int mpir_report(struct MPI_ABI_Errhandler *eh, void *handle, int cls, const char *fmt,
                va_list ap);
/* An internal failure nobody can recover from: print and end the job. */
void mpir_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
const char *mpir_class_string(int cls);
/* My rank in MPI_COMM_WORLD; before MPI_Init has made it, the launcher's
 * PMI_RANK (or PMI_ID); -1 when nothing tells (a singleton before MPI_Init). */
int mpir_world_rank(void);
/* One line on stderr: "skiff MPI: rank R: msg" ("skiff MPI: msg" when the
 * rank is unknown), flushed at once. */
void mpir_say(const char *msg);
void mpir_eh_release(struct MPI_ABI_Errhandler *eh);
/* Resolve an error handler handle (MPI_ERR_ARG, reported, if invalid). */
int mpir_eh_check(const char *fn, MPI_Errhandler h, struct MPI_ABI_Errhandler **out);
/* Error classes and codes added by the application (binding/error_class.c):
 * 1 and the class / the string ("" if none) when code is one of them. */
int mpir_user_error_class(int code, int *cls);
int mpir_user_error_string(int code, char *string, int *resultlen);
int mpir_lastusedcode(void); /* the MPI_LASTUSEDCODE attribute */
void mpir_bsend_release(void *block);
/* Buffered-send buffers (binding/bsend.c): one for the process, one per
 * communicator and per session that attached one. */
struct bsend_pool;
void mpir_bsend_pool_free(struct bsend_pool *p); /* waits for its messages first */
/* Sessions (binding/session.c): check a handle (reported on failure), the
 * slot of its buffered-send buffer, report an error to its handler. */
struct MPI_ABI_Session;
int mpir_session_check(const char *fn, MPI_Session h, struct MPI_ABI_Session **out);
struct bsend_pool **mpir_session_bpool(struct MPI_ABI_Session *s);
int mpir_session_error(struct MPI_ABI_Session *s, int cls, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#pragma GCC visibility pop

#endif /* SKIFF_MPI_IMPL_H */
