/*
 * info.c — MPI_Info_create/set/get/get_string/get_valuelen/delete/dup/
 * get_nkeys/get_nthkey/free.  Keys are at most MPI_MAX_INFO_KEY - 1
 * characters, values MPI_MAX_INFO_VAL - 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"
#include "info/info.h"

static int check_key(const char *fn, const char *key)
{
    if (!key || !key[0] || strlen(key) >= MPI_MAX_INFO_KEY)
        return mpir_error(NULL, MPI_ERR_INFO_KEY, "%s: invalid key %s%s%s (1..%d characters)", fn,
                          key ? "\"" : "", key ? key : "NULL", key ? "\"" : "",
                          MPI_MAX_INFO_KEY - 1);
    return 0;
}

static int no_mem(const char *fn) { return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn); }

static int writable(const char *fn, MPI_Info h, struct MPI_ABI_Info **i)
{
    if (h == MPI_INFO_ENV)
        return mpir_error(NULL, MPI_ERR_INFO, "%s: MPI_INFO_ENV cannot be changed", fn);
    return info_check(fn, h, 0, i);
}

int MPI_Info_create(MPI_Info *info)
{
    if (!info)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Info_create: NULL info");
    struct MPI_ABI_Info *i = info_new();
    if (!i)
        return no_mem("MPI_Info_create");
    *info = (MPI_Info)i;
    return MPI_SUCCESS;
}

int MPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    static const char fn[] = "MPI_Info_set";
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = writable(fn, info, &i)) || (rc = check_key(fn, key)))
        return rc;
    if (!value || strlen(value) >= MPI_MAX_INFO_VAL)
        return mpir_error(NULL, MPI_ERR_INFO_VALUE, "%s: invalid value for key \"%s\"", fn, key);
    if (info_set(i, key, value))
        return no_mem(fn);
    return MPI_SUCCESS;
}

int MPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get";
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = info_check(fn, info, 0, &i)) || (rc = check_key(fn, key)))
        return rc;
    if (valuelen < 0 || !value || !flag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid valuelen %d or NULL argument", fn,
                          valuelen);
    const char *v = info_get(i, key);
    *flag = v != NULL;
    if (v) { /* at most valuelen characters, then the terminator */
        size_t n = strlen(v);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}

int MPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get_string";
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = info_check(fn, info, 0, &i)) || (rc = check_key(fn, key)))
        return rc;
    if (!buflen || *buflen < 0 || !flag || (*buflen > 0 && !value))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid buflen or NULL argument", fn);
    const char *v = info_get(i, key);
    *flag = v != NULL;
    if (v) {
        int need = (int)strlen(v) + 1;
        if (*buflen > 0) {
            int n = need < *buflen ? need - 1 : *buflen - 1;
            memcpy(value, v, (size_t)n);
            value[n] = '\0';
        }
        *buflen = need;
    }
    return MPI_SUCCESS;
}

int MPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    static const char fn[] = "MPI_Info_get_valuelen";
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = info_check(fn, info, 0, &i)) || (rc = check_key(fn, key)))
        return rc;
    if (!valuelen || !flag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL argument", fn);
    const char *v = info_get(i, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v);
    return MPI_SUCCESS;
}

int MPI_Info_delete(MPI_Info info, const char *key)
{
    static const char fn[] = "MPI_Info_delete";
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = writable(fn, info, &i)) || (rc = check_key(fn, key)))
        return rc;
    for (int k = 0; k < i->n; k++)
        if (strcmp(i->e[k].key, key) == 0) {
            free(i->e[k].key);
            free(i->e[k].value);
            memmove(&i->e[k], &i->e[k + 1], (size_t)(i->n - k - 1) * sizeof *i->e);
            i->n--;
            return MPI_SUCCESS;
        }
    return mpir_error(NULL, MPI_ERR_INFO_NOKEY, "%s: no key \"%s\"", fn, key);
}

int MPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    static const char fn[] = "MPI_Info_dup";
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = info_check(fn, info, 0, &i)))
        return rc;
    if (!newinfo)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL newinfo", fn);
    struct MPI_ABI_Info *d = info_dup(i);
    if (!d)
        return no_mem(fn);
    *newinfo = (MPI_Info)d;
    return MPI_SUCCESS;
}

int MPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = info_check("MPI_Info_get_nkeys", info, 0, &i)))
        return rc;
    if (!nkeys)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Info_get_nkeys: NULL nkeys");
    *nkeys = i->n;
    return MPI_SUCCESS;
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    static const char fn[] = "MPI_Info_get_nthkey";
    struct MPI_ABI_Info *i;
    int rc;
    if ((rc = info_check(fn, info, 0, &i)))
        return rc;
    if (n < 0 || n >= i->n || !key)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid index %d (%d keys) or NULL key", fn, n,
                          i->n);
    strcpy(key, i->e[n].key);
    return MPI_SUCCESS;
}

int MPI_Info_free(MPI_Info *info)
{
    static const char fn[] = "MPI_Info_free";
    struct MPI_ABI_Info *i;
    int rc;
    if (!info)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL info", fn);
    if ((rc = writable(fn, *info, &i)))
        return rc;
    info_free(i);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* ---- MPI 4.0 ------------------------------------------------------------------ */
/* A new info object with what MPI_INFO_ENV holds (and argv from the caller's
 * argc/argv); allowed before MPI_Init. */
int MPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    static const char fn[] = "MPI_Info_create_env";
    if (!info)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL info", fn);
    if (argc < 0 || (argc > 0 && !argv))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid argc %d / argv", fn, argc);
    struct MPI_ABI_Info *i = info_new();
    if (!i || info_env_into(i, argc, argv)) {
        info_free(i);
        return no_mem(fn);
    }
    *info = (MPI_Info)i;
    return MPI_SUCCESS;
}
