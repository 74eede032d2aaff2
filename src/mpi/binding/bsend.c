/*
 * bsend.c — buffered mode: MPI_Bsend, MPI_Ibsend and the buffers they copy
 * into: the process's (MPI_Buffer_attach/detach/flush/iflush), a
 * communicator's (MPI_Comm_attach_buffer ...) and a session's
 * (MPI_Session_attach_buffer ...), MPI 4.1.  A buffered send takes its
 * communicator's buffer if one is attached, else the buffer of the session
 * the communicator was created from (MPI_Comm_create_from_group on a group of
 * MPI_Group_from_session_pset, and communicators duplicated or split from it),
 * else the process's.
 *
 * A buffer is a pool.  A user's buffer is carved first-fit into blocks kept
 * in address order; MPI_BUFFER_AUTOMATIC pools malloc each block.  Each block
 * holds a small header (within MPI_BSEND_OVERHEAD) naming its pool and a copy
 * of the user's data, and is sent by a standard send that frees the block
 * when it completes.  The user's operation is complete as soon as the copy is
 * made.  Flushing waits until the pool has no block left; an iflush request
 * is completed by the release of the pool's last block.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"
#include "comm_create.h"

struct bsend_pool {
    int attached, automatic;
    void *base;       /* as attached, returned by detach */
    MPI_Count size;
    char *bbuf;       /* user buffer: 16-byte aligned start and usable size */
    size_t bsize;
    struct block *blocks;     /* in flight (user buffer: ascending addresses) */
    mpid_req_t *flush_waiters; /* iflush requests, linked through next */
};

typedef struct block {
    struct block *next;
    size_t size; /* whole block, header included */
    struct bsend_pool *pool;
} block_t;

#define ALIGN(n) (((n) + 15) & ~(size_t)15)
#define HDR ALIGN(sizeof(block_t))
_Static_assert(HDR <= MPI_BSEND_OVERHEAD, "block header must fit MPI_BSEND_OVERHEAD");

static struct bsend_pool process_pool;

static void *block_alloc(struct bsend_pool *p, size_t n)
{
    size_t need = HDR + ALIGN(n);
    if (p->automatic) {
        block_t *nb = malloc(need);
        if (!nb)
            return NULL;
        *nb = (block_t){p->blocks, need, p};
        p->blocks = nb;
        return (char *)nb + HDR;
    }
    char *at = p->bbuf;
    block_t **link = &p->blocks;
    for (block_t *b = p->blocks; b; link = &b->next, b = b->next) {
        if ((size_t)((char *)b - at) >= need)
            break;
        at = (char *)b + b->size;
    }
    if (!p->bbuf || (size_t)(p->bbuf + p->bsize - at) < need)
        return NULL;
    block_t *nb = (block_t *)at;
    *nb = (block_t){*link, need, p};
    *link = nb;
    return at + HDR;
}

void mpir_bsend_release(void *data)
{
    block_t *target = (block_t *)((char *)data - HDR);
    struct bsend_pool *p = target->pool;
    for (block_t **link = &p->blocks; *link; link = &(*link)->next)
        if (*link == target) {
            *link = target->next;
            break;
        }
    if (p->automatic)
        free(target);
    while (!p->blocks && p->flush_waiters) { /* the pool is empty: iflushes are done */
        mpid_req_t *r = p->flush_waiters;
        p->flush_waiters = r->next;
        r->next = NULL;
        req_complete(r);
    }
}

/* The pool a buffered send on c copies into (NULL: none attached anywhere). */
static struct bsend_pool *pool_for(struct MPI_ABI_Comm *c)
{
    if (c->ext && c->ext->bpool && c->ext->bpool->attached)
        return c->ext->bpool;
    if (c->ext && c->ext->session) {
        struct bsend_pool *sp = *mpir_session_bpool(c->ext->session);
        if (sp && sp->attached)
            return sp;
    }
    return process_pool.attached ? &process_pool : NULL;
}

int mpir_bsend_start(const char *fn, const void *buf, size_t bytes, int dest, int tag,
                     struct MPI_ABI_Comm *c, mpid_req_t **out)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the pool's blocks; s is not yet anyone's */
    struct bsend_pool *p = pool_for(c);
    void *copy = p ? block_alloc(p, bytes) : NULL;
    if (p && !copy && !p->automatic) {
        mpid_progress(); /* completed bsends may free room */
        copy = block_alloc(p, bytes);
    }
    if (!copy && p && p->automatic)
        return mpir_error(c, MPI_ERR_NO_MEM, "%s: out of memory for %zu bytes (MPI_BUFFER_AUTOMATIC)",
                          fn, bytes);
    if (!copy)
        return mpir_error(c, MPI_ERR_BUFFER,
                          "%s: attached buffer too small for %zu bytes (+%d overhead; %s %zu)", fn,
                          bytes, MPI_BSEND_OVERHEAD,
                          !p                        ? "none attached to the communicator, its "
                                                      "session or the process: size"
                          : p == &process_pool      ? "the process's buffer, attached"
                                                    : "the communicator's or session's, attached",
                          p ? p->bsize : 0);
    memcpy(copy, buf, bytes);
    mpid_req_t *s = mpid_isend(copy, bytes, dest, tag, c, MODE_STD);
    if (s->done)
        mpir_bsend_release(copy);
    else {
        s->bsend_block = copy;
        s->user_freed = 1;
    }
    if (s->done)
        req_release(s);
    mpid_req_t *r = req_alloc(REQ_DONE);
    r->done = 1;
    r->comm = c;
    *out = r;
    return MPI_SUCCESS;
}

static int bsend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype dt, int dest,
                 int tag, MPI_Comm comm, MPI_Request *request)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    size_t bytes;
    int rc = check_p2p(fn, buf, count, dt, dest, tag, comm, 0, &c, &bytes);
    if (rc)
        return rc;
    mpid_req_t *r;
    if (dest == MPI_PROC_NULL)
        r = req_proc_null();
    else if (!dtype_of(dt)->contiguous) {
        if ((rc = mpir_dt_bsend(fn, buf, count, dtype_of(dt), dest, tag, c, &r)))
            return rc;
    } else if ((rc = mpir_bsend_start(fn, buf, bytes, dest, tag, c, &r)))
        return rc;
    if (request)
        *request = (MPI_Request)r;
    else
        req_release(r);
    return MPI_SUCCESS;
}

int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    return bsend("MPI_Bsend", buf, count, dt, dest, tag, comm, NULL);
}

int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    if (!request)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Ibsend: NULL request pointer");
    return bsend("MPI_Ibsend", buf, count, dt, dest, tag, comm, request);
}

int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm)
{
    return bsend("MPI_Bsend_c", buf, count, dt, dest, tag, comm, NULL);
}

int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    if (!request)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Ibsend_c: NULL request pointer");
    return bsend("MPI_Ibsend_c", buf, count, dt, dest, tag, comm, request);
}

/* ---- attach, detach, flush: the same for the three kinds of owner ---------- */
/* These return an error class (0: done) and leave the report to the caller,
 * whose error handler it goes to. */
static int pool_attach(struct bsend_pool *p, void *buffer, MPI_Count size, const char **why)
{
    if (p->attached) {
        *why = "a buffer is already attached";
        return MPI_ERR_BUFFER;
    }
    int automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (!automatic && (size < 0 || (!buffer && size > 0))) {
        *why = size < 0 ? "negative size" : "NULL buffer";
        return size < 0 ? MPI_ERR_COUNT : MPI_ERR_BUFFER;
    }
    *p = (struct bsend_pool){.attached = 1, .automatic = automatic, .base = buffer,
                             .size = automatic ? 0 : size};
    if (!automatic && buffer) { /* blocks are 16-byte aligned inside the buffer */
        uintptr_t a = ((uintptr_t)buffer + 15) & ~(uintptr_t)15;
        size_t skip = a - (uintptr_t)buffer;
        p->bbuf = (char *)a;
        p->bsize = (size_t)size > skip ? (size_t)size - skip : 0;
    }
    return 0;
}

/* Wait until every message copied into p has left. */
static void pool_flush(struct bsend_pool *p)
{
    while (p->blocks)
        if (!mpid_progress() && p->blocks)
            mpid_idle();
}

static int pool_detach(struct bsend_pool *p, void *buffer_addr, MPI_Count *size,
                       const char **why)
{
    if (!buffer_addr || !size) {
        *why = !buffer_addr ? "NULL buffer_addr" : "NULL size";
        return MPI_ERR_ARG;
    }
    if (!p || !p->attached) {
        *why = "no buffer attached";
        return MPI_ERR_BUFFER;
    }
    pool_flush(p);
    *(void **)buffer_addr = p->base;
    *size = p->size; /* 0 for MPI_BUFFER_AUTOMATIC (the standard leaves it undefined) */
    *p = (struct bsend_pool){0};
    return 0;
}

/* A request that completes once p is empty (at once if it is). */
static mpid_req_t *pool_iflush(struct bsend_pool *p, struct MPI_ABI_Comm *c)
{
    MPID_CS_SCOPE(); /* MULTIPLE: flush_waiters is completed under the device lock */
    mpid_req_t *r = req_alloc(REQ_DONE);
    r->comm = c;
    if (!p || !p->blocks)
        r->done = 1;
    else {
        r->done = 0;
        r->next = p->flush_waiters;
        p->flush_waiters = r;
    }
    return r;
}

void mpir_bsend_pool_free(struct bsend_pool *p)
{
    if (!p)
        return;
    pool_flush(p);
    free(p);
}

/* The pool slot *slot, created on first use; NULL: no memory. */
static struct bsend_pool *pool_get(struct bsend_pool **slot)
{
    if (!*slot)
        *slot = calloc(1, sizeof **slot);
    return *slot;
}

/* ---- the process's buffer --------------------------------------------------- */
static int buffer_attach(const char *fn, void *buffer, MPI_Count size)
{
    CHECK_INIT(fn);
    const char *why;
    int cls = pool_attach(&process_pool, buffer, size, &why);
    return cls ? mpir_error(NULL, cls, "%s: %s (buffer %p, size %lld)", fn, why, buffer, (long long)size)
               : MPI_SUCCESS;
}

static int buffer_detach(const char *fn, void *buffer_addr, MPI_Count *size)
{
    CHECK_INIT(fn);
    const char *why;
    int cls = pool_detach(&process_pool, buffer_addr, size, &why);
    return cls ? mpir_error(NULL, cls, "%s: %s", fn, why) : MPI_SUCCESS;
}

int MPI_Buffer_attach(void *buffer, int size)
{
    return buffer_attach("MPI_Buffer_attach", buffer, size);
}

int MPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}

/* A size an int cannot hold comes back as MPI_UNDEFINED (use the _c form). */
int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = buffer_detach("MPI_Buffer_detach", buffer_addr, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

int MPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    return buffer_detach("MPI_Buffer_detach_c", buffer_addr, size);
}

int MPI_Buffer_flush(void)
{
    CHECK_INIT("MPI_Buffer_flush");
    pool_flush(&process_pool);
    return MPI_SUCCESS;
}

int MPI_Buffer_iflush(MPI_Request *request)
{
    static const char fn[] = "MPI_Buffer_iflush";
    CHECK_INIT(fn);
    if (!request)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL request pointer", fn);
    *request = (MPI_Request)pool_iflush(&process_pool, comm_of(MPI_COMM_SELF));
    return MPI_SUCCESS;
}

/* ---- a communicator's buffer --------------------------------------------------- */
static int comm_pool(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **c,
                     struct bsend_pool **p, int create)
{
    int rc = check_comm(fn, comm, c);
    if (rc)
        return rc;
    struct comm_ext *x = comm_ext_get(*c);
    *p = x ? (create ? pool_get(&x->bpool) : x->bpool) : NULL;
    if (create && !*p)
        return mpir_error(*c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return 0;
}

static int comm_attach_buffer(const char *fn, MPI_Comm comm, void *buffer, MPI_Count size)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct bsend_pool *p;
    const char *why;
    int rc = comm_pool(fn, comm, &c, &p, 1);
    if (!rc && (rc = pool_attach(p, buffer, size, &why)))
        rc = mpir_error(c, rc, "%s: %s on %s (buffer %p, size %lld)", fn, why, c->name,
                        buffer, (long long)size);
    return rc;
}

static int comm_detach_buffer(const char *fn, MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct bsend_pool *p;
    const char *why;
    int rc = comm_pool(fn, comm, &c, &p, 0);
    if (!rc && (rc = pool_detach(p, buffer_addr, size, &why)))
        rc = mpir_error(c, rc, "%s: %s on %s", fn, why, c->name);
    return rc;
}

int MPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    return comm_attach_buffer("MPI_Comm_attach_buffer", comm, buffer, size);
}

int MPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    return comm_attach_buffer("MPI_Comm_attach_buffer_c", comm, buffer, size);
}

/* A size an int cannot hold comes back as MPI_UNDEFINED (use the _c form). */
int MPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = comm_detach_buffer("MPI_Comm_detach_buffer", comm, buffer_addr, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

int MPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    return comm_detach_buffer("MPI_Comm_detach_buffer_c", comm, buffer_addr, size);
}

int MPI_Comm_flush_buffer(MPI_Comm comm)
{
    static const char fn[] = "MPI_Comm_flush_buffer";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct bsend_pool *p;
    int rc = comm_pool(fn, comm, &c, &p, 0);
    if (!rc && p)
        pool_flush(p);
    return rc;
}

int MPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    static const char fn[] = "MPI_Comm_iflush_buffer";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct bsend_pool *p;
    int rc = comm_pool(fn, comm, &c, &p, 0);
    if (rc)
        return rc;
    if (!request)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL request pointer", fn);
    *request = (MPI_Request)pool_iflush(p, c);
    return MPI_SUCCESS;
}

/* ---- a session's buffer ------------------------------------------------------ */
static int session_pool(const char *fn, MPI_Session session, struct MPI_ABI_Session **s,
                        struct bsend_pool **p, int create)
{
    int rc = mpir_session_check(fn, session, s);
    if (rc)
        return rc;
    struct bsend_pool **slot = mpir_session_bpool(*s);
    *p = create ? pool_get(slot) : *slot;
    if (create && !*p)
        return mpir_session_error(*s, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return 0;
}

static int session_attach_buffer(const char *fn, MPI_Session session, void *buffer, MPI_Count size)
{
    struct MPI_ABI_Session *s;
    struct bsend_pool *p;
    const char *why;
    int rc = session_pool(fn, session, &s, &p, 1);
    if (!rc && (rc = pool_attach(p, buffer, size, &why)))
        rc = mpir_session_error(s, rc, "%s: %s (buffer %p, size %lld)", fn, why, buffer, (long long)size);
    return rc;
}

static int session_detach_buffer(const char *fn, MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    struct MPI_ABI_Session *s;
    struct bsend_pool *p;
    const char *why;
    int rc = session_pool(fn, session, &s, &p, 0);
    if (!rc && (rc = pool_detach(p, buffer_addr, size, &why)))
        rc = mpir_session_error(s, rc, "%s: %s", fn, why);
    return rc;
}

int MPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    return session_attach_buffer("MPI_Session_attach_buffer", session, buffer, size);
}

int MPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return session_attach_buffer("MPI_Session_attach_buffer_c", session, buffer, size);
}

/* A size an int cannot hold comes back as MPI_UNDEFINED (use the _c form). */
int MPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = session_detach_buffer("MPI_Session_detach_buffer", session, buffer_addr, size ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *size = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}

int MPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return session_detach_buffer("MPI_Session_detach_buffer_c", session, buffer_addr, size);
}

int MPI_Session_flush_buffer(MPI_Session session)
{
    struct MPI_ABI_Session *s;
    struct bsend_pool *p;
    int rc = session_pool("MPI_Session_flush_buffer", session, &s, &p, 0);
    if (!rc && p)
        pool_flush(p);
    return rc;
}

int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    static const char fn[] = "MPI_Session_iflush_buffer";
    struct MPI_ABI_Session *s;
    struct bsend_pool *p;
    int rc = session_pool(fn, session, &s, &p, 0);
    if (rc)
        return rc;
    if (!request)
        return mpir_session_error(s, MPI_ERR_ARG, "%s: NULL request pointer", fn);
    *request = (MPI_Request)pool_iflush(p, comm_of(MPI_COMM_SELF));
    return MPI_SUCCESS;
}
