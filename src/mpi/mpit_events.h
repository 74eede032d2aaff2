/*
 * mpit_events.h — the library's side of the MPI_T events (binding/mpit_events.c):
 * where events are raised and where queued ones are delivered.
 *
 * Raising costs one relaxed load of a global flag while nobody has a
 * registration; delivery one more in CHECK_INIT (binding/check.h).
 */
#ifndef SKIFF_MPI_MPIT_EVENTS_H
#define SKIFF_MPI_MPIT_EVENTS_H

#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

extern int mpir_t_events_on;      /* some event registration exists */
extern int mpir_t_events_pending; /* instances wait for a callback without restrictions */

void mpir_t_event_unexpected_raise(struct MPI_ABI_Comm *c, int src, int tag, size_t bytes);
void mpir_t_events_deliver(void);

/* A message arrived in c with no matching receive posted. */
static inline void mpir_t_event_unexpected(struct MPI_ABI_Comm *c, int src, int tag, size_t bytes)
{
    if (unlikely(__atomic_load_n(&mpir_t_events_on, __ATOMIC_RELAXED)))
        mpir_t_event_unexpected_raise(c, src, tag, bytes);
}

/* At the start of an MPI call (a context without restrictions): hand queued
 * event instances to their callbacks. */
static inline void mpir_t_events_poll(void)
{
    if (unlikely(__atomic_load_n(&mpir_t_events_pending, __ATOMIC_RELAXED)))
        mpir_t_events_deliver();
}

/* binding/mpit.c: is the tool interface initialised; copy a string out the MPI_T way. */
int mpir_t_initialized(void);
void mpir_t_string(char *dst, int *len, const char *src);

#pragma GCC visibility pop

#endif
