/*
 * boot_singleton — a process started without any launcher: rank 0 of 1.
 *
 * Nothing to connect to, so start-up is instant.  Puts land in a small
 * private table (a later put of the same key replaces the value); a fence is a
 * no-op because there is no one else to wait for.
 */
#include "boot/boot_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct singleton_entry {
    char *key;
    char *value; /* as escaped by boot.c, like on the wire */
} singleton_entry_t;

static struct {
    pthread_mutex_t lock;
    singleton_entry_t *table;
    size_t count, cap;
} kvs = {.lock = PTHREAD_MUTEX_INITIALIZER};

static singleton_entry_t *find(const char *key)
{
    for (size_t i = 0; i < kvs.count; i++)
        if (strcmp(kvs.table[i].key, key) == 0)
            return &kvs.table[i];
    return NULL;
}

static int singleton_put(const char *key, const char *wire_value)
{
    int rc = -ENOMEM;
    pthread_mutex_lock(&kvs.lock);
    char *value = strdup(wire_value);
    singleton_entry_t *e = find(key);
    if (!value)
        goto out;
    if (!e) {
        if (kvs.count == kvs.cap) {
            size_t cap = kvs.cap ? 2 * kvs.cap : 16;
            singleton_entry_t *t = realloc(kvs.table, cap * sizeof *t);
            if (!t)
                goto out;
            kvs.table = t;
            kvs.cap = cap;
        }
        e = &kvs.table[kvs.count];
        if (!(e->key = strdup(key)))
            goto out;
        e->value = NULL;
        kvs.count++;
    }
    free(e->value);
    e->value = value;
    value = NULL;
    rc = 0;
out:
    free(value);
    pthread_mutex_unlock(&kvs.lock);
    return rc;
}

static int singleton_get(const char *key, char *out, size_t cap)
{
    int rc = -ENOENT;
    pthread_mutex_lock(&kvs.lock);
    const singleton_entry_t *e = find(key);
    if (e) {
        size_t len = strlen(e->value);
        rc = len < cap ? 0 : -ENOSPC;
        if (!rc)
            memcpy(out, e->value, len + 1);
    }
    pthread_mutex_unlock(&kvs.lock);
    return rc;
}

static int singleton_fence(void)
{
    return 0;
}

static int singleton_finalize(void)
{
    return 0;
}

static void singleton_abort(int code, const char *why)
{
    (void)code;
    (void)why; /* boot.c prints the reason; there is no launcher to tell */
}

int boot_singleton_init(boot_info_t *info, boot_limits_t *limits)
{
    info->appnum = 0;
    info->universe_size = 1;
    snprintf(info->kvsname, sizeof info->kvsname, "singleton_%d", (int)getpid());
    limits->key_max = BOOT_KEY_MAX;
    limits->wire_max = 3 * BOOT_VAL_MAX; /* any value within BOOT_VAL_MAX, fully escaped */
    return 0;
}

const boot_backend_t boot_singleton_backend = {
    .name = "singleton",
    .put = singleton_put,
    .get = singleton_get,
    .fence = singleton_fence,
    .finalize = singleton_finalize,
    .abort = singleton_abort,
};
