/* shm_seg — create/attach/unname one channel segment per node (see shm_seg.h). */
#include "transports/shm/shm_seg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t shm_seg_room(void)
{
    int kind = skf_shm_kind();
    return kind < 0 ? UINT64_MAX : skf_shm_room(kind);
}

/* Fail early, with sizes, when the segment cannot fit (Docker's default
 * /dev/shm is 64 MB; a memfd is bounded by the node's memory). */
static int check_room(const skf_ctx_t *ctx, uint16_t port, size_t size)
{
    int kind = skf_shm_kind();
    uint64_t avail = kind < 0 ? UINT64_MAX : skf_shm_room(kind);
    if (avail >= size)
        return 0;
    if (kind == SKF_SHM_DEVSHM)
        skf_error("skf_chan_open(port %u): the shared-memory segment needs %zu bytes but /dev/shm "
                  "has only %llu free (%d ranks on this node); enlarge /dev/shm (docker run "
                  "--shm-size=...) or lower SKIFF_SHM_RING_SIZE",
                  port, size, (unsigned long long)avail, ctx->boot->local_size);
    else
        skf_error("skf_chan_open(port %u): the shared-memory segment needs %zu bytes but this "
                  "node has only %llu bytes of memory (%d ranks on this node); lower "
                  "SKIFF_SHM_RING_SIZE",
                  port, size, (unsigned long long)avail, ctx->boot->local_size);
    return -ENOSPC;
}

static int create(skf_ctx_t *ctx, uint16_t port, size_t size, struct shm_seg *seg)
{
    const boot_info_t *b = ctx->boot;
    char label[48], who[40];
    snprintf(label, sizeof label, "n%d-c%u-p%u", b->node_of_rank[b->rank], ctx->chan_opens, port);
    snprintf(who, sizeof who, "skf_chan_open(port %u)", port);
    int rc = check_room(ctx, port, size);
    if (!rc)
        rc = skf_shm_obj_create(ctx, label, size, 1, 0, who, &seg->obj);
    seg->creator = !rc;
    return rc;
}

int shm_seg_attach(skf_ctx_t *ctx, uint16_t port, size_t size,
                   void (*init)(void *base, void *arg), void *arg, struct shm_seg *seg)
{
    const boot_info_t *b = ctx->boot;
    int node = b->node_of_rank[b->rank];
    char key[BOOT_KEY_MAX], val[BOOT_VAL_MAX];
    int rc = 0;
    memset(seg, 0, sizeof *seg);
    seg->obj.fd = -1;
    snprintf(key, sizeof key, "skf-shm-%u-%d", ctx->chan_opens, node);
    if (b->local_rank == 0) {
        rc = create(ctx, port, size, seg);
        if (!rc)
            init(seg->obj.base, arg);
        if (rc)
            snprintf(val, sizeof val, "!%d", -rc);
        else
            snprintf(val, sizeof val, "%s", seg->obj.name);
        int prc = boot_put(key, val);
        if (!rc)
            rc = prc;
    }
    int frc = boot_fence();
    if (!rc)
        rc = frc;
    if (b->local_rank != 0 && !rc) {
        rc = boot_get(key, val, sizeof val);
        if (!rc && val[0] == '!')
            rc = -atoi(val + 1); /* the creator already said why */
        else if (!rc) {
            char who[40];
            snprintf(who, sizeof who, "skf_chan_open(port %u)", port);
            rc = skf_shm_obj_attach(val, 0, who, &seg->obj);
        }
    }
    return rc;
}

int shm_seg_commit(struct shm_seg *seg)
{
    int rc = boot_fence();
    if (seg->creator)
        skf_shm_obj_unname(&seg->obj);
    return rc;
}

void shm_seg_detach(struct shm_seg *seg)
{
    skf_shm_obj_close(&seg->obj);
    seg->creator = 0;
}
