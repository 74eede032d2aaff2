/*
 * info — what skiff-info reports about a running context: transports, CMA,
 * ring sizes.  Read-only; call after skf_init.
 */
#ifndef SKIFF_CORE_INFO_H
#define SKIFF_CORE_INFO_H

#include <stddef.h>

#include "skiff.h"

struct skf_info {
    const char *transports;   /* "shm" (tcp later)                                */
    int cma_usable;           /* 1: one-sided copies use process_vm_readv/writev   */
    int cma_forced_off;       /* SKIFF_CMA=0                                       */
    int fallback_active;      /* some rank of this node copies through the rings   */
    size_t ring_bytes;        /* one receive ring                                  */
    size_t max_msg;           /* largest single message on a user channel          */
    int dedicated_max;        /* dedicated rings per receiver                      */
    long dedicated_after;     /* shared-ring messages before a sender gets one     */
    long spin;                /* polls before sleeping                             */
    int yields;               /* sched_yield rounds before sleeping                */
    int oversubscribed;       /* more ranks on this node than online CPUs          */
    int local_size;           /* ranks on this node                                */
    size_t segment_bytes;     /* one user channel's segment on this node           */
    size_t recv_bytes;        /* receive memory per process per user channel       */
};

int skf_info_get(const skf_ctx_t *ctx, struct skf_info *out);

#endif
