/*
 * suite.h — what every program of the side-by-side benchmark suite shares:
 * command line, the size sweep with time-budgeted iteration counts, the
 * payload discipline (fresh data every iteration, or OSU-style static
 * buffers), and the one-line result format that skiff-bench parses.
 *
 * Plain MPI-1 C on purpose: the same source is compiled with Skiff's mpicc,
 * MPICH's and Open MPI's.  Only point-to-point calls are used here (to agree
 * on iteration counts and gather timings), so a collective benchmark needs
 * nothing beyond the collective it measures.
 *
 * Result line (stdout of rank 0), one per size:
 *     @ <benchmark> <size-bytes> <ranks> <metric> <value>
 */
#ifndef SUITE_H
#define SUITE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define SUITE_MAX_SIZES 64

struct suite_opts {
    size_t sizes[SUITE_MAX_SIZES]; /* message sizes to sweep, bytes */
    int nsizes;
    double target_sec;  /* timed part of each size aims at this many seconds */
    int static_payload; /* 1: OSU-style buffers never written (see docs) */
    int rank, nranks;
};

/* Runs `iters` iterations numbered first..first+iters-1 of one benchmark at
 * `size` bytes; returns this rank's elapsed seconds. */
typedef double (*suite_kernel_fn)(const struct suite_opts *o, size_t size, long first, long iters);
/* Turns (size, iterations, slowest rank's seconds) into the reported value. */
typedef double (*suite_value_fn)(const struct suite_opts *o, size_t size, long iters, double sec);

/* MPI_Init, then parse: --sizes a,b,c (K/M suffixes), --time SEC, --static.
 * `default_sizes` is used when --sizes is absent.  `ranks_rule`: 0 any count,
 * 2 exactly two ranks.  Exits with a one-line error on bad input. */
void suite_init(int *argc, char ***argv, const char *bench, const char *default_sizes,
                int ranks_rule, struct suite_opts *o);

/* For every size: warm up, probe the time of a few iterations, let rank 0
 * pick an iteration count that fits the time target, run it, print a line. */
void suite_sweep(struct suite_opts *o, const char *bench, const char *metric,
                 suite_kernel_fn kernel, suite_value_fn value);

void suite_finish(void); /* MPI_Finalize */

/* Page-aligned, zeroed buffer; exits on failure. */
void *suite_alloc(size_t bytes);

/* Fresh payload (payload.h): one 8-byte `stamp` at the start of every 64-byte
 * line, so each line is dirty in the writer's cache (what a real application
 * does to its data) at a cost of one store per line. */
void suite_stamp(void *buf, size_t size, uint64_t stamp);
/* Check the first and the last line's word; on mismatch print what/where and
 * MPI_Abort (a benchmark that moved stale data must not report a number). */
void suite_expect(const void *buf, size_t size, uint64_t stamp, const char *bench, long iter);

/* Small helpers over point-to-point only. */
long suite_share_long(long v_on_root);      /* root's value to every rank */
double suite_max_double(double v);          /* max over ranks, result on all ranks */

#endif
