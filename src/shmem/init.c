/*
 * init.c — joining and leaving the job (shmem_init/finalize/global_exit), the
 * queries, and errors.
 *
 * The job's boot and channel context come from skf_init, which a process
 * enters once: MPI and OpenSHMEM in one program (either initialised first)
 * share them.  OpenSHMEM opens its own port (SKF_PORT_SHMEM) for the one
 * exchange it needs at start-up (symm.c); everything later is one-sided.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmemi.h"

struct shmemi_state shmemi __attribute__((visibility("hidden")));
struct shmemi_ctx shmemi_ctx_default = {SHMEMI_CTX_MAGIC, 0, SHMEM_TEAM_WORLD};

void shmemi_fatal(const char *call, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (shmemi.initialized)
        fprintf(stderr, "shmem: PE %d: %s: %s\n", shmemi.me, call, what);
    else
        fprintf(stderr, "shmem: %s: %s\n", call, what);
    fflush(stderr);
    if (shmemi.ctx)
        skf_abort_quiet(shmemi.ctx, 1, call);
    exit(1);
}

void shmemi_check_init(const char *call)
{
    if (!shmemi.initialized)
        shmemi_fatal(call, shmemi.finalized ? "called after shmem_finalize"
                                            : "called before shmem_init");
}

/* Bytes from SHMEM_SYMMETRIC_SIZE: a number with an optional K, M, G or T
 * (powers of 1024), as other OpenSHMEMs accept it. */
#define SHMEMI_DEFAULT_HEAP (128u << 20)
static size_t heap_size_from_env(void)
{
    const char *s = getenv("SHMEM_SYMMETRIC_SIZE");
    if (!s || !*s)
        return SHMEMI_DEFAULT_HEAP;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: break;
    }
    if (*end == 'b' || *end == 'B')
        end++;
    if (errno || end == s || *end || s[0] == '-' || (shift && v > (~0ull >> shift)))
        shmemi_fatal("shmem_init", "SHMEM_SYMMETRIC_SIZE=%s is not valid: expected a number of "
                                   "bytes with an optional K, M, G or T suffix", s);
    return (size_t)(v << shift);
}

static void init(const char *call, int requested)
{
    if (shmemi.initialized)
        return; /* later calls have no effect */
    if (shmemi.finalized)
        shmemi_fatal(call, "called after shmem_finalize (OpenSHMEM starts once per program)");
    int rc = skf_init(&shmemi.ctx);
    if (rc < 0)
        shmemi_fatal(call, "joining the job failed: %s", skf_strerror(rc));
    rc = skf_chan_open(shmemi.ctx, SKF_PORT_SHMEM, &shmemi.ch);
    if (rc < 0)
        shmemi_fatal(call, "opening the SHMEM channel failed: %s", skf_strerror(rc));
    shmemi.me = skf_rank(shmemi.ctx);
    shmemi.npes = skf_size(shmemi.ctx);
    shmemi.initialized = 1;
    /* Mapped memory is thread-safe by nature; the channel is one thread at a
     * time (skiff.h), so under MULTIPLE SHMEM's channel calls take a lock. */
    shmemi.thread_level = requested;
    pthread_mutex_init(&shmemi.chan_lock, NULL);
    shmemi.sync_expect = calloc((size_t)shmemi.npes, sizeof *shmemi.sync_expect);
    shmemi.chan_sig = calloc((size_t)shmemi.npes, sizeof *shmemi.chan_sig);
    if (!shmemi.sync_expect || !shmemi.chan_sig)
        shmemi_fatal(call, "out of memory for %d PEs", shmemi.npes);
    if (shmemi_symm_init() || shmemi_heap_init(shmemi.heap_user) || shmemi_teams_init())
        shmemi_fatal(call, "setting up symmetric memory failed");
    shmem_barrier_all();
    shmemi_symm_names_done();
}

void shmem_init(void)
{
    shmemi.heap_user = heap_size_from_env();
    init("shmem_init", SHMEM_THREAD_SINGLE);
}

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        shmemi_fatal("shmem_init_thread", "invalid thread level %d (expected SHMEM_THREAD_SINGLE "
                                          "0 .. SHMEM_THREAD_MULTIPLE 3)", requested);
    shmemi.heap_user = heap_size_from_env();
    init("shmem_init_thread", requested);
    if (provided)
        *provided = shmemi.thread_level;
    return 0;
}

void shmem_query_thread(int *provided)
{
    shmemi_check_init("shmem_query_thread");
    if (!provided)
        shmemi_fatal("shmem_query_thread", "provided is NULL");
    *provided = shmemi.thread_level;
}

void shmem_finalize(void)
{
    if (!shmemi.initialized)
        return;
    shmem_barrier_all();
    shmemi_flight_finalize();
    shmemi_teams_finalize();
    shmemi_heap_finalize();
    shmemi_symm_finalize();
    skf_chan_close(shmemi.ch);
    skf_finalize(shmemi.ctx);
    free(shmemi.sync_expect);
    shmemi.sync_expect = NULL;
    free(shmemi.chan_sig);
    shmemi.chan_sig = NULL;
    shmemi.ch = NULL;
    shmemi.ctx = NULL;
    shmemi.initialized = 0;
    shmemi.finalized = 1;
}

void shmem_global_exit(int status)
{
    shmemi_check_init("shmem_global_exit");
    fflush(stdout);
    fflush(stderr);
    char why[64];
    snprintf(why, sizeof why, "shmem_global_exit(%d) on PE %d", status, shmemi.me);
    skf_abort_quiet(shmemi.ctx, status, why);
}

int shmem_my_pe(void) { return shmemi.initialized ? shmemi.me : -1; }
int shmem_n_pes(void) { return shmemi.initialized ? shmemi.npes : -1; }
int _my_pe(void) { return shmem_my_pe(); }
int _num_pes(void) { return shmem_n_pes(); }
void start_pes(int npes)
{
    (void)npes; /* the launcher decides the job's size */
    shmem_init();
}

int shmem_pe_accessible(int pe)
{
    shmemi_check_init("shmem_pe_accessible");
    return pe >= 0 && pe < shmemi.npes;
}

void shmem_info_get_version(int *major, int *minor)
{
    if (!major || !minor)
        shmemi_fatal("shmem_info_get_version", "major (%p) and minor (%p) must not be NULL",
                     (void *)major, (void *)minor);
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (!name)
        shmemi_fatal("shmem_info_get_name", "name is NULL");
    snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

void shmem_pcontrol(int level, ...) { (void)level; }

/* Cache management of the deprecated API: nothing to do on coherent caches. */
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void *dest) { (void)dest; }
void shmem_set_cache_line_inv(void *dest) { (void)dest; }
void shmem_udcflush(void) {}
void shmem_udcflush_line(void *dest) { (void)dest; }
