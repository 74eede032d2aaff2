/*
 * win.c — the one-sided entry points: windows (create, allocate, shared,
 * dynamic, free, query), their names, info, attributes, and the RMA calls
 * and synchronisation.  Arguments are checked here; the work is in rma/.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"
#include "coll/coll.h"
#include "comm_create.h"
#include "rma/win.h"

/* ---- handles and errors ------------------------------------------------------ */

int mpir_win_error(struct MPI_ABI_Win *w, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = w ? mpir_report(w->eh, (void *)w, cls, fmt, ap)
               : mpir_report(mpir_comm_predef[1].eh, (void *)MPI_COMM_WORLD, cls, fmt, ap);
    va_end(ap);
    return rc;
}

int win_check(const char *fn, MPI_Win h, struct MPI_ABI_Win **out)
{
    struct MPI_ABI_Win *w = (struct MPI_ABI_Win *)h;
    if (likely((uintptr_t)h >= MPIR_PREDEF_BOUND && w->magic == MAGIC_WIN)) {
        *out = w;
        return 0;
    }
    *out = NULL;
    return mpir_error(NULL, MPI_ERR_WIN, "%s: rank %d: invalid window %s", fn, mpir_world_rank(),
                      h == MPI_WIN_NULL ? "MPI_WIN_NULL" : "(not a window handle)");
}

static int check_target(const char *fn, struct MPI_ABI_Win *w, int rank)
{
    if (likely((unsigned)rank < (unsigned)w->size))
        return 0;
    return mpir_win_error(w, MPI_ERR_RANK, "%s: rank %d: invalid target rank %d (window of %d)",
                          fn, w->rank, rank, w->size);
}

static int check_assert(const char *fn, struct MPI_ABI_Win *w, int assert, int allowed)
{
    if (likely((assert & ~allowed) == 0))
        return 0;
    return mpir_win_error(w, MPI_ERR_ASSERT,
                          "%s: rank %d: invalid assertion 0x%x (allowed here: 0x%x)", fn, w->rank,
                          assert, allowed);
}

/* ---- creation ------------------------------------------------------------------ */

static int create_args(const char *fn, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
                       MPI_Comm comm, void *out, struct MPI_ABI_Comm **c, struct MPI_ABI_Info **i)
{
    int rc;
    if ((rc = check_comm(fn, comm, c)))
        return rc;
    if (comm_is_inter(*c))
        return mpir_error(*c, MPI_ERR_COMM, "%s: windows need an intracommunicator", fn);
    if ((rc = info_check(fn, info, 1, i)))
        return rc;
    if (size < 0)
        return mpir_error(*c, MPI_ERR_SIZE, "%s: rank %d: invalid size %ld", fn, (*c)->rank,
                          (long)size);
    if (disp_unit <= 0 || disp_unit > INT_MAX) /* the window keeps it as an int */
        return mpir_error(*c, MPI_ERR_DISP,
                          "%s: rank %d: invalid displacement unit %ld (1..%d)", fn, (*c)->rank,
                          (long)disp_unit, INT_MAX);
    if (!out)
        return mpir_error(*c, MPI_ERR_ARG, "%s: NULL output argument", fn);
    return 0;
}

static void set_attrs(struct MPI_ABI_Win *w)
{
    w->attr_size = (MPI_Aint)w->my_size;
    w->attr_disp_unit = w->my_disp_unit;
    w->attr_flavor = w->flavor;
    w->attr_model = MPI_WIN_UNIFIED;
}

static int make(const char *fn, int flavor, void *base, MPI_Aint size, MPI_Aint disp_unit,
                MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct MPI_ABI_Info *i;
    int rc = create_args(fn, size, disp_unit, info, comm, win, &c, &i);
    if (rc)
        return rc;
    if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
        return mpir_error(c, MPI_ERR_BASE, "%s: rank %d: NULL base with size %ld", fn, c->rank,
                          (long)size);
    if ((flavor == MPI_WIN_FLAVOR_ALLOCATE || flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL baseptr", fn);
    struct MPI_ABI_Win *w;
    if ((rc = win_make(fn, flavor, base, size, (int)disp_unit, i, c, baseptr, &w)))
        return rc;
    set_attrs(w);
    *win = (MPI_Win)w;
    return MPI_SUCCESS;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                   MPI_Win *win)
{
    return make("MPI_Win_create", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm, NULL,
                win);
}

int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                     MPI_Win *win)
{
    return make("MPI_Win_create_c", MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, info, comm,
                NULL, win);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                     MPI_Win *win)
{
    return make("MPI_Win_allocate", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm,
                baseptr, win);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                       void *baseptr, MPI_Win *win)
{
    return make("MPI_Win_allocate_c", MPI_WIN_FLAVOR_ALLOCATE, NULL, size, disp_unit, info, comm,
                baseptr, win);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                            void *baseptr, MPI_Win *win)
{
    return make("MPI_Win_allocate_shared", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
                comm, baseptr, win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                              void *baseptr, MPI_Win *win)
{
    return make("MPI_Win_allocate_shared_c", MPI_WIN_FLAVOR_SHARED, NULL, size, disp_unit, info,
                comm, baseptr, win);
}

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return make("MPI_Win_create_dynamic", MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1, info, comm, NULL,
                win);
}

int MPI_Win_free(MPI_Win *win)
{
    static const char fn[] = "MPI_Win_free";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc;
    if (!win)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL window pointer", fn);
    if ((rc = win_check(fn, *win, &w)) || (rc = win_destroy(fn, w)))
        return rc;
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

static int shared_query(const char *fn, MPI_Win win, int rank, MPI_Aint *size,
                        MPI_Aint *disp_unit, void *baseptr)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (w->flavor != MPI_WIN_FLAVOR_SHARED)
        return mpir_win_error(w, MPI_ERR_RMA_FLAVOR,
                              "%s: rank %d: the window was not made by MPI_Win_allocate_shared",
                              fn, w->rank);
    if (rank != MPI_PROC_NULL && (rc = check_target(fn, w, rank)))
        return rc;
    if (!size || !disp_unit || !baseptr)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: NULL output argument", fn);
    if (rank == MPI_PROC_NULL) { /* the first rank with memory */
        rank = 0;
        while (rank < w->size - 1 && w->t[rank].size == 0)
            rank++;
    }
    *size = (MPI_Aint)w->t[rank].size;
    *disp_unit = w->t[rank].disp_unit;
    *(void **)baseptr = w->t[rank].direct;
    return MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    MPI_Aint unit = 0;
    int rc = shared_query("MPI_Win_shared_query", win, rank, size, disp_unit ? &unit : NULL,
                          baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = (int)unit; /* the window's unit is an int */
    return rc;
}

int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                           void *baseptr)
{
    return shared_query("MPI_Win_shared_query_c", win, rank, size, disp_unit, baseptr);
}

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char fn[] = "MPI_Win_attach";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return mpir_win_error(w, MPI_ERR_RMA_FLAVOR,
                              "%s: rank %d: memory can only be attached to a dynamic window", fn,
                              w->rank);
    if (size < 0)
        return mpir_win_error(w, MPI_ERR_SIZE, "%s: rank %d: invalid size %ld", fn, w->rank,
                              (long)size);
    if (!base && size > 0)
        return mpir_win_error(w, MPI_ERR_BASE, "%s: rank %d: NULL base", fn, w->rank);
    return size == 0 ? MPI_SUCCESS : win_attach(fn, w, base, (uint64_t)size);
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
    static const char fn[] = "MPI_Win_detach";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return mpir_win_error(w, MPI_ERR_RMA_FLAVOR,
                              "%s: rank %d: only dynamic windows have attached memory", fn,
                              w->rank);
    return win_detach(fn, w, base);
}

/* ---- group, name, info --------------------------------------------------------------- */

int MPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    static const char fn[] = "MPI_Win_get_group";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (!group)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: NULL group", fn);
    struct MPI_ABI_Group *g = group_of_comm(w->comm);
    if (!g)
        return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *group = (MPI_Group)g; /* a new group: the caller's one reference */
    return MPI_SUCCESS;
}

int MPI_Win_set_name(MPI_Win win, const char *win_name)
{
    static const char fn[] = "MPI_Win_set_name";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (!win_name)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: NULL name", fn);
    snprintf(w->name, sizeof w->name, "%s", win_name);
    return MPI_SUCCESS;
}

int MPI_Win_get_name(MPI_Win win, char *win_name, int *resultlen)
{
    static const char fn[] = "MPI_Win_get_name";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (!win_name || !resultlen)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: NULL argument", fn);
    *resultlen = snprintf(win_name, MPI_MAX_OBJECT_NAME, "%s", w->name);
    return MPI_SUCCESS;
}

/* Hints a window understands, with their defaults (MPI-3.1 11.2.1). */
static const struct {
    const char *key, *dflt;
} hints[] = {
    {"no_locks", "false"},        {"accumulate_ordering", "rar,raw,war,waw"},
    {"accumulate_ops", "same_op_no_op"}, {"same_size", "false"},
    {"same_disp_unit", "false"},  {"alloc_shared_noncontig", "false"},
};

int MPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    static const char fn[] = "MPI_Win_set_info";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = win_check(fn, win, &w)) || (rc = info_check(fn, info, 0, &i)))
        return rc;
    for (int k = 0; k < i->n; k++)
        if (info_set(w->info, i->e[k].key, i->e[k].value))
            return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    const char *v = info_get(w->info, "accumulate_ops");
    w->acc_same_op = v && !strcmp(v, "same_op");
    return MPI_SUCCESS;
}

int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Win_get_info";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (!info_used)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: NULL info_used", fn);
    struct MPI_ABI_Info *i = info_new();
    if (!i)
        return mpir_win_error(w, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (size_t k = 0; k < sizeof hints / sizeof hints[0]; k++) {
        const char *v = info_get(w->info, hints[k].key);
        info_set(i, hints[k].key, v ? v : hints[k].dflt);
    }
    *info_used = (MPI_Info)i;
    return MPI_SUCCESS;
}

/* ---- attributes --------------------------------------------------------------------- */

int MPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                          MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval,
                          void *extra_state)
{
    CHECK_INIT("MPI_Win_create_keyval");
    return attr_keyval_create("MPI_Win_create_keyval", ATTR_WIN, (void (*)(void))win_copy_attr_fn,
                              (void (*)(void))win_delete_attr_fn, extra_state, win_keyval);
}

int MPI_Win_free_keyval(int *win_keyval)
{
    CHECK_INIT("MPI_Win_free_keyval");
    return attr_keyval_free("MPI_Win_free_keyval", ATTR_WIN, win_keyval);
}

int MPI_Win_set_attr(MPI_Win win, int win_keyval, void *attribute_val)
{
    static const char fn[] = "MPI_Win_set_attr";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (win_keyval >= MPI_WIN_BASE && win_keyval <= MPI_WIN_MODEL)
        return mpir_win_error(w, MPI_ERR_KEYVAL, "%s: keyval %d is predefined (read-only)", fn,
                              win_keyval);
    return attr_set(fn, ATTR_WIN, (void *)w, &w->attrs, win_keyval, attribute_val);
}

int MPI_Win_get_attr(MPI_Win win, int win_keyval, void *attribute_val, int *flag)
{
    static const char fn[] = "MPI_Win_get_attr";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (!attribute_val || !flag)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: NULL argument", fn);
    void *v = NULL;
    switch (win_keyval) {
    case MPI_WIN_BASE:
        v = w->base;
        break;
    case MPI_WIN_SIZE:
        v = &w->attr_size;
        break;
    case MPI_WIN_DISP_UNIT:
        v = &w->attr_disp_unit;
        break;
    case MPI_WIN_CREATE_FLAVOR:
        v = &w->attr_flavor;
        break;
    case MPI_WIN_MODEL:
        v = &w->attr_model;
        break;
    default:
        return attr_get(fn, ATTR_WIN, w->attrs, win_keyval, attribute_val, flag);
    }
    *(void **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_Win_delete_attr(MPI_Win win, int win_keyval)
{
    static const char fn[] = "MPI_Win_delete_attr";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    return attr_delete(fn, ATTR_WIN, (void *)w, &w->attrs, win_keyval);
}

/* ---- fast paths: a predefined type on memory mapped here ------------------------- */

/* The target bytes [disp * unit, + bytes) when they are mapped here and an
 * epoch other than post/start covers them; NULL sends the call the long way
 * (which also reports every error). */
static inline char *direct_target(MPI_Win win, int target, MPI_Aint disp, size_t bytes)
{
    struct MPI_ABI_Win *w = (struct MPI_ABI_Win *)win;
    if (unlikely(!mpir_initialized || (uintptr_t)win < MPIR_PREDEF_BOUND || w->magic != MAGIC_WIN ||
                 (unsigned)target >= (unsigned)w->size || disp < 0 ||
                 w->flavor == MPI_WIN_FLAVOR_DYNAMIC))
        return NULL;
    struct win_target *t = &w->t[target];
    uint64_t off = (uint64_t)disp * (uint64_t)t->disp_unit;
    if (unlikely(!t->direct || !(w->lock_all || t->lock || w->fence_open) || off > t->size ||
                 bytes > t->size - off))
        return NULL;
    return t->direct + off;
}

/* Size of a predefined datatype handle, 0 for anything else. */
static inline size_t predef_size(MPI_Datatype h)
{
    uintptr_t v = (uintptr_t)h;
    if (likely(v - 0x200 < 0x100) && mpir_dtype_predef[v & 0xff].magic == MAGIC_DTYPE)
        return mpir_dtype_predef[v & 0xff].size;
    return 0;
}

static inline char *fast_copy_target(MPI_Win win, MPI_Count ocount, MPI_Datatype ot, int target,
                                     MPI_Aint disp, MPI_Count tcount, MPI_Datatype tt, size_t *n)
{
    size_t es = predef_size(ot);
    if (!es || ot != tt || ocount != tcount || ocount < 0)
        return NULL;
    *n = es * (size_t)ocount;
    return direct_target(win, target, disp, *n);
}

/* ---- communication -------------------------------------------------------------------- */

/* Checks shared by every RMA call; *skip set for MPI_PROC_NULL targets. */
static inline int rma_args(const char *fn, MPI_Win win, struct MPI_ABI_Win **w, int target,
                           MPI_Aint disp, int *skip)
{
    int rc;
    if ((rc = win_check(fn, win, w)))
        return rc;
    *skip = target == MPI_PROC_NULL;
    if (*skip)
        return 0;
    if ((rc = check_target(fn, *w, target)))
        return rc;
    if (unlikely(!win_epoch_covers(*w, target)))
        return mpir_win_error(*w, MPI_ERR_RMA_SYNC,
                              "%s: rank %d: no epoch covers target rank %d (use a fence, "
                              "MPI_Win_start or a lock first)",
                              fn, (*w)->rank, target);
    if (unlikely(disp < 0 && (*w)->flavor != MPI_WIN_FLAVOR_DYNAMIC))
        return mpir_win_error(*w, MPI_ERR_DISP, "%s: rank %d: negative target displacement %ld",
                              fn, (*w)->rank, (long)disp);
    return 0;
}

/* A datatype argument of an RMA call: committed, reported on the window. */
static inline int rma_type(const char *fn, struct MPI_ABI_Win *w, MPI_Datatype h, MPI_Count count,
                           struct MPI_ABI_Datatype **out)
{
    uintptr_t v = (uintptr_t)h;
    struct MPI_ABI_Datatype *d = v - 0x200 < 0x100 ? &mpir_dtype_predef[v & 0xff]
                                 : v >= MPIR_PREDEF_BOUND ? (struct MPI_ABI_Datatype *)h
                                                          : NULL;
    if (unlikely(!d || d->magic != MAGIC_DTYPE))
        return mpir_win_error(w, MPI_ERR_TYPE, "%s: rank %d: invalid datatype %s", fn, w->rank,
                              v == 0x200 ? "MPI_DATATYPE_NULL" : "(not a committed datatype)");
    if (unlikely(count < 0))
        return mpir_win_error(w, MPI_ERR_COUNT, "%s: rank %d: invalid count %lld", fn, w->rank,
                              (long long)count);
    *out = d;
    return 0;
}

static int rma_call(rma_op_t *o, MPI_Win win, MPI_Datatype ot, MPI_Datatype rt, MPI_Datatype tt,
                    MPI_Request *req)
{
    CHECK_INIT(o->fn);
    struct MPI_ABI_Win *w;
    int skip, rc;
    if ((rc = rma_args(o->fn, win, &w, o->target, o->disp, &skip)))
        return rc;
    if ((ot && (rc = rma_type(o->fn, w, ot, o->ocount, &o->otype))) ||
        (rt && (rc = rma_type(o->fn, w, rt, o->rcount, &o->rtype))) ||
        (rc = rma_type(o->fn, w, tt, o->tcount, &o->ttype)))
        return rc;
    if (o->kind >= RMA_ACC && o->kind != RMA_CAS) {
        uintptr_t v = (uintptr_t)o->op;
        if (o->op != MPI_REPLACE && o->op != MPI_NO_OP &&
            !(v - 0x21 < 31 && mpir_op_predef[v & 31].magic == MAGIC_OP))
            return mpir_win_error(w, MPI_ERR_OP,
                                  "%s: rank %d: invalid operation (one-sided calls take the "
                                  "predefined ones, MPI_REPLACE and MPI_NO_OP)",
                                  o->fn, w->rank);
    }
    o->blocking = req != NULL;
    if (!skip && (rc = win_rma(w, o)))
        return rc;
    if (req) /* the operation is complete already (docs/rma.md) */
        *req = req_proc_null();
    return MPI_SUCCESS;
}

static inline __attribute__((always_inline)) int do_put(const char *fn, const void *origin_addr,
                                                        MPI_Count origin_count,
                                                        MPI_Datatype origin_datatype,
                                                        int target_rank, MPI_Aint target_disp,
                                                        MPI_Count target_count,
                                                        MPI_Datatype target_datatype, MPI_Win win)
{
    size_t n;
    char *p = fast_copy_target(win, origin_count, origin_datatype, target_rank, target_disp,
                               target_count, target_datatype, &n);
    if (likely(p && origin_addr)) {
        memcpy(p, origin_addr, n);
        return MPI_SUCCESS;
    }
    rma_op_t o = {.fn = fn, .kind = RMA_PUT, .origin = origin_addr,
                  .ocount = origin_count, .target = target_rank, .disp = target_disp,
                  .tcount = target_count};
    return rma_call(&o, win, origin_datatype, 0, target_datatype, NULL);
}

int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
            int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
            MPI_Win win)
{
    return do_put("MPI_Put", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win);
}

int MPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win)
{
    return do_put("MPI_Put_c", origin_addr, origin_count, origin_datatype, target_rank,
                  target_disp, target_count, target_datatype, win);
}

static inline __attribute__((always_inline)) int do_get(const char *fn, void *origin_addr,
                                                        MPI_Count origin_count,
                                                        MPI_Datatype origin_datatype,
                                                        int target_rank, MPI_Aint target_disp,
                                                        MPI_Count target_count,
                                                        MPI_Datatype target_datatype, MPI_Win win)
{
    size_t n;
    char *p = fast_copy_target(win, origin_count, origin_datatype, target_rank, target_disp,
                               target_count, target_datatype, &n);
    if (likely(p && origin_addr)) {
        memcpy(origin_addr, p, n);
        return MPI_SUCCESS;
    }
    rma_op_t o = {.fn = fn, .kind = RMA_GET, .result = origin_addr,
                  .ocount = origin_count, .target = target_rank, .disp = target_disp,
                  .tcount = target_count};
    return rma_call(&o, win, origin_datatype, 0, target_datatype, NULL);
}

int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
            MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return do_get("MPI_Get", origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                  target_count, target_datatype, win);
}

int MPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, MPI_Count target_count,
              MPI_Datatype target_datatype, MPI_Win win)
{
    return do_get("MPI_Get_c", origin_addr, origin_count, origin_datatype, target_rank,
                  target_disp, target_count, target_datatype, win);
}

static inline __attribute__((always_inline)) int do_accumulate(const char *fn,
                                                               const void *origin_addr,
                                                               MPI_Count origin_count,
                                                               MPI_Datatype origin_datatype,
                                                               int target_rank,
                                                               MPI_Aint target_disp,
                                                               MPI_Count target_count,
                                                               MPI_Datatype target_datatype,
                                                               MPI_Op op, MPI_Win win)
{
    size_t n;
    char *p = fast_copy_target(win, origin_count, origin_datatype, target_rank, target_disp,
                               target_count, target_datatype, &n);
    if (p && origin_addr &&
        win_acc_fast((struct MPI_ABI_Win *)win, target_rank, p, origin_addr, origin_count, origin_datatype, op))
        return MPI_SUCCESS;
    rma_op_t o = {.fn = fn, .kind = RMA_ACC, .origin = origin_addr,
                  .ocount = origin_count, .target = target_rank, .disp = target_disp,
                  .tcount = target_count, .op = op};
    return rma_call(&o, win, origin_datatype, 0, target_datatype, NULL);
}

int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                   int target_rank, MPI_Aint target_disp, int target_count,
                   MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return do_accumulate("MPI_Accumulate", origin_addr, origin_count, origin_datatype, target_rank,
                         target_disp, target_count, target_datatype, op, win);
}

int MPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Count target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return do_accumulate("MPI_Accumulate_c", origin_addr, origin_count, origin_datatype,
                         target_rank, target_disp, target_count, target_datatype, op, win);
}

static inline __attribute__((always_inline)) int do_get_accumulate(const char *fn,
                                                                   const void *origin_addr,
                                                                   MPI_Count origin_count,
                                                                   MPI_Datatype origin_datatype,
                                                                   void *result_addr,
                                                                   MPI_Count result_count,
                                                                   MPI_Datatype result_datatype,
                                                                   int target_rank,
                                                                   MPI_Aint target_disp,
                                                                   MPI_Count target_count,
                                                                   MPI_Datatype target_datatype,
                                                                   MPI_Op op, MPI_Win win)
{
    rma_op_t o = {.fn = fn, .kind = RMA_GET_ACC, .origin = origin_addr,
                  .ocount = origin_count, .result = result_addr, .rcount = result_count,
                  .target = target_rank, .disp = target_disp, .tcount = target_count, .op = op};
    return rma_call(&o, win, op == MPI_NO_OP ? 0 : origin_datatype, result_datatype,
                    target_datatype, NULL);
}

int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                       void *result_addr, int result_count, MPI_Datatype result_datatype,
                       int target_rank, MPI_Aint target_disp, int target_count,
                       MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return do_get_accumulate("MPI_Get_accumulate", origin_addr, origin_count, origin_datatype,
                             result_addr, result_count, result_datatype, target_rank, target_disp,
                             target_count, target_datatype, op, win);
}

int MPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                         MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                         MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win)
{
    return do_get_accumulate("MPI_Get_accumulate_c", origin_addr, origin_count, origin_datatype,
                             result_addr, result_count, result_datatype, target_rank, target_disp,
                             target_count, target_datatype, op, win);
}

int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                     int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    /* 8-byte integer sum / fetch / swap on mapped memory: one CPU atomic.  The
     * window's accumulates use CPU atomics on this (type, op) whenever every
     * rank's memory is shared (rma/win_ops.c), so this agrees with them. */
    size_t es = predef_size(datatype);
    char *p = es == 8 && result_addr && (origin_addr || op == MPI_NO_OP)
                  ? direct_target(win, target_rank, target_disp, 8)
                  : NULL;
    if (p && ((struct MPI_ABI_Win *)win)->mem_shared_all &&
        op_type_class(datatype, NULL) == OPC_INT && ((uintptr_t)p & 7) == 0) {
        uint64_t *a = (uint64_t *)p, v = 0, old;
        if (op != MPI_NO_OP)
            memcpy(&v, origin_addr, 8);
        if (op == MPI_SUM)
            old = __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);
        else if (op == MPI_NO_OP)
            old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
        else if (op == MPI_REPLACE)
            old = __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);
        else
            goto general;
        memcpy(result_addr, &old, 8);
        return MPI_SUCCESS;
    }
general:;
    rma_op_t o = {.fn = "MPI_Fetch_and_op", .kind = RMA_GET_ACC, .origin = origin_addr,
                  .ocount = 1, .result = result_addr, .rcount = 1, .target = target_rank,
                  .disp = target_disp, .tcount = 1, .op = op};
    return rma_call(&o, win, op == MPI_NO_OP ? 0 : datatype, datatype, datatype, NULL);
}

int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                         MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                         MPI_Win win)
{
    size_t es = predef_size(datatype);
    char *p = es == 8 && origin_addr && compare_addr && result_addr
                  ? direct_target(win, target_rank, target_disp, 8)
                  : NULL;
    int cls = p ? op_type_class(datatype, NULL) : 0;
    if (p && ((struct MPI_ABI_Win *)win)->mem_shared_all && (cls == OPC_INT || cls == OPC_BITS) &&
        ((uintptr_t)p & 7) == 0) {
        uint64_t v, old;
        memcpy(&v, origin_addr, 8);
        memcpy(&old, compare_addr, 8);
        __atomic_compare_exchange_n((uint64_t *)p, &old, v, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
        memcpy(result_addr, &old, 8);
        return MPI_SUCCESS;
    }
    rma_op_t o = {.fn = "MPI_Compare_and_swap", .kind = RMA_CAS, .origin = origin_addr,
                  .ocount = 1, .result = result_addr, .rcount = 1, .compare = compare_addr,
                  .target = target_rank, .disp = target_disp, .tcount = 1};
    return rma_call(&o, win, datatype, datatype, datatype, NULL);
}

static inline __attribute__((always_inline)) int do_rput(const char *fn, const void *origin_addr,
                                                         MPI_Count origin_count,
                                                         MPI_Datatype origin_datatype,
                                                         int target_rank, MPI_Aint target_disp,
                                                         MPI_Count target_count,
                                                         MPI_Datatype target_datatype, MPI_Win win,
                                                         MPI_Request *request)
{
    if (!request)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL request", fn);
    rma_op_t o = {.fn = fn, .kind = RMA_PUT, .origin = origin_addr,
                  .ocount = origin_count, .target = target_rank, .disp = target_disp,
                  .tcount = target_count};
    return rma_call(&o, win, origin_datatype, 0, target_datatype, request);
}

int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype,
             MPI_Win win, MPI_Request *request)
{
    return do_rput("MPI_Rput", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

int MPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return do_rput("MPI_Rput_c", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

static inline __attribute__((always_inline)) int do_rget(const char *fn, void *origin_addr,
                                                         MPI_Count origin_count,
                                                         MPI_Datatype origin_datatype,
                                                         int target_rank, MPI_Aint target_disp,
                                                         MPI_Count target_count,
                                                         MPI_Datatype target_datatype, MPI_Win win,
                                                         MPI_Request *request)
{
    if (!request)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL request", fn);
    rma_op_t o = {.fn = fn, .kind = RMA_GET, .result = origin_addr,
                  .ocount = origin_count, .target = target_rank, .disp = target_disp,
                  .tcount = target_count};
    return rma_call(&o, win, origin_datatype, 0, target_datatype, request);
}

int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
             MPI_Request *request)
{
    return do_rget("MPI_Rget", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

int MPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype,
               int target_rank, MPI_Aint target_disp, MPI_Count target_count,
               MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    return do_rget("MPI_Rget_c", origin_addr, origin_count, origin_datatype, target_rank,
                   target_disp, target_count, target_datatype, win, request);
}

static inline __attribute__((always_inline)) int do_raccumulate(const char *fn,
                                                                const void *origin_addr,
                                                                MPI_Count origin_count,
                                                                MPI_Datatype origin_datatype,
                                                                int target_rank,
                                                                MPI_Aint target_disp,
                                                                MPI_Count target_count,
                                                                MPI_Datatype target_datatype,
                                                                MPI_Op op, MPI_Win win,
                                                                MPI_Request *request)
{
    if (!request)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL request", fn);
    rma_op_t o = {.fn = fn, .kind = RMA_ACC, .origin = origin_addr,
                  .ocount = origin_count, .target = target_rank, .disp = target_disp,
                  .tcount = target_count, .op = op};
    return rma_call(&o, win, origin_datatype, 0, target_datatype, request);
}

int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return do_raccumulate("MPI_Raccumulate", origin_addr, origin_count, origin_datatype,
                          target_rank, target_disp, target_count, target_datatype, op, win,
                          request);
}

int MPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count,
                      MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp,
                      MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                      MPI_Request *request)
{
    return do_raccumulate("MPI_Raccumulate_c", origin_addr, origin_count, origin_datatype,
                          target_rank, target_disp, target_count, target_datatype, op, win,
                          request);
}

static inline __attribute__((always_inline)) int do_rget_accumulate(const char *fn,
                                                                    const void *origin_addr,
                                                                    MPI_Count origin_count,
                                                                    MPI_Datatype origin_datatype,
                                                                    void *result_addr,
                                                                    MPI_Count result_count,
                                                                    MPI_Datatype result_datatype,
                                                                    int target_rank,
                                                                    MPI_Aint target_disp,
                                                                    MPI_Count target_count,
                                                                    MPI_Datatype target_datatype,
                                                                    MPI_Op op, MPI_Win win,
                                                                    MPI_Request *request)
{
    if (!request)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL request", fn);
    rma_op_t o = {.fn = fn, .kind = RMA_GET_ACC, .origin = origin_addr,
                  .ocount = origin_count, .result = result_addr, .rcount = result_count,
                  .target = target_rank, .disp = target_disp, .tcount = target_count, .op = op};
    return rma_call(&o, win, op == MPI_NO_OP ? 0 : origin_datatype, result_datatype,
                    target_datatype, request);
}

int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    return do_rget_accumulate("MPI_Rget_accumulate", origin_addr, origin_count, origin_datatype,
                              result_addr, result_count, result_datatype, target_rank, target_disp,
                              target_count, target_datatype, op, win, request);
}

int MPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count,
                          MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count,
                          MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op,
                          MPI_Win win, MPI_Request *request)
{
    return do_rget_accumulate("MPI_Rget_accumulate_c", origin_addr, origin_count, origin_datatype,
                              result_addr, result_count, result_datatype, target_rank, target_disp,
                              target_count, target_datatype, op, win, request);
}

/* ---- synchronisation ---------------------------------------------------------------- */

#define WIN_ENTRY(fn, win, w)              \
    CHECK_INIT(fn);                        \
    struct MPI_ABI_Win *w;                 \
    int rc = win_check(fn, win, &w);       \
    if (rc)                                \
        return rc

int MPI_Win_fence(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_fence";
    WIN_ENTRY(fn, win, w);
    if ((rc = check_assert(fn, w, assert,
                           MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                               MPI_MODE_NOSUCCEED)))
        return rc;
    return win_fence(fn, w, assert);
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_post";
    WIN_ENTRY(fn, win, w);
    struct MPI_ABI_Group *g;
    if ((rc = check_assert(fn, w, assert, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)) ||
        (rc = group_check(fn, group, &g)))
        return rc;
    return win_post(fn, w, g, assert);
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_start";
    WIN_ENTRY(fn, win, w);
    struct MPI_ABI_Group *g;
    if ((rc = check_assert(fn, w, assert, MPI_MODE_NOCHECK)) ||
        (rc = group_check(fn, group, &g)))
        return rc;
    return win_start(fn, w, g, assert);
}

int MPI_Win_complete(MPI_Win win)
{
    static const char fn[] = "MPI_Win_complete";
    WIN_ENTRY(fn, win, w);
    return win_complete(fn, w);
}

int MPI_Win_wait(MPI_Win win)
{
    static const char fn[] = "MPI_Win_wait";
    WIN_ENTRY(fn, win, w);
    return win_wait(fn, w, 0, NULL);
}

int MPI_Win_test(MPI_Win win, int *flag)
{
    static const char fn[] = "MPI_Win_test";
    WIN_ENTRY(fn, win, w);
    if (!flag)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: NULL flag", fn);
    return win_wait(fn, w, 1, flag);
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock";
    WIN_ENTRY(fn, win, w);
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return mpir_win_error(w, MPI_ERR_LOCKTYPE, "%s: rank %d: invalid lock type %d", fn,
                              w->rank, lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = check_target(fn, w, rank)) || (rc = check_assert(fn, w, assert, MPI_MODE_NOCHECK)))
        return rc;
    return win_lock(fn, w, lock_type, rank, assert);
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock";
    WIN_ENTRY(fn, win, w);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if ((rc = check_target(fn, w, rank)))
        return rc;
    return win_unlock(fn, w, rank);
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock_all";
    WIN_ENTRY(fn, win, w);
    if ((rc = check_assert(fn, w, assert, MPI_MODE_NOCHECK)))
        return rc;
    return win_lock_all(fn, w, assert);
}

int MPI_Win_unlock_all(MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock_all";
    WIN_ENTRY(fn, win, w);
    return win_unlock_all(fn, w);
}

/* Flushes: every operation is complete when its call returns, so a flush
 * orders memory (a release fence: every later synchronisation that lets
 * another process look is an acquire) and checks that a passive-target epoch
 * covers the target. */
/* A loop of flushes or syncs with nothing to wait for (a compare-and-swap
 * spin at my own memory, a flag poll) must still serve node mates whose
 * copy pipeline needs me (no CMA: mr.c), or a lock holder waiting on me never
 * finishes: one progress pass every 64 such calls. */
static inline void idle_sync(struct MPI_ABI_Win *w)
{
    if ((++w->idle_syncs & 63) == 0)
        mpid_progress();
}

static int flush(const char *fn, MPI_Win win, int rank)
{
    WIN_ENTRY(fn, win, w);
    if (rank != MPI_PROC_NULL && rank != -100 && (rc = check_target(fn, w, rank)))
        return rc;
    int covered = w->lock_all || (rank >= 0 ? w->t[rank].lock != 0 : w->nlocks > 0);
    if (!covered && rank != MPI_PROC_NULL)
        return mpir_win_error(w, MPI_ERR_RMA_SYNC,
                              "%s: rank %d holds no lock %s (flushes belong to passive-target "
                              "epochs)",
                              fn, w->rank, rank >= 0 ? "on that target" : "on the window");
    __atomic_thread_fence(__ATOMIC_RELEASE);
    if (w->pending)
        return win_settle(w, fn, rank >= 0 ? rank : -1);
    idle_sync(w);
    return MPI_SUCCESS;
}

int MPI_Win_flush(int rank, MPI_Win win) { return flush("MPI_Win_flush", win, rank); }
int MPI_Win_flush_local(int rank, MPI_Win win) { return flush("MPI_Win_flush_local", win, rank); }
int MPI_Win_flush_all(MPI_Win win) { return flush("MPI_Win_flush_all", win, -100); }
int MPI_Win_flush_local_all(MPI_Win win) { return flush("MPI_Win_flush_local_all", win, -100); }

int MPI_Win_sync(MPI_Win win)
{
    static const char fn[] = "MPI_Win_sync";
    WIN_ENTRY(fn, win, w);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    idle_sync(w);
    return MPI_SUCCESS;
}
