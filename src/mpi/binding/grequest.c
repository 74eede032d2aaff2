/*
 * grequest.c — generalized requests (MPI-3.1 12.2): MPI_Grequest_start hands
 * out a request that the application completes with MPI_Grequest_complete,
 * and that MPI_Wait/Test and their any/all/some forms, MPI_Request_get_status,
 * MPI_Request_free and MPI_Cancel take like any other (binding/completion.c
 * calls the mpir_greq_* functions below for them).
 *
 * When the callbacks run:
 *   query_fn  when a Wait/Test completes the request (its status is the one
 *             returned; MPI_STATUS_IGNORE still gets a real status to fill), and
 *             in MPI_Request_get_status once complete;
 *   free_fn   right after query_fn in Wait/Test; for a request the application
 *             freed with MPI_Request_free: at once if complete, else in
 *             MPI_Grequest_complete (whose return value is then its result);
 *   cancel_fn in MPI_Cancel, with complete = whether MPI_Grequest_complete was
 *             called already.
 *
 * Threads: MPI_Grequest_complete may be called from any thread while another
 * thread waits in MPI (an extension of MPI_THREAD_SERIALIZED, which is what
 * the usual "worker thread completes the request" pattern needs): it touches
 * only the request's state word, atomically, and never the request pool
 * (a request freed by the application goes back to the pool on the next
 * MPI_Grequest_start, on the thread that owns MPI).  Waiters find the request
 * done within a millisecond: while any generalized request is open, the
 * device's idle wait polls instead of sleeping (device/progress.c).
 */
#include <sched.h>
#include <stdlib.h>

#include "binding/check.h"

enum { G_COMPLETE = 1, G_FREED = 2 }; /* greq.state bits */

struct greq {
    MPI_Grequest_query_function *query;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel;
    void *extra;
    int state;
};

int mpir_greq_open;

/* Requests freed by the application and completed on some thread, waiting
 * to go back to the pool (linked through next). */
static mpid_req_t *to_release;

static void release_completed_frees(void)
{
    mpid_req_t *r = __atomic_exchange_n(&to_release, NULL, __ATOMIC_ACQUIRE);
    while (r) {
        mpid_req_t *next = r->next;
        req_release(r);
        r = next;
    }
}

static int check_greq(const char *fn, MPI_Request h, mpid_req_t **out)
{
    mpid_req_t *r = (mpid_req_t *)h;
    if ((uintptr_t)h >= MPIR_PREDEF_BOUND && r->magic == MAGIC_REQ && r->kind == REQ_GREQ) {
        *out = r;
        return 0;
    }
    return mpir_error(NULL, MPI_ERR_REQUEST, "%s: %s", fn,
                      h == MPI_REQUEST_NULL ? "request is MPI_REQUEST_NULL"
                                            : "not a generalized request (or already freed)");
}

/* Run free_fn and drop the callbacks; the request itself stays. */
static int run_free(mpid_req_t *r)
{
    struct greq *g = r->greq;
    int rc = g->free_fn(g->extra);
    free(g);
    r->greq = NULL;
    return rc;
}

int MPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                       MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                       MPI_Request *request)
{
    static const char fn[] = "MPI_Grequest_start";
    CHECK_INIT(fn);
    if (!query_fn || !free_fn || !cancel_fn || !request)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL %s", fn,
                          !query_fn  ? "query_fn"
                          : !free_fn ? "free_fn"
                          : !cancel_fn ? "cancel_fn"
                                       : "request pointer");
    release_completed_frees();
    struct greq *g = malloc(sizeof *g);
    if (!g)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *g = (struct greq){query_fn, free_fn, cancel_fn, extra_state, 0};
    mpid_req_t *r = req_alloc(REQ_GREQ);
    r->greq = g;
    __atomic_add_fetch(&mpir_greq_open, 1, __ATOMIC_RELAXED);
    *request = r;
    return MPI_SUCCESS;
}

int MPI_Grequest_complete(MPI_Request request)
{
    static const char fn[] = "MPI_Grequest_complete";
    mpid_req_t *r = NULL;
    int rc = check_greq(fn, request, &r);
    if (rc)
        return rc;
    int old = __atomic_fetch_or(&r->greq->state, G_COMPLETE, __ATOMIC_ACQ_REL);
    if (old & G_COMPLETE)
        return mpir_error(NULL, MPI_ERR_REQUEST, "%s: request completed twice", fn);
    __atomic_sub_fetch(&mpir_greq_open, 1, __ATOMIC_RELAXED);
    if (old & G_FREED) { /* the handle is gone: clean up here */
        rc = run_free(r);
        r->magic = 0; /* a stale handle is refused from here on */
        mpid_req_t *head = __atomic_load_n(&to_release, __ATOMIC_RELAXED);
        do
            r->next = head;
        while (!__atomic_compare_exchange_n(&to_release, &head, r, 1, __ATOMIC_RELEASE,
                                            __ATOMIC_RELAXED));
        return rc ? mpir_error(NULL, rc, "%s: free_fn returned %d", fn, rc) : MPI_SUCCESS;
    }
    /* last touch: a waiter may release r as soon as it sees done */
    __atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

int mpir_greq_query(mpid_req_t *r, MPI_Status *st)
{
    struct greq *g = r->greq;
    MPI_Status local;
    if (!st)
        st = &local;
    mpid_status_empty(st);
    int rc = g->query(g->extra, st); /* the status is query_fn's ... */
    if (rc)
        st->MPI_ERROR = rc; /* ... but a failure shows in its error field */
    return rc;
}

/* The first failure of the two callbacks is the result (the standard names
 * free_fn's, the last one called, but that would hide a failed query); in
 * the all/some forms it is also the status's MPI_ERROR. */
int mpir_greq_finish(mpid_req_t *r, MPI_Status *st)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE); /* see the completing thread's writes */
    int rc = mpir_greq_query(r, st);
    int frc = run_free(r);
    req_release(r);
    if (!rc && frc && st)
        st->MPI_ERROR = frc;
    return rc ? rc : frc;
}

int mpir_greq_free(mpid_req_t *r)
{
    int old = __atomic_fetch_or(&r->greq->state, G_FREED, __ATOMIC_ACQ_REL);
    if (!(old & G_COMPLETE))
        return MPI_SUCCESS; /* MPI_Grequest_complete finishes it */
    while (!__atomic_load_n(&r->done, __ATOMIC_ACQUIRE))
        sched_yield(); /* the completing thread is between its two stores */
    int rc = run_free(r);
    req_release(r);
    return rc;
}

int mpir_greq_cancel(mpid_req_t *r)
{
    struct greq *g = r->greq;
    return g->cancel(g->extra, (__atomic_load_n(&g->state, __ATOMIC_ACQUIRE) & G_COMPLETE) != 0);
}
