/*
 * comm_mgmt.c — communicator management: Comm_dup(_with_info), idup, split,
 * split_type, create, create_group, free, compare, names, info, test_inter,
 * remote size/group, Intercomm_create and Intercomm_merge.
 *
 * Every creation is one agreement round (comm_create.c): an allgather over
 * the parent's collective context carrying each process's free-context mask
 * (and for split its color and key).  Intercommunicators agree in three
 * steps: inside each group, between the two leaders, back inside each group.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"
#include "coll/coll.h"
#include "comm_create.h"
#include "dynproc/dynproc.h"
#include "info/info.h"
#include "topo/topo.h"

#define TAG_CREATE 0x7ffffff0 /* internal messages of communicator creation */

typedef struct agree_msg {
    ctx_mask_t mask;
    int color, key;
    int world; /* world rank of the sender */
    int high;
    int deferred; /* MULTIPLE: another creation here offers ids this round */
} agree_msg_t;

static int no_ctx(const char *fn, struct MPI_ABI_Comm *c)
{
    return mpir_error(c, MPI_ERR_OTHER,
                      "%s: no free context id: all %d communicators are in use at some process "
                      "of the group (free some)",
                      fn, MPIR_MAX_CTX / 2 - 2);
}

static int no_mem(const char *fn, struct MPI_ABI_Comm *c)
{
    return mpir_error(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
}

static ic_set_t whole(struct MPI_ABI_Comm *c)
{
    return (ic_set_t){c->coll, NULL, c->size, c->rank, TAG_CREATE};
}

/* Allgather my message over s; AND of all masks into *acc.  all may be NULL.
 * My mask is held (ctx_hold) while progress runs: an intracommunicator
 * creation takes its id right after, so gather gives it back; the
 * intercommunicator ones (HOLD_KEEP) exchange more first and call
 * ctx_unhold when done. */
enum { HOLD_DROP, HOLD_KEEP };

/* MPI_THREAD_MULTIPLE, intracommunicator: rounds until an id is agreed or
 * every member offered all it has (comm_create.h, ctx_mt_*).  The id is
 * taken at once, before another thread's creation can offer it. */
static int gather_mt(const ic_set_t *s, agree_msg_t *mine, agree_msg_t **all, ctx_mask_t *acc)
{
    long long parent = (long long)s->cc->ctx << 32 | (uint32_t)s->tag;
    agree_msg_t *v = malloc((size_t)s->n * sizeof *v);
    if (!v)
        return MPI_ERR_NO_MEM;
    ctx_mt_register(parent);
    for (;;) {
        comm_reap_freed(0);
        mine->deferred = !ctx_mt_offer(parent, &mine->mask);
        mine->world = mpid.rank;
        ic_allgather(s, mine, sizeof *mine, v);
        int deferred = v[0].deferred;
        *acc = v[0].mask;
        for (int i = 1; i < s->n; i++) {
            ctx_and(acc, &v[i].mask);
            deferred |= v[i].deferred;
        }
        int ctx = ctx_first(acc, -1);
        ctx_mt_settle(parent, &mine->mask, ctx);
        if (ctx >= 0 || !deferred)
            break;
        sched_yield(); /* let the creation that offers finish its round */
    }
    ctx_mt_unregister(parent);
    if (all)
        *all = v;
    else
        free(v);
    return 0;
}

static int gather_hold(const ic_set_t *s, agree_msg_t *mine, agree_msg_t **all, ctx_mask_t *acc,
                       int hold)
{
    if (unlikely(mpir_mt) && hold == HOLD_DROP)
        return gather_mt(s, mine, all, acc);
    comm_reap_freed(0); /* freed communicators now idle give their ids back */
    ctx_local_mask(&mine->mask);
    ctx_hold(&mine->mask);
    mine->world = mpid.rank;
    agree_msg_t *v = malloc((size_t)s->n * sizeof *v);
    if (!v) {
        ctx_unhold();
        return MPI_ERR_NO_MEM;
    }
    ic_allgather(s, mine, sizeof *mine, v);
    if (hold == HOLD_DROP)
        ctx_unhold();
    *acc = v[0].mask;
    for (int i = 1; i < s->n; i++)
        ctx_and(acc, &v[i].mask);
    if (all)
        *all = v;
    else
        free(v);
    return 0;
}

static int gather(const ic_set_t *s, agree_msg_t *mine, agree_msg_t **all, ctx_mask_t *acc)
{
    return gather_hold(s, mine, all, acc, HOLD_DROP);
}

static int check_intra(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **c)
{
    int rc = check_comm(fn, comm, c);
    if (!rc && comm_is_inter(*c))
        rc = mpir_error(*c, MPI_ERR_COMM, "%s: not supported on an intercommunicator", fn);
    return rc;
}

static int *world_list(struct MPI_ABI_Comm *c, int n, const int *from)
{
    int *w = malloc((size_t)(n ? n : 1) * sizeof *w);
    if (w)
        for (int i = 0; i < n; i++)
            w[i] = from ? from[i] : i;
    (void)c;
    return w;
}

/* Everything a new communicator inherits besides its group: attributes
 * (copy callbacks), topology, info. */
static int inherit(const char *fn, struct MPI_ABI_Comm *from, MPI_Comm from_h,
                   struct MPI_ABI_Comm *to, int copy_info)
{
    int rc = 0;
    if (from->ext && from->ext->attrs)
        rc = attr_copy_all(fn, ATTR_COMM, from_h, from->ext->attrs, &to->ext->attrs);
    if (!rc && from->ext && from->ext->topo && !(to->ext->topo = topo_dup(from->ext->topo)))
        rc = no_mem(fn, from);
    if (from->ext)
        to->ext->session = from->ext->session; /* its session's buffer (bsend.c) */
    if (!rc && copy_info && from->ext && from->ext->info &&
        !(to->ext->info = info_dup(from->ext->info)))
        rc = no_mem(fn, from);
    return rc;
}

void mpir_comm_free_ext(struct MPI_ABI_Comm *c)
{
    if (c->ext) {
        topo_free(c->ext->topo);
        info_free(c->ext->info);
        mpir_bsend_pool_free(c->ext->bpool);
        c->ext->bpool = NULL;
        c->ext->topo = NULL;
        c->ext->info = NULL;
    }
}

static void destroy(struct MPI_ABI_Comm *c)
{
    mpir_comm_free_ext(c);
    comm_destroy(c);
}

/* ---- intercommunicator agreement ------------------------------------------- */
/* Leaders swap len bytes over pc (dest/src rank peer, tag), then every local
 * member gets the remote side's bytes from its leader. */
static void leader_swap(const ic_set_t *local, int leader, struct MPI_ABI_Comm *pc, int peer,
                        int tag, const void *mine, void *theirs, size_t len)
{
    if (local->me == leader) {
        mpid_req_t *r = mpid_isend(mine, len, peer, tag, pc, MODE_STD);
        MPI_Status st;
        size_t sent;
        mpid_recv(theirs, len, peer, tag, pc, &st, &sent);
        mpid_wait(r);
        req_release(r);
    }
    ic_bcast(local, leader, theirs, len);
}

static int dup_inter_held(const char *fn, struct MPI_ABI_Comm *c, struct MPI_ABI_Comm **out)
{
    struct MPI_ABI_Comm *loc = c->ext->local;
    ic_set_t s = whole(loc);
    agree_msg_t mine = {0}, theirs;
    ctx_mask_t local_and;
    if (gather_hold(&s, &mine, NULL, &local_and, HOLD_KEEP))
        return no_mem(fn, c);
    mine.mask = local_and;
    leader_swap(&s, 0, c->coll, 0, TAG_CREATE, &mine, &theirs, sizeof mine);
    ctx_mask_t both = local_and;
    ctx_and(&both, &theirs.mask);
    int ctx = ctx_first(&both, -1), lctx = ctx_first(&local_and, ctx);
    if (ctx < 0 || lctx < 0)
        return no_ctx(fn, c);
    struct MPI_ABI_Group *g = c->ext->group, *rg = c->ext->remote;
    int *lw = world_list(c, g->size, g->world), *rw = world_list(c, rg->size, rg->world);
    if (!lw || !rw) {
        free(lw);
        free(rw);
        return no_mem(fn, c);
    }
    group_retain(g);
    group_retain(g);
    group_retain(rg);
    struct MPI_ABI_Comm *nl = comm_build(lctx, loc->rank, loc->size, lw, g, NULL, c->eh);
    struct MPI_ABI_Comm *n = comm_build(ctx, c->rank, c->size, rw, g, rg, c->eh);
    n->ext->local = nl;
    *out = n;
    return 0;
}

static int dup_inter(const char *fn, struct MPI_ABI_Comm *c, struct MPI_ABI_Comm **out)
{
    int rc = dup_inter_held(fn, c, out);
    ctx_unhold();
    return rc;
}

/* ---- dup -------------------------------------------------------------------------- */
static int dup_comm(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **out, int copy_info)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c, *n = NULL;
    int rc;
    if ((rc = check_comm(fn, comm, &c)))
        return rc;
    if (comm_is_inter(c)) {
        if ((rc = dup_inter(fn, c, &n)))
            return rc;
    } else {
        ic_set_t s = whole(c);
        agree_msg_t mine = {0};
        ctx_mask_t acc;
        if (gather(&s, &mine, NULL, &acc))
            return no_mem(fn, c);
        int ctx = ctx_first(&acc, -1);
        if (ctx < 0)
            return no_ctx(fn, c);
        int *w = world_list(c, c->size, c->world_of);
        struct MPI_ABI_Group *g = w ? group_new(c->size, w) : NULL;
        if (!g) {
            free(w);
            return no_mem(fn, c);
        }
        n = comm_build(ctx, c->rank, c->size, w, g, NULL, c->eh);
    }
    if ((rc = inherit(fn, c, comm, n, copy_info))) {
        attr_delete_all(fn, ATTR_COMM, n, &n->ext->attrs);
        destroy(n);
        return rc;
    }
    *out = n;
    return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    if (!newcomm)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Comm_dup: NULL newcomm");
    struct MPI_ABI_Comm *n;
    int rc = dup_comm("MPI_Comm_dup", comm, &n, 1);
    *newcomm = rc ? MPI_COMM_NULL : (MPI_Comm)n; /* a copy callback's error: no new comm */
    return rc;
}

int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_dup_with_info";
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = info_check(fn, info, 1, &i)))
        return rc;
    if (!newcomm)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL newcomm", fn);
    struct MPI_ABI_Comm *n;
    if ((rc = dup_comm(fn, comm, &n, 0)))
        return rc;
    if (i && !(n->ext->info = info_dup(i))) {
        destroy(n);
        return no_mem(fn, NULL);
    }
    *newcomm = (MPI_Comm)n;
    return MPI_SUCCESS;
}

/* ---- idup: the agreement as rounds of nonblocking collectives -----------------
 * A round offers this process's free ids of one stripe (an eighth of the id
 * space, chosen from the parent's context, the idup's number on the parent
 * and the round — the same at every member) and reserves them while the round
 * runs (ctx_offer), so nothing else created here meanwhile takes them.  The
 * offers travel in a schedule on the collectives engine (an
 * intercommunicator: a ring in each group, the groups' ANDs swapped by the
 * leaders); when it completes (request hook, datatype/p2p.c dispatch) the
 * lowest id free in every offer names the new communicator.  An idup that
 * found its stripe taken here by another pending one offered nothing, so the
 * round finds no common id and the next round tries another stripe: idups in
 * flight in any order on different communicators, and blocking creations
 * meanwhile, all get ids (one offer of "the lower half" per idup left nothing
 * in common when two ranks issued two idups in opposite orders).  The user's
 * request completes when the communicator is built; error handler, name and
 * attributes set on it before that are kept and applied then. */
#define IDUP_STRIPES 8
#define IDUP_ROUNDS 64
#define IDUP_LOCAL_TAGX (1 << 30) /* local steps of an intercommunicator's round */

static int idup(const char *fn, MPI_Comm comm, int with_info, struct MPI_ABI_Info *info,
                MPI_Comm *newcomm, MPI_Request *request);
typedef struct idup_state {
    int kind; /* DTP_IDUP: shares the internal request's ->dtp slot */
    struct MPI_ABI_Comm *parent, *newc;
    MPI_Comm parent_h;
    mpid_req_t *user; /* the user's request: done once newc is built */
    unsigned seq;     /* this idup's number on the parent */
    int round;
    ctx_mask_t offer;      /* reserved while a round runs */
    ctx_mask_t *all;       /* [local group size] the local offers */
    ctx_mask_t local_and;  /* intercommunicator: AND of my group's offers */
    ctx_mask_t remote_and; /* ... and of the other group's */
    int with_info;         /* MPI_Comm_idup_with_info: info (NULL: none) replaces the parent's */
    struct MPI_ABI_Info *info;
} idup_state_t;

static void idup_round(idup_state_t *st);

static void idup_free(idup_state_t *st)
{
    ctx_unoffer(&st->offer);
    info_free(st->info);
    free(st->all);
    free(st);
}

void mpir_idup_forget(mpid_req_t *r)
{
    idup_free(r->dtp);
    r->dtp = NULL;
}

static int idup_stripe(const idup_state_t *st)
{
    uint32_t x = (uint32_t)st->parent->ctx * 2654435761u ^ st->seq * 40503u ^
                 (uint32_t)st->round * 2246822519u;
    x ^= x >> 15;
    x *= 2654435761u;
    x ^= x >> 13;
    return (int)(x % IDUP_STRIPES);
}

/* Error handler, name and attributes the user set on newc while pending
 * (kept in its provisional extension) take effect on the built one. */
static int idup_apply_pending(const char *fn, struct MPI_ABI_Comm *n, struct comm_ext *pend,
                              struct MPI_ABI_Errhandler *peh)
{
    int rc = 0;
    if (peh) { /* the pending set took its reference */
        mpir_eh_release(n->eh);
        n->eh = peh;
    }
    if (pend) {
        if (pend->name[0])
            memcpy(n->ext->name, pend->name, sizeof n->ext->name);
        if (pend->attrs)
            rc = attr_adopt(fn, ATTR_COMM, (MPI_Comm)n, &n->ext->attrs, pend->attrs);
        free(pend);
    }
    return rc;
}

static void idup_finish(idup_state_t *st, int err)
{
    mpid_req_t *u = st->user;
    u->st_error = err;
    idup_free(st);
    req_complete(u);
}

/* Build newc on the agreed ids (lctx: the intercommunicator's local group). */
static int idup_build(const char *fn, idup_state_t *st, int ctx, int lctx)
{
    struct MPI_ABI_Comm *c = st->parent, *n = st->newc;
    struct comm_ext *pend = n->ext;
    struct MPI_ABI_Errhandler *peh = n->eh;
    n->ext = NULL;
    n->eh = NULL;
    n->magic = 0;
    if (comm_is_inter(c)) {
        struct MPI_ABI_Comm *loc = c->ext->local;
        struct MPI_ABI_Group *g = c->ext->group, *rg = c->ext->remote;
        int *lw = world_list(c, g->size, g->world), *rw = world_list(c, rg->size, rg->world);
        if (!lw || !rw)
            mpir_fatal("%s: out of memory", fn);
        group_retain(g);
        group_retain(g);
        group_retain(rg);
        struct MPI_ABI_Comm *nl = comm_build(lctx, loc->rank, loc->size, lw, g, NULL, c->eh);
        comm_build_into(n, ctx, c->rank, c->size, rw, g, rg, c->eh);
        n->ext->local = nl;
    } else {
        int *w = world_list(c, c->size, c->world_of);
        struct MPI_ABI_Group *g = w ? group_new(c->size, w) : NULL;
        if (!g)
            mpir_fatal("%s: out of memory", fn);
        comm_build_into(n, ctx, c->rank, c->size, w, g, NULL, c->eh);
    }
    int rc = inherit(fn, c, st->parent_h, n, !st->with_info);
    if (st->with_info) { /* MPI_Comm_idup_with_info: the given info, not the parent's */
        n->ext->info = st->info;
        st->info = NULL;
    }
    int rc2 = idup_apply_pending(fn, n, pend, peh);
    return rc ? rc : rc2;
}

/* A round's schedule is complete: build, or try the next stripe. */
static void idup_round_done(idup_state_t *st, int err)
{
    static const char fn[] = "MPI_Comm_idup";
    struct MPI_ABI_Comm *c = st->parent;
    ctx_unoffer(&st->offer); /* the ids taken below leave the free mask themselves */
    st->offer = (ctx_mask_t){{0}};
    if (err) {
        idup_finish(st, err);
        return;
    }
    int ctx, lctx = -1, ok;
    if (comm_is_inter(c)) { /* both groups decide alike: each knows both ANDs */
        ctx_mask_t both = st->local_and;
        ctx_and(&both, &st->remote_and);
        ctx = ctx_first(&both, -1);
        lctx = ctx < 0 ? -1 : ctx_first(&st->local_and, ctx);
        ok = ctx >= 0 && lctx >= 0 && ctx_first(&st->remote_and, ctx) >= 0;
    } else {
        ctx_mask_t acc = st->all[0];
        for (int i = 1; i < c->size; i++)
            ctx_and(&acc, &st->all[i]);
        ctx = ctx_first(&acc, -1);
        ok = ctx >= 0;
    }
    if (!ok) {
        if (++st->round < IDUP_ROUNDS) {
            idup_round(st);
            return;
        }
        idup_finish(st, no_ctx(fn, c));
        return;
    }
    idup_finish(st, idup_build(fn, st, ctx, lctx));
}

void mpir_idup_complete(mpid_req_t *r)
{
    idup_state_t *st = r->dtp;
    r->dtp = NULL;
    idup_round_done(st, r->st_error); /* r itself goes back to the pool (user_freed) */
}

static void idup_round(idup_state_t *st)
{
    struct MPI_ABI_Comm *c = st->parent;
    int inter = comm_is_inter(c);
    struct MPI_ABI_Comm *loc = inter ? c->ext->local : c;
    ctx_offer(&st->offer, idup_stripe(st), IDUP_STRIPES);
    int me = loc->rank, p = loc->size;
    size_t len = sizeof *st->all;
    st->all[me] = st->offer;
    sched_t *s = sched_new(c);
    if (inter)
        sched_use(s, loc->coll, IDUP_LOCAL_TAGX);
    for (int k = 0; k < p - 1; k++) { /* ring: pass on the block received last */
        sched_send(s, &st->all[(me - k + p) % p], len, (me + 1) % p);
        sched_recv(s, &st->all[(me - k - 1 + p) % p], len, (me - 1 + p) % p);
        sched_fence(s);
    }
    if (inter) {
        reducer_t band;
        op_reducer("MPI_Comm_idup", NULL, MPI_BAND, MPI_UINT64_T, &band);
        sched_copy(s, &st->local_and, &st->all[0], len);
        for (int i = 1; i < p; i++)
            sched_reduce(s, &st->all[i], &st->local_and, CTX_MASK_WORDS, &band);
        if (me == 0) { /* leaders swap their group's AND */
            sched_use(s, NULL, 0);
            sched_send(s, &st->local_and, len, 0);
            sched_recv(s, &st->remote_and, len, 0);
            sched_fence(s);
            sched_use(s, loc->coll, IDUP_LOCAL_TAGX);
            for (int i = 1; i < p; i++)
                sched_send(s, &st->remote_and, len, i);
        } else {
            sched_recv(s, &st->remote_and, len, 0);
        }
        sched_fence(s);
    }
    mpid_req_t *r = sched_start_req(s);
    if (r->done) { /* nothing to wait for (a one-rank group, no remote) */
        int err = r->st_error;
        req_release(r);
        idup_round_done(st, err);
        return;
    }
    r->dtp = st;
    r->user_freed = 1; /* internal: back to the pool when it completes */
}

int MPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup("MPI_Comm_idup", comm, 0, NULL, newcomm, request);
}

static int idup_args(const char *fn, MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request,
                     struct MPI_ABI_Comm **c)
{
    CHECK_INIT(fn);
    int rc = check_comm(fn, comm, c);
    if (!rc && (!newcomm || !request))
        rc = mpir_error(*c, MPI_ERR_ARG, "%s: NULL newcomm or request", fn);
    return rc;
}

/* info: taken over (freed on failure) when with_info. */
static int idup(const char *fn, MPI_Comm comm, int with_info, struct MPI_ABI_Info *info,
                MPI_Comm *newcomm, MPI_Request *request)
{
    struct MPI_ABI_Comm *c = NULL;
    int rc = idup_args(fn, comm, newcomm, request, &c);
    if (rc) {
        info_free(info);
        return rc;
    }
    struct comm_ext *x = comm_ext_get(c);
    int p = comm_is_inter(c) ? c->ext->local->size : c->size;
    idup_state_t *st = calloc(1, sizeof *st);
    struct MPI_ABI_Comm *n = calloc(1, sizeof *n);
    if (st)
        st->all = malloc((size_t)p * sizeof *st->all);
    if (!x || !st || !n || !st->all) {
        if (st)
            free(st->all);
        free(st);
        free(n);
        info_free(info);
        return no_mem(fn, c);
    }
    st->with_info = with_info;
    st->info = info;
    n->magic = MAGIC_COMM_PENDING; /* takes an error handler, name, attributes */
    st->kind = DTP_IDUP;
    st->parent = c;
    st->parent_h = comm;
    st->newc = n;
    st->seq = x->idup_seq++;
    st->user = req_alloc(REQ_COLL);
    st->user->comm = c; /* errors on the request go to the parent's handler */
    *newcomm = (MPI_Comm)n; /* usable once the request completes */
    *request = (MPI_Request)st->user;
    comm_reap_freed(0); /* (not in later rounds: they start inside progress) */
    idup_round(st);
    return MPI_SUCCESS;
}

/* ---- split / create ----------------------------------------------------------------- */
typedef struct member_key {
    int key, rank, world;
} member_key_t;

static int by_key(const void *a, const void *b)
{
    const member_key_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank - y->rank;
}

/* Members of all[0..n) with colour color, ordered by key then index; world
 * ranks into w, my position (index me) into *pos.  Returns how many. */
/* World indices come from c's own table (rank i of c), not from what each
 * member says of itself: a process of another job (spawn, ports) has a world
 * rank of its own job there, and this process numbers it otherwise. */
static int pick(const struct MPI_ABI_Comm *c, const agree_msg_t *all, int n, int color, int me,
                int *w, int *pos)
{
    member_key_t *m = malloc((size_t)(n ? n : 1) * sizeof *m);
    if (!m)
        return -1;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (all[i].color == color)
            m[k++] = (member_key_t){all[i].key, i, comm_world_rank(c, i)};
    qsort(m, (size_t)k, sizeof *m, by_key);
    for (int i = 0; i < k; i++) {
        w[i] = m[i].world;
        if (m[i].rank == me && pos)
            *pos = i;
    }
    free(m);
    return k;
}

/* Split of an intercommunicator: each colour's local members face the remote
 * members of the same colour; no remote member of my colour: MPI_COMM_NULL. */
static int split_inter_held(const char *fn, struct MPI_ABI_Comm *c, int color, int key,
                            MPI_Comm *newcomm)
{
    struct MPI_ABI_Comm *loc = c->ext->local;
    ic_set_t s = whole(loc);
    int ln = loc->size, rn = c->size;
    agree_msg_t mine = {.color = color, .key = key}, *all, *remote = malloc((size_t)rn * sizeof *remote);
    ctx_mask_t lmask;
    if (!remote || gather_hold(&s, &mine, &all, &lmask, HOLD_KEEP)) {
        free(remote);
        return no_mem(fn, c);
    }
    if (loc->rank == 0) { /* leaders swap their group's lists over the intercommunicator */
        mpid_req_t *r = mpid_isend(all, (size_t)ln * sizeof *all, 0, TAG_CREATE, c->coll, MODE_STD);
        MPI_Status st;
        size_t sent;
        mpid_recv(remote, (size_t)rn * sizeof *remote, 0, TAG_CREATE, c->coll, &st, &sent);
        mpid_wait(r);
        req_release(r);
    }
    ic_bcast(&s, 0, remote, (size_t)rn * sizeof *remote);
    ctx_mask_t both = lmask;
    for (int i = 0; i < rn; i++)
        ctx_and(&both, &remote[i].mask);
    int ctx = ctx_first(&both, -1), lctx = ctx_first(&lmask, ctx);
    *newcomm = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    int *lw = malloc((size_t)ln * sizeof *lw), *rw = malloc((size_t)rn * sizeof *rw);
    int me = 0, nl, nr;
    if (ctx < 0 || lctx < 0)
        rc = no_ctx(fn, c);
    else if (!lw || !rw)
        rc = no_mem(fn, c);
    else if (color != MPI_UNDEFINED && (nl = pick(loc, all, ln, color, loc->rank, lw, &me)) > 0 &&
             (nr = pick(c, remote, rn, color, -1, rw, NULL)) > 0) {
        int *lw2 = world_list(c, nl, lw);
        struct MPI_ABI_Group *g = group_new(nl, lw), *rg = group_new(nr, rw);
        if (!lw2 || !g || !rg)
            mpir_fatal("%s: out of memory", fn);
        group_retain(g);
        struct MPI_ABI_Comm *nloc = comm_build(lctx, me, nl, lw2, g, NULL, c->eh);
        struct MPI_ABI_Comm *n = comm_build(ctx, me, nr, rw, g, rg, c->eh);
        n->ext->local = nloc;
        *newcomm = (MPI_Comm)n;
        rw = NULL; /* taken by n */
    }
    free(lw);
    free(rw);
    free(all);
    free(remote);
    return rc;
}

static int split_inter(const char *fn, struct MPI_ABI_Comm *c, int color, int key,
                       MPI_Comm *newcomm)
{
    int rc = split_inter_held(fn, c, color, key, newcomm);
    ctx_unhold();
    return rc;
}

static int split_intra(const char *fn, struct MPI_ABI_Comm *c, int color, int key,
                       struct MPI_ABI_Comm **newcomm);

static int split(const char *fn, MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm(fn, comm, &c)))
        return rc;
    if (comm_is_inter(c)) {
        if (!newcomm || (color < 0 && color != MPI_UNDEFINED))
            return mpir_error(c, MPI_ERR_ARG, "%s: invalid color %d or NULL newcomm", fn, color);
        return split_inter(fn, c, color, key, newcomm);
    }
    if (!newcomm)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL newcomm", fn);
    if (color < 0 && color != MPI_UNDEFINED)
        return mpir_error(c, MPI_ERR_ARG, "%s: invalid color %d", fn, color);
    struct MPI_ABI_Comm *n = NULL;
    rc = split_intra(fn, c, color, key, &n);
    *newcomm = n ? (MPI_Comm)n : MPI_COMM_NULL;
    return rc;
}

/* The split of intracommunicator c proper (also the collectives' node and
 * leader communicators, coll/hier.c). */
static int split_intra(const char *fn, struct MPI_ABI_Comm *c, int color, int key,
                       struct MPI_ABI_Comm **newcomm)
{
    ic_set_t s = whole(c);
    agree_msg_t mine = {.color = color, .key = key}, *all;
    ctx_mask_t acc;
    if (gather(&s, &mine, &all, &acc))
        return no_mem(fn, c);
    int ctx = ctx_first(&acc, -1);
    if (ctx < 0) {
        free(all);
        return no_ctx(fn, c);
    }
    *newcomm = NULL;
    if (color == MPI_UNDEFINED) {
        free(all);
        if (unlikely(mpir_mt))
            ctx_put(ctx); /* gather_mt took it */
        return MPI_SUCCESS;
    }
    int *w = malloc((size_t)c->size * sizeof *w), me = 0;
    int n = w ? pick(c, all, c->size, color, c->rank, w, &me) : -1;
    free(all);
    if (n < 0) {
        free(w);
        return no_mem(fn, c);
    }
    struct MPI_ABI_Group *g = group_new(n, w);
    if (!g) {
        free(w);
        return no_mem(fn, c);
    }
    *newcomm = comm_build(ctx, me, n, w, g, NULL, c->eh);
    (*newcomm)->ext->session = c->ext ? c->ext->session : NULL; /* its buffer (bsend.c) */
    return MPI_SUCCESS;
}

int mpir_comm_split(struct MPI_ABI_Comm *c, int color, int key, struct MPI_ABI_Comm **newcomm)
{
    return split_intra("MPI_Comm_split (collectives' node/leader split)", c, color, key, newcomm);
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    return split("MPI_Comm_split", comm, color, key, newcomm);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_split_type";
    CHECK_INIT(fn);
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = info_check(fn, info, 1, &i)))
        return rc;
    int color;
    if (split_type == MPI_UNDEFINED)
        color = MPI_UNDEFINED;
    else if (split_type == MPI_COMM_TYPE_SHARED)
        color = skf_node_id(mpid.ctx, mpid.rank); /* the launcher's node map */
    else
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: split type %d not supported (MPI_COMM_TYPE_SHARED or "
                          "MPI_UNDEFINED)",
                          fn, split_type);
    return split(fn, comm, color, key, newcomm);
}

/* Index in c of each member of g (all must be in c). */
static int members_in(const char *fn, struct MPI_ABI_Comm *c, const struct MPI_ABI_Group *g,
                      int **out)
{
    int *idx = malloc((size_t)(g->size ? g->size : 1) * sizeof *idx);
    int *pos = malloc((size_t)mpid.npeers * sizeof *pos);
    if (!idx || !pos) {
        free(idx);
        free(pos);
        return no_mem(fn, c);
    }
    for (int i = 0; i < mpid.npeers; i++)
        pos[i] = -1;
    for (int i = 0; i < c->size; i++)
        pos[comm_world_rank(c, i)] = i;
    for (int i = 0; i < g->size; i++)
        if ((idx[i] = pos[g->world[i]]) < 0) {
            free(idx);
            free(pos);
            return mpir_error(c, MPI_ERR_GROUP,
                              "%s: group member %d (world rank %d) is not in the communicator",
                              fn, i, g->world[i]);
        }
    free(pos);
    *out = idx;
    return 0;
}

static MPI_Comm build_from_group(int ctx, struct MPI_ABI_Group *g, struct MPI_ABI_Comm *c)
{
    int *w = world_list(c, g->size, g->world);
    struct MPI_ABI_Group *ng = w ? group_new(g->size, w) : NULL;
    if (!ng) {
        free(w);
        return MPI_COMM_NULL;
    }
    return (MPI_Comm)comm_build(ctx, g->rank, g->size, w, ng, NULL, c->eh);
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct MPI_ABI_Group *g;
    int rc, *idx;
    if ((rc = check_comm(fn, comm, &c)) || (rc = group_check(fn, group, &g)))
        return rc;
    if (!newcomm)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL newcomm", fn);
    if (comm_is_inter(c)) { /* group: part of the local group, in its order */
        if ((rc = members_in(fn, c->ext->local, g, &idx)))
            return rc;
        free(idx);
        return split_inter(fn, c, g->rank == MPI_UNDEFINED ? MPI_UNDEFINED : 0, g->rank,
                           newcomm);
    }
    if ((rc = members_in(fn, c, g, &idx)))
        return rc;
    free(idx);
    ic_set_t s = whole(c);
    agree_msg_t mine = {0};
    ctx_mask_t acc;
    if (gather(&s, &mine, NULL, &acc))
        return no_mem(fn, c);
    int ctx = ctx_first(&acc, -1);
    if (ctx < 0)
        return no_ctx(fn, c);
    if (g->rank == MPI_UNDEFINED && unlikely(mpir_mt))
        ctx_put(ctx); /* gather_mt took it */
    *newcomm = g->rank == MPI_UNDEFINED ? MPI_COMM_NULL : build_from_group(ctx, g, c);
    if (g->rank != MPI_UNDEFINED && *newcomm == MPI_COMM_NULL)
        return no_mem(fn, c);
    return MPI_SUCCESS;
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_group";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct MPI_ABI_Group *g;
    int rc, *idx;
    if ((rc = check_intra(fn, comm, &c)) || (rc = group_check(fn, group, &g)) ||
        (rc = check_tag(fn, c, tag, 0)))
        return rc;
    if (!newcomm)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL newcomm", fn);
    if (g->rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if ((rc = members_in(fn, c, g, &idx)))
        return rc;
    ic_set_t s = {c->coll, idx, g->size, g->rank, tag}; /* only the group takes part */
    agree_msg_t mine = {0};
    ctx_mask_t acc;
    rc = gather(&s, &mine, NULL, &acc);
    free(idx);
    if (rc)
        return no_mem(fn, c);
    int ctx = ctx_first(&acc, -1);
    if (ctx < 0)
        return no_ctx(fn, c);
    if ((*newcomm = build_from_group(ctx, g, c)) == MPI_COMM_NULL)
        return no_mem(fn, c);
    return MPI_SUCCESS;
}

/* ---- free, compare, inspect ------------------------------------------------------------ */
int MPI_Comm_free(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_free";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if (!comm)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL comm", fn);
    if ((rc = check_comm(fn, *comm, &c)))
        return rc;
    if ((uintptr_t)*comm < MPIR_PREDEF_BOUND)
        return mpir_error(c, MPI_ERR_COMM, "%s: cannot free %s", fn, c->name);
    if ((rc = attr_delete_all(fn, ATTR_COMM, *comm, &c->ext->attrs)))
        return rc;
    /* the messages in its buffer leave before the user may reuse the memory */
    mpir_bsend_pool_free(c->ext->bpool);
    c->ext->bpool = NULL;
    if (*comm == dyn_parent) /* MPI_Comm_get_parent says MPI_COMM_NULL from now on */
        dyn_parent = MPI_COMM_NULL;
    comm_free_when_idle(c);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

static int compare_groups(struct MPI_ABI_Group *a, struct MPI_ABI_Group *b)
{
    return a && b ? group_compare(a, b) : MPI_UNEQUAL;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int *result)
{
    static const char fn[] = "MPI_Comm_compare";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *a, *b;
    int rc;
    if ((rc = check_comm(fn, comm1, &a)) || (rc = check_comm(fn, comm2, &b)))
        return rc;
    if (!result)
        return mpir_error(a, MPI_ERR_ARG, "%s: NULL result", fn);
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (comm_is_inter(a) != comm_is_inter(b)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    struct MPI_ABI_Group *ga = group_of_comm(a), *gb = group_of_comm(b);
    int r = compare_groups(ga, gb);
    if (r != MPI_UNEQUAL && comm_is_inter(a)) {
        int r2 = compare_groups(a->ext->remote, b->ext->remote);
        r = r2 == MPI_UNEQUAL ? MPI_UNEQUAL : (r == MPI_IDENT && r2 == MPI_IDENT) ? MPI_IDENT : MPI_SIMILAR;
    }
    if (ga)
        group_release(ga);
    if (gb)
        group_release(gb);
    *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
    return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    static const char fn[] = "MPI_Comm_set_name";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm_settable(fn, comm, &c)))
        return rc;
    if (!name)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL name", fn);
    struct comm_ext *x = comm_ext_get(c);
    if (!x)
        return no_mem(fn, c);
    strncpy(x->name, name, MPI_MAX_OBJECT_NAME - 1);
    x->name[MPI_MAX_OBJECT_NAME - 1] = '\0';
    return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    static const char fn[] = "MPI_Comm_get_name";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm(fn, comm, &c)))
        return rc;
    if (!name || !resultlen)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL name or resultlen", fn);
    strncpy(name, c->name ? c->name : "", MPI_MAX_OBJECT_NAME - 1);
    name[MPI_MAX_OBJECT_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    static const char fn[] = "MPI_Comm_set_info";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = check_comm(fn, comm, &c)) || (rc = info_check(fn, info, 0, &i)))
        return rc;
    struct comm_ext *x = comm_ext_get(c);
    struct MPI_ABI_Info *d = info_dup(i);
    if (!x || !d)
        return no_mem(fn, c);
    info_free(x->info);
    x->info = d;
    return MPI_SUCCESS;
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Comm_get_info";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm(fn, comm, &c)))
        return rc;
    if (!info_used)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL info_used", fn);
    struct MPI_ABI_Info *d = c->ext && c->ext->info ? info_dup(c->ext->info) : info_new();
    if (!d)
        return no_mem(fn, c);
    *info_used = (MPI_Info)d;
    return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm("MPI_Comm_test_inter", comm, &c)))
        return rc;
    if (!flag)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Comm_test_inter: NULL flag");
    *flag = comm_is_inter(c);
    return MPI_SUCCESS;
}

static int check_inter(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **c)
{
    int rc = check_comm(fn, comm, c);
    if (!rc && !comm_is_inter(*c))
        rc = mpir_error(*c, MPI_ERR_COMM, "%s: not an intercommunicator", fn);
    return rc;
}

int MPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_inter("MPI_Comm_remote_size", comm, &c)))
        return rc;
    if (!size)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Comm_remote_size: NULL size");
    *size = c->ext->remote->size;
    return MPI_SUCCESS;
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_inter("MPI_Comm_remote_group", comm, &c)))
        return rc;
    if (!group)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Comm_remote_group: NULL group");
    group_retain(c->ext->remote);
    *group = group_handle(c->ext->remote);
    return MPI_SUCCESS;
}

/* ---- intercommunicators -------------------------------------------------------------- */
typedef struct inter_hdr {
    ctx_mask_t mask; /* AND of the group's free contexts */
    int size;        /* members of the group */
    int high;
    int leader_world;
} inter_hdr_t;

/* The intercommunicator agreement between a local group (its members talk
 * over s, lw their world ranks) and a remote one whose leader is rank peer of
 * pc: contexts agreed inside the group, leaders swap headers and member lists
 * over pc with tag, each group learns the other's from its leader.  The new
 * intercommunicator gets handler eh.  Contexts stay held (caller unholds);
 * errors are raised on errc. */
static int intercomm_build(const char *fn, const ic_set_t *s, const int *lw, int leader,
                           struct MPI_ABI_Comm *pc, int peer, int tag,
                           struct MPI_ABI_Errhandler *eh, struct MPI_ABI_Comm *errc,
                           MPI_Comm *newintercomm)
{
    agree_msg_t mine = {0};
    inter_hdr_t me = {0}, them;
    if (gather_hold(s, &mine, NULL, &me.mask, HOLD_KEEP))
        return no_mem(fn, errc);
    me.size = s->n;
    leader_swap(s, leader, pc, peer, tag, &me, &them, sizeof me);
    int *rw = malloc((size_t)them.size * sizeof *rw);
    if (!rw)
        return no_mem(fn, errc);
    if (s->me == leader) { /* the member lists, leader to leader */
        mpid_req_t *r = mpid_isend(lw, (size_t)s->n * sizeof *lw, peer, tag, pc, MODE_STD);
        MPI_Status st;
        size_t sent;
        mpid_recv(rw, (size_t)them.size * sizeof *rw, peer, tag, pc, &st, &sent);
        mpid_wait(r);
        req_release(r);
    }
    ic_bcast(s, leader, rw, (size_t)them.size * sizeof *rw);
    ctx_mask_t both = me.mask;
    ctx_and(&both, &them.mask);
    int ctx = ctx_first(&both, -1), lctx = ctx_first(&me.mask, ctx);
    if (ctx < 0 || lctx < 0) {
        free(rw);
        return no_ctx(fn, errc);
    }
    int *lw2 = world_list(errc, s->n, lw); /* the local communicator's own */
    struct MPI_ABI_Group *g = group_new(s->n, lw), *rg = group_new(them.size, rw);
    if (!lw2 || !g || !rg)
        mpir_fatal("%s: out of memory", fn);
    group_retain(g);
    struct MPI_ABI_Comm *local = comm_build(lctx, s->me, s->n, lw2, g, NULL, eh);
    struct MPI_ABI_Comm *n = comm_build(ctx, s->me, them.size, rw, g, rg, eh);
    n->ext->local = local;
    *newintercomm = (MPI_Comm)n;
    return MPI_SUCCESS;
}

static int intercomm_create_held(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                                 int remote_leader, int tag, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *lc, *pc = NULL;
    int rc;
    if ((rc = check_intra(fn, local_comm, &lc)) || (rc = check_rank(fn, lc, local_leader, 0)))
        return rc;
    if (local_leader == MPI_PROC_NULL || !newintercomm)
        return mpir_error(lc, MPI_ERR_ARG, "%s: invalid local leader or NULL newintercomm", fn);
    if (lc->rank == local_leader &&
        ((rc = check_comm(fn, peer_comm, &pc)) || (rc = check_rank(fn, pc, remote_leader, 0)) ||
         (rc = check_tag(fn, pc, tag, 0))))
        return rc;
    ic_set_t s = whole(lc);
    int *lw = world_list(lc, lc->size, lc->world_of);
    if (!lw)
        return no_mem(fn, lc);
    rc = intercomm_build(fn, &s, lw, local_leader, pc, remote_leader, tag, lc->eh, lc,
                         newintercomm);
    free(lw);
    return rc;
}

int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm *newintercomm)
{
    int rc = intercomm_create_held(local_comm, local_leader, peer_comm, remote_leader, tag,
                                   newintercomm);
    ctx_unhold();
    return rc;
}

static int intercomm_merge_held(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    static const char fn[] = "MPI_Intercomm_merge";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_inter(fn, intercomm, &c)))
        return rc;
    if (!newintracomm)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL newintracomm", fn);
    struct MPI_ABI_Comm *loc = c->ext->local;
    ic_set_t s = whole(loc);
    agree_msg_t mine = {0};
    inter_hdr_t me = {0}, them;
    if (gather_hold(&s, &mine, NULL, &me.mask, HOLD_KEEP))
        return no_mem(fn, c);
    me.size = loc->size;
    me.high = high ? 1 : 0;
    me.leader_world = comm_world_rank(loc, 0);
    ic_bcast(&s, 0, &me.high, sizeof me.high); /* the leader's choice counts */
    leader_swap(&s, 0, c->coll, 0, TAG_CREATE, &me, &them, sizeof me);
    ctx_mask_t both = me.mask;
    ctx_and(&both, &them.mask);
    int ctx = ctx_first(&both, -1);
    if (ctx < 0)
        return no_ctx(fn, c);
    int first = me.high != them.high ? !me.high : me.leader_world < them.leader_world;
    struct MPI_ABI_Group *g = c->ext->group, *rg = c->ext->remote;
    int n = g->size + rg->size;
    int *w = malloc((size_t)n * sizeof *w);
    if (!w)
        return no_mem(fn, c);
    const struct MPI_ABI_Group *a = first ? g : rg, *b = first ? rg : g;
    memcpy(w, a->world, (size_t)a->size * sizeof *w);
    memcpy(w + a->size, b->world, (size_t)b->size * sizeof *w);
    int rank = (first ? 0 : rg->size) + loc->rank;
    struct MPI_ABI_Group *ng = group_new(n, w);
    if (!ng) {
        free(w);
        return no_mem(fn, c);
    }
    *newintracomm = (MPI_Comm)comm_build(ctx, rank, n, w, ng, NULL, c->eh);
    return MPI_SUCCESS;
}

int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
    int rc = intercomm_merge_held(intercomm, high, newintracomm);
    ctx_unhold();
    return rc;
}

/* ---- MPI 4.0: idup with info, communicators from a group alone ---------------------- */
int MPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                            MPI_Request *request)
{
    static const char fn[] = "MPI_Comm_idup_with_info";
    struct MPI_ABI_Info *i, *copy = NULL;
    int rc;
    if ((rc = info_check(fn, info, 1, &i)))
        return rc;
    if (i && !(copy = info_dup(i)))
        return no_mem(fn, NULL);
    return idup(fn, comm, 1, copy, newcomm, request); /* the new communicator takes copy */
}

/* Tag of MPI_Comm_create_from_group's messages on MPI_COMM_WORLD's collective
 * context: a hash of the string tag in 0x60000000..0x6fffffff, above the
 * collectives' sequence tags and below TAG_CREATE, so creations with
 * different string tags (almost surely different hashes) do not mix. */
static int string_tag(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return (int)(0x60000000u | (h & 0x0fffffffu));
}

/* Without sessions every group is a group of MPI_COMM_WORLD's processes, so
 * the members agree on a context id over WORLD's collective context, only
 * they taking part (as MPI_Comm_create_group does). */
int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                               MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_from_group";
    CHECK_INIT(fn);
    struct MPI_ABI_Group *g;
    struct MPI_ABI_Info *i;
    struct MPI_ABI_Errhandler *e;
    struct MPI_ABI_Comm *world = comm_of(MPI_COMM_WORLD);
    int rc, *idx;
    if ((rc = group_check(fn, group, &g)) || (rc = info_check(fn, info, 1, &i)) ||
        (rc = mpir_eh_check(fn, errhandler, &e)))
        return rc;
    if (!newcomm || !stringtag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL %s", fn, newcomm ? "stringtag" : "newcomm");
    if (e->kind == EH_USER && (e->win || e->session))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: the error handler was made for %s", fn,
                          e->win ? "windows" : "sessions");
    if (g->rank == MPI_UNDEFINED)
        return mpir_error(NULL, MPI_ERR_GROUP, "%s: the calling process (world rank %d) is not "
                          "in the group of %d", fn, mpid.rank, g->size);
    if ((rc = members_in(fn, world, g, &idx)))
        return rc;
    ic_set_t s = {world->coll, idx, g->size, g->rank, string_tag(stringtag)};
    agree_msg_t mine = {0};
    ctx_mask_t acc;
    rc = gather(&s, &mine, NULL, &acc);
    free(idx);
    if (rc)
        return no_mem(fn, NULL);
    int ctx = ctx_first(&acc, -1);
    if (ctx < 0)
        return no_ctx(fn, world);
    int *w = world_list(world, g->size, g->world);
    struct MPI_ABI_Group *ng = w ? group_new(g->size, w) : NULL;
    if (!ng) {
        free(w);
        return no_mem(fn, NULL);
    }
    struct MPI_ABI_Comm *n = comm_build(ctx, g->rank, g->size, w, ng, NULL, e);
    n->ext->session = g->session;
    if (i && !(n->ext->info = info_dup(i))) {
        destroy(n);
        return no_mem(fn, NULL);
    }
    *newcomm = (MPI_Comm)n;
    return MPI_SUCCESS;
}

/* MPI 4.0: an intercommunicator from two disjoint groups alone.  The local
 * group's members talk over MPI_COMM_WORLD's collective context (as in
 * MPI_Comm_create_from_group, tagged with the string tag's hash) and the
 * leaders over the same context, addressed by world rank, with the hash's
 * neighbour tag; from there it is MPI_Intercomm_create's agreement. */
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                     MPI_Group remote_group, int remote_leader,
                                     const char *stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    CHECK_INIT(fn);
    struct MPI_ABI_Group *lg, *rg;
    struct MPI_ABI_Info *i;
    struct MPI_ABI_Errhandler *e;
    struct MPI_ABI_Comm *world = comm_of(MPI_COMM_WORLD);
    int rc, *idx;
    if ((rc = group_check(fn, local_group, &lg)) || (rc = group_check(fn, remote_group, &rg)) ||
        (rc = info_check(fn, info, 1, &i)) || (rc = mpir_eh_check(fn, errhandler, &e)))
        return rc;
    if (!newintercomm || !stringtag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL %s", fn,
                          newintercomm ? "stringtag" : "newintercomm");
    if (e->kind == EH_USER && (e->win || e->session))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: the error handler was made for %s", fn,
                          e->win ? "windows" : "sessions");
    if (lg->rank == MPI_UNDEFINED || rg->rank != MPI_UNDEFINED)
        return mpir_error(NULL, MPI_ERR_GROUP,
                          "%s: the calling process (world rank %d) must be in the local group "
                          "(of %d) and not in the remote one (of %d)",
                          fn, mpid.rank, lg->size, rg->size);
    if (local_leader < 0 || local_leader >= lg->size || remote_leader < 0 ||
        remote_leader >= rg->size)
        return mpir_error(NULL, MPI_ERR_RANK,
                          "%s: invalid leader: local %d (group of %d), remote %d (group of %d)",
                          fn, local_leader, lg->size, remote_leader, rg->size);
    if ((rc = members_in(fn, world, lg, &idx)))
        return rc;
    int tag = string_tag(stringtag);
    ic_set_t s = {world->coll, idx, lg->size, lg->rank, tag};
    MPI_Comm n = MPI_COMM_NULL;
    rc = intercomm_build(fn, &s, lg->world, local_leader, world->coll, rg->world[remote_leader],
                         tag ^ 1, e, NULL, &n);
    ctx_unhold();
    free(idx);
    if (rc)
        return rc;
    struct MPI_ABI_Comm *nc = (struct MPI_ABI_Comm *)n;
    nc->ext->session = lg->session;
    if (i && !(nc->ext->info = info_dup(i))) {
        MPI_Comm_free(&n);
        return no_mem(fn, NULL);
    }
    *newintercomm = n;
    return MPI_SUCCESS;
}
