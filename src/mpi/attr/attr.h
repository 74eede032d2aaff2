/*
 * attr.h — attribute caching: keyvals with copy/delete callbacks and the
 * per-object attribute lists of communicators and datatypes.
 *
 * When callbacks run: copy callbacks when the object is duplicated
 * (Comm_dup/idup/dup_with_info, Type_dup), in the order the attributes were
 * set; delete callbacks when an attribute is deleted, overwritten, or its
 * object is freed — on free in reverse order of setting.  A keyval freed by
 * the user lives on until no attribute uses it.
 */
#ifndef SKIFF_MPI_ATTR_H
#define SKIFF_MPI_ATTR_H

#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

enum attr_kind { ATTR_COMM = 1, ATTR_TYPE, ATTR_WIN };

typedef struct attr {
    int key;
    void *val;
    struct attr *next; /* newest first */
} attr_t;

int attr_keyval_create(const char *fn, int kind, void (*copy)(void), void (*del)(void),
                       void *extra, int *keyval);
int attr_keyval_free(const char *fn, int kind, int *keyval);
/* The language a keyval's callbacks are written in (fortran/fbind.c marks
 * the keyvals it creates): C's take handles and values, Fortran's take
 * everything by reference, the handle as an MPI_Fint, the values as
 * INTEGER(KIND=MPI_ADDRESS_KIND), or as default INTEGERs for MPI-1's
 * MPI_KEYVAL_CREATE, and return their error in a last ierror argument. */
enum attr_lang { ATTR_LANG_C = 0, ATTR_LANG_FORTRAN, ATTR_LANG_FORTRAN_MPI1 };
void attr_keyval_set_lang(int keyval, int lang);
/* obj is the user's handle (passed to callbacks). */
int attr_set(const char *fn, int kind, void *obj, attr_t **list, int keyval, void *val);
int attr_get(const char *fn, int kind, attr_t *list, int keyval, void *val, int *flag);
int attr_delete(const char *fn, int kind, void *obj, attr_t **list, int keyval);
int attr_copy_all(const char *fn, int kind, void *old_obj, attr_t *from, attr_t **to);
int attr_delete_all(const char *fn, int kind, void *obj, attr_t **list);
/* Attributes set on an object before it existed (the new communicator of a
 * pending MPI_Comm_idup) join its list, replacing copies of the same keyval
 * (whose delete callbacks run); pending is taken over. */
int attr_adopt(const char *fn, int kind, void *obj, attr_t **list, attr_t *pending);

#pragma GCC visibility pop

#endif
