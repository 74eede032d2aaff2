/* node_shared — node-local shared-memory regions for upper layers (see node_shared.h). */
#include "core/node_shared.h"

#include <stdio.h>
#include <sys/mman.h>

#include "core/core.h"
#include "core/shm_obj.h"

static int create(skf_ctx_t *ctx, size_t size, char name[SKF_NODE_SHM_NAME], void **base,
                  int quiet_nospace)
{
    static unsigned made; /* regions this process created: keeps names unique */
    struct skf_shm_obj o;
    char label[32];
    /* atomic: MPI collectives on different communicators set theirs up from
     * several threads at once (MPI_THREAD_MULTIPLE) */
    snprintf(label, sizeof label, "x%d-%u", ctx->rank, __atomic_fetch_add(&made, 1, __ATOMIC_RELAXED));
    /* Reserved now: a full /dev/shm must not SIGBUS the first collective. */
    int rc = skf_shm_obj_create(ctx, label, size, 1, quiet_nospace, "node shared region", &o);
    if (rc)
        return rc;
    snprintf(name, SKF_NODE_SHM_NAME, "%s", o.name);
    *base = o.base;
    return 0;
}

int skf_node_shm_create(skf_ctx_t *ctx, size_t size, char name[SKF_NODE_SHM_NAME], void **base)
{
    return create(ctx, size, name, base, 0);
}

int skf_node_shm_try_create(skf_ctx_t *ctx, size_t size, char name[SKF_NODE_SHM_NAME],
                            void **base)
{
    return create(ctx, size, name, base, 1);
}

const char *skf_node_shm_where(void) { return skf_shm_where(skf_shm_kind()); }

static int attach(const char *name, size_t size, void **base, int quiet_gone)
{
    struct skf_shm_obj o;
    int rc = quiet_gone ? skf_shm_obj_try_attach(name, size, "node shared region", &o)
                        : skf_shm_obj_attach(name, size, "node shared region", &o);
    if (!rc)
        *base = o.base;
    return rc;
}

int skf_node_shm_attach(const char *name, size_t size, void **base)
{
    return attach(name, size, base, 0);
}

int skf_node_shm_try_attach(const char *name, size_t size, void **base)
{
    return attach(name, size, base, 1);
}

int skf_node_shm_attach_at(const char *name, size_t size, void *at)
{
    struct skf_shm_obj o;
    return skf_shm_obj_attach_at(name, size, at, "node shared region", &o);
}

int skf_node_shm_unlink(const char *name) { return skf_shm_obj_unname_by_name(name); }

int skf_node_fence_free(const skf_ctx_t *ctx) { return ctx->asym_fence; }

int skf_node_membarrier(void) { return skf_membarrier(); }

void skf_node_shm_detach(void *base, size_t size)
{
    if (base)
        munmap(base, size);
}
