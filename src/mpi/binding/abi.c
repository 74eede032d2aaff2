/*
 * abi.c — the MPI 5.0 standard ABI's query calls (docs/mpi.md, "Standard
 * ABI"): MPI_Abi_get_version, MPI_Abi_get_info, and the Fortran registration
 * pair MPI_Abi_get/set_fortran_info, MPI_Abi_get/set_fortran_booleans.
 *
 * libmpi itself knows no Fortran compiler, so the Fortran properties are
 * what a Fortran layer registers: until then MPI_Abi_get_fortran_info gives
 * MPI_INFO_NULL and MPI_Abi_get_fortran_booleans says "not set".  Only the
 * first registration counts; later ones fail with MPI_ERR_ABI, as the
 * standard asks.  Every call here works before MPI_Init and after
 * MPI_Finalize, from any thread (the registered state is under a mutex).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "binding/check.h"
#include "info/info.h"

/* The Fortran LOGICAL sizes the ABI names (MPI_LOGICAL1 .. MPI_LOGICAL16). */
#define NSIZES 5
static const int logical_sizes[NSIZES] = {1, 2, 4, 8, 16};

static pthread_mutex_t fortran_lock = PTHREAD_MUTEX_INITIALIZER;
static struct MPI_ABI_Info *fortran_info;  /* registered copy, or NULL */
static struct {
    int set;
    unsigned char t[16], f[16];
} booleans[NSIZES];

static int size_index(int logical_size)
{
    for (int i = 0; i < NSIZES; i++)
        if (logical_sizes[i] == logical_size)
            return i;
    return -1;
}

int MPI_Abi_get_version(int *abi_major, int *abi_minor)
{
    if (!abi_major || !abi_minor)
        return mpir_error(NULL, MPI_ERR_ARG, "MPI_Abi_get_version: NULL abi_major or abi_minor");
    *abi_major = MPI_ABI_VERSION;
    *abi_minor = MPI_ABI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Abi_get_info(MPI_Info *info)
{
    static const char fn[] = "MPI_Abi_get_info";
    if (!info)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL info", fn);
    static const struct {
        const char *key;
        size_t size;
    } sizes[] = {{"mpi_aint_size", sizeof(MPI_Aint)},
                 {"mpi_count_size", sizeof(MPI_Count)},
                 {"mpi_offset_size", sizeof(MPI_Offset)}};
    struct MPI_ABI_Info *i = info_new();
    for (size_t k = 0; i && k < sizeof sizes / sizeof sizes[0]; k++) {
        char v[24];
        snprintf(v, sizeof v, "%zu", sizes[k].size);
        if (info_set(i, sizes[k].key, v)) {
            info_free(i);
            i = NULL;
        }
    }
    if (!i)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *info = (MPI_Info)i;
    return MPI_SUCCESS;
}

int MPI_Abi_set_fortran_info(MPI_Info info)
{
    static const char fn[] = "MPI_Abi_set_fortran_info";
    struct MPI_ABI_Info *i;
    int rc = info_check(fn, info, 0, &i);
    if (rc)
        return rc;
    pthread_mutex_lock(&fortran_lock);
    int already = fortran_info != NULL;
    if (!already)
        fortran_info = info_dup(i);
    int no_mem = !already && !fortran_info;
    pthread_mutex_unlock(&fortran_lock);
    if (already)
        return mpir_error(NULL, MPI_ERR_ABI, "%s: the Fortran ABI information is already set", fn);
    if (no_mem)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    return MPI_SUCCESS;
}

int MPI_Abi_get_fortran_info(MPI_Info *info)
{
    static const char fn[] = "MPI_Abi_get_fortran_info";
    if (!info)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL info", fn);
    pthread_mutex_lock(&fortran_lock);
    struct MPI_ABI_Info *copy = fortran_info ? info_dup(fortran_info) : NULL;
    int known = fortran_info != NULL;
    pthread_mutex_unlock(&fortran_lock);
    if (known && !copy)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    *info = known ? (MPI_Info)copy : MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int MPI_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    static const char fn[] = "MPI_Abi_set_fortran_booleans";
    int k = size_index(logical_size);
    if (k < 0 || !logical_true || !logical_false)
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: invalid logical_size %d (1, 2, 4, 8 or 16) or NULL value", fn,
                          logical_size);
    if (!memcmp(logical_true, logical_false, (size_t)logical_size))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: .TRUE. and .FALSE. have the same %d bytes", fn,
                          logical_size);
    pthread_mutex_lock(&fortran_lock);
    int already = booleans[k].set;
    if (!already) {
        memcpy(booleans[k].t, logical_true, (size_t)logical_size);
        memcpy(booleans[k].f, logical_false, (size_t)logical_size);
        booleans[k].set = 1;
    }
    pthread_mutex_unlock(&fortran_lock);
    if (already)
        return mpir_error(NULL, MPI_ERR_ABI, "%s: the LOGICAL(%d) values are already set", fn,
                          logical_size);
    return MPI_SUCCESS;
}

int MPI_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                 int *is_set)
{
    static const char fn[] = "MPI_Abi_get_fortran_booleans";
    int k = size_index(logical_size);
    if (k < 0 || !logical_true || !logical_false || !is_set)
        return mpir_error(NULL, MPI_ERR_ARG,
                          "%s: invalid logical_size %d (1, 2, 4, 8 or 16) or NULL argument", fn,
                          logical_size);
    pthread_mutex_lock(&fortran_lock);
    *is_set = booleans[k].set;
    if (booleans[k].set) {
        memcpy(logical_true, booleans[k].t, (size_t)logical_size);
        memcpy(logical_false, booleans[k].f, (size_t)logical_size);
    }
    pthread_mutex_unlock(&fortran_lock);
    return MPI_SUCCESS;
}
