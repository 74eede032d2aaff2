/*
 * group.c — MPI_Comm_group and MPI_Group_*: argument checks and the set
 * operations, each building a new group from world ranks.
 */
#include <stdlib.h>

#include "binding/check.h"
#include "group/group.h"

static int out_group(const char *fn, int n, const int *world, MPI_Group *out)
{
    if (n == 0) {
        *out = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    struct MPI_ABI_Group *g = group_new(n, world);
    if (!g)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory for a group of %d", fn, n);
    *out = (MPI_Group)g;
    return MPI_SUCCESS;
}

static int *ranks_buf(int n) { return malloc((size_t)(n ? n : 1) * sizeof(int)); }

static int no_mem(const char *fn) { return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn); }

/* Index in g of each world rank (or -1): a reverse map over the world. */
static int *reverse_map(const struct MPI_ABI_Group *g)
{
    int *m = malloc((size_t)mpid.npeers * sizeof *m);
    if (!m)
        return NULL;
    for (int i = 0; i < mpid.npeers; i++)
        m[i] = -1;
    for (int i = 0; i < g->size; i++)
        m[g->world[i]] = i;
    return m;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    static const char fn[] = "MPI_Comm_group";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = check_comm(fn, comm, &c)))
        return rc;
    if (!group)
        return mpir_error(c, MPI_ERR_ARG, "%s: NULL group", fn);
    struct MPI_ABI_Group *g = group_of_comm(c);
    if (!g)
        return no_mem(fn);
    *group = (MPI_Group)g;
    return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group group, int *size)
{
    struct MPI_ABI_Group *g;
    int rc;
    if ((rc = group_check("MPI_Group_size", group, &g)))
        return rc;
    if (!size)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Group_size: NULL size");
    *size = g->size;
    return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int *rank)
{
    struct MPI_ABI_Group *g;
    int rc;
    if ((rc = group_check("MPI_Group_rank", group, &g)))
        return rc;
    if (!rank)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Group_rank: NULL rank");
    *rank = g->rank;
    return MPI_SUCCESS;
}

int MPI_Group_free(MPI_Group *group)
{
    struct MPI_ABI_Group *g;
    int rc;
    if (!group)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Group_free: NULL group");
    if ((rc = group_check("MPI_Group_free", *group, &g)))
        return rc;
    group_release(g);
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[])
{
    static const char fn[] = "MPI_Group_translate_ranks";
    struct MPI_ABI_Group *a, *b;
    int rc;
    if ((rc = group_check(fn, group1, &a)) || (rc = group_check(fn, group2, &b)))
        return rc;
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %d or NULL array", fn, n);
    for (int i = 0; i < n; i++)
        if (ranks1[i] != MPI_PROC_NULL && (ranks1[i] < 0 || ranks1[i] >= a->size))
            return mpir_error(NULL, MPI_ERR_RANK, "%s: rank %d at index %d not in group of %d",
                              fn, ranks1[i], i, a->size);
    int *m = reverse_map(b);
    if (!m)
        return no_mem(fn);
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        int j = m[a->world[ranks1[i]]];
        ranks2[i] = j < 0 ? MPI_UNDEFINED : j;
    }
    free(m);
    return MPI_SUCCESS;
}

int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int *result)
{
    struct MPI_ABI_Group *a, *b;
    int rc;
    if ((rc = group_check("MPI_Group_compare", group1, &a)) ||
        (rc = group_check("MPI_Group_compare", group2, &b)))
        return rc;
    if (!result)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Group_compare: NULL result");
    *result = group_compare(a, b);
    return MPI_SUCCESS;
}

enum set_op { OP_UNION, OP_INTERSECTION, OP_DIFFERENCE };

static int set_op(const char *fn, MPI_Group group1, MPI_Group group2, MPI_Group *out, int op)
{
    struct MPI_ABI_Group *a, *b;
    int rc;
    if ((rc = group_check(fn, group1, &a)) || (rc = group_check(fn, group2, &b)))
        return rc;
    if (!out)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL newgroup", fn);
    int *in_b = reverse_map(b), *w = ranks_buf(a->size + b->size);
    if (!in_b || !w) {
        free(in_b);
        free(w);
        return no_mem(fn);
    }
    int n = 0;
    for (int i = 0; i < a->size; i++) { /* group1's order first */
        int there = in_b[a->world[i]] >= 0;
        if (op == OP_UNION || (op == OP_INTERSECTION) == there)
            w[n++] = a->world[i];
    }
    if (op == OP_UNION) {
        int *in_a = reverse_map(a);
        if (!in_a) {
            free(in_b);
            free(w);
            return no_mem(fn);
        }
        for (int i = 0; i < b->size; i++)
            if (in_a[b->world[i]] < 0)
                w[n++] = b->world[i];
        free(in_a);
    }
    rc = out_group(fn, n, w, out);
    free(in_b);
    free(w);
    return rc;
}

int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", group1, group2, newgroup, OP_UNION);
}

int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", group1, group2, newgroup, OP_INTERSECTION);
}

int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", group1, group2, newgroup, OP_DIFFERENCE);
}

/* Ranks must be valid and distinct: mark them in a per-group array. */
static int check_ranks(const char *fn, const struct MPI_ABI_Group *g, int n, const int *ranks,
                       char *seen)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return mpir_error(NULL, MPI_ERR_RANK, "%s: rank %d at index %d not in group of %d",
                              fn, r, i, g->size);
        if (seen[r])
            return mpir_error(NULL, MPI_ERR_RANK, "%s: rank %d appears twice", fn, r);
        seen[r] = 1;
    }
    return 0;
}

static int incl_excl(const char *fn, MPI_Group group, int n, const int *ranks, MPI_Group *out,
                     int excl)
{
    struct MPI_ABI_Group *g;
    int rc;
    if ((rc = group_check(fn, group, &g)))
        return rc;
    if (n < 0 || n > g->size || (n > 0 && !ranks) || !out)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %d (group of %d) or NULL array",
                          fn, n, g->size);
    char *seen = calloc((size_t)(g->size ? g->size : 1), 1);
    int *w = ranks_buf(g->size);
    if (!seen || !w) {
        free(seen);
        free(w);
        return no_mem(fn);
    }
    int m = 0;
    if (!(rc = check_ranks(fn, g, n, ranks, seen))) {
        if (excl) {
            for (int i = 0; i < g->size; i++)
                if (!seen[i])
                    w[m++] = g->world[i];
        } else {
            for (int i = 0; i < n; i++)
                w[m++] = g->world[ranks[i]];
        }
        rc = out_group(fn, m, w, out);
    }
    free(seen);
    free(w);
    return rc;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_incl", group, n, ranks, newgroup, 0);
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_excl", group, n, ranks, newgroup, 1);
}

/* Expand (first, last, stride) triplets into a rank list. */
static int expand_ranges(const char *fn, const struct MPI_ABI_Group *g, int n,
                         int ranges[][3], int **out, int *count)
{
    if (n < 0 || (n > 0 && !ranges))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: invalid count %d or NULL ranges", fn, n);
    long long total = 0;
    for (int i = 0; i < n; i++) {
        int f = ranges[i][0], l = ranges[i][1], s = ranges[i][2];
        if (s == 0 || f < 0 || f >= g->size || l < 0 || l >= g->size ||
            (s > 0 && f > l) || (s < 0 && f < l))
            return mpir_error(NULL, MPI_ERR_RANK,
                              "%s: range %d (%d, %d, %d) invalid for a group of %d", fn, i, f, l,
                              s, g->size);
        total += (l - f) / s + 1;
        if (total > g->size)
            return mpir_error(NULL, MPI_ERR_RANK, "%s: ranges name more ranks than the group has",
                              fn);
    }
    int *r = ranks_buf((int)total), k = 0;
    if (!r)
        return no_mem(fn);
    for (int i = 0; i < n; i++)
        for (int v = ranges[i][0];
             ranges[i][2] > 0 ? v <= ranges[i][1] : v >= ranges[i][1]; v += ranges[i][2])
            r[k++] = v;
    *out = r;
    *count = k;
    return 0;
}

static int range_op(const char *fn, MPI_Group group, int n, int ranges[][3], MPI_Group *out,
                    int excl)
{
    struct MPI_ABI_Group *g;
    int rc, *r = NULL, k = 0; /* set by expand_ranges; initialised for -O3 -Werror */
    if ((rc = group_check(fn, group, &g)) || (rc = expand_ranges(fn, g, n, ranges, &r, &k)))
        return rc;
    rc = incl_excl(fn, group, k, r, out, excl);
    free(r);
    return rc;
}

int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_op("MPI_Group_range_incl", group, n, ranges, newgroup, 0);
}

int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_op("MPI_Group_range_excl", group, n, ranges, newgroup, 1);
}
