/*
 * session.c — the sessions model (MPI 4.0): MPI_Session_init/finalize,
 * the process sets mpi://WORLD and mpi://SELF (get_num_psets, get_nth_pset,
 * get_pset_info, MPI_Group_from_session_pset), MPI_Session_get_info and
 * session error handlers.  A communicator comes from a pset's group through
 * MPI_Comm_create_from_group (comm_mgmt.c).
 *
 * Sessions and the world model share one device (env.c): the first of
 * MPI_Init / MPI_Session_init brings it up, and it goes down when MPI is
 * finalized and the last session closed.  Skiff's device does not start a
 * second time in one process, so a session cannot be opened after that
 * (MPI_ERR_OTHER; docs/mpi.md).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "binding/check.h"
#include "group/group.h"
#include "info/info.h"

#define MAGIC_SESSION 0x73736553

struct MPI_ABI_Session {
    uint32_t magic;
    struct MPI_ABI_Errhandler *eh;
    struct MPI_ABI_Info *info; /* what the session reports (MPI_Session_get_info) */
    struct bsend_pool *bpool;  /* MPI_Session_attach_buffer's (bsend.c) */
};

static const char *const psets[] = {"mpi://WORLD", "mpi://SELF"};
#define NPSETS 2

/* An error on session s goes to the session's handler. */
int mpir_session_error(struct MPI_ABI_Session *s, int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = mpir_report(s->eh, (void *)s, cls, fmt, ap);
    va_end(ap);
    return rc;
}

struct bsend_pool **mpir_session_bpool(struct MPI_ABI_Session *s) { return &s->bpool; }

static int check_session(const char *fn, MPI_Session h, struct MPI_ABI_Session **out);
int mpir_session_check(const char *fn, MPI_Session h, struct MPI_ABI_Session **out)
{
    return check_session(fn, h, out);
}

static int check_session(const char *fn, MPI_Session h, struct MPI_ABI_Session **out)
{
    struct MPI_ABI_Session *s = (struct MPI_ABI_Session *)h;
    if ((uintptr_t)h >= MPIR_PREDEF_BOUND && s->magic == MAGIC_SESSION) {
        *out = s;
        return 0;
    }
    *out = NULL;
    return mpir_error(NULL, MPI_ERR_SESSION, "%s: invalid session%s", fn,
                      h == MPI_SESSION_NULL ? " MPI_SESSION_NULL" : "");
}

/* The thread level a session gets for the "thread_level" it asked for. */
static const char *thread_level_for(const struct MPI_ABI_Info *asked)
{
    const char *v = asked ? info_get(asked, "thread_level") : NULL;
    if (v && (!strcmp(v, "MPI_THREAD_SINGLE") || !strcmp(v, "MPI_THREAD_FUNNELED")))
        return v;
    /* MULTIPLE when asked, if the device is already in that mode or this
     * session brings it up (no other thread can be inside MPI yet); a
     * process already running at a lower level stays there. */
    if (v && !strcmp(v, "MPI_THREAD_MULTIPLE") && (mpir_mt || !mpir_initialized))
        return v;
    return "MPI_THREAD_SERIALIZED";
}

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fn[] = "MPI_Session_init";
    struct MPI_ABI_Info *i;
    struct MPI_ABI_Errhandler *e;
    int rc;
    if ((rc = info_check(fn, info, 1, &i)) || (rc = mpir_eh_check(fn, errhandler, &e)))
        return rc;
    if (!session)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL session", fn);
    if (e->kind == EH_USER && !e->session)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: the error handler was made for %s", fn,
                          e->win ? "windows" : "communicators");
    struct MPI_ABI_Session *s = calloc(1, sizeof *s);
    struct MPI_ABI_Info *used = i ? info_dup(i) : info_new();
    if (!s || !used || info_set(used, "thread_level", thread_level_for(i))) {
        free(s);
        info_free(used);
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    if ((rc = mpir_device_up(fn))) {
        free(s);
        info_free(used);
        return rc;
    }
    if (!strcmp(info_get(used, "thread_level"), "MPI_THREAD_MULTIPLE"))
        mpir_mt = 1;
    mpir_sessions++;
    s->magic = MAGIC_SESSION;
    s->eh = e;
    if (e->kind == EH_USER)
        mpid_ref_add(&e->refs, 1);
    s->info = used;
    *session = (MPI_Session)s;
    return MPI_SUCCESS;
}

int MPI_Session_finalize(MPI_Session *session)
{
    static const char fn[] = "MPI_Session_finalize";
    struct MPI_ABI_Session *s;
    int rc;
    if (!session)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL session", fn);
    if ((rc = check_session(fn, *session, &s)))
        return rc;
    mpir_bsend_pool_free(s->bpool); /* its buffered messages leave first */
    s->magic = 0;
    mpir_eh_release(s->eh);
    info_free(s->info);
    free(s);
    *session = MPI_SESSION_NULL;
    mpir_sessions--;
    mpir_device_release(); /* the last user of the device takes it down */
    return MPI_SUCCESS;
}

int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Session_get_info";
    struct MPI_ABI_Session *s;
    int rc;
    if ((rc = check_session(fn, session, &s)))
        return rc;
    if (!info_used)
        return mpir_session_error(s, MPI_ERR_ARG, "%s: NULL info_used", fn);
    struct MPI_ABI_Info *copy = info_dup(s->info);
    if (!copy)
        return mpir_session_error(s, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *info_used = (MPI_Info)copy;
    return MPI_SUCCESS;
}

/* ---- process sets ------------------------------------------------------------ */
int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    static const char fn[] = "MPI_Session_get_num_psets";
    struct MPI_ABI_Session *s;
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = check_session(fn, session, &s)) || (rc = info_check(fn, info, 1, &i)))
        return rc;
    if (!npset_names)
        return mpir_session_error(s, MPI_ERR_ARG, "%s: NULL npset_names", fn);
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                             char *pset_name)
{
    static const char fn[] = "MPI_Session_get_nth_pset";
    struct MPI_ABI_Session *s;
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = check_session(fn, session, &s)) || (rc = info_check(fn, info, 1, &i)))
        return rc;
    if (n < 0 || n >= NPSETS)
        return mpir_session_error(s, MPI_ERR_ARG, "%s: no process set %d (there are %d)", fn, n,
                             NPSETS);
    if (!pset_len || *pset_len < 0 || (*pset_len > 0 && !pset_name))
        return mpir_session_error(s, MPI_ERR_ARG, "%s: invalid pset_len or NULL pset_name", fn);
    int need = (int)strlen(psets[n]) + 1;
    if (*pset_len > 0) { /* as much as fits, always terminated */
        int k = need < *pset_len ? need - 1 : *pset_len - 1;
        memcpy(pset_name, psets[n], (size_t)k);
        pset_name[k] = '\0';
    }
    *pset_len = need;
    return MPI_SUCCESS;
}

/* Index of a pset name (case-insensitive, as URIs' schemes), or -1. */
static int pset_index(const char *name)
{
    for (int k = 0; name && k < NPSETS; k++)
        if (!strcasecmp(name, psets[k]))
            return k;
    return -1;
}

int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char fn[] = "MPI_Session_get_pset_info";
    struct MPI_ABI_Session *s;
    int rc;
    if ((rc = check_session(fn, session, &s)))
        return rc;
    int k = pset_index(pset_name);
    if (k < 0 || !info)
        return mpir_session_error(s, MPI_ERR_ARG, "%s: %s", fn,
                             info ? "no such process set" : "NULL info");
    struct MPI_ABI_Info *i = info_new();
    char size[16];
    snprintf(size, sizeof size, "%d", k == 0 ? mpid.size : 1);
    if (!i || info_set(i, "mpi_size", size)) {
        info_free(i);
        return mpir_session_error(s, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    *info = (MPI_Info)i;
    return MPI_SUCCESS;
}

int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_from_session_pset";
    struct MPI_ABI_Session *s;
    int rc;
    if ((rc = check_session(fn, session, &s)))
        return rc;
    int k = pset_index(pset_name);
    if (k < 0 || !newgroup)
        return mpir_session_error(s, MPI_ERR_ARG, "%s: %s%s%s", fn,
                             newgroup ? "no process set " : "NULL newgroup",
                             newgroup && pset_name ? pset_name : "", "");
    int n = k == 0 ? mpid.size : 1;
    int *w = malloc((size_t)n * sizeof *w);
    struct MPI_ABI_Group *g = NULL;
    if (w) {
        for (int r = 0; r < n; r++)
            w[r] = k == 0 ? r : mpid.rank;
        g = group_new(n, w);
        free(w);
    }
    if (!g)
        return mpir_session_error(s, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    g->session = s; /* communicators made from it use the session's buffer */
    *newgroup = (MPI_Group)g;
    return MPI_SUCCESS;
}

/* ---- error handlers ------------------------------------------------------------ */
/* (allowed before MPI_Session_init: its handler is made first) */
int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                  MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Session_create_errhandler";
    if (!session_errhandler_fn || !errhandler)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL argument", fn);
    struct MPI_ABI_Errhandler *e = calloc(1, sizeof *e);
    if (!e)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    e->magic = MAGIC_EH;
    e->kind = EH_USER;
    e->fn = (MPI_Comm_errhandler_function *)session_errhandler_fn; /* called with &session */
    e->refs = 1;
    e->session = 1;
    *errhandler = (MPI_Errhandler)e;
    return MPI_SUCCESS;
}

int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Session_set_errhandler";
    struct MPI_ABI_Session *s;
    struct MPI_ABI_Errhandler *e;
    int rc;
    if ((rc = check_session(fn, session, &s)) || (rc = mpir_eh_check(fn, errhandler, &e)))
        return rc;
    if (e->kind == EH_USER && !e->session)
        return mpir_session_error(s, MPI_ERR_ARG, "%s: the error handler was made for %s", fn,
                             e->win ? "windows" : "communicators");
    if (e->kind == EH_USER)
        mpid_ref_add(&e->refs, 1);
    mpir_eh_release(s->eh);
    s->eh = e;
    return MPI_SUCCESS;
}

int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Session_get_errhandler";
    struct MPI_ABI_Session *s;
    int rc;
    if ((rc = check_session(fn, session, &s)))
        return rc;
    if (!errhandler)
        return mpir_session_error(s, MPI_ERR_ARG, "%s: NULL errhandler", fn);
    struct MPI_ABI_Errhandler *e = s->eh;
    if (e->kind == EH_USER) {
        mpid_ref_add(&e->refs, 1); /* the returned handle is a new reference */
        *errhandler = (MPI_Errhandler)e;
    } else {
        *errhandler = (MPI_Errhandler)(uintptr_t)(0x140 + (e - mpir_eh_predef));
    }
    return MPI_SUCCESS;
}

int MPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    static const char fn[] = "MPI_Session_call_errhandler";
    struct MPI_ABI_Session *s;
    int rc;
    if ((rc = check_session(fn, session, &s)))
        return rc;
    mpir_session_error(s, errorcode, "%s: error code %d raised by the application", fn, errorcode);
    return MPI_SUCCESS;
}
