/* rma_dynamic — MPI_Win_create_dynamic with MPI_Win_attach / detach.
 * Every rank attaches three regions (malloc, MPI_Alloc_mem, and a static
 * array), publishes their addresses (MPI_Get_address, displacements built
 * with MPI_Aint_add), and its left neighbour puts, gets and accumulates into
 * each of them, under fence and under a lock.  Then every rank detaches the
 * second region and attaches a new one (rank 0 attaches nothing new), the
 * addresses are published again, and the traffic goes to the new set. The
 * window starts with nothing attached and ends with everything detached. */
#include "rmatest.h"

#define NR 3
#define RLEN 40 /* ints per region */

static int static_region[RLEN];

struct regions {
    int *p[NR + 1];
    int len[NR + 1];
    MPI_Aint *addr; /* [size][NR + 1]: everyone's region addresses (0: none) */
};

static void publish(struct regions *rg)
{
    MPI_Aint mine[NR + 1];
    for (int i = 0; i <= NR; i++) {
        mine[i] = 0;
        if (rg->p[i])
            MPI_Get_address(rg->p[i], &mine[i]);
    }
    MPI_Allgather(mine, NR + 1, MPI_AINT, rg->addr, NR + 1, MPI_AINT, MPI_COMM_WORLD);
}

static int val(int r, int reg, int i, int phase) { return 100000 * phase + 1000 * r + 100 * reg + i; }

/* Left neighbour of t: put into the first half, accumulate into the second. */
static void traffic(MPI_Win win, struct regions *rg, int me, int n, int phase, int use_fence)
{
    int t = (me + 1) % n;
    int buf[NR + 1][RLEN], back[NR + 1][RLEN / 2];
    if (use_fence)
        CHECK_EQ_INT(MPI_Win_fence(0, win), MPI_SUCCESS);
    else
        CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win), MPI_SUCCESS);
    for (int reg = 0; reg <= NR; reg++) {
        MPI_Aint base = rg->addr[t * (NR + 1) + reg];
        if (!base)
            continue;
        for (int i = 0; i < RLEN; i++)
            buf[reg][i] = val(me, reg, i, phase);
        CHECK_EQ_INT(MPI_Put(buf[reg], RLEN / 2, MPI_INT, t, base, RLEN / 2, MPI_INT, win),
                     MPI_SUCCESS);
        MPI_Aint second = MPI_Aint_add(base, (MPI_Aint)(RLEN / 2 * sizeof(int)));
        CHECK_EQ_INT(MPI_Accumulate(buf[reg] + RLEN / 2, RLEN / 2, MPI_INT, t, second, RLEN / 2,
                                    MPI_INT, MPI_SUM, win),
                     MPI_SUCCESS);
    }
    if (use_fence)
        CHECK_EQ_INT(MPI_Win_fence(0, win), MPI_SUCCESS);
    else
        CHECK_EQ_INT(MPI_Win_flush(t, win), MPI_SUCCESS);
    for (int reg = 0; reg <= NR; reg++) {
        MPI_Aint base = rg->addr[t * (NR + 1) + reg];
        if (base)
            CHECK_EQ_INT(MPI_Get(back[reg], RLEN / 2, MPI_INT, t, base, RLEN / 2, MPI_INT, win),
                         MPI_SUCCESS);
    }
    if (use_fence)
        CHECK_EQ_INT(MPI_Win_fence(MPI_MODE_NOSUCCEED, win), MPI_SUCCESS);
    else
        CHECK_EQ_INT(MPI_Win_unlock(t, win), MPI_SUCCESS);
    for (int reg = 0; reg <= NR; reg++)
        if (rg->addr[t * (NR + 1) + reg])
            for (int i = 0; i < RLEN / 2; i++)
                CHECK_EQ_INT(back[reg][i], val(me, reg, i, phase));
    MPI_Barrier(MPI_COMM_WORLD);
    /* my own regions, written by my left neighbour */
    int from = (me + n - 1) % n;
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
    for (int reg = 0; reg <= NR; reg++) {
        if (!rg->p[reg])
            continue;
        for (int i = 0; i < RLEN; i++) {
            int want = i < RLEN / 2 ? val(from, reg, i, phase) : -i + val(from, reg, i, phase);
            if (rg->p[reg][i] != want)
                fprintf(stderr, "rank %d: phase %d region %d int %d: %d, want %d\n", me, phase,
                        reg, i, rg->p[reg][i], want);
            CHECK_EQ_INT(rg->p[reg][i], want);
        }
    }
    CHECK_EQ_INT(MPI_Win_unlock(me, win), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Reset my attached regions with plain stores (an exclusive lock on
 * myself), before anyone targets them again (the barrier). */
static void refill(MPI_Win win, struct regions *rg)
{
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, T_rank, 0, win), MPI_SUCCESS);
    for (int r = 0; r <= NR; r++)
        for (int i = 0; rg->p[r] && i < RLEN; i++)
            rg->p[r][i] = -i;
    CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_unlock(T_rank, win), MPI_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    MPI_Win win;
    CHECK_EQ_INT(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win), MPI_SUCCESS);
    void *base = (void *)1;
    int flag = 0, *fl = NULL;
    CHECK_EQ_INT(MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag), MPI_SUCCESS);
    CHECK(flag && base == MPI_BOTTOM);
    CHECK_EQ_INT(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fl, &flag), MPI_SUCCESS);
    CHECK(flag && *fl == MPI_WIN_FLAVOR_DYNAMIC);

    struct regions rg;
    memset(&rg, 0, sizeof rg);
    rg.addr = calloc((size_t)T_size * (NR + 1), sizeof(MPI_Aint));
    publish(&rg); /* nothing attached yet: all zero */
    for (int i = 0; i < T_size * (NR + 1); i++)
        CHECK(rg.addr[i] == 0);
    rg.p[0] = malloc(RLEN * sizeof(int));
    CHECK_EQ_INT(MPI_Alloc_mem(RLEN * sizeof(int), MPI_INFO_NULL, &rg.p[1]), MPI_SUCCESS);
    rg.p[2] = static_region;
    for (int i = 0; i < NR; i++)
        CHECK_EQ_INT(MPI_Win_attach(win, rg.p[i], RLEN * sizeof(int)), MPI_SUCCESS);
    refill(win, &rg);
    publish(&rg);
    traffic(win, &rg, T_rank, T_size, 1, 1);
    refill(win, &rg);
    traffic(win, &rg, T_rank, T_size, 2, 0);

    /* Swap region 1 for a new region 3 (rank 0: just drop region 1). */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_EQ_INT(MPI_Win_detach(win, rg.p[1]), MPI_SUCCESS);
    MPI_Free_mem(rg.p[1]);
    rg.p[1] = NULL;
    if (T_rank != 0) {
        rg.p[3] = malloc(RLEN * sizeof(int));
        CHECK_EQ_INT(MPI_Win_attach(win, rg.p[3], RLEN * sizeof(int)), MPI_SUCCESS);
    }
    refill(win, &rg);
    publish(&rg);
    traffic(win, &rg, T_rank, T_size, 3, 0);
    refill(win, &rg);
    traffic(win, &rg, T_rank, T_size, 4, 1);

    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i <= NR; i++)
        if (rg.p[i])
            CHECK_EQ_INT(MPI_Win_detach(win, rg.p[i]), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_free(&win), MPI_SUCCESS);
    free(rg.p[0]);
    free(rg.p[3]);
    free(rg.addr);
    test_done("rma_dynamic");
    return 0;
}
