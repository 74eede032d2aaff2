/* kvs — open-addressing hash table for PMI keys (see kvs.h). */
#include "kvs.h"

#include <stdlib.h>
#include <string.h>

#define KVS_INITIAL_CAP 256

/* FNV-1a: short keys, no adversary worth a keyed hash (ranks are the job's own). */
static uint32_t hash_key(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

int kvs_init(kvs_t *t)
{
    t->cap = KVS_INITIAL_CAP;
    t->count = 0;
    t->slots = calloc(t->cap, sizeof *t->slots);
    return t->slots ? 0 : -1;
}

void kvs_destroy(kvs_t *t)
{
    for (size_t i = 0; i < t->cap; i++) {
        free(t->slots[i].key);
        free(t->slots[i].value);
    }
    free(t->slots);
    t->slots = NULL;
    t->cap = t->count = 0;
}

/* Slot holding key, or the empty slot where it would go. */
static kvs_entry_t *find_slot(kvs_entry_t *slots, size_t cap, const char *key, uint32_t h)
{
    size_t mask = cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        kvs_entry_t *e = &slots[i];
        if (!e->key || (e->hash == h && strcmp(e->key, key) == 0))
            return e;
    }
}

/* Double the table; keeps the load factor at or below one half. */
static int grow(kvs_t *t)
{
    size_t ncap = t->cap * 2;
    kvs_entry_t *ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key)
            *find_slot(ns, ncap, t->slots[i].key, t->slots[i].hash) = t->slots[i];
    free(t->slots);
    t->slots = ns;
    t->cap = ncap;
    return 0;
}

kvs_put_rc_t kvs_put(kvs_t *t, const char *key, const char *value, int owner, int *other_owner)
{
    uint32_t h = hash_key(key);
    kvs_entry_t *e = find_slot(t->slots, t->cap, key, h);
    if (e->key) {
        if (e->owner != owner) {
            if (other_owner)
                *other_owner = e->owner;
            return KVS_OWNED_BY_OTHER;
        }
        char *nv = strdup(value);
        if (!nv)
            return KVS_NO_MEMORY;
        free(e->value);
        e->value = nv;
        return KVS_REPLACED;
    }
    if (t->count >= KVS_MAX_ENTRIES)
        return KVS_FULL;
    if ((t->count + 1) * 2 > t->cap) {
        if (grow(t) != 0)
            return KVS_NO_MEMORY;
        e = find_slot(t->slots, t->cap, key, h);
    }
    char *nk = strdup(key), *nv = strdup(value);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return KVS_NO_MEMORY;
    }
    e->key = nk;
    e->value = nv;
    e->hash = h;
    e->owner = owner;
    t->count++;
    return KVS_OK;
}

const char *kvs_get(const kvs_t *t, const char *key)
{
    const kvs_entry_t *e = find_slot(t->slots, t->cap, key, hash_key(key));
    return e->key ? e->value : NULL;
}
