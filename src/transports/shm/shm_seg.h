/*
 * shm_seg — the life cycle of one channel's shared-memory segment on a node.
 *
 * The node's local rank 0 creates the segment (a memfd, or a 0600 object in
 * /dev/shm reserved with posix_fallocate: src/core/shm_obj.h) after checking
 * it has room, and publishes its name through boot; the others attach after
 * a fence; after a second fence (everyone attached and set up its own part)
 * local rank 0 drops the name, so from then on the memory lives only in the
 * mappings and a SIGKILL leaves nothing behind.
 */
#ifndef SKIFF_SHM_SEG_H
#define SKIFF_SHM_SEG_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"
#include "core/shm_obj.h"

struct shm_seg {
    struct skf_shm_obj obj; /* base, size, name */
    int creator;            /* 1 on the local rank that created (and unnames) it */
};

/* Bytes a segment may take on this node now (creator's kind of object). */
uint64_t shm_seg_room(void);
/* Phase 1 (collective): create (local rank 0, size bytes, then init(base) to
 * write the header) or attach.  On error every local rank returns it. */
int shm_seg_attach(skf_ctx_t *ctx, uint16_t port, size_t size,
                   void (*init)(void *base, void *arg), void *arg, struct shm_seg *seg);
/* Phase 2 (collective): fence so every rank has attached and set up its own
 * area, then drop the name.  Call it even when phase 1 failed locally. */
int shm_seg_commit(struct shm_seg *seg);
void shm_seg_detach(struct shm_seg *seg);

#endif /* SKIFF_SHM_SEG_H */
