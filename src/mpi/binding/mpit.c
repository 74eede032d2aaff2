/*
 * mpit.c — the MPI tool information interface (MPI_T_*, MPI-3.1 chapter 14.3).
 *
 * What Skiff exposes through it:
 *   control variables  one per SKIFF_* environment variable of the table in
 *                      core/config.c (the list skiff-info prints), in that
 *                      order: its name, its meaning as the description, and as
 *                      value the text in effect (the environment's, else the
 *                      default: "8K", "auto", ...), datatype MPI_CHAR, bound to
 *                      no object, scope MPI_T_SCOPE_READONLY — they are read
 *                      when the job starts, so writing is refused
 *                      (MPI_T_ERR_CVAR_SET_NEVER);
 *   performance vars   two levels of the device's matching queues: receives
 *                      posted and not matched, messages arrived and not yet
 *                      received (all communicators); continuous and read-only,
 *                      MPI_UNSIGNED_LONG_LONG, read when asked;
 *   events, sources    binding/mpit_events.c (MPI 4.0);
 *   categories         one, "skiff", holding all of them;
 *   enumerations       none.
 * The interface works before MPI_Init and after MPI_Finalize, between
 * MPI_T_init_thread and the matching MPI_T_finalize (they nest), and like the
 * standard asks its calls return their MPI_T_ERR_* code without invoking any
 * error handler.
 */
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "device/device.h"
#include "mpit_events.h"

#define MAGIC_CVAR 0x72617643u
#define MAGIC_SESSION 0x73736553u

struct MPI_T_cvar_handle_t {
    uint32_t magic;
    int index;
    int count; /* characters of the buffer the reader provides */
};
struct MPI_T_pvar_session_t {
    uint32_t magic;
    struct MPI_T_pvar_handle_t *handles; /* freed with the session */
};

static const char category_name[] = "skiff";
static const char category_desc[] =
    "Skiff's SKIFF_* environment variables (values in effect; skiff-info lists them) and the "
    "levels of the MPI device's matching queues, and its events (an unexpected message)";

static int t_inits; /* MPI_T_init_thread calls not yet finalized */

#define T_CHECK_INIT()                              \
    do {                                            \
        if (__atomic_load_n(&t_inits, __ATOMIC_ACQUIRE) <= 0) \
            return MPI_T_ERR_NOT_INITIALIZED;       \
    } while (0)

/* Copy a string out the MPI_T way: *len in: room (0 or dst NULL: only ask),
 * out: characters written or needed, counting the terminating null. */
void mpir_t_string(char *dst, int *len, const char *src)
{
    if (!len)
        return;
    size_t n = strlen(src);
    if (!dst || *len <= 0) {
        *len = (int)n + 1;
        return;
    }
    size_t c = n < (size_t)*len - 1 ? n : (size_t)*len - 1;
    memcpy(dst, src, c);
    dst[c] = '\0';
    *len = (int)c + 1;
}

int mpir_t_initialized(void)
{
    return __atomic_load_n(&t_inits, __ATOMIC_ACQUIRE) > 0;
}

int MPI_T_init_thread(int required, int *provided)
{
    if (!provided)
        return MPI_T_ERR_INVALID;
    *provided = required < MPI_THREAD_SINGLE       ? MPI_THREAD_SINGLE
                : required > MPI_THREAD_SERIALIZED ? MPI_THREAD_SERIALIZED
                                                   : required;
    __atomic_add_fetch(&t_inits, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

int MPI_T_finalize(void)
{
    T_CHECK_INIT();
    __atomic_sub_fetch(&t_inits, 1, __ATOMIC_RELEASE);
    return MPI_SUCCESS;
}

/* ---- enumerations: there are none ---------------------------------------- */

int MPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    (void)enumtype, (void)num, (void)name, (void)name_len;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_HANDLE;
}

int MPI_T_enum_get_item(MPI_T_enum enumtype, int index, int *value, char *name, int *name_len)
{
    (void)enumtype, (void)index, (void)value, (void)name, (void)name_len;
    T_CHECK_INIT();
    return MPI_T_ERR_INVALID_HANDLE;
}

/* ---- control variables ----------------------------------------------------- */

int MPI_T_cvar_get_num(int *num_cvar)
{
    T_CHECK_INIT();
    if (!num_cvar)
        return MPI_T_ERR_INVALID;
    *num_cvar = skf_nparams;
    return MPI_SUCCESS;
}

int MPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                        int *bind, int *scope)
{
    T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= skf_nparams)
        return MPI_T_ERR_INVALID_INDEX;
    const skf_param_t *p = &skf_params[cvar_index];
    mpir_t_string(name, name_len, p->name);
    mpir_t_string(desc, desc_len, p->meaning);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_TUNER_BASIC;
    if (datatype)
        *datatype = MPI_CHAR;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = MPI_T_SCOPE_READONLY;
    return MPI_SUCCESS;
}

int MPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    T_CHECK_INIT();
    if (!name || !cvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < skf_nparams; i++)
        if (strcmp(skf_params[i].name, name) == 0) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

int MPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                            int *count)
{
    (void)obj_handle; /* bound to no object */
    T_CHECK_INIT();
    if (cvar_index < 0 || cvar_index >= skf_nparams)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct MPI_T_cvar_handle_t *h = malloc(sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->magic = MAGIC_CVAR;
    h->index = cvar_index;
    h->count = (int)strlen(skf_param_str(skf_params[cvar_index].name)) + 1;
    *handle = h;
    *count = h->count;
    return MPI_SUCCESS;
}

static struct MPI_T_cvar_handle_t *cvar_of(MPI_T_cvar_handle h)
{
    return h != MPI_T_CVAR_HANDLE_NULL && h->magic == MAGIC_CVAR ? h : NULL;
}

int MPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    T_CHECK_INIT();
    if (!handle || !cvar_of(*handle))
        return MPI_T_ERR_INVALID_HANDLE;
    (*handle)->magic = 0;
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

int MPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    T_CHECK_INIT();
    struct MPI_T_cvar_handle_t *h = cvar_of(handle);
    if (!h)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    int room = h->count; /* the count handed out at allocation */
    mpir_t_string(buf, &room, skf_param_str(skf_params[h->index].name));
    return MPI_SUCCESS;
}

int MPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    (void)buf;
    T_CHECK_INIT();
    if (!cvar_of(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_T_ERR_CVAR_SET_NEVER; /* read when the job starts */
}

/* ---- performance variables: the device's queues ------------------------------ */
/* Levels the device keeps anyway, read when asked: continuous (always
 * counting, no start/stop), read-only, one MPI_UNSIGNED_LONG_LONG each. */

static unsigned long long posted_recvs(void)
{
    return mpir_initialized ? (unsigned long long)mpid.n_posted : 0;
}

static unsigned long long unexpected_msgs(void)
{
    unsigned long long n = 0;
    for (int ctx = 0; mpir_initialized && ctx < MPIR_MAX_CTX; ctx++) {
        struct MPI_ABI_Comm **slot = comm_ctx_slot(ctx);
        if (slot && *slot)
            n += (unsigned long long)(*slot)->n_unexp;
    }
    return n;
}

static const struct pvar {
    const char *name, *desc;
    unsigned long long (*read)(void);
} pvars[] = {
    {"skiff_mpi_posted_recvs",
     "receives posted and not yet matched, in all communicators of this process",
     posted_recvs},
    {"skiff_mpi_unexpected_msgs",
     "messages arrived before a matching receive was posted and not yet received, in all "
     "communicators of this process",
     unexpected_msgs},
};
#define NPVARS ((int)(sizeof pvars / sizeof pvars[0]))

struct MPI_T_pvar_handle_t {
    uint32_t magic;
    int index;
    struct MPI_T_pvar_handle_t *next; /* the session's handles */
};
#define MAGIC_PVAR 0x72615650u

int MPI_T_pvar_get_num(int *num_pvar)
{
    T_CHECK_INIT();
    if (!num_pvar)
        return MPI_T_ERR_INVALID;
    *num_pvar = NPVARS;
    return MPI_SUCCESS;
}

int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                        int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype,
                        char *desc, int *desc_len, int *bind, int *readonly, int *continuous,
                        int *atomic)
{
    T_CHECK_INIT();
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    mpir_t_string(name, name_len, pvars[pvar_index].name);
    mpir_t_string(desc, desc_len, pvars[pvar_index].desc);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC;
    if (var_class)
        *var_class = MPI_T_PVAR_CLASS_LEVEL;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = 1;
    if (continuous)
        *continuous = 1;
    if (atomic)
        *atomic = 0;
    return MPI_SUCCESS;
}

int MPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    T_CHECK_INIT();
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < NPVARS; i++)
        if (var_class == MPI_T_PVAR_CLASS_LEVEL && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

int MPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    T_CHECK_INIT();
    if (!session)
        return MPI_T_ERR_INVALID;
    struct MPI_T_pvar_session_t *s = malloc(sizeof *s);
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->magic = MAGIC_SESSION;
    s->handles = NULL;
    *session = s;
    return MPI_SUCCESS;
}

static int session_ok(MPI_T_pvar_session s)
{
    return s != MPI_T_PVAR_SESSION_NULL && s->magic == MAGIC_SESSION;
}

static void handle_drop(struct MPI_T_pvar_handle_t *h)
{
    h->magic = 0;
    free(h);
}

int MPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    T_CHECK_INIT();
    if (!session || !session_ok(*session))
        return MPI_T_ERR_INVALID_SESSION;
    while ((*session)->handles) { /* its handles go with it */
        struct MPI_T_pvar_handle_t *h = (*session)->handles;
        (*session)->handles = h->next;
        handle_drop(h);
    }
    (*session)->magic = 0;
    free(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                            MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* bound to no object */
    T_CHECK_INIT();
    if (!session_ok(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct MPI_T_pvar_handle_t *h = malloc(sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    *h = (struct MPI_T_pvar_handle_t){MAGIC_PVAR, pvar_index, session->handles};
    session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

/* A handle of this session (NULL: not one; MPI_T_PVAR_ALL_HANDLES is not one). */
static struct MPI_T_pvar_handle_t *pvar_of(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    for (struct MPI_T_pvar_handle_t *p = s->handles; p; p = p->next)
        if (p == h)
            return p;
    return NULL;
}

/* Session and handle checks of the calls below: 0 when both are good. */
static int pvar_check(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int all_ok)
{
    T_CHECK_INIT();
    if (!session_ok(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (all_ok && handle == MPI_T_PVAR_ALL_HANDLES)
        return MPI_SUCCESS;
    return pvar_of(session, handle) ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int MPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    int rc = pvar_check(session, handle ? *handle : MPI_T_PVAR_HANDLE_NULL, 0);
    if (rc)
        return rc;
    for (struct MPI_T_pvar_handle_t **p = &session->handles; *p; p = &(*p)->next)
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    handle_drop(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

/* Every variable is continuous: one handle cannot be started or stopped, and
 * for MPI_T_PVAR_ALL_HANDLES (which means the ones that can) there is nothing
 * to do. */
int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = pvar_check(session, handle, 1);
    return rc ? rc : handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_STARTSTOP;
}

int MPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return MPI_T_pvar_start(session, handle);
}

/* Every variable is read-only: resetting or writing one is refused, and
 * MPI_T_PVAR_ALL_HANDLES (the writable ones) resets nothing. */
int MPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = pvar_check(session, handle, 1);
    return rc ? rc : handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_PVAR_NO_WRITE;
}

int MPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    (void)buf;
    int rc = pvar_check(session, handle, 0);
    return rc ? rc : MPI_T_ERR_PVAR_NO_WRITE;
}

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = pvar_check(session, handle, 0);
    if (rc)
        return rc;
    if (!buf)
        return MPI_T_ERR_INVALID;
    unsigned long long v = pvars[handle->index].read();
    memcpy(buf, &v, sizeof v);
    return MPI_SUCCESS;
}

int MPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    (void)buf;
    int rc = pvar_check(session, handle, 0);
    return rc ? rc : MPI_T_ERR_PVAR_NO_WRITE;
}

/* ---- categories: one, holding every control variable ------------------------ */

int MPI_T_category_get_num(int *num_cat)
{
    T_CHECK_INIT();
    if (!num_cat)
        return MPI_T_ERR_INVALID;
    *num_cat = 1;
    return MPI_SUCCESS;
}

int MPI_T_category_get_info(int cat_index, char *name, int *name_len, char *desc,
                            int *desc_len, int *num_cvars, int *num_pvars, int *num_categories)
{
    T_CHECK_INIT();
    if (cat_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    mpir_t_string(name, name_len, category_name);
    mpir_t_string(desc, desc_len, category_desc);
    if (num_cvars)
        *num_cvars = skf_nparams;
    if (num_pvars)
        *num_pvars = NPVARS;
    if (num_categories)
        *num_categories = 0;
    return MPI_SUCCESS;
}

int MPI_T_category_get_index(const char *name, int *cat_index)
{
    T_CHECK_INIT();
    if (!name || !cat_index)
        return MPI_T_ERR_INVALID;
    if (strcmp(name, category_name) != 0)
        return MPI_T_ERR_INVALID_NAME;
    *cat_index = 0;
    return MPI_SUCCESS;
}

int MPI_T_category_get_cvars(int cat_index, int len, int indices[])
{
    T_CHECK_INIT();
    if (cat_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < len && i < skf_nparams; i++)
        indices[i] = i;
    return MPI_SUCCESS;
}

int MPI_T_category_get_pvars(int cat_index, int len, int indices[])
{
    T_CHECK_INIT();
    if (cat_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < len && i < NPVARS; i++)
        indices[i] = i;
    return MPI_SUCCESS;
}

int MPI_T_category_get_categories(int cat_index, int len, int indices[])
{
    (void)indices;
    T_CHECK_INIT();
    if (cat_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    return len < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

int MPI_T_category_changed(int *update_number)
{
    T_CHECK_INIT();
    if (!update_number)
        return MPI_T_ERR_INVALID;
    *update_number = 0; /* the categories never change */
    return MPI_SUCCESS;
}
