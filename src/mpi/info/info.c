/*
 * info.c — info objects and MPI_INFO_ENV (command, argv, maxprocs, soft,
 * host, arch, wdir, file, thread_level as far as known: the keys whose values
 * this process knows are set, the rest absent, as the standard allows).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "device/device.h"
#include "info/info.h"

static struct MPI_ABI_Info info_env = {MAGIC_INFO, 0, 0, NULL};
static int info_env_ready;

struct MPI_ABI_Info *info_new(void)
{
    struct MPI_ABI_Info *i = calloc(1, sizeof *i);
    if (i)
        i->magic = MAGIC_INFO;
    return i;
}

void info_free(struct MPI_ABI_Info *i)
{
    if (!i || i == &info_env)
        return;
    for (int k = 0; k < i->n; k++) {
        free(i->e[k].key);
        free(i->e[k].value);
    }
    free(i->e);
    i->magic = 0;
    free(i);
}

static int find(const struct MPI_ABI_Info *i, const char *key)
{
    for (int k = 0; k < i->n; k++)
        if (strcmp(i->e[k].key, key) == 0)
            return k;
    return -1;
}

int info_set(struct MPI_ABI_Info *i, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return MPI_ERR_NO_MEM;
    int k = find(i, key);
    if (k >= 0) {
        free(i->e[k].value);
        i->e[k].value = v;
        return 0;
    }
    if (i->n == i->cap) {
        int cap = i->cap ? 2 * i->cap : 8;
        info_entry_t *e = realloc(i->e, (size_t)cap * sizeof *e);
        if (!e) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        i->e = e;
        i->cap = cap;
    }
    char *kk = strdup(key);
    if (!kk) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    i->e[i->n].key = kk;
    i->e[i->n].value = v;
    i->n++;
    return 0;
}

const char *info_get(const struct MPI_ABI_Info *i, const char *key)
{
    int k = find(i, key);
    return k >= 0 ? i->e[k].value : NULL;
}

struct MPI_ABI_Info *info_dup(const struct MPI_ABI_Info *from)
{
    struct MPI_ABI_Info *i = info_new();
    for (int k = 0; i && k < from->n; k++)
        if (info_set(i, from->e[k].key, from->e[k].value)) {
            info_free(i);
            return NULL;
        }
    return i;
}

/* What this process knows about how it was started. */
static void env_fill(void)
{
    char buf[4096];
    struct utsname u;
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = '\0';
        info_set(&info_env, "command", buf);
    }
    snprintf(buf, sizeof buf, "%d", mpid.size);
    info_set(&info_env, "maxprocs", buf);
    if (gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = '\0';
        info_set(&info_env, "host", buf);
    }
    if (uname(&u) == 0)
        info_set(&info_env, "arch", u.machine);
    if (getcwd(buf, sizeof buf))
        info_set(&info_env, "wdir", buf);
    info_env_ready = 1;
}

int info_check(const char *fn, MPI_Info h, int null_ok, struct MPI_ABI_Info **out)
{
    uintptr_t v = (uintptr_t)h;
    *out = NULL;
    if (v == 0x131) {
        if (!info_env_ready)
            env_fill();
        *out = &info_env;
        return 0;
    }
    if (v == 0x130 && null_ok)
        return 0;
    if (v >= MPIR_PREDEF_BOUND && ((struct MPI_ABI_Info *)h)->magic == MAGIC_INFO) {
        *out = (struct MPI_ABI_Info *)h;
        return 0;
    }
    return mpir_error(NULL, MPI_ERR_INFO, "%s: invalid info object%s", fn,
                      v == 0x130 ? " MPI_INFO_NULL" : "");
}
