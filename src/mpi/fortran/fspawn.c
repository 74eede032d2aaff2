/*
 * fspawn.c — Fortran MPI_COMM_SPAWN and MPI_COMM_SPAWN_MULTIPLE (mpif.h,
 * module mpi, mpi_f08), written by hand: their argument lists are arrays of
 * blank-padded CHARACTER elements, each list ended by an all-blank element.
 * Fortran's MPI_ARGV_NULL, MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE are common
 * blocks (mpif.h), recognised by address as the other sentinels are.
 */
#include <stdlib.h>
#include <string.h>

#include "fortran/fbind.h"

char skiff_fc_argv_null_[1], skiff_fc_argvs_null_[1];
MPI_Fint skiff_fc_errcodes_ignore_[1];

static int all_blank(const char *s, size_t len)
{
    while (len && s[len - 1] == ' ')
        len--;
    return len == 0;
}

/* The element length of argv(*) and a null-terminated C argv of its entries
 * up to the first all-blank one (stride: elements between one entry and the
 * next: 1, or COUNT for a column of MPI_COMM_SPAWN_MULTIPLE's 2-D array). */
static char **argv_in(const char *f, size_t len, size_t stride)
{
    size_t n = 0;
    while (!all_blank(f + n * stride * len, len))
        n++;
    char **v = fb_alloc((int)n + 1, sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = fb_str_in(f + i * stride * len, len);
    v[n] = NULL;
    return v;
}

static void argv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    fb_free(v);
}

static int *errcodes_of(MPI_Fint *e)
{
    return e == skiff_fc_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : e;
}

void pmpi_comm_spawn_(const char *command, const char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm,
                      MPI_Fint *array_of_errcodes, MPI_Fint *ierror, size_t command_len,
                      size_t argv_len)
{
    char *c_command = fb_str_in(command, command_len);
    char **c_argv = argv == skiff_fc_argv_null_ ? MPI_ARGV_NULL : argv_in(argv, argv_len, 1);
    MPI_Comm c = MPI_COMM_NULL;
    *ierror = MPI_Comm_spawn(c_command, c_argv, *maxprocs, MPI_Info_f2c(*info), *root,
                             MPI_Comm_f2c(*comm), &c, errcodes_of(array_of_errcodes));
    *intercomm = MPI_Comm_c2f(c);
    if (c_argv != MPI_ARGV_NULL)
        argv_free(c_argv);
    free(c_command);
}
FORTRAN_PMPI(mpi_comm_spawn_)

/* array_of_argv(count, *): the arguments of command i are row i. */
void pmpi_comm_spawn_multiple_(MPI_Fint *count, const char *array_of_commands,
                               const char *array_of_argv, MPI_Fint *array_of_maxprocs,
                               MPI_Fint *array_of_info, MPI_Fint *root, MPI_Fint *comm,
                               MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                               MPI_Fint *ierror, size_t commands_len, size_t argv_len)
{
    int n = *count > 0 ? *count : 0;
    char **cmds = fb_alloc(n + 1, sizeof *cmds);
    char ***argvs = array_of_argv == skiff_fc_argvs_null_ ? MPI_ARGVS_NULL
                                                          : fb_alloc(n + 1, sizeof *argvs);
    MPI_Info *infos = fb_alloc(n + 1, sizeof *infos);
    for (int i = 0; i < n; i++) {
        cmds[i] = fb_str_in(array_of_commands + (size_t)i * commands_len, commands_len);
        if (argvs != MPI_ARGVS_NULL)
            argvs[i] = argv_in(array_of_argv + (size_t)i * argv_len, argv_len, (size_t)n);
        infos[i] = MPI_Info_f2c(array_of_info[i]);
    }
    MPI_Comm c = MPI_COMM_NULL;
    *ierror = MPI_Comm_spawn_multiple(*count, cmds, argvs, array_of_maxprocs, infos, *root,
                                      MPI_Comm_f2c(*comm), &c, errcodes_of(array_of_errcodes));
    *intercomm = MPI_Comm_c2f(c);
    for (int i = 0; i < n; i++) {
        free(cmds[i]);
        if (argvs != MPI_ARGVS_NULL)
            argv_free(argvs[i]);
    }
    fb_free(cmds);
    if (argvs != MPI_ARGVS_NULL)
        fb_free(argvs);
    fb_free(infos);
}
FORTRAN_PMPI(mpi_comm_spawn_multiple_)
