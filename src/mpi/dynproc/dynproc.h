/*
 * dynproc.h — dynamic processes inside libmpi: joins of two groups
 * (connect.c), spawning (spawn.c), the name service (names.c).
 */
#ifndef SKIFF_MPI_DYNPROC_H
#define SKIFF_MPI_DYNPROC_H

#include <sys/types.h>

#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

enum dyn_kind { DYN_ACCEPT, DYN_CONNECT, DYN_JOIN };
typedef struct dyn_how {
    int kind;          /* enum dyn_kind: what the root does */
    const char *port;  /* accept / connect */
    int fd;            /* join: the connected socket */
    pid_t watch;       /* accept: give up when this launcher ends first (spawn) */
    int local_status;  /* root: nonzero: fail the join with this class at once */
} dyn_how_t;

/* Join group lc (the root does the talking) with the other side: on success
 * *newcomm is the intercommunicator; else an MPI error class (not reported). */
int dyn_join(const char *fn, struct MPI_ABI_Comm *lc, int root, const dyn_how_t *how,
             MPI_Comm *newcomm);
/* Checks of a spawn / accept / connect: comm an intracommunicator, root a
 * rank of it, out not NULL.  MPI_SUCCESS or the reported class. */
int dyn_check_group(const char *fn, MPI_Comm comm, int root, const MPI_Comm *out,
                    struct MPI_ABI_Comm **c);
int dyn_open_port(char *name);
int dyn_close_port(const char *name);

/* The intercommunicator to the job that spawned this one (MPI_COMM_NULL). */
extern MPI_Comm dyn_parent;
/* MPI_Init of a spawned job: connect to the parents (SKIFF_PARENT_PORT). */
int dyn_init_parent(void);

#pragma GCC visibility pop

#endif
