/*
 * attr.c — MPI_Comm_/MPI_Type_ keyval and attribute calls, and the
 * predefined attributes every communicator answers: MPI_TAG_UB,
 * MPI_HOST (MPI_PROC_NULL: no host process), MPI_IO (MPI_ANY_SOURCE: every
 * process can do I/O), MPI_WTIME_IS_GLOBAL (0), MPI_UNIVERSE_SIZE (the job's
 * size), MPI_APPNUM (0: one application) and MPI_LASTUSEDCODE (the largest
 * error class or code handed out, binding/error_class.c).  They are read-only.
 *
 * The MPI-1 attribute calls that MPI-3.1 still has (deprecated since MPI-2.0:
 * MPI_Keyval_create/free, MPI_Attr_put/get/delete) are the communicator ones
 * under their old names; their keyvals are communicator keyvals.
 */
#include <stdlib.h>

#include "attr/attr.h"
#include "boot/boot.h"
#include "binding/check.h"
#include "comm_create.h"

static int predef_values[MPI_UNIVERSE_SIZE - MPI_TAG_UB + 1]; /* indexed by keyval - MPI_TAG_UB */

static int predefined(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_UNIVERSE_SIZE; }

int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy, MPI_Comm_delete_attr_function *del,
                           int *keyval, void *extra_state)
{
    return attr_keyval_create("MPI_Comm_create_keyval", ATTR_COMM, (void (*)(void))copy,
                              (void (*)(void))del, extra_state, keyval);
}

int MPI_Comm_free_keyval(int *keyval)
{
    return attr_keyval_free("MPI_Comm_free_keyval", ATTR_COMM, keyval);
}

static int comm_list(const char *fn, MPI_Comm comm, struct MPI_ABI_Comm **c, attr_t ***list)
{
    int rc = check_comm_settable(fn, comm, c);
    if (rc)
        return rc;
    struct comm_ext *x = comm_ext_get(*c);
    if (!x)
        return mpir_error(*c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *list = &x->attrs;
    return 0;
}

static int read_only(const char *fn, struct MPI_ABI_Comm *c, int keyval)
{
    return mpir_error(c, MPI_ERR_KEYVAL, "%s: keyval %d is predefined (read-only)", fn, keyval);
}

/* MPI_Comm_set_attr and MPI_Attr_put (fn names the one called) */
static int comm_set_attr(const char *fn, MPI_Comm comm, int keyval, void *val)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    attr_t **l = NULL;
    int rc;
    if ((rc = comm_list(fn, comm, &c, &l)))
        return rc;
    if (predefined(keyval))
        return read_only(fn, c, keyval);
    return attr_set(fn, ATTR_COMM, comm, l, keyval, val);
}

/* The launcher's universe size (skiffrun -usize, hydra's), else the job's size. */
static int universe_size(void)
{
    boot_info_t *bi;
    if (boot_init(&bi) == 0 && bi->universe_size > 0)
        return bi->universe_size;
    return mpid.size;
}

/* A job of several programs started by MPI_Comm_spawn_multiple gets its
 * number from SKIFF_APPNUM (dynproc/spawn.c); otherwise the launcher's. */
static int appnum(void)
{
    const char *s = getenv("SKIFF_APPNUM");
    char *end;
    long v = s && *s ? strtol(s, &end, 10) : -1;
    if (s && *s && !*end && v >= 0 && v < 1 << 30)
        return (int)v;
    boot_info_t *bi;
    return boot_init(&bi) == 0 && bi->appnum >= 0 ? bi->appnum : 0;
}

static int comm_get_attr(const char *fn, MPI_Comm comm, int keyval, void *val, int *flag)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    attr_t **l = NULL;
    int rc;
    if ((rc = comm_list(fn, comm, &c, &l)))
        return rc;
    if (predefined(keyval)) {
        if (!val || !flag)
            return mpir_error(c, MPI_ERR_ARG, "%s: NULL attribute_val or flag", fn);
        predef_values[MPI_TAG_UB - MPI_TAG_UB] = MPIR_TAG_UB;
        predef_values[MPI_HOST - MPI_TAG_UB] = MPI_PROC_NULL;
        predef_values[MPI_IO - MPI_TAG_UB] = MPI_ANY_SOURCE;
        predef_values[MPI_WTIME_IS_GLOBAL - MPI_TAG_UB] = 0;
        predef_values[MPI_UNIVERSE_SIZE - MPI_TAG_UB] = universe_size();
        predef_values[MPI_APPNUM - MPI_TAG_UB] = appnum();
        predef_values[MPI_LASTUSEDCODE - MPI_TAG_UB] = mpir_lastusedcode();
        *(int **)val = &predef_values[keyval - MPI_TAG_UB];
        *flag = 1;
        return MPI_SUCCESS;
    }
    return attr_get(fn, ATTR_COMM, *l, keyval, val, flag);
}

static int comm_delete_attr(const char *fn, MPI_Comm comm, int keyval)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    attr_t **l = NULL;
    int rc;
    if ((rc = comm_list(fn, comm, &c, &l)))
        return rc;
    if (predefined(keyval))
        return read_only(fn, c, keyval);
    return attr_delete(fn, ATTR_COMM, comm, l, keyval);
}

int MPI_Comm_set_attr(MPI_Comm comm, int keyval, void *val)
{
    return comm_set_attr("MPI_Comm_set_attr", comm, keyval, val);
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *val, int *flag)
{
    return comm_get_attr("MPI_Comm_get_attr", comm, keyval, val, flag);
}

int MPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    return comm_delete_attr("MPI_Comm_delete_attr", comm, keyval);
}

/* MPI_COMM_SELF's attributes are deleted first thing in MPI_Finalize. */
int mpir_attr_finalize(void)
{
    struct MPI_ABI_Comm *self = &mpir_comm_predef[2], *world = &mpir_comm_predef[1];
    int rc = 0;
    if (self->ext)
        rc = attr_delete_all("MPI_Finalize", ATTR_COMM, MPI_COMM_SELF, &self->ext->attrs);
    if (!rc && world->ext)
        rc = attr_delete_all("MPI_Finalize", ATTR_COMM, MPI_COMM_WORLD, &world->ext->attrs);
    comm_ext_drop(self, "MPI_COMM_SELF");
    comm_ext_drop(world, "MPI_COMM_WORLD");
    return rc;
}

/* ---- datatypes ----------------------------------------------------------------------- */
int MPI_Type_create_keyval(MPI_Type_copy_attr_function *copy, MPI_Type_delete_attr_function *del,
                           int *keyval, void *extra_state)
{
    return attr_keyval_create("MPI_Type_create_keyval", ATTR_TYPE, (void (*)(void))copy,
                              (void (*)(void))del, extra_state, keyval);
}

int MPI_Type_free_keyval(int *keyval)
{
    return attr_keyval_free("MPI_Type_free_keyval", ATTR_TYPE, keyval);
}

int MPI_Type_set_attr(MPI_Datatype datatype, int keyval, void *val)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check("MPI_Type_set_attr", datatype, &d);
    if (rc)
        return rc;
    return attr_set("MPI_Type_set_attr", ATTR_TYPE, datatype, (attr_t **)&d->rep->attrs, keyval,
                    val);
}

int MPI_Type_get_attr(MPI_Datatype datatype, int keyval, void *val, int *flag)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check("MPI_Type_get_attr", datatype, &d);
    if (rc)
        return rc;
    return attr_get("MPI_Type_get_attr", ATTR_TYPE, d->rep->attrs, keyval, val, flag);
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int keyval)
{
    struct MPI_ABI_Datatype *d;
    int rc = dt_check("MPI_Type_delete_attr", datatype, &d);
    if (rc)
        return rc;
    return attr_delete("MPI_Type_delete_attr", ATTR_TYPE, datatype, (attr_t **)&d->rep->attrs,
                       keyval);
}

/* ---- the MPI-1 names (deprecated, still in MPI-3.1) ------------------------------- */
/* The same calls as the MPI_Comm_ ones above, reporting under their own names. */

int MPI_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval,
                      void *extra_state)
{
    CHECK_INIT("MPI_Keyval_create");
    return attr_keyval_create("MPI_Keyval_create", ATTR_COMM, (void (*)(void))copy,
                              (void (*)(void))del, extra_state, keyval);
}

int MPI_Keyval_free(int *keyval)
{
    CHECK_INIT("MPI_Keyval_free");
    return attr_keyval_free("MPI_Keyval_free", ATTR_COMM, keyval);
}

int MPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}

int MPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_get_attr("MPI_Attr_get", comm, keyval, attribute_val, flag);
}

int MPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_delete_attr("MPI_Attr_delete", comm, keyval);
}
