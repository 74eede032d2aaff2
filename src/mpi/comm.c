/*
 * comm.c — communicator objects: the predefined MPI_COMM_WORLD and
 * MPI_COMM_SELF, their matching-queue bins and the context-id table that maps
 * a message header back to its communicator.
 *
 * Context ids come in pairs (even: point-to-point, odd: reserved for the
 * collectives of the same communicator) so the two never match each other.
 */
#include <stdlib.h>

#include "device/device.h"

#define CTX_WORLD 0
#define CTX_SELF 2
#define MAX_CTX MPIR_MAX_CTX

struct MPI_ABI_Comm mpir_comm_predef[3];
static struct MPI_ABI_Comm coll_shadow[3]; /* collective contexts of WORLD and SELF */
static struct MPI_ABI_Comm *ctx_table[MAX_CTX];
static int self_world_of;

struct MPI_ABI_Comm *comm_from_ctx(int ctx)
{
    struct MPI_ABI_Comm *c = ctx < MAX_CTX ? ctx_table[ctx] : NULL;
    if (unlikely(!c))
        c = comm_early_arrival(ctx); /* its communicator is still being created here */
    return c;
}

struct MPI_ABI_Comm **comm_ctx_slot(int ctx)
{
    return ctx >= 0 && ctx < MAX_CTX ? &ctx_table[ctx] : NULL;
}

void comm_setup(struct MPI_ABI_Comm *c, int ctx, int rank, int size, int *world_of,
                       const char *name)
{
    c->magic = MAGIC_COMM;
    c->ctx = ctx;
    c->rank = rank;
    c->size = size;
    c->world_of = world_of;
    c->eh = &mpir_eh_predef[1]; /* MPI_ERRORS_ARE_FATAL */
    c->name = name;
    c->posted = calloc((size_t)size, sizeof *c->posted);
    c->unexp = calloc((size_t)size, sizeof *c->unexp);
    if (!c->posted || !c->unexp)
        mpir_fatal("out of memory for the queues of %s", name);
    ctx_table[ctx] = c;
}

int comm_init_predefined(int world_rank, int world_size)
{
    self_world_of = world_rank;
    comm_setup(&mpir_comm_predef[1], CTX_WORLD, world_rank, world_size, NULL, "MPI_COMM_WORLD");
    comm_setup(&coll_shadow[1], CTX_WORLD + 1, world_rank, world_size, NULL, "MPI_COMM_WORLD");
    comm_setup(&mpir_comm_predef[2], CTX_SELF, 0, 1, &self_world_of, "MPI_COMM_SELF");
    comm_setup(&coll_shadow[2], CTX_SELF + 1, 0, 1, &self_world_of, "MPI_COMM_SELF");
    mpir_comm_predef[1].coll = &coll_shadow[1];
    mpir_comm_predef[2].coll = &coll_shadow[2];
    return MPI_SUCCESS;
}

void comm_teardown(struct MPI_ABI_Comm *c)
{
    coll_comm_free(c);
    match_free_all(c);
    free(c->posted);
    free(c->unexp);
    ctx_table[c->ctx] = NULL;
    mpir_eh_release(c->eh);
    c->magic = 0;
}

void comm_free_predefined(void)
{
    for (int i = 1; i <= 2; i++) {
        comm_teardown(&mpir_comm_predef[i]);
        comm_teardown(&coll_shadow[i]);
    }
}
