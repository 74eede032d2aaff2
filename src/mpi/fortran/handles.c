/*
 * handles.c — MPI_*_c2f / MPI_*_f2c and the status conversions.
 *
 * A C handle is a pointer (user objects) or a small ABI value (predefined,
 * below MPIR_PREDEF_BOUND).  Fortran holds an INTEGER: a predefined handle
 * keeps its ABI value (so mpif.h's MPI_COMM_WORLD is 257 = 0x101), a user
 * handle gets MPIR_PREDEF_BOUND + i, i its slot in one table shared by all
 * handle kinds.  The slot is made the first time the handle is converted and
 * kept for that address: objects freed and made again at the same address
 * (requests come from a pool) reuse it, so the table stays as small as the
 * set of addresses ever converted.
 *
 * Reads (f2c) take no lock: slots live in chunks that never move, published
 * with release stores.  Writers (c2f of a new address) hold a mutex; the
 * address -> slot lookup is an open-addressing hash table.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_impl.h"

#define CHUNK_BITS 12
#define CHUNK (1 << CHUNK_BITS)
#define MAX_CHUNKS 4096 /* 16 M user handles converted at once */

static void *_Atomic *slot_chunks[MAX_CHUNKS];
static _Atomic int slot_count;

static pthread_mutex_t conv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hent {
    uintptr_t addr;
    int slot;
} *hash;
static size_t hash_cap; /* power of two; at most half full */

static size_t hash_pos(uintptr_t a)
{
    a ^= a >> 33;
    a *= 0xff51afd7ed558ccdULL;
    a ^= a >> 33;
    return (size_t)a & (hash_cap - 1);
}

static int hash_grow(void)
{
    size_t ncap = hash_cap ? hash_cap * 2 : 1024;
    struct hent *n = calloc(ncap, sizeof *n), *old = hash;
    if (!n)
        return -1;
    size_t ocap = hash_cap;
    hash = n;
    hash_cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i].addr) {
            size_t p = hash_pos(old[i].addr);
            while (hash[p].addr)
                p = (p + 1) & (hash_cap - 1);
            hash[p] = old[i];
        }
    free(old);
    return 0;
}

/* Fortran value of a user handle at address a; -1 when out of memory. */
static MPI_Fint user_c2f(uintptr_t a)
{
    MPI_Fint f = -1;
    pthread_mutex_lock(&conv_lock);
    if ((size_t)slot_count * 2 + 2 > hash_cap && hash_grow())
        goto out;
    size_t p = hash_pos(a);
    while (hash[p].addr && hash[p].addr != a)
        p = (p + 1) & (hash_cap - 1);
    if (hash[p].addr) {
        f = MPIR_PREDEF_BOUND + hash[p].slot;
        goto out;
    }
    int s = slot_count;
    if (s >= MAX_CHUNKS * CHUNK)
        goto out;
    void *_Atomic *chunk = slot_chunks[s >> CHUNK_BITS];
    if (!chunk) {
        chunk = calloc(CHUNK, sizeof *chunk);
        if (!chunk)
            goto out;
        __atomic_store_n(&slot_chunks[s >> CHUNK_BITS], chunk, __ATOMIC_RELEASE);
    }
    chunk[s & (CHUNK - 1)] = (void *)a;
    hash[p].addr = a;
    hash[p].slot = s;
    slot_count = s + 1;
    f = MPIR_PREDEF_BOUND + s;
out:
    pthread_mutex_unlock(&conv_lock);
    return f;
}

static uintptr_t user_f2c(MPI_Fint f, uintptr_t null)
{
    if (f < 0)
        return null;
    if (f < MPIR_PREDEF_BOUND)
        return (uintptr_t)f;
    int s = f - MPIR_PREDEF_BOUND;
    if (s >= slot_count)
        return null;
    void *_Atomic *chunk = __atomic_load_n(&slot_chunks[s >> CHUNK_BITS], __ATOMIC_ACQUIRE);
    return chunk ? (uintptr_t)chunk[s & (CHUNK - 1)] : null;
}

static MPI_Fint handle_c2f(uintptr_t v)
{
    return v < MPIR_PREDEF_BOUND ? (MPI_Fint)v : user_c2f(v);
}

#define CONVERSIONS(Kind, Type, NULL_HANDLE)                                   \
    MPI_Fint MPI_##Kind##_c2f(Type h) { return handle_c2f((uintptr_t)h); }   \
    Type MPI_##Kind##_f2c(MPI_Fint f) { return (Type)user_f2c(f, (uintptr_t)NULL_HANDLE); }

CONVERSIONS(Comm, MPI_Comm, MPI_COMM_NULL)
CONVERSIONS(Type, MPI_Datatype, MPI_DATATYPE_NULL)
CONVERSIONS(Group, MPI_Group, MPI_GROUP_NULL)
CONVERSIONS(Request, MPI_Request, MPI_REQUEST_NULL)
CONVERSIONS(Op, MPI_Op, MPI_OP_NULL)
CONVERSIONS(Info, MPI_Info, MPI_INFO_NULL)
CONVERSIONS(Errhandler, MPI_Errhandler, MPI_ERRHANDLER_NULL)
CONVERSIONS(Message, MPI_Message, MPI_MESSAGE_NULL)
CONVERSIONS(Win, MPI_Win, MPI_WIN_NULL)
CONVERSIONS(Session, MPI_Session, MPI_SESSION_NULL)

/* ---- statuses -------------------------------------------------------------
 * Fortran's MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE are common blocks that
 * mpif.h declares (gfortran names a common block /X/ "x_"); C sees their
 * addresses as MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE. */
MPI_Fint skiff_fc_status_ignore_[MPI_F_STATUS_SIZE];
MPI_Fint skiff_fc_statuses_ignore_[MPI_F_STATUS_SIZE];
MPI_Fint *MPI_F_STATUS_IGNORE = skiff_fc_status_ignore_;
MPI_Fint *MPI_F_STATUSES_IGNORE = skiff_fc_statuses_ignore_;
static MPI_F08_status f08_status_ignore, f08_statuses_ignore;
MPI_F08_status *MPI_F08_STATUS_IGNORE = &f08_status_ignore;
MPI_F08_status *MPI_F08_STATUSES_IGNORE = &f08_statuses_ignore;

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "the Fortran status is the C status");
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "the f08 status is the C status");

static int status_copy(const char *fn, const void *from, void *to)
{
    if (!from || !to || from == MPI_F_STATUS_IGNORE ||
        to == MPI_F_STATUS_IGNORE || from == MPI_F08_STATUS_IGNORE || to == MPI_F08_STATUS_IGNORE)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: a status is NULL or MPI_STATUS_IGNORE", fn);
    memmove(to, from, sizeof(MPI_Status));
    return MPI_SUCCESS;
}

int MPI_Status_c2f(const MPI_Status *c, MPI_Fint *f)
{
    return status_copy("MPI_Status_c2f", c, f);
}
int MPI_Status_f2c(const MPI_Fint *f, MPI_Status *c)
{
    return status_copy("MPI_Status_f2c", f, c);
}
int MPI_Status_c2f08(const MPI_Status *c, MPI_F08_status *f)
{
    return status_copy("MPI_Status_c2f08", c, f);
}
int MPI_Status_f082c(const MPI_F08_status *f, MPI_Status *c)
{
    return status_copy("MPI_Status_f082c", f, c);
}
int MPI_Status_f2f08(const MPI_Fint *f, MPI_F08_status *f08)
{
    return status_copy("MPI_Status_f2f08", f, f08);
}
int MPI_Status_f082f(const MPI_F08_status *f08, MPI_Fint *f)
{
    return status_copy("MPI_Status_f082f", f08, f);
}
