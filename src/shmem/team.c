/*
 * team.c — teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, split_strided,
 * split_2d, queries, destroy; the active sets of the deprecated collectives.
 *
 * A team is its member list (strided in TEAM_WORLD's numbering, or a list)
 * and my index in it.  Nothing is exchanged to make one: every parent member
 * computes the same members from the arguments, and the team's barrier
 * (sync.c) needs no per-team state.
 */
#include <stdio.h>
#include <stdlib.h>

#include "shmemi.h"

struct shmemi_team shmemi_team_world, shmemi_team_shared;

static int index_of(const struct shmemi_team *t, int pe)
{
    if (!t->list) {
        int d = pe - t->start;
        if (t->stride == 0)
            return d == 0 && t->n > 0 ? 0 : -1;
        if (d % t->stride)
            return -1;
        int i = d / t->stride;
        return i >= 0 && i < t->n ? i : -1;
    }
    for (int i = 0; i < t->n; i++)
        if (t->list[i] == pe)
            return i;
    return -1;
}

int shmemi_teams_init(void)
{
    struct shmemi_team *w = &shmemi_team_world, *s = &shmemi_team_shared;
    *w = (struct shmemi_team){.n = shmemi.npes, .my = shmemi.me, .start = 0, .stride = 1,
                              .predefined = 1};
    /* SHARED: the PEs whose memory I map (shmem_ptr works among them). */
    *s = (struct shmemi_team){.predefined = 1};
    s->list = malloc((size_t)shmemi.npes * sizeof *s->list);
    if (!s->list)
        return -1;
    for (int p = 0; p < shmemi.npes; p++)
        if (shmemi.heap.peer[p])
            s->list[s->n++] = p;
    s->my = index_of(s, shmemi.me);
    return 0;
}

void shmemi_teams_finalize(void)
{
    free(shmemi_team_shared.list);
    shmemi_team_shared.list = NULL;
}

void shmemi_check_team(shmem_team_t team, const char *call)
{
    shmemi_check_init(call);
    if (!team)
        shmemi_fatal(call, "invalid team (SHMEM_TEAM_INVALID)");
}

void shmemi_active_set(struct shmemi_team *t, int start, int log_stride, int size,
                       const char *call)
{
    shmemi_check_init(call);
    if (log_stride < 0 || log_stride > 30 || size < 1 || start < 0 ||
        start + (long long)(size - 1) * (1LL << log_stride) >= shmemi.npes)
        shmemi_fatal(call, "invalid active set: PE_start %d, logPE_stride %d, PE_size %d "
                           "(the job has PEs 0..%d)", start, log_stride, size, shmemi.npes - 1);
    *t = (struct shmemi_team){.n = size, .start = start, .stride = 1 << log_stride};
    t->my = index_of(t, shmemi.me);
    if (t->my < 0)
        shmemi_fatal(call, "PE %d is not in the active set (PE_start %d, logPE_stride %d, "
                           "PE_size %d)", shmemi.me, start, log_stride, size);
}

int shmem_team_my_pe(shmem_team_t team)
{
    if (!team) /* SHMEM_TEAM_INVALID: -1, as the standard says */
        return -1;
    shmemi_check_init("shmem_team_my_pe");
    return team->my;
}

int shmem_team_n_pes(shmem_team_t team)
{
    if (!team)
        return -1;
    shmemi_check_init("shmem_team_n_pes");
    return team->n;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    shmemi_check_init("shmem_team_get_config");
    if (!team)
        return -1;
    if (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS)
        shmemi_fatal("shmem_team_get_config", "unknown config_mask bits 0x%lx", config_mask);
    if (!config)
        shmemi_fatal("shmem_team_get_config", "config is NULL");
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    shmemi_check_init("shmem_team_translate_pe");
    if (!src_team || !dest_team || src_pe < 0 || src_pe >= src_team->n)
        return -1;
    return index_of(dest_team, shmemi_member(src_team, src_pe));
}

/* A new team of the parent's members start, start+stride, ... (parent
 * numbering); NULL-team (SHMEM_TEAM_INVALID) for PEs outside it. */
static int make_team(shmem_team_t parent, int start, int stride, int size,
                     const shmem_team_config_t *config, long mask, shmem_team_t *out)
{
    struct shmemi_team *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    t->n = size;
    /* Strided in the parent, which is strided in WORLD: strided in WORLD. */
    if (!parent->list) {
        t->start = parent->start + start * parent->stride;
        t->stride = parent->stride * stride;
    } else {
        t->list = malloc((size_t)size * sizeof *t->list);
        if (!t->list) {
            free(t);
            return -1;
        }
        for (int i = 0; i < size; i++)
            t->list[i] = parent->list[start + i * stride];
    }
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        t->config.num_contexts = config->num_contexts;
    t->my = index_of(t, shmemi.me);
    if (t->my < 0) {
        free(t->list);
        free(t);
        t = NULL;
    }
    *out = t;
    return 0;
}

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    const char *call = "shmem_team_split_strided";
    shmemi_check_init(call);
    if (!new_team)
        shmemi_fatal(call, "new_team is NULL");
    *new_team = SHMEM_TEAM_INVALID;
    if (!parent || parent->my < 0)
        return -1; /* no team from SHMEM_TEAM_INVALID */
    if (config_mask & ~SHMEM_TEAM_NUM_CONTEXTS)
        shmemi_fatal(call, "unknown config_mask bits 0x%lx", config_mask);
    long long last = start + (long long)(size - 1) * stride;
    if (size < 1 || start < 0 || start >= parent->n || last < 0 || last >= parent->n ||
        (stride == 0 && size > 1)) {
        /* a bad triplet is the caller's to see: an error return, no team */
        fprintf(stderr, "shmem: PE %d: %s: start %d, stride %d, size %d do not fit the parent team "
                        "of %d PEs\n", shmemi.me, call, start, stride, size, parent->n);
        shmemi_team_sync(parent);
        return -1;
    }
    shmemi_team_sync(parent); /* collective over the parent */
    return make_team(parent, start, stride, size, config, config_mask, new_team);
}

int shmem_team_split_2d(shmem_team_t parent, int xrange, const shmem_team_config_t *xaxis_config,
                        long xaxis_mask, shmem_team_t *xaxis_team,
                        const shmem_team_config_t *yaxis_config, long yaxis_mask,
                        shmem_team_t *yaxis_team)
{
    const char *call = "shmem_team_split_2d";
    shmemi_check_init(call);
    if (!xaxis_team || !yaxis_team)
        shmemi_fatal(call, "xaxis_team (%p) and yaxis_team (%p) must not be NULL",
                     (void *)xaxis_team, (void *)yaxis_team);
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (!parent)
        return -1;
    if (xrange < 1)
        shmemi_fatal(call, "xrange %d must be at least 1", xrange);
    if ((xaxis_mask | yaxis_mask) & ~SHMEM_TEAM_NUM_CONTEXTS)
        shmemi_fatal(call, "unknown config mask bits 0x%lx", xaxis_mask | yaxis_mask);
    if (parent->my < 0)
        return -1;
    int n = parent->n, x = xrange > n ? n : xrange;
    int row = parent->my / x, col = parent->my % x;
    int xsize = n - row * x < x ? n - row * x : x;   /* the last row may be short */
    int ysize = (n - col + x - 1) / x;
    shmemi_team_sync(parent);
    if (make_team(parent, row * x, 1, xsize, xaxis_config, xaxis_mask, xaxis_team) ||
        make_team(parent, col, x, ysize, yaxis_config, yaxis_mask, yaxis_team))
        return -1;
    return 0;
}

void shmem_team_destroy(shmem_team_t team)
{
    shmemi_check_init("shmem_team_destroy");
    if (!team)
        return; /* SHMEM_TEAM_INVALID: nothing to do */
    if (team->predefined)
        shmemi_fatal("shmem_team_destroy", "SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED cannot be "
                                           "destroyed");
    free(team->list);
    free(team);
}

void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    shmemi_check_init("shmem_team_ptr");
    if (!team || pe < 0 || pe >= team->n)
        return NULL;
    return shmemi_ptr(dest, shmemi_member(team, pe));
}
