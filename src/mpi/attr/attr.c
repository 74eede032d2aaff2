/*
 * attr.c — keyvals and attribute lists (see attr.h for when callbacks run).
 *
 * Keyval handles are small integers from 1024 up (below are the predefined
 * MPI_TAG_UB ... MPI_UNIVERSE_SIZE and MPI_KEYVAL_INVALID); a keyval is an index
 * into a table that grows and is never compacted, so a stale handle is
 * always detected.
 */
#include <stdlib.h>

#include "attr/attr.h"
#include "device/mt.h"
#include "datatype/dtype.h"
#include "rma/win.h"

#define KEY_BASE 1024

typedef int(copy_fn_t)(void *obj, int key, void *extra, void *in, void *out, int *flag);
typedef int(delete_fn_t)(void *obj, int key, void *val, void *extra);
/* Fortran's forms (attr.h: enum attr_lang) */
typedef void(fcopy_fn_t)(MPI_Fint *obj, MPI_Fint *key, void *extra, void *in, void *out,
                         MPI_Fint *flag, MPI_Fint *ierror);
typedef void(fdelete_fn_t)(MPI_Fint *obj, MPI_Fint *key, void *val, void *extra, MPI_Fint *ierror);

typedef struct keyval {
    int kind;
    copy_fn_t *copy;
    delete_fn_t *del;
    void *extra;
    int lang;  /* enum attr_lang */
    int uses;  /* attributes holding it */
    int freed; /* the user's handle is gone */
} keyval_t;

static keyval_t *keys;
static int nkeys, capkeys;

static keyval_t *key_of(int kind, int keyval)
{
    int i = keyval - KEY_BASE;
    if (i < 0 || i >= nkeys || keys[i].kind != kind || keys[i].freed)
        return NULL;
    return &keys[i];
}

static int bad_key(const char *fn, int keyval)
{
    return mpir_error(NULL, MPI_ERR_KEYVAL, "%s: invalid keyval %d", fn, keyval);
}

int attr_keyval_create(const char *fn, int kind, void (*copy)(void), void (*del)(void),
                       void *extra, int *keyval)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the keyval table and use counts */
    if (!keyval)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL keyval", fn);
    if (nkeys == capkeys) {
        int cap = capkeys ? 2 * capkeys : 16;
        keyval_t *k = realloc(keys, (size_t)cap * sizeof *k);
        if (!k)
            return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        keys = k;
        capkeys = cap;
    }
    keys[nkeys] = (keyval_t){kind, (copy_fn_t *)copy, (delete_fn_t *)del, extra, ATTR_LANG_C, 0, 0};
    *keyval = KEY_BASE + nkeys++;
    return MPI_SUCCESS;
}

int attr_keyval_free(const char *fn, int kind, int *keyval)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the keyval table and use counts */
    keyval_t *k;
    if (!keyval || !(k = key_of(kind, *keyval)))
        return bad_key(fn, keyval ? *keyval : 0);
    k->freed = 1;
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

void attr_keyval_set_lang(int keyval, int lang) { keys[keyval - KEY_BASE].lang = lang; }

/* The Fortran handle of an object a callback gets. */
static MPI_Fint fortran_handle(int kind, void *obj)
{
    return kind == ATTR_COMM   ? MPI_Comm_c2f((MPI_Comm)obj)
           : kind == ATTR_TYPE ? MPI_Type_c2f((MPI_Datatype)obj)
                               : MPI_Win_c2f((MPI_Win)obj);
}

/* A value (attribute or extra state) as its Fortran callback sees it: an
 * INTEGER(KIND=MPI_ADDRESS_KIND), or an INTEGER for MPI-1's callbacks. */
typedef union {
    MPI_Aint aint;
    MPI_Fint fint;
} fvalue_t;

static fvalue_t to_fortran(const keyval_t *k, void *v)
{
    fvalue_t f;
    if (k->lang == ATTR_LANG_FORTRAN_MPI1)
        f.fint = (MPI_Fint)(MPI_Aint)v;
    else
        f.aint = (MPI_Aint)v;
    return f;
}

static void *from_fortran(const keyval_t *k, fvalue_t f)
{
    return (void *)(k->lang == ATTR_LANG_FORTRAN_MPI1 ? (MPI_Aint)f.fint : f.aint);
}

static int call_delete(const keyval_t *k, int kind, void *obj, int key, void *val)
{
    if (k->lang == ATTR_LANG_C)
        return k->del(obj, key, val, k->extra);
    MPI_Fint h = fortran_handle(kind, obj), fkey = key, ierror = MPI_SUCCESS;
    fvalue_t fval = to_fortran(k, val), fextra = to_fortran(k, k->extra);
    ((fdelete_fn_t *)(void (*)(void))k->del)(&h, &fkey, &fval, &fextra, &ierror);
    return ierror;
}

static int call_copy(const keyval_t *k, int kind, void *obj, int key, void *in, void **out,
                     int *flag)
{
    if (k->lang == ATTR_LANG_C)
        return k->copy(obj, key, k->extra, in, out, flag);
    MPI_Fint h = fortran_handle(kind, obj), fkey = key, fflag = 0, ierror = MPI_SUCCESS;
    fvalue_t fin = to_fortran(k, in), fextra = to_fortran(k, k->extra), fout = {0};
    ((fcopy_fn_t *)(void (*)(void))k->copy)(&h, &fkey, &fextra, &fin, &fout, &fflag, &ierror);
    *flag = fflag != 0; /* LOGICAL */
    *out = from_fortran(k, fout);
    return ierror;
}

/* A callback's error goes to the handler of the object (communicator or
 * window handle obj); a datatype has none: MPI_COMM_WORLD's. */
static int callback_error(const char *fn, int kind, void *obj, const char *which, int key, int rc)
{
    static const char fmt[] = "%s: %s callback of keyval %d returned %d";
    if (kind == ATTR_WIN)
        return mpir_win_error((struct MPI_ABI_Win *)obj, rc, fmt, fn, which, key, rc);
    return mpir_error(kind == ATTR_COMM ? comm_of((MPI_Comm)obj) : NULL, rc, fmt, fn, which, key,
                      rc);
}

/* Run the delete callback of one attribute. */
static int run_delete(const char *fn, int kind, void *obj, const attr_t *a)
{
    keyval_t *k = &keys[a->key - KEY_BASE];
    int rc = MPI_SUCCESS;
    if (k->del)
        rc = call_delete(k, kind, obj, a->key, a->val);
    if (rc != MPI_SUCCESS)
        return callback_error(fn, kind, obj, "delete", a->key, rc);
    k->uses--;
    return MPI_SUCCESS;
}

int attr_set(const char *fn, int kind, void *obj, attr_t **list, int keyval, void *val)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the keyval table and use counts */
    keyval_t *k = key_of(kind, keyval);
    if (!k)
        return bad_key(fn, keyval);
    for (attr_t *a = *list; a; a = a->next)
        if (a->key == keyval) {
            int rc = run_delete(fn, kind, obj, a); /* the old value is deleted first */
            if (rc)
                return rc;
            k->uses++;
            a->val = val;
            return MPI_SUCCESS;
        }
    attr_t *a = malloc(sizeof *a);
    if (!a)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    a->key = keyval;
    a->val = val;
    a->next = *list;
    *list = a;
    k->uses++;
    return MPI_SUCCESS;
}

int attr_get(const char *fn, int kind, attr_t *list, int keyval, void *val, int *flag)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the keyval table and use counts */
    if (!val || !flag)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL attribute_val or flag", fn);
    int i = keyval - KEY_BASE;
    if (i < 0 || i >= nkeys || keys[i].kind != kind)
        return bad_key(fn, keyval);
    *flag = 0;
    for (attr_t *a = list; a; a = a->next)
        if (a->key == keyval) {
            *(void **)val = a->val;
            *flag = 1;
            break;
        }
    return MPI_SUCCESS;
}

int attr_delete(const char *fn, int kind, void *obj, attr_t **list, int keyval)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the keyval table and use counts */
    if (!key_of(kind, keyval) &&
        (keyval < KEY_BASE || keyval - KEY_BASE >= nkeys || keys[keyval - KEY_BASE].kind != kind))
        return bad_key(fn, keyval);
    for (attr_t **p = list; *p; p = &(*p)->next)
        if ((*p)->key == keyval) {
            /* Unlinked before its callback runs: the callback may delete other
             * attributes of the object, which would leave p dangling. */
            attr_t *a = *p;
            *p = a->next;
            int rc = run_delete(fn, kind, obj, a);
            if (rc) { /* the attribute stays */
                a->next = *list;
                *list = a;
                return rc;
            }
            free(a);
            return MPI_SUCCESS;
        }
    return mpir_error(NULL, MPI_ERR_KEYVAL, "%s: keyval %d has no attribute on this object", fn,
                      keyval);
}

int attr_copy_all(const char *fn, int kind, void *old_obj, attr_t *from, attr_t **to)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the keyval table and use counts */
    /* oldest first, so the copy keeps the same order */
    int n = 0;
    for (attr_t *a = from; a; a = a->next)
        n++;
    attr_t **v = malloc((size_t)(n ? n : 1) * sizeof *v);
    if (!v)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    int i = n;
    for (attr_t *a = from; a; a = a->next)
        v[--i] = a;
    int rc = MPI_SUCCESS;
    for (i = 0; i < n && rc == MPI_SUCCESS; i++) {
        keyval_t *k = &keys[v[i]->key - KEY_BASE];
        void *out = NULL;
        int flag = 0;
        if (k->copy == (copy_fn_t *)1) { /* MPI_*_DUP_FN */
            out = v[i]->val;
            flag = 1;
        } else if (k->copy) {
            rc = call_copy(k, kind, old_obj, v[i]->key, v[i]->val, &out, &flag);
            if (rc != MPI_SUCCESS) {
                rc = callback_error(fn, kind, old_obj, "copy", v[i]->key, rc);
                break;
            }
        }
        if (flag) {
            attr_t *a = malloc(sizeof *a);
            if (!a) {
                rc = mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
                break;
            }
            a->key = v[i]->key;
            a->val = out;
            a->next = *to;
            *to = a;
            k->uses++;
        }
    }
    free(v);
    return rc;
}

int attr_delete_all(const char *fn, int kind, void *obj, attr_t **list)
{
    MPID_CS_SCOPE(); /* MULTIPLE: the keyval table and use counts */
    while (*list) { /* newest first: reverse order of setting */
        attr_t *a = *list;
        *list = a->next; /* unlinked first: the callback may delete others */
        int rc = run_delete(fn, kind, obj, a);
        if (rc) {
            a->next = *list;
            *list = a;
            return rc;
        }
        free(a);
    }
    return MPI_SUCCESS;
}

int attr_adopt(const char *fn, int kind, void *obj, attr_t **list, attr_t *pending)
{
    attr_t *oldest_first = NULL;
    while (pending) {
        attr_t *a = pending;
        pending = a->next;
        a->next = oldest_first;
        oldest_first = a;
    }
    int rc = MPI_SUCCESS;
    while (oldest_first) {
        attr_t *a = oldest_first, **p = list;
        oldest_first = a->next;
        while (*p && (*p)->key != a->key)
            p = &(*p)->next;
        if (*p) { /* a copy made by the dup: the value set on the new one wins */
            attr_t *old = *p;
            int r = run_delete(fn, kind, obj, old);
            if (r && !rc)
                rc = r;
            *p = old->next;
            free(old);
        }
        a->next = *list;
        *list = a;
    }
    return rc;
}

/* ---- datatypes ------------------------------------------------------------- */
int mpir_attr_type_copy(struct MPI_ABI_Datatype *from, struct MPI_ABI_Datatype *to)
{
    return attr_copy_all("MPI_Type_dup", ATTR_TYPE, from, from->rep->attrs,
                         (attr_t **)&to->rep->attrs);
}

int mpir_attr_type_free(struct MPI_ABI_Datatype *d)
{
    return attr_delete_all("MPI_Type_free", ATTR_TYPE, d, (attr_t **)&d->rep->attrs);
}
