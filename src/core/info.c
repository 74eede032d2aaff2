/* info — fill struct skf_info for skiff-info (see info.h). */
#include "core/info.h"

#include <errno.h>
#include <string.h>

#include "core/config.h"
#include "core/core.h"
#include "transports/shm/shm.h"

int skf_info_get(const skf_ctx_t *ctx, struct skf_info *out)
{
    if (!ctx || !out)
        return -EINVAL;
    const struct skf_shm_conf *c = &ctx->shm;
    int nlocal = ctx->boot->local_size;
    int ded = c->dedicated_max < nlocal - 1 ? c->dedicated_max : nlocal - 1;
    memset(out, 0, sizeof *out);
    const char *want = skf_param_str("SKIFF_TRANSPORTS");
    out->transports = skf_tcp_for_all() ? "tcp (SKIFF_TRANSPORTS=tcp; shm for the internal port)"
                      : strcmp(want, "ofi") == 0 ? "ofi (SKIFF_TRANSPORTS=ofi; shm for the internal port)"
                      : ctx->boot->num_nodes > 1 && strcmp(want, "shm,ofi") == 0 ? "shm (my node), ofi (other nodes)"
                      : ctx->boot->num_nodes > 1 ? "shm (my node), tcp (other nodes)" : "shm";
    out->cma_usable = ctx->cma_usable;
    out->cma_forced_off = ctx->cma_forced_off;
    out->fallback_active = ctx->fallback_needed;
    out->ring_bytes = c->ring_bytes;
    out->max_msg = c->ring_bytes / 4;
    out->dedicated_max = c->dedicated_max;
    out->dedicated_after = c->dedicated_after;
    out->spin = c->spin;
    out->yields = c->yields;
    out->oversubscribed = ctx->oversubscribed;
    out->local_size = nlocal;
    out->segment_bytes = skf_shm_segment_bytes(nlocal, ded, c->ring_bytes);
    out->recv_bytes = (size_t)(1 + ded) * c->ring_bytes;
    return 0;
}
