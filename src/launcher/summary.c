/* summary — one line per distinct Skiff message of the ranks (see summary.h). */
#include "summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RANKS_SHOWN_MAX 160 /* characters of rank list before "... (N ranks)" */

static const char *const prefixes[] = {"skiff MPI", "skiff boot", "skiff"};

void summary_init(summary_t *s, int size, io_sink_t *sink)
{
    memset(s, 0, sizeof *s);
    s->size = size;
    s->sink = sink;
}

/* "rank R: " at p with R == rank: its length, else 0. */
static size_t own_rank_tag(const char *p, size_t len, int rank)
{
    char tag[32];
    int n = snprintf(tag, sizeof tag, "rank %d: ", rank);
    return (size_t)n <= len && memcmp(p, tag, (size_t)n) == 0 ? (size_t)n : 0;
}

static summary_group_t *find_group(summary_t *s, const char *prefix, const char *text, size_t n)
{
    for (int i = 0; i < s->ngroups; i++) {
        summary_group_t *g = &s->group[i];
        if (g->prefix == prefix && strlen(g->text) == n && memcmp(g->text, text, n) == 0)
            return g;
    }
    return NULL;
}

static summary_group_t *new_group(summary_t *s, const char *prefix, const char *text, size_t n)
{
    if (s->ngroups == SUMMARY_GROUPS_MAX)
        summary_flush(s);
    summary_group_t *g = &s->group[s->ngroups];
    g->text = malloc(n + 1);
    g->ranks = calloc((size_t)s->size / 8 + 1, 1);
    if (!g->text || !g->ranks) {
        free(g->text);
        free(g->ranks);
        return NULL;
    }
    memcpy(g->text, text, n);
    g->text[n] = '\0';
    g->prefix = prefix;
    g->count = 0;
    if (s->ngroups++ == 0)
        clock_gettime(CLOCK_MONOTONIC, &s->first);
    return g;
}

int summary_take(summary_t *s, int rank, const char *line, size_t len)
{
    if (rank < 0 || rank >= s->size || len > SUMMARY_TEXT_MAX || memchr(line, '\0', len))
        return 0;
    const char *prefix = NULL;
    size_t at = 0;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0] && !prefix; i++) {
        size_t n = strlen(prefixes[i]);
        if (len > n + 2 && memcmp(line, prefixes[i], n) == 0 && line[n] == ':' && line[n + 1] == ' ') {
            prefix = prefixes[i];
            at = n + 2;
        }
    }
    if (!prefix)
        return 0;
    at += own_rank_tag(line + at, len - at, rank);
    summary_group_t *g = find_group(s, prefix, line + at, len - at);
    if (!g && !(g = new_group(s, prefix, line + at, len - at)))
        return 0; /* out of memory: pass it on as it is */
    unsigned char bit = (unsigned char)(1u << (rank & 7));
    if (!(g->ranks[rank >> 3] & bit))
        g->count++;
    g->ranks[rank >> 3] |= bit;
    return 1;
}

int summary_ms_left(const summary_t *s)
{
    if (!s->ngroups)
        return -1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long waited = (long long)(now.tv_sec - s->first.tv_sec) * 1000 +
                       (now.tv_nsec - s->first.tv_nsec) / 1000000;
    return waited >= SUMMARY_HOLD_MS ? 0 : (int)(SUMMARY_HOLD_MS - waited);
}

static int has(const summary_group_t *g, int r) { return (g->ranks[r >> 3] >> (r & 7)) & 1; }

/* "rank 3" or "ranks 0,2-5,9", cut with "... (N ranks)" when long. */
static void format_ranks(const summary_t *s, const summary_group_t *g, char *out, size_t cap)
{
    size_t n = (size_t)snprintf(out, cap, "rank%s ", g->count == 1 ? "" : "s");
    int first = 1;
    for (int r = 0; r < s->size; r++) {
        if (!has(g, r))
            continue;
        int end = r;
        while (end + 1 < s->size && has(g, end + 1))
            end++;
        char piece[32];
        int k = end == r ? snprintf(piece, sizeof piece, "%s%d", first ? "" : ",", r)
                         : snprintf(piece, sizeof piece, "%s%d-%d", first ? "" : ",", r, end);
        if (n + (size_t)k > RANKS_SHOWN_MAX) {
            snprintf(out + n, cap - n, ",... (%d ranks)", g->count);
            return;
        }
        memcpy(out + n, piece, (size_t)k + 1);
        n += (size_t)k;
        first = 0;
        r = end;
    }
}

void summary_flush(summary_t *s)
{
    for (int i = 0; i < s->ngroups; i++) {
        summary_group_t *g = &s->group[i];
        char ranks[RANKS_SHOWN_MAX + 48], line[SUMMARY_TEXT_MAX + sizeof ranks + 16];
        format_ranks(s, g, ranks, sizeof ranks);
        snprintf(line, sizeof line, "%s: %s: %s", g->prefix, ranks, g->text);
        io_sink_message(s->sink, line);
        free(g->text);
        free(g->ranks);
    }
    s->ngroups = 0;
}

void summary_free(summary_t *s)
{
    for (int i = 0; i < s->ngroups; i++) {
        free(s->group[i].text);
        free(s->group[i].ranks);
    }
    s->ngroups = 0;
}
