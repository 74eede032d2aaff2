/*
 * boot — picks how this process learns its place in the job, and does the
 * work common to every way: checking arguments against the limits, escaping
 * values, deriving node-local information from PMI_process_mapping, and the
 * job key.
 *
 *   PMI_FD set           PMI-1 over that inherited socket (boot_pmi1.c), or PMI-2
 *                        under Slurm's --mpi=pmi2 (boot_pmi2.c)
 *   PMI_PORT only        PMI-1 over TCP after the job-key check (boot_pmi_tcp.c)
 *   PMIX_NAMESPACE/RANK  PMIx through libpmix (boot_pmix.c, when built with it)
 *   none of them         singleton, rank 0 of 1 (boot_singleton.c)
 * boot_env.c makes the choice (and refuses half-set environments).
 *
 * The module stands alone (libc and src/common only), so it reads its
 * environment variables itself; they are listed in src/core/config.c.
 */
#include "boot/boot_internal.h"
#include "boot/mapping.h"
#include "boot/boot_pmi_tcp.h"
#include "pmi_wire.h"
#include "shm_name.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define BOOT_SIZE_MAX (1 << 24) /* more ranks than this in PMI_SIZE is garbage */

static struct {
    int initialized;
    int init_rc;
    int finalized;
    int rank; /* for messages; -1 until known */
    const boot_backend_t *backend;
    boot_limits_t limits;
    boot_info_t info;
} boot = {.rank = -1};

static void vreport(const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (boot.rank >= 0)
        fprintf(stderr, "skiff boot: rank %d: %s\n", boot.rank, msg);
    else
        fprintf(stderr, "skiff boot: %s\n", msg);
}

void boot_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
}

static int verbose(void)
{
    const char *v = getenv("SKIFF_VERBOSE");
    return v && atoi(v) > 0;
}

void boot_verbose(const char *fmt, ...)
{
    if (!verbose())
        return;
    va_list ap;
    va_start(ap, fmt);
    vreport(fmt, ap);
    va_end(ap);
}

/* Integer environment variable in [lo, hi]; a bad value is a clear error. */
static int env_int(const char *name, long lo, long hi, int *out)
{
    const char *s = getenv(name);
    if (!s) {
        boot_error("%s is not set (the launcher must set PMI_FD, PMI_RANK and PMI_SIZE)", name);
        return -EINVAL;
    }
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        boot_error("%s=%.40s is not a number in [%ld, %ld]", name, s, lo, hi);
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

/* The launcher's SKIFF_JOB_KEY, or a random one that only names this
 * process's objects (under hydra every rank makes up its own). */
static int make_job_key(char key[33])
{
    const char *env = getenv("SKIFF_JOB_KEY");
    if (env) {
        size_t n = strspn(env, "0123456789abcdefABCDEF");
        if (n == 0 || n > 32 || env[n]) {
            boot_error("SKIFF_JOB_KEY=%.40s is not 1 to 32 hex digits", env);
            return -EINVAL;
        }
        memcpy(key, env, n + 1);
        return 0;
    }
    unsigned char raw[16];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            boot_error("getrandom for the job key: %s", strerror(err));
            return -err;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        sprintf(key + 2 * i, "%02x", raw[i]);
    return 0;
}

/* Under Slurm and PMIx launchers nobody hands out SKIFF_JOB_KEY, yet tcp
 * needs one key in every rank: rank 0's random key goes through the launcher's
 * key-value space, which only this job's processes reach over channels the
 * launcher authenticates (Slurm: munge; PMIx: its own server).  hydra's PMI-1
 * is left alone: its key space travels in clear between hosts. */
static int share_job_key(boot_info_t *info)
{
    if (getenv("SKIFF_JOB_KEY") || info->size == 1 ||
        (boot.backend != &boot_pmi2_backend
#ifdef SKIFF_HAVE_PMIX
         && boot.backend != &boot_pmix_backend
#endif
         ))
        return 0;
    static const char key_name[] = "skiff-job-key";
    int rc;
    if (info->rank == 0 && (rc = boot.backend->put(key_name, info->job_key)))
        return rc;
    /* everyone else takes rank 0's key below */
    if ((rc = boot.backend->fence()))
        return rc;
    if (info->rank != 0 &&
        (rc = boot.backend->get(key_name, info->job_key, sizeof info->job_key))) {
        boot_error("rank 0 published no job key (%s)", strerror(-rc));
        return rc;
    }
    size_t n = strspn(info->job_key, "0123456789abcdefABCDEF");
    if (n == 0 || n > 32 || info->job_key[n]) {
        boot_error("the job key from rank 0 is not 1 to 32 hex digits");
        return -EPROTO;
    }
    /* From here on the key is what skiffrun would have handed out: the layers
     * that need a shared key (tcp) look for it in SKIFF_JOB_KEY. */
    if (setenv("SKIFF_JOB_KEY", info->job_key, 1) != 0)
        return -errno;
    return 0;
}

/* node_of_rank from the mapping text ("" = launcher gave none: one node),
 * then my node's ranks. */
static int fill_locality(boot_info_t *info, const char *mapping)
{
    if (info->node_of_rank) /* the backend knew it without a mapping (PMIx) */
        goto my_node;
    info->node_of_rank = calloc((size_t)info->size, sizeof *info->node_of_rank);
    if (!info->node_of_rank)
        return -ENOMEM;
    info->num_nodes = 1;
    if (!*mapping) {
        if (!info->singleton)
            boot_verbose("the launcher gave no PMI_process_mapping; assuming all %d ranks share "
                         "one node", info->size);
    } else {
        int rc = boot_mapping_parse(mapping, info->size, info->node_of_rank, &info->num_nodes);
        if (rc == -ENOMEM)
            return rc;
        if (rc) {
            boot_error("malformed PMI_process_mapping from the launcher: '%.200s'", mapping);
            return -EPROTO;
        }
    }
my_node:;
    int my_node = info->node_of_rank[info->rank];
    info->local_size = 0;
    for (int r = 0; r < info->size; r++)
        info->local_size += info->node_of_rank[r] == my_node;
    info->local_ranks = malloc((size_t)info->local_size * sizeof *info->local_ranks);
    if (!info->local_ranks)
        return -ENOMEM;
    int n = 0;
    for (int r = 0; r < info->size; r++)
        if (info->node_of_rank[r] == my_node) {
            if (r == info->rank)
                info->local_rank = n;
            info->local_ranks[n++] = r;
        }
    return 0;
}

static int connect_launcher(boot_info_t *info, char *mapping, size_t cap)
{
    boot_method_t method;
    int rc = boot_choose_method(&method); /* boot_env.c */
    if (rc)
        return rc;
    mapping[0] = '\0';
#ifdef SKIFF_HAVE_PMIX /* else boot_choose_method has refused PMIx */
    if (method == BOOT_PMIX) {
        boot.backend = &boot_pmix_backend;
        rc = boot_pmix_init(info, &boot.limits);
        boot.rank = info->rank;
        return rc;
    }
#endif
    if (method == BOOT_PMI1_TCP) { /* a remote rank: PMI over TCP (boot_pmi_tcp.c) */
        int fd;
        if ((rc = boot_pmi_tcp_connect(getenv("PMI_PORT"), &info->rank, &info->size, &fd)))
            return rc;
        boot.rank = info->rank;
        boot.backend = &boot_pmi1_backend;
        return boot_pmi1_init(fd, info, &boot.limits, mapping, cap);
    }
    if (method == BOOT_SINGLETON) {
        info->singleton = 1;
        info->rank = boot.rank = 0;
        info->size = 1;
        boot.backend = &boot_singleton_backend;
        return boot_singleton_init(info, &boot.limits);
    }
    int fd;
    if ((rc = env_int("PMI_SIZE", 1, BOOT_SIZE_MAX, &info->size)) ||
        (rc = env_int("PMI_RANK", 0, info->size - 1, &info->rank)) ||
        (rc = env_int("PMI_FD", 0, 1 << 30, &fd)))
        return rc;
    boot.rank = info->rank;
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0) {
        boot_error("PMI_FD=%d is not an open file descriptor", fd);
        return -EBADF;
    }
    fcntl(fd, F_SETFD, flags | FD_CLOEXEC); /* programs we exec must not hold the launcher's line */
    if (method == BOOT_PMI2_FD) {
        boot.backend = &boot_pmi2_backend;
        return boot_pmi2_init(fd, info, &boot.limits, mapping, cap);
    }
    boot.backend = &boot_pmi1_backend;
    return boot_pmi1_init(fd, info, &boot.limits, mapping, cap);
}

int boot_init(boot_info_t **info)
{
    if (!info)
        return -EINVAL;
    if (!boot.initialized) {
        static char mapping[PMI_WIRE_LINE_MAX];
        boot_info_t *in = &boot.info;
        boot.initialized = 1;
        if (!(boot.init_rc = connect_launcher(in, mapping, sizeof mapping)) &&
            !(boot.init_rc = fill_locality(in, mapping)) &&
            !(boot.init_rc = make_job_key(in->job_key)) &&
            !(boot.init_rc = share_job_key(in)))
            shm_name_tag(in->job_key, in->shm_tag); /* cannot fail: the key was checked */
        if (!boot.init_rc)
            boot_verbose("boot via %s: rank %d of %d, node %d of %d (local %d of %d), kvs %s",
                         boot.backend->name, in->rank, in->size, in->node_of_rank[in->rank],
                         in->num_nodes, in->local_rank, in->local_size, in->kvsname);
    }
    *info = boot.init_rc ? NULL : &boot.info;
    return boot.init_rc;
}

static int ready(const char *what)
{
    if (!boot.initialized || boot.init_rc) {
        boot_error("%s called before a successful boot_init", what);
        return -ENOTCONN;
    }
    if (boot.finalized) {
        boot_error("%s called after boot_finalize", what);
        return -EPIPE;
    }
    return 0;
}

/* Keys travel unescaped, so they must be one plain word that fits. */
static int check_key(const char *what, const char *key)
{
    if (!key || !*key) {
        boot_error("%s: empty key", what);
        return -EINVAL;
    }
    size_t len = strlen(key);
    if (len >= boot.limits.key_max) {
        boot_error("%s: key '%.40s...' is %zu bytes; the limit is %zu", what, key, len,
                   boot.limits.key_max - 1);
        return -ENAMETOOLONG;
    }
    for (const char *p = key; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == '=' || *p == '%' || (unsigned char)*p >= 0x7f) {
            boot_error("%s: key '%s' has a space, '=', '%%' or control byte", what, key);
            return -EINVAL;
        }
    return 0;
}

int boot_put(const char *key, const char *value)
{
    int rc;
    if ((rc = ready("boot_put")) || (rc = check_key("boot_put", key)))
        return rc;
    if (!value) {
        boot_error("boot_put: NULL value for key '%s'", key);
        return -EINVAL;
    }
    size_t len = strlen(value);
    if (len >= BOOT_VAL_MAX) {
        boot_error("boot_put: value of key '%s' is %zu bytes; the limit is %d", key, len,
                   BOOT_VAL_MAX - 1);
        return -EMSGSIZE;
    }
    char wire[3 * BOOT_VAL_MAX];
    int wlen = pmi_wire_escape(value, wire, sizeof wire);
    if (wlen < 0 || (size_t)wlen >= boot.limits.wire_max) {
        boot_error("boot_put: value of key '%s' (%zu bytes) takes %d bytes escaped; the launcher "
                   "takes at most %zu",
                   key, len, wlen, boot.limits.wire_max - 1);
        return -EMSGSIZE;
    }
    return boot.backend->put(key, wire);
}

int boot_get(const char *key, char *value, size_t value_len)
{
    int rc;
    if ((rc = ready("boot_get")) || (rc = check_key("boot_get", key)))
        return rc;
    if (!value || value_len == 0) {
        boot_error("boot_get: no room for the value of key '%s'", key);
        return -EINVAL;
    }
    char wire[PMI_WIRE_LINE_MAX];
    if ((rc = boot.backend->get(key, wire, sizeof wire)))
        return rc;
    rc = pmi_wire_unescape(wire, value, value_len);
    if (rc == -ENOSPC)
        return -ENOSPC;
    if (rc < 0) {
        boot_error("boot_get: value of key '%s' is not validly escaped: '%.60s'", key, wire);
        return -EPROTO;
    }
    return 0;
}

int boot_fence(void)
{
    int rc = ready("boot_fence");
    return rc ? rc : boot.backend->fence();
}

int boot_finalize(void)
{
    if (boot.finalized)
        return 0; /* twice is harmless */
    int rc = ready("boot_finalize");
    if (!rc && !(rc = boot.backend->finalize()))
        boot.finalized = 1;
    return rc;
}

void boot_abort(int code, const char *why)
{
    boot_error("abort with exit code %d: %s", code, why ? why : "(no reason given)");
    boot_abort_quiet(code, why);
}

void boot_abort_quiet(int code, const char *why)
{
    fflush(NULL);
    if (boot.initialized && !boot.init_rc)
        boot.backend->abort(code, why);
    /* Exit statuses are 8 bits: a non-zero code must not wrap around to 0. */
    _exit((code & 0xff) || !code ? code & 0xff : 1);
}
