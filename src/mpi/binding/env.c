/*
 * env.c — the environment: Init/Finalize and friends, timers, versions,
 * processor name, Alloc_mem/Free_mem, Comm_rank/size.
 *
 * Thread level: whatever is asked, MPI_THREAD_MULTIPLE included.  Below
 * MULTIPLE the library keeps its plain, lock-free paths; MULTIPLE sets
 * mpir_mt before MPI_Init_thread returns, which turns on the device lock
 * and the waiting protocol of device/mt.h (docs/threads.md).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binding/check.h"
#include "dynproc/dynproc.h"
#include "rma/win.h"

/* mpir_initialized: the library is usable (the world model is on, or a
 * session is open: binding/session.c); mpir_finalized: MPI_Finalize ran. */
int mpir_initialized, mpir_finalized;
static int world_model; /* between MPI_Init and MPI_Finalize */
int mpir_sessions;      /* sessions open (binding/session.c) */
static int device_gone; /* the device ran mpid_finalize: it does not restart */
static int thread_level = MPI_THREAD_SINGLE;
static pthread_t main_thread;

/* Bring the device up for the world model or a first session. */
int mpir_device_up(const char *fn)
{
    if (mpir_initialized)
        return MPI_SUCCESS;
    if (device_gone)
        return mpir_error(NULL, MPI_ERR_OTHER, "%s: MPI was finalized in this process "
                          "(Skiff cannot start it again)", fn);
    mpid_init();
    main_thread = pthread_self();
    mpir_initialized = 1;
    return MPI_SUCCESS;
}

/* The world model ended or the last session closed: the device goes down
 * when neither uses it any more. */
void mpir_device_release(void)
{
    if (world_model || mpir_sessions)
        return;
    mpid_finalize();
    mpir_initialized = 0;
    device_gone = 1;
}

static int init(const char *fn, int required)
{
    if (world_model || mpir_finalized)
        return mpir_error(NULL, MPI_ERR_OTHER, "%s: MPI is already %s", fn,
                          mpir_finalized ? "finalized" : "initialized");
    int rc = mpir_device_up(fn);
    if (rc)
        return rc;
    thread_level = required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE : required;
    if (thread_level < MPI_THREAD_SINGLE)
        thread_level = MPI_THREAD_SINGLE;
    if (thread_level == MPI_THREAD_MULTIPLE)
        mpir_mt = 1;
    world_model = 1;
    return dyn_init_parent(); /* a spawned job connects to its parents (dynproc/connect.c) */
}

int MPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return init("MPI_Init", MPI_THREAD_SINGLE);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (!provided)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Init_thread: NULL provided");
    int rc = init("MPI_Init_thread", required);
    if (rc == MPI_SUCCESS)
        *provided = thread_level;
    return rc;
}

int MPI_Finalize(void)
{
    CHECK_INIT("MPI_Finalize");
    if (!world_model)
        return mpir_error(NULL, MPI_ERR_OTHER, "MPI_Finalize: MPI_Init was not called");
    mpir_attr_finalize();
    world_model = 0;
    mpir_finalized = 1;
    mpir_device_release(); /* unless sessions are still open */
    return MPI_SUCCESS;
}

int MPI_Initialized(int *flag)
{
    if (!flag)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Initialized: NULL flag");
    *flag = world_model || mpir_finalized; /* the world model only, not sessions */
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    if (!flag)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Finalized: NULL flag");
    *flag = mpir_finalized;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm; /* every rank of the job ends, whatever the communicator */
    char why[128];
    snprintf(why, sizeof why, "MPI_Abort(errorcode %d) called", errorcode);
    mpir_say(why);
    if (mpid.ctx)
        skf_abort_quiet(mpid.ctx, errorcode ? errorcode : 1, why);
    exit(errorcode ? errorcode : 1);
}

int MPI_Query_thread(int *provided)
{
    CHECK_INIT("MPI_Query_thread");
    if (!provided)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Query_thread: NULL provided");
    *provided = thread_level;
    return MPI_SUCCESS;
}

int MPI_Is_thread_main(int *flag)
{
    CHECK_INIT("MPI_Is_thread_main");
    if (!flag)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Is_thread_main: NULL flag");
    *flag = pthread_equal(pthread_self(), main_thread);
    return MPI_SUCCESS;
}

double MPI_Wtime(void)
{
    struct timespec ts; /* vDSO: no system call */
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double MPI_Wtick(void)
{
    struct timespec res;
    if (clock_getres(CLOCK_MONOTONIC, &res) != 0)
        return 1e-9;
    return (double)res.tv_sec + (double)res.tv_nsec * 1e-9;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Get_processor_name: NULL argument");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        strcpy(name, "unknown");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Get_version: NULL argument");
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Get_library_version: NULL argument");
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "Skiff MPI %s (MPI %d.%d, standard-ABI handle values, "
                     "over the Skiff channel layer)",
                     SKIFF_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n;
    return MPI_SUCCESS;
}

/* Memory from MPI_Alloc_mem is shared memory on the node (rma/win_create.c):
 * a window made on it lets the node's ranks load and store it directly. */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    static const char fn[] = "MPI_Alloc_mem";
    CHECK_INIT(fn);
    struct MPI_ABI_Info *i;
    int rc = info_check(fn, info, 1, &i);
    if (rc)
        return rc;
    if (size < 0 || !baseptr)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid size %ld or NULL baseptr (rank %d)", fn,
                          (long)size, mpir_world_rank());
    void *p;
    MPID_CS_SCOPE(); /* the block and arena lists, under MPI_THREAD_MULTIPLE */
    if (win_alloc_mem((size_t)size, &p))
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: rank %d: cannot allocate %ld bytes", fn,
                          mpir_world_rank(), (long)size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int MPI_Free_mem(void *base)
{
    static const char fn[] = "MPI_Free_mem";
    CHECK_INIT(fn);
    MPID_CS_SCOPE();
    if (base && win_free_mem(base))
        return mpir_error(NULL, MPI_ERR_BASE,
                          "%s: rank %d: %p was not returned by MPI_Alloc_mem (or is freed)", fn,
                          mpir_world_rank(), base);
    return MPI_SUCCESS;
}

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    CHECK_INIT("MPI_Comm_rank");
    struct MPI_ABI_Comm *c;
    int rc = check_comm("MPI_Comm_rank", comm, &c);
    if (rc)
        return rc;
    if (!rank)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Comm_rank: NULL rank");
    *rank = c->rank;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    CHECK_INIT("MPI_Comm_size");
    struct MPI_ABI_Comm *c;
    int rc = check_comm("MPI_Comm_size", comm, &c);
    if (rc)
        return rc;
    if (!size)
        return mpir_error(c, MPI_ERR_ARG, "MPI_Comm_size: NULL size");
    *size = unlikely(c->ext != NULL) ? mpir_comm_local_size(c) : c->size;
    return MPI_SUCCESS;
}

/* ---- profiling control ----------------------------------------------------------- */
/* The hook a profiling library intercepts (MPI-3.1 14.2.4): level 0 stops
 * profiling, 1 resumes it, 2 flushes, others are the profiler's.  Without a
 * profiler interposed there is nothing to control, so every level is accepted
 * and nothing happens — which is what the standard asks of the library. */
int MPI_Pcontrol(const int level, ...)
{
    (void)level;
    return MPI_SUCCESS;
}
