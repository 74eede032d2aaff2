/*
 * pmi_ring — the first Skiff demo: ranks meet through the launcher's PMI
 * key-value space alone (no channels yet).
 *
 * Each rank publishes "<host> <pid>", fences, and reads its left neighbour's
 * entry.  Then a token goes once around the ring as a chain of puts and
 * fences: at hop i, rank i % size reads token.<i-1>, adds its rank and puts
 * token.<i>.  Back at rank 0 it must equal 0+1+...+(size-1).  Every rank
 * publishes its result line; rank 0 prints them in rank order.  The exit
 * status is non-zero if anything did not add up.
 */
#include "boot/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static boot_info_t *info;

static void die(const char *what, int rc)
{
    fprintf(stderr, "pmi_ring: rank %d: %s failed: %s\n", info ? info->rank : -1, what,
            strerror(-rc));
    exit(1);
}

static long get_long(const char *key)
{
    char value[BOOT_VAL_MAX];
    int rc = boot_get(key, value, sizeof value);
    if (rc)
        die(key, rc);
    return atol(value);
}

static void put_long(const char *key, long v)
{
    char value[32];
    snprintf(value, sizeof value, "%ld", v);
    int rc = boot_put(key, value);
    if (rc)
        die(key, rc);
}

int main(void)
{
    int rc;
    if ((rc = boot_init(&info)))
        die("boot_init", rc);
    int rank = info->rank, size = info->size, left = (rank + size - 1) % size;
    char key[BOOT_KEY_MAX], value[BOOT_VAL_MAX], host[256];

    /* Who am I: "<host> <pid>" (the space travels escaped). */
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "unknown");
    host[sizeof host - 1] = '\0';
    snprintf(key, sizeof key, "where.%d", rank);
    snprintf(value, sizeof value, "%s %d", host, (int)getpid());
    if ((rc = boot_put(key, value)) || (rc = boot_fence()))
        die("publishing host and pid", rc);
    char left_host[256];
    int left_pid;
    snprintf(key, sizeof key, "where.%d", left);
    if ((rc = boot_get(key, value, sizeof value)))
        die("reading the left neighbour", rc);
    if (sscanf(value, "%255s %d", left_host, &left_pid) != 2) {
        fprintf(stderr, "pmi_ring: rank %d: left neighbour wrote '%s'\n", rank, value);
        return 1;
    }

    /* The token: one hop per fence, each holder adds its rank. */
    long token_in = -1, token_out = -1;
    if (rank == 0)
        put_long("token.0", 0);
    for (int hop = 1; hop <= size; hop++) {
        if ((rc = boot_fence()))
            die("boot_fence", rc);
        if (hop % size != rank)
            continue;
        snprintf(key, sizeof key, "token.%d", hop - 1);
        token_in = get_long(key);
        token_out = token_in + rank;
        snprintf(key, sizeof key, "token.%d", hop);
        put_long(key, token_out);
    }
    if ((rc = boot_fence()))
        die("boot_fence", rc);
    snprintf(key, sizeof key, "token.%d", size);
    long around = get_long(key);
    long expect = (long)size * (size - 1) / 2;

    /* Each rank's line goes through PMI too; rank 0 prints them in rank order
     * (lines printed by each rank would reach the terminal in any order). */
    snprintf(key, sizeof key, "line.%d", rank);
    snprintf(value, sizeof value,
             "rank %d/%d: left neighbour rank %d on host %s pid %d; node %d (local %d/%d); "
             "token %ld -> %ld",
             rank, size, left, left_host, left_pid, info->node_of_rank[rank], info->local_rank,
             info->local_size, token_in, token_out);
    if ((rc = boot_put(key, value)) || (rc = boot_fence()))
        die("publishing the result line", rc);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            snprintf(key, sizeof key, "line.%d", r);
            if ((rc = boot_get(key, value, sizeof value)))
                die(key, rc);
            printf("%s\n", value);
        }
        printf("ring: the token went around %d ranks and came back as %ld (expected %ld): %s\n",
               size, around, expect, around == expect ? "ok" : "WRONG");
    }
    fflush(stdout);
    if ((rc = boot_finalize()))
        die("boot_finalize", rc);
    return around == expect ? 0 : 1;
}
