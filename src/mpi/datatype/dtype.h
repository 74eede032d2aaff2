/*
 * dtype.h — the derived-datatype engine.
 *
 * Every datatype object (predefined or derived) has a dtype_rep with three
 * views of the same type:
 *   - bounds and sizes (lb/ub, true bounds, size, alignment), per the standard;
 *   - the flattened layout used to move data: a list of contiguous runs
 *     (offset, length) of one pattern in type-map order, adjacent runs
 *     coalesced, and the pattern repeated `reps` times `rep_stride` bytes
 *     apart.  A vector of a basic type is one run however long it is; a type
 *     whose data is one piece is one run;
 *   - the constructor and its arguments (get_envelope/get_contents), which
 *     also drive the slow type-map walk used by external32 and Get_elements.
 * Types hold references to the types they were built from, so freeing a
 * handle never breaks a type built on it.
 */
#ifndef SKIFF_MPI_DTYPE_H
#define SKIFF_MPI_DTYPE_H

#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

typedef struct dt_run {
    int64_t off; /* from the element's origin (buf + i * extent) */
    int64_t len;
} dt_run_t;

struct dtype_rep {
    int refs;       /* user handle + types built on it + operations in flight */
    int predefined; /* lives in the static table, never freed */
    int combiner;   /* MPI_COMBINER_* */
    int ni, na, nd; /* constructor arguments, as get_contents returns them */
    int64_t *ints;  /* the integer arguments, widened (int and _c constructors alike) */
    int large;      /* built by a large-count (_c) constructor: get_envelope_c's split */
    MPI_Aint *aints;
    struct MPI_ABI_Datatype **types;
    struct MPI_ABI_Datatype *inner; /* subarray/darray: the same layout built from simpler types */
    /* bounds of one element (bytes from its origin) */
    int64_t lb, ub, true_lb, true_ub;
    int explicit_bounds; /* from Type_create_resized: a struct does not pad it */
    int align;           /* largest alignment of a basic type inside */
    /* signature */
    int64_t nbasic;     /* basic elements in one element */
    int64_t basic_size; /* their size when all are equal, else 0 */
    /* flattened layout */
    int64_t nruns, reps, rep_stride;
    dt_run_t *runs;
    /* predefined pair types (MPI_DOUBLE_INT, ...): their two fields */
    struct MPI_ABI_Datatype *field[2];
    int64_t field_off[2];
    void *attrs; /* attribute list (attr/attr.h) */
    char name[128];
};

/* Resolve a handle to its object without checks (callers checked it). */
static inline struct MPI_ABI_Datatype *dt_obj(MPI_Datatype h) { return dtype_of(h); }

/* Look up a datatype handle for a datatype call: committed or not, not NULL. */
int dt_check(const char *fn, MPI_Datatype h, struct MPI_ABI_Datatype **out);

/* Build a derived type from a constructor and its arguments (standard
 * get_contents order).  Returns NULL with *err set on failure (no memory). */
struct MPI_ABI_Datatype *dt_create(int combiner, int ni, const int64_t *ints, int na,
                                   const MPI_Aint *aints, int nd,
                                   struct MPI_ABI_Datatype *const *types, int *err);
struct MPI_ABI_Datatype *dt_create_subarray(int ndims, const int64_t *sizes,
                                            const int64_t *subsizes, const int64_t *starts,
                                            int order,
                                            struct MPI_ABI_Datatype *old, int *err);
struct MPI_ABI_Datatype *dt_create_darray(int size, int rank, int ndims, const int64_t *gsizes,
                                          const int *distribs, const int *dargs,
                                          const int *psizes, int order,
                                          struct MPI_ABI_Datatype *old, int *err);
void dt_retain(struct MPI_ABI_Datatype *d);
void dt_release(struct MPI_ABI_Datatype *d);
static inline int dt_is_derived(const struct MPI_ABI_Datatype *d) { return !d->rep->predefined; }

/* Copy the data bytes of count elements of d from src to dst, both laid out
 * as d (the bytes between the pieces are left alone). */
void dt_move(const struct MPI_ABI_Datatype *d, void *dst, const void *src, int64_t count);
/* Move data between count elements of d at buf and a packed byte stream,
 * starting `skip` bytes into the stream, at most len bytes; returns the bytes
 * moved.  unpack = 0: typed buffer -> stream; 1: stream -> typed buffer.
 * buf may be MPI_BOTTOM (absolute addresses). */
size_t dt_copy(const struct MPI_ABI_Datatype *d, const void *buf, int64_t count, size_t skip,
               void *stream, size_t len, int unpack);
/* Bytes of count elements in packed form. */
static inline size_t dt_packed_size(const struct MPI_ABI_Datatype *d, int64_t count)
{
    return (size_t)count * d->size;
}

/* Basic elements in the first `bytes` bytes of a packed stream of d. */
int64_t dt_elements(const struct MPI_ABI_Datatype *d, int64_t bytes);
/* Bytes of the first n basic elements (MPI_Status_set_elements). */
int64_t dt_bytes_of_elements(const struct MPI_ABI_Datatype *d, int64_t n);

/* external32 (big-endian, standard sizes).  Return MPI_SUCCESS or an error class. */
int64_t dt_external32_size(const struct MPI_ABI_Datatype *d);
int dt_pack_external(const struct MPI_ABI_Datatype *d, const void *buf, int64_t count, char *out,
                     size_t room, size_t *pos);
int dt_unpack_external(const struct MPI_ABI_Datatype *d, void *buf, int64_t count, const char *in,
                       size_t avail, size_t *pos);

/* Type-map walk: fn(ctx, offset, basic type) for every basic element in order;
 * a non-zero return stops the walk and is returned. */
typedef int (*dt_leaf_fn)(void *ctx, int64_t off, const struct MPI_ABI_Datatype *basic);
int dt_walk(const struct MPI_ABI_Datatype *d, int64_t base, dt_leaf_fn fn, void *ctx);

/* Point-to-point with non-contiguous types (datatype/p2p.c): pack into a
 * bounce buffer / receive into one and unpack at completion.  The typed
 * isend/irecv also take contiguous types (then they are the device calls).
 * fn names the MPI call in error messages. */
struct MPI_ABI_Comm;
struct MPI_ABI_Request;
int mpir_dt_send(const char *fn, const void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                 int dest, int tag, struct MPI_ABI_Comm *c, int mode);
struct MPI_ABI_Request *mpir_dt_isend(const void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                                      int dest, int tag, struct MPI_ABI_Comm *c, int mode);
int mpir_dt_recv(const char *fn, void *buf, MPI_Count count, struct MPI_ABI_Datatype *d, int src,
                 int tag, struct MPI_ABI_Comm *c, MPI_Status *st);
struct MPI_ABI_Request *mpir_dt_irecv(void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                                      int src, int tag, struct MPI_ABI_Comm *c);
/* Attach a probed message to a typed buffer (Mrecv/Imrecv). */
void mpir_dt_attach(struct MPI_ABI_Request *u, void *buf, MPI_Count count,
                    struct MPI_ABI_Datatype *d);
int mpir_dt_bsend(const char *fn, const void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                  int dest, int tag, struct MPI_ABI_Comm *c, struct MPI_ABI_Request **out);
int mpir_dt_sendrecv(const char *fn, const void *sbuf, MPI_Count scount,
                     struct MPI_ABI_Datatype *sd, int dest, int stag, void *rbuf, MPI_Count rcount,
                     struct MPI_ABI_Datatype *rd, int src, int rtag, struct MPI_ABI_Comm *c,
                     MPI_Status *status);
int mpir_dt_sendrecv_replace(const char *fn, void *buf, MPI_Count count, struct MPI_ABI_Datatype *d,
                             int dest, int stag, int src, int rtag, struct MPI_ABI_Comm *c,
                             MPI_Status *status);
/* Persistent requests with a non-contiguous type. */
void mpir_dt_persist(struct MPI_ABI_Request *r, const void *buf, MPI_Count count,
                     struct MPI_ABI_Datatype *d);
int mpir_dt_start(const char *fn, struct MPI_ABI_Request *r, struct MPI_ABI_Request **op);
/* Attributes of datatypes (attr/attr.c): copied by Type_dup, deleted by Type_free. */
int mpir_attr_type_copy(struct MPI_ABI_Datatype *from, struct MPI_ABI_Datatype *to);
int mpir_attr_type_free(struct MPI_ABI_Datatype *d);
/* Rendezvous into a typed receive: get the n message bytes straight into the
 * user's layout when its pieces are large (SKIFF_MPI_DTYPE_PULL_MIN, 4K); returns
 * 0 when done, a negative errno on failure, 1 to take the bounce path. */
int mpir_dt_pull(struct MPI_ABI_Request *r, size_t n);
/* Eager bytes [at, at+n) of a typed receive arrived in the ring pieces at
 * offset off: unpack them straight into the user's layout (1) or leave them
 * to the bounce buffer (0: only a message delivered from its start goes direct). */
int mpir_dt_deliver(struct MPI_ABI_Request *r, const struct iovec *cont, int ncont, size_t off,
                    size_t at, size_t n);
/* Eager sends of a derived type with at most this many pieces, each large
 * enough (SKIFF_MPI_DTYPE_IOV_MIN), go to the channel as an iovec of the
 * pieces themselves instead of being packed first. */
#define MPIR_DT_IOV_MAX 32
/* Fill iov with r's payload from stream offset off on: the type's pieces (at
 * most MPIR_DT_IOV_MAX), or the rest of its packed copy; returns how many. */
int mpir_dt_iov(struct MPI_ABI_Request *r, size_t off, struct iovec *iov);
/* A send packed chunk by chunk straight into the ring: the chunk starting at
 * stream offset off (0: r sends its pieces, mpir_dt_iov), then its packer
 * for skf_send_pack (req = r). */
size_t mpir_dt_chunk(struct MPI_ABI_Request *r, size_t off);
void mpir_dt_pack_chunk(void *req, size_t off, void *dst, size_t n);
/* What a request's ->dtp holds: typed data, or a nonblocking MPI_Comm_idup
 * (binding/comm_mgmt.c) whose communicator is built when the request completes. */
enum { DTP_TYPED = 0x7470, DTP_IDUP = 0x6964, DTP_PCOLL = 0x7063, DTP_PART = 0x7061 };
void mpir_idup_complete(struct MPI_ABI_Request *r);
void mpir_idup_forget(struct MPI_ABI_Request *r);
/* ... or a persistent collective's saved call (binding/coll_persistent.c):
 * start one round (*op: its request), release the saved call. */
int pcoll_start(struct MPI_ABI_Request *r, struct MPI_ABI_Request **op);
void pcoll_forget(struct MPI_ABI_Request *r);
/* ... or a partitioned request's state (binding/partitioned.c). */
int part_start(struct MPI_ABI_Request *r, struct MPI_ABI_Request **op);
void part_forget(struct MPI_ABI_Request *r);
/* Device hooks: a request with ->dtp completes (unpack) / is released. */
void mpir_dt_complete(struct MPI_ABI_Request *r);
void mpir_dt_forget(struct MPI_ABI_Request *r);

#pragma GCC visibility pop

#endif
