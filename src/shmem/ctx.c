/*
 * ctx.c — communication contexts.
 *
 * Every operation completes before its call returns (shmemi.h), so a context
 * holds no pending work of its own: it carries its options and team, is
 * checked on every ctx call, and its fence/quiet are the memory fences.
 * SHMEM_CTX_PRIVATE/SERIALIZED/NOSTORE are accepted and change nothing.
 */
#include <stdlib.h>

#include "shmemi.h"

#define KNOWN_OPTIONS (SHMEM_CTX_SERIALIZED | SHMEM_CTX_PRIVATE | SHMEM_CTX_NOSTORE)

static int create(const char *call, shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (!ctx)
        shmemi_fatal(call, "ctx is NULL");
    *ctx = SHMEM_CTX_INVALID;
    if (options & ~KNOWN_OPTIONS)
        shmemi_fatal(call, "unknown options 0x%lx (known: SHMEM_CTX_SERIALIZED, "
                           "SHMEM_CTX_PRIVATE, SHMEM_CTX_NOSTORE)", options);
    if (team->my < 0)
        return -1;
    if (team->config.num_contexts > 0 && team->nctx >= team->config.num_contexts)
        return -1; /* the team was configured for fewer */
    struct shmemi_ctx *c = malloc(sizeof *c);
    if (!c)
        return -1;
    *c = (struct shmemi_ctx){SHMEMI_CTX_MAGIC, options, team};
    __atomic_fetch_add(&team->nctx, 1, __ATOMIC_RELAXED);
    *ctx = c;
    return 0;
}

int shmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    shmemi_check_init("shmem_ctx_create");
    return create("shmem_ctx_create", SHMEM_TEAM_WORLD, options, ctx);
}

int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    shmemi_check_init("shmem_team_create_ctx");
    if (!team) {
        if (ctx)
            *ctx = SHMEM_CTX_INVALID;
        return -1;
    }
    return create("shmem_team_create_ctx", team, options, ctx);
}

void shmem_ctx_destroy(shmem_ctx_t ctx)
{
    shmemi_check_init("shmem_ctx_destroy");
    if (ctx == SHMEM_CTX_INVALID)
        return; /* allowed: nothing to do */
    shmemi_check_ctx(ctx, "shmem_ctx_destroy");
    if (ctx == SHMEM_CTX_DEFAULT)
        shmemi_fatal("shmem_ctx_destroy", "SHMEM_CTX_DEFAULT cannot be destroyed");
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_fetch_sub(&ctx->team->nctx, 1, __ATOMIC_RELAXED);
    ctx->magic = 0;
    free(ctx);
}

int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    shmemi_check_init("shmem_ctx_get_team");
    if (!team)
        shmemi_fatal("shmem_ctx_get_team", "team is NULL");
    if (!ctx || ctx->magic != SHMEMI_CTX_MAGIC) {
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}
