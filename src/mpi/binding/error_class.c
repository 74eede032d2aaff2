/*
 * error_class.c — error classes, codes and strings added by the application
 * (MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string) and the
 * value of the MPI_LASTUSEDCODE attribute.
 *
 * Added classes and codes share one numbering that starts just above
 * MPI_ERR_LASTCODE, so a value names at most one of them and every predefined
 * class keeps its standard ABI value; MPI_LASTUSEDCODE is the largest value
 * handed out so far (MPI_ERR_LASTCODE before any).  The table only grows: the
 * standard (3.1) has no way to remove a class or code.  A code without a
 * string reads as "" in MPI_Error_string, as the standard asks.
 *
 * The table is guarded by a mutex: an error handler running on one thread may
 * look up a string while another thread adds one.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "binding/check.h"

#define USER_BASE (MPI_ERR_LASTCODE + 1)

typedef struct user_code {
    int cls;    /* its class; a class is its own class */
    char *text; /* NULL until MPI_Add_error_string */
} user_code_t;

static user_code_t *codes; /* [value - USER_BASE] */
static int ncodes, capcodes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Caller holds lock. */
static user_code_t *lookup(int value)
{
    int i = value - USER_BASE;
    return i >= 0 && i < ncodes ? &codes[i] : NULL;
}

static int is_class(int value)
{
    if (mpir_class_string(value))
        return 1;
    pthread_mutex_lock(&lock);
    const user_code_t *u = lookup(value);
    int yes = u && u->cls == value;
    pthread_mutex_unlock(&lock);
    return yes;
}

/* A new value of class cls (-1: the new value is a class itself). */
static int add(const char *fn, int cls, int *out)
{
    pthread_mutex_lock(&lock);
    if (ncodes == capcodes) {
        int cap = capcodes ? 2 * capcodes : 16;
        user_code_t *c = ncodes < INT32_MAX - USER_BASE - cap
                             ? realloc(codes, (size_t)cap * sizeof *c)
                             : NULL;
        if (!c) {
            pthread_mutex_unlock(&lock);
            return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: no room for another error value", fn);
        }
        codes = c;
        capcodes = cap;
    }
    int value = USER_BASE + ncodes;
    codes[ncodes++] = (user_code_t){cls < 0 ? value : cls, NULL};
    pthread_mutex_unlock(&lock);
    *out = value;
    return MPI_SUCCESS;
}

int mpir_lastusedcode(void)
{
    pthread_mutex_lock(&lock);
    int last = USER_BASE - 1 + ncodes;
    pthread_mutex_unlock(&lock);
    return last;
}

int mpir_user_error_class(int code, int *cls)
{
    pthread_mutex_lock(&lock);
    const user_code_t *u = lookup(code);
    if (u)
        *cls = u->cls;
    pthread_mutex_unlock(&lock);
    return u != NULL;
}

int mpir_user_error_string(int code, char *string, int *resultlen)
{
    pthread_mutex_lock(&lock);
    const user_code_t *u = lookup(code);
    if (u) {
        const char *t = u->text ? u->text : "";
        size_t n = strlen(t); /* stored strings are shorter than MPI_MAX_ERROR_STRING */
        memcpy(string, t, n + 1);
        *resultlen = (int)n;
    }
    pthread_mutex_unlock(&lock);
    return u != NULL;
}

/* ---- entry points ------------------------------------------------------- */

int MPI_Add_error_class(int *errorclass)
{
    static const char fn[] = "MPI_Add_error_class";
    CHECK_INIT(fn);
    if (!errorclass)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL errorclass", fn);
    return add(fn, -1, errorclass);
}

int MPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char fn[] = "MPI_Add_error_code";
    CHECK_INIT(fn);
    if (!errorcode)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL errorcode", fn);
    if (errorclass == MPI_SUCCESS || !is_class(errorclass))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: %d is not an error class", fn, errorclass);
    return add(fn, errorclass, errorcode);
}

int MPI_Add_error_string(int errorcode, const char *string)
{
    static const char fn[] = "MPI_Add_error_string";
    CHECK_INIT(fn);
    if (!string)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL string", fn);
    size_t n = strnlen(string, MPI_MAX_ERROR_STRING);
    if (n >= MPI_MAX_ERROR_STRING)
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: string longer than MPI_MAX_ERROR_STRING - 1 (%d) characters", fn,
                          MPI_MAX_ERROR_STRING - 1);
    char *copy = malloc(n + 1);
    if (!copy)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    memcpy(copy, string, n + 1);
    pthread_mutex_lock(&lock);
    user_code_t *u = lookup(errorcode);
    if (u) {
        free(u->text); /* a later string replaces the earlier one */
        u->text = copy;
    }
    pthread_mutex_unlock(&lock);
    if (!u) {
        free(copy);
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: %d is not an error class or code added by the application "
                          "(predefined ones keep their strings)",
                          fn, errorcode);
    }
    return MPI_SUCCESS;
}
