/*
 * group.h — process groups: an ordered list of world ranks.
 *
 * A group is immutable once built and reference counted (the user's handle
 * and every communicator using it).  MPI_GROUP_EMPTY is a static object.
 */
#ifndef SKIFF_MPI_GROUP_H
#define SKIFF_MPI_GROUP_H

#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

#define MAGIC_GROUP 0x70757247

struct MPI_ABI_Group {
    uint32_t magic;
    int refs;
    int size;
    int rank;   /* my rank in it, or MPI_UNDEFINED */
    int *world; /* [size] world rank of each member */
    struct MPI_ABI_Session *session; /* MPI_Group_from_session_pset's, else NULL */
};

extern struct MPI_ABI_Group mpir_group_empty;

/* A new group of n members (world ranks copied from world); NULL: no memory. */
struct MPI_ABI_Group *group_new(int n, const int *world);
void group_retain(struct MPI_ABI_Group *g);
void group_release(struct MPI_ABI_Group *g);
/* Resolve a handle; reports MPI_ERR_GROUP (MPI_GROUP_NULL or not a group). */
int group_check(const char *fn, MPI_Group h, struct MPI_ABI_Group **out);
MPI_Group group_handle(struct MPI_ABI_Group *g);
/* Index of world rank w in g, or -1. */
int group_find(const struct MPI_ABI_Group *g, int w);
/* The local group of a communicator (a new reference). */
struct MPI_ABI_Group *group_of_comm(struct MPI_ABI_Comm *c);
/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL */
int group_compare(const struct MPI_ABI_Group *a, const struct MPI_ABI_Group *b);

#pragma GCC visibility pop

#endif
