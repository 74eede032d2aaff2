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

/* What this process knows about how it was started, into i: argv (the
 * arguments after the program name, blank-separated) when the caller has
 * them; maxprocs once MPI knows the world (MPI_Info_create_env may come
 * before MPI_Init). */
int info_env_into(struct MPI_ABI_Info *i, int argc, char **argv)
{
    char buf[4096];
    struct utsname u;
    int rc = 0;
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) {
        buf[n] = '\0';
        rc |= info_set(i, "command", buf);
    }
    if (argc > 1 && argv) {
        size_t len = 1;
        for (int k = 1; k < argc; k++)
            len += strlen(argv[k]) + 1;
        char *all = malloc(len), *p = all;
        if (!all)
            return MPI_ERR_NO_MEM;
        for (int k = 1; k < argc; k++)
            p += sprintf(p, "%s%s", k > 1 ? " " : "", argv[k]);
        rc |= info_set(i, "argv", all);
        free(all);
    }
    if (mpid.size > 0) {
        snprintf(buf, sizeof buf, "%d", mpid.size);
        rc |= info_set(i, "maxprocs", buf);
    }
    if (gethostname(buf, sizeof buf) == 0) {
        buf[sizeof buf - 1] = '\0';
        rc |= info_set(i, "host", buf);
    }
    if (uname(&u) == 0)
        rc |= info_set(i, "arch", u.machine);
    if (getcwd(buf, sizeof buf))
        rc |= info_set(i, "wdir", buf);
    return rc ? MPI_ERR_NO_MEM : 0;
}

static void env_fill(void)
{
    info_env_into(&info_env, 0, NULL);
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
