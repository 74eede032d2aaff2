/*
 * summary — the ranks' own Skiff lines on stderr ("skiff: ...", "skiff MPI:
 * ...", "skiff boot: ..."), gathered so that N ranks saying the same thing
 * print one line, not N:
 *
 *   skiff MPI: ranks 0,2-127: a peer process is gone: rank 1 (pid 4242, ...); ending the job
 *
 * A line is grouped by its prefix and its text without the "rank R: " the
 * library puts first.  Lines are held for at most SUMMARY_HOLD_MS while the
 * job runs (so start-up warnings and SKIFF_VERBOSE lines come out grouped and
 * nearly at once); once the job is being ended they are held until every rank
 * is gone, then printed before the launcher's verdict.  Groups print in the
 * order their first line came.  Other lines (the program's own) pass through.
 */
#ifndef SKIFF_LAUNCHER_SUMMARY_H
#define SKIFF_LAUNCHER_SUMMARY_H

#include <stddef.h>
#include <time.h>

#include "io_forward.h"

#define SUMMARY_HOLD_MS 250
#define SUMMARY_GROUPS_MAX 32  /* more distinct lines at once: the held ones print first */
#define SUMMARY_TEXT_MAX 1024  /* a longer line passes through as it is */

typedef struct summary_group {
    const char *prefix;     /* "skiff", "skiff MPI", "skiff boot" */
    char *text;             /* the line after "prefix: " and "rank R: " */
    unsigned char *ranks;   /* bitmap over the job's ranks */
    int count;
} summary_group_t;

typedef struct summary {
    int size;               /* ranks in the job */
    io_sink_t *sink;
    int ngroups;
    summary_group_t group[SUMMARY_GROUPS_MAX];
    struct timespec first;  /* when the oldest held line came */
} summary_t;

void summary_init(summary_t *s, int size, io_sink_t *sink);
/* A complete line (len bytes, no '\n') from rank's stderr: returns 1 when it
 * is a Skiff line and is now held, 0 when the caller passes it on. */
int summary_take(summary_t *s, int rank, const char *line, size_t len);
/* Milliseconds until the held lines are due (0: now), -1 when none is held. */
int summary_ms_left(const summary_t *s);
/* Print every group held, one line each, and forget them. */
void summary_flush(summary_t *s);
void summary_free(summary_t *s);

#endif /* SKIFF_LAUNCHER_SUMMARY_H */
