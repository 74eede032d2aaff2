/* mpi4_session.c — the sessions model (MPI 4.0) without MPI_Init: process
 * sets mpi://WORLD and mpi://SELF, groups and communicators from them
 * (MPI_Comm_create_from_group) used for collectives and point-to-point,
 * session info and error handlers, two sessions at once; then the world
 * model started while a session is open and finalized before it, the
 * session still working; MPI_Initialized/MPI_Finalized reporting the world
 * model only; error classes. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

static int handler_calls, handler_code;
static MPI_Session handler_saw;

static void on_error(MPI_Session *s, int *code, ...)
{
    handler_calls++;
    handler_code = *code;
    handler_saw = *s;
}

static int pset_size(MPI_Session s, const char *name)
{
    MPI_Info info;
    CHECK(MPI_Session_get_pset_info(s, name, &info) == MPI_SUCCESS);
    char v[32];
    int len = sizeof v, flag;
    CHECK(MPI_Info_get_string(info, "mpi_size", &len, v, &flag) == MPI_SUCCESS && flag);
    MPI_Info_free(&info);
    return atoi(v);
}

/* A communicator over a pset; checks rank order, a ring shift and a sum. */
static MPI_Comm comm_from(MPI_Session s, const char *pset, const char *tag)
{
    MPI_Group g;
    CHECK(MPI_Group_from_session_pset(s, pset, &g) == MPI_SUCCESS);
    int gsize, grank;
    MPI_Group_size(g, &gsize);
    MPI_Group_rank(g, &grank);
    CHECK_EQ_INT(gsize, pset_size(s, pset));
    MPI_Comm c;
    CHECK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) ==
          MPI_SUCCESS);
    MPI_Group_free(&g);
    int size, rank;
    MPI_Comm_size(c, &size);
    MPI_Comm_rank(c, &rank);
    CHECK_EQ_INT(size, gsize);
    CHECK_EQ_INT(rank, grank);
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1, sum = 0;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, c, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(got, left);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK_EQ_INT(sum, size * (size - 1) / 2);
    return c;
}

static void psets(MPI_Session s)
{
    int n;
    CHECK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &n) == MPI_SUCCESS);
    CHECK_EQ_INT(n, 2);
    const char *want[2] = {"mpi://WORLD", "mpi://SELF"};
    for (int k = 0; k < n; k++) {
        int len = 0;
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, k, &len, NULL) == MPI_SUCCESS);
        CHECK_EQ_INT(len, (int)strlen(want[k]) + 1);
        char name[MPI_MAX_PSET_NAME_LEN];
        CHECK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, k, &len, name) == MPI_SUCCESS);
        CHECK(strcmp(name, want[k]) == 0);
    }
    CHECK_EQ_INT(pset_size(s, "mpi://SELF"), 1);
}

static void errors(MPI_Session s)
{
    int cls, rc, n;
    MPI_Group g;
    rc = MPI_Group_from_session_pset(s, "mpi://NOWHERE", &g);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    rc = MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 2, &n, NULL);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Errhandler ceh;
    MPI_Comm_create_errhandler((MPI_Comm_errhandler_function *)on_error, &ceh);
    rc = MPI_Session_set_errhandler(s, ceh); /* a communicator's handler */
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);
    MPI_Errhandler_free(&ceh);
}

int main(void)
{
    int flag;
    MPI_Initialized(&flag);
    CHECK(!flag);
    MPI_Errhandler eh;
    CHECK(MPI_Session_create_errhandler(on_error, &eh) == MPI_SUCCESS); /* before any init */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_MULTIPLE");
    MPI_Info_set(info, "org.skiff.test", "yes");
    MPI_Session s, t;
    CHECK(MPI_Session_init(info, eh, &s) == MPI_SUCCESS);
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &t) == MPI_SUCCESS);
    MPI_Info_free(&info);
    MPI_Initialized(&flag);
    CHECK(!flag); /* sessions are not the world model */

    MPI_Comm world = comm_from(s, "mpi://WORLD", "org.skiff.test.world");
    int rank;
    MPI_Comm_rank(world, &rank);
    testutil_rank = rank;
    MPI_Comm self = comm_from(t, "mpi://SELF", "org.skiff.test.self");
    psets(s);
    errors(t);

    MPI_Info used;
    CHECK(MPI_Session_get_info(s, &used) == MPI_SUCCESS);
    char v[64];
    int len = sizeof v;
    CHECK(MPI_Info_get_string(used, "thread_level", &len, v, &flag) == MPI_SUCCESS && flag);
    CHECK(strcmp(v, "MPI_THREAD_MULTIPLE") == 0); /* this session brought the device up */
    len = sizeof v;
    CHECK(MPI_Info_get_string(used, "org.skiff.test", &len, v, &flag) == MPI_SUCCESS && flag);
    MPI_Info_free(&used);

    /* the session's own handler */
    CHECK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER) == MPI_SUCCESS);
    CHECK_EQ_INT(handler_calls, 1);
    CHECK_EQ_INT(handler_code, MPI_ERR_OTHER);
    CHECK(handler_saw == s);
    MPI_Group g;
    MPI_Group_from_session_pset(s, "mpi://nowhere", &g); /* raised on s */
    CHECK_EQ_INT(handler_calls, 2);
    CHECK_EQ_INT(handler_code, MPI_ERR_ARG);
    MPI_Errhandler got;
    CHECK(MPI_Session_get_errhandler(s, &got) == MPI_SUCCESS);
    CHECK(got == eh);
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&eh); /* the session keeps it */
    CHECK(MPI_Session_call_errhandler(s, MPI_ERR_ARG) == MPI_SUCCESS);
    CHECK_EQ_INT(handler_calls, 3);

    /* the world model while a session is open, finalized first */
    CHECK(MPI_Init(NULL, NULL) == MPI_SUCCESS);
    MPI_Initialized(&flag);
    CHECK(flag);
    int wsize, csize;
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_size(world, &csize);
    CHECK_EQ_INT(wsize, csize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, rc = MPI_Session_get_num_psets(MPI_SESSION_NULL, MPI_INFO_NULL, &csize);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_SESSION);
    MPI_Barrier(world);
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    MPI_Finalized(&flag);
    CHECK(flag);

    /* the session goes on after MPI_Finalize */
    int one = 1, sum = 0;
    CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, world) == MPI_SUCCESS);
    CHECK_EQ_INT(sum, wsize);
    MPI_Comm_free(&self);
    CHECK(MPI_Session_finalize(&t) == MPI_SUCCESS);
    CHECK(t == MPI_SESSION_NULL);
    CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, world) == MPI_SUCCESS);
    CHECK_EQ_INT(sum, wsize);
    MPI_Barrier(world); /* nobody takes the device down while others still talk */
    MPI_Comm_free(&world);
    CHECK(MPI_Session_finalize(&s) == MPI_SUCCESS);
    return 0;
}
