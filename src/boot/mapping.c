/*
 * mapping — PMI_process_mapping parser (see mapping.h for the format).
 *
 * A small recursive-descent reader over the string: every token is checked,
 * numbers are bounded before they can overflow, and the assignment loop is
 * bounded by the rank count, so garbage costs at most one pass over the text.
 */
#include "boot/mapping.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define MAPPING_MAX_BLOCKS 512   /* the text is one PMI value (<= 1 KiB), so far fewer fit */
#define MAPPING_NUM_MAX (1 << 30) /* a node id, node count or ranks per node this big is garbage */

typedef struct mapping_block {
    int start;    /* first node id           */
    int count;    /* nodes in the block      */
    int per_node; /* consecutive ranks each  */
} mapping_block_t;

static void skip_space(const char **p)
{
    while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
        (*p)++;
}

/* Expect the literal tok (after optional whitespace). */
static int eat(const char **p, const char *tok)
{
    skip_space(p);
    size_t n = strlen(tok);
    if (strncmp(*p, tok, n) != 0)
        return -EINVAL;
    *p += n;
    return 0;
}

/* Non-negative decimal number below MAPPING_NUM_MAX. */
static int read_num(const char **p, int *out)
{
    skip_space(p);
    if (**p < '0' || **p > '9')
        return -EINVAL;
    long long v = 0;
    while (**p >= '0' && **p <= '9') {
        v = v * 10 + (**p - '0');
        if (v >= MAPPING_NUM_MAX)
            return -EINVAL;
        (*p)++;
    }
    *out = (int)v;
    return 0;
}

static int read_block(const char **p, mapping_block_t *b)
{
    if (eat(p, "(") || read_num(p, &b->start) || eat(p, ",") || read_num(p, &b->count) ||
        eat(p, ",") || read_num(p, &b->per_node) || eat(p, ")"))
        return -EINVAL;
    if (b->count == 0 || b->per_node == 0 || b->start > INT_MAX - b->count)
        return -EINVAL;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Replace node ids by their index among the distinct ids (ascending). */
static int renumber(int size, int *node_of_rank, int *num_nodes)
{
    int *ids = malloc((size_t)size * sizeof *ids);
    if (!ids)
        return -ENOMEM;
    memcpy(ids, node_of_rank, (size_t)size * sizeof *ids);
    qsort(ids, (size_t)size, sizeof *ids, cmp_int);
    int n = 0;
    for (int i = 0; i < size; i++)
        if (i == 0 || ids[i] != ids[n - 1])
            ids[n++] = ids[i];
    for (int r = 0; r < size; r++) {
        const int *hit = bsearch(&node_of_rank[r], ids, (size_t)n, sizeof *ids, cmp_int);
        node_of_rank[r] = (int)(hit - ids);
    }
    free(ids);
    *num_nodes = n;
    return 0;
}

int boot_mapping_parse(const char *text, int size, int *node_of_rank, int *num_nodes)
{
    if (!text || size <= 0 || !node_of_rank || !num_nodes)
        return -EINVAL;
    mapping_block_t blocks[MAPPING_MAX_BLOCKS]; /* 6 KiB of stack */
    int nblocks = 0;
    const char *p = text;
    if (eat(&p, "(") || eat(&p, "vector"))
        return -EINVAL;
    do {
        if (nblocks == MAPPING_MAX_BLOCKS || eat(&p, ",") || read_block(&p, &blocks[nblocks]))
            return -EINVAL;
        nblocks++;
        skip_space(&p);
    } while (*p == ',');
    if (eat(&p, ")"))
        return -EINVAL;
    skip_space(&p);
    if (*p != '\0')
        return -EINVAL;

    /* Hand out ranks block by block, repeating the blocks until all have a
     * node; each pass gives out at least one rank, so this ends. */
    int rank = 0;
    while (rank < size)
        for (int b = 0; b < nblocks && rank < size; b++)
            for (int i = 0; i < blocks[b].count && rank < size; i++)
                for (int j = 0; j < blocks[b].per_node && rank < size; j++)
                    node_of_rank[rank++] = blocks[b].start + i;
    return renumber(size, node_of_rank, num_nodes);
}
