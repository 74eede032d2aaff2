/* shm — shared-memory transport (skf_shm_ops in core/transport.h); see shm.c. */
#ifndef SKIFF_SHM_H
#define SKIFF_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "skiff.h" /* skf_ctx_t */

/* Bytes of one channel's segment on a node (for docs, skiff-info and tests). */
size_t skf_shm_segment_bytes(int nlocal, int ndedicated, uint64_t ring_bytes);
uint64_t skf_shm_ring_bytes(const skf_ctx_t *ctx, unsigned port, int nlocal);
/* Bytes of each bulk ring (SKIFF_SHM_BULK_SIZE, auto from the L2) before fitting. */
uint64_t skf_shm_bulk_bytes(const skf_ctx_t *ctx);

#endif
