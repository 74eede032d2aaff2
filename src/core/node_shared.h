/*
 * node_shared — plain shared-memory regions among the ranks of one node, for
 * layers above the channels (MPI's node-aware collectives).
 *
 * Not collective by itself: the caller creates a region, tells its peers the
 * name through its own messages, they attach, and once all have attached the
 * creator unlinks the name (from then on the memory lives only in the
 * mappings).  Regions are shm_obj.h objects: a memfd that peers open through
 * /proc/<creator>/fd (never in /dev/shm, freed with the last process holding
 * it, whatever dies when), or with SKIFF_SHM_OBJECTS=dev-shm an object
 * /dev/shm/skiff-<tag>-... reserved with posix_fallocate, which skiffrun
 * removes after a crash.  Names never contain the job key.
 */
#ifndef SKIFF_NODE_SHARED_H
#define SKIFF_NODE_SHARED_H

#include <stddef.h>

#include "skiff.h"

#define SKF_NODE_SHM_NAME 96

/* Create a zero-filled region of size bytes (0600), its memory reserved
 * (-ENOSPC now rather than SIGBUS later); name gets its name.  Errors are
 * printed with the sizes. */
int skf_node_shm_create(skf_ctx_t *ctx, size_t size, char name[SKF_NODE_SHM_NAME], void **base);
/* The same, silent on -ENOSPC: for callers with a fallback that say once
 * what they do instead (skf_node_shm_where names the place that is full). */
int skf_node_shm_try_create(skf_ctx_t *ctx, size_t size, char name[SKF_NODE_SHM_NAME],
                            void **base);
/* Map a region another rank created; fails unless it has exactly size bytes. */
int skf_node_shm_attach(const char *name, size_t size, void **base);
/* The same, silent when the region is gone (its creator left or dropped it):
 * for callers that fall back and say why themselves. */
int skf_node_shm_try_attach(const char *name, size_t size, void **base);
/* Map it over [at, at + size) (page-aligned), replacing what was there. */
int skf_node_shm_attach_at(const char *name, size_t size, void *at);
/* Creator only, once every peer attached: drop the name. */
int skf_node_shm_unlink(const char *name);
void skf_node_shm_detach(void *base, size_t size);
/* Where regions live, for messages: "/dev/shm" or "memory". */
const char *skf_node_shm_where(void);

/* For waits on such a region, which no message wakes: 1 when world rank
 * `rank` runs on this node and has died (or exited), its pid then in *pid;
 * 0 otherwise (alive, me, or on another node). */
int skf_node_rank_dead(const skf_ctx_t *ctx, int rank, int *pid);

/* Flags in such a region without a fence at the publisher: when every rank
 * of this job on the node registered for global membarrier, a waiter that
 * is about to sleep calls skf_node_membarrier() (0: done) after announcing
 * itself and before its last look; a publisher then stores its flag with
 * release order and reads the sleeper count behind only a compiler barrier
 * (the shm doorbells do the same, docs/shm-transport.md).  A rank of another
 * job may not be registered: the caller agrees on it with all its peers. */
int skf_node_fence_free(const skf_ctx_t *ctx);
int skf_node_membarrier(void);

#endif
