/* mpi4_comm.c — MPI 4.0 communicator and info calls: MPI_Comm_idup_with_info
 * (the new communicator has the given info, not the parent's, and works),
 * MPI_Comm_create_from_group (concurrent creations told apart by their
 * string tags, rank order from the group, error handler and info attached),
 * MPI_Info_create_env and MPI_Info_get_string on it; error classes. */
#include "mpitest.h"

static void expect_info(MPI_Comm c, const char *key, const char *want)
{
    MPI_Info got;
    CHECK(MPI_Comm_get_info(c, &got) == MPI_SUCCESS);
    char v[64];
    int len = sizeof v, flag = 0;
    CHECK(MPI_Info_get_string(got, key, &len, v, &flag) == MPI_SUCCESS);
    CHECK_EQ_INT(flag, want != NULL);
    if (want)
        CHECK(strcmp(v, want) == 0);
    MPI_Info_free(&got);
}

static void sum_check(MPI_Comm c, int expect_members)
{
    int size, one = 1, total = 0;
    MPI_Comm_size(c, &size);
    CHECK_EQ_INT(size, expect_members);
    CHECK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, c) == MPI_SUCCESS);
    CHECK_EQ_INT(total, size);
}

static void idup_with_info(void)
{
    MPI_Comm parent;
    MPI_Comm_dup(MPI_COMM_WORLD, &parent);
    MPI_Info pi, ni;
    MPI_Info_create(&pi);
    MPI_Info_set(pi, "parent_key", "p");
    MPI_Comm_set_info(parent, pi);
    MPI_Info_free(&pi);
    MPI_Info_create(&ni);
    MPI_Info_set(ni, "new_key", "n");
    MPI_Comm a, b, c;
    MPI_Request req[3];
    CHECK(MPI_Comm_idup_with_info(parent, ni, &a, &req[0]) == MPI_SUCCESS);
    MPI_Info_free(&ni); /* the call took a copy */
    CHECK(MPI_Comm_idup_with_info(parent, MPI_INFO_NULL, &b, &req[1]) == MPI_SUCCESS);
    CHECK(MPI_Comm_idup(parent, &c, &req[2]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    expect_info(a, "new_key", "n");
    expect_info(a, "parent_key", NULL);
    expect_info(b, "parent_key", NULL);
    expect_info(c, "parent_key", "p");
    sum_check(a, T_size);
    sum_check(b, T_size);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    MPI_Comm_free(&c);
    MPI_Comm_free(&parent);
}

static void from_group(void)
{
    MPI_Group world, half, rev;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n = T_size, *ranks = malloc(sizeof(int) * (size_t)n), k = 0;
    for (int r = T_rank % 2; r < n; r += 2)
        ranks[k++] = r;
    MPI_Group_incl(world, k, ranks, &half);
    for (int r = 0; r < n; r++)
        ranks[r] = n - 1 - r;
    MPI_Group_incl(world, n, ranks, &rev);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    for (int round = 0; round < 3; round++) {
        MPI_Comm h, r;
        /* evens and odds create at the same time, with different tags */
        CHECK(MPI_Comm_create_from_group(half, T_rank % 2 ? "org.skiff.odd" : "org.skiff.even",
                                         info, MPI_ERRORS_RETURN, &h) == MPI_SUCCESS);
        CHECK(MPI_Comm_create_from_group(rev, "org.skiff.reversed", MPI_INFO_NULL,
                                         MPI_ERRORS_ARE_FATAL, &r) == MPI_SUCCESS);
        sum_check(h, k);
        int me;
        MPI_Comm_rank(h, &me);
        CHECK_EQ_INT(me, T_rank / 2);
        MPI_Comm_rank(r, &me);
        CHECK_EQ_INT(me, n - 1 - T_rank);
        sum_check(r, n);
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(h, &eh);
        CHECK(eh == MPI_ERRORS_RETURN);
        MPI_Comm_get_errhandler(r, &eh);
        CHECK(eh == MPI_ERRORS_ARE_FATAL);
        expect_info(h, "mpi_assert_no_any_tag", "true");
        /* the new communicator reports its own errors the way it was told */
        int x = 0, cls;
        int rc = MPI_Send(&x, 1, MPI_INT, k, 0, h);
        MPI_Error_class(rc, &cls);
        CHECK_EQ_INT(cls, MPI_ERR_RANK);
        MPI_Comm_free(&h);
        MPI_Comm_free(&r);
    }
    MPI_Info_free(&info);

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group notme;
    MPI_Group_excl(world, 1, &T_rank, &notme);
    MPI_Comm bad;
    int cls, rc = MPI_Comm_create_from_group(notme, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_GROUP);
    rc = MPI_Comm_create_from_group(world, NULL, MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Comm_create_from_group(MPI_GROUP_NULL, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &bad);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_GROUP);
    rc = MPI_Comm_create_from_group(world, "x", MPI_INFO_NULL, MPI_ERRHANDLER_NULL, &bad);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Group_free(&notme);
    MPI_Group_free(&half);
    MPI_Group_free(&rev);
    MPI_Group_free(&world);
    free(ranks);
}

static void info_env(int argc, char **argv)
{
    char *args[] = {argc ? argv[0] : "prog", "--alpha", "b c", NULL};
    MPI_Info env;
    CHECK(MPI_Info_create_env(3, args, &env) == MPI_SUCCESS);
    char v[256];
    int len = sizeof v, flag = 0;
    CHECK(MPI_Info_get_string(env, "argv", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag);
    CHECK(strcmp(v, "--alpha b c") == 0);
    CHECK_EQ_INT(len, (int)strlen("--alpha b c") + 1);
    len = 4; /* too short: truncated, and told the length needed */
    CHECK(MPI_Info_get_string(env, "argv", &len, v, &flag) == MPI_SUCCESS);
    CHECK(strcmp(v, "--a") == 0);
    CHECK_EQ_INT(len, (int)strlen("--alpha b c") + 1);
    len = sizeof v;
    CHECK(MPI_Info_get_string(env, "maxprocs", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag);
    CHECK_EQ_INT(atoi(v), T_size);
    len = sizeof v;
    CHECK(MPI_Info_get_string(env, "command", &len, v, &flag) == MPI_SUCCESS);
    CHECK(flag && strstr(v, "mpi4_comm"));
    /* a copy: changing it leaves MPI_INFO_ENV alone */
    CHECK(MPI_Info_set(env, "host", "elsewhere") == MPI_SUCCESS);
    len = sizeof v;
    MPI_Info_get_string(MPI_INFO_ENV, "host", &len, v, &flag);
    CHECK(!flag || strcmp(v, "elsewhere") != 0);
    MPI_Info_free(&env);
    MPI_Info empty;
    CHECK(MPI_Info_create_env(0, NULL, &empty) == MPI_SUCCESS);
    len = sizeof v;
    CHECK(MPI_Info_get_string(empty, "argv", &len, v, &flag) == MPI_SUCCESS);
    CHECK(!flag);
    MPI_Info_free(&empty);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Info_create_env(0, NULL, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    idup_with_info();
    from_group();
    info_env(argc, argv);
    test_barrier();
    MPI_Finalize();
    return 0;
}
