/*
 * kvs — the launcher's key-value store for PMI put/get.
 *
 * An open-addressing hash table (linear probing, power-of-two capacity) of
 * string keys and values, so a get costs O(1) on average however many ranks
 * published keys.  Each entry remembers the rank that put it, which lets the
 * PMI server refuse a key that another rank already owns.  Strings are copied
 * in; the table owns its memory.  Nothing is ever removed (PMI has no delete).
 */
#ifndef SKIFF_LAUNCHER_KVS_H
#define SKIFF_LAUNCHER_KVS_H

#include <stddef.h>
#include <stdint.h>

#define KVS_OWNER_LAUNCHER (-1) /* keys the launcher itself publishes */
#define KVS_MAX_ENTRIES (1u << 20) /* bound on memory a misbehaving job can take */

typedef struct kvs_entry {
    char *key;   /* NULL: empty slot */
    char *value;
    uint32_t hash;
    int owner;   /* rank that put it, or KVS_OWNER_LAUNCHER */
} kvs_entry_t;

typedef struct kvs {
    kvs_entry_t *slots;
    size_t cap;   /* power of two */
    size_t count;
} kvs_t;

typedef enum {
    KVS_OK = 0,
    KVS_REPLACED = 1,     /* same owner wrote the key again: value updated */
    KVS_OWNED_BY_OTHER = -1, /* another rank owns this key: nothing changed */
    KVS_NO_MEMORY = -2,
    KVS_FULL = -3,
} kvs_put_rc_t;

int kvs_init(kvs_t *t);
void kvs_destroy(kvs_t *t);
/* Store key=value for owner.  On KVS_OWNED_BY_OTHER, *other_owner (if not
 * NULL) receives the rank that holds the key. */
kvs_put_rc_t kvs_put(kvs_t *t, const char *key, const char *value, int owner, int *other_owner);
/* The value stored under key, or NULL. */
const char *kvs_get(const kvs_t *t, const char *key);

#endif /* SKIFF_LAUNCHER_KVS_H */
