/*
 * fbind.c — the Fortran bindings written by hand (those gen_fortran.py cannot
 * derive from a C prototype) and the helpers of the generated ones.
 *
 * Every binding is a C function with gfortran's linkage name (mpi_send_),
 * all arguments by reference, ierror last, then the hidden lengths of the
 * CHARACTER arguments (size_t since gfortran 8).
 */
#include <string.h>

#include "coll/coll.h"
#include "fortran/fbind.h"

MPI_Fint skiff_fc_bottom_, skiff_fc_in_place_;
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

void mpi_init_(MPI_Fint *ierror)
{
    *ierror = MPI_Init(NULL, NULL);
    if (*ierror == MPI_SUCCESS)
        register_booleans();
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierror)
{
    *ierror = MPI_Init_thread(NULL, NULL, *required, provided);
    if (*ierror == MPI_SUCCESS)
        register_booleans();
}

double mpi_wtime_(void) { return MPI_Wtime(); }
double mpi_wtick_(void) { return MPI_Wtick(); }
MPI_Aint mpi_aint_add_(MPI_Aint *base, MPI_Aint *disp) { return MPI_Aint_add(*base, *disp); }
MPI_Aint mpi_aint_diff_(MPI_Aint *a, MPI_Aint *b) { return MPI_Aint_diff(*a, *b); }

/* A user op written in Fortran: SUBROUTINE f(invec, inoutvec, len, datatype),
 * the datatype an INTEGER handle (coll/op.c converts it per call). */
void mpi_op_create_(MPI_User_function *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierror)
{
    MPI_Op c = MPI_OP_NULL;
    *ierror = MPI_Op_create(fn, *commute, &c);
    if (*ierror == MPI_SUCCESS)
        ((struct MPI_ABI_Op *)c)->fortran = 1;
    *op = MPI_Op_c2f(c);
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

void mpi_comm_create_errhandler_(MPI_Comm_errhandler_function *fn, MPI_Fint *errhandler,
                                 MPI_Fint *ierror)
{
    MPI_Errhandler c;
    eh_made(MPI_Comm_create_errhandler(fn, &c), &c, errhandler, ierror);
}

void mpi_win_create_errhandler_(MPI_Win_errhandler_function *fn, MPI_Fint *errhandler,
                                MPI_Fint *ierror)
{
    MPI_Errhandler c;
    eh_made(MPI_Win_create_errhandler(fn, &c), &c, errhandler, ierror);
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
    void mpi_##lower##_set_attr_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val,               \
                                 MPI_Fint *ierror)                                             \
    {                                                                                          \
        *ierror = MPI_##Kind##_set_attr(MPI_##Obj##_f2c(*obj), *keyval, (void *)*val);         \
    }                                                                                          \
    void mpi_##lower##_get_attr_(MPI_Fint *obj, MPI_Fint *keyval, MPI_Aint *val,               \
                                 MPI_Fint *flag, MPI_Fint *ierror)                             \
    {                                                                                          \
        void *v = NULL;                                                                        \
        int f = 0;                                                                             \
        *ierror = MPI_##Kind##_get_attr(MPI_##Obj##_f2c(*obj), *keyval, &v, &f);               \
        if (*ierror == MPI_SUCCESS && f)                                                       \
            *val = attr_value(*keyval, v);                                                     \
        *flag = f != 0;                                                                        \
    }
/* MPI-1's MPI_ATTR_PUT/GET: the same with a default INTEGER value. */
void mpi_attr_put_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierror)
{
    *ierror = MPI_Attr_put(MPI_Comm_f2c(*comm), *keyval, (void *)(MPI_Aint)*val);
}

void mpi_attr_get_(MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
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
