/*
 * sched.c — the schedule engine shared by blocking and nonblocking
 * collectives.
 *
 * A schedule is built completely when the collective is called (all buffer
 * addresses and sizes are known then) and then executed step by step: sends
 * and receives are started as they are reached and run concurrently until
 * the next fence, which waits for all of them; copies and reductions run
 * when reached.  Started schedules sit on one list that coll_progress walks;
 * the device calls coll_progress at the end of every mpid_progress pass, so a
 * nonblocking collective advances whenever anything in the library waits or
 * tests, exactly like a point-to-point request (and waiting sleeps in
 * skf_wait like every other wait).  A blocking collective is the same
 * schedule plus a progress loop until it is done.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "datatype/dtype.h"

enum step_kind { S_SEND, S_RECV, S_FENCE, S_COPY, S_REDUCE, S_UNPACK };

typedef struct step {
    uint8_t kind;
    int peer, tagx;  /* send, recv: peer; tag = schedule tag + tagx */
    struct MPI_ABI_Comm *comm; /* send, recv: NULL = the schedule's */
    const void *src; /* send, copy, reduce (in)        */
    void *dst;       /* recv, copy, reduce (inout)     */
    size_t bytes;    /* send, recv, copy               */
    size_t count;    /* reduce                         */
    reducer_t red;   /* reduce                         */
    mpid_req_t *req; /* send, recv once started        */
    struct coll_unpack unpack; /* unpack                */
} step_t;

typedef struct tmp_block {
    struct tmp_block *next;
    max_align_t data[];
} tmp_block_t;

struct sched {
    struct MPI_ABI_Comm *comm; /* collective context of the communicator */
    int tag;
    step_t *steps;
    int n, cap;
    int cur;        /* next step to execute                 */
    int fence_from; /* first step since the last fence       */
    int err;
    int done, blocking;
    tmp_block_t *tmps;
    struct MPI_ABI_Op *held;
    void *adopted[3];
    struct MPI_ABI_Comm *use_comm; /* sched_use */
    int use_tagx;
    mpid_req_t *req; /* nonblocking: completes with the schedule */
    struct MPI_ABI_Comm *user_comm; /* the communicator the user called with (errors) */
    sched_t *prev, *next;
};

int coll_n_active;
static sched_t *active_head;

sched_t *sched_new(struct MPI_ABI_Comm *c)
{
    sched_t *s = calloc(1, sizeof *s);
    if (!s)
        mpir_fatal("out of memory for a collective schedule");
    s->comm = c->coll;
    s->user_comm = c;
    s->tag = coll_next_tag(c);
    return s;
}

void *sched_tmp(sched_t *s, size_t bytes)
{
    tmp_block_t *b = malloc(sizeof *b + (bytes ? bytes : 1));
    if (!b)
        mpir_fatal("out of memory for %zu bytes of collective scratch space", bytes);
    b->next = s->tmps;
    s->tmps = b;
    return b->data;
}

static step_t *add(sched_t *s, int kind)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->steps = realloc(s->steps, (size_t)s->cap * sizeof *s->steps);
        if (!s->steps)
            mpir_fatal("out of memory for a collective schedule of %d steps", s->cap);
    }
    step_t *t = &s->steps[s->n++];
    memset(t, 0, sizeof *t);
    t->kind = (uint8_t)kind;
    t->comm = s->use_comm;
    t->tagx = s->use_tagx;
    return t;
}

void sched_send(sched_t *s, const void *buf, size_t bytes, int peer)
{
    step_t *t = add(s, S_SEND);
    t->src = buf;
    t->bytes = bytes;
    t->peer = peer;
}

void sched_recv(sched_t *s, void *buf, size_t bytes, int peer)
{
    step_t *t = add(s, S_RECV);
    t->dst = buf;
    t->bytes = bytes;
    t->peer = peer;
}

void sched_send_tag(sched_t *s, const void *buf, size_t bytes, int peer, int tagx)
{
    sched_send(s, buf, bytes, peer);
    s->steps[s->n - 1].tagx += tagx;
}

void sched_recv_tag(sched_t *s, void *buf, size_t bytes, int peer, int tagx)
{
    sched_recv(s, buf, bytes, peer);
    s->steps[s->n - 1].tagx += tagx;
}

void sched_fence(sched_t *s)
{
    if (s->n && s->steps[s->n - 1].kind != S_FENCE)
        add(s, S_FENCE);
}

void sched_copy(sched_t *s, void *dst, const void *src, size_t bytes)
{
    if (!bytes || dst == src)
        return;
    step_t *t = add(s, S_COPY);
    t->dst = dst;
    t->src = src;
    t->bytes = bytes;
}

void sched_reduce(sched_t *s, const void *in, void *inout, size_t count, const reducer_t *r)
{
    if (!count)
        return;
    step_t *t = add(s, S_REDUCE);
    t->src = in;
    t->dst = inout;
    t->count = count;
    t->red = *r;
}

void sched_use(sched_t *s, struct MPI_ABI_Comm *comm, int tagx)
{
    s->use_comm = comm;
    s->use_tagx = tagx;
}

void sched_adopt(sched_t *s, void *p)
{
    for (int i = 0; p && i < 3; i++)
        if (!s->adopted[i]) {
            s->adopted[i] = p;
            return;
        }
    if (p)
        mpir_fatal("collective schedule adopts too many buffers");
}

void coll_unpack_run(const struct coll_unpack *u)
{
    if (u->span)
        dt_move(u->d, u->user, u->packed, u->n);
    else
        dt_copy(u->d, u->user, u->n, 0, u->packed, (size_t)u->n * u->d->size, 1);
}

void sched_unpack_block(sched_t *s, const struct coll_unpack *u)
{
    step_t *t = add(s, S_UNPACK);
    t->unpack = *u;
    dt_retain(u->d); /* released with the schedule (sched_free) */
}

void sched_unpack(sched_t *s, const struct coll_unpack *u)
{
    sched_unpack_block(s, u);
    sched_adopt(s, u->packed);
}

void sched_hold_op(sched_t *s, struct MPI_ABI_Op *op)
{
    if (op->user && !s->held) {
        op_hold(op);
        s->held = op;
    }
}

/* All sends/receives since the last fence done?  Then release them. */
static int fence_passed(sched_t *s)
{
    for (int i = s->fence_from; i < s->cur; i++) {
        mpid_req_t *r = s->steps[i].req;
        if (r && !r->done)
            return 0;
    }
    for (int i = s->fence_from; i < s->cur; i++) {
        step_t *t = &s->steps[i];
        if (t->req) {
            if (t->req->st_error && !s->err)
                s->err = t->req->st_error;
            req_release(t->req);
            t->req = NULL;
        }
    }
    s->fence_from = s->cur + 1;
    return 1;
}

/* Execute as far as possible; 1 if any step ran. */
static int advance(sched_t *s)
{
    int moved = 0;
    while (s->cur < s->n) {
        step_t *t = &s->steps[s->cur];
        switch (t->kind) {
        case S_SEND:
            t->req = mpid_isend(t->src, t->bytes, t->peer, s->tag + t->tagx, t->comm ? t->comm : s->comm,
                                MODE_STD);
            break;
        case S_RECV:
            t->req = mpid_irecv(t->dst, t->bytes, t->peer, s->tag + t->tagx, t->comm ? t->comm : s->comm);
            break;
        case S_FENCE:
            if (!fence_passed(s))
                return moved;
            break;
        case S_COPY:
            memcpy(t->dst, t->src, t->bytes);
            break;
        case S_REDUCE:
            op_apply(&t->red, t->src, t->dst, t->count);
            break;
        case S_UNPACK:
            coll_unpack_run(&t->unpack);
            break;
        }
        s->cur++;
        moved = 1;
    }
    if (!fence_passed(s))
        return moved;
    __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
    return 1;
}

static void sched_free(sched_t *s)
{
    while (s->tmps) {
        tmp_block_t *b = s->tmps;
        s->tmps = b->next;
        free(b);
    }
    if (s->held)
        op_release(s->held);
    for (int i = 0; i < 3; i++)
        free(s->adopted[i]);
    for (int i = 0; i < s->n; i++)
        if (s->steps[i].kind == S_UNPACK)
            dt_release(s->steps[i].unpack.d);
    free(s->steps);
    free(s);
}

static void unlink_active(sched_t *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        active_head = s->next;
    if (s->next)
        s->next->prev = s->prev;
    coll_n_active--;
}

/* s finished: hand the result to whoever waits for it. */
static void finish(sched_t *s)
{
    unlink_active(s);
    if (s->blocking)
        return; /* sched_run frees it */
    s->req->st_error = s->err;
    req_complete(s->req);
    sched_free(s);
}

static void start(sched_t *s)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the active list is the device's */
    s->prev = NULL;
    s->next = active_head;
    if (active_head)
        active_head->prev = s;
    active_head = s;
    coll_n_active++;
    if (advance(s) && s->done)
        finish(s);
}

int coll_progress(void)
{
    static int busy; /* a user op calling MPI must not re-enter the walk */
    if (busy)
        return 0;
    busy = 1;
    int moved = 0;
    for (sched_t *s = active_head, *next; s; s = next) {
        next = s->next;
        if (advance(s)) {
            moved = 1;
            if (s->done)
                finish(s);
        }
    }
    busy = 0;
    return moved;
}

int sched_run(sched_t *s)
{
    s->blocking = 1;
    sched_fence(s);
    start(s);
    while (!__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
        if (!mpid_progress() && !__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
            mpid_idle();
    /* MULTIPLE: the thread that set done unlinks s before it unlocks */
    mpid_cs_exit(mpid_cs_enter());
    int err = s->err;
    sched_free(s);
    return err;
}

mpid_req_t *sched_start_req(sched_t *s)
{
    mpid_req_t *r = req_alloc(REQ_COLL);
    r->comm = s->user_comm; /* errors on the request go to the user's handler */
    s->req = r;
    sched_fence(s);
    start(s);
    return r;
}
