/* rma_dtype — derived datatypes on the origin and on the target of Put, Get,
 * Accumulate (SUM and REPLACE) and Get_accumulate (with a third layout for
 * the result): every pair of seven layouts of six ints (basic, contiguous,
 * vector, vector with count 2, indexed, struct of ints, resized int), under
 * fence and under an exclusive lock with flushes, on allocated, created and
 * dynamic windows.  Rank r is the only origin of t = r+1 and keeps a shadow
 * copy of t's window; after every phase it reads the window back whole and
 * compares byte for byte. */
#include "rmatest.h"

#define NL 7     /* layouts */
#define NE 6     /* ints each layout carries */
#define REG 12   /* ints a layout spans at most */
#define NREG (NL * NL)
#define WINTS (NREG * REG)

struct layout {
    const char *name;
    MPI_Datatype type;
    int count;
    int off[NE]; /* where element k lives, in ints from the start */
};
static struct layout L[NL];

static void make_layouts(void)
{
    MPI_Datatype t;
    L[0] = (struct layout){"int", MPI_INT, 6, {0, 1, 2, 3, 4, 5}};
    MPI_Type_contiguous(6, MPI_INT, &t);
    L[1] = (struct layout){"contiguous", t, 1, {0, 1, 2, 3, 4, 5}};
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    L[2] = (struct layout){"vector", t, 1, {0, 1, 4, 5, 8, 9}};
    MPI_Type_vector(3, 1, 2, MPI_INT, &t); /* extent 5 ints: the second copy starts at 5 */
    L[3] = (struct layout){"vector x2", t, 2, {0, 2, 4, 5, 7, 9}};
    int bl[3] = {1, 3, 2}, dis[3] = {0, 3, 9};
    MPI_Type_indexed(3, bl, dis, MPI_INT, &t);
    L[4] = (struct layout){"indexed", t, 1, {0, 3, 4, 5, 9, 10}};
    int sbl[3] = {2, 1, 3};
    MPI_Aint sdis[3] = {0, 16, 28};
    MPI_Datatype sty[3] = {MPI_INT, MPI_INT, MPI_INT};
    MPI_Type_create_struct(3, sbl, sdis, sty, &t);
    L[5] = (struct layout){"struct", t, 1, {0, 1, 4, 7, 8, 9}};
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &t);
    L[6] = (struct layout){"resized", t, 6, {0, 2, 4, 6, 8, 10}};
    for (int i = 1; i < NL; i++)
        CHECK_EQ_INT(MPI_Type_commit(&L[i].type), MPI_SUCCESS);
}

static void free_layouts(void)
{
    for (int i = 1; i < NL; i++)
        MPI_Type_free(&L[i].type);
}

static int val(int r, int a, int b, int k, int phase)
{
    return r * 1000 + a * 100 + b * 10 + k + phase * 7;
}

/* An origin buffer in layout a carrying val(.., k) as element k; -5 elsewhere. */
static void pack_layout(int *buf, int a, int r, int b, int phase)
{
    for (int i = 0; i < REG; i++)
        buf[i] = -5;
    for (int k = 0; k < NE; k++)
        buf[L[a].off[k]] = val(r, a, b, k, phase);
}

static const char *cur_flavour;
static void expect_window(const int *got, const int *shadow, const char *phase)
{
    for (int i = 0; i < WINTS; i++)
        if (got[i] != shadow[i]) {
            int reg = i / REG;
            fprintf(stderr, "rank %d: %s, %s: target int %d (origin %s -> target %s, position %d) is %d, want %d\n",
                    T_rank, cur_flavour, phase, i, L[reg / NL].name, L[reg % NL].name, i % REG,
                    got[i], shadow[i]);
            CHECK_EQ_INT(got[i], shadow[i]);
        }
}

static void read_back(struct twin *w, int t, int *all)
{
    CHECK_EQ_INT(MPI_Get(all, WINTS, MPI_INT, t, tdisp(w, t, 0), WINTS, MPI_INT, w->win),
                 MPI_SUCCESS);
}

static void fill_init(struct twin *w, void *arg)
{
    (void)arg;
    int *m = w->base;
    for (int i = 0; i < WINTS; i++)
        m[i] = 100000 * w->rank + i;
}

static MPI_Aint reg_disp(struct twin *w, int t, int a, int b)
{
    return tdisp(w, t, (size_t)((a * NL + b) * REG) * sizeof(int));
}

static void run(int f)
{
    struct twin w;
    twin_create(&w, f, WINTS * sizeof(int), (int)sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD);
    cur_flavour = flavour_name[f];
    int t = (w.rank + 1) % w.size;
    static int shadow[WINTS], all[WINTS], obuf[NREG][REG], rbuf[NREG][REG];
    for (int i = 0; i < WINTS; i++)
        shadow[i] = 100000 * t + i;
    twin_local_write(&w, fill_init, NULL);

    /* Fence: every pair's put in one epoch (disjoint regions). */
    CHECK_EQ_INT(MPI_Win_fence(0, w.win), MPI_SUCCESS);
    for (int a = 0; a < NL; a++)
        for (int b = 0; b < NL; b++) {
            int *o = obuf[a * NL + b];
            pack_layout(o, a, w.rank, b, 0);
            CHECK_EQ_INT(MPI_Put(o, L[a].count, L[a].type, t, reg_disp(&w, t, a, b), L[b].count,
                                 L[b].type, w.win),
                         MPI_SUCCESS);
            for (int k = 0; k < NE; k++)
                shadow[(a * NL + b) * REG + L[b].off[k]] = val(w.rank, a, b, k, 0);
        }
    CHECK_EQ_INT(MPI_Win_fence(0, w.win), MPI_SUCCESS);
    /* Gets of every pair back into the origin layout, and the whole window. */
    for (int a = 0; a < NL; a++)
        for (int b = 0; b < NL; b++) {
            int *r = rbuf[a * NL + b];
            for (int i = 0; i < REG; i++)
                r[i] = -7;
            CHECK_EQ_INT(MPI_Get(r, L[a].count, L[a].type, t, reg_disp(&w, t, a, b), L[b].count,
                                 L[b].type, w.win),
                         MPI_SUCCESS);
        }
    read_back(&w, t, all);
    CHECK_EQ_INT(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win), MPI_SUCCESS);
    expect_window(all, shadow, "after Put under fence");
    for (int a = 0; a < NL; a++)
        for (int b = 0; b < NL; b++) {
            int want[REG];
            for (int i = 0; i < REG; i++)
                want[i] = -7;
            for (int k = 0; k < NE; k++)
                want[L[a].off[k]] = val(w.rank, a, b, k, 0);
            for (int i = 0; i < REG; i++)
                if (rbuf[a * NL + b][i] != want[i]) {
                    fprintf(stderr, "rank %d: %s: Get %s <- %s position %d: %d, want %d\n", T_rank,
                            cur_flavour, L[a].name, L[b].name, i, rbuf[a * NL + b][i], want[i]);
                    CHECK_EQ_INT(rbuf[a * NL + b][i], want[i]);
                }
        }
    MPI_Barrier(w.comm);

    /* Exclusive lock: accumulates (SUM, or REPLACE on odd pairs) and
     * get_accumulates with the result in a third layout, flushed one by one. */
    CHECK_EQ_INT(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w.win), MPI_SUCCESS);
    for (int a = 0; a < NL; a++)
        for (int b = 0; b < NL; b++) {
            int reg = (a * NL + b) * REG, c = (a + b + 1) % NL;
            MPI_Op op = (a + b) % 2 ? MPI_REPLACE : MPI_SUM;
            int *o = obuf[a * NL + b];
            pack_layout(o, a, w.rank, b, 1);
            CHECK_EQ_INT(MPI_Accumulate(o, L[a].count, L[a].type, t, reg_disp(&w, t, a, b),
                                        L[b].count, L[b].type, op, w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
            for (int k = 0; k < NE; k++) {
                int *s = &shadow[reg + L[b].off[k]];
                *s = op == MPI_SUM ? *s + val(w.rank, a, b, k, 1) : val(w.rank, a, b, k, 1);
            }
            int *r = rbuf[a * NL + b];
            for (int i = 0; i < REG; i++)
                r[i] = -9;
            pack_layout(o, a, w.rank, b, 2);
            CHECK_EQ_INT(MPI_Get_accumulate(o, L[a].count, L[a].type, r, L[c].count, L[c].type, t,
                                            reg_disp(&w, t, a, b), L[b].count, L[b].type, MPI_SUM,
                                            w.win),
                         MPI_SUCCESS);
            CHECK_EQ_INT(MPI_Win_flush(t, w.win), MPI_SUCCESS);
            for (int k = 0; k < NE; k++) {
                int *s = &shadow[reg + L[b].off[k]];
                if (r[L[c].off[k]] != *s) {
                    fprintf(stderr, "rank %d: %s: Get_accumulate %s -> %s, result in %s, element %d: %d, want %d\n",
                            T_rank, cur_flavour, L[a].name, L[b].name, L[c].name, k,
                            r[L[c].off[k]], *s);
                    CHECK_EQ_INT(r[L[c].off[k]], *s);
                }
                *s += val(w.rank, a, b, k, 2);
            }
        }
    read_back(&w, t, all);
    CHECK_EQ_INT(MPI_Win_unlock(t, w.win), MPI_SUCCESS);
    expect_window(all, shadow, "after Accumulate and Get_accumulate under lock");
    MPI_Barrier(w.comm);
    twin_free(&w);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    make_layouts();
    run(FL_ALLOCATE);
    run(FL_CREATE);
    run(FL_DYNAMIC);
    free_layouts();
    test_done("rma_dtype");
    return 0;
}
