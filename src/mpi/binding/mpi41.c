/*
 * mpi41.c — small MPI 4.1 calls: the status accessors
 * (MPI_Status_get/set_source/tag/error), MPI_Type_get_value_index and
 * MPI_Get_hw_resource_info.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "binding/check.h"
#include "info/info.h"

/* ---- status fields ---------------------------------------------------------- */
static int null_status(const char *fn, const void *status, const void *out)
{
    if (!status || !out)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL %s", fn, status ? "output" : "status");
    return MPI_SUCCESS;
}

#define STATUS_FIELD(Name, field)                                                              \
    int MPI_Status_get_##Name(const MPI_Status *status, int *Name)                             \
    {                                                                                          \
        int rc = null_status("MPI_Status_get_" #Name, status, Name);                           \
        if (!rc)                                                                               \
            *Name = status->field;                                                             \
        return rc;                                                                             \
    }                                                                                          \
    int MPI_Status_set_##Name(MPI_Status *status, int Name)                                    \
    {                                                                                          \
        int rc = null_status("MPI_Status_set_" #Name, status, status);                         \
        if (!rc)                                                                               \
            status->field = Name;                                                              \
        return rc;                                                                             \
    }
STATUS_FIELD(source, MPI_SOURCE)
STATUS_FIELD(tag, MPI_TAG)
STATUS_FIELD(error, MPI_ERROR)

/* ---- value-index pair types --------------------------------------------------- */
/* The predefined pair type of (value, index) for MPI_MINLOC/MPI_MAXLOC, or
 * MPI_DATATYPE_NULL when the standard has none for the two (C pairs: the
 * index is an int). */
int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                             MPI_Datatype *pair_type)
{
    static const char fn[] = "MPI_Type_get_value_index";
    static const struct {
        MPI_Datatype value, pair;
    } pairs[] = {
        {MPI_FLOAT, MPI_FLOAT_INT}, {MPI_DOUBLE, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_LONG_INT},   {MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_SHORT_INT}, {MPI_LONG_DOUBLE, MPI_LONG_DOUBLE_INT},
    };
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_dtype(fn, NULL, value_type, &d)) || (rc = check_dtype(fn, NULL, index_type, &d)))
        return rc;
    if (!pair_type)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL pair_type", fn);
    *pair_type = MPI_DATATYPE_NULL;
    if (index_type == MPI_INT)
        for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
            if (pairs[i].value == value_type)
                *pair_type = pairs[i].pair;
    return MPI_SUCCESS;
}

/* ---- hardware resource information -------------------------------------------- */
/* What this process can tell about the machine without hwloc: the one
 * resource level Skiff tells apart (shared memory: a node, as
 * MPI_COMM_TYPE_SHARED splits), and from sysconf/sched_getaffinity/uname the processors online,
 * those this process may run on, the memory and the host. */
int MPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    static const char fn[] = "MPI_Get_hw_resource_info";
    CHECK_INIT(fn);
    if (!hw_info)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL hw_info", fn);
    struct MPI_ABI_Info *i = info_new();
    char buf[256];
    int bad = !i;
    if (i) {
        bad |= info_set(i, "mpi_hw_resource_type", "mpi_shared_memory");
        snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
        bad |= info_set(i, "skiff_hw_cpus_online", buf);
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0) {
            snprintf(buf, sizeof buf, "%d", CPU_COUNT(&set));
            bad |= info_set(i, "skiff_hw_cpus_allowed", buf);
        }
        long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
        if (pages > 0 && psize > 0) {
            snprintf(buf, sizeof buf, "%lld", (long long)pages * psize);
            bad |= info_set(i, "skiff_hw_memory_bytes", buf);
        }
        if (gethostname(buf, sizeof buf) == 0) {
            buf[sizeof buf - 1] = '\0';
            bad |= info_set(i, "skiff_hw_host", buf);
        }
    }
    if (bad) {
        info_free(i);
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    *hw_info = (MPI_Info)i;
    return MPI_SUCCESS;
}
