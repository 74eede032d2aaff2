/* coll.c — collectives against serial references, on TEAM_WORLD, on odd and
 * strided teams (split_strided, split_2d) and on the deprecated active sets:
 * barrier, broadcast from every root, collect (sizes differ per PE),
 * fcollect, alltoall, alltoalls, and/or/xor/max/min/sum/prod reductions;
 * team queries and translate_pe. */
#include <stdio.h>
#include <stdlib.h>

#include "shtest.h"

#define N 37 /* elements: odd, not a power of two */

static long psync[SHMEM_REDUCE_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];

/* World PE of member i of a team given as (start, stride). */
static int member(int start, int stride, int i) { return start + i * stride; }

/* Symmetric buffers, allocated once by every PE (shmem_malloc is collective
 * over all PEs: never inside a sub-team's code). */
static long *b_src, *b_dst;
static int *b_is, *b_id;
static double *b_ds, *b_dd;
static unsigned *b_us, *b_ud;

static void barrier_counts(shmem_team_t team, int tn, int stride)
{
    /* everyone adds 1 to its team's counter on the team's PE 0, barrier, check,
     * barrier; teams running at the same time differ in root or stride */
    static long counts[8];
    long *cnt = &counts[stride % 8];
#define count (*cnt)
    int root = shmem_team_translate_pe(team, 0, SHMEM_TEAM_WORLD);
    for (int round = 1; round <= 5; round++) {
        shmem_long_atomic_inc(cnt, root);
        shmem_team_sync(team);
        if (me == root)
            CHECK(count == (long)round * tn);
        shmem_team_sync(team);
    }
    shmem_team_sync(team);
    if (me == root)
        count = 0;
    shmem_team_sync(team);
#undef count
}

static void on_team(shmem_team_t team, int start, int stride)
{
    int tn = shmem_team_n_pes(team), tme = shmem_team_my_pe(team);
    CHECK(tn >= 1 && tme >= 0 && tme < tn);
    CHECK(shmem_team_translate_pe(team, tme, SHMEM_TEAM_WORLD) == me);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, team) == tme);
    CHECK(member(start, stride, tme) == me);
    barrier_counts(team, tn, stride);

    long *src = b_src, *dst = b_dst;
    /* broadcast from every root */
    for (int root = 0; root < tn; root++) {
        for (int i = 0; i < N; i++) {
            src[i] = 1000L * member(start, stride, tme) + i;
            dst[i] = -1;
        }
        CHECK(shmem_long_broadcast(team, dst, src, N, root) == 0);
        for (int i = 0; i < N; i++)
            CHECK(dst[i] == 1000L * member(start, stride, root) + i);
    }
    /* fcollect and collect (member j gives j+1 elements) */
    for (int i = 0; i < N; i++)
        src[i] = 100L * tme + i;
    CHECK(shmem_long_fcollect(team, dst, src, N) == 0);
    for (int j = 0; j < tn; j++)
        for (int i = 0; i < N; i++)
            CHECK(dst[j * N + i] == 100L * j + i);
    CHECK(shmem_long_collect(team, dst, src, (size_t)tme + 1) == 0);
    for (int j = 0, at = 0; j < tn; j++)
        for (int i = 0; i <= j; i++)
            CHECK(dst[at++] == 100L * j + i);
    /* alltoall: block j of my source goes to member j */
    int blk = 3;
    for (int j = 0; j < tn; j++)
        for (int i = 0; i < blk; i++)
            src[j * blk + i] = 10000L * tme + 100L * j + i;
    CHECK(shmem_long_alltoall(team, dst, src, blk) == 0);
    for (int j = 0; j < tn; j++)
        for (int i = 0; i < blk; i++)
            CHECK(dst[j * blk + i] == 10000L * j + 100L * tme + i);
    /* alltoalls: source stride 2, dest stride 3, 2 elements per member */
    for (int i = 0; i < N * npes; i++)
        src[i] = 7L * tme * 1000 + i, dst[i] = -5;
    shmem_team_sync(team);
    CHECK(shmem_long_alltoalls(team, dst, src, 3, 2, 2) == 0);
    for (int j = 0; j < tn; j++)
        for (int k = 0; k < 2; k++)
            CHECK(dst[(j * 2 + k) * 3] == 7L * j * 1000 + (tme * 2 + k) * 2);
    /* reductions on ints, doubles and unsigned: values depend on member and index */
    int *is = b_is, *id = b_id;
    double *ds = b_ds, *dd = b_dd;
    unsigned *us = b_us, *ud = b_ud;
    for (int i = 0; i < N; i++) {
        is[i] = (tme * 7 + i) % 11 - 5;
        ds[i] = 0.5 * tme + i;
        us[i] = 1u << ((tme + i) % 31);
    }
    shmem_int_sum_reduce(team, id, is, N);
    for (int i = 0; i < N; i++) {
        int s = 0;
        for (int j = 0; j < tn; j++)
            s += (j * 7 + i) % 11 - 5;
        CHECK(id[i] == s);
    }
    shmem_int_max_reduce(team, id, is, N);
    for (int i = 0; i < N; i++) {
        int m = -100;
        for (int j = 0; j < tn; j++)
            m = (j * 7 + i) % 11 - 5 > m ? (j * 7 + i) % 11 - 5 : m;
        CHECK(id[i] == m);
    }
    shmem_int_min_reduce(team, id, is, N);
    for (int i = 0; i < N; i++) {
        int m = 100;
        for (int j = 0; j < tn; j++)
            m = (j * 7 + i) % 11 - 5 < m ? (j * 7 + i) % 11 - 5 : m;
        CHECK(id[i] == m);
    }
    shmem_double_prod_reduce(team, dd, ds, N);
    for (int i = 0; i < N; i++) {
        double p = 1;
        for (int j = 0; j < tn; j++)
            p *= 0.5 * j + i;
        CHECK(dd[i] == p);
    }
    shmem_double_sum_reduce(team, ds, ds, N); /* in place */
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int j = 0; j < tn; j++)
            s += 0.5 * j + i;
        CHECK(ds[i] == s);
    }
    shmem_uint_or_reduce(team, ud, us, N);
    for (int i = 0; i < N; i++) {
        unsigned o = 0;
        for (int j = 0; j < tn; j++)
            o |= 1u << ((j + i) % 31);
        CHECK(ud[i] == o);
    }
    shmem_uint_xor_reduce(team, ud, us, N);
    for (int i = 0; i < N; i++) {
        unsigned x = 0;
        for (int j = 0; j < tn; j++)
            x ^= 1u << ((j + i) % 31);
        CHECK(ud[i] == x);
    }
    shmem_uint_and_reduce(team, ud, us, N);
    for (int i = 0; i < N; i++)
        CHECK(ud[i] == (tn == 1 ? us[i] : 0u) || tn > 31);
}

/* The same through the deprecated active-set forms, on PEs start, start+2^log, ... */
static void active_set(int start, int logs, int size)
{
    int stride = 1 << logs, in = me >= start && (me - start) % stride == 0 &&
                                 (me - start) / stride < size;
    static int32_t s32[N], d32[N * 8];
    static int64_t s64[N], d64[N * 8];
    static long ls[N], ld[N];
    if (!in)
        return;
    int tme = (me - start) / stride;
    for (int i = 0; i < N; i++)
        s32[i] = tme * 100 + i, s64[i] = -(int64_t)tme * 100 - i, ls[i] = tme + i, d32[i] = -1;
    shmem_barrier(start, logs, size, psync);
    shmem_broadcast32(d32, s32, N, size - 1, start, logs, size, psync);
    if (tme != size - 1)
        for (int i = 0; i < N; i++)
            CHECK(d32[i] == (size - 1) * 100 + i);
    shmem_fcollect64(d64, s64, N, start, logs, size, psync);
    for (int j = 0; j < size; j++)
        for (int i = 0; i < N; i++)
            CHECK(d64[j * N + i] == -(int64_t)j * 100 - i);
    shmem_collect32(d32, s32, (size_t)tme + 1, start, logs, size, psync);
    for (int j = 0, at = 0; j < size; j++)
        for (int i = 0; i <= j; i++)
            CHECK(d32[at++] == j * 100 + i);
    shmem_alltoall64(d64, s64, 1, start, logs, size, psync);
    for (int j = 0; j < size; j++)
        CHECK(d64[j] == -(int64_t)j * 100 - tme);
    shmem_long_sum_to_all(ld, ls, N, start, logs, size, pwrk, psync);
    for (int i = 0; i < N; i++)
        CHECK(ld[i] == (long)size * (size - 1) / 2 + (long)size * i);
    shmem_long_max_to_all(ld, ls, N, start, logs, size, pwrk, psync);
    for (int i = 0; i < N; i++)
        CHECK(ld[i] == size - 1 + i);
    shmem_barrier(start, logs, size, psync);
}

int main(void)
{
    test_init();
    b_src = shmem_malloc(N * sizeof(long) * (size_t)npes);
    b_dst = shmem_malloc(N * sizeof(long) * (size_t)npes);
    b_is = shmem_malloc(N * sizeof(int));
    b_id = shmem_malloc(N * sizeof(int));
    b_ds = shmem_malloc(N * sizeof(double));
    b_dd = shmem_malloc(N * sizeof(double));
    b_us = shmem_malloc(N * sizeof(unsigned));
    b_ud = shmem_malloc(N * sizeof(unsigned));
    CHECK(b_src && b_dst && b_is && b_id && b_ds && b_dd && b_us && b_ud);
    shmem_barrier_all();
    shmem_sync_all();
    on_team(SHMEM_TEAM_WORLD, 0, 1);
    /* odd PEs, then every third PE from 2 */
    shmem_team_t odd, third;
    odd = SHMEM_TEAM_INVALID;
    if (npes / 2 >= 1) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, npes / 2, NULL, 0, &odd);
        CHECK((odd != SHMEM_TEAM_INVALID) == (me % 2 == 1));
        if (odd != SHMEM_TEAM_INVALID)
            on_team(odd, 1, 2);
    }
    if (npes >= 3) {
        shmem_team_split_strided(SHMEM_TEAM_WORLD, 2, 3, (npes - 3) / 3 + 1, NULL, 0, &third);
        if (third != SHMEM_TEAM_INVALID)
            on_team(third, 2, 3);
        if (third != SHMEM_TEAM_INVALID)
            shmem_team_destroy(third);
    }
    if (odd != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odd);
    /* 2-D: rows of 2 */
    shmem_team_t xt, yt;
    shmem_team_config_t cfg = {.num_contexts = 1};
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, &cfg, SHMEM_TEAM_NUM_CONTEXTS, &xt, NULL, 0,
                              &yt) == 0);
    CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID);
    CHECK(shmem_team_n_pes(xt) == (me / 2 * 2 + 2 <= npes ? (npes >= 2 ? 2 : 1) : 1));
    CHECK(shmem_team_my_pe(yt) == me / 2);
    shmem_team_config_t got;
    CHECK(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 && got.num_contexts == 1);
    on_team(xt, me / 2 * 2, 1);
    on_team(yt, me % 2, 2);
    shmem_ctx_t c1, c2;
    CHECK(shmem_team_create_ctx(xt, 0, &c1) == 0);
    CHECK(shmem_team_create_ctx(xt, 0, &c2) != 0); /* configured for one */
    shmem_ctx_destroy(c1);
    shmem_team_destroy(xt);
    shmem_team_destroy(yt);
    /* SHARED: every PE of my node (all of them under one launcher) */
    int sn = shmem_team_n_pes(SHMEM_TEAM_SHARED);
    CHECK(sn >= 1 && sn <= npes);
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shmem_team_my_pe(SHMEM_TEAM_SHARED),
                                  SHMEM_TEAM_WORLD) == me);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
    /* active sets: everyone, the even PEs, and PEs 1, 5, ... */
    active_set(0, 0, npes);
    shmem_barrier_all();
    active_set(0, 1, (npes + 1) / 2);
    shmem_barrier_all();
    if (npes >= 2)
        active_set(1, 2, (npes - 2) / 4 + 1);
    shmem_barrier_all();
    if (me == 0)
        printf("coll: %d PEs: every check passed\n", npes);
    shmem_finalize();
    return 0;
}
