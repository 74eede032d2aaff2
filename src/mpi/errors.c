/*
 * errors.c — how errors are reported: class texts, the error-handler objects
 * and the one function every entry point calls when it rejects something.
 *
 * An error code equals its class.  MPI_Error_string gives the class text
 * and, when the code is the class of the most recent error raised in this
 * process, that error's message ("invalid rank: MPI_Send: invalid rank 7
 * (communicator size 4)"): the call that just failed.  Only that one error
 * is kept — the last message of each class could describe an earlier,
 * unrelated call.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device.h"

struct MPI_ABI_Errhandler mpir_eh_predef[4] = {
    {0, EH_RETURN, NULL, 0, 0, 0, 0}, /* MPI_ERRHANDLER_NULL: never installed */
    {MAGIC_EH, EH_FATAL, NULL, 0, 0, 0, 0},  /* MPI_ERRORS_ARE_FATAL 0x141 */
    {MAGIC_EH, EH_ABORT, NULL, 0, 0, 0, 0},  /* MPI_ERRORS_ABORT 0x142 */
    {MAGIC_EH, EH_RETURN, NULL, 0, 0, 0, 0}, /* MPI_ERRORS_RETURN 0x143 */
};

static const struct {
    int cls;
    const char *text;
} class_texts[] = {
    {MPI_SUCCESS, "no error"},
    {MPI_ERR_BUFFER, "invalid buffer pointer"},
    {MPI_ERR_COUNT, "invalid count argument"},
    {MPI_ERR_TYPE, "invalid datatype"},
    {MPI_ERR_TAG, "invalid tag"},
    {MPI_ERR_COMM, "invalid communicator"},
    {MPI_ERR_RANK, "invalid rank"},
    {MPI_ERR_REQUEST, "invalid request"},
    {MPI_ERR_ROOT, "invalid root"},
    {MPI_ERR_GROUP, "invalid group"},
    {MPI_ERR_OP, "invalid reduction operation"},
    {MPI_ERR_TOPOLOGY, "invalid topology"},
    {MPI_ERR_DIMS, "invalid dimension argument"},
    {MPI_ERR_ARG, "invalid argument"},
    {MPI_ERR_UNKNOWN, "unknown error"},
    {MPI_ERR_TRUNCATE, "message truncated"},
    {MPI_ERR_OTHER, "other error"},
    {MPI_ERR_INTERN, "internal error"},
    {MPI_ERR_PENDING, "request pending"},
    {MPI_ERR_IN_STATUS, "error code is in status"},
    {MPI_ERR_INFO, "invalid info object"},
    {MPI_ERR_NO_MEM, "out of memory"},
    {MPI_ERR_UNSUPPORTED_OPERATION, "operation not supported"},
    {MPI_ERR_PROC_ABORTED, "peer process aborted"},
    {MPI_ERR_ERRHANDLER, "invalid error handler"},
    {MPI_ERR_ABI, "ABI information already set"},
    {MPI_ERR_KEYVAL, "invalid keyval"},
    {MPI_ERR_CONVERSION, "data conversion failed"},
    {MPI_ERR_INFO_KEY, "invalid info key"},
    {MPI_ERR_INFO_NOKEY, "info key not defined"},
    {MPI_ERR_INFO_VALUE, "invalid info value"},
    {MPI_ERR_NAME, "invalid service name"},
    {MPI_ERR_PORT, "invalid port name"},
    {MPI_ERR_SERVICE, "invalid service name in MPI_Publish_name / MPI_Unpublish_name"},
    {MPI_ERR_SPAWN, "error spawning processes"},
    {MPI_ERR_UNSUPPORTED_DATAREP, "unsupported data representation"},
    {MPI_ERR_VALUE_TOO_LARGE, "value too large"},
    {MPI_ERR_ASSERT, "invalid assertion"},
    {MPI_ERR_BASE, "invalid base address"},
    {MPI_ERR_DISP, "invalid displacement unit"},
    {MPI_ERR_LOCKTYPE, "invalid lock type"},
    {MPI_ERR_RMA_ATTACH, "memory cannot be attached"},
    {MPI_ERR_RMA_CONFLICT, "conflicting accesses to a window"},
    {MPI_ERR_RMA_RANGE, "target memory outside the window"},
    {MPI_ERR_RMA_SHARED, "memory cannot be shared"},
    {MPI_ERR_RMA_SYNC, "wrong synchronisation of RMA calls"},
    {MPI_ERR_SIZE, "invalid size"},
    {MPI_ERR_WIN, "invalid window"},
    {MPI_ERR_RMA_FLAVOR, "wrong window flavor"},
    {MPI_ERR_SESSION, "invalid session"},
};

const char *mpir_class_string(int cls)
{
    for (size_t i = 0; i < sizeof class_texts / sizeof class_texts[0]; i++)
        if (class_texts[i].cls == cls)
            return class_texts[i].text;
    return NULL;
}

/* The launcher's rank for this process, from its environment (-1: none). */
static int launcher_rank(void)
{
    static const char *const names[] = {"PMI_RANK", "PMI_ID"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        char *end;
        long r = v ? strtol(v, &end, 10) : -1;
        if (v && end != v && !*end && r >= 0 && r < (1L << 24))
            return (int)r;
    }
    return -1;
}

int mpir_world_rank(void)
{
    if (mpid.ctx || mpir_finalized) /* mpid.rank outlives MPI_Finalize */
        return mpid.rank;
    return launcher_rank();
}

void mpir_say(const char *msg)
{
    int rank = mpir_world_rank();
    if (rank >= 0)
        fprintf(stderr, "skiff MPI: rank %d: %s\n", rank, msg);
    else
        fprintf(stderr, "skiff MPI: %s\n", msg);
    fflush(stderr);
}

void mpir_fatal(const char *fmt, ...)
{
    char msg[MPI_MAX_ERROR_STRING];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mpir_say(msg);
    if (mpid.ctx)
        skf_abort_quiet(mpid.ctx, 1, msg);
    exit(1);
}

/* Keep msg as the most recent error and hand cls to eh (the object's
 * handler); user handlers get &handle (a communicator or a window). */
static char last_msg[MPI_MAX_ERROR_STRING];
static int last_cls = -1;

int mpir_report(struct MPI_ABI_Errhandler *eh, void *handle, int cls, const char *fmt, va_list ap)
{
    char *msg = last_msg;
    vsnprintf(msg, MPI_MAX_ERROR_STRING, fmt, ap);
    last_cls = cls;
    if (!eh)
        eh = &mpir_eh_predef[1];
    if (!mpir_initialized || eh->kind == EH_FATAL || eh->kind == EH_ABORT) {
        mpir_say(msg);
        if (mpid.ctx)
            skf_abort_quiet(mpid.ctx, cls ? cls : 1, msg);
        exit(cls ? cls : 1);
    }
    if (eh->kind == EH_USER && eh->fortran) { /* SUBROUTINE h(comm, win or session, code) */
        MPI_Fint f = eh->win       ? MPI_Win_c2f((MPI_Win)handle)
                     : eh->session ? MPI_Session_c2f((MPI_Session)handle)
                                   : MPI_Comm_c2f((MPI_Comm)handle);
        MPI_Fint code = cls;
        ((void (*)(MPI_Fint *, MPI_Fint *))(void (*)(void))eh->fn)(&f, &code);
    } else if (eh->kind == EH_USER) {
        int code = cls;
        eh->fn((MPI_Comm *)&handle, &code); /* every handle is one pointer */
    }
    return cls;
}

int mpir_error(struct MPI_ABI_Comm *c, int cls, const char *fmt, ...)
{
    if (!c || c->magic != MAGIC_COMM)
        c = &mpir_comm_predef[1];
    MPI_Comm h = c == &mpir_comm_predef[1]   ? MPI_COMM_WORLD
                 : c == &mpir_comm_predef[2] ? MPI_COMM_SELF
                                             : (MPI_Comm)c;
    va_list ap;
    va_start(ap, fmt);
    int rc = mpir_report(c->eh, (void *)h, cls, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- entry points ------------------------------------------------------- */

int MPI_Error_class(int errorcode, int *errorclass)
{
    if (errorclass && errorcode > MPI_ERR_LASTCODE && mpir_user_error_class(errorcode, errorclass))
        return MPI_SUCCESS; /* added by the application (binding/error_class.c) */
    if (!errorclass || !mpir_class_string(errorcode))
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Error_class: invalid error code %d", errorcode);
    *errorclass = errorcode;
    return MPI_SUCCESS;
}

int MPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (string && resultlen && errorcode > MPI_ERR_LASTCODE &&
        mpir_user_error_string(errorcode, string, resultlen))
        return MPI_SUCCESS; /* added by the application (binding/error_class.c) */
    const char *text = mpir_class_string(errorcode);
    if (!text || !string || !resultlen)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Error_string: invalid error code %d",
                          errorcode);
    int n;
    if (errorcode != MPI_SUCCESS && errorcode == last_cls)
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", text, last_msg);
    else
        n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", text);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
