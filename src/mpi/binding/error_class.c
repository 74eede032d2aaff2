/*
 * error_class.c — error classes, codes and strings added by the application
 * (MPI_Add_error_class, MPI_Add_error_code, MPI_Add_error_string) and the
 * value of the MPI_LASTUSEDCODE attribute.
 *
 * Added classes and codes share one numbering that starts just above
 * MPI_ERR_LASTCODE, so a value names at most one of them and every predefined
 * class keeps its standard ABI value; MPI_LASTUSEDCODE is the largest value
 * handed out so far (MPI_ERR_LASTCODE before any).  A code without a string
 * reads as "" in MPI_Error_string, as the standard asks.
 *
 * MPI 4.1's MPI_Remove_error_string/code/class undo them in that order: a
 * string only if one was added, a code only once its string is gone, a class
 * only once no code of it is left (its own string goes with it); anything
 * else is MPI_ERR_ARG.  A removed value is never handed out again (the table
 * only grows), so a stale value stays invalid rather than naming a new error.
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
    int removed;
} user_code_t;

static user_code_t *codes; /* [value - USER_BASE] */
static int ncodes, capcodes;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Caller holds lock. */
static user_code_t *lookup(int value)
{
    int i = value - USER_BASE;
    return i >= 0 && i < ncodes && !codes[i].removed ? &codes[i] : NULL;
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
    codes[ncodes++] = (user_code_t){cls < 0 ? value : cls, NULL, 0};
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

/* ---- MPI 4.1: removal ----------------------------------------------------------- */
/* What is wrong with removing value (NULL: nothing); caller holds lock. */
static const char *cannot_remove(int value, int want_class)
{
    const user_code_t *u = lookup(value);
    if (!u)
        return value <= MPI_ERR_LASTCODE ? "is predefined" : "was not added (or is removed)";
    if ((u->cls == value) != want_class)
        return want_class ? "is an error code, not a class" : "is an error class, not a code";
    if (want_class) {
        for (int i = 0; i < ncodes; i++)
            if (!codes[i].removed && codes[i].cls == value && USER_BASE + i != value)
                return "still has error codes (remove them first)";
    } else if (u->text)
        return "still has an error string (remove it first)";
    return NULL;
}

static int remove_value(const char *fn, int value, int want_class)
{
    CHECK_INIT(fn);
    pthread_mutex_lock(&lock);
    const char *why = cannot_remove(value, want_class);
    if (!why) {
        user_code_t *u = lookup(value);
        free(u->text);
        u->text = NULL;
        u->removed = 1;
    }
    pthread_mutex_unlock(&lock);
    return why ? mpir_error(NULL, MPI_ERR_ARG, "%s: %d %s", fn, value, why) : MPI_SUCCESS;
}

int MPI_Remove_error_class(int errorclass)
{
    return remove_value("MPI_Remove_error_class", errorclass, 1);
}

int MPI_Remove_error_code(int errorcode)
{
    return remove_value("MPI_Remove_error_code", errorcode, 0);
}

int MPI_Remove_error_string(int errorcode)
{
    static const char fn[] = "MPI_Remove_error_string";
    CHECK_INIT(fn);
    pthread_mutex_lock(&lock);
    user_code_t *u = lookup(errorcode);
    int had = u && u->text;
    if (had) {
        free(u->text);
        u->text = NULL;
    }
    pthread_mutex_unlock(&lock);
    return had ? MPI_SUCCESS
               : mpir_error(NULL, MPI_ERR_ARG, "%s: %d has no string added by "
                            "MPI_Add_error_string", fn, errorcode);
}
