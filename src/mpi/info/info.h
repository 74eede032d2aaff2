/*
 * info.h — MPI_Info objects: ordered (key, value) string pairs.
 */
#ifndef SKIFF_MPI_INFO_H
#define SKIFF_MPI_INFO_H

#include "mpi_impl.h"

#pragma GCC visibility push(hidden)

#define MAGIC_INFO 0x6f666e49

typedef struct info_entry {
    char *key, *value;
} info_entry_t;

struct MPI_ABI_Info {
    uint32_t magic;
    int n, cap;
    info_entry_t *e; /* in order of first setting */
};

struct MPI_ABI_Info *info_new(void);
struct MPI_ABI_Info *info_dup(const struct MPI_ABI_Info *from);
void info_free(struct MPI_ABI_Info *i);
/* 0, or an error class (MPI_ERR_NO_MEM) */
int info_set(struct MPI_ABI_Info *i, const char *key, const char *value);
const char *info_get(const struct MPI_ABI_Info *i, const char *key);
/* The keys MPI_INFO_ENV has (plus argv from argc/argv) into i; 0 or MPI_ERR_NO_MEM. */
int info_env_into(struct MPI_ABI_Info *i, int argc, char **argv);
/* Resolve a handle (MPI_INFO_ENV included; MPI_INFO_NULL only if null_ok). */
int info_check(const char *fn, MPI_Info h, int null_ok, struct MPI_ABI_Info **out);

#pragma GCC visibility pop

#endif
