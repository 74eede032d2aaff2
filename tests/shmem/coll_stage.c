/* coll_stage.c — the node mates' collectives (docs/shmem.md, "Collectives"):
 * broadcast, fcollect, collect and alltoall at sizes below, at and above
 * what a PE stages in a scratch half (64 KiB less a 64-byte header), back to
 * back with no barrier between calls, the source overwritten as soon as a
 * call returns (a root or member must not return while its source is still
 * to be read), roots changing every call, on the world team and on odd and
 * strided teams in turn (one scratch serves every team), and a collect whose
 * members' contributions are partly staged and partly read in place.  Every
 * byte is checked against the pattern its owner wrote (serial reference).
 * Over tcp and between hosts the same calls take the channel algorithms. */
#include <stdio.h>
#include <stdlib.h>

#include "shtest.h"

#define SCRATCH_DATA ((size_t)(64 << 10) - 64) /* coll.c's STAGE_MAX: half the scratch less the header */
#define BIG ((size_t)200000)                  /* well above it */

static unsigned char *src, *dst; /* symmetric, BIG * npes each */

/* Member index of world PE p in a (start, stride, n) team, or -1. */
static int index_in(int start, int stride, int n, int p)
{
    if (p < start || (p - start) % stride)
        return -1;
    int i = (p - start) / stride;
    return i < n ? i : -1;
}

/* Size of member j's collect contribution in round r: small and staged for
 * some, too large to stage (read in place) for others. */
static size_t collect_len(int j, int r) { return (j + r) % 3 == 2 ? SCRATCH_DATA + 1 + (size_t)j : (size_t)(j * 97 + r); }

static void on_team(shmem_team_t team, int start, int stride, int round0)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    CHECK(index_in(start, stride, tn, me) == tme);
    const size_t sizes[] = {1, 8, 4097, SCRATCH_DATA, SCRATCH_DATA + 1, BIG};
    int round = round0;
    /* broadcast: every size, roots changing each call, no barrier between,
     * the root's source scribbled right after the call */
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
        for (int r = 0; r < tn; r++, round++) {
            int root = (r * 5 + (int)k) % tn;
            size_t n = sizes[k];
            fill(src, n, root, round);
            memset(dst, 0xee, n + 1);
            CHECK(shmem_broadcastmem(team, dst, src, n, root) == 0);
            memset(src, 0x5a, n); /* reusing the source at once is allowed */
            CHECK_PATTERN(dst, n, root, round);
            CHECK(dst[n] == 0xee);
        }
    /* fcollect and alltoall: blocks below and above the scratch (alltoall
     * stages all tn of its blocks or none) */
    const size_t blocks[] = {8, 1000, SCRATCH_DATA / 4 + 3, SCRATCH_DATA + 5};
    for (size_t k = 0; k < sizeof blocks / sizeof *blocks; k++, round++) {
        size_t b = blocks[k];
        fill(src, b, me, round);
        memset(dst, 0xee, b * (size_t)tn + 1);
        CHECK(shmem_fcollectmem(team, dst, src, b) == 0);
        memset(src, 0x5a, b);
        for (int j = 0; j < tn; j++)
            CHECK_PATTERN(dst + (size_t)j * b, b, start + j * stride, round);
        CHECK(dst[b * (size_t)tn] == 0xee);
        if (b * (size_t)tn > BIG) /* alltoall's source holds tn blocks */
            continue;
        for (int j = 0; j < tn; j++) /* block j: for member j, tagged with it */
            fill(src + (size_t)j * b, b, me, round * 8 + j);
        memset(dst, 0xee, b * (size_t)tn + 1);
        CHECK(shmem_alltoallmem(team, dst, src, b) == 0);
        memset(src, 0x5a, b * (size_t)tn);
        for (int j = 0; j < tn; j++)
            CHECK_PATTERN(dst + (size_t)j * b, b, start + j * stride, round * 8 + tme);
        CHECK(dst[b * (size_t)tn] == 0xee);
    }
    /* collect: contributions of different sizes, some staged, some in place */
    for (int r = 0; r < 3; r++, round++) {
        size_t mine = collect_len(tme, r), total = 0;
        for (int j = 0; j < tn; j++)
            total += collect_len(j, r);
        if (total > BIG * (size_t)npes)
            continue;
        fill(src, mine, me, round);
        memset(dst, 0xee, total + 1);
        CHECK(shmem_collectmem(team, dst, src, mine) == 0);
        memset(src, 0x5a, mine);
        size_t at = 0;
        for (int j = 0; j < tn; j++) {
            CHECK_PATTERN(dst + at, collect_len(j, r), start + j * stride, round);
            at += collect_len(j, r);
        }
        CHECK(dst[total] == 0xee);
    }
}

int main(void)
{
    test_init();
    src = shmem_malloc(BIG * (size_t)npes + 1);
    dst = shmem_malloc(BIG * (size_t)npes + 1);
    CHECK(src && dst);
    shmem_team_t odd = SHMEM_TEAM_INVALID, third = SHMEM_TEAM_INVALID;
    if (npes / 2 >= 1)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
    if (npes >= 3)
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 2, 3, (npes - 3) / 3 + 1, NULL, 0, &third);
    /* world, then the sub-teams, then world again: each PE's one scratch is
     * reused across teams without a barrier of the other team between */
    for (int pass = 0; pass < 2; pass++) {
        on_team(SHMEM_TEAM_WORLD, 0, 1, pass * 1000);
        if (odd != SHMEM_TEAM_INVALID)
            on_team(odd, 1, 2, pass * 1000 + 300);
        if (third != SHMEM_TEAM_INVALID)
            on_team(third, 2, 3, pass * 1000 + 600);
    }
    shmem_barrier_all();
    if (odd != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd);
    if (third != SHMEM_TEAM_INVALID)
        shmem_team_destroy(third);
    shmem_free(dst);
    shmem_free(src);
    if (me == 0)
        printf("coll_stage: %d PEs: every check passed\n", npes);
    shmem_finalize();
    return 0;
}
