/*
 * fbind.c — the Fortran bindings written by hand (those gen_fortran.py cannot
 * derive from a C prototype) and the helpers of the generated ones.
 *
 * Every binding is a C function with gfortran's linkage name (mpi_send_),
 * all arguments by reference, ierror last, then the hidden lengths of the
 * CHARACTER arguments (size_t since gfortran 8).
 */
#include <stdio.h>
#include <string.h>

#include "attr/attr.h"
#include "coll/coll.h"
#include "fortran/fbind.h"

MPI_Fint skiff_fc_bottom_, skiff_fc_in_place_, skiff_fc_buffer_automatic_;
MPI_Fint skiff_fc_unweighted_[1], skiff_fc_weights_empty_[1];

/* ---- helpers of the generated bindings --------------------------------------- */
void *fb_alloc(int n, size_t size)
{
    if (n <= 0)
        return NULL;
    void *p = malloc((size_t)n * size);
    if (!p)
        mpir_fatal("Fortran binding: out of memory for %d handles", n);
    return p;
}

void fb_free(void *p) { free(p); }

int fb_types_len(const MPI_Fint *comm, int send, int neighbor)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int n = 0, indeg = 0, outdeg = 0, weighted, topo = MPI_UNDEFINED, inter = 0;
    if (!neighbor) {
        if (MPI_Comm_test_inter(c, &inter) != MPI_SUCCESS)
            return 0;
        if (inter ? MPI_Comm_remote_size(c, &n) : MPI_Comm_size(c, &n))
            return 0;
        return n;
    }
    if (MPI_Topo_test(c, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_DIST_GRAPH)
        MPI_Dist_graph_neighbors_count(c, &indeg, &outdeg, &weighted);
    else if (topo == MPI_GRAPH) {
        int rank;
        MPI_Comm_rank(c, &rank);
        MPI_Graph_neighbors_count(c, rank, &indeg);
        outdeg = indeg;
    } else if (topo == MPI_CART) {
        MPI_Cartdim_get(c, &indeg);
        indeg *= 2;
        outdeg = indeg;
    }
    return send ? outdeg : indeg;
}

char *fb_str_in(const char *s, size_t len)
{
    while (len && s[len - 1] == ' ')
        len--;
    char *c = malloc(len + 1);
    if (!c)
        mpir_fatal("Fortran binding: out of memory for a string of %zu bytes", len);
    memcpy(c, s, len);
    c[len] = '\0';
    return c;
}

char *fb_str_out(size_t len)
{
    /* room for the longest string a C call writes, whatever the Fortran length */
    size_t room = len + 1 > MPI_MAX_LIBRARY_VERSION_STRING ? len + 1 : MPI_MAX_LIBRARY_VERSION_STRING;
    char *c = calloc(1, room);
    if (!c)
        mpir_fatal("Fortran binding: out of memory for a string of %zu bytes", room);
    return c;
}

void fb_str_back(char *f, size_t len, char *c)
{
    size_t n = strnlen(c, len);
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
    free(c);
}

/* ---- by hand ---------------------------------------------------------------------- */
/* A Fortran program tells the MPI 5.0 ABI calls its LOGICAL values: gfortran's
 * .TRUE. is 1 and .FALSE. 0 in every kind (unless C code said otherwise first). */
static void register_booleans(void)
{
    for (int size = 1; size <= 16; size *= 2) {
        unsigned char t[16] = {1}, f[16] = {0}, ct[16], cf[16];
        int is_set = 1;
        MPI_Abi_get_fortran_booleans(size, ct, cf, &is_set);
        if (!is_set)
            MPI_Abi_set_fortran_booleans(size, t, f);
    }
}

void pmpi_init_(MPI_Fint *ierror)
{
    *ierror = MPI_Init(NULL, NULL);
    if (*ierror == MPI_SUCCESS)
        register_booleans();
}

void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    *ierror = MPI_Init_thread(NULL, NULL, *required, provided);
    if (*ierror == MPI_SUCCESS)
        register_booleans();
}

/* MPI_F_SYNC_REG(buf): Fortran only; a call the compiler cannot see through,
 * so buf's value is not kept in a register across it. */
void pmpi_f_sync_reg_(void *buf) { __asm__ volatile("" : : "r"(buf) : "memory"); }

double pmpi_wtime_(void) { return MPI_Wtime(); }
double pmpi_wtick_(void) { return MPI_Wtick(); }
MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp) { return MPI_Aint_add(*base, *disp); }
MPI_Aint pmpi_aint_diff_(MPI_Aint *a, MPI_Aint *b) { return MPI_Aint_diff(*a, *b); }

/* A user op written in Fortran: SUBROUTINE f(invec, inoutvec, len, datatype),
 * the datatype an INTEGER handle (coll/op.c converts it per call). */
static void op_made(MPI_Fint rc, MPI_Op c, MPI_Fint *op, MPI_Fint *ierror)
{
    if (rc == MPI_SUCCESS)
        ((struct MPI_ABI_Op *)c)->fortran = 1;
    *op = MPI_Op_c2f(c);
    *ierror = rc;
}

void pmpi_op_create_(MPI_User_function *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    MPI_Op c = MPI_OP_NULL;
    MPI_Fint rc = MPI_Op_create(fn, *commute, &c);
    op_made(rc, c, op, ierror);
}

/* mpi_f08's MPI_Op_create_c: len is INTEGER(KIND=MPI_COUNT_KIND) (not in mpif.h) */
void pmpi_op_create_c_(MPI_User_function_c *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    MPI_Op c = MPI_OP_NULL;
    MPI_Fint rc = MPI_Op_create_c(fn, *commute, &c);
    op_made(rc, c, op, ierror);
}

/* Error handlers written in Fortran: SUBROUTINE h(comm, code) (errors.c
 * converts the handle to its INTEGER when it calls one). */
static void eh_made(MPI_Fint rc, MPI_Errhandler *c, MPI_Fint *errhandler, MPI_Fint *ierror)
{
    if (rc == MPI_SUCCESS)
        ((struct MPI_ABI_Errhandler *)*c)->fortran = 1;
    *errhandler = MPI_Errhandler_c2f(rc == MPI_SUCCESS ? *c : MPI_ERRHANDLER_NULL);
    *ierror = rc;
}

void pmpi_comm_create_errhandler_(MPI_Comm_errhandler_function *fn, MPI_Fint *errhandler,
                                 MPI_Fint *ierror)
{
    MPI_Errhandler c;
    eh_made(MPI_Comm_create_errhandler(fn, &c), &c, errhandler, ierror);
}

void pmpi_win_create_errhandler_(MPI_Win_errhandler_function *fn, MPI_Fint *errhandler,
                                MPI_Fint *ierror)
{
    MPI_Errhandler c;
    eh_made(MPI_Win_create_errhandler(fn, &c), &c, errhandler, ierror);
}

void pmpi_session_create_errhandler_(MPI_Session_errhandler_function *fn, MPI_Fint *errhandler,
                                    MPI_Fint *ierror)
{
    MPI_Errhandler c;
    eh_made(MPI_Session_create_errhandler(fn, &c), &c, errhandler, ierror);
}

/* Fortran's MPI_INFO_CREATE_ENV(INFO, IERROR) has no argc/argv: the
 * program's arguments are the process's own (/proc/self/cmdline, NUL-separated),
 * as COMMAND_ARGUMENT would give them. */
void pmpi_info_create_env_(MPI_Fint *info, MPI_Fint *ierror)
{
    enum { ROOM = 65536, MAX_ARGS = 256 };
    char *args = fb_alloc(ROOM, 1), *argv[MAX_ARGS];
    int argc = 0;
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = f ? fread(args, 1, ROOM - 1, f) : 0;
    if (f)
        fclose(f);
    args[n] = '\0';
    for (size_t at = 0; at < n && argc < MAX_ARGS; at += strlen(args + at) + 1)
        argv[argc++] = args + at;
    MPI_Info c = MPI_INFO_NULL;
    *ierror = MPI_Info_create_env(argc, argv, &c); /* the info keeps copies */
    fb_free(args);
    *info = MPI_Info_c2f(c);
}

/* Attributes: Fortran stores and reads an INTEGER(KIND=MPI_ADDRESS_KIND)
 * value; the predefined attributes of C are pointers to their value. */
static MPI_Aint attr_value(int keyval, void *v)
{
    switch (keyval) {
    case MPI_TAG_UB: case MPI_IO: case MPI_HOST: case MPI_WTIME_IS_GLOBAL:
    case MPI_UNIVERSE_SIZE: case MPI_APPNUM: case MPI_WIN_DISP_UNIT:
    case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return *(int *)v;
    case MPI_WIN_SIZE:
        return *(MPI_Aint *)v;
    default: /* MPI_WIN_BASE: the address itself; user attributes: the value stored */
        return (MPI_Aint)v;
    }
}

#define ATTR_BINDINGS(lower, Kind, Obj)                                                        \
    void pmpi_##lower##_set_attr_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val,               \
                                 MPI_Fint *ierror)                                             \
    {                                                                                          \
        *ierror = MPI_##Kind##_set_attr(MPI_##Obj##_f2c(*obj), *keyval, (void *)*val);         \
    }                                                                                          \
    void pmpi_##lower##_get_attr_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val,               \
                                 MPI_Fint *flag, MPI_Fint *ierror)                             \
    {                                                                                          \
        void *v = NULL;                                                                        \
        int f = 0;                                                                             \
        *ierror = MPI_##Kind##_get_attr(MPI_##Obj##_f2c(*obj), *keyval, &v, &f);               \
        if (*ierror == MPI_SUCCESS && f)                                                       \
            *val = attr_value(*keyval, v);                                                     \
        *flag = f != 0;                                                                        \
    }                                                                                          \
    FORTRAN_PMPI(mpi_##lower##_set_attr_)                                                      \
    FORTRAN_PMPI(mpi_##lower##_get_attr_)
/* MPI-1's MPI_ATTR_PUT/GET: the same with a default INTEGER value. */
void pmpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierror)
{
    *ierror = MPI_Attr_put(MPI_Comm_f2c(*comm), *keyval, (void *)(MPI_Aint)*val);
}

void pmpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
                   MPI_Fint *ierror)
{
    void *v = NULL;
    int f = 0;
    *ierror = MPI_Attr_get(MPI_Comm_f2c(*comm), *keyval, &v, &f);
    if (*ierror == MPI_SUCCESS && f)
        *val = (MPI_Fint)attr_value(*keyval, v);
    *flag = f != 0;
}

ATTR_BINDINGS(comm, Comm, Comm)
ATTR_BINDINGS(type, Type, Type)
ATTR_BINDINGS(win, Win, Win)

/* ---- keyvals with callbacks written in Fortran ------------------------------------ */
/* The predefined callbacks as Fortran calls them (EXTERNAL in mpif.h, procedures
 * of the abstract interfaces in mpi_f08): every argument by reference.  The
 * null ones touch no value, so one function serves MPI-1's INTEGER form too. */
void mpi_comm_null_copy_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                            MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)extra, (void)in, (void)out;
    *flag = 0;
    *ierror = MPI_SUCCESS;
}

void mpi_comm_dup_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *extra, MPI_Aint *in,
                      MPI_Aint *out, MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)extra;
    *out = *in;
    *flag = 1;
    *ierror = MPI_SUCCESS;
}

void mpi_comm_null_delete_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val, MPI_Aint *extra,
                              MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)val, (void)extra;
    *ierror = MPI_SUCCESS;
}

/* MPI-1's MPI_DUP_FN: the values are default INTEGERs */
void mpi_dup_fn_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Fint *extra, MPI_Fint *in, MPI_Fint *out,
                 MPI_Fint *flag, MPI_Fint *ierror)
{
    (void)obj, (void)keyval, (void)extra;
    *out = *in;
    *flag = 1;
    *ierror = MPI_SUCCESS;
}

#define COPY_ARGS MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Aint *, MPI_Fint *, MPI_Fint *
#define DELETE_ARGS MPI_Fint *, MPI_Fint *, MPI_Aint *, MPI_Aint *, MPI_Fint *
#define SAME_AS(f) __attribute__((alias(#f)))
void mpi_type_null_copy_fn_(COPY_ARGS) SAME_AS(mpi_comm_null_copy_fn_);
void mpi_win_null_copy_fn_(COPY_ARGS) SAME_AS(mpi_comm_null_copy_fn_);
void mpi_null_copy_fn_(COPY_ARGS) SAME_AS(mpi_comm_null_copy_fn_);
void mpi_type_dup_fn_(COPY_ARGS) SAME_AS(mpi_comm_dup_fn_);
void mpi_win_dup_fn_(COPY_ARGS) SAME_AS(mpi_comm_dup_fn_);
void mpi_type_null_delete_fn_(DELETE_ARGS) SAME_AS(mpi_comm_null_delete_fn_);
void mpi_win_null_delete_fn_(DELETE_ARGS) SAME_AS(mpi_comm_null_delete_fn_);
void mpi_null_delete_fn_(DELETE_ARGS) SAME_AS(mpi_comm_null_delete_fn_);

typedef void(fortran_fn)(void);

/* The predefined Fortran callbacks become C's (no callback: the engine copies
 * or skips the value itself); the others are marked as Fortran ones. */
static void keyval_made(int rc, int keyval, int lang, MPI_Fint *fkeyval, MPI_Fint *ierror)
{
    if (rc == MPI_SUCCESS) {
        attr_keyval_set_lang(keyval, lang);
        *fkeyval = keyval;
    }
    *ierror = rc;
}

static fortran_fn *copy_fn(fortran_fn *f)
{
    if (f == (fortran_fn *)mpi_comm_null_copy_fn_)
        return NULL;                                   /* MPI_*_NULL_COPY_FN */
    if (f == (fortran_fn *)mpi_comm_dup_fn_ || f == (fortran_fn *)mpi_dup_fn_)
        return (fortran_fn *)MPI_COMM_DUP_FN;          /* the value itself  */
    return f;
}

static fortran_fn *delete_fn(fortran_fn *f)
{
    return f == (fortran_fn *)mpi_comm_null_delete_fn_ ? NULL : f;
}

#define KEYVAL_BINDING(lower, Kind)                                                            \
    void pmpi_##lower##_create_keyval_(fortran_fn *copy, fortran_fn *del, MPI_Fint *keyval,     \
                                      MPI_Aint *extra_state, MPI_Fint *ierror)                 \
    {                                                                                          \
        int k = MPI_KEYVAL_INVALID;                                                            \
        int rc = MPI_##Kind##_create_keyval((MPI_##Kind##_copy_attr_function *)copy_fn(copy),  \
                                            (MPI_##Kind##_delete_attr_function *)delete_fn(del), \
                                            &k, (void *)*extra_state);                         \
        keyval_made(rc, k, ATTR_LANG_FORTRAN, keyval, ierror);                                 \
    }                                                                                          \
    FORTRAN_PMPI(mpi_##lower##_create_keyval_)
KEYVAL_BINDING(comm, Comm)
KEYVAL_BINDING(type, Type)
KEYVAL_BINDING(win, Win)

void pmpi_keyval_create_(fortran_fn *copy, fortran_fn *del, MPI_Fint *keyval, MPI_Fint *extra_state,
                        MPI_Fint *ierror)
{
    int k = MPI_KEYVAL_INVALID;
    int rc = MPI_Keyval_create((MPI_Copy_function *)copy_fn(copy),
                               (MPI_Delete_function *)delete_fn(del), &k,
                               (void *)(MPI_Aint)*extra_state);
    keyval_made(rc, k, ATTR_LANG_FORTRAN_MPI1, keyval, ierror);
}

/* ---- generalized requests with callbacks written in Fortran ---------------------- */
/* SUBROUTINE QUERY(EXTRA_STATE, STATUS, IERROR), FREE(EXTRA_STATE, IERROR),
 * CANCEL(EXTRA_STATE, COMPLETE, IERROR): the C request gets C callbacks whose
 * extra state is this record, and they call the Fortran ones. */
typedef void(fgreq_query_fn)(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierror);
typedef void(fgreq_free_fn)(MPI_Aint *extra, MPI_Fint *ierror);
typedef void(fgreq_cancel_fn)(MPI_Aint *extra, MPI_Fint *complete, MPI_Fint *ierror);

struct fgreq {
    fgreq_query_fn *query;
    fgreq_free_fn *free_fn;
    fgreq_cancel_fn *cancel;
    MPI_Aint extra;
};

static int fgreq_query(void *extra, MPI_Status *status)
{
    struct fgreq *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    g->query(&g->extra, (MPI_Fint *)(void *)status, &ierror); /* the same 8 integers */
    return ierror;
}

static int fgreq_free(void *extra)
{
    struct fgreq *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    g->free_fn(&g->extra, &ierror);
    free(g); /* free_fn runs once, last */
    return ierror;
}

static int fgreq_cancel(void *extra, int complete)
{
    struct fgreq *g = extra;
    MPI_Fint ierror = MPI_SUCCESS, fcomplete = complete != 0;
    g->cancel(&g->extra, &fcomplete, &ierror);
    return ierror;
}

void pmpi_grequest_start_(fgreq_query_fn *query, fgreq_free_fn *free_fn, fgreq_cancel_fn *cancel,
                         MPI_Aint *extra_state, MPI_Fint *request, MPI_Fint *ierror)
{
    MPI_Request r = MPI_REQUEST_NULL;
    struct fgreq *g = NULL;
    if (query && free_fn && cancel) { /* else MPI_Grequest_start reports the NULL one */
        g = malloc(sizeof *g);
        if (!g)
            mpir_fatal("MPI_Grequest_start (Fortran): out of memory");
        *g = (struct fgreq){query, free_fn, cancel, *extra_state};
    }
    *ierror = MPI_Grequest_start(query ? fgreq_query : NULL, free_fn ? fgreq_free : NULL,
                                 cancel ? fgreq_cancel : NULL, g, &r);
    if (*ierror != MPI_SUCCESS)
        free(g);
    *request = MPI_Request_c2f(r);
}

/* MPI_ names of the bindings above (the generated ones have theirs in fbind_gen.c) */
FORTRAN_PMPI(mpi_init_)
FORTRAN_PMPI(mpi_init_thread_)
FORTRAN_PMPI(mpi_f_sync_reg_)
FORTRAN_PMPI(mpi_wtime_)
FORTRAN_PMPI(mpi_wtick_)
FORTRAN_PMPI(mpi_aint_add_)
FORTRAN_PMPI(mpi_aint_diff_)
FORTRAN_PMPI(mpi_op_create_)
FORTRAN_PMPI(mpi_op_create_c_)
FORTRAN_PMPI(mpi_comm_create_errhandler_)
FORTRAN_PMPI(mpi_win_create_errhandler_)
FORTRAN_PMPI(mpi_session_create_errhandler_)
FORTRAN_PMPI(mpi_info_create_env_)
FORTRAN_PMPI(mpi_attr_put_)
FORTRAN_PMPI(mpi_attr_get_)
FORTRAN_PMPI(mpi_keyval_create_)
FORTRAN_PMPI(mpi_grequest_start_)
