/*
 * bsend.c — buffered mode: MPI_Buffer_attach/detach, MPI_Bsend, MPI_Ibsend.
 *
 * The attached buffer is carved first-fit into blocks kept in address order;
 * each block holds a small header (within MPI_BSEND_OVERHEAD) and a copy of
 * the user's data, and is sent by a standard send that frees the block when
 * it completes.  The user's operation is complete as soon as the copy is made.
 */
#include <string.h>

#include "binding/check.h"

typedef struct block {
    struct block *next;
    size_t size; /* whole block, header included */
} block_t;

#define ALIGN(n) (((n) + 15) & ~(size_t)15)
#define HDR ALIGN(sizeof(block_t))

static int attached;
static void *attached_base;
static int attached_size;
static char *bbuf;
static size_t bsize;
static block_t *blocks; /* allocated blocks, ascending addresses */

static void *block_alloc(size_t n)
{
    size_t need = HDR + ALIGN(n);
    char *at = bbuf;
    block_t **link = &blocks;
    for (block_t *b = blocks; b; link = &b->next, b = b->next) {
        if ((size_t)((char *)b - at) >= need)
            break;
        at = (char *)b + b->size;
    }
    if (!bbuf || (size_t)(bbuf + bsize - at) < need)
        return NULL;
    block_t *nb = (block_t *)at;
    nb->size = need;
    nb->next = *link;
    *link = nb;
    return at + HDR;
}

void mpir_bsend_release(void *data)
{
    block_t *target = (block_t *)((char *)data - HDR);
    for (block_t **link = &blocks; *link; link = &(*link)->next)
        if (*link == target) {
            *link = target->next;
            return;
        }
}

int mpir_bsend_start(const char *fn, const void *buf, size_t bytes, int dest, int tag,
                     struct MPI_ABI_Comm *c, mpid_req_t **out)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the attached buffer's blocks; s is not yet anyone's */
    void *copy = block_alloc(bytes);
    if (!copy) {
        mpid_progress(); /* completed bsends may free room */
        copy = block_alloc(bytes);
    }
    if (!copy)
        return mpir_error(c, MPI_ERR_BUFFER,
                          "%s: attached buffer too small for %zu bytes (+%d overhead; attached %zu)",
                          fn, bytes, MPI_BSEND_OVERHEAD, bsize);
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

static int bsend(const char *fn, const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request *request)
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

int MPI_Buffer_attach(void *buffer, int size)
{
    CHECK_INIT("MPI_Buffer_attach");
    if (attached)
        return mpir_error(NULL, MPI_ERR_BUFFER, "MPI_Buffer_attach: a buffer is already attached");
    if (size < 0 || (!buffer && size > 0))
        return mpir_error(NULL, size < 0 ? MPI_ERR_COUNT : MPI_ERR_BUFFER,
                          "MPI_Buffer_attach: invalid buffer %p of size %d", buffer, size);
    attached = 1;
    attached_base = buffer;
    attached_size = size;
    /* Blocks are 16-byte aligned inside the buffer. */
    uintptr_t a = ((uintptr_t)buffer + 15) & ~(uintptr_t)15;
    size_t skip = a - (uintptr_t)buffer;
    bbuf = buffer ? (char *)a : NULL;
    bsize = (size_t)size > skip ? (size_t)size - skip : 0;
    return MPI_SUCCESS;
}

int MPI_Buffer_detach(void *buffer_addr, int *size)
{
    CHECK_INIT("MPI_Buffer_detach");
    if (!buffer_addr || !size)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Buffer_detach: NULL argument");
    if (!attached)
        return mpir_error(NULL, MPI_ERR_BUFFER, "MPI_Buffer_detach: no buffer attached");
    while (blocks) /* wait for the buffered messages to leave */
        if (!mpid_progress() && blocks)
            mpid_idle();
    *(void **)buffer_addr = attached_base;
    *size = attached_size;
    bbuf = NULL;
    bsize = 0;
    attached = 0;
    return MPI_SUCCESS;
}
