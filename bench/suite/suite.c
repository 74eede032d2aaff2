/*
 * suite.c — shared driver of the benchmark suite (see suite.h): options, the
 * time-budgeted size sweep, payload stamping/checking and result lines.
 */
#include "suite.h"
#include "payload.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAG_CONTROL 31999 /* suite's own control traffic, never used by kernels */
#define MIN_ITERS 3
#define MAX_ITERS 2000000L
#define WARMUP_ITERS 2

static void die(const char *bench, const char *what)
{
    fprintf(stderr, "%s: %s\n", bench, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2);
}

/* "64", "8K", "4M" -> bytes; -1 on junk. */
static long long parse_size(const char *s)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v < 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    return *end ? -1 : v;
}

static void parse_sizes(const char *bench, const char *list, struct suite_opts *o)
{
    char buf[1024], msg[1200];
    if (strlen(list) >= sizeof buf)
        die(bench, "--sizes: list too long");
    strcpy(buf, list);
    o->nsizes = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        long long v = parse_size(tok);
        if (v < 0 || v > (1LL << 30)) {
            snprintf(msg, sizeof msg, "--sizes: bad size '%s' (want 0..1G, K/M suffix allowed)", tok);
            die(bench, msg);
        }
        if (o->nsizes == SUITE_MAX_SIZES)
            die(bench, "--sizes: more than 64 sizes");
        o->sizes[o->nsizes++] = (size_t)v;
    }
    if (o->nsizes == 0)
        die(bench, "--sizes: empty list");
}

void suite_init(int *argc, char ***argv, const char *bench, const char *default_sizes,
                int ranks_rule, struct suite_opts *o)
{
    char msg[256];
    MPI_Init(argc, argv);
    memset(o, 0, sizeof *o);
    MPI_Comm_rank(MPI_COMM_WORLD, &o->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &o->nranks);
    o->target_sec = 0.05;
    const char *sizes = default_sizes;
    for (int i = 1; i < *argc; i++) {
        const char *a = (*argv)[i];
        if (!strcmp(a, "--sizes") && i + 1 < *argc) {
            sizes = (*argv)[++i];
        } else if (!strcmp(a, "--time") && i + 1 < *argc) {
            o->target_sec = atof((*argv)[++i]);
            if (o->target_sec <= 0 || o->target_sec > 60) {
                snprintf(msg, sizeof msg, "--time: bad value '%s' (want seconds in (0, 60])", (*argv)[i]);
                die(bench, msg);
            }
        } else if (!strcmp(a, "--static")) {
            o->static_payload = 1;
        } else {
            snprintf(msg, sizeof msg, "unknown argument '%s' (use --sizes LIST --time SEC --static)", a);
            die(bench, msg);
        }
    }
    parse_sizes(bench, sizes, o);
    if (ranks_rule == 2 && o->nranks != 2) {
        snprintf(msg, sizeof msg, "needs exactly 2 ranks, got %d", o->nranks);
        die(bench, msg);
    }
}

void suite_finish(void)
{
    MPI_Finalize();
}

void *suite_alloc(size_t bytes)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, bytes ? bytes : 1) != 0) {
        fprintf(stderr, "suite_alloc: cannot allocate %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(p, 0, bytes ? bytes : 1);
    return p;
}

void suite_stamp(void *buf, size_t size, uint64_t stamp)
{
    payload_stamp(buf, size, stamp);
}

void suite_expect(const void *buf, size_t size, uint64_t stamp, const char *bench, long iter)
{
    long off = payload_mismatch(buf, size, stamp);
    if (off >= 0) {
        uint64_t got = 0;
        memcpy(&got, (const char *)buf + off, size - (size_t)off < 8 ? size - (size_t)off : 8);
        fprintf(stderr, "%s: payload check failed: size %zu iteration %ld offset %ld: got 0x%llx, want 0x%llx\n",
                bench, size, iter, off, (unsigned long long)got, (unsigned long long)stamp);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

long suite_share_long(long v)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (rank == 0) {
        for (int r = 1; r < n; r++)
            MPI_Send(&v, 1, MPI_LONG, r, TAG_CONTROL, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&v, 1, MPI_LONG, 0, TAG_CONTROL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return v;
}

double suite_max_double(double v)
{
    int rank, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (rank == 0) {
        for (int r = 1; r < n; r++) {
            double other;
            MPI_Recv(&other, 1, MPI_DOUBLE, r, TAG_CONTROL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (other > v)
                v = other;
        }
        for (int r = 1; r < n; r++)
            MPI_Send(&v, 1, MPI_DOUBLE, r, TAG_CONTROL, MPI_COMM_WORLD);
    } else {
        MPI_Send(&v, 1, MPI_DOUBLE, 0, TAG_CONTROL, MPI_COMM_WORLD);
        MPI_Recv(&v, 1, MPI_DOUBLE, 0, TAG_CONTROL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return v;
}

/* Rank 0 grows a probe run by 4x until it takes an eighth of the target, then
 * scales it to the target.  Every decision travels by point-to-point, so all
 * ranks run the same count (collectives would deadlock otherwise). */
static long pick_iterations(const struct suite_opts *o, size_t size, suite_kernel_fn kernel, long *next)
{
    long n = 4;
    for (;;) {
        double t = suite_max_double(kernel(o, size, *next, n));
        *next += n;
        long decision = 0; /* 0: probe again with 4n; >0: final count */
        if (o->rank == 0) {
            if (t < o->target_sec / 8 && n < MAX_ITERS / 4) {
                decision = 0;
            } else {
                double want = t > 0 ? (double)n * o->target_sec / t : (double)MAX_ITERS;
                decision = want < MIN_ITERS ? MIN_ITERS : want > MAX_ITERS ? MAX_ITERS : (long)want;
            }
        }
        decision = suite_share_long(decision);
        if (decision > 0)
            return decision;
        n *= 4;
    }
}

void suite_sweep(struct suite_opts *o, const char *bench, const char *metric,
                 suite_kernel_fn kernel, suite_value_fn value)
{
    long next = 0; /* iteration number: keeps stamps distinct across phases */
    for (int i = 0; i < o->nsizes; i++) {
        size_t size = o->sizes[i];
        kernel(o, size, next, WARMUP_ITERS);
        next += WARMUP_ITERS;
        long iters = pick_iterations(o, size, kernel, &next);
        double sec = suite_max_double(kernel(o, size, next, iters));
        next += iters;
        if (o->rank == 0) {
            printf("@ %s %zu %d %s %.6g\n", bench, size, o->nranks, metric, value(o, size, iters, sec));
            fflush(stdout);
        }
    }
}
