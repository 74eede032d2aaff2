/* attr_info — attribute caching and info objects: copy callbacks on dup
 * (and MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN), delete callbacks on delete,
 * overwrite and free (reverse order of setting), keyvals freed while still in
 * use, datatype attributes with Type_dup/Type_free, the predefined
 * attributes, SELF's attributes deleted at MPI_Finalize; info set/get/
 * get_string/delete/dup/nkeys/nthkey/free, MPI_INFO_ENV, Comm_set/get_info,
 * and the error classes of bad keys and keyvals. */
#include "mpitest.h"

static char events[256];
static int nev;

static void event(char kind, int key) { events[nev++] = (char)(kind), events[nev++] = (char)('0' + key); events[nev] = 0; }

static int copy_cb(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm;
    (void)keyval;
    event('c', *(int *)extra);
    *(intptr_t *)out = (intptr_t)in + 100; /* the copy gets a new value */
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_cb(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    event('d', *(int *)extra);
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
    return MPI_ERR_OTHER;
}

static int type_delete_cb(MPI_Datatype t, int keyval, void *val, void *extra)
{
    (void)t, (void)keyval, (void)val;
    event('t', *(int *)extra);
    return MPI_SUCCESS;
}

static int self_deleted;
static int self_delete_cb(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval, (void)val, (void)extra;
    CHECK(comm == MPI_COMM_SELF);
    self_deleted = 1;
    return MPI_SUCCESS;
}

static int one = 1, two = 2, three = 3;

static void comm_attrs(void)
{
    int k1, k2, k3, flag;
    void *v;
    MPI_Comm_create_keyval(copy_cb, delete_cb, &k1, &one);
    MPI_Comm_create_keyval(MPI_COMM_DUP_FN, delete_cb, &k2, &two);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cb, &k3, &three);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_attr(c, k1, (void *)(intptr_t)5);
    MPI_Comm_set_attr(c, k2, (void *)(intptr_t)6);
    MPI_Comm_set_attr(c, k3, (void *)(intptr_t)7);
    CHECK(nev == 0);
    MPI_Comm_get_attr(c, k1, &v, &flag);
    CHECK(flag && (intptr_t)v == 5);
    /* overwrite: the old value's delete callback runs */
    MPI_Comm_set_attr(c, k1, (void *)(intptr_t)8);
    CHECK(strcmp(events, "d1") == 0);
    nev = 0;
    /* dup: k1 copied by its callback, k2 by DUP_FN, k3 not at all */
    MPI_Comm d;
    MPI_Comm_dup(c, &d);
    CHECK(strcmp(events, "c1") == 0);
    MPI_Comm_get_attr(d, k1, &v, &flag);
    CHECK(flag && (intptr_t)v == 108);
    MPI_Comm_get_attr(d, k2, &v, &flag);
    CHECK(flag && (intptr_t)v == 6);
    MPI_Comm_get_attr(d, k3, &v, &flag);
    CHECK(!flag);
    nev = 0;
    /* delete one, then free: the rest in reverse order of setting */
    MPI_Comm_delete_attr(c, k2);
    CHECK(strcmp(events, "d2") == 0);
    nev = 0;
    MPI_Comm_set_attr(c, k2, (void *)(intptr_t)9); /* now newest */
    MPI_Comm_free(&c);
    CHECK(strcmp(events, "d2d3d1") == 0);
    nev = 0;
    /* a freed keyval still works for the attributes using it */
    MPI_Comm_free_keyval(&k1);
    CHECK(k1 == MPI_KEYVAL_INVALID);
    MPI_Comm_free(&d);
    CHECK(strcmp(events, "d2d1") == 0);
    nev = 0;
    /* a copy callback's error fails the dup */
    int kf;
    MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kf, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, kf, NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm e = MPI_COMM_NULL;
    CHECK_EQ_INT(MPI_Comm_dup(MPI_COMM_WORLD, &e), MPI_ERR_OTHER);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, kf);
    MPI_Comm_free_keyval(&kf);
    /* bad keyvals */
    CHECK_EQ_INT(MPI_Comm_set_attr(MPI_COMM_WORLD, 99999, NULL), MPI_ERR_KEYVAL);
    CHECK_EQ_INT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_KEYVAL);
    CHECK_EQ_INT(MPI_Comm_delete_attr(MPI_COMM_WORLD, k3), MPI_ERR_KEYVAL); /* not set */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free_keyval(&k2);
    MPI_Comm_free_keyval(&k3);
    /* predefined attributes */
    int *p;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag);
    CHECK(flag && *p >= 32767);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &p, &flag);
    CHECK(flag && *p == T_size);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &p, &flag);
    CHECK(flag && *p == MPI_PROC_NULL);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &p, &flag);
    CHECK(flag && *p == MPI_ANY_SOURCE);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &p, &flag);
    CHECK(flag && *p == 0);
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &p, &flag);
    CHECK(flag && *p == 0);
    /* MPI_Finalize deletes SELF's attributes (checked after it returns) */
    int ks;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete_cb, &ks, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, ks, NULL);
}

static void type_attrs(void)
{
    int k, flag;
    void *v;
    MPI_Type_create_keyval(MPI_TYPE_DUP_FN, type_delete_cb, &k, &one);
    MPI_Datatype t, d;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_set_attr(t, k, (void *)(intptr_t)3);
    MPI_Type_dup(t, &d);
    MPI_Type_get_attr(d, k, &v, &flag);
    CHECK(flag && (intptr_t)v == 3);
    nev = 0;
    MPI_Type_free(&t);
    CHECK(strcmp(events, "t1") == 0);
    MPI_Type_delete_attr(d, k);
    CHECK(strcmp(events, "t1t1") == 0);
    MPI_Type_get_attr(d, k, &v, &flag);
    CHECK(!flag);
    MPI_Type_free(&d);
    MPI_Type_free_keyval(&k);
    nev = 0;
}

static void infos(void)
{
    MPI_Info i, j;
    char val[64], key[MPI_MAX_INFO_KEY];
    int flag, n, len;
    MPI_Info_create(&i);
    MPI_Info_set(i, "alpha", "1");
    MPI_Info_set(i, "beta", "two");
    MPI_Info_set(i, "alpha", "one"); /* replaces, keeps its place */
    MPI_Info_get_nkeys(i, &n);
    CHECK_EQ_INT(n, 2);
    MPI_Info_get_nthkey(i, 0, key);
    CHECK(strcmp(key, "alpha") == 0);
    MPI_Info_get(i, "alpha", sizeof val - 1, val, &flag);
    CHECK(flag && strcmp(val, "one") == 0);
    MPI_Info_get(i, "beta", 1, val, &flag); /* truncated to valuelen characters */
    CHECK(flag && strcmp(val, "t") == 0);
    MPI_Info_get_valuelen(i, "beta", &len, &flag);
    CHECK(flag && len == 3);
    len = sizeof val;
    MPI_Info_get_string(i, "beta", &len, val, &flag);
    CHECK(flag && len == 4 && strcmp(val, "two") == 0);
    len = 2;
    MPI_Info_get_string(i, "beta", &len, val, &flag);
    CHECK(flag && len == 4 && strcmp(val, "t") == 0);
    MPI_Info_get(i, "gamma", sizeof val - 1, val, &flag);
    CHECK(!flag);
    MPI_Info_dup(i, &j);
    MPI_Info_delete(i, "alpha");
    MPI_Info_get_nkeys(i, &n);
    CHECK_EQ_INT(n, 1);
    MPI_Info_get_nkeys(j, &n);
    CHECK_EQ_INT(n, 2);
    /* info on communicators */
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, j, &c);
    MPI_Info got;
    MPI_Comm_get_info(c, &got);
    MPI_Info_get(got, "beta", sizeof val - 1, val, &flag);
    CHECK(flag && strcmp(val, "two") == 0);
    MPI_Info_free(&got);
    MPI_Comm_set_info(c, i);
    MPI_Comm_get_info(c, &got);
    MPI_Info_get_nkeys(got, &n);
    CHECK_EQ_INT(n, 1);
    MPI_Info_free(&got);
    MPI_Comm_free(&c);
    /* the environment */
    MPI_Info_get(MPI_INFO_ENV, "maxprocs", sizeof val - 1, val, &flag);
    CHECK(flag && atoi(val) == T_size);
    /* errors */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Info_delete(i, "nope"), MPI_ERR_INFO_NOKEY);
    CHECK_EQ_INT(MPI_Info_set(i, "", "x"), MPI_ERR_INFO_KEY);
    char longkey[MPI_MAX_INFO_KEY + 4];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = 0;
    CHECK_EQ_INT(MPI_Info_set(i, longkey, "x"), MPI_ERR_INFO_KEY);
    CHECK_EQ_INT(MPI_Info_set(MPI_INFO_NULL, "a", "b"), MPI_ERR_INFO);
    CHECK_EQ_INT(MPI_Info_set(MPI_INFO_ENV, "a", "b"), MPI_ERR_INFO);
    CHECK_EQ_INT(MPI_Info_get_nthkey(i, 5, key), MPI_ERR_ARG);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&i);
    CHECK(i == MPI_INFO_NULL);
    MPI_Info_free(&j);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    comm_attrs();
    type_attrs();
    infos();
    test_done("attr_info");
    CHECK(self_deleted);
    return 0;
}
