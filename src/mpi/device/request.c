/*
 * request.c — the request pool.
 *
 * Requests come from slabs that are never returned to malloc while MPI runs,
 * so taking one is a pop from a free list (no allocation on the hot path once
 * the pool has grown to the program's peak of outstanding operations).
 */
#include <stdlib.h>
#include <string.h>

#include "datatype/dtype.h"
#include "device/device.h"

#define SLAB_REQS 256

typedef struct slab {
    struct slab *next;
    mpid_req_t reqs[SLAB_REQS];
} slab_t;

static slab_t *slabs;
static mpid_req_t *free_reqs;

static void grow(void)
{
    slab_t *s = malloc(sizeof *s);
    if (!s)
        mpir_fatal("out of memory for MPI requests");
    s->next = slabs;
    slabs = s;
    for (int i = SLAB_REQS - 1; i >= 0; i--) {
        s->reqs[i].magic = 0;
        s->reqs[i].next = free_reqs;
        free_reqs = &s->reqs[i];
    }
}

mpid_req_t *req_alloc(int kind)
{
    MPID_CS_SCOPE();
    if (unlikely(!free_reqs))
        grow();
    mpid_req_t *r = free_reqs;
    free_reqs = r->next;
    /* Clear everything up to the inline payload buffer.  Through libc's
     * memset: with the size a constant GCC inlines `rep stosq`, whose start-up
     * on AMD cores made this the hottest line of a window of 8-byte
     * Isend/Irecv (perf: 24% of bibw's rank time, 70% of it the rep stos);
     * the size is hidden from it so the call stays a call. */
    size_t clear = offsetof(mpid_req_t, inline_buf);
    __asm__("" : "+r"(clear));
    memset(r, 0, clear);
    r->magic = MAGIC_REQ;
    r->kind = (uint8_t)kind;
    r->st_source = MPI_ANY_SOURCE;
    r->st_tag = MPI_ANY_TAG;
    return r;
}

void req_release(mpid_req_t *r)
{
    MPID_CS_SCOPE();
    if (unlikely(r->dtp))
        mpir_dt_forget(r);
    if (r->tmp && r->tmp != r->inline_buf)
        free(r->tmp);
    r->magic = 0;
    r->next = free_reqs;
    free_reqs = r;
}

/* The done flag goes up last: a waiting thread may take r the moment it
 * sees it (MPI_THREAD_MULTIPLE), so nothing may still be written to r. */
void req_complete(mpid_req_t *r)
{
    if (unlikely(r->pair) && r->kind == REQ_RECV && !r->pair->done) {
        r->pair_arrived = 1; /* isendrecv: the send half completes it */
        return;
    }
    if (unlikely(r->dtp))
        mpir_dt_complete(r); /* unpack a non-contiguous receive */
    if (r->bsend_block) {
        mpir_bsend_release(r->bsend_block);
        r->bsend_block = NULL;
    }
    if (unlikely(r->pair)) { /* the halves of an isendrecv */
        mpid_req_t *o = r->pair;
        if (r->kind == REQ_RECV) { /* both done: the send half goes */
            r->pair = NULL;
            req_release(o);
        } else if (o->pair_arrived) {
            r->done = 1; /* o's completion looks at it */
            req_complete(o); /* releases r */
            return;
        }
    }
    if (r->user_freed) {
        r->done = 1;
        req_release(r);
        return;
    }
    REQ_SET_DONE(r);
}

int req_any(int (*pred)(const mpid_req_t *r, const void *arg), const void *arg)
{
    for (slab_t *s = slabs; s; s = s->next)
        for (int i = 0; i < SLAB_REQS; i++)
            if (s->reqs[i].magic == MAGIC_REQ && pred(&s->reqs[i], arg))
                return 1;
    return 0;
}

/* r waits on the process at world index world. */
static int waits_on(const mpid_req_t *r, int world)
{
    if (r->done)
        return 0;
    if (r->kind == REQ_SEND)
        return r->world == world;
    if (r->kind != REQ_RECV)
        return 0;
    if (r->posted) /* a receive naming it; MPI_ANY_SOURCE ones may match others */
        return r->peer != MPI_ANY_SOURCE && comm_world_rank(r->comm, r->peer) == world;
    return r->attached && r->world == world; /* matched: the rest of its data */
}

void mpid_fail_peer(int world, int err)
{
    /* nothing more leaves for it */
    mpid.sendq[world].head = mpid.sendq[world].tail = NULL;
    for (int i = 0; i < mpid.n_active; i++)
        if (mpid.active[i] == world) {
            mpid.active[i] = mpid.active[--mpid.n_active];
            break;
        }
    mpid.inflight[world] = NULL;
    mpid.rndv_out[world] = 0;
    for (slab_t *s = slabs; s; s = s->next)
        for (int i = 0; i < SLAB_REQS; i++) {
            mpid_req_t *r = &s->reqs[i];
            if (r->magic != MAGIC_REQ || !waits_on(r, world))
                continue;
            if (r->posted)
                match_unpost(r->comm, r);
            if (r->kind == REQ_RECV)
                r->st_source = r->peer;
            r->need = 0;
            r->st_error = err;
            req_complete(r);
        }
}

void req_pool_free_all(void)
{
    while (slabs) {
        slab_t *s = slabs;
        slabs = s->next;
        free(s);
    }
    free_reqs = NULL;
}

void mpid_status_empty(MPI_Status *st)
{
    if (st) {
        st->MPI_SOURCE = MPI_ANY_SOURCE;
        st->MPI_TAG = MPI_ANY_TAG;
        st->MPI_ERROR = MPI_SUCCESS;
        for (int i = 0; i < 5; i++)
            st->MPI_internal[i] = 0;
    }
}
