/*
 * comm_create.c — context ids, internal collectives, building and freeing
 * communicators (see comm_create.h).
 *
 * Context ids.  Every process keeps a bitmap of free id pairs (even id:
 * point-to-point, odd: the collectives of the same communicator).  Creating a
 * communicator ANDs the bitmaps of all participants (an allgather over the
 * parent's collective context) and takes the lowest id free everywhere, so
 * communicators created concurrently on overlapping groups never share an
 * id at a process they have in common; when no id is free the call fails
 * with a message saying so.  A message can arrive for an id before this
 * process has finished creating that communicator (a faster peer already
 * uses it): it waits in a placeholder that the new communicator adopts.
 */
#include <stdlib.h>
#include <string.h>

#include "comm_create.h"
#include "device/device.h"

/* ---- internal collectives (device point-to-point) ------------------------- */
static int member(const ic_set_t *s, int i) { return s->members ? s->members[i] : i; }

static void ic_sendrecv(const ic_set_t *s, const void *out, int to, void *in, int from,
                        size_t len)
{
    mpid_req_t *r = mpid_isend(out, len, member(s, to), s->tag, s->cc, MODE_STD);
    MPI_Status st;
    size_t sent;
    mpid_recv(in, len, member(s, from), s->tag, s->cc, &st, &sent);
    mpid_wait(r);
    req_release(r);
}

void ic_allgather(const ic_set_t *s, const void *in, size_t len, void *out)
{
    char *o = out;
    memcpy(o + (size_t)s->me * len, in, len);
    int right = (s->me + 1) % s->n, left = (s->me - 1 + s->n) % s->n;
    for (int step = 0; step < s->n - 1; step++) { /* ring: pass the block received last */
        int sb = (s->me - step + s->n) % s->n, rb = (s->me - step - 1 + s->n) % s->n;
        ic_sendrecv(s, o + (size_t)sb * len, right, o + (size_t)rb * len, left, len);
    }
}

void ic_bcast(const ic_set_t *s, int root, void *buf, size_t len)
{
    if (s->me == root) {
        for (int i = 0; i < s->n; i++)
            if (i != root) {
                mpid_req_t *r = mpid_isend(buf, len, member(s, i), s->tag, s->cc, MODE_STD);
                mpid_wait(r);
                req_release(r);
            }
    } else {
        MPI_Status st;
        size_t sent;
        mpid_recv(buf, len, member(s, root), s->tag, s->cc, &st, &sent);
    }
}

/* ---- context ids ------------------------------------------------------------ */
static ctx_mask_t free_ctx;
static ctx_mask_t offered; /* ids offered by pending nonblocking creations */
static int free_ctx_ready;

static void ctx_init(void)
{
    if (free_ctx_ready)
        return;
    memset(&free_ctx, 0xff, sizeof free_ctx);
    free_ctx.w[0] &= ~(uint64_t)3; /* pairs 0 (WORLD) and 1 (SELF) */
    free_ctx_ready = 1;
}

void ctx_local_mask(ctx_mask_t *m)
{
    ctx_init();
    for (int i = 0; i < CTX_MASK_WORDS; i++)
        m->w[i] = free_ctx.w[i] & ~offered.w[i];
}

void ctx_offer(ctx_mask_t *m, int stripe, int nstripes)
{
    uint64_t pattern = 0; /* bits b with b % nstripes == stripe (64 % nstripes == 0) */
    for (int b = stripe; b < 64; b += nstripes)
        pattern |= (uint64_t)1 << b;
    ctx_local_mask(m);
    for (int i = 0; i < CTX_MASK_WORDS; i++) {
        m->w[i] &= pattern;
        offered.w[i] |= m->w[i];
    }
}

static ctx_mask_t held;

void ctx_hold(const ctx_mask_t *m)
{
    ctx_unhold();
    held = *m;
    for (int i = 0; i < CTX_MASK_WORDS; i++)
        offered.w[i] |= held.w[i];
}

void ctx_unhold(void)
{
    for (int i = 0; i < CTX_MASK_WORDS; i++) {
        offered.w[i] &= ~held.w[i];
        held.w[i] = 0;
    }
}

void ctx_unoffer(const ctx_mask_t *m)
{
    for (int i = 0; i < CTX_MASK_WORDS; i++)
        offered.w[i] &= ~m->w[i];
}

void ctx_and(ctx_mask_t *acc, const ctx_mask_t *m)
{
    for (int i = 0; i < CTX_MASK_WORDS; i++)
        acc->w[i] &= m->w[i];
}

int ctx_first(const ctx_mask_t *m, int skip_ctx)
{
    for (int i = 0; i < CTX_MASK_WORDS; i++) {
        uint64_t w = m->w[i];
        if (skip_ctx >= 0 && skip_ctx / 128 == i)
            w &= ~((uint64_t)1 << (skip_ctx / 2 % 64));
        if (w)
            return 2 * (i * 64 + __builtin_ctzll(w));
    }
    return -1;
}

void ctx_take(int ctx)
{
    MPID_CS_SCOPE();
    ctx_init();
    free_ctx.w[ctx / 128] &= ~((uint64_t)1 << (ctx / 2 % 64));
}

void ctx_put(int ctx)
{
    MPID_CS_SCOPE();
    free_ctx.w[ctx / 128] |= (uint64_t)1 << (ctx / 2 % 64);
}

/* ---- concurrent creations (MPI_THREAD_MULTIPLE), under the device lock -------- */
static long long *mt_parents, mt_owner = -1; /* mt_owner: the creation that offers ids this round */
static int mt_n, mt_cap; /* parent whose creation offers ids this round */

void ctx_mt_register(long long parent)
{
    MPID_CS_SCOPE();
    if (mt_n == mt_cap) {
        int cap = mt_cap ? 2 * mt_cap : 8;
        long long *p = realloc(mt_parents, (size_t)cap * sizeof *p);
        if (!p)
            mpir_fatal("out of memory creating a communicator");
        mt_parents = p;
        mt_cap = cap;
    }
    mt_parents[mt_n++] = parent;
}

void ctx_mt_unregister(long long parent)
{
    MPID_CS_SCOPE();
    for (int i = 0; i < mt_n; i++)
        if (mt_parents[i] == parent) {
            mt_parents[i] = mt_parents[--mt_n];
            break;
        }
    if (!mt_n) {
        free(mt_parents);
        mt_parents = NULL;
        mt_cap = 0;
    }
}

int ctx_mt_offer(long long parent, ctx_mask_t *m)
{
    MPID_CS_SCOPE();
    memset(m, 0, sizeof *m);
    if (mt_owner >= 0)
        return 0;
    for (int i = 0; i < mt_n; i++)
        if (mt_parents[i] < parent)
            return 0;
    mt_owner = parent;
    ctx_local_mask(m);
    for (int i = 0; i < CTX_MASK_WORDS; i++)
        offered.w[i] |= m->w[i];
    return 1;
}

void ctx_mt_settle(long long parent, const ctx_mask_t *m, int ctx)
{
    MPID_CS_SCOPE();
    if (mt_owner != parent)
        return;
    if (ctx >= 0)
        ctx_take(ctx);
    ctx_unoffer(m);
    mt_owner = -1;
}

/* ---- placeholders for early messages ---------------------------------------- */
struct MPI_ABI_Comm *comm_early_arrival(int ctx)
{
    struct MPI_ABI_Comm **slot = comm_ctx_slot(ctx);
    if (!slot)
        mpir_fatal("message for invalid communicator context %d", ctx);
    struct MPI_ABI_Comm *c = calloc(1, sizeof *c);
    if (!c)
        mpir_fatal("out of memory holding a message for context %d", ctx);
    /* source ranks of a communicator never exceed the processes known here
     * (plus room for members of another job this process is still learning
     * of: dynproc/connect.c) */
    comm_setup(c, ctx, -1, mpid.npeers + (mpid.npeers > mpid.size ? 4096 : 0), NULL,
               "(communicator being created)");
    c->magic = 0; /* not a handle anyone may use */
    return c;
}

/* Move what arrived early for ctx into c (its real communicator). */
static void adopt_early(struct MPI_ABI_Comm *c, struct MPI_ABI_Comm *early)
{
    for (int s = 0; s < early->size; s++) {
        mpid_req_t *u = early->unexp[s].head;
        if (!u)
            continue;
        if (s >= c->size)
            mpir_fatal("message from rank %d for a communicator of size %d (context %d)", s,
                       c->size, c->ctx);
        for (mpid_req_t *q = u; q; q = q->next)
            q->comm = c;
        c->unexp[s] = early->unexp[s];
        early->unexp[s].head = early->unexp[s].tail = NULL;
    }
    c->arrive_seq = early->arrive_seq; /* arrival order stays comparable */
    c->n_unexp = early->n_unexp;
    early->n_unexp = 0;
    free(early->posted);
    free(early->unexp);
    free(early);
}

static void setup_on(struct MPI_ABI_Comm *c, int ctx, int rank, int size, int *world_of,
                     const char *name)
{
    struct MPI_ABI_Comm **slot = comm_ctx_slot(ctx), *early = *slot;
    comm_setup(c, ctx, rank, size, world_of, name);
    if (early)
        adopt_early(c, early);
}

/* ---- building and freeing ------------------------------------------------------ */
struct comm_ext *comm_ext_get(struct MPI_ABI_Comm *c)
{
    if (!c->ext)
        c->ext = calloc(1, sizeof *c->ext);
    if (c->ext && c->name && c->name != c->ext->name) /* WORLD/SELF: keep their name */
        strncpy(c->ext->name, c->name, sizeof c->ext->name - 1);
    if (c->ext)
        c->name = c->ext->name;
    return c->ext;
}

void comm_ext_drop(struct MPI_ABI_Comm *c, const char *name)
{
    struct comm_ext *x = c->ext;
    if (!x)
        return;
    mpir_comm_free_ext(c);
    if (x->group)
        group_release(x->group);
    free(x);
    c->ext = NULL;
    c->name = name;
}

int mpir_comm_local_size(const struct MPI_ABI_Comm *c)
{
    return comm_is_inter(c) ? c->ext->group->size : c->size;
}

const int *mpir_comm_local_world(const struct MPI_ABI_Comm *c)
{
    return comm_is_inter(c) ? c->ext->group->world : c->world_of;
}

struct MPI_ABI_Comm *comm_build(int ctx, int rank, int size, int *world_of,
                                struct MPI_ABI_Group *group, struct MPI_ABI_Group *remote,
                                struct MPI_ABI_Errhandler *eh)
{
    return comm_build_into(NULL, ctx, rank, size, world_of, group, remote, eh);
}

struct MPI_ABI_Comm *comm_build_into(struct MPI_ABI_Comm *into, int ctx, int rank, int size,
                                     int *world_of, struct MPI_ABI_Group *group,
                                     struct MPI_ABI_Group *remote, struct MPI_ABI_Errhandler *eh)
{
    MPID_CS_SCOPE(); /* the context table is read by progress */
    struct MPI_ABI_Comm *c = into ? into : calloc(1, sizeof *c);
    struct MPI_ABI_Comm *shadow = calloc(1, sizeof *shadow);
    struct comm_ext *x = calloc(1, sizeof *x);
    if (!c || !shadow || !x)
        mpir_fatal("out of memory creating a communicator");
    ctx_take(ctx);
    setup_on(c, ctx, rank, size, world_of, x->name);
    setup_on(shadow, ctx + 1, rank, size, world_of, x->name);
    c->coll = shadow;
    c->ext = x;
    x->group = group;
    x->remote = remote;
    x->owns_world_of = 1;
    c->eh = eh;
    if (eh->kind == EH_USER)
        mpid_ref_add(&eh->refs, 1);
    return c;
}

/* ---- freeing with operations pending ------------------------------------------ */
static struct MPI_ABI_Comm **freed; /* freed by the user, still used by requests */
static int n_freed, cap_freed;

static int uses(const mpid_req_t *r, const void *arg)
{
    const struct MPI_ABI_Comm *c = arg;
    if (r->comm != c && r->comm != c->coll)
        return 0;
    /* an unexpected message nobody will receive now goes with c */
    return !(r->kind == REQ_RECV && !r->posted && !r->attached);
}

static int busy(const struct MPI_ABI_Comm *c)
{
    const struct MPI_ABI_Comm *loc = c->ext ? c->ext->local : NULL;
    return req_any(uses, c) || (loc && req_any(uses, loc));
}

static void destroy_freed(struct MPI_ABI_Comm *c)
{
    mpir_comm_free_ext(c);
    comm_destroy(c);
}

void comm_free_when_idle(struct MPI_ABI_Comm *c)
{
    MPID_CS_SCOPE();
    comm_reap_freed(0);
    if (!busy(c)) {
        destroy_freed(c);
        return;
    }
    if (n_freed == cap_freed) {
        int cap = cap_freed ? 2 * cap_freed : 8;
        struct MPI_ABI_Comm **f = realloc(freed, (size_t)cap * sizeof *f);
        if (!f)
            mpir_fatal("out of memory freeing a communicator");
        freed = f;
        cap_freed = cap;
    }
    c->magic = 0; /* no longer a handle; messages for its context still match */
    freed[n_freed++] = c;
}

void comm_reap_freed(int force)
{
    MPID_CS_SCOPE();
    for (int i = 0; i < n_freed;)
        if (force || !busy(freed[i])) {
            struct MPI_ABI_Comm *c = freed[i];
            freed[i] = freed[--n_freed];
            destroy_freed(c);
        } else {
            i++;
        }
    if (force) {
        free(freed);
        freed = NULL;
        n_freed = cap_freed = 0;
    }
}

void comm_destroy(struct MPI_ABI_Comm *c)
{
    MPID_CS_SCOPE();
    struct comm_ext *x = c->ext;
    int ctx = c->ctx;
    comm_teardown(c->coll);
    free(c->coll);
    comm_teardown(c);
    if (x->owns_world_of)
        free(c->world_of);
    if (x->group)
        group_release(x->group);
    if (x->remote)
        group_release(x->remote);
    if (x->local)
        comm_destroy(x->local);
    free(x);
    free(c);
    ctx_put(ctx);
}
