/*
 * partitioned.c — partitioned communication (MPI 4.0): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready, MPI_Pready_range, MPI_Pready_list,
 * MPI_Parrived.
 *
 * Matching.  The k-th MPI_Precv_init(source S, tag T, comm C) must pair with
 * the k-th MPI_Psend_init(dest R, tag T, comm C) at S, and partitioned
 * operations never match ordinary ones.  The receiver names the pairing: at
 * init it picks a channel number (a counter of this process) and sends S a
 * hello {T, channel} on C's point-to-point context with tag PART_HELLO.  The
 * sender files the hellos arriving from R in order and gives each Psend, in
 * init order, the first unclaimed hello with its tag — the standard's rule.
 * Data then travels on C with tag PART_DATA - channel.  Internal tags are
 * negative: user receives (MPI_ANY_TAG included, device/device.h match_tag)
 * never see them.
 *
 * Data.  The partitions of one round go as one message (the whole buffer,
 * derived types through the typed paths) when the last partition is marked
 * ready; the receiver posts its receive at MPI_Start, and MPI_Parrived says
 * true for every partition once that message is in.  The standard allows
 * this (partitions may be delivered together); it is one message per round
 * instead of one per partition.
 *
 * Progress.  A send whose hello has not come yet, or whose data is due, is
 * moved on by part_progress, which the device calls from every progress pass
 * while any is pending (part_n_pending), like started collectives.  The
 * request the user waits on (->active) is a placeholder completed when the
 * data send completes.
 */
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"

#define PART_HELLO (-16)
#define PART_DATA (-64) /* data tag: PART_DATA - channel */

typedef struct hello {
    int tag, chan;
} hello_t;

typedef struct part {
    int kind; /* DTP_PART: shares the persistent request's ->dtp slot */
    int is_recv;
    struct MPI_ABI_Comm *c;
    int peer, tag;
    void *buf;
    int count; /* elements of d in the whole buffer */
    struct MPI_ABI_Datatype *d;
    size_t bytes;
    int parts;
    unsigned char *ready; /* send: partitions marked this round */
    int nready;
    int chan;             /* -1: send not matched yet */
    mpid_req_t *active;   /* send: the placeholder the user waits on */
    mpid_req_t *data;     /* send: the data message in flight */
    struct part *next;    /* send: in the pending list */
    uint64_t order;       /* send: init order, for matching */
} part_t;

/* A hello that arrived and no Psend claimed yet. */
typedef struct inbox {
    struct MPI_ABI_Comm *c;
    int src;
    hello_t h;
    struct inbox *next;
} inbox_t;

/* A receive posted for hellos from one peer on one communicator. */
typedef struct listener {
    struct MPI_ABI_Comm *c;
    int src;
    hello_t h;
    mpid_req_t *req;
    struct listener *next;
} listener_t;

int part_n_pending;
static part_t *pending;  /* sends unmatched or with a round under way, in init order */
static inbox_t *inbox;   /* FIFO */
static listener_t *listeners;
static int next_chan;
static uint64_t next_order;

static void pending_add(part_t *p)
{
    part_t **at = &pending;
    while (*at && (*at)->order < p->order)
        at = &(*at)->next;
    if (*at == p)
        return;
    p->next = *at;
    *at = p;
    part_n_pending++;
}

static void pending_remove(part_t *p)
{
    for (part_t **at = &pending; *at; at = &(*at)->next)
        if (*at == p) {
            *at = p->next;
            p->next = NULL;
            part_n_pending--;
            return;
        }
}

static void listen_to(struct MPI_ABI_Comm *c, int src)
{
    for (listener_t *l = listeners; l; l = l->next)
        if (l->c == c && l->src == src) {
            if (!l->req) {
                l->req = mpid_irecv(&l->h, sizeof l->h, src, PART_HELLO, c);
                l->req->comm = c;
            }
            return;
        }
    listener_t *l = calloc(1, sizeof *l);
    if (!l)
        mpir_fatal("out of memory for partitioned communication");
    l->c = c;
    l->src = src;
    l->req = mpid_irecv(&l->h, sizeof l->h, src, PART_HELLO, c);
    l->req->comm = c;
    l->next = listeners;
    listeners = l;
}

/* Hellos that arrived go to the inbox (in arrival order). */
static int collect(void)
{
    int moved = 0;
    for (listener_t *l = listeners; l; l = l->next)
        if (l->req && l->req->done) {
            inbox_t *e = malloc(sizeof *e), **tail = &inbox;
            if (!e)
                mpir_fatal("out of memory for partitioned communication");
            *e = (inbox_t){l->c, l->src, l->h, NULL};
            while (*tail)
                tail = &(*tail)->next;
            *tail = e;
            req_release(l->req);
            l->req = NULL;
            moved = 1;
        }
    return moved;
}

/* Hello receives nobody waits for any more are cancelled: a posted receive
 * would keep the device off its fast paths (mpid.n_posted) for good. */
static void quiet(void)
{
    for (listener_t *l = listeners; l; l = l->next) {
        if (!l->req || l->req->done)
            continue;
        int wanted = 0;
        for (part_t *p = pending; p && !wanted; p = p->next)
            wanted = p->chan < 0 && p->c == l->c && p->peer == l->src;
        if (!wanted && mpid_cancel(l->req)) {
            req_release(l->req);
            l->req = NULL;
        }
    }
}

static int claim(part_t *p)
{
    for (inbox_t **at = &inbox; *at; at = &(*at)->next)
        if ((*at)->c == p->c && (*at)->src == p->peer && (*at)->h.tag == p->tag) {
            inbox_t *e = *at;
            p->chan = e->h.chan;
            *at = e->next;
            free(e);
            return 1;
        }
    return 0;
}

static mpid_req_t *send_data(part_t *p)
{
    int tag = PART_DATA - p->chan;
    return p->d->contiguous ? mpid_isend(p->buf, p->bytes, p->peer, tag, p->c, MODE_STD)
                            : mpir_dt_isend(p->buf, p->count, p->d, p->peer, tag, p->c, MODE_STD);
}

int part_progress(void)
{
    int moved = collect();
    for (part_t *p = pending, *next; p; p = next) {
        next = p->next;
        if (p->chan < 0) {
            if (claim(p))
                moved = 1;
            else
                listen_to(p->c, p->peer); /* (re)post the hello receive */
        }
        if (p->chan >= 0 && p->active && p->nready == p->parts && !p->data) {
            p->data = send_data(p);
            moved = 1;
        }
        if (p->data && p->data->done) { /* the round is over */
            p->active->st_error = p->data->st_error;
            req_release(p->data);
            p->data = NULL;
            mpid_req_t *a = p->active;
            p->active = NULL;
            req_complete(a);
            moved = 1;
        }
        if (p->chan >= 0 && !p->active)
            pending_remove(p);
    }
    quiet();
    return moved;
}

/* ---- init ------------------------------------------------------------------------ */
static int make(const char *fn, const void *buf, int partitions, MPI_Count count,
                MPI_Datatype dt, int peer, int tag, MPI_Comm comm, int is_recv,
                MPI_Request *request)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm(fn, comm, &c)))
        return rc;
    if (partitions < 1 || count < 0 || (int64_t)partitions * count > INT32_MAX)
        return mpir_error(c, partitions < 1 ? MPI_ERR_ARG : MPI_ERR_COUNT,
                          "%s: invalid partitions %d or count %lld", fn, partitions,
                          (long long)count);
    if (peer == MPI_ANY_SOURCE || tag == MPI_ANY_TAG)
        return mpir_error(c, peer == MPI_ANY_SOURCE ? MPI_ERR_RANK : MPI_ERR_TAG,
                          "%s: wildcards are not allowed in partitioned communication", fn);
    int total = (int)((int64_t)partitions * count);
    size_t bytes;
    if ((rc = check_p2p(fn, buf, total, dt, peer, tag, comm, is_recv, &c, &bytes)) ||
        (rc = check_req_ptr(fn, c, request)))
        return rc;
    if (peer == MPI_PROC_NULL)
        return mpir_error(c, MPI_ERR_RANK, "%s: MPI_PROC_NULL is not a partitioned peer", fn);
    if (is_recv && next_chan >= (1 << 30))
        return mpir_error(c, MPI_ERR_OTHER, "%s: partitioned channels exhausted", fn);
    part_t *p = calloc(1, sizeof *p);
    unsigned char *ready = is_recv ? NULL : calloc((size_t)partitions, 1);
    hello_t *h = is_recv ? malloc(sizeof *h) : NULL;
    if (!p || (!is_recv && !ready) || (is_recv && !h)) {
        free(p);
        free(ready);
        free(h);
        return mpir_error(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    *p = (part_t){.kind = DTP_PART, .is_recv = is_recv, .c = c, .peer = peer, .tag = tag,
                  .buf = (void *)buf, .count = total, .d = dtype_of(dt), .bytes = bytes,
                  .parts = partitions, .ready = ready, .chan = -1, .order = next_order++};
    dt_retain(p->d);
    if (is_recv) { /* name the channel and tell the sender */
        p->chan = next_chan++;
        *h = (hello_t){tag, p->chan};
        mpid_req_t *s = mpid_isend(h, sizeof *h, peer, PART_HELLO, c, MODE_STD);
        s->tmp = (char *)h; /* freed with the send request */
        if (s->done)
            req_release(s);
        else
            s->user_freed = 1;
    } else {
        pending_add(p); /* until a hello names its channel */
        listen_to(c, peer);
    }
    mpid_req_t *r = req_alloc(REQ_PERSIST);
    r->comm = c;
    r->peer = peer;
    r->tag = tag;
    r->p_mode = MODE_PART;
    r->p_is_recv = is_recv;
    r->dtp = p;
    *request = (MPI_Request)r;
    return MPI_SUCCESS;
}

int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info; /* no hints are used */
    return make("MPI_Psend_init", buf, partitions, count, datatype, dest, tag, comm, 0, request);
}

int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                   int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    return make("MPI_Precv_init", buf, partitions, count, datatype, source, tag, comm, 1,
                request);
}

/* ---- start, free (persistent.c, datatype/p2p.c dispatch) ------------------------- */
int part_start(mpid_req_t *r, mpid_req_t **op)
{
    part_t *p = r->dtp;
    if (p->is_recv) {
        int tag = PART_DATA - p->chan;
        *op = p->d->contiguous ? mpid_irecv(p->buf, p->bytes, p->peer, tag, p->c)
                               : mpir_dt_irecv(p->buf, p->count, p->d, p->peer, tag, p->c);
        return MPI_SUCCESS;
    }
    memset(p->ready, 0, (size_t)p->parts);
    p->nready = 0;
    p->active = req_alloc(REQ_DONE); /* done when the data send is */
    p->active->comm = p->c;
    p->active->st_source = MPI_PROC_NULL;
    p->active->st_tag = MPI_ANY_TAG;
    *op = p->active;
    pending_add(p);
    return MPI_SUCCESS;
}

void part_forget(mpid_req_t *r)
{
    part_t *p = r->dtp;
    r->dtp = NULL;
    pending_remove(p);
    quiet();
    dt_release(p->d);
    free(p->ready);
    free(p);
}

/* ---- ready / arrived ------------------------------------------------------------- */
static int own(const char *fn, MPI_Request h, int want_recv, part_t **out)
{
    mpid_req_t *r = (mpid_req_t *)h;
    if ((uintptr_t)h < MPIR_PREDEF_BOUND || r->magic != MAGIC_REQ || r->kind != REQ_PERSIST ||
        r->p_mode != MODE_PART || r->p_is_recv != want_recv)
        return mpir_error(NULL, MPI_ERR_REQUEST, "%s: not a partitioned %s request", fn,
                          want_recv ? "receive" : "send");
    *out = r->dtp;
    return MPI_SUCCESS;
}

static int mark(const char *fn, part_t *p, int partition)
{
    if (!p->active)
        return mpir_error(p->c, MPI_ERR_REQUEST, "%s: the request is not active (MPI_Start it)",
                          fn);
    if (partition < 0 || partition >= p->parts)
        return mpir_error(p->c, MPI_ERR_ARG, "%s: partition %d out of range (0..%d)", fn,
                          partition, p->parts - 1);
    if (p->ready[partition])
        return mpir_error(p->c, MPI_ERR_ARG, "%s: partition %d already marked ready", fn,
                          partition);
    p->ready[partition] = 1;
    p->nready++;
    return MPI_SUCCESS;
}

/* After marking: the last partition sends the round at once when matched. */
static int marked(part_t *p)
{
    if (p->nready == p->parts)
        part_progress();
    return MPI_SUCCESS;
}

int MPI_Pready(int partition, MPI_Request request)
{
    static const char fn[] = "MPI_Pready";
    part_t *p = NULL;
    int rc;
    if ((rc = own(fn, request, 0, &p)) || (rc = mark(fn, p, partition)))
        return rc;
    return marked(p);
}

int MPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    static const char fn[] = "MPI_Pready_range";
    part_t *p = NULL;
    int rc;
    if ((rc = own(fn, request, 0, &p)))
        return rc;
    if (partition_low > partition_high)
        return mpir_error(p->c, MPI_ERR_ARG, "%s: empty range %d..%d", fn, partition_low,
                          partition_high);
    for (int i = partition_low; i <= partition_high; i++)
        if ((rc = mark(fn, p, i)))
            return rc;
    return marked(p);
}

int MPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    static const char fn[] = "MPI_Pready_list";
    part_t *p = NULL;
    int rc;
    if ((rc = own(fn, request, 0, &p)))
        return rc;
    if (length < 0 || (length > 0 && !array_of_partitions))
        return mpir_error(p->c, MPI_ERR_ARG, "%s: invalid length %d or NULL array", fn, length);
    for (int i = 0; i < length; i++)
        if ((rc = mark(fn, p, array_of_partitions[i])))
            return rc;
    return marked(p);
}

int MPI_Parrived(MPI_Request request, int partition, int *flag)
{
    static const char fn[] = "MPI_Parrived";
    part_t *p = NULL;
    int rc;
    if ((rc = own(fn, request, 1, &p)))
        return rc;
    if (!flag)
        return mpir_error(p->c, MPI_ERR_ARG, "%s: NULL flag", fn);
    if (partition < 0 || partition >= p->parts)
        return mpir_error(p->c, MPI_ERR_ARG, "%s: partition %d out of range (0..%d)", fn,
                          partition, p->parts - 1);
    mpid_req_t *op = ((mpid_req_t *)request)->active;
    if (op && !op->done)
        mpid_progress();
    *flag = !op || op->done; /* inactive: nothing outstanding */
    return MPI_SUCCESS;
}
