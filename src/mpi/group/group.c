/*
 * group.c — group objects and the set operations behind MPI_Group_*.
 *
 * Membership questions ("is world rank w in g, at which index") go through a
 * reverse map indexed by world rank, built once per operation: every set
 * operation is O(size of the groups + world size), never quadratic.
 */
#include <stdlib.h>
#include <string.h>

#include "device/device.h"
#include "group/group.h"

struct MPI_ABI_Group mpir_group_empty = {MAGIC_GROUP, 1, 0, MPI_UNDEFINED, NULL, NULL};

struct MPI_ABI_Group *group_new(int n, const int *world)
{
    struct MPI_ABI_Group *g = malloc(sizeof *g);
    if (!g)
        return NULL;
    g->world = malloc((size_t)(n ? n : 1) * sizeof *g->world);
    if (!g->world) {
        free(g);
        return NULL;
    }
    if (n)
        memcpy(g->world, world, (size_t)n * sizeof *world);
    g->magic = MAGIC_GROUP;
    g->session = NULL;
    g->refs = 1;
    g->size = n;
    g->rank = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        if (world[i] == mpid.rank)
            g->rank = i;
    return g;
}

void group_retain(struct MPI_ABI_Group *g)
{
    if (g != &mpir_group_empty)
        mpid_ref_add(&g->refs, 1);
}

void group_release(struct MPI_ABI_Group *g)
{
    if (g == &mpir_group_empty || mpid_ref_add(&g->refs, -1) > 0)
        return;
    g->magic = 0;
    free(g->world);
    free(g);
}

int group_check(const char *fn, MPI_Group h, struct MPI_ABI_Group **out)
{
    uintptr_t v = (uintptr_t)h;
    *out = NULL;
    if (v == 0x109) {
        *out = &mpir_group_empty;
        return 0;
    }
    if (v >= MPIR_PREDEF_BOUND && ((struct MPI_ABI_Group *)h)->magic == MAGIC_GROUP) {
        *out = (struct MPI_ABI_Group *)h;
        return 0;
    }
    return mpir_error(NULL, MPI_ERR_GROUP, "%s: invalid group %s", fn,
                      v == 0x108 ? "MPI_GROUP_NULL" : "(not a group handle)");
}

MPI_Group group_handle(struct MPI_ABI_Group *g)
{
    return g == &mpir_group_empty ? (MPI_Group)0x109 : (MPI_Group)g;
}

int group_find(const struct MPI_ABI_Group *g, int w)
{
    for (int i = 0; i < g->size; i++)
        if (g->world[i] == w)
            return i;
    return -1;
}

struct MPI_ABI_Group *group_of_comm(struct MPI_ABI_Comm *c)
{
    int n = mpir_comm_local_size(c);
    const int *local = mpir_comm_local_world(c);
    int *w = malloc((size_t)(n ? n : 1) * sizeof *w);
    if (!w)
        return NULL;
    for (int i = 0; i < n; i++)
        w[i] = local ? local[i] : i;
    struct MPI_ABI_Group *g = group_new(n, w);
    free(w);
    return g;
}

int group_compare(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b)
{
    if (a->size != b->size)
        return MPI_UNEQUAL;
    if (a->size == 0 || memcmp(a->world, b->world, (size_t)a->size * sizeof *a->world) == 0)
        return MPI_IDENT;
    char *in_a = calloc((size_t)mpid.npeers, 1);
    if (!in_a)
        return MPI_UNEQUAL;
    for (int i = 0; i < a->size; i++)
        in_a[a->world[i]] = 1;
    int same = 1;
    for (int i = 0; i < b->size && same; i++)
        same = in_a[b->world[i]];
    free(in_a);
    return same ? MPI_SIMILAR : MPI_UNEQUAL;
}
