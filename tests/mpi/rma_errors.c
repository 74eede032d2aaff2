/* rma_errors — under MPI_ERRORS_RETURN every bad argument of the one-sided
 * calls gives the right error class, the message names the call, and the
 * window keeps working afterwards:
 *   displacement or count past the window end      MPI_ERR_RMA_RANGE
 *   negative target displacement                   MPI_ERR_DISP
 *   bad lock type                                  MPI_ERR_LOCKTYPE
 *   op outside any epoch, unlock without lock,
 *   complete without start, wait without post,
 *   flush without lock, lock inside lock_all       MPI_ERR_RMA_SYNC
 *   assertion bits a call does not take            MPI_ERR_ASSERT
 *   target rank out of range                       MPI_ERR_RANK
 *   MPI_WIN_NULL                                   MPI_ERR_WIN
 *   negative size                                  MPI_ERR_SIZE
 *   disp_unit <= 0                                 MPI_ERR_DISP
 *   attach on a window that is not dynamic,
 *   shared_query on a window that is not shared    MPI_ERR_RMA_FLAVOR
 *   detach of memory not attached                  MPI_ERR_RMA_ATTACH
 *   dynamic window: memory not attached            MPI_ERR_RMA_RANGE
 *   allocate_shared over ranks of several nodes    MPI_ERR_RMA_SHARED
 *   compare_and_swap on a floating type            MPI_ERR_TYPE
 * MPI_PROC_NULL as a target is no error (the operation does nothing). */
#include "rmatest.h"

/* The message names the call (Skiff's rule; other MPIs word it their way). */
static void names_call(int rc, const char *fn)
{
#ifdef MPICH_VERSION
    (void)rc, (void)fn;
#else
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    if (!strstr(msg, fn))
        fprintf(stderr, "rank %d: message of %s does not name it: \"%s\"\n", T_rank, fn, msg);
    CHECK(strstr(msg, fn) != NULL);
#endif
}

#define EXPECT(call, fn, cls, mpich_alt)        \
    do {                                        \
        int rc_ = (call);                       \
        CHECK_CLASS(rc_, cls, mpich_alt);       \
        names_call(rc_, fn);                    \
    } while (0)

static void range_and_args(int f)
{
    struct twin w;
    twin_create(&w, f, 64, 4, MPI_INFO_NULL, MPI_COMM_WORLD); /* 16 ints */
    CHECK_EQ_INT(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN), MPI_SUCCESS);
    int t = (w.rank + 1) % w.size, buf[32] = {0}, res[32];
    MPI_Win win = w.win;

    /* outside any epoch */
    EXPECT(MPI_Put(buf, 1, MPI_INT, t, tdisp(&w, t, 0), 1, MPI_INT, win), "MPI_Put", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Get(res, 1, MPI_INT, t, tdisp(&w, t, 0), 1, MPI_INT, win), "MPI_Get", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Accumulate(buf, 1, MPI_INT, t, tdisp(&w, t, 0), 1, MPI_INT, MPI_SUM, win),
           "MPI_Accumulate", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Fetch_and_op(buf, res, MPI_INT, t, tdisp(&w, t, 0), MPI_SUM, win), "MPI_Fetch_and_op",
           MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Win_unlock(t, win), "MPI_Win_unlock", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Win_unlock_all(win), "MPI_Win_unlock_all", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Win_complete(win), "MPI_Win_complete", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Win_wait(win), "MPI_Win_wait", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Win_flush(t, win), "MPI_Win_flush", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Win_flush_all(win), "MPI_Win_flush_all", MPI_ERR_RMA_SYNC, -1);
    EXPECT(MPI_Win_flush_local(t, win), "MPI_Win_flush_local", MPI_ERR_RMA_SYNC, -1);

    /* bad lock type, bad assertions, bad ranks */
    EXPECT(MPI_Win_lock(0, t, 0, win), "MPI_Win_lock", MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, MPI_MODE_NOPRECEDE, win), "MPI_Win_lock", MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT(MPI_Win_lock_all(MPI_MODE_NOSTORE, win), "MPI_Win_lock_all", MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT(MPI_Win_fence(1, win), "MPI_Win_fence", MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT(MPI_Win_fence(MPI_MODE_NOCHECK, win), "MPI_Win_fence", MPI_ERR_ASSERT, MPI_ERR_ARG);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, w.size, 0, win), "MPI_Win_lock", MPI_ERR_RANK, -1);
    EXPECT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, -77, 0, win), "MPI_Win_lock", MPI_ERR_RANK, -1);
    {
        MPI_Group g;
        MPI_Win_get_group(win, &g);
        EXPECT(MPI_Win_post(g, MPI_MODE_NOPRECEDE, win), "MPI_Win_post", MPI_ERR_ASSERT, MPI_ERR_ARG);
        EXPECT(MPI_Win_start(g, MPI_MODE_NOPUT, win), "MPI_Win_start", MPI_ERR_ASSERT, MPI_ERR_ARG);
        MPI_Group_free(&g);
    }

    /* inside an epoch: range, displacement, rank, count, type */
    CHECK_EQ_INT(MPI_Win_lock_all(0, win), MPI_SUCCESS);
    EXPECT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), "MPI_Win_lock", MPI_ERR_RMA_SYNC, -1);
#ifndef MPICH_VERSION /* MPICH 4.0 checks no ranges: these would run and corrupt memory */
    EXPECT(MPI_Put(buf, 1, MPI_INT, t, tdisp(&w, t, 64), 1, MPI_INT, win), "MPI_Put", MPI_ERR_RMA_RANGE, -1);
    EXPECT(MPI_Put(buf, 17, MPI_INT, t, tdisp(&w, t, 0), 17, MPI_INT, win), "MPI_Put", MPI_ERR_RMA_RANGE, -1);
    EXPECT(MPI_Get(res, 2, MPI_INT, t, tdisp(&w, t, 60), 2, MPI_INT, win), "MPI_Get", MPI_ERR_RMA_RANGE, -1);
    EXPECT(MPI_Accumulate(buf, 4, MPI_INT, t, tdisp(&w, t, 56), 4, MPI_INT, MPI_SUM, win),
           "MPI_Accumulate", MPI_ERR_RMA_RANGE, -1);
    EXPECT(MPI_Get_accumulate(buf, 1, MPI_INT, res, 1, MPI_INT, t, tdisp(&w, t, 1000), 1, MPI_INT,
                              MPI_SUM, win),
           "MPI_Get_accumulate", MPI_ERR_RMA_RANGE, -1);
    EXPECT(MPI_Fetch_and_op(buf, res, MPI_INT, t, tdisp(&w, t, 64), MPI_SUM, win), "MPI_Fetch_and_op",
           MPI_ERR_RMA_RANGE, -1);
    EXPECT(MPI_Compare_and_swap(buf, buf + 1, res, MPI_INT, t, tdisp(&w, t, 128), win),
           "MPI_Compare_and_swap", MPI_ERR_RMA_RANGE, -1);
#endif
    if (f != FL_DYNAMIC) /* a dynamic window's displacements are addresses */
        EXPECT(MPI_Put(buf, 1, MPI_INT, t, -1, 1, MPI_INT, win), "MPI_Put", MPI_ERR_DISP, -1);
    EXPECT(MPI_Put(buf, 1, MPI_INT, w.size, tdisp(&w, t, 0), 1, MPI_INT, win), "MPI_Put", MPI_ERR_RANK, -1);
    EXPECT(MPI_Get(res, 1, MPI_INT, -78, tdisp(&w, t, 0), 1, MPI_INT, win), "MPI_Get", MPI_ERR_RANK, -1);
    EXPECT(MPI_Win_flush(w.size + 1, win), "MPI_Win_flush", MPI_ERR_RANK, -1);
    EXPECT(MPI_Put(buf, -1, MPI_INT, t, tdisp(&w, t, 0), -1, MPI_INT, win), "MPI_Put", MPI_ERR_COUNT, -1);
    {
        double d = 1, e = 1, r = 0;
        EXPECT(MPI_Compare_and_swap(&d, &e, &r, MPI_DOUBLE, t, tdisp(&w, t, 0), win),
               "MPI_Compare_and_swap", MPI_ERR_TYPE, -1);
    }
    /* MPI_PROC_NULL: nothing happens, no error */
    CHECK_EQ_INT(MPI_Put(buf, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get(res, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win), MPI_SUCCESS);
    /* the window still works after all that */
    int v = 4321 + w.rank, back = -1;
    CHECK_EQ_INT(MPI_Put(&v, 1, MPI_INT, t, tdisp(&w, t, 4 * (w.rank % 16)), 1, MPI_INT, win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush(t, win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Get(&back, 1, MPI_INT, t, tdisp(&w, t, 4 * (w.rank % 16)), 1, MPI_INT, win),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock_all(win), MPI_SUCCESS);
    CHECK_EQ_INT(back, v);

    /* attach on a window that is not dynamic; shared_query on one not shared */
    if (f != FL_DYNAMIC) {
        static char extra[64];
        EXPECT(MPI_Win_attach(win, extra, sizeof extra), "MPI_Win_attach", MPI_ERR_RMA_FLAVOR, -1);
        EXPECT(MPI_Win_detach(win, extra), "MPI_Win_detach", MPI_ERR_RMA_FLAVOR, -1);
    }
    if (f == FL_CREATE || f == FL_DYNAMIC) {
        MPI_Aint sz;
        int du;
        void *p;
        EXPECT(MPI_Win_shared_query(win, 0, &sz, &du, &p), "MPI_Win_shared_query", MPI_ERR_RMA_FLAVOR, -1);
    }
    if (f == FL_DYNAMIC) {
        static char never[64];
        MPI_Aint bad;
        EXPECT(MPI_Win_detach(win, never), "MPI_Win_detach", MPI_ERR_RMA_ATTACH, -1);
        /* a displacement into memory the target never attached */
        MPI_Get_address(never, &bad);
        CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win), MPI_SUCCESS);
#ifndef MPICH_VERSION
        EXPECT(MPI_Put(buf, 1, MPI_INT, t, bad, 1, MPI_INT, win), "MPI_Put", MPI_ERR_RMA_RANGE, -1);
        /* the attached region, but running past its end */
        EXPECT(MPI_Get(res, 20, MPI_INT, t, tdisp(&w, t, 0), 20, MPI_INT, win), "MPI_Get",
               MPI_ERR_RMA_RANGE, -1);
#endif
        CHECK_EQ_INT(MPI_Win_unlock(t, win), MPI_SUCCESS);
    }
    MPI_Barrier(w.comm);
    twin_free(&w);
}

/* PSCW misuse: complete without start, start twice. */
static void pscw_sync(void)
{
    struct twin w;
    twin_create(&w, FL_ALLOCATE, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD);
    MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN);
    EXPECT(MPI_Win_complete(w.win), "MPI_Win_complete", MPI_ERR_RMA_SYNC, -1);
    int flag = 0;
    EXPECT(MPI_Win_test(w.win, &flag), "MPI_Win_test", MPI_ERR_RMA_SYNC, -1);
    /* a fence epoch, then the wrong closing call */
    CHECK_EQ_INT(MPI_Win_fence(0, w.win), MPI_SUCCESS);
    EXPECT(MPI_Win_unlock_all(w.win), "MPI_Win_unlock_all", MPI_ERR_RMA_SYNC, -1);
    CHECK_EQ_INT(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win), MPI_SUCCESS);
    MPI_Barrier(w.comm);
    twin_free(&w);
}

/* Creation: bad size, disp_unit, and MPI_WIN_NULL (reported on
 * MPI_COMM_WORLD's handler). */
static void creation(void)
{
    MPI_Win win = MPI_WIN_NULL;
    void *p = NULL;
    static char mem[64];
    EXPECT(MPI_Win_allocate(-8, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win), "MPI_Win_allocate",
           MPI_ERR_SIZE, -1);
    EXPECT(MPI_Win_create(mem, -1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win), "MPI_Win_create", MPI_ERR_SIZE, -1);
    EXPECT(MPI_Win_create(mem, 64, 0, MPI_INFO_NULL, MPI_COMM_WORLD, &win), "MPI_Win_create", MPI_ERR_DISP, -1);
    EXPECT(MPI_Win_allocate(64, -4, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win), "MPI_Win_allocate",
           MPI_ERR_DISP, -1);
    EXPECT(MPI_Win_allocate_shared(-1, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win),
           "MPI_Win_allocate_shared", MPI_ERR_SIZE, -1);
    CHECK(win == MPI_WIN_NULL);
    EXPECT(MPI_Win_fence(0, MPI_WIN_NULL), "MPI_Win_fence", MPI_ERR_WIN, -1);
    EXPECT(MPI_Put(mem, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_WIN_NULL), "MPI_Put", MPI_ERR_WIN, -1);
    EXPECT(MPI_Win_lock_all(0, MPI_WIN_NULL), "MPI_Win_lock_all", MPI_ERR_WIN, -1);
    MPI_Win nul = MPI_WIN_NULL;
    EXPECT(MPI_Win_free(&nul), "MPI_Win_free", MPI_ERR_WIN, -1);
    /* shared memory across nodes cannot be: only when ranks are on several */
    MPI_Comm node = node_comm(MPI_COMM_WORLD);
    int nsize;
    MPI_Comm_size(node, &nsize);
    MPI_Comm_free(&node);
    if (nsize != T_size)
        EXPECT(MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &p, &win),
               "MPI_Win_allocate_shared", MPI_ERR_RMA_SHARED, -1);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    creation();
    for (int f = 0; f < FL_COUNT; f++)
        range_and_args(f);
    pscw_sync();
    test_done("rma_errors");
    return 0;
}
