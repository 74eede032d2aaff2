/*
 * boot — how a process learns who it is in the job.
 *
 * The only module that speaks to a launcher.  Backends: the PMI-1 wire protocol
 * over an inherited socket (PMI_FD, as served by skiffrun and MPICH's hydra) and
 * singleton (no launcher variables: rank 0 of 1).  Everything above boot uses
 * only this interface.  All functions return 0 or a negative errno.
 * (Also PMI-2 and PMIx clients: docs/boot.md, "Which backend".)
 */
#ifndef SKIFF_BOOT_H
#define SKIFF_BOOT_H

#include <stddef.h>

#define BOOT_KEY_MAX 64   /* longest key, including the terminating NUL   */
#define BOOT_VAL_MAX 1024 /* longest value, including the terminating NUL */

typedef struct boot_info {
    int rank;
    int size;
    int appnum;
    int universe_size;
    int singleton;      /* 1 when started without any launcher              */
    int *node_of_rank;  /* [size]: node index of every rank (PMI mapping)   */
    int num_nodes;
    int local_rank;     /* my index among the ranks of my node              */
    int local_size;     /* ranks on my node                                 */
    int *local_ranks;   /* [local_size]: world ranks on my node, ascending  */
    char job_key[33];   /* SKIFF_JOB_KEY from the launcher, or made up here */
    char shm_tag[17];   /* names shared-memory objects: derived from the key (shm_name.h) */
    char kvsname[BOOT_VAL_MAX];
} boot_info_t;

/* Connect to the launcher (or become a singleton) and fill *info.
 * Calling it twice returns the same information. */
int boot_init(boot_info_t **info);
/* Publish key=value; visible to others after the next boot_fence. */
int boot_put(const char *key, const char *value);
/* Read a key published by any rank before the last fence.  -ENOENT if absent. */
int boot_get(const char *key, char *value, size_t value_len);
/* Collective barrier that also makes every put visible. */
int boot_fence(void);
/* Ask the launcher to end the job with this exit code, after one line on
 * stderr saying why.  Never returns. */
void boot_abort(int code, const char *why) __attribute__((noreturn));
/* The same without the line: the caller has printed why already. */
void boot_abort_quiet(int code, const char *why) __attribute__((noreturn));
/* Tell the launcher this rank is done (a rank that exits after this with
 * status 0 is a normal exit). */
int boot_finalize(void);

#endif /* SKIFF_BOOT_H */
