/* mpi4_intercomm_groups.c — MPI_Intercomm_create_from_groups (MPI 4.0):
 * MPI_COMM_WORLD cut into two disjoint groups (a low and a high half; the
 * even and the odd ranks with the last members as leaders), an
 * intercommunicator built from the groups alone: sizes, ranks, remote group,
 * the error handler and info given, messages across it from every rank,
 * MPI_Intercomm_merge of it with an allreduce; argument errors. */
#include "mpitest.h"

static MPI_Group world_group(void)
{
    MPI_Group g;
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    return g;
}

/* in_a(r): is world rank r in group A? */
static void build_and_use(int (*in_a)(int), const char *stringtag, int last_leaders)
{
    int na = 0, nb = 0, *a = malloc(T_size * sizeof *a), *b = malloc(T_size * sizeof *b);
    for (int r = 0; r < T_size; r++) {
        if (in_a(r))
            a[na++] = r;
        else
            b[nb++] = r;
    }
    if (!na || !nb) {
        free(a);
        free(b);
        return;
    }
    MPI_Group wg = world_group(), ga, gb;
    MPI_Group_incl(wg, na, a, &ga);
    MPI_Group_incl(wg, nb, b, &gb);
    int mine_a = in_a(T_rank);
    MPI_Group local = mine_a ? ga : gb, remote = mine_a ? gb : ga;
    int lsize = mine_a ? na : nb, rsize = mine_a ? nb : na;
    const int *lw = mine_a ? a : b, *rw = mine_a ? b : a;
    int lleader = last_leaders ? lsize - 1 : 0, rleader = last_leaders ? rsize - 1 : 0;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "skiff_test_key", "from_groups");
    MPI_Comm ic;
    CHECK(MPI_Intercomm_create_from_groups(local, lleader, remote, rleader, stringtag, info,
                                           MPI_ERRORS_RETURN, &ic) == MPI_SUCCESS);
    MPI_Info_free(&info);
    int flag = 0, v;
    MPI_Comm_test_inter(ic, &flag);
    CHECK(flag);
    MPI_Comm_size(ic, &v);
    CHECK_EQ_INT(v, lsize);
    MPI_Comm_remote_size(ic, &v);
    CHECK_EQ_INT(v, rsize);
    int me;
    MPI_Comm_rank(ic, &me);
    CHECK_EQ_INT(lw[me], T_rank);
    MPI_Group rg;
    MPI_Comm_remote_group(ic, &rg);
    MPI_Group_compare(rg, remote, &v);
    CHECK_EQ_INT(v, MPI_IDENT);
    MPI_Group_free(&rg);
    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(ic, &eh);
    CHECK(eh == MPI_ERRORS_RETURN);
    MPI_Info used;
    char val[64];
    int len = sizeof val;
    MPI_Comm_get_info(ic, &used);
    CHECK(MPI_Info_get_string(used, "skiff_test_key", &len, val, &flag) == MPI_SUCCESS);
    CHECK(flag && strcmp(val, "from_groups") == 0);
    MPI_Info_free(&used);

    /* every local rank r sends to remote rank r % rsize; receives from the
     * remote ranks j with j % lsize == r */
    int out[2] = {T_rank, me}, in[2];
    MPI_Request sreq;
    MPI_Isend(out, 2, MPI_INT, me % rsize, 5, ic, &sreq);
    for (int j = me; j < rsize; j += lsize) {
        MPI_Status st;
        CHECK(MPI_Recv(in, 2, MPI_INT, j, 5, ic, &st) == MPI_SUCCESS);
        CHECK_EQ_INT(in[0], rw[j]);
        CHECK_EQ_INT(in[1], j);
        CHECK_EQ_INT(st.MPI_SOURCE, j);
    }
    MPI_Wait(&sreq, MPI_STATUS_IGNORE);

    MPI_Comm merged;
    CHECK(MPI_Intercomm_merge(ic, !mine_a, &merged) == MPI_SUCCESS);
    MPI_Comm_size(merged, &v);
    CHECK_EQ_INT(v, T_size);
    MPI_Comm_rank(merged, &v);
    CHECK_EQ_INT(v, mine_a ? me : na + me);
    long sum = 0, want = (long)T_size * (T_size - 1) / 2, x = T_rank;
    MPI_Allreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, merged);
    CHECK_EQ_INT(sum, want);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&ic);
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
    MPI_Group_free(&wg);
    free(a);
    free(b);
}

static int low_half(int r) { return r < (T_size + 1) / 2; }
static int even(int r) { return r % 2 == 0; }

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group wg = world_group(), self, rest;
    int me = T_rank, cls;
    MPI_Group_incl(wg, 1, &me, &self);
    MPI_Group_excl(wg, 1, &me, &rest);
    MPI_Comm ic = MPI_COMM_NULL;
    /* the caller in the remote group too */
    MPI_Error_class(MPI_Intercomm_create_from_groups(self, 0, wg, 0, "e", MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, &ic), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_GROUP);
    MPI_Error_class(MPI_Intercomm_create_from_groups(rest, 0, self, 0, "e", MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, &ic), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_GROUP); /* not in the local group */
    MPI_Error_class(MPI_Intercomm_create_from_groups(self, 1, rest, 0, "e", MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, &ic), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_RANK);
    MPI_Error_class(MPI_Intercomm_create_from_groups(self, 0, rest, T_size, "e", MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, &ic), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_RANK);
    MPI_Error_class(MPI_Intercomm_create_from_groups(self, 0, rest, 0, NULL, MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, &ic), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Error_class(MPI_Intercomm_create_from_groups(self, 0, rest, 0, "e", MPI_INFO_NULL,
                                                     MPI_ERRORS_RETURN, NULL), &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Error_class(MPI_Intercomm_create_from_groups(MPI_GROUP_NULL, 0, rest, 0, "e",
                                                     MPI_INFO_NULL, MPI_ERRORS_RETURN, &ic),
                    &cls);
    CHECK_EQ_INT(cls, MPI_ERR_GROUP);
    CHECK(ic == MPI_COMM_NULL);
    MPI_Group_free(&self);
    MPI_Group_free(&rest);
    MPI_Group_free(&wg);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    build_and_use(low_half, "halves", 0);
    build_and_use(even, "even-odd", 1);
    build_and_use(low_half, "halves again", 1);
    errors();
    test_done("mpi4_intercomm_groups");
    return 0;
}
