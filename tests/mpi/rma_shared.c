/* rma_shared — MPI_Win_allocate_shared and MPI_Win_shared_query on the
 * ranks of a node (MPI_Comm_split_type SHARED):
 *  - every rank's segment is found by every rank: size, disp_unit (different
 *    per rank) and address; a rank with size 0 included; MPI_PROC_NULL gives
 *    the first non-empty segment; by default segments are consecutive;
 *  - plain stores into another rank's segment are seen by its plain loads
 *    after MPI_Win_sync + barrier + MPI_Win_sync, round after round (inside
 *    lock_all, the standard's pattern), and a flag handshake with plain loads;
 *  - RMA and direct access mixed: a Put is seen by a load, a store by a Get,
 *    a Fetch_and_op counter by loads;
 *  - alloc_shared_noncontig=true: the same through shared_query only. */
#include "rmatest.h"

#define ROUNDS 20

static MPI_Aint seg_size(int r) { return r == 1 ? 0 : (MPI_Aint)(64 * (r + 1)); }
static int seg_unit(int r) { return r % 2 ? 8 : 4; }

static void run(MPI_Comm node, int noncontig)
{
    int me, n;
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &n);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    char *mine = NULL;
    MPI_Win win;
    CHECK_EQ_INT(MPI_Win_allocate_shared(seg_size(me), seg_unit(me), info, node, &mine, &win),
                 MPI_SUCCESS);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    int flavour = 0, flag = 0, *fp = NULL;
    CHECK_EQ_INT(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &fp, &flag), MPI_SUCCESS);
    CHECK(flag);
    flavour = *fp;
    CHECK_EQ_INT(flavour, MPI_WIN_FLAVOR_SHARED);

    char **seg = calloc((size_t)n, sizeof *seg);
    for (int r = 0; r < n; r++) {
        MPI_Aint sz = -1;
        int du = -1;
        CHECK_EQ_INT(MPI_Win_shared_query(win, r, &sz, &du, &seg[r]), MPI_SUCCESS);
        CHECK_EQ_INT(sz, seg_size(r));
        CHECK_EQ_INT(du, seg_unit(r));
        if (sz > 0)
            CHECK(seg[r] != NULL);
        if (r == me && sz > 0)
            CHECK(seg[r] == mine);
        if (!noncontig && r > 0 && sz > 0 && seg_size(r - 1) > 0)
            CHECK(seg[r] == seg[r - 1] + seg_size(r - 1)); /* consecutive by default */
    }
    {
        MPI_Aint sz = -1;
        int du = -1;
        char *p = NULL;
        CHECK_EQ_INT(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p), MPI_SUCCESS);
        CHECK(p == seg[0]); /* rank 0's segment is never empty */
        CHECK_EQ_INT(sz, seg_size(0));
    }

    /* Round k: every rank stores into its own int slot of the next
     * non-empty rank's segment, all sync, everyone checks its segment. */
    CHECK_EQ_INT(MPI_Win_lock_all(MPI_MODE_NOCHECK, win), MPI_SUCCESS);
    int *dest = malloc(sizeof(int) * (size_t)n);
    for (int r = 0; r < n; r++) {
        dest[r] = (r + 1) % n;
        while (seg_size(dest[r]) == 0)
            dest[r] = (dest[r] + 1) % n;
    }
    for (int k = 0; k < ROUNDS; k++) {
        ((volatile int *)seg[dest[me]])[me] = 1000 * k + me;
        CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
        MPI_Barrier(node);
        CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
        for (int r = 0; r < n; r++) {
            if (dest[r] != me)
                continue;
            int got = ((volatile int *)mine)[r];
            if (got != 1000 * k + r)
                fprintf(stderr, "rank %d: round %d: store of rank %d not seen: %d\n", me, k, r, got);
            CHECK_EQ_INT(got, 1000 * k + r);
        }
        MPI_Barrier(node);
    }
    free(dest);

    /* Flag handshake: rank 0 writes data then a flag into the last rank's
     * segment; that rank polls the flag with loads and Win_sync. */
    int last = n - 1;
    while (seg_size(last) == 0)
        last--;
    if (n > 1 && last != 0) {
        volatile int *lastseg = (volatile int *)seg[last];
        if (me == 0) {
            for (int i = 1; i < 8; i++)
                lastseg[i] = 77 * i;
            CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
            __atomic_store_n(&lastseg[0], 1, __ATOMIC_RELEASE);
        } else if (me == last) {
            while (__atomic_load_n(&lastseg[0], __ATOMIC_ACQUIRE) != 1)
                CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
            for (int i = 1; i < 8; i++)
                CHECK_EQ_INT(lastseg[i], 77 * i);
        }
    }
    MPI_Barrier(node);

    /* RMA and loads/stores mixed, at byte offsets every disp_unit divides:
     * byte 8 of my segment gets a Put from my left neighbour, byte 16 my own
     * store that my right neighbour reads with a Get, byte 24 of rank 0's
     * segment is everyone's Fetch_and_op counter. */
    int left = (me + n - 1) % n, right = (me + 1) % n;
    if (seg_size(me) > 0)
        *(volatile int *)(mine + 16) = 500 + me;
    if (me == 0)
        *(volatile long long *)(mine + 24) = 0;
    CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
    MPI_Barrier(node);
    CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
    int v = 300 + me, got16 = -1;
    long long one = 1, old = -1;
    if (seg_size(right) > 0)
        CHECK_EQ_INT(MPI_Put(&v, 1, MPI_INT, right, 8 / seg_unit(right), 1, MPI_INT, win),
                     MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, 24 / seg_unit(0), MPI_SUM, win),
                 MPI_SUCCESS);
    if (seg_size(left) > 0)
        CHECK_EQ_INT(MPI_Get(&got16, 1, MPI_INT, left, 16 / seg_unit(left), 1, MPI_INT, win),
                     MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Win_flush_all(win), MPI_SUCCESS);
    if (seg_size(left) > 0)
        CHECK_EQ_INT(got16, 500 + left);
    CHECK(old >= 0 && old < n);
    CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
    MPI_Barrier(node);
    CHECK_EQ_INT(MPI_Win_sync(win), MPI_SUCCESS);
    if (seg_size(me) > 0)
        CHECK_EQ_INT(*(volatile int *)(mine + 8), 300 + left);
    if (me == 0)
        CHECK_EQ_INT(*(volatile long long *)(mine + 24), n);
    CHECK_EQ_INT(MPI_Win_unlock_all(win), MPI_SUCCESS);
    MPI_Barrier(node);
    free(seg);
    CHECK_EQ_INT(MPI_Win_free(&win), MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    MPI_Comm node = node_comm(MPI_COMM_WORLD);
    run(node, 0);
    run(node, 1);
    MPI_Comm_free(&node);
    test_done("rma_shared");
    return 0;
}
