/* rma_winobj — the window as an object, on every flavour:
 *  - predefined attributes MPI_WIN_BASE / SIZE / DISP_UNIT / CREATE_FLAVOR /
 *    MODEL (MPI_WIN_UNIFIED);
 *  - MPI_Win_get_group is the communicator's group;
 *  - names: empty by default, set/get round trip;
 *  - info: the hints no_locks, accumulate_ordering, accumulate_ops,
 *    same_size, same_disp_unit (and alloc_shared_noncontig on shared
 *    windows) given at creation come back from MPI_Win_get_info, and
 *    MPI_Win_set_info changes accumulate_ordering; a window with
 *    accumulate_ordering=none and accumulate_ops=same_op still accumulates
 *    right, a no_locks window still fences;
 *  - keyvals: set/get/delete, the delete callback runs on delete, on replace
 *    and at MPI_Win_free, never the copy callback (windows are not copied);
 *  - error handlers: default MPI_ERRORS_ARE_FATAL; a user handler created
 *    with MPI_Win_create_errhandler is returned by get, called by
 *    MPI_Win_call_errhandler with the window and the code, and called with
 *    the right class for a real error (a bad lock type). */
#include "rmatest.h"

static int delete_calls, copy_calls, last_deleted;
static int copy_fn(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)extra, (void)in, (void)out;
    copy_calls++;
    *flag = 0;
    return MPI_SUCCESS;
}
static int delete_fn(MPI_Win w, int k, void *val, void *extra)
{
    (void)w, (void)k;
    CHECK(extra == (void *)&delete_calls);
    delete_calls++;
    last_deleted = *(int *)val;
    return MPI_SUCCESS;
}

static int eh_calls, eh_code;
static MPI_Win eh_win;
static void win_handler(MPI_Win *w, int *code, ...)
{
    eh_calls++;
    eh_code = *code;
    eh_win = *w;
}

static void expect_hint(MPI_Info info, const char *key, const char *want)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    CHECK_EQ_INT(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag), MPI_SUCCESS);
    if (!flag || strcmp(val, want))
        fprintf(stderr, "rank %d: MPI_Win_get_info: %s is %s, want %s\n", T_rank, key,
                flag ? val : "(absent)", want);
    CHECK(flag && !strcmp(val, want));
}

static void attributes(struct twin *w)
{
    int flag = 0;
    void *base = NULL;
    MPI_Aint *size = NULL;
    int *unit = NULL, *flav = NULL, *model = NULL;
    static const int flavours[FL_COUNT] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_CREATE,
                                           MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_SHARED,
                                           MPI_WIN_FLAVOR_DYNAMIC};
    CHECK_EQ_INT(MPI_Win_get_attr(w->win, MPI_WIN_BASE, &base, &flag), MPI_SUCCESS);
    CHECK(flag);
    CHECK(base == (w->flavour == FL_DYNAMIC ? MPI_BOTTOM : w->base));
    CHECK_EQ_INT(MPI_Win_get_attr(w->win, MPI_WIN_SIZE, &size, &flag), MPI_SUCCESS);
    CHECK(flag);
    CHECK_EQ_INT(*size, w->flavour == FL_DYNAMIC ? 0 : (MPI_Aint)w->bytes);
    CHECK_EQ_INT(MPI_Win_get_attr(w->win, MPI_WIN_DISP_UNIT, &unit, &flag), MPI_SUCCESS);
    CHECK(flag);
    CHECK_EQ_INT(*unit, w->unit);
    CHECK_EQ_INT(MPI_Win_get_attr(w->win, MPI_WIN_CREATE_FLAVOR, &flav, &flag), MPI_SUCCESS);
    CHECK(flag);
    CHECK_EQ_INT(*flav, flavours[w->flavour]);
    CHECK_EQ_INT(MPI_Win_get_attr(w->win, MPI_WIN_MODEL, &model, &flag), MPI_SUCCESS);
    CHECK(flag);
    CHECK_EQ_INT(*model, MPI_WIN_UNIFIED);

    MPI_Group g, cg;
    int cmp = -1;
    CHECK_EQ_INT(MPI_Win_get_group(w->win, &g), MPI_SUCCESS);
    MPI_Comm_group(w->comm, &cg);
    MPI_Group_compare(g, cg, &cmp);
    CHECK_EQ_INT(cmp, MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&cg);

    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    CHECK_EQ_INT(MPI_Win_get_name(w->win, name, &len), MPI_SUCCESS);
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_INT(name[0], 0);
    char want[64];
    snprintf(want, sizeof want, "window %s of rank %d", flavour_name[w->flavour], w->rank);
    CHECK_EQ_INT(MPI_Win_set_name(w->win, want), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_get_name(w->win, name, &len), MPI_SUCCESS);
    CHECK_EQ_INT(len, (int)strlen(want));
    CHECK(!strcmp(name, want));
}

static void keyvals(struct twin *w)
{
    int kv = MPI_KEYVAL_INVALID, flag = 0, *got = NULL;
    static int v1 = 11, v2 = 22;
    delete_calls = copy_calls = 0;
    CHECK_EQ_INT(MPI_Win_create_keyval(copy_fn, delete_fn, &kv, &delete_calls), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_get_attr(w->win, kv, &got, &flag), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 0);
    CHECK_EQ_INT(MPI_Win_set_attr(w->win, kv, &v1), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_get_attr(w->win, kv, &got, &flag), MPI_SUCCESS);
    CHECK(flag && got == &v1);
    CHECK_EQ_INT(MPI_Win_set_attr(w->win, kv, &v2), MPI_SUCCESS); /* replaces: deletes v1 */
    CHECK_EQ_INT(delete_calls, 1);
    CHECK_EQ_INT(last_deleted, 11);
    CHECK_EQ_INT(MPI_Win_delete_attr(w->win, kv), MPI_SUCCESS);
    CHECK_EQ_INT(delete_calls, 2);
    CHECK_EQ_INT(last_deleted, 22);
    CHECK_EQ_INT(MPI_Win_get_attr(w->win, kv, &got, &flag), MPI_SUCCESS);
    CHECK_EQ_INT(flag, 0);
    CHECK_EQ_INT(MPI_Win_set_attr(w->win, kv, &v1), MPI_SUCCESS); /* deleted by MPI_Win_free */
    CHECK_EQ_INT(MPI_Win_free_keyval(&kv), MPI_SUCCESS);
    CHECK_EQ_INT(kv, MPI_KEYVAL_INVALID);
}

static void errhandlers(struct twin *w)
{
    MPI_Errhandler eh, got;
    CHECK_EQ_INT(MPI_Win_get_errhandler(w->win, &got), MPI_SUCCESS);
    CHECK(got == MPI_ERRORS_ARE_FATAL);
    MPI_Errhandler_free(&got);
    CHECK_EQ_INT(MPI_Win_create_errhandler(win_handler, &eh), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_set_errhandler(w->win, eh), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_get_errhandler(w->win, &got), MPI_SUCCESS);
    CHECK(got == eh);
    MPI_Errhandler_free(&got);
    eh_calls = 0;
    CHECK_EQ_INT(MPI_Win_call_errhandler(w->win, MPI_ERR_OTHER), MPI_SUCCESS);
    CHECK_EQ_INT(eh_calls, 1);
    CHECK_EQ_INT(eh_code, MPI_ERR_OTHER);
    CHECK(eh_win == w->win);
    /* a real error reaches the handler with its class, and the call returns */
    int rc = MPI_Win_lock(4242, 0, 0, w->win);
    CHECK_EQ_INT(eh_calls, 2);
    CHECK(eh_win == w->win);
    CHECK_CLASS(eh_code, MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
    CHECK_CLASS(rc, MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Errhandler_free(&eh), MPI_SUCCESS); /* the window still holds it */
    CHECK_EQ_INT(MPI_Win_call_errhandler(w->win, MPI_ERR_RMA_SYNC), MPI_SUCCESS);
    CHECK_EQ_INT(eh_calls, 3);
    CHECK_EQ_INT(eh_code, MPI_ERR_RMA_SYNC);
    CHECK_EQ_INT(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN), MPI_SUCCESS);
    rc = MPI_Win_lock(4242, 0, 0, w->win);
    CHECK_CLASS(rc, MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
    CHECK_EQ_INT(eh_calls, 3);
}

/* Hints given at creation come back; set_info changes one; the window works. */
static void hints(int f)
{
    MPI_Info info, used;
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ordering", "none");
    MPI_Info_set(info, "accumulate_ops", "same_op");
    MPI_Info_set(info, "same_size", "true");
    MPI_Info_set(info, "same_disp_unit", "true");
    if (f == FL_SHARED)
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    struct twin w;
    twin_create(&w, f, 64 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD);
    CHECK_EQ_INT(MPI_Win_get_info(w.win, &used), MPI_SUCCESS);
    expect_hint(used, "accumulate_ordering", "none");
    expect_hint(used, "accumulate_ops", "same_op");
    expect_hint(used, "same_size", "true");
    expect_hint(used, "same_disp_unit", "true");
    if (f == FL_SHARED)
        expect_hint(used, "alloc_shared_noncontig", "true");
    MPI_Info_free(&used);
    /* accumulates with no ordering promised: flushes order them */
    int t = (w.rank + 1) % w.size;
    long one = 1, got = -1;
    CHECK_EQ_INT(MPI_Win_lock_all(0, w.win), MPI_SUCCESS);
    for (int k = 0; k < 10; k++) {
        CHECK_EQ_INT(MPI_Accumulate(&one, 1, MPI_LONG, t, tdisp(&w, t, 0), 1, MPI_LONG, MPI_SUM, w.win),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
    }
    CHECK_EQ_INT(MPI_Win_unlock_all(w.win), MPI_SUCCESS);
    MPI_Barrier(w.comm);
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Fetch_and_op(NULL, &got, MPI_LONG, t, tdisp(&w, t, 0), MPI_NO_OP, w.win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock(t, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(got, 10);
    /* set_info: the ordering back to the default */
    MPI_Info_set(info, "accumulate_ordering", "rar,raw,war,waw");
    CHECK_EQ_INT(MPI_Win_set_info(w.win, info), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_get_info(w.win, &used), MPI_SUCCESS);
    expect_hint(used, "accumulate_ordering", "rar,raw,war,waw");
    MPI_Info_free(&used);
    MPI_Info_free(&info);
    MPI_Barrier(w.comm);
    twin_free(&w);

    /* no_locks=true: only active-target synchronisation, which works */
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    twin_create(&w, f, 64 * sizeof(long), sizeof(long), info, MPI_COMM_WORLD);
    CHECK_EQ_INT(MPI_Win_get_info(w.win, &used), MPI_SUCCESS);
    expect_hint(used, "no_locks", "true");
    MPI_Info_free(&used);
    MPI_Info_free(&info);
    long mine = 100 + w.rank, back = -1;
    CHECK_EQ_INT(MPI_Win_fence(0, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Put(&mine, 1, MPI_LONG, t, tdisp(&w, t, 8), 1, MPI_LONG, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_fence(0, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get(&back, 1, MPI_LONG, t, tdisp(&w, t, 8), 1, MPI_LONG, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_fence(0, w.win), MPI_SUCCESS);
    CHECK_EQ_INT(back, 100 + w.rank);
    CHECK_EQ_INT(((long *)w.base)[1], 100 + (w.rank + w.size - 1) % w.size);
    /* twin_free without locks: a dynamic window detaches, the others free */
    twin_free(&w);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    for (int f = 0; f < FL_COUNT; f++) {
        struct twin w;
        twin_create(&w, f, 256, f == FL_ALLOCATE ? 8 : 4, MPI_INFO_NULL, MPI_COMM_WORLD);
        attributes(&w);
        keyvals(&w);
        errhandlers(&w);
        MPI_Barrier(w.comm);
        CHECK_EQ_INT(delete_calls, 2);
        twin_free(&w); /* runs the delete callback of the attribute left set */
        CHECK_EQ_INT(delete_calls, 3);
        CHECK_EQ_INT(last_deleted, 11);
        CHECK_EQ_INT(copy_calls, 0);
        hints(f);
    }
    test_done("rma_winobj");
    return 0;
}
