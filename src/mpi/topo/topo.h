/*
 * topo.h — virtual topologies attached to a communicator: Cartesian grids,
 * general graphs and distributed graphs.
 */
#ifndef SKIFF_MPI_TOPO_H
#define SKIFF_MPI_TOPO_H

#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

struct topo {
    int kind; /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    /* Cartesian */
    int ndims;
    int *dims, *periods;
    /* graph: neighbours of node i are edges[index[i-1] .. index[i]) */
    int nnodes;
    int *index, *edges;
    /* distributed graph (this process's view) */
    int indegree, outdegree, weighted;
    int *sources, *sweights, *dests, *dweights;
};

struct topo *topo_dup(const struct topo *t);
void topo_free(struct topo *t);

#pragma GCC visibility pop

#endif
