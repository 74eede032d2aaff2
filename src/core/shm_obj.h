/*
 * shm_obj — one shared-memory object of the node: created by one process,
 * attached by its peers through a name it sends them, and nameless once all
 * have attached.  Used by the shm transport's segments (shm_seg.c) and by the
 * node-shared regions of upper layers (node_shared.c).
 *
 * Two kinds, chosen by the creator (SKIFF_SHM_OBJECTS):
 *   memfd    (auto's first choice) memfd_create; peers open
 *            /proc/<creator pid>/fd/<fd>, which only the same user may do.
 *            The object never has a file-system name and is not counted
 *            against /dev/shm: it is freed when the last process holding it
 *            exits, so no failure order can leave it behind, and a small,
 *            read-only or missing /dev/shm does not matter.
 *   dev-shm  (auto's fallback when memfd_create is refused) shm_open in
 *            /dev/shm, reserved with posix_fallocate (a full tmpfs would
 *            otherwise SIGBUS on first touch), unlinked once all attached;
 *            skiffrun removes leftovers after a crash by the job's tag.
 * The name sent to peers is "@<pid>.<fd>.skiff-<tag>-<label>" (memfd) or
 * "/skiff-<tag>-<label>" (dev-shm); <tag> is derived from the job key
 * (src/common/shm_name.h) so no name reveals the key.
 */
#ifndef SKIFF_SHM_OBJ_H
#define SKIFF_SHM_OBJ_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

#define SKF_SHM_OBJ_NAME 96

enum skf_shm_kind { SKF_SHM_MEMFD, SKF_SHM_DEVSHM };

struct skf_shm_obj {
    void *base;
    size_t size;
    char name[SKF_SHM_OBJ_NAME]; /* what peers attach by */
    int fd;                      /* creator of a memfd: held open until unnamed, else -1 */
    int linked;                  /* creator of a dev-shm object: the name still exists */
};

/* The kind this process creates (SKIFF_SHM_OBJECTS, memfd_create probed
 * once).  -EINVAL after printing why when the setting is not understood. */
int skf_shm_kind(void);
/* Bytes an object of that kind can take: free space in /dev/shm, or the
 * node's memory for memfd.  0 when /dev/shm cannot be asked. */
uint64_t skf_shm_room(int kind);
/* Where objects of that kind live, for messages ("/dev/shm", "memory"). */
const char *skf_shm_where(int kind);

/* Create and map a zero-filled object of size bytes named after label
 * (unique within the job).  reserve: allocate its pages now (dev-shm), so a
 * full /dev/shm is -ENOSPC here instead of SIGBUS later; a memfd (pages on
 * first touch, no file-system limit) is only checked against the node's
 * memory.  Errors are printed with who (the calling API and its values)
 * unless quiet_nospace and the error is -ENOSPC.  Returns 0 or -errno. */
int skf_shm_obj_create(const skf_ctx_t *ctx, const char *label, size_t size, int reserve,
                       int quiet_nospace, const char *who, struct skf_shm_obj *o);
/* Map the object another process created and named; size 0 takes its size,
 * otherwise it must be exactly size bytes.  Errors are printed with who. */
int skf_shm_obj_attach(const char *name, size_t size, const char *who, struct skf_shm_obj *o);
/* The same, silent when the object no longer exists (-ENOENT, or -ESTALE
 * for a memfd whose creator closed it): for callers with a fallback. */
int skf_shm_obj_try_attach(const char *name, size_t size, const char *who, struct skf_shm_obj *o);
/* The same at the fixed, page-aligned address at, replacing whatever was
 * mapped there (MAP_FIXED): OpenSHMEM moves its data segment into one. */
int skf_shm_obj_attach_at(const char *name, size_t size, void *at, const char *who,
                          struct skf_shm_obj *o);
/* Creator, once every peer attached: drop the name (close the memfd /
 * shm_unlink), leaving the memory to the mappings.  Harmless twice. */
void skf_shm_obj_unname(struct skf_shm_obj *o);
/* Unname if still named, then unmap. */
void skf_shm_obj_close(struct skf_shm_obj *o);
/* Drop the name of an object this process created, given only its name
 * (node_shared.h's interface).  0 or -errno. */
int skf_shm_obj_unname_by_name(const char *name);

#endif
