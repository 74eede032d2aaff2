/*
 * errhandler.c — MPI_Comm_set/get_errhandler, MPI_Comm_create_errhandler,
 * MPI_Errhandler_free, MPI_Comm_call_errhandler.  User handlers are reference
 * counted: the handle holds one reference, every communicator using it one.
 */
#include <stdlib.h>

#include "binding/check.h"
#include "rma/win.h"

static int check_eh(const char *fn, MPI_Errhandler h, struct MPI_ABI_Errhandler **out)
{
    uintptr_t v = (uintptr_t)h;
    struct MPI_ABI_Errhandler *e = NULL;
    if (v - 0x141 < 3)
        e = &mpir_eh_predef[v & 3];
    else if (v >= MPIR_PREDEF_BOUND && ((struct MPI_ABI_Errhandler *)h)->magic == MAGIC_EH)
        e = (struct MPI_ABI_Errhandler *)h;
    if (e) {
        *out = e;
        return 0;
    }
    *out = &mpir_eh_predef[3]; /* MPI_ERRORS_RETURN */
    return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid error handler%s", fn,
                      v == 0x140 ? " MPI_ERRHANDLER_NULL" : "");
}

void mpir_eh_release(struct MPI_ABI_Errhandler *e)
{
    if (e->kind == EH_USER && mpid_ref_add(&e->refs, -1) == 0) {
        e->magic = 0;
        free(e);
    }
}

static MPI_Errhandler handle_of(struct MPI_ABI_Errhandler *e)
{
    if (e >= mpir_eh_predef && e < mpir_eh_predef + 4)
        return (MPI_Errhandler)(uintptr_t)(0x140 + (e - mpir_eh_predef));
    return (MPI_Errhandler)e;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Comm_set_errhandler";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    struct MPI_ABI_Errhandler *e;
    int rc;
    if ((rc = check_comm_settable(fn, comm, &c)) || (rc = check_eh(fn, errhandler, &e)))
        return rc;
    if (e->kind == EH_USER && (e->win || e->session))
        return mpir_error(c, MPI_ERR_ARG, "%s: the error handler was made for %s", fn,
                          e->win ? "windows" : "sessions");
    if (e->kind == EH_USER)
        mpid_ref_add(&e->refs, 1);
    if (c->eh) /* (none yet on a pending idup's communicator) */
        mpir_eh_release(c->eh);
    c->eh = e;
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Comm_get_errhandler";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc = check_comm(fn, comm, &c);
    if (rc)
        return rc;
    if (!errhandler)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL errhandler", fn);
    if (c->eh->kind == EH_USER)
        mpid_ref_add(&c->eh->refs, 1); /* the returned handle is a new reference */
    *errhandler = handle_of(c->eh);
    return MPI_SUCCESS;
}

int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    CHECK_INIT("MPI_Comm_create_errhandler");
    if (!fn || !errhandler)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Comm_create_errhandler: NULL argument");
    struct MPI_ABI_Errhandler *e = malloc(sizeof *e);
    if (!e)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "MPI_Comm_create_errhandler: out of memory");
    e->magic = MAGIC_EH;
    e->kind = EH_USER;
    e->fn = fn;
    e->refs = 1;
    e->win = 0;
    e->fortran = 0;
    e->session = 0;
    *errhandler = (MPI_Errhandler)e;
    return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Errhandler_free";
    struct MPI_ABI_Errhandler *e;
    int rc;
    if (!errhandler)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL argument", fn);
    if ((rc = check_eh(fn, *errhandler, &e)))
        return rc;
    mpir_eh_release(e);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char fn[] = "MPI_Comm_call_errhandler";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc = check_comm(fn, comm, &c);
    if (rc)
        return rc;
    mpir_error(c, errorcode, "%s: error code %d raised by the application", fn, errorcode);
    return MPI_SUCCESS;
}

/* ---- windows ------------------------------------------------------------ */

int MPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    CHECK_INIT("MPI_Win_create_errhandler");
    if (!fn || !errhandler)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Win_create_errhandler: NULL argument");
    int rc = MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)fn, errhandler);
    if (rc == MPI_SUCCESS)
        ((struct MPI_ABI_Errhandler *)*errhandler)->win = 1;
    return rc;
}

int MPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Win_set_errhandler";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    struct MPI_ABI_Errhandler *e;
    int rc;
    if ((rc = win_check(fn, win, &w)) || (rc = check_eh(fn, errhandler, &e)))
        return rc;
    if (e->kind == EH_USER && !e->win)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: the error handler was made for communicators",
                              fn);
    if (e->kind == EH_USER)
        mpid_ref_add(&e->refs, 1);
    mpir_eh_release(w->eh);
    w->eh = e;
    return MPI_SUCCESS;
}

int MPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Win_get_errhandler";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    if (!errhandler)
        return mpir_win_error(w, MPI_ERR_ARG, "%s: NULL errhandler", fn);
    if (w->eh->kind == EH_USER)
        mpid_ref_add(&w->eh->refs, 1);
    *errhandler = handle_of(w->eh);
    return MPI_SUCCESS;
}

int MPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    static const char fn[] = "MPI_Win_call_errhandler";
    CHECK_INIT(fn);
    struct MPI_ABI_Win *w;
    int rc = win_check(fn, win, &w);
    if (rc)
        return rc;
    mpir_win_error(w, errorcode, "%s: error code %d raised by the application", fn, errorcode);
    return MPI_SUCCESS;
}

int mpir_eh_check(const char *fn, MPI_Errhandler h, struct MPI_ABI_Errhandler **out)
{
    return check_eh(fn, h, out);
}
