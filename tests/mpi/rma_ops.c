/* rma_ops — every RMA operation under every synchronisation mode on every
 * window flavour.
 *
 * Rank r is the origin of target t = r+1 (mod size) and nobody else's, so it
 * knows what t's window held and checks every byte it gets and every result
 * it fetches; t checks its own memory afterwards.  The window is split into
 * slots, one per operation:
 *   0 Put  1 Get  2 Accumulate(SUM)  3 Get_accumulate(SUM)  4 Fetch_and_op(SUM)
 *   5 Compare_and_swap (element 0 matches, element 1 does not)
 *   6 Rput  7 Rget  8 Raccumulate(SUM)  9 Rget_accumulate(SUM)
 * The request-based operations are only valid in passive-target epochs; in
 * fence and PSCW epochs their slots must stay untouched.  Sync modes: fence;
 * post-start-complete-wait, with MPI_MODE_NOCHECK and with MPI_Win_test
 * polling; lock exclusive, lock shared, lock_all; lock_all with flush,
 * flush_all, flush_local and flush_local_all (results checked after the
 * flush, remote completion checked by a second get after flush/flush_all). */
#include "rmatest.h"

#define SLOT 8 /* ints per slot */
#define NSLOT 10
#define WBYTES (NSLOT * SLOT * sizeof(int))

enum sync {
    SY_FENCE, SY_PSCW, SY_PSCW_NOCHECK, SY_PSCW_TEST, SY_LOCK_EXCL, SY_LOCK_SHARED,
    SY_LOCK_ALL, SY_FLUSH, SY_FLUSH_ALL, SY_FLUSH_LOCAL, SY_FLUSH_LOCAL_ALL, SY_COUNT
};
static const char *const sync_name[SY_COUNT] = {
    "fence", "pscw", "pscw+nocheck", "pscw+test", "lock(exclusive)", "lock(shared)",
    "lock_all", "flush", "flush_all", "flush_local", "flush_local_all"};

static int passive(int s) { return s >= SY_LOCK_EXCL; }

/* What target t holds at (slot, i) before the epoch, what origin r brings. */
static int init_val(int t, int s, int i) { return 1000 * t + 100 * s + i + 1; }
static int orig_val(int r, int s, int i) { return 7 * r + 3 * s + i + 11; }

static const char *cur_flavour, *cur_sync;
#define CHECK_VAL(got, want, what)                                                             \
    do {                                                                                       \
        if ((got) != (want)) {                                                                 \
            fprintf(stderr, "rank %d: %s / %s: %s: got %d, want %d\n", T_rank, cur_flavour,    \
                    cur_sync, what, (got), (want));                                            \
            CHECK_EQ_INT(got, want);                                                           \
        }                                                                                      \
    } while (0)

static void fill_init(struct twin *w, void *arg)
{
    (void)arg;
    int *m = w->base;
    for (int s = 0; s < NSLOT; s++)
        for (int i = 0; i < SLOT; i++)
            m[s * SLOT + i] = init_val(w->rank, s, i);
}

static MPI_Aint slot_disp(struct twin *w, int t, int s, int i)
{
    return tdisp(w, t, (size_t)(s * SLOT + i) * sizeof(int));
}

struct results {
    int get[SLOT], gacc[SLOT], fop, cas_hit, cas_miss, rget[SLOT], rgacc[SLOT], reread[SLOT];
};

static void issue_ops(struct twin *w, int s, int t, struct results *res, const int (*o)[SLOT])
{
    MPI_Win win = w->win;
    CHECK_EQ_INT(MPI_Put(o[0], SLOT, MPI_INT, t, slot_disp(w, t, 0, 0), SLOT, MPI_INT, win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get(res->get, SLOT, MPI_INT, t, slot_disp(w, t, 1, 0), SLOT, MPI_INT, win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Accumulate(o[2], SLOT, MPI_INT, t, slot_disp(w, t, 2, 0), SLOT, MPI_INT,
                                MPI_SUM, win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get_accumulate(o[3], SLOT, MPI_INT, res->gacc, SLOT, MPI_INT, t,
                                    slot_disp(w, t, 3, 0), SLOT, MPI_INT, MPI_SUM, win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Fetch_and_op(&o[4][0], &res->fop, MPI_INT, t, slot_disp(w, t, 4, 0),
                                  MPI_SUM, win),
                 MPI_SUCCESS);
    int hit = init_val(t, 5, 0), miss = init_val(t, 5, 1) + 1;
    CHECK_EQ_INT(MPI_Compare_and_swap(&o[5][0], &hit, &res->cas_hit, MPI_INT, t,
                                      slot_disp(w, t, 5, 0), win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Compare_and_swap(&o[5][1], &miss, &res->cas_miss, MPI_INT, t,
                                      slot_disp(w, t, 5, 1), win),
                 MPI_SUCCESS);
    if (!passive(s))
        return;
    MPI_Request rq[4];
    CHECK_EQ_INT(MPI_Rput(o[6], SLOT, MPI_INT, t, slot_disp(w, t, 6, 0), SLOT, MPI_INT, win, &rq[0]),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Rget(res->rget, SLOT, MPI_INT, t, slot_disp(w, t, 7, 0), SLOT, MPI_INT, win,
                          &rq[1]),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Raccumulate(o[8], SLOT, MPI_INT, t, slot_disp(w, t, 8, 0), SLOT, MPI_INT,
                                 MPI_SUM, win, &rq[2]),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Rget_accumulate(o[9], SLOT, MPI_INT, res->rgacc, SLOT, MPI_INT, t,
                                     slot_disp(w, t, 9, 0), SLOT, MPI_INT, MPI_SUM, win, &rq[3]),
                 MPI_SUCCESS);
    /* Waiting completes them locally: the fetched data is here, the origin
     * buffers may be reused. */
    CHECK_EQ_INT(MPI_Waitall(4, rq, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int k = 0; k < 4; k++)
        CHECK(rq[k] == MPI_REQUEST_NULL);
}

/* What the origin fetched: the target's values before the epoch. */
static void check_fetched(const struct results *res, int s, int t)
{
    char what[64];
    for (int i = 0; i < SLOT; i++) {
        snprintf(what, sizeof what, "Get element %d", i);
        CHECK_VAL(res->get[i], init_val(t, 1, i), what);
        snprintf(what, sizeof what, "Get_accumulate result %d", i);
        CHECK_VAL(res->gacc[i], init_val(t, 3, i), what);
        if (passive(s)) {
            snprintf(what, sizeof what, "Rget element %d", i);
            CHECK_VAL(res->rget[i], init_val(t, 7, i), what);
            snprintf(what, sizeof what, "Rget_accumulate result %d", i);
            CHECK_VAL(res->rgacc[i], init_val(t, 9, i), what);
        }
    }
    CHECK_VAL(res->fop, init_val(t, 4, 0), "Fetch_and_op result");
    CHECK_VAL(res->cas_hit, init_val(t, 5, 0), "Compare_and_swap (match) result");
    CHECK_VAL(res->cas_miss, init_val(t, 5, 1), "Compare_and_swap (no match) result");
}

/* My memory after origin r's epoch. */
static void check_target(struct twin *w, int s, int r)
{
    const int *m = w->base;
    char what[64];
    for (int sl = 0; sl < NSLOT; sl++)
        for (int i = 0; i < SLOT; i++) {
            int want = init_val(w->rank, sl, i), o = orig_val(r, sl, i);
            int active_slot = sl < 6 || passive(s);
            if (active_slot && (sl == 0 || sl == 6))
                want = o;
            else if (active_slot && (sl == 2 || sl == 3 || sl == 8 || sl == 9))
                want += o;
            else if (sl == 4 && i == 0)
                want += o;
            else if (sl == 5 && i == 0)
                want = o;
            snprintf(what, sizeof what, "target slot %d element %d (origin %d)", sl, i, r);
            CHECK_VAL(m[sl * SLOT + i], want, what);
        }
}

static void one_case(int f, int s)
{
    struct twin w;
    /* disp_unit 4 where the flavour has one: displacements are scaled */
    twin_create(&w, f, WBYTES, (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD);
    cur_flavour = flavour_name[f];
    cur_sync = sync_name[s];
    int t = (w.rank + 1) % w.size, from = (w.rank + w.size - 1) % w.size;
    static int o[NSLOT][SLOT];
    for (int sl = 0; sl < NSLOT; sl++)
        for (int i = 0; i < SLOT; i++)
            o[sl][i] = orig_val(w.rank, sl, i);
    twin_local_write(&w, fill_init, NULL);
    struct results res;
    memset(&res, 0xff, sizeof res);
    MPI_Group to = MPI_GROUP_NULL, fromg = MPI_GROUP_NULL;
    int flag = 0;
    switch (s) {
    case SY_FENCE:
        CHECK_EQ_INT(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win), MPI_SUCCESS);
        issue_ops(&w, s, t, &res, o);
        CHECK_EQ_INT(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win), MPI_SUCCESS);
        break;
    case SY_PSCW:
    case SY_PSCW_NOCHECK:
    case SY_PSCW_TEST: {
        int assert = s == SY_PSCW_NOCHECK ? MPI_MODE_NOCHECK : 0;
        to = twin_group_of(&w, t);
        fromg = twin_group_of(&w, from);
        CHECK_EQ_INT(MPI_Win_post(fromg, assert, w.win), MPI_SUCCESS);
        if (assert) /* NOCHECK on start: the matching post has completed */
            MPI_Barrier(w.comm);
        CHECK_EQ_INT(MPI_Win_start(to, assert, w.win), MPI_SUCCESS);
        issue_ops(&w, s, t, &res, o);
        CHECK_EQ_INT(MPI_Win_complete(w.win), MPI_SUCCESS);
        if (s == SY_PSCW_TEST) {
            while (!flag)
                CHECK_EQ_INT(MPI_Win_test(w.win, &flag), MPI_SUCCESS);
        } else {
            CHECK_EQ_INT(MPI_Win_wait(w.win), MPI_SUCCESS);
        }
        MPI_Group_free(&to);
        MPI_Group_free(&fromg);
        break;
    }
    case SY_LOCK_EXCL:
    case SY_LOCK_SHARED:
        CHECK_EQ_INT(MPI_Win_lock(s == SY_LOCK_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0,
                                  w.win),
                     MPI_SUCCESS);
        issue_ops(&w, s, t, &res, o);
        CHECK_EQ_INT(MPI_Win_unlock(t, w.win), MPI_SUCCESS);
        break;
    default: /* lock_all, optionally with a flush before the unlock */
        CHECK_EQ_INT(MPI_Win_lock_all(0, w.win), MPI_SUCCESS);
        issue_ops(&w, s, t, &res, o);
        if (s == SY_FLUSH)
            CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
        else if (s == SY_FLUSH_ALL)
            CHECK_EQ_INT(MPI_Win_flush_all(w.win), MPI_SUCCESS);
        else if (s == SY_FLUSH_LOCAL)
            CHECK_EQ_INT(MPI_Win_flush_local(t, w.win), MPI_SUCCESS);
        else if (s == SY_FLUSH_LOCAL_ALL)
            CHECK_EQ_INT(MPI_Win_flush_local_all(w.win), MPI_SUCCESS);
        if (s != SY_LOCK_ALL) /* any flush completes the fetches at the origin */
            check_fetched(&res, s, t);
        if (s == SY_FLUSH || s == SY_FLUSH_ALL) {
            /* the puts are complete at the target: a new get sees them */
            CHECK_EQ_INT(MPI_Get(res.reread, SLOT, MPI_INT, t, slot_disp(&w, t, 0, 0), SLOT,
                                 MPI_INT, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
            for (int i = 0; i < SLOT; i++)
                CHECK_VAL(res.reread[i], orig_val(w.rank, 0, i), "Get after flush of a Put");
        }
        CHECK_EQ_INT(MPI_Win_unlock_all(w.win), MPI_SUCCESS);
        break;
    }
    check_fetched(&res, s, t);
    MPI_Barrier(w.comm);
    if (passive(s))
        twin_local_begin_read(&w);
    check_target(&w, s, from);
    if (passive(s))
        twin_local_end_read(&w);
    MPI_Barrier(w.comm);
    twin_free(&w);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    for (int f = 0; f < FL_COUNT; f++)
        for (int s = 0; s < SY_COUNT; s++)
            one_case(f, s);
    test_done("rma_ops");
    return 0;
}
