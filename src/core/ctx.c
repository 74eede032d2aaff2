/*
 * ctx — a process's membership in the job: bootstrap, node locality, the
 * tunables (read once), liveness of the ranks on my node, messages to stderr.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/config.h"
#include "core/copy.h"
#include "core/core.h"
#include "core/cpu_cache.h"

static void vsay(const char *fmt, va_list ap)
{
    char line[512];
    vsnprintf(line, sizeof line, fmt, ap);
    fprintf(stderr, "skiff: %s\n", line); /* one write per line: ranks do not interleave mid-line */
}

void skf_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

void skf_verbose(const skf_ctx_t *ctx, const char *fmt, ...)
{
    if (!ctx || !ctx->verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

/* ---- tunables ------------------------------------------------------------ */

/* The values are in range: skf_config_check refused the job otherwise. */
static void read_config(skf_ctx_t *ctx)
{
    struct skf_shm_conf *c = &ctx->shm;
    long long spin = skf_param_ll("SKIFF_SPIN");
    long long yields = skf_param_ll("SKIFF_YIELDS");
    c->ring_bytes = (uint64_t)skf_param_ll("SKIFF_SHM_RING_SIZE"); /* 0: auto */
    c->ring_bytes_set = c->ring_bytes != 0;
    if (!c->ring_bytes)
        c->ring_bytes = SKF_SHM_RING_DEFAULT;
    c->dedicated_max = (int)skf_param_ll("SKIFF_SHM_DEDICATED_MAX");
    c->dedicated_after = (long)skf_param_ll("SKIFF_SHM_DEDICATED_AFTER");
    const char *demote = skf_param_str("SKIFF_SHM_DEMOTE");
    c->demote_max = !skf_demote_ok ? 0
                    : !strcmp(demote, "auto") ? SKF_SHM_DEMOTE_AUTO
                                              : (uint64_t)skf_param_ll("SKIFF_SHM_DEMOTE");
    const char *own = skf_param_str("SKIFF_SHM_OWN_NEXT");
    c->own_next_lines = (!strcmp(own, "auto") ? (skf_cpu_is_intel() ? SKF_SHM_OWN_NEXT_AUTO : 0)
                                              : (uint64_t)skf_param_ll("SKIFF_SHM_OWN_NEXT")) / 64;
    /* auto sizes from the L2: a ring must outgrow the receiver's private
     * cache (its lines are then fetched from L3, not stolen from the other
     * core), but the rings of a pair must still fit the L3 beside the user's
     * buffers (docs/shm-transport.md, "Ring size"). */
    uint64_t l2 = skf_l2_bytes();
    c->few_ring_bytes = l2 ? skf_pow2_clamp(2 * l2, SKF_SHM_RING_FEW_MIN, SKF_SHM_RING_FEW_MAX)
                           : SKF_SHM_RING_FEW_MAX;
    c->bulk_bytes = (uint64_t)skf_param_ll("SKIFF_SHM_BULK_SIZE"); /* 0: auto */
    if (!c->bulk_bytes)
        c->bulk_bytes = l2 ? skf_pow2_clamp(4 * l2, SKF_SHM_BULK_AUTO_MIN, SKF_SHM_BULK_AUTO_MAX)
                           : SKF_SHM_BULK_AUTO_MAX;
    c->bulk_ranks = (int)skf_param_ll("SKIFF_SHM_BULK_RANKS");
    /* "auto" (0): spin long when every rank has a core; when ranks outnumber
     * cores, poll 4 times, yield once, then sleep on the doorbell (a
     * spinning or yield-looping waiter steals the core its sender needs:
     * measured with skf_chan_bench tokenring, docs/shm-transport.md). */
    c->spin = spin > 0 ? (long)spin : (ctx->oversubscribed ? 4 : 20000);
    c->yields = yields > 0 ? (int)yields : (ctx->oversubscribed ? 1 : 0);
    c->tcp_spin_ns = skf_param_ll("SKIFF_TCP_SPIN_US") * 1000;
    if (spin < 0)
        c->spin = 0;
    if (yields < 0)
        c->yields = 0;
}

/* ---- liveness of local ranks --------------------------------------------- */

static int proc_state_dead(pid_t pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* state follows the command name */
    return p && (p[2] == 'Z' || p[2] == 'X');
}

int skf_local_dead(const skf_ctx_t *ctx, int local_idx)
{
    int fd = ctx->pidfd[local_idx];
    if (fd >= 0) { /* a pidfd turns readable when the process exits, zombie or not */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        return poll(&p, 1, 0) > 0;
    }
    return proc_state_dead(ctx->local_pid[local_idx]);
}

int skf_node_rank_dead(const skf_ctx_t *ctx, int rank, int *pid)
{
    int local = ctx && rank >= 0 && rank < ctx->size ? ctx->local_of_rank[rank] : -1;
    if (local < 0 || rank == ctx->rank)
        return 0;
    if (pid)
        *pid = (int)ctx->local_pid[local];
    return skf_local_dead(ctx, local);
}

/* Learn the pids of the ranks on my node (for liveness and CMA). */
static int exchange_pids(skf_ctx_t *ctx)
{
    const boot_info_t *b = ctx->boot;
    char key[BOOT_KEY_MAX], val[BOOT_VAL_MAX];
    int rc;
    snprintf(key, sizeof key, "skf-pid-%d", ctx->rank);
    snprintf(val, sizeof val, "%d %llu", (int)getpid(),
             (unsigned long long)(uintptr_t)&ctx->cma_probe_word);
    if ((rc = boot_put(key, val)) || (rc = boot_fence()))
        return rc;
    for (int l = 0; l < b->local_size; l++) {
        snprintf(key, sizeof key, "skf-pid-%d", b->local_ranks[l]);
        if ((rc = boot_get(key, val, sizeof val))) {
            skf_error("skf_init: no pid published by rank %d", b->local_ranks[l]);
            return rc;
        }
        ctx->local_pid[l] = (pid_t)atoi(val);
        ctx->pidfd[l] = -1;
        if (l != b->local_rank) {
#ifdef SYS_pidfd_open
            ctx->pidfd[l] = (int)syscall(SYS_pidfd_open, ctx->local_pid[l], 0);
            if (ctx->pidfd[l] < 0)
                ctx->pidfd[l] = -1;
#endif
        }
    }
    return 0;
}

/* ---- membarrier ------------------------------------------------------------ */

/* Register for MEMBARRIER_CMD_GLOBAL_EXPEDITED (used by a sleeping shm
 * receiver instead of a fence in every send).  Off when SKIFF_SHM_MEMBARRIER=0,
 * when ranks outnumber cores (receivers then sleep so often that its IPIs cost
 * more than the senders' fences: measured), or when the kernel or a seccomp
 * filter refuses.  Returns 1 when registered. */
int skf_membarrier_register(const skf_ctx_t *ctx)
{
#if defined(SYS_membarrier)
    if (skf_param_ll("SKIFF_SHM_MEMBARRIER") == 0 || ctx->oversubscribed)
        return 0;
    long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    if (cmds < 0 || !(cmds & MEMBARRIER_CMD_GLOBAL_EXPEDITED))
        return 0;
    return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0;
#else
    (void)ctx;
    return 0;
#endif
}

int skf_membarrier(void)
{
#if defined(SYS_membarrier)
    return (int)syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0);
#else
    return -1;
#endif
}

/* ---- context ------------------------------------------------------------- */

static void free_ctx(skf_ctx_t *ctx)
{
    if (!ctx)
        return;
    if (ctx->pidfd && ctx->boot)
        for (int l = 0; l < ctx->boot->local_size; l++)
            if (ctx->pidfd[l] >= 0)
                close(ctx->pidfd[l]);
    free(ctx->pidfd);
    free(ctx->local_pid);
    free(ctx->local_of_rank);
    free(ctx->mrs);
    free(ctx);
}

/* A process joins the job once: MPI and OpenSHMEM in one program (either
 * initialised first) share this context; the last skf_finalize leaves. */
static skf_ctx_t *process_ctx;
static int process_ctx_refs;

int skf_init(skf_ctx_t **ctxp)
{
    boot_info_t *b;
    int rc;
    if (!ctxp) {
        skf_error("skf_init: ctx pointer is NULL");
        return -EINVAL;
    }
    if (process_ctx) {
        process_ctx_refs++;
        *ctxp = process_ctx;
        return 0;
    }
    *ctxp = NULL;
    if ((rc = skf_config_check("skf_init")) || (rc = boot_init(&b)))
        return rc;
    skf_ctx_t *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return -ENOMEM;
    ctx->boot = b;
    ctx->rank = b->rank;
    ctx->size = b->size;
    ctx->verbose = skf_param_ll("SKIFF_VERBOSE") > 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    ctx->oversubscribed = cpus > 0 && b->local_size > cpus;
    ctx->local_of_rank = malloc((size_t)b->size * sizeof(int));
    ctx->local_pid = calloc((size_t)b->local_size, sizeof(pid_t));
    ctx->pidfd = calloc((size_t)b->local_size, sizeof(int));
    if (!ctx->local_of_rank || !ctx->local_pid || !ctx->pidfd) {
        free_ctx(ctx);
        return -ENOMEM;
    }
    for (int r = 0; r < b->size; r++)
        ctx->local_of_rank[r] = -1;
    for (int l = 0; l < b->local_size; l++) {
        ctx->local_of_rank[b->local_ranks[l]] = l;
        ctx->pidfd[l] = -1;
    }
    /* Let any process of mine read/write my memory by CMA: with Yama's
     * ptrace_scope=1 siblings could not otherwise. */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    ctx->cma_probe_word = SKF_CMA_PROBE_MAGIC; /* before exchange_pids publishes its address */
    skf_copy_init(); /* before read_config: it asks skf_demote_ok */
    read_config(ctx);
    if ((rc = exchange_pids(ctx)) || (rc = skf_mr_init(ctx)) ||
        (rc = skf_chan_open_port(ctx, SKF_PORT_INTERNAL, &ctx->internal))) {
        free_ctx(ctx);
        return rc;
    }
    skf_verbose(ctx, "rank %d of %d: node %d, local %d of %d%s; send doorbell %s; CMA %s%s",
                ctx->rank, ctx->size, b->node_of_rank[b->rank], b->local_rank, b->local_size,
                ctx->oversubscribed ? " (oversubscribed: spin briefly, then yield)" : "",
                ctx->asym_fence ? "without fence (membarrier)" : "fenced",
                ctx->cma_usable ? "usable" : (ctx->cma_forced_off ? "off (SKIFF_CMA=0)" : "forbidden"),
                ctx->fallback_needed ? "; one-sided copies go through the rings" : "");
    *ctxp = process_ctx = ctx;
    process_ctx_refs = 1;
    return 0;
}

int skf_finalize(skf_ctx_t *ctx)
{
    if (!ctx) {
        skf_error("skf_finalize: ctx is NULL");
        return -EINVAL;
    }
    if (ctx == process_ctx && --process_ctx_refs > 0)
        return 0; /* another layer of this process still uses it */
    process_ctx = NULL;
    int rc = 0;
    while (ctx->open_chans) { /* channels the user left open, in opening order */
        skf_chan_t *c = ctx->open_chans;
        while (c->next_open)
            c = c->next_open;
        int r = skf_chan_close(c);
        if (!rc)
            rc = r;
    }
    int r = skf_chan_close(ctx->internal);
    if (!rc)
        rc = r;
    skf_mr_fini(ctx);
    r = boot_finalize();
    if (!rc)
        rc = r;
    free_ctx(ctx);
    return rc;
}

int skf_rank(const skf_ctx_t *ctx) { return ctx ? ctx->rank : -EINVAL; }
int skf_size(const skf_ctx_t *ctx) { return ctx ? ctx->size : -EINVAL; }
int skf_local_rank(const skf_ctx_t *ctx) { return ctx ? ctx->boot->local_rank : -EINVAL; }
int skf_local_size(const skf_ctx_t *ctx) { return ctx ? ctx->boot->local_size : -EINVAL; }

int skf_node_id(const skf_ctx_t *ctx, int rank)
{
    if (!ctx || rank < 0 || rank >= ctx->size) {
        skf_error("skf_node_id: invalid rank %d (job size %d)", rank, ctx ? ctx->size : -1);
        return -EINVAL;
    }
    return ctx->boot->node_of_rank[rank];
}

void skf_abort(skf_ctx_t *ctx, int code, const char *why)
{
    (void)ctx;
    boot_abort(code, why ? why : "skf_abort");
}

void skf_abort_quiet(skf_ctx_t *ctx, int code, const char *why)
{
    (void)ctx;
    boot_abort_quiet(code, why ? why : "skf_abort");
}

skf_addr_t skf_addr(const skf_ctx_t *ctx, int rank, uint16_t port)
{
    (void)ctx;
    return ((skf_addr_t)(uint32_t)rank << 16) | port;
}

int skf_addr_rank(skf_addr_t a) { return (int)(uint32_t)(a >> 16); }
uint16_t skf_addr_port(skf_addr_t a) { return (uint16_t)a; }

const char *skf_strerror(int err)
{
    if (err > 0)
        return "no error (a positive value is a result, not an error)";
    switch (-err) {
    case 0: return "success";
    case EAGAIN: return "no room to send / nothing to receive now (try again)";
    case EPIPE: return "peer gone (died or closed the channel)";
    case EINVAL: return "invalid argument";
    case ENOSPC: return "not enough shared memory (node memory or /dev/shm) for the channel";
    case EHOSTUNREACH: return "no transport reaches this peer";
    case EBUSY: return "port already open";
    default: return strerror(-err);
    }
}
