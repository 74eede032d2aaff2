/* rmatest.h — helpers for the one-sided (RMA) tests: windows of every flavour
 * behind one interface, so one check runs on memory from malloc, from
 * MPI_Alloc_mem, from MPI_Win_allocate, from MPI_Win_allocate_shared and on
 * memory attached to a dynamic window.  Plain MPI-3.1: the tests also build
 * with other MPIs (mpicc.mpich) to check the tests themselves. */
#ifndef SKIFF_RMATEST_H
#define SKIFF_RMATEST_H

#include "mpitest.h"

enum flavour { FL_CREATE, FL_ALLOCMEM, FL_ALLOCATE, FL_SHARED, FL_DYNAMIC, FL_COUNT };
static const char *const flavour_name[FL_COUNT] = {"create(malloc)", "create(Alloc_mem)",
                                                  "allocate", "allocate_shared", "dynamic"};

/* A window and what an origin needs to address every target in it. */
struct twin {
    MPI_Win win;
    MPI_Comm comm; /* the window's communicator (a node communicator for shared) */
    int rank, size;
    int flavour;
    void *base;    /* my window memory (bytes long) */
    size_t bytes;
    int unit;      /* disp_unit of every rank (1 for dynamic) */
    MPI_Aint *at;  /* [size] displacement of each target's memory start, in its units */
    void *owned;   /* malloc / Alloc_mem memory to free after the window */
};

/* The ranks of comm that share memory with me (all of them on one host; one
 * per "node" under SKIFF_TRANSPORTS=tcp). */
static inline MPI_Comm node_comm(MPI_Comm comm)
{
    MPI_Comm nc;
    CHECK_EQ_INT(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &nc),
                 MPI_SUCCESS);
    return nc;
}

/* Make a window of `bytes` bytes per rank (zeroed) of flavour f on comm
 * (FL_SHARED: on comm's node communicator); unit is the disp_unit (ignored
 * by dynamic windows, whose unit is 1 and whose displacements are addresses). */
static inline void twin_create(struct twin *w, int f, size_t bytes, int unit, MPI_Info info,
                               MPI_Comm comm)
{
    memset(w, 0, sizeof *w);
    w->flavour = f;
    w->bytes = bytes;
    w->unit = f == FL_DYNAMIC ? 1 : unit;
    w->comm = f == FL_SHARED ? node_comm(comm) : comm;
    MPI_Comm_rank(w->comm, &w->rank);
    MPI_Comm_size(w->comm, &w->size);
    int rc = MPI_SUCCESS;
    switch (f) {
    case FL_CREATE:
        w->owned = w->base = malloc(bytes);
        CHECK(w->base != NULL);
        memset(w->base, 0, bytes);
        rc = MPI_Win_create(w->base, (MPI_Aint)bytes, unit, info, w->comm, &w->win);
        break;
    case FL_ALLOCMEM:
        CHECK_EQ_INT(MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &w->base), MPI_SUCCESS);
        w->owned = w->base;
        memset(w->base, 0, bytes);
        rc = MPI_Win_create(w->base, (MPI_Aint)bytes, unit, info, w->comm, &w->win);
        break;
    case FL_ALLOCATE:
        rc = MPI_Win_allocate((MPI_Aint)bytes, unit, info, w->comm, &w->base, &w->win);
        break;
    case FL_SHARED:
        rc = MPI_Win_allocate_shared((MPI_Aint)bytes, unit, info, w->comm, &w->base, &w->win);
        break;
    case FL_DYNAMIC:
        w->owned = w->base = malloc(bytes);
        CHECK(w->base != NULL);
        rc = MPI_Win_create_dynamic(info, w->comm, &w->win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_attach(w->win, w->base, (MPI_Aint)bytes);
        break;
    }
    CHECK_EQ_INT(rc, MPI_SUCCESS);
    if (f == FL_ALLOCATE || f == FL_SHARED || f == FL_DYNAMIC)
        memset(w->base, 0, bytes); /* before anyone can reach it: the barrier below */
    w->at = calloc((size_t)w->size, sizeof *w->at);
    MPI_Aint mine = 0;
    if (f == FL_DYNAMIC)
        MPI_Get_address(w->base, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, w->at, 1, MPI_AINT, w->comm);
    MPI_Barrier(w->comm);
}

/* Displacement of byte offset off (a multiple of unit) in target t's memory. */
static inline MPI_Aint tdisp(const struct twin *w, int t, size_t off)
{
    return w->at[t] + (MPI_Aint)(off / (size_t)w->unit);
}

static inline void twin_free(struct twin *w)
{
    if (w->flavour == FL_DYNAMIC)
        CHECK_EQ_INT(MPI_Win_detach(w->win, w->base), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_free(&w->win), MPI_SUCCESS);
    CHECK(w->win == MPI_WIN_NULL);
    if (w->flavour == FL_ALLOCMEM)
        MPI_Free_mem(w->owned);
    else
        free(w->owned);
    if (w->flavour == FL_SHARED)
        MPI_Comm_free(&w->comm);
    free(w->at);
}

/* Let me write my own window memory with plain stores (fn fills it), visible
 * to every origin afterwards: an exclusive lock on myself, the stores,
 * MPI_Win_sync, unlock, and a barrier so nobody reads before. */
static inline void twin_local_write(struct twin *w, void (*fn)(struct twin *, void *), void *arg)
{
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->rank, 0, w->win), MPI_SUCCESS);
    fn(w, arg);
    CHECK_EQ_INT(MPI_Win_sync(w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock(w->rank, w->win), MPI_SUCCESS);
    MPI_Barrier(w->comm);
}

/* Read my own window memory after others wrote it (they have finished their
 * epochs and a barrier separates us): a shared lock on myself and
 * MPI_Win_sync make their updates visible to plain loads. */
static inline void twin_local_begin_read(struct twin *w)
{
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, w->rank, 0, w->win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_sync(w->win), MPI_SUCCESS);
}

static inline void twin_local_end_read(struct twin *w)
{
    CHECK_EQ_INT(MPI_Win_unlock(w->rank, w->win), MPI_SUCCESS);
}

/* A group of one rank of the window (for post/start). */
static inline MPI_Group twin_group_of(const struct twin *w, int r)
{
    MPI_Group g, one;
    CHECK_EQ_INT(MPI_Win_get_group(w->win, &g), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Group_incl(g, 1, &r, &one), MPI_SUCCESS);
    MPI_Group_free(&g);
    return one;
}

/* The error class of rc must be want.  Built against MPICH (only to check
 * the tests themselves) a different class is a note, not a failure, so one
 * run lists every place where MPICH differs; mpich_alt names the class MPICH
 * is known to give (documented in the report), -1 for none. */
#define CHECK_CLASS(rc, want, mpich_alt) check_class((rc), (want), (mpich_alt), #rc, __FILE__, __LINE__)
static inline void check_class(int rc, int want, int mpich_alt, const char *what, const char *file,
                               int line)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (cls == want)
        return;
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
#ifdef MPICH_VERSION
    fprintf(stderr, "%s:%d: note: MPICH gives class %d%s for %s, the standard %d\n", file, line,
            cls, cls == mpich_alt ? " (known)" : "", what, want);
    return;
#else
    (void)mpich_alt;
#endif
    fprintf(stderr, "%s:%d: rank %d: %s: error class %d, want %d (\"%s\")\n", file, line,
            testutil_rank, what, cls, want, msg);
    exit(1);
}

#endif
