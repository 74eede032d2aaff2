/*
 * check.h — argument checks shared by the entry points.
 *
 * Each check returns 0 or the error class after reporting it through the
 * communicator's error handler with a message naming the call and the values,
 * e.g. "MPI_Send: invalid rank 7 (communicator size 4)".  The common case
 * (valid arguments) costs a few compares and no calls.
 */
#ifndef SKIFF_MPI_CHECK_H
#define SKIFF_MPI_CHECK_H

#include "datatype/dtype.h"
#include "device/device.h"
#include "mpit_events.h"

/* Also the point where queued MPI_T event instances reach their callbacks
 * (mpit_events.h): the start of an MPI call, a context without restrictions. */
#define CHECK_INIT(fn)                                                                    \
    do {                                                                                  \
        if (unlikely(!mpir_initialized))                                                  \
            return mpir_error(NULL, MPI_ERR_OTHER, "%s: called %s", fn,                   \
                              mpir_finalized ? "after MPI_Finalize" : "before MPI_Init"); \
        mpir_t_events_poll();                                                             \
    } while (0)

static inline int check_comm(const char *fn, MPI_Comm h, struct MPI_ABI_Comm **out)
{
    uintptr_t v = (uintptr_t)h;
    if (likely(v - 0x101 < 2)) {
        *out = &mpir_comm_predef[v & 3];
        return 0;
    }
    if (v >= MPIR_PREDEF_BOUND && ((struct MPI_ABI_Comm *)h)->magic == MAGIC_COMM) {
        *out = (struct MPI_ABI_Comm *)h;
        return 0;
    }
    *out = &mpir_comm_predef[1]; /* keeps callers' compilers calm; they return rc */
    return mpir_error(NULL, MPI_ERR_COMM, "%s: invalid communicator %s", fn,
                      v == 0x100 ? "MPI_COMM_NULL" : "(not a communicator handle)");
}

/* Setters (error handler, name, attributes) also take the new communicator
 * of an MPI_Comm_idup still in flight: stored, applied when it completes. */
static inline int check_comm_settable(const char *fn, MPI_Comm h, struct MPI_ABI_Comm **out)
{
    if ((uintptr_t)h >= MPIR_PREDEF_BOUND && ((struct MPI_ABI_Comm *)h)->magic == MAGIC_COMM_PENDING) {
        *out = (struct MPI_ABI_Comm *)h;
        return 0;
    }
    return check_comm(fn, h, out);
}

static inline int check_dtype(const char *fn, struct MPI_ABI_Comm *c, MPI_Datatype h,
                              struct MPI_ABI_Datatype **out)
{
    uintptr_t v = (uintptr_t)h;
    struct MPI_ABI_Datatype *d = NULL;
    if (likely(v - 0x200 < 0x100))
        d = &mpir_dtype_predef[v & 0xff];
    else if (v >= MPIR_PREDEF_BOUND)
        d = (struct MPI_ABI_Datatype *)h;
    if (likely(d && d->magic == MAGIC_DTYPE)) {
        *out = d;
        return 0;
    }
    *out = &mpir_dtype_predef[0x47];
    if (d && d->magic == MAGIC_DTYPE_NEW)
        return mpir_error(c, MPI_ERR_TYPE, "%s: datatype not committed (MPI_Type_commit)", fn);
    return mpir_error(c, MPI_ERR_TYPE, "%s: invalid datatype %s", fn,
                      v == 0x200 ? "MPI_DATATYPE_NULL" : "(not a datatype handle)");
}

/* MPI_Aint and MPI_Count are one type here (LP64), so an _c form whose
 * MPI_Aint output became an MPI_Count shares the int form's body. */
_Static_assert(_Generic((MPI_Aint *)0, MPI_Count *: 1, default: 0),
               "MPI_Aint and MPI_Count must be the same type");

/* Counts are MPI_Count inside: the int forms and the large-count (_c) forms
 * of a call share one body, an int widening for free. */
static inline int check_count(const char *fn, struct MPI_ABI_Comm *c, MPI_Count count)
{
    if (likely(count >= 0))
        return 0;
    return mpir_error(c, MPI_ERR_COUNT, "%s: invalid count %lld (must be >= 0)", fn,
                      (long long)count);
}

static inline int check_buf(const char *fn, struct MPI_ABI_Comm *c, const void *buf,
                            MPI_Count count)
{
    if (likely(buf || count == 0))
        return 0;
    return mpir_error(c, MPI_ERR_BUFFER, "%s: NULL buffer with count %lld", fn,
                      (long long)count);
}

/* rank: a peer in c, MPI_PROC_NULL, or (receives) MPI_ANY_SOURCE */
static inline int check_rank(const char *fn, struct MPI_ABI_Comm *c, int rank, int any_ok)
{
    if (likely((unsigned)rank < (unsigned)c->size) || rank == MPI_PROC_NULL ||
        (any_ok && rank == MPI_ANY_SOURCE))
        return 0;
    return mpir_error(c, MPI_ERR_RANK, "%s: invalid rank %d (communicator size %d)", fn, rank,
                      c->size);
}

static inline int check_tag(const char *fn, struct MPI_ABI_Comm *c, int tag, int any_ok)
{
    if (likely(tag >= 0) || (any_ok && tag == MPI_ANY_TAG))
        return 0;
    return mpir_error(c, MPI_ERR_TAG, "%s: invalid tag %d (valid: 0..%d%s)", fn, tag, MPIR_TAG_UB,
                      any_ok ? " or MPI_ANY_TAG" : "");
}

static inline int check_req_ptr(const char *fn, struct MPI_ABI_Comm *c, const void *p)
{
    if (likely(p != NULL))
        return 0;
    return mpir_error(c, MPI_ERR_ARG, "%s: NULL request pointer", fn);
}

static inline size_t dtype_bytes(const struct MPI_ABI_Datatype *d, MPI_Count count)
{
    return (size_t)count * (size_t)d->extent;
}

/* The common checks of a send (any_ok = 0) or a receive (any_ok = 1). */
static inline __attribute__((always_inline)) int check_p2p(const char *fn, const void *buf,
                                                           MPI_Count count, MPI_Datatype dt,
                                                           int peer, int tag, MPI_Comm comm,
                                                           int any_ok, struct MPI_ABI_Comm **c,
                                                           size_t *bytes)
{
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_comm(fn, comm, c)) || (rc = check_count(fn, *c, count)) ||
        (rc = check_dtype(fn, *c, dt, &d)) ||
        (!buf && !dt_is_derived(d) && (rc = check_buf(fn, *c, buf, count))) ||
        (rc = check_rank(fn, *c, peer, any_ok)) || (rc = check_tag(fn, *c, tag, any_ok)))
        return rc;
    *bytes = dtype_bytes(d, count);
    return 0;
}

/* A request that is already complete, for operations on MPI_PROC_NULL. */
static inline mpid_req_t *req_proc_null(void)
{
    mpid_req_t *r = req_alloc(REQ_DONE);
    r->st_source = MPI_PROC_NULL;
    r->st_tag = MPI_ANY_TAG;
    r->done = 1;
    return r;
}

static inline void status_proc_null(MPI_Status *st)
{
    mpid_status_empty(st);
    if (st)
        st->MPI_SOURCE = MPI_PROC_NULL;
}

#pragma GCC visibility push(hidden)
/* Report a failed point-to-point operation with rank src: a truncated receive
 * (with both sizes), or a process of another job that has ended. */
int mpir_recv_error(const char *fn, struct MPI_ABI_Comm *c, int err, int src, int tag,
                    size_t sent, size_t cap);
/* Start a buffered send (bsend.c); the returned request is already complete. */
int mpir_bsend_start(const char *fn, const void *buf, size_t bytes, int dest, int tag,
                     struct MPI_ABI_Comm *c, mpid_req_t **out);
#pragma GCC visibility pop

#endif
