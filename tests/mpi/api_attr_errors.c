/* api_attr_errors.c — the MPI-1 attribute calls (MPI_Keyval_create/free,
 * MPI_Attr_put/get/delete, MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN):
 * copies on MPI_Comm_dup, deletes on overwrite, delete and MPI_Comm_free;
 * error classes, codes and strings added by the application with
 * MPI_Error_class/MPI_Error_string on them, MPI_LASTUSEDCODE, a user handler
 * receiving an added code; MPI_Pcontrol and MPI_Comm_get_parent. */
#include <string.h>

#include "mpitest.h"

static int copies, deletes, last_deleted;

static int copy_fn(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    CHECK(extra == &copies);
    copies++;
    *(void **)out = (void *)((intptr_t)in + 1000); /* the copy is marked */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    CHECK(extra == &deletes);
    deletes++;
    last_deleted = (int)(intptr_t)val;
    return MPI_SUCCESS;
}

static int got_value(MPI_Comm comm, int keyval, intptr_t *value);

/* A delete callback that deletes the object's other attributes (kv_a, kv_c). */
static int kv_a, kv_c, cascades;
static int cascade_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval, (void)val, (void)extra;
    cascades++;
    int flag;
    void *v;
    MPI_Attr_get(comm, kv_a, &v, &flag);
    if (flag)
        CHECK_EQ_INT(MPI_Attr_delete(comm, kv_a), MPI_SUCCESS);
    MPI_Attr_get(comm, kv_c, &v, &flag);
    if (flag)
        CHECK_EQ_INT(MPI_Attr_delete(comm, kv_c), MPI_SUCCESS);
    return MPI_SUCCESS;
}

static void delete_deleting_others(void)
{
    int kv_b;
    MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kv_a, NULL);
    MPI_Keyval_create(MPI_NULL_COPY_FN, cascade_delete, &kv_b, NULL);
    MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kv_c, NULL);
    for (int round = 0; round < 2; round++) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Attr_put(comm, kv_a, (void *)1);
        MPI_Attr_put(comm, kv_b, (void *)2);
        MPI_Attr_put(comm, kv_c, (void *)3);
        cascades = 0;
        if (round == 0) { /* by MPI_Attr_delete: the others go with it */
            CHECK_EQ_INT(MPI_Attr_delete(comm, kv_b), MPI_SUCCESS);
            intptr_t v;
            CHECK_EQ_INT(got_value(comm, kv_a, &v), 0);
            CHECK_EQ_INT(got_value(comm, kv_c, &v), 0);
        }
        CHECK_EQ_INT(MPI_Comm_free(&comm), MPI_SUCCESS); /* round 1: by the free */
        CHECK_EQ_INT(cascades, 1);
    }
    MPI_Keyval_free(&kv_a);
    MPI_Keyval_free(&kv_b);
    MPI_Keyval_free(&kv_c);
}

static int got_value(MPI_Comm comm, int keyval, intptr_t *value)
{
    void *v = NULL;
    int flag = -1;
    CHECK_EQ_INT(MPI_Attr_get(comm, keyval, &v, &flag), MPI_SUCCESS);
    *value = (intptr_t)v;
    return flag;
}

static void mpi1_attributes(void)
{
    int kv_dup, kv_null, kv_del;
    CHECK_EQ_INT(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kv_dup, NULL), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &kv_null, NULL),
                 MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Keyval_create(MPI_NULL_COPY_FN, delete_fn, &kv_del, &deletes), MPI_SUCCESS);
    CHECK(kv_dup != kv_null && kv_null != kv_del && kv_dup != MPI_KEYVAL_INVALID);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    intptr_t v;
    CHECK_EQ_INT(got_value(comm, kv_dup, &v), 0);

    CHECK_EQ_INT(MPI_Attr_put(comm, kv_dup, (void *)(intptr_t)(T_rank + 7)), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Attr_put(comm, kv_null, (void *)(intptr_t)42), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Attr_put(comm, kv_del, (void *)(intptr_t)5), MPI_SUCCESS);
    CHECK(got_value(comm, kv_dup, &v));
    CHECK_EQ_INT(v, T_rank + 7);

    /* overwrite runs the delete callback on the old value */
    deletes = 0;
    CHECK_EQ_INT(MPI_Attr_put(comm, kv_del, (void *)(intptr_t)6), MPI_SUCCESS);
    CHECK_EQ_INT(deletes, 1);
    CHECK_EQ_INT(last_deleted, 5);

    /* Comm_dup: MPI_DUP_FN copies the value, MPI_NULL_COPY_FN does not, the
     * keyval without a copy function is not copied either */
    MPI_Comm dup;
    CHECK_EQ_INT(MPI_Comm_dup(comm, &dup), MPI_SUCCESS);
    CHECK(got_value(dup, kv_dup, &v));
    CHECK_EQ_INT(v, T_rank + 7);
    CHECK_EQ_INT(got_value(dup, kv_null, &v), 0);
    CHECK_EQ_INT(got_value(dup, kv_del, &v), 0);

    /* MPI_Attr_delete runs the delete callback */
    deletes = 0;
    CHECK_EQ_INT(MPI_Attr_delete(comm, kv_del), MPI_SUCCESS);
    CHECK_EQ_INT(deletes, 1);
    CHECK_EQ_INT(last_deleted, 6);
    CHECK_EQ_INT(got_value(comm, kv_del, &v), 0);

    /* freeing the communicator deletes what is left */
    CHECK_EQ_INT(MPI_Attr_put(comm, kv_del, (void *)(intptr_t)9), MPI_SUCCESS);
    deletes = 0;
    CHECK_EQ_INT(MPI_Comm_free(&comm), MPI_SUCCESS);
    CHECK_EQ_INT(deletes, 1);
    CHECK_EQ_INT(last_deleted, 9);
    MPI_Comm_free(&dup);

    /* a user copy function: its output is what the duplicate holds */
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    copies = 0;
    int kv_copy;
    CHECK_EQ_INT(MPI_Keyval_create(copy_fn, MPI_NULL_DELETE_FN, &kv_copy, &copies), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Attr_put(a, kv_copy, (void *)(intptr_t)3), MPI_SUCCESS);
    MPI_Comm_dup(a, &b);
    CHECK_EQ_INT(copies, 1);
    CHECK(got_value(b, kv_copy, &v));
    CHECK_EQ_INT(v, 1003);
    /* the MPI-1 and MPI-2 names reach the same attributes */
    void *pv = NULL;
    int flag = 0;
    CHECK_EQ_INT(MPI_Comm_get_attr(b, kv_copy, &pv, &flag), MPI_SUCCESS);
    CHECK(flag && (intptr_t)pv == 1003);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);

    /* freed keyvals become MPI_KEYVAL_INVALID; a freed one is rejected */
    int stale = kv_copy;
    CHECK_EQ_INT(MPI_Keyval_free(&kv_copy), MPI_SUCCESS);
    CHECK_EQ_INT(kv_copy, MPI_KEYVAL_INVALID);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Attr_put(MPI_COMM_WORLD, stale, NULL), MPI_ERR_KEYVAL);
    CHECK_EQ_INT(MPI_Keyval_free(&stale), MPI_ERR_KEYVAL);
    /* predefined attributes are read-only but readable through MPI_Attr_get */
    CHECK_EQ_INT(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    CHECK_EQ_INT(MPI_Attr_delete(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
    CHECK_EQ_INT(MPI_Attr_put(MPI_COMM_NULL, kv_dup, NULL), MPI_ERR_COMM);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    int *tag_ub = NULL;
    CHECK_EQ_INT(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag), MPI_SUCCESS);
    CHECK(flag && *tag_ub >= 32767);
    int *universe = NULL;
    CHECK_EQ_INT(MPI_Attr_get(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &universe, &flag), MPI_SUCCESS);
    CHECK(flag && *universe == T_size);
    MPI_Keyval_free(&kv_dup);
    MPI_Keyval_free(&kv_null);
    MPI_Keyval_free(&kv_del);
}

static int handler_calls, handler_code;
static void handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

static int lastused(void)
{
    int *p = NULL, flag = 0;
    CHECK_EQ_INT(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag), MPI_SUCCESS);
    CHECK(flag && p);
    return *p;
}

static void error_classes(void)
{
    char s[MPI_MAX_ERROR_STRING];
    int len, cls;
    int before = lastused();
    CHECK(before >= MPI_ERR_LASTCODE);

    int myclass, code1, code2, code_other;
    CHECK_EQ_INT(MPI_Add_error_class(&myclass), MPI_SUCCESS);
    CHECK(myclass > MPI_ERR_LASTCODE);
    CHECK_EQ_INT(lastused(), myclass);
    CHECK_EQ_INT(MPI_Add_error_code(myclass, &code1), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Add_error_code(myclass, &code2), MPI_SUCCESS);
    /* codes may belong to predefined classes too */
    CHECK_EQ_INT(MPI_Add_error_code(MPI_ERR_ARG, &code_other), MPI_SUCCESS);
    CHECK(code1 != code2 && code1 != myclass && code2 != code_other);
    CHECK_EQ_INT(lastused(), code_other);
    /* every rank adds in the same order, so the values agree (MPI-3.1 8.5) */
    int mine[4] = {myclass, code1, code2, code_other}, root[4];
    memcpy(root, mine, sizeof root);
    MPI_Bcast(root, 4, MPI_INT, 0, MPI_COMM_WORLD);
    CHECK(memcmp(root, mine, sizeof root) == 0);

    CHECK_EQ_INT(MPI_Error_class(myclass, &cls), MPI_SUCCESS);
    CHECK_EQ_INT(cls, myclass);
    CHECK_EQ_INT(MPI_Error_class(code2, &cls), MPI_SUCCESS);
    CHECK_EQ_INT(cls, myclass);
    CHECK_EQ_INT(MPI_Error_class(code_other, &cls), MPI_SUCCESS);
    CHECK_EQ_INT(cls, MPI_ERR_ARG);

    /* no string yet: "" */
    s[0] = 'x';
    CHECK_EQ_INT(MPI_Error_string(code1, s, &len), MPI_SUCCESS);
    CHECK_EQ_INT(len, 0);
    CHECK_EQ_INT(s[0], '\0');
    CHECK_EQ_INT(MPI_Add_error_string(myclass, "application class"), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Add_error_string(code1, "first code"), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Error_string(myclass, s, &len), MPI_SUCCESS);
    CHECK(strcmp(s, "application class") == 0);
    CHECK_EQ_INT(len, (int)strlen("application class"));
    CHECK_EQ_INT(MPI_Error_string(code1, s, &len), MPI_SUCCESS);
    CHECK(strcmp(s, "first code") == 0);
    /* a later string replaces the earlier one */
    CHECK_EQ_INT(MPI_Add_error_string(code1, "first code, again"), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Error_string(code1, s, &len), MPI_SUCCESS);
    CHECK(strcmp(s, "first code, again") == 0);

    /* a user handler receives the added code */
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, eh);
    CHECK_EQ_INT(MPI_Comm_call_errhandler(comm, code2), MPI_SUCCESS);
    CHECK_EQ_INT(handler_calls, 1);
    CHECK_EQ_INT(handler_code, code2);
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&eh);

    /* what is refused */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int out;
    CHECK_EQ_INT(MPI_Add_error_code(lastused() + 1, &out), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Add_error_code(code1, &out), MPI_ERR_ARG); /* a code, not a class */
    CHECK_EQ_INT(MPI_Add_error_code(MPI_SUCCESS, &out), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Add_error_string(MPI_ERR_TRUNCATE, "mine"), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Add_error_string(lastused() + 1, "nobody's"), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Add_error_class(NULL), MPI_ERR_ARG);
    char *huge = malloc(MPI_MAX_ERROR_STRING + 1);
    memset(huge, 'a', MPI_MAX_ERROR_STRING);
    huge[MPI_MAX_ERROR_STRING] = '\0';
    CHECK_EQ_INT(MPI_Add_error_string(code2, huge), MPI_ERR_ARG);
    huge[MPI_MAX_ERROR_STRING - 1] = '\0'; /* the longest that fits */
    CHECK_EQ_INT(MPI_Add_error_string(code2, huge), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Error_string(code2, s, &len), MPI_SUCCESS);
    CHECK_EQ_INT(len, MPI_MAX_ERROR_STRING - 1);
    free(huge);
    CHECK_EQ_INT(MPI_Error_class(lastused() + 1, &cls), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    CHECK_EQ_INT(lastused(), code_other);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    mpi1_attributes();
    delete_deleting_others();
    error_classes();
    /* no profiler: every level is accepted */
    CHECK_EQ_INT(MPI_Pcontrol(0), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Pcontrol(1), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Pcontrol(2, "extra", 3), MPI_SUCCESS);
    MPI_Comm parent = MPI_COMM_WORLD;
    CHECK_EQ_INT(MPI_Comm_get_parent(&parent), MPI_SUCCESS);
    CHECK(parent == MPI_COMM_NULL);
    test_done("api_attr_errors");
    return 0;
}
