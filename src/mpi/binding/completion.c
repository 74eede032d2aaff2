/*
 * completion.c — MPI_Wait/Test and their any/all/some forms, Request_free,
 * Request_get_status, Cancel, Test_cancelled.
 *
 * A persistent request (REQ_PERSIST) is complete when it is inactive or its
 * started operation is done; finishing it hands back the operation's status
 * and leaves the handle valid.  Any other request is released and the handle
 * becomes MPI_REQUEST_NULL.
 */
#include "binding/check.h"

#define IS_NULL(h) ((h) == MPI_REQUEST_NULL)

static int check_request(const char *fn, MPI_Request h, mpid_req_t **out)
{
    mpid_req_t *r = (mpid_req_t *)h;
    if (likely((uintptr_t)h >= MPIR_PREDEF_BOUND && r->magic == MAGIC_REQ &&
               r->kind != REQ_CTL)) {
        *out = r;
        return 0;
    }
    *out = NULL;
    return mpir_error(NULL, MPI_ERR_REQUEST, "%s: invalid request handle", fn);
}

/* Active and not yet done?  Null and inactive requests count as complete. */
static int pending(MPI_Request h)
{
    if (IS_NULL(h))
        return 0;
    mpid_req_t *r = (mpid_req_t *)h;
    if (r->kind == REQ_PERSIST)
        return r->active && !REQ_DONE(r->active);
    return !REQ_DONE(r);
}

static int inactive(MPI_Request h)
{
    return IS_NULL(h) || (((mpid_req_t *)h)->kind == REQ_PERSIST && !((mpid_req_t *)h)->active);
}

typedef struct failure {
    int err, src, tag;
    int greq; /* err came from a generalized request's callback */
    size_t sent, cap;
    struct MPI_ABI_Comm *comm;
} failure_t;

/* Complete *h (known to be done): status out, request released or
 * deactivated.  Returns the operation's error class, details in *f. */
static int finish(MPI_Request *h, MPI_Status *st, failure_t *f)
{
    if (IS_NULL(*h)) {
        mpid_status_empty(st);
        return MPI_SUCCESS;
    }
    mpid_req_t *r = (mpid_req_t *)*h, *op = r;
    if (r->kind == REQ_PERSIST) {
        op = r->active;
        if (!op) {
            mpid_status_empty(st);
            return MPI_SUCCESS;
        }
        r->active = NULL;
    } else {
        *h = MPI_REQUEST_NULL;
    }
    if (unlikely(op->kind == REQ_GREQ)) { /* binding/grequest.c */
        int err = mpir_greq_finish(op, st);
        if (err)
            *f = (failure_t){.err = err, .greq = 1};
        return err;
    }
    req_status(op, st);
    if (r != op && r->p_mode == MODE_PART && st) /* the user's tag, not the internal one */
        st->MPI_TAG = r->tag;
    int err = op->st_error;
    if (err) {
        f->err = err;
        f->greq = 0;
        f->src = op->st_source;
        f->tag = op->st_tag;
        f->sent = op->msg_len;
        f->cap = op->cap;
        f->comm = op->comm;
    }
    req_release(op);
    return err;
}

static int report_greq(const char *fn, const failure_t *f)
{
    return mpir_error(NULL, f->err, "%s: a generalized request's callback returned %d", fn,
                      f->err);
}

static int report(const char *fn, const failure_t *f)
{
    if (f->greq)
        return report_greq(fn, f);
    return mpir_recv_error(fn, f->comm, f->err, f->src, f->tag, f->sent, f->cap);
}

static int report_in_status(const char *fn, const failure_t *f)
{
    if (f->greq)
        return mpir_error(NULL, MPI_ERR_IN_STATUS,
                          "%s: a generalized request's callback returned %d (see its status)",
                          fn, f->err);
    return mpir_error(f->comm, MPI_ERR_IN_STATUS,
                      "%s: a request failed (%s: rank %d sent %zu bytes, buffer holds %zu)", fn,
                      mpir_class_string(f->err), f->src, f->sent, f->cap);
}

static void progress_or_idle(void)
{
    if (!mpid_progress())
        mpid_idle();
}

static int check_array(const char *fn, int count, const MPI_Request *reqs)
{
    if (count < 0)
        return mpir_error(NULL, MPI_ERR_COUNT, "%s: invalid count %d", fn, count);
    if (count > 0 && !reqs)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL request array with count %d", fn, count);
    for (int i = 0; i < count; i++) {
        mpid_req_t *r;
        int rc;
        if (!IS_NULL(reqs[i]) && (rc = check_request(fn, reqs[i], &r)))
            return rc;
    }
    return 0;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    static const char fn[] = "MPI_Wait";
    mpid_req_t *r;
    int rc;
    if ((rc = check_req_ptr(fn, NULL, request)) ||
        (!IS_NULL(*request) && (rc = check_request(fn, *request, &r))))
        return rc;
    while (pending(*request))
        progress_or_idle();
    failure_t f;
    return finish(request, status, &f) ? report(fn, &f) : MPI_SUCCESS;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    static const char fn[] = "MPI_Test";
    mpid_req_t *r;
    int rc;
    if ((rc = check_req_ptr(fn, NULL, request)) ||
        (!IS_NULL(*request) && (rc = check_request(fn, *request, &r))))
        return rc;
    if (!flag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL flag", fn);
    if (pending(*request))
        mpid_progress();
    *flag = !pending(*request);
    failure_t f;
    if (*flag && finish(request, status, &f))
        return report(fn, &f);
    return MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[])
{
    static const char fn[] = "MPI_Waitall";
    int rc = check_array(fn, count, reqs);
    if (rc)
        return rc;
    for (int i = 0; i < count; i++)
        while (pending(reqs[i]))
            progress_or_idle();
    failure_t f;
    int failed = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses ? &statuses[i] : NULL;
        if (finish(&reqs[i], st, &f))
            failed = 1;
    }
    return failed ? report_in_status(fn, &f) : MPI_SUCCESS;
}

/* Are all requests complete, after one progress pass if not at first? */
static int all_done(int count, const MPI_Request reqs[])
{
    for (int pass = 0; pass < 2; pass++) {
        int all = 1;
        for (int i = 0; i < count && all; i++)
            all = !pending(reqs[i]);
        if (all || pass)
            return all;
        mpid_progress();
    }
    return 0;
}

int MPI_Testall(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    static const char fn[] = "MPI_Testall";
    int rc = check_array(fn, count, reqs);
    if (rc)
        return rc;
    if (!flag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL flag", fn);
    if (!(*flag = all_done(count, reqs)))
        return MPI_SUCCESS;
    failure_t f;
    int failed = 0;
    for (int i = 0; i < count; i++)
        if (finish(&reqs[i], statuses ? &statuses[i] : NULL, &f))
            failed = 1;
    return failed ? report_in_status(fn, &f) : MPI_SUCCESS;
}

/* Index of a completed active request, MPI_UNDEFINED if all are inactive,
 * -1 if some are active but none is done. */
static int find_done(int count, MPI_Request reqs[])
{
    int any_active = 0;
    for (int i = 0; i < count; i++) {
        if (inactive(reqs[i]))
            continue;
        any_active = 1;
        if (!pending(reqs[i]))
            return i;
    }
    return any_active ? -1 : MPI_UNDEFINED;
}

/* find_done after one progress pass; blocking: until something is done. */
static int next_done(int count, MPI_Request reqs[], int blocking)
{
    int i = find_done(count, reqs);
    if (i == -1) {
        mpid_progress();
        i = find_done(count, reqs);
    }
    while (i == -1 && blocking) {
        mpid_idle();
        mpid_progress();
        i = find_done(count, reqs);
    }
    return i;
}

static int any(const char *fn, int count, MPI_Request reqs[], int *index, int *flag,
               MPI_Status *status, int blocking)
{
    int rc = check_array(fn, count, reqs);
    if (rc)
        return rc;
    if (!index || (!blocking && !flag))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL output argument", fn);
    int i = next_done(count, reqs, blocking);
    if (flag)
        *flag = i != -1;
    *index = i == -1 ? MPI_UNDEFINED : i;
    if (i == MPI_UNDEFINED || i == -1) {
        if (i == MPI_UNDEFINED)
            mpid_status_empty(status);
        return MPI_SUCCESS;
    }
    failure_t f;
    return finish(&reqs[i], status, &f) ? report(fn, &f) : MPI_SUCCESS;
}

int MPI_Waitany(int count, MPI_Request reqs[], int *index, MPI_Status *status)
{
    return any("MPI_Waitany", count, reqs, index, NULL, status, 1);
}

int MPI_Testany(int count, MPI_Request reqs[], int *index, int *flag, MPI_Status *status)
{
    return any("MPI_Testany", count, reqs, index, flag, status, 0);
}

static int some(const char *fn, int count, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[], int blocking)
{
    int rc = check_array(fn, count, reqs);
    if (rc)
        return rc;
    if (!outcount || (count > 0 && !indices))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL output argument", fn);
    int i = next_done(count, reqs, blocking);
    if (i == MPI_UNDEFINED) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int n = 0, failed = 0;
    failure_t f;
    for (int k = 0; k < count; k++) {
        if (inactive(reqs[k]) || pending(reqs[k]))
            continue;
        MPI_Status *st = statuses ? &statuses[n] : NULL;
        indices[n++] = k;
        if (finish(&reqs[k], st, &f))
            failed = 1;
    }
    *outcount = n;
    return failed ? report_in_status(fn, &f) : MPI_SUCCESS;
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    return some("MPI_Waitsome", incount, reqs, outcount, indices, statuses, 1);
}

int MPI_Testsome(int incount, MPI_Request reqs[], int *outcount, int indices[],
                 MPI_Status statuses[])
{
    return some("MPI_Testsome", incount, reqs, outcount, indices, statuses, 0);
}

/* The request behind *request for Request_free and Cancel: not NULL, not
 * MPI_REQUEST_NULL, and not an active nonblocking collective, which MPI 3.1
 * section 5.12 forbids freeing or cancelling (its buffers would be touched
 * after the user can no longer know when they are free). */
static int own_request(const char *fn, MPI_Request *request, mpid_req_t **r)
{
    int rc;
    if ((rc = check_req_ptr(fn, NULL, request)))
        return rc;
    if (IS_NULL(*request))
        return mpir_error(NULL, MPI_ERR_REQUEST, "%s: request is MPI_REQUEST_NULL", fn);
    if ((rc = check_request(fn, *request, r)))
        return rc;
    if ((*r)->kind == REQ_COLL && !(*r)->done)
        return mpir_error((*r)->comm, MPI_ERR_REQUEST,
                          "%s: not allowed on an active nonblocking collective; "
                          "complete it with MPI_Wait or MPI_Test", fn);
    if ((*r)->kind == REQ_PERSIST && ((*r)->p_mode == MODE_PCOLL || (*r)->p_mode == MODE_PART) &&
        (*r)->active && !(*r)->active->done) /* MPI 4.0: erroneous while active */
        return mpir_error((*r)->comm, MPI_ERR_REQUEST,
                          "%s: not allowed on an active persistent collective or partitioned "
                          "request; complete it with MPI_Wait or MPI_Test first", fn);
    return MPI_SUCCESS;
}

int MPI_Request_free(MPI_Request *request)
{
    mpid_req_t *r = NULL;
    int rc;
    if ((rc = own_request("MPI_Request_free", request, &r)))
        return rc;
    if (r->kind == REQ_GREQ) {
        *request = MPI_REQUEST_NULL;
        rc = mpir_greq_free(r);
        return rc ? mpir_error(NULL, rc, "MPI_Request_free: free_fn returned %d", rc)
                  : MPI_SUCCESS;
    }
    MPID_CS_SCOPE(); /* MULTIPLE: progress must not complete it between the look and the mark */
    if (r->kind == REQ_PERSIST) {
        mpid_req_t *op = r->active;
        if (op) {
            if (op->done)
                req_release(op);
            else
                op->user_freed = 1;
        }
        req_release(r);
    } else if (r->done) {
        req_release(r);
    } else {
        r->user_freed = 1; /* goes back to the pool when it completes */
    }
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    static const char fn[] = "MPI_Request_get_status";
    mpid_req_t *r = NULL;
    int rc;
    if (!flag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL flag", fn);
    if (IS_NULL(request)) {
        *flag = 1;
        mpid_status_empty(status);
        return MPI_SUCCESS;
    }
    if ((rc = check_request(fn, request, &r)))
        return rc;
    if (pending(request))
        mpid_progress();
    *flag = !pending(request);
    if (*flag) {
        mpid_req_t *op = r->kind == REQ_PERSIST ? r->active : r;
        if (op && op->kind == REQ_GREQ) {
            if ((rc = mpir_greq_query(op, status)))
                return mpir_error(NULL, rc, "%s: query_fn returned %d", fn, rc);
        } else if (op)
            req_status(op, status);
        else
            mpid_status_empty(status);
    }
    return MPI_SUCCESS;
}

/* ---- MPI 4.1: MPI_Request_get_status_all/any/some ----------------------
 * The Test{all,any,some} forms that leave every request as it is: nothing is
 * released or deactivated, so the requests must still be completed by a
 * wait, test or free.  Null and inactive requests count as complete with an
 * empty status, as in the Test forms. */

/* Status of a done (or null/inactive) request without finishing it.
 * Returns the operation's error class, details in *f. */
static int peek(MPI_Request h, MPI_Status *st, failure_t *f)
{
    mpid_req_t *op = IS_NULL(h) ? NULL : (mpid_req_t *)h;
    if (op && op->kind == REQ_PERSIST)
        op = op->active;
    if (!op) {
        mpid_status_empty(st);
        return MPI_SUCCESS;
    }
    if (op->kind == REQ_GREQ) {
        int err = mpir_greq_query(op, st);
        if (err)
            *f = (failure_t){.err = err, .greq = 1};
        return err;
    }
    req_status(op, st);
    if (op->st_error)
        *f = (failure_t){.err = op->st_error, .src = op->st_source, .tag = op->st_tag,
                         .sent = op->msg_len, .cap = op->cap, .comm = op->comm};
    return op->st_error;
}

int MPI_Request_get_status_all(int count, const MPI_Request reqs[], int *flag, MPI_Status *statuses)
{
    static const char fn[] = "MPI_Request_get_status_all";
    int rc = check_array(fn, count, reqs);
    if (rc)
        return rc;
    if (!flag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL flag", fn);
    if (!(*flag = all_done(count, reqs)))
        return MPI_SUCCESS;
    failure_t f;
    int failed = 0;
    for (int i = 0; i < count; i++)
        if (peek(reqs[i], statuses ? &statuses[i] : NULL, &f))
            failed = 1;
    return failed ? report_in_status(fn, &f) : MPI_SUCCESS;
}

int MPI_Request_get_status_any(int count, const MPI_Request reqs[], int *index, int *flag,
                               MPI_Status *status)
{
    static const char fn[] = "MPI_Request_get_status_any";
    int rc = check_array(fn, count, reqs);
    if (rc)
        return rc;
    if (!index || !flag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL output argument", fn);
    int i = next_done(count, (MPI_Request *)reqs, 0); /* only reads them */
    *flag = i != -1;
    *index = i == -1 ? MPI_UNDEFINED : i;
    if (i == -1)
        return MPI_SUCCESS;
    if (i == MPI_UNDEFINED) {
        mpid_status_empty(status);
        return MPI_SUCCESS;
    }
    failure_t f;
    return peek(reqs[i], status, &f) ? report(fn, &f) : MPI_SUCCESS;
}

int MPI_Request_get_status_some(int incount, const MPI_Request reqs[], int *outcount,
                                int indices[], MPI_Status *statuses)
{
    static const char fn[] = "MPI_Request_get_status_some";
    int rc = check_array(fn, incount, reqs);
    if (rc)
        return rc;
    if (!outcount || (incount > 0 && !indices))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL output argument", fn);
    if (next_done(incount, (MPI_Request *)reqs, 0) == MPI_UNDEFINED) { /* only reads */
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int n = 0, failed = 0;
    failure_t f;
    for (int k = 0; k < incount; k++) {
        if (inactive(reqs[k]) || pending(reqs[k]))
            continue;
        indices[n] = k;
        if (peek(reqs[k], statuses ? &statuses[n] : NULL, &f))
            failed = 1;
        n++;
    }
    *outcount = n;
    return failed ? report_in_status(fn, &f) : MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request *request)
{
    mpid_req_t *r = NULL;
    int rc;
    if ((rc = own_request("MPI_Cancel", request, &r)))
        return rc;
    if (r->kind == REQ_GREQ) {
        rc = mpir_greq_cancel(r);
        return rc ? mpir_error(NULL, rc, "MPI_Cancel: cancel_fn returned %d", rc) : MPI_SUCCESS;
    }
    if (r->kind == REQ_PERSIST)
        r = r->active;
    if (r && !r->done)
        mpid_cancel(r); /* receives not yet matched are cancelled; sends complete normally */
    return MPI_SUCCESS;
}

int MPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || !flag)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Test_cancelled: NULL argument");
    *flag = status->MPI_internal[2] != 0;
    return MPI_SUCCESS;
}

int MPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (!status)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Status_set_cancelled: NULL status");
    status->MPI_internal[2] = flag != 0;
    return MPI_SUCCESS;
}
