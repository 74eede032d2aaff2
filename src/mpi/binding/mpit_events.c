/*
 * mpit_events.c — MPI_T events and event sources (MPI 4.0 section 15.3.8).
 *
 * One source, "skiff_monotonic_clock": CLOCK_MONOTONIC in nanoseconds
 * (ordered; every timestamp of an event comes from it).  One event,
 * "skiff_mpi_unexpected_message", bound to a communicator: a message arrived
 * before a matching receive was posted (device/match.c), with elements
 * communicator handle (MPI_AINT), source rank and tag (MPI_INT), bytes
 * (MPI_COUNT).  It sits in category "skiff" (binding/mpit.c).
 *
 * Callbacks and their safety levels.  The event is raised inside the device's
 * matching, possibly on a thread that is not the application's, so the
 * context requires callbacks that are thread safe and use only the restricted
 * MPI_T calls (MPI_T_CB_REQUIRE_THREAD_SAFE): a registration with a callback
 * at that level (else at MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE) has it called
 * right there.  Otherwise the instance is queued (at most QUEUE_MAX per
 * registration; beyond that it is dropped and counted for the dropped
 * handler) and handed over at the start of the next MPI call that checks
 * initialisation (CHECK_INIT: sends, receives, collectives, communicator,
 * group, datatype, info calls ...), a context without restrictions, to the
 * registration's callback of the lowest level registered, called with
 * cb_safety MPI_T_CB_REQUIRE_NONE.  An instance is valid during its callback.
 *
 * Like the rest of MPI_T these calls return MPI_T_ERR_* codes and never call
 * an error handler.  Not thread safe against each other beyond the locks
 * below: registrations are taken under reg_lock, delivery under the
 * (recursive) deliver_lock, so MPI_T_event_handle_free waits until no
 * callback of the registration runs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP */
#endif
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "info/info.h"
#include "mpit_events.h"

int mpir_t_events_on;
int mpir_t_events_pending;

#define MAGIC_REG 0x67655254u
#define MAGIC_INST 0x736e4954u
#define QUEUE_MAX 1024 /* queued instances per registration */
#define N_SAFETY 4

/* ---- the source --------------------------------------------------------------- */
static MPI_Count now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (MPI_Count)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- the events ---------------------------------------------------------------- */
typedef struct unexpected_data {
    MPI_Aint comm;
    int source, tag;
    MPI_Count bytes;
} unexpected_data_t;

#define MAX_ELEMENTS 4
static const struct event_desc {
    const char *name, *desc;
    int bind, n;
    MPI_Datatype types[MAX_ELEMENTS];
    MPI_Aint displs[MAX_ELEMENTS];
    size_t sizes[MAX_ELEMENTS], size;
} events[] = {
    {"skiff_mpi_unexpected_message",
     "a message arrived before a matching receive was posted; elements: communicator handle, "
     "source rank, tag, bytes",
     MPI_T_BIND_MPI_COMM,
     4,
     {MPI_AINT, MPI_INT, MPI_INT, MPI_COUNT},
     {offsetof(unexpected_data_t, comm), offsetof(unexpected_data_t, source),
      offsetof(unexpected_data_t, tag), offsetof(unexpected_data_t, bytes)},
     {sizeof(MPI_Aint), sizeof(int), sizeof(int), sizeof(MPI_Count)},
     sizeof(unexpected_data_t)},
};
#define NEVENTS ((int)(sizeof events / sizeof events[0]))
#define MAX_DATA sizeof(unexpected_data_t)

struct MPI_T_event_instance_t {
    uint32_t magic;
    int event;
    MPI_Count timestamp;
    union {
        unsigned char bytes[MAX_DATA];
        unexpected_data_t unexpected;
    } data;
};

typedef struct callback {
    MPI_T_event_cb_function *fn;
    void *user_data;
    struct MPI_ABI_Info *info;
} callback_t;

struct MPI_T_event_registration_t {
    uint32_t magic;
    int event;
    struct MPI_ABI_Comm *comm; /* the bound object (NULL: none) */
    struct MPI_ABI_Info *info;
    callback_t cb[N_SAFETY]; /* by safety level, least restrictive first */
    MPI_T_event_dropped_cb_function *dropped_fn;
    MPI_Count dropped;
    int queued;
    struct MPI_T_event_registration_t *next;
};

typedef struct queued {
    struct MPI_T_event_registration_t *reg;
    struct MPI_T_event_instance_t inst;
    struct queued *next;
} queued_t;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t deliver_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct MPI_T_event_registration_t *regs;
static queued_t *q_head, *q_tail;

static const MPI_T_cb_safety levels[N_SAFETY] = {
    MPI_T_CB_REQUIRE_NONE, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE};

static int level_index(MPI_T_cb_safety s)
{
    for (int i = 0; i < N_SAFETY; i++)
        if (levels[i] == s)
            return i;
    return -1;
}

/* Lowest registered callback level >= from, or -1. */
static int lowest_from(const struct MPI_T_event_registration_t *r, int from)
{
    for (int i = from; i < N_SAFETY; i++)
        if (r->cb[i].fn)
            return i;
    return -1;
}

static int dropped_waiting; /* a registration with a dropped handler dropped some */

static void update_pending(void)
{
    __atomic_store_n(&mpir_t_events_pending, q_head || dropped_waiting, __ATOMIC_RELAXED);
}

static void raise_event(int event, const struct MPI_ABI_Comm *obj, const void *data)
{
    struct MPI_T_event_instance_t inst = {MAGIC_INST, event, now_ns(), {{0}}};
    memcpy(inst.data.bytes, data, events[event].size);
    pthread_mutex_lock(&reg_lock);
    for (struct MPI_T_event_registration_t *r = regs; r; r = r->next) {
        if (r->event != event || (r->comm && r->comm != obj) || lowest_from(r, 0) < 0)
            continue;
        int now = lowest_from(r, 2); /* THREAD_SAFE or ASYNC_SIGNAL_SAFE: here */
        if (now >= 0) {
            r->cb[now].fn(&inst, r, levels[now], r->cb[now].user_data);
            continue;
        }
        queued_t *q = r->queued < QUEUE_MAX ? malloc(sizeof *q) : NULL;
        if (!q) {
            r->dropped++;
            dropped_waiting |= r->dropped_fn != NULL; /* told at delivery */
            continue;
        }
        *q = (queued_t){r, inst, NULL};
        r->queued++;
        if (q_tail)
            q_tail->next = q;
        else
            q_head = q;
        q_tail = q;
    }
    update_pending();
    pthread_mutex_unlock(&reg_lock);
}

static MPI_Aint comm_handle(const struct MPI_ABI_Comm *c)
{
    if (c >= mpir_comm_predef && c < mpir_comm_predef + 3)
        return (MPI_Aint)(0x100 + (c - mpir_comm_predef));
    return (MPI_Aint)(uintptr_t)c;
}

void mpir_t_event_unexpected_raise(struct MPI_ABI_Comm *c, int src, int tag, size_t bytes)
{
    if (!c->ext) /* a collective context: nobody can bind to it */
        return;
    unexpected_data_t d = {comm_handle(c), src, tag, (MPI_Count)bytes};
    raise_event(0, c, &d);
}

static __thread int delivering; /* a callback of this thread runs (it may call MPI) */

/* Dropped counts of every registration to its handler (called unlocked),
 * with the user data of its least restricted callback. */
static void report_dropped(void)
{
    for (;;) {
        pthread_mutex_lock(&reg_lock);
        struct MPI_T_event_registration_t *r = regs;
        while (r && !(r->dropped && r->dropped_fn))
            r = r->next;
        MPI_Count n = r ? r->dropped : 0;
        if (r)
            r->dropped = 0;
        else
            dropped_waiting = 0;
        update_pending();
        pthread_mutex_unlock(&reg_lock);
        if (!r)
            return;
        int lv = lowest_from(r, 0);
        r->dropped_fn(n, r, 0, MPI_T_CB_REQUIRE_NONE, lv < 0 ? NULL : r->cb[lv].user_data);
    }
}

void mpir_t_events_deliver(void)
{
    if (delivering)
        return;
    pthread_mutex_lock(&deliver_lock);
    delivering = 1;
    for (;;) {
        pthread_mutex_lock(&reg_lock);
        queued_t *q = q_head;
        if (q) {
            q_head = q->next;
            if (!q_head)
                q_tail = NULL;
            q->reg->queued--;
        }
        update_pending();
        pthread_mutex_unlock(&reg_lock);
        if (!q)
            break;
        struct MPI_T_event_registration_t *r = q->reg;
        int lv = lowest_from(r, 0);
        if (lv >= 0)
            r->cb[lv].fn(&q->inst, r, MPI_T_CB_REQUIRE_NONE, r->cb[lv].user_data);
        free(q);
    }
    report_dropped();
    delivering = 0;
    pthread_mutex_unlock(&deliver_lock);
}

/* ---- argument checks ------------------------------------------------------------ */
#define T_CHECK_INIT()                     \
    do {                                   \
        if (!mpir_t_initialized())         \
            return MPI_T_ERR_NOT_INITIALIZED; \
    } while (0)

/* MPI_T initialised and r a registration. */
static int reg_check(MPI_T_event_registration r)
{
    if (!mpir_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    return r && r->magic == MAGIC_REG ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

/* reg_check, and *lv the index of safety level s. */
static int reg_level_check(MPI_T_event_registration r, MPI_T_cb_safety s, int *lv)
{
    int rc = reg_check(r);
    if (rc)
        return rc;
    *lv = level_index(s);
    return *lv < 0 ? MPI_T_ERR_INVALID : MPI_SUCCESS;
}

/* MPI_T initialised, i an instance, out (an output argument) not NULL. */
static int inst_check(MPI_T_event_instance i, const void *out)
{
    if (!mpir_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!i || i->magic != MAGIC_INST)
        return MPI_T_ERR_INVALID_HANDLE;
    return out ? MPI_SUCCESS : MPI_T_ERR_INVALID;
}

/* An info argument: MPI_INFO_NULL (*out NULL) or an info object. */
static int info_arg(MPI_Info h, struct MPI_ABI_Info **out)
{
    *out = NULL;
    if (h == MPI_INFO_NULL)
        return MPI_SUCCESS;
    struct MPI_ABI_Info *i = (struct MPI_ABI_Info *)h;
    if ((uintptr_t)h < MPIR_PREDEF_BOUND || i->magic != MAGIC_INFO)
        return MPI_T_ERR_INVALID;
    *out = i;
    return MPI_SUCCESS;
}

/* Replace *slot by a copy of info's handle h. */
static int info_store(MPI_Info h, struct MPI_ABI_Info **slot)
{
    struct MPI_ABI_Info *i, *copy = NULL;
    int rc = info_arg(h, &i);
    if (rc)
        return rc;
    if (i && !(copy = info_dup(i)))
        return MPI_T_ERR_MEMORY;
    info_free(*slot);
    *slot = copy;
    return MPI_SUCCESS;
}

/* A new info for the caller: a copy of from (empty if NULL). */
static int info_out(const struct MPI_ABI_Info *from, MPI_Info *out)
{
    if (!out)
        return MPI_T_ERR_INVALID;
    struct MPI_ABI_Info *n = from ? info_dup(from) : info_new();
    if (!n)
        return MPI_T_ERR_MEMORY;
    *out = (MPI_Info)n;
    return MPI_SUCCESS;
}

/* ---- sources --------------------------------------------------------------------- */
static const char source_name[] = "skiff_monotonic_clock";
static const char source_desc[] =
    "CLOCK_MONOTONIC of this process in nanoseconds; the timestamps of all Skiff's events";

int MPI_T_source_get_num(int *num_sources)
{
    T_CHECK_INIT();
    if (!num_sources)
        return MPI_T_ERR_INVALID;
    *num_sources = 1;
    return MPI_SUCCESS;
}

int MPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc,
                          int *desc_len, MPI_T_source_order *ordering,
                          MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info)
{
    T_CHECK_INIT();
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    mpir_t_string(name, name_len, source_name);
    mpir_t_string(desc, desc_len, source_desc);
    if (ordering)
        *ordering = MPI_T_SOURCE_ORDERED;
    if (ticks_per_second)
        *ticks_per_second = 1000000000;
    if (max_ticks)
        *max_ticks = INT64_MAX;
    return info ? info_out(NULL, info) : MPI_SUCCESS;
}

int MPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    T_CHECK_INIT();
    if (source_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (!timestamp)
        return MPI_T_ERR_INVALID;
    *timestamp = now_ns();
    return MPI_SUCCESS;
}

/* ---- event types ------------------------------------------------------------------ */
int MPI_T_event_get_num(int *num_events)
{
    T_CHECK_INIT();
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = NEVENTS;
    return MPI_SUCCESS;
}

int MPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                         int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc,
                         int *desc_len, int *bind)
{
    T_CHECK_INIT();
    if (event_index < 0 || event_index >= NEVENTS)
        return MPI_T_ERR_INVALID_INDEX;
    const struct event_desc *e = &events[event_index];
    mpir_t_string(name, name_len, e->name);
    mpir_t_string(desc, desc_len, e->desc);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_DETAIL;
    if (num_elements) { /* in: room in the arrays; out: the elements there are */
        for (int k = 0; k < e->n && k < *num_elements; k++) {
            if (array_of_datatypes)
                array_of_datatypes[k] = e->types[k];
            if (array_of_displacements)
                array_of_displacements[k] = e->displs[k];
        }
        *num_elements = e->n;
    }
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = e->bind;
    return info ? info_out(NULL, info) : MPI_SUCCESS;
}

int MPI_T_event_get_index(const char *name, int *event_index)
{
    T_CHECK_INIT();
    if (!name || !event_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < NEVENTS; i++)
        if (strcmp(name, events[i].name) == 0) {
            *event_index = i;
            return MPI_SUCCESS;
        }
    return MPI_T_ERR_INVALID_NAME;
}

/* ---- registrations ---------------------------------------------------------------- */
int MPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                             MPI_T_event_registration *event_registration)
{
    T_CHECK_INIT();
    if (event_index < 0 || event_index >= NEVENTS)
        return MPI_T_ERR_INVALID_INDEX;
    if (!event_registration)
        return MPI_T_ERR_INVALID;
    struct MPI_ABI_Comm *obj = NULL;
    if (events[event_index].bind == MPI_T_BIND_MPI_COMM) {
        if (!obj_handle)
            return MPI_T_ERR_INVALID_HANDLE;
        MPI_Comm h = *(MPI_Comm *)obj_handle;
        uintptr_t v = (uintptr_t)h;
        if (v - 0x101 < 2)
            obj = &mpir_comm_predef[v & 3];
        else if (v >= MPIR_PREDEF_BOUND && ((struct MPI_ABI_Comm *)h)->magic == MAGIC_COMM)
            obj = (struct MPI_ABI_Comm *)h;
        else
            return MPI_T_ERR_INVALID_HANDLE;
    }
    struct MPI_T_event_registration_t *r = calloc(1, sizeof *r);
    if (!r)
        return MPI_T_ERR_MEMORY;
    int rc = info_store(info, &r->info);
    if (rc) {
        free(r);
        return rc;
    }
    r->magic = MAGIC_REG;
    r->event = event_index;
    r->comm = obj;
    pthread_mutex_lock(&reg_lock);
    r->next = regs;
    regs = r;
    __atomic_store_n(&mpir_t_events_on, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&reg_lock);
    *event_registration = r;
    return MPI_SUCCESS;
}

int MPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    int rc = reg_check(event_registration);
    if (rc)
        return rc;
    return info_store(info, &event_registration->info);
}

int MPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    int rc = reg_check(event_registration);
    if (rc)
        return rc;
    return info_out(event_registration->info, info_used);
}

int MPI_T_event_register_callback(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data,
                                  MPI_T_event_cb_function event_cb_function)
{
    int lv, rc = reg_level_check(event_registration, cb_safety, &lv);
    if (rc)
        return rc;
    callback_t *cb = &event_registration->cb[lv];
    struct MPI_ABI_Info *copy = NULL;
    if ((rc = info_store(info, &copy)))
        return rc;
    pthread_mutex_lock(&reg_lock);
    info_free(cb->info);
    *cb = (callback_t){event_cb_function, user_data, copy}; /* NULL: none at this level */
    pthread_mutex_unlock(&reg_lock);
    return MPI_SUCCESS;
}

int MPI_T_event_callback_set_info(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info info)
{
    int lv, rc = reg_level_check(event_registration, cb_safety, &lv);
    if (rc)
        return rc;
    return info_store(info, &event_registration->cb[lv].info);
}

int MPI_T_event_callback_get_info(MPI_T_event_registration event_registration,
                                  MPI_T_cb_safety cb_safety, MPI_Info *info_used)
{
    int lv, rc = reg_level_check(event_registration, cb_safety, &lv);
    if (rc)
        return rc;
    return info_out(event_registration->cb[lv].info, info_used);
}

int MPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                    MPI_T_event_dropped_cb_function dropped_cb_function)
{
    int rc = reg_check(event_registration);
    if (rc)
        return rc;
    pthread_mutex_lock(&reg_lock);
    event_registration->dropped_fn = dropped_cb_function;
    pthread_mutex_unlock(&reg_lock);
    return MPI_SUCCESS;
}

/* No callback of r runs once this returns (deliver_lock), and nothing of it
 * is queued. */
int MPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                            MPI_T_event_free_cb_function free_cb_function)
{
    struct MPI_T_event_registration_t *r = event_registration;
    int rc = reg_check(r);
    if (rc)
        return rc;
    pthread_mutex_lock(&deliver_lock);
    pthread_mutex_lock(&reg_lock);
    struct MPI_T_event_registration_t **p = &regs;
    while (*p && *p != r)
        p = &(*p)->next;
    if (*p)
        *p = r->next;
    __atomic_store_n(&mpir_t_events_on, regs != NULL, __ATOMIC_RELAXED);
    queued_t **qp = &q_head;
    q_tail = NULL;
    while (*qp) {
        queued_t *q = *qp;
        if (q->reg == r) {
            *qp = q->next;
            free(q);
        } else {
            q_tail = q;
            qp = &q->next;
        }
    }
    update_pending();
    r->magic = 0;
    pthread_mutex_unlock(&reg_lock);
    pthread_mutex_unlock(&deliver_lock);
    if (free_cb_function)
        free_cb_function(r, MPI_T_CB_REQUIRE_NONE, user_data);
    for (int i = 0; i < N_SAFETY; i++)
        info_free(r->cb[i].info);
    info_free(r->info);
    free(r);
    return MPI_SUCCESS;
}

/* ---- event instances (valid inside their callback) --------------------------------- */
int MPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    int rc = inst_check(event_instance, buffer);
    if (rc)
        return rc;
    const struct event_desc *e = &events[event_instance->event];
    if (element_index < 0 || element_index >= e->n)
        return MPI_T_ERR_INVALID_INDEX;
    memcpy(buffer, event_instance->data.bytes + e->displs[element_index],
           e->sizes[element_index]);
    return MPI_SUCCESS;
}

int MPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    int rc = inst_check(event_instance, buffer);
    if (rc)
        return rc;
    memcpy(buffer, event_instance->data.bytes, events[event_instance->event].size);
    return MPI_SUCCESS;
}

int MPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    int rc = inst_check(event_instance, event_timestamp);
    if (rc)
        return rc;
    *event_timestamp = event_instance->timestamp;
    return MPI_SUCCESS;
}

int MPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    int rc = inst_check(event_instance, source_index);
    if (rc)
        return rc;
    *source_index = 0;
    return MPI_SUCCESS;
}

/* ---- the category's events (binding/mpit.c has the category) ------------------------ */
int MPI_T_category_get_num_events(int cat_index, int *num_events)
{
    T_CHECK_INIT();
    if (cat_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (!num_events)
        return MPI_T_ERR_INVALID;
    *num_events = NEVENTS;
    return MPI_SUCCESS;
}

int MPI_T_category_get_events(int cat_index, int len, int indices[])
{
    T_CHECK_INIT();
    if (cat_index != 0)
        return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && !indices))
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < len && i < NEVENTS; i++)
        indices[i] = i;
    return MPI_SUCCESS;
}
