/*
 * mapping_test — PMI_process_mapping parser against good and hostile strings.
 * Runs alone (no launcher): the parser is a pure function.
 */
#include "boot/mapping.h"
#include "testutil.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Parse text for size ranks and compare with want[size] and want_nodes. */
static void expect_map(const char *text, int size, const int *want, int want_nodes)
{
    int got[64], nodes = -1;
    for (int i = 0; i < 64; i++)
        got[i] = -7;
    int rc = boot_mapping_parse(text, size, got, &nodes);
    if (rc != 0)
        fprintf(stderr, "mapping '%s' size %d: rc %d\n", text, size, rc);
    CHECK_EQ_INT(rc, 0);
    CHECK_EQ_INT(nodes, want_nodes);
    for (int r = 0; r < size; r++) {
        if (got[r] != want[r])
            fprintf(stderr, "mapping '%s' size %d: rank %d on node %d, want %d\n", text, size, r,
                    got[r], want[r]);
        CHECK_EQ_INT(got[r], want[r]);
    }
    CHECK_EQ_INT(got[size], -7); /* nothing written past the end */
}

static void expect_garbage(const char *text, int size)
{
    int got[64], nodes = -1;
    int rc = boot_mapping_parse(text, size, got, &nodes);
    if (rc != -EINVAL)
        fprintf(stderr, "mapping '%s' size %d: rc %d, want -EINVAL\n", text, size, rc);
    CHECK_EQ_INT(rc, -EINVAL);
}

int main(void)
{
    /* One node, as hydra says for any rank count. */
    expect_map("(vector,(0,1,1))", 1, (int[]){0}, 1);
    expect_map("(vector,(0,1,1))", 5, (int[]){0, 0, 0, 0, 0}, 1);
    expect_map("(vector,(0,1,4))", 4, (int[]){0, 0, 0, 0}, 1);
    /* Two nodes, two ranks each; then the block repeats. */
    expect_map("(vector,(0,2,2))", 4, (int[]){0, 0, 1, 1}, 2);
    expect_map("(vector,(0,2,2))", 6, (int[]){0, 0, 1, 1, 0, 0}, 2);
    expect_map("(vector,(0,2,2))", 3, (int[]){0, 0, 1}, 2);
    /* Round robin: one rank per node per turn. */
    expect_map("(vector,(0,3,1))", 7, (int[]){0, 1, 2, 0, 1, 2, 0}, 3);
    /* Several blocks: 3 ranks on node 0, 1 on node 1. */
    expect_map("(vector,(0,1,3),(1,1,1))", 4, (int[]){0, 0, 0, 1}, 2);
    expect_map("(vector,(0,1,3),(1,1,1))", 8, (int[]){0, 0, 0, 1, 0, 0, 0, 1}, 2);
    expect_map("(vector,(0,1,2),(1,2,1),(3,1,2))", 6, (int[]){0, 0, 1, 2, 3, 3}, 4);
    /* Whitespace anywhere between tokens. */
    expect_map("  ( vector , ( 0 , 2 , 1 ) ,\t(2,1,2) )  \n", 4, (int[]){0, 1, 2, 2}, 3);
    /* Ids that skip numbers are renumbered densely, in ascending order. */
    expect_map("(vector,(7,1,1),(3,1,1))", 2, (int[]){1, 0}, 2);
    expect_map("(vector,(1000000,2,1))", 2, (int[]){0, 1}, 2);
    /* Fewer ranks than the mapping describes: the rest is unused. */
    expect_map("(vector,(0,4,4))", 2, (int[]){0, 0}, 1);

    /* Hostile or broken text. */
    const char *garbage[] = {
        "",
        " ",
        "vector",
        "(vector)",
        "(vector,)",
        "(vector,())",
        "(vector,(0,1))",
        "(vector,(0,1,1,1))",
        "(vector,(0,1,1)",
        "(vector,(0,1,1)))",
        "(vector,(0,1,1)) trailing",
        "(vector,(0,1,1),)",
        "(vector;(0,1,1))",
        "(vectors,(0,1,1))",
        "(VECTOR,(0,1,1))",
        "(hash,(0,1,1))",
        "(vector,(-1,1,1))",
        "(vector,(0,-1,1))",
        "(vector,(0,1,-1))",
        "(vector,(0,0,1))",     /* no nodes */
        "(vector,(0,1,0))",     /* no ranks */
        "(vector,(0,1,0),(0,0,5))",
        "(vector,(a,1,1))",
        "(vector,(0,1,1x))",
        "(vector,(0x1,1,1))",
        "(vector,(+1,1,1))",
        "(vector,(1 1,1,1))",
        "(vector,(99999999999999999999999,1,1))", /* would overflow */
        "(vector,(2147483647,1,1))",              /* above the id bound */
        "(vector,(1073741824,1,1))",              /* 2^30: at the id bound */
        "(vector,(0,1,1))\x01",
        "(vector,(0,1,1))(vector,(0,1,1))",
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++)
        expect_garbage(garbage[i], 4);
    /* Bad arguments. */
    int out[4], nodes;
    CHECK_EQ_INT(boot_mapping_parse(NULL, 4, out, &nodes), -EINVAL);
    CHECK_EQ_INT(boot_mapping_parse("(vector,(0,1,1))", 0, out, &nodes), -EINVAL);
    CHECK_EQ_INT(boot_mapping_parse("(vector,(0,1,1))", -3, out, &nodes), -EINVAL);

    /* Too many blocks (more than any 1 KiB value holds) and a huge string:
     * rejected without overflow. */
    size_t big = 64 * 1024;
    char *s = malloc(big + 64);
    CHECK(s != NULL);
    strcpy(s, "(vector");
    size_t len = strlen(s);
    while (len + 16 < big) {
        memcpy(s + len, ",(0,1,1)", 8);
        len += 8;
    }
    strcpy(s + len, ")");
    expect_garbage(s, 4);
    /* A long run of digits. */
    strcpy(s, "(vector,(");
    memset(s + 9, '9', big - 20);
    strcpy(s + 9 + big - 20, ",1,1))");
    expect_garbage(s, 4);
    /* Unbalanced opening parens. */
    memset(s, '(', big);
    s[big] = '\0';
    expect_garbage(s, 4);
    free(s);

    /* Large counts with few ranks end quickly (the loop is bounded by size). */
    expect_map("(vector,(0,1000000,1000000))", 3, (int[]){0, 0, 0}, 1);
    printf("mapping_test: ok\n");
    return 0;
}
