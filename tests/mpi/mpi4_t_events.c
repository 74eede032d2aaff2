/* mpi4_t_events.c — MPI_T events and sources (MPI 4.0): the one source (a
 * monotonic nanosecond clock), the event "skiff_mpi_unexpected_message"
 * (description, elements, binding, category), registrations bound to a
 * communicator: a callback without restrictions (queued, called at the next
 * MPI call) and a thread-safe one (called where the event is raised) each see
 * exactly the unexpected messages of their communicator with the right
 * communicator, source, tag and byte count through MPI_T_event_read and
 * MPI_T_event_copy, timestamps from the source; infos kept; freeing calls
 * the free callback and stops the events; more unexpected messages in one
 * MPI call than are queued reach the dropped handler; the error codes of
 * misuse. */
#include <string.h>

#include "mpitest.h"

typedef struct seen {
    int calls;
    MPI_T_cb_safety safety;
    MPI_Aint comm;
    int source, tag;
    MPI_Count bytes, stamp;
    int src_index, bad_index_rc, copy_ok;
} seen_t;

typedef struct copy_layout {
    MPI_Aint comm;
    int source, tag;
    MPI_Count bytes;
} copy_layout_t;

static MPI_Aint displs[4];

static void on_event(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety s,
                     void *user)
{
    (void)reg;
    seen_t *w = user;
    w->calls++;
    w->safety = s;
    MPI_T_event_read(ev, 0, &w->comm);
    MPI_T_event_read(ev, 1, &w->source);
    MPI_T_event_read(ev, 2, &w->tag);
    MPI_T_event_read(ev, 3, &w->bytes);
    MPI_T_event_get_timestamp(ev, &w->stamp);
    MPI_T_event_get_source(ev, &w->src_index);
    int x;
    w->bad_index_rc = MPI_T_event_read(ev, 4, &x);
    unsigned char buf[64];
    MPI_T_event_copy(ev, buf);
    MPI_Aint c;
    int src, tag;
    MPI_Count bytes;
    memcpy(&c, buf + displs[0], sizeof c);
    memcpy(&src, buf + displs[1], sizeof src);
    memcpy(&tag, buf + displs[2], sizeof tag);
    memcpy(&bytes, buf + displs[3], sizeof bytes);
    w->copy_ok = c == w->comm && src == w->source && tag == w->tag && bytes == w->bytes;
}

static int frees;
static void on_free(MPI_T_event_registration reg, MPI_T_cb_safety s, void *user)
{
    (void)reg;
    CHECK_EQ_INT(s, MPI_T_CB_REQUIRE_NONE);
    CHECK(user == &frees);
    frees++;
}

static void source(void)
{
    int n = -1;
    CHECK_EQ_INT(MPI_T_source_get_num(&n), MPI_SUCCESS);
    CHECK_EQ_INT(n, 1);
    char name[64], desc[256];
    int nl = sizeof name, dl = sizeof desc;
    MPI_T_source_order order;
    MPI_Count tps, max;
    MPI_Info info = MPI_INFO_NULL;
    CHECK_EQ_INT(MPI_T_source_get_info(0, name, &nl, desc, &dl, &order, &tps, &max, &info),
                 MPI_SUCCESS);
    CHECK(strcmp(name, "skiff_monotonic_clock") == 0 && nl == (int)strlen(name) + 1);
    CHECK_EQ_INT(order, MPI_T_SOURCE_ORDERED);
    CHECK(tps == 1000000000 && max > 0);
    CHECK(info != MPI_INFO_NULL);
    MPI_Info_free(&info);
    MPI_Count a, b;
    CHECK_EQ_INT(MPI_T_source_get_timestamp(0, &a), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_source_get_timestamp(0, &b), MPI_SUCCESS);
    CHECK(b >= a);
    CHECK_EQ_INT(MPI_T_source_get_timestamp(1, &a), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_source_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX);
}

static int event_index(void)
{
    int n = -1, idx = -1;
    CHECK_EQ_INT(MPI_T_event_get_num(&n), MPI_SUCCESS);
    CHECK(n >= 1);
    CHECK_EQ_INT(MPI_T_event_get_index("skiff_mpi_unexpected_message", &idx), MPI_SUCCESS);
    CHECK(idx >= 0 && idx < n);
    CHECK_EQ_INT(MPI_T_event_get_index("no_such_event", &n), MPI_T_ERR_INVALID_NAME);
    char name[64], desc[256];
    int nl = sizeof name, dl = sizeof desc, verb, nel = 0, bind;
    MPI_Datatype types[8];
    MPI_T_enum en;
    MPI_Info info;
    /* first only the number of elements */
    CHECK_EQ_INT(MPI_T_event_get_info(idx, NULL, NULL, NULL, NULL, NULL, &nel, NULL, NULL, NULL,
                                      NULL, NULL),
                 MPI_SUCCESS);
    CHECK_EQ_INT(nel, 4);
    nel = 8;
    CHECK_EQ_INT(MPI_T_event_get_info(idx, name, &nl, &verb, types, displs, &nel, &en, &info,
                                      desc, &dl, &bind),
                 MPI_SUCCESS);
    CHECK(strcmp(name, "skiff_mpi_unexpected_message") == 0);
    CHECK_EQ_INT(nel, 4);
    CHECK(types[0] == MPI_AINT && types[1] == MPI_INT && types[2] == MPI_INT &&
          types[3] == MPI_COUNT);
    CHECK(displs[0] == 0 && displs[1] >= (MPI_Aint)sizeof(MPI_Aint) && displs[2] > displs[1] &&
          displs[3] > displs[2]);
    CHECK(en == MPI_T_ENUM_NULL && bind == MPI_T_BIND_MPI_COMM && dl > 1);
    MPI_Info_free(&info);
    CHECK_EQ_INT(MPI_T_event_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                      NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX);

    int ne = -1, list[4] = {-1, -1, -1, -1};
    CHECK_EQ_INT(MPI_T_category_get_num_events(0, &ne), MPI_SUCCESS);
    CHECK_EQ_INT(ne, n);
    CHECK_EQ_INT(MPI_T_category_get_events(0, 4, list), MPI_SUCCESS);
    CHECK_EQ_INT(list[idx], idx);
    CHECK_EQ_INT(MPI_T_category_get_num_events(1, &ne), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_category_get_events(1, 4, list), MPI_T_ERR_INVALID_INDEX);
    return idx;
}

/* Partner sends bytes on comm with tag; wait until it is here, unexpected. */
static void unexpected(MPI_Comm comm, int tag, int bytes)
{
    int partner = test_partner(), flag = 0;
    char out[256] = {0}, in[256];
    MPI_Request r;
    MPI_Isend(out, bytes, MPI_CHAR, partner, tag, comm, &r);
    while (!flag)
        MPI_Iprobe(partner, tag, comm, &flag, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD); /* an MPI call: queued instances are delivered */
    MPI_Recv(in, bytes, MPI_CHAR, partner, tag, comm, MPI_STATUS_IGNORE);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
}

static void events(int idx)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_T_event_registration queued, direct, bad;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "skiff_test", "handle");
    CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, &comm, info, &queued), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, &comm, MPI_INFO_NULL, &direct), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(-1, &comm, MPI_INFO_NULL, &bad),
                 MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(99, &comm, MPI_INFO_NULL, &bad),
                 MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &bad),
                 MPI_T_ERR_INVALID_HANDLE);
    MPI_Comm null = MPI_COMM_NULL;
    CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, &null, MPI_INFO_NULL, &bad),
                 MPI_T_ERR_INVALID_HANDLE);
    seen_t sq = {0}, sd = {0};
    CHECK_EQ_INT(MPI_T_event_register_callback(queued, MPI_T_CB_REQUIRE_NONE, info, &sq, on_event),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_event_register_callback(direct, MPI_T_CB_REQUIRE_THREAD_SAFE,
                                               MPI_INFO_NULL, &sd, on_event),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_event_register_callback(direct, (MPI_T_cb_safety)5, MPI_INFO_NULL, &sd,
                                               on_event),
                 MPI_T_ERR_INVALID);
    CHECK_EQ_INT(MPI_T_event_register_callback(NULL, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &sd,
                                               on_event),
                 MPI_T_ERR_INVALID_HANDLE);
    MPI_Info_free(&info);

    /* infos kept: the handle's, the callback's, replaced by set_info */
    MPI_Info got;
    char v[32];
    int len = sizeof v, flag;
    CHECK_EQ_INT(MPI_T_event_handle_get_info(queued, &got), MPI_SUCCESS);
    MPI_Info_get_string(got, "skiff_test", &len, v, &flag);
    CHECK(flag && strcmp(v, "handle") == 0);
    MPI_Info_free(&got);
    MPI_Info_create(&info);
    MPI_Info_set(info, "skiff_test", "callback");
    CHECK_EQ_INT(MPI_T_event_callback_set_info(queued, MPI_T_CB_REQUIRE_NONE, info), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_event_handle_set_info(direct, info), MPI_SUCCESS);
    MPI_Info_free(&info);
    CHECK_EQ_INT(MPI_T_event_callback_get_info(queued, MPI_T_CB_REQUIRE_NONE, &got), MPI_SUCCESS);
    len = sizeof v;
    MPI_Info_get_string(got, "skiff_test", &len, v, &flag);
    CHECK(flag && strcmp(v, "callback") == 0);
    MPI_Info_free(&got);
    CHECK_EQ_INT(MPI_T_event_handle_get_info(direct, &got), MPI_SUCCESS);
    len = sizeof v;
    MPI_Info_get_string(got, "skiff_test", &len, v, &flag);
    CHECK(flag && strcmp(v, "callback") == 0);
    MPI_Info_free(&got);
    CHECK_EQ_INT(MPI_T_event_callback_get_info(queued, (MPI_T_cb_safety)1, &got),
                 MPI_T_ERR_INVALID);
    CHECK_EQ_INT(MPI_T_event_set_dropped_handler(NULL, NULL), MPI_T_ERR_INVALID_HANDLE);

    MPI_Count before, after; /* the partner sends once it is out of the barrier */
    MPI_T_source_get_timestamp(0, &before);
    test_barrier(); /* every rank has its registrations */
    unexpected(comm, 7, 40);
    MPI_T_source_get_timestamp(0, &after);
    int partner = test_partner();
    seen_t *both[2] = {&sq, &sd};
    for (int k = 0; k < 2; k++) {
        seen_t *w = both[k];
        CHECK_EQ_INT(w->calls, 1);
        CHECK(w->comm == (MPI_Aint)(uintptr_t)comm);
        CHECK_EQ_INT(w->source, partner);
        CHECK_EQ_INT(w->tag, 7);
        CHECK_EQ_INT(w->bytes, 40);
        CHECK(w->stamp >= before && w->stamp <= after);
        CHECK_EQ_INT(w->src_index, 0);
        CHECK_EQ_INT(w->bad_index_rc, MPI_T_ERR_INVALID_INDEX);
        CHECK(w->copy_ok);
    }
    CHECK_EQ_INT(sq.safety, MPI_T_CB_REQUIRE_NONE);
    CHECK_EQ_INT(sd.safety, MPI_T_CB_REQUIRE_THREAD_SAFE);

    unexpected(MPI_COMM_WORLD, 8, 3); /* another communicator: not theirs */
    CHECK(sq.calls == 1 && sd.calls == 1);

    CHECK_EQ_INT(MPI_T_event_handle_free(direct, &frees, on_free), MPI_SUCCESS);
    CHECK_EQ_INT(frees, 1);
    unexpected(comm, 9, 0);
    CHECK_EQ_INT(sq.calls, 2);
    CHECK_EQ_INT(sq.tag, 9);
    CHECK_EQ_INT(sq.bytes, 0);
    CHECK_EQ_INT(sd.calls, 1); /* freed */
    CHECK_EQ_INT(MPI_T_event_handle_free(queued, &frees, on_free), MPI_SUCCESS);
    CHECK_EQ_INT(frees, 2);
    unexpected(comm, 10, 5);
    CHECK_EQ_INT(sq.calls, 2);
    static uint64_t junk[32]; /* memory that is no registration */
    CHECK_EQ_INT(MPI_T_event_handle_free((MPI_T_event_registration)(void *)junk, NULL, NULL),
                 MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_handle_free(NULL, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);

    int x;
    MPI_Count ts;
    CHECK_EQ_INT(MPI_T_event_read(NULL, 0, &x), MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_copy(NULL, &x), MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_get_timestamp(NULL, &ts), MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_event_get_source(NULL, &x), MPI_T_ERR_INVALID_HANDLE);
    MPI_Comm_free(&comm);
}

static MPI_Count dropped_count;
static int dropped_calls;
static void on_dropped(MPI_Count count, MPI_T_event_registration reg, int source_index,
                       MPI_T_cb_safety s, void *user)
{
    (void)reg, (void)user;
    CHECK_EQ_INT(source_index, 0);
    CHECK_EQ_INT(s, MPI_T_CB_REQUIRE_NONE);
    dropped_count += count;
    dropped_calls++;
}

/* More unexpected messages inside one MPI call than a registration queues
 * (1024): the rest are dropped and counted for the dropped handler.  In each
 * pair the lower rank receives (its MPI_Wait does not deliver), the higher
 * sends once told to; an odd one out does nothing. */
enum { FLOOD = 1100, QUEUED = 1024 };
static void dropped(int idx)
{
    int partner = test_partner();
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (partner < T_rank) {
        int go, x = 1;
        MPI_Recv(&go, 1, MPI_INT, partner, 1, comm, MPI_STATUS_IGNORE);
        MPI_Request r[FLOOD];
        for (int i = 0; i < FLOOD; i++)
            MPI_Isend(&x, 1, MPI_INT, partner, 100, comm, &r[i]);
        MPI_Send(&x, 1, MPI_INT, partner, 2, MPI_COMM_WORLD);
        MPI_Waitall(FLOOD, r, MPI_STATUSES_IGNORE);
    } else if (partner > T_rank) {
        MPI_T_event_registration reg;
        seen_t w = {0};
        CHECK_EQ_INT(MPI_T_event_handle_alloc(idx, &comm, MPI_INFO_NULL, &reg), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &w,
                                                   on_event),
                     MPI_SUCCESS);
        CHECK_EQ_INT(MPI_T_event_set_dropped_handler(reg, on_dropped), MPI_SUCCESS);
        int go = 1, done, in;
        MPI_Request fin;
        MPI_Irecv(&done, 1, MPI_INT, partner, 2, MPI_COMM_WORLD, &fin);
        MPI_Send(&go, 1, MPI_INT, partner, 1, comm);
        MPI_Wait(&fin, MPI_STATUS_IGNORE); /* the flood arrives before the last message */
        CHECK_EQ_INT(w.calls + (int)dropped_count, 0); /* nothing delivered yet */
        MPI_Barrier(comm); /* an MPI call: delivered now */
        CHECK_EQ_INT(w.calls, QUEUED);
        CHECK_EQ_INT(dropped_calls, 1);
        CHECK_EQ_INT(dropped_count, FLOOD - QUEUED);
        CHECK_EQ_INT(w.tag, 100);
        CHECK_EQ_INT(w.source, partner);
        CHECK_EQ_INT(MPI_T_event_handle_free(reg, NULL, NULL), MPI_SUCCESS);
        for (int i = 0; i < FLOOD; i++)
            MPI_Recv(&in, 1, MPI_INT, partner, 100, comm, MPI_STATUS_IGNORE);
    }
    if (partner <= T_rank) /* the receivers' barrier above */
        MPI_Barrier(comm);
    MPI_Comm_free(&comm);
}

int main(int argc, char **argv)
{
    int provided, n;
    CHECK_EQ_INT(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_EQ_INT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    test_init(&argc, &argv);
    source();
    int idx = event_index();
    events(idx);
    test_barrier();
    dropped(idx);
    test_barrier();
    MPI_Finalize();
    CHECK_EQ_INT(MPI_T_event_get_num(&n), MPI_SUCCESS); /* MPI_T outlives MPI */
    CHECK_EQ_INT(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_source_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    if (T_rank == 0)
        printf("mpi4_t_events: passed on %d ranks\n", T_size);
    return 0;
}
