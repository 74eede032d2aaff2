/*
 * topo.c — topology objects: copy and free (Comm_dup copies the topology).
 */
#include <stdlib.h>
#include <string.h>

#include "topo/topo.h"

static int *copy(const int *p, int n)
{
    if (!p)
        return NULL;
    int *q = malloc((size_t)(n > 0 ? n : 1) * sizeof *q);
    if (q && n > 0)
        memcpy(q, p, (size_t)n * sizeof *q);
    return q;
}

void topo_free(struct topo *t)
{
    if (!t)
        return;
    free(t->dims);
    free(t->periods);
    free(t->index);
    free(t->edges);
    free(t->sources);
    free(t->sweights);
    free(t->dests);
    free(t->dweights);
    free(t);
}

struct topo *topo_dup(const struct topo *t)
{
    struct topo *n = malloc(sizeof *n);
    if (!n)
        return NULL;
    *n = *t;
    n->dims = copy(t->dims, t->ndims);
    n->periods = copy(t->periods, t->ndims);
    n->index = copy(t->index, t->nnodes);
    n->edges = copy(t->edges, t->index && t->nnodes ? t->index[t->nnodes - 1] : 0);
    n->sources = copy(t->sources, t->indegree);
    n->sweights = copy(t->sweights, t->indegree);
    n->dests = copy(t->dests, t->outdegree);
    n->dweights = copy(t->dweights, t->outdegree);
    return n;
}
