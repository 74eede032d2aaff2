/*
 * boot_test — the boot interface seen from one rank of a real job.
 *
 *   boot_test N [--singleton] [--one-node] [--abort CODE]
 *
 * N is the size the job must have.  Every rank checks its place (rank, size,
 * node-local lists), then all ranks exchange values all-to-all over several
 * fences — including long values full of spaces, '=' and '%' that must come
 * back byte for byte — and each rank checks the error codes of bad calls.
 * --abort: rank size-1 calls boot_abort(CODE) after the first fence; the job
 * must end with that code (the caller checks).
 */
#include "boot/boot.h"
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static boot_info_t *info;

static void check_info(int expect_size, int singleton, int one_node)
{
    boot_info_t *again;
    CHECK_EQ_INT(boot_init(&again), 0);
    CHECK(again == info); /* a second boot_init returns the same information */
    CHECK_EQ_INT(info->size, expect_size);
    CHECK(info->rank >= 0 && info->rank < info->size);
    CHECK_EQ_INT(info->singleton, singleton);
    CHECK(info->universe_size >= info->size);
    CHECK_EQ_INT(strlen(info->job_key) > 0 && strlen(info->job_key) <= 32, 1);
    CHECK(info->kvsname[0] != '\0');
    CHECK(info->num_nodes >= 1 && info->num_nodes <= info->size);
    if (one_node)
        CHECK_EQ_INT(info->num_nodes, 1);
    /* My node's list: ascending, contains me at local_rank, and is exactly the
     * ranks node_of_rank puts on my node. */
    int my_node = info->node_of_rank[info->rank], on_my_node = 0;
    for (int r = 0; r < info->size; r++) {
        CHECK(info->node_of_rank[r] >= 0 && info->node_of_rank[r] < info->num_nodes);
        on_my_node += info->node_of_rank[r] == my_node;
    }
    CHECK_EQ_INT(info->local_size, on_my_node);
    CHECK(info->local_rank >= 0 && info->local_rank < info->local_size);
    CHECK_EQ_INT(info->local_ranks[info->local_rank], info->rank);
    for (int i = 0; i < info->local_size; i++) {
        CHECK_EQ_INT(info->node_of_rank[info->local_ranks[i]], my_node);
        if (i)
            CHECK(info->local_ranks[i] > info->local_ranks[i - 1]);
    }
}

/* The value rank r publishes under key "<tag>.r" in round `round`. */
static void value_of(char *out, size_t cap, const char *tag, int round, int r)
{
    snprintf(out, cap, "%s round=%d rank=%d 100%% sure, a=b=c %%20 not an escape", tag, round, r);
}

/* A long value: 700 bytes, one in seven a space, '=' or '%'.  Escaped it
 * takes 900 bytes, within hydra's 1023. */
static void long_value_of(char *out, int r)
{
    const char specials[] = " =%";
    for (int i = 0; i < 700; i++)
        out[i] = i % 7 == 0 ? specials[(i / 7) % 3] : (char)('a' + (i + r) % 26);
    out[700] = '\0';
}

static void exchange_all_to_all(int rounds)
{
    char key[BOOT_KEY_MAX], want[BOOT_VAL_MAX], got[BOOT_VAL_MAX];
    for (int round = 0; round < rounds; round++) {
        snprintf(key, sizeof key, "a2a.%d.%d", round, info->rank);
        value_of(want, sizeof want, "a2a", round, info->rank);
        CHECK_EQ_INT(boot_put(key, want), 0);
        CHECK_EQ_INT(boot_fence(), 0);
        for (int r = 0; r < info->size; r++) {
            snprintf(key, sizeof key, "a2a.%d.%d", round, r);
            value_of(want, sizeof want, "a2a", round, r);
            memset(got, 'X', sizeof got);
            CHECK_EQ_INT(boot_get(key, got, sizeof got), 0);
            CHECK(strcmp(got, want) == 0);
        }
    }
}

static void exchange_long_values(void)
{
    char key[BOOT_KEY_MAX], want[BOOT_VAL_MAX], got[BOOT_VAL_MAX];
    /* 1023 plain bytes: the longest value, fits every launcher unescaped. */
    char longest[BOOT_VAL_MAX];
    memset(longest, 'L', BOOT_VAL_MAX - 1);
    longest[BOOT_VAL_MAX - 1] = '\0';
    snprintf(key, sizeof key, "longest.%d", info->rank);
    CHECK_EQ_INT(boot_put(key, longest), 0);
    snprintf(key, sizeof key, "long.%d", info->rank);
    long_value_of(want, info->rank);
    CHECK_EQ_INT(boot_put(key, want), 0);
    snprintf(key, sizeof key, "empty.%d", info->rank);
    CHECK_EQ_INT(boot_put(key, ""), 0);
    /* 1023 '%': 3069 bytes escaped.  A launcher may refuse it (-EMSGSIZE, as
     * hydra's 1024-byte limit must); if it takes it, it must come back whole. */
    char percents[BOOT_VAL_MAX];
    memset(percents, '%', BOOT_VAL_MAX - 1);
    percents[BOOT_VAL_MAX - 1] = '\0';
    snprintf(key, sizeof key, "percents.%d", info->rank);
    int percents_rc = boot_put(key, percents);
    CHECK(percents_rc == 0 || percents_rc == -EMSGSIZE);
    CHECK_EQ_INT(boot_fence(), 0);

    for (int r = 0; r < info->size; r++) {
        int peer = (info->rank + r) % info->size;
        snprintf(key, sizeof key, "longest.%d", peer);
        CHECK_EQ_INT(boot_get(key, got, sizeof got), 0);
        CHECK(strcmp(got, longest) == 0);
        snprintf(key, sizeof key, "long.%d", peer);
        long_value_of(want, peer);
        CHECK_EQ_INT(boot_get(key, got, sizeof got), 0);
        CHECK(strcmp(got, want) == 0);
        snprintf(key, sizeof key, "empty.%d", peer);
        strcpy(got, "not empty");
        CHECK_EQ_INT(boot_get(key, got, sizeof got), 0);
        CHECK_EQ_INT(strlen(got), 0);
    }
    if (percents_rc == 0) {
        snprintf(key, sizeof key, "percents.%d", info->rank);
        CHECK_EQ_INT(boot_get(key, got, sizeof got), 0);
        CHECK(strcmp(got, percents) == 0);
    }
    /* A buffer too small for the value. */
    snprintf(key, sizeof key, "long.%d", info->rank);
    CHECK_EQ_INT(boot_get(key, got, 10), -ENOSPC);
}

static void check_bad_calls(void)
{
    char key[BOOT_KEY_MAX + 8], value[BOOT_VAL_MAX + 8], got[BOOT_VAL_MAX];
    memset(key, 'k', sizeof key);
    key[BOOT_KEY_MAX] = '\0'; /* BOOT_KEY_MAX bytes: one too many */
    CHECK_EQ_INT(boot_put(key, "v"), -ENAMETOOLONG);
    CHECK_EQ_INT(boot_get(key, got, sizeof got), -ENAMETOOLONG);
    memset(value, 'v', sizeof value);
    value[BOOT_VAL_MAX] = '\0'; /* BOOT_VAL_MAX bytes: one too many */
    CHECK_EQ_INT(boot_put("toolong", value), -EMSGSIZE);
    CHECK_EQ_INT(boot_put("", "v"), -EINVAL);
    CHECK_EQ_INT(boot_put("two words", "v"), -EINVAL);
    CHECK_EQ_INT(boot_put("a=b", "v"), -EINVAL);
    CHECK_EQ_INT(boot_get("no.such.key", got, sizeof got), -ENOENT);
    CHECK_EQ_INT(boot_get("toolong", got, sizeof got), -ENOENT); /* the refused put left nothing */
    /* The longest key the launcher takes is fine (hydra: 63 bytes). */
    char longest_key[BOOT_KEY_MAX];
    snprintf(longest_key, sizeof longest_key, "%d.", info->rank);
    size_t n = strlen(longest_key);
    memset(longest_key + n, 'K', BOOT_KEY_MAX - 1 - n);
    longest_key[BOOT_KEY_MAX - 1] = '\0';
    CHECK_EQ_INT(boot_put(longest_key, "long key"), 0);
    CHECK_EQ_INT(boot_fence(), 0);
    CHECK_EQ_INT(boot_get(longest_key, got, sizeof got), 0);
    CHECK(strcmp(got, "long key") == 0);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s SIZE [--singleton] [--one-node] [--abort CODE]\n", argv[0]);
        return 2;
    }
    int expect_size = atoi(argv[1]), singleton = 0, one_node = 0, abort_code = -1;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--singleton") == 0)
            singleton = 1;
        else if (strcmp(argv[i], "--one-node") == 0)
            one_node = 1;
        else if (strcmp(argv[i], "--abort") == 0 && i + 1 < argc)
            abort_code = atoi(argv[++i]);
        else {
            fprintf(stderr, "boot_test: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    CHECK_EQ_INT(boot_put("early", "v"), -ENOTCONN); /* before boot_init */
    CHECK_EQ_INT(boot_init(&info), 0);
    testutil_rank = info->rank;
    check_info(expect_size, singleton, one_node);
    if (abort_code >= 0) {
        CHECK_EQ_INT(boot_fence(), 0);
        if (info->rank == info->size - 1)
            boot_abort(abort_code, "boot_test: aborting on purpose");
        for (;;)
            pause(); /* the launcher must end us */
    }
    exchange_all_to_all(3);
    exchange_long_values();
    check_bad_calls();
    CHECK_EQ_INT(boot_fence(), 0);
    CHECK_EQ_INT(boot_finalize(), 0);
    CHECK_EQ_INT(boot_finalize(), 0); /* twice is harmless */
    CHECK_EQ_INT(boot_put("late", "v"), -EPIPE);
    printf("boot_test: rank %d of %d ok (node %d of %d, local %d of %d)\n", info->rank,
           info->size, info->node_of_rank[info->rank], info->num_nodes, info->local_rank,
           info->local_size);
    return 0;
}
