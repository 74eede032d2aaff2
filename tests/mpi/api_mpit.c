/* api_mpit.c — the tool information interface: used before MPI_Init and
 * after MPI_Finalize, nested init/finalize, the SKIFF_* control variables
 * (names, descriptions, values in effect — the job runs with
 * SKIFF_MPI_EAGER_MAX set by ctest, so its value is known — read-only), the
 * one category, the two performance variables (levels of the matching
 * queues, seen to move), sessions and handles, and the error codes of every
 * misuse. */
#include <string.h>

#include "mpitest.h"

static void cvars(void)
{
    int n = -1;
    CHECK_EQ_INT(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n >= 10);
    for (int i = 0; i < n; i++) {
        char name[128], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_EQ_INT(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &en, desc,
                                         &desc_len, &bind, &scope),
                     MPI_SUCCESS);
        CHECK(strncmp(name, "SKIFF_", 6) == 0);
        CHECK_EQ_INT(name_len, (int)strlen(name) + 1);
        CHECK(desc_len > 1 && desc[0] != '\0');
        CHECK(dt == MPI_CHAR && en == MPI_T_ENUM_NULL);
        CHECK_EQ_INT(bind, MPI_T_BIND_NO_OBJECT);
        CHECK_EQ_INT(scope, MPI_T_SCOPE_READONLY);
        int idx = -1;
        CHECK_EQ_INT(MPI_T_cvar_get_index(name, &idx), MPI_SUCCESS);
        CHECK_EQ_INT(idx, i);
    }
    /* the length asked for, then a truncated copy */
    int idx, len = 0;
    CHECK_EQ_INT(MPI_T_cvar_get_index("SKIFF_MPI_EAGER_MAX", &idx), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_cvar_get_info(idx, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 MPI_SUCCESS);
    CHECK_EQ_INT(len, (int)strlen("SKIFF_MPI_EAGER_MAX") + 1);
    char small[6];
    len = sizeof small;
    MPI_T_cvar_get_info(idx, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    CHECK(strcmp(small, "SKIFF") == 0 && len == 6);

    /* the value in effect: what the environment says */
    const char *env = getenv("SKIFF_MPI_EAGER_MAX");
    CHECK(env != NULL); /* set by the test's registration */
    MPI_T_cvar_handle h;
    int count = -1;
    CHECK_EQ_INT(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count), MPI_SUCCESS);
    CHECK_EQ_INT(count, (int)strlen(env) + 1);
    char value[64];
    memset(value, 'x', sizeof value);
    CHECK_EQ_INT(MPI_T_cvar_read(h, value), MPI_SUCCESS);
    CHECK(strcmp(value, env) == 0);
    CHECK_EQ_INT(MPI_T_cvar_write(h, "1K"), MPI_T_ERR_CVAR_SET_NEVER);
    CHECK_EQ_INT(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL);
    CHECK_EQ_INT(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, value), MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_cvar_handle_alloc(-1, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX);
    CHECK_EQ_INT(MPI_T_cvar_get_index("SKIFF_NO_SUCH_THING", &idx), MPI_T_ERR_INVALID_NAME);
}

static void categories_pvars_enums(void)
{
    int ncat = -1, ncv = -1, npv = -1, nsub = -1, n;
    CHECK_EQ_INT(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    CHECK_EQ_INT(ncat, 1);
    char name[64], desc[256];
    int name_len = sizeof name, desc_len = sizeof desc;
    CHECK_EQ_INT(MPI_T_category_get_info(0, name, &name_len, desc, &desc_len, &ncv, &npv, &nsub),
                 MPI_SUCCESS);
    MPI_T_cvar_get_num(&n);
    CHECK(strcmp(name, "skiff") == 0);
    CHECK(ncv == n && npv == 2 && nsub == 0);
    int *idx = malloc((size_t)n * sizeof *idx), cat = -1;
    CHECK_EQ_INT(MPI_T_category_get_cvars(0, n, idx), MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK_EQ_INT(idx[i], i);
    free(idx);
    CHECK_EQ_INT(MPI_T_category_get_index("skiff", &cat), MPI_SUCCESS);
    CHECK_EQ_INT(cat, 0);
    CHECK_EQ_INT(MPI_T_category_get_index("mpich", &cat), MPI_T_ERR_INVALID_NAME);
    CHECK_EQ_INT(MPI_T_category_get_categories(0, 0, NULL), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_category_get_info(1, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
                 MPI_T_ERR_INVALID_INDEX);
    int stamp = -1, stamp2 = -2;
    CHECK_EQ_INT(MPI_T_category_changed(&stamp), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_category_changed(&stamp2), MPI_SUCCESS);
    CHECK_EQ_INT(stamp, stamp2);

    int np = -1;
    CHECK_EQ_INT(MPI_T_pvar_get_num(&np), MPI_SUCCESS);
    CHECK_EQ_INT(np, 2);
    CHECK_EQ_INT(npv, np);
    int pidx[2];
    CHECK_EQ_INT(MPI_T_category_get_pvars(0, 2, pidx), MPI_SUCCESS);
    CHECK(pidx[0] == 0 && pidx[1] == 1);
    for (int i = 0; i < np; i++) {
        int vclass, ro, cont, atomic, bind, verb;
        MPI_Datatype dt;
        MPI_T_enum en;
        name_len = sizeof name;
        CHECK_EQ_INT(MPI_T_pvar_get_info(i, name, &name_len, &verb, &vclass, &dt, &en, NULL, NULL,
                                         &bind, &ro, &cont, &atomic),
                     MPI_SUCCESS);
        CHECK(vclass == MPI_T_PVAR_CLASS_LEVEL && dt == MPI_UNSIGNED_LONG_LONG && ro && cont);
        CHECK_EQ_INT(bind, MPI_T_BIND_NO_OBJECT);
        int back = -1;
        CHECK_EQ_INT(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_LEVEL, &back), MPI_SUCCESS);
        CHECK_EQ_INT(back, i);
        CHECK_EQ_INT(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &back),
                     MPI_T_ERR_INVALID_NAME);
    }
    int i_posted, i_unexp, count;
    CHECK_EQ_INT(MPI_T_pvar_get_index("skiff_mpi_posted_recvs", MPI_T_PVAR_CLASS_LEVEL, &i_posted),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_pvar_get_index("skiff_mpi_unexpected_msgs", MPI_T_PVAR_CLASS_LEVEL,
                                      &i_unexp),
                 MPI_SUCCESS);
    MPI_T_pvar_session s;
    MPI_T_pvar_handle hp, hu;
    CHECK_EQ_INT(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_pvar_handle_alloc(s, i_posted, NULL, &hp, &count), MPI_SUCCESS);
    CHECK_EQ_INT(count, 1);
    CHECK_EQ_INT(MPI_T_pvar_handle_alloc(s, i_unexp, NULL, &hu, &count), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_pvar_handle_alloc(s, np, NULL, &hu, &count), MPI_T_ERR_INVALID_INDEX);

    /* posted receives: exactly this rank's (no collective is running) */
    unsigned long long posted = 99, unexp0 = 0, unexp1 = 0;
    CHECK_EQ_INT(MPI_T_pvar_read(s, hp, &posted), MPI_SUCCESS);
    CHECK_EQ_INT(posted, 0);
    int in = 0, out = 5;
    MPI_Request req;
    MPI_Irecv(&in, 1, MPI_INT, 0, 77, MPI_COMM_SELF, &req);
    MPI_T_pvar_read(s, hp, &posted);
    CHECK_EQ_INT(posted, 1);
    MPI_Send(&out, 1, MPI_INT, 0, 77, MPI_COMM_SELF);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_T_pvar_read(s, hp, &posted);
    CHECK_EQ_INT(posted, 0);
    /* unexpected messages: a send to self nobody has asked for yet counts (other
     * ranks' messages may arrive meanwhile, nothing leaves the queue) */
    MPI_T_pvar_read(s, hu, &unexp0);
    MPI_Send(&out, 1, MPI_INT, 0, 78, MPI_COMM_SELF);
    MPI_Probe(0, 78, MPI_COMM_SELF, MPI_STATUS_IGNORE); /* arrived: queued, not received */
    MPI_T_pvar_read(s, hu, &unexp1);
    CHECK(unexp1 >= unexp0 + 1);
    MPI_Recv(&in, 1, MPI_INT, 0, 78, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    CHECK_EQ_INT(in, 5);

    /* continuous and read-only */
    CHECK_EQ_INT(MPI_T_pvar_start(s, hp), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_EQ_INT(MPI_T_pvar_stop(s, hp), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_EQ_INT(MPI_T_pvar_write(s, hp, &posted), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_EQ_INT(MPI_T_pvar_reset(s, hp), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_EQ_INT(MPI_T_pvar_readreset(s, hp, &posted), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_EQ_INT(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &posted), MPI_T_ERR_INVALID_HANDLE);

    /* handles belong to their session */
    MPI_T_pvar_session s2;
    MPI_T_pvar_session_create(&s2);
    CHECK_EQ_INT(MPI_T_pvar_read(s2, hp, &posted), MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_pvar_handle_free(s, &hp), MPI_SUCCESS);
    CHECK(hp == MPI_T_PVAR_HANDLE_NULL);
    CHECK_EQ_INT(MPI_T_pvar_read(s, hp, &posted), MPI_T_ERR_INVALID_HANDLE);
    CHECK_EQ_INT(MPI_T_pvar_session_free(&s2), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_pvar_session_free(&s), MPI_SUCCESS); /* frees hu with it */
    CHECK(s == MPI_T_PVAR_SESSION_NULL);
    CHECK_EQ_INT(MPI_T_pvar_session_free(&s), MPI_T_ERR_INVALID_SESSION);
    CHECK_EQ_INT(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_T_ERR_INVALID_SESSION);
    int num;
    CHECK_EQ_INT(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &num, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
}

int main(int argc, char **argv)
{
    int provided = -1, n;
    /* before MPI_Init, nested */
    CHECK_EQ_INT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_EQ_INT(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    CHECK_EQ_INT(provided, MPI_THREAD_SINGLE);
    CHECK_EQ_INT(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    CHECK_EQ_INT(provided, MPI_THREAD_SERIALIZED);
    cvars();
    test_init(&argc, &argv);
    categories_pvars_enums();
    CHECK_EQ_INT(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* one init still open */
    test_done("api_mpit");
    /* after MPI_Finalize */
    cvars();
    CHECK_EQ_INT(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_EQ_INT(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    return 0;
}
