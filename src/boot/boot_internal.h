/*
 * boot_internal — what boot.c (detection, argument checks, escaping) shares
 * with its backends (boot_pmi1.c: PMI-1 over an inherited socket;
 * boot_singleton.c: no launcher).
 *
 * Backends move already-escaped values; boot.c escapes on put and unescapes
 * on get, so every backend stores exactly what travels on the PMI wire.
 */
#ifndef SKIFF_BOOT_INTERNAL_H
#define SKIFF_BOOT_INTERNAL_H

#include "boot/boot.h"

#include <stddef.h>

typedef struct boot_backend {
    const char *name;
    /* Store key=wire_value (already escaped, length checked). */
    int (*put)(const char *key, const char *wire_value);
    /* Copy the stored wire value of key into out[cap]; -ENOENT if absent. */
    int (*get)(const char *key, char *out, size_t cap);
    /* Barrier over all ranks that also publishes the puts. */
    int (*fence)(void);
    /* Tell the launcher this rank is done. */
    int (*finalize)(void);
    /* Ask the launcher to end the job; may return (the caller then exits). */
    void (*abort)(int code, const char *why);
} boot_backend_t;

/* Limits the backend (launcher) imposes, filled in by its init. */
typedef struct boot_limits {
    size_t key_max;  /* longest key, including NUL        */
    size_t wire_max; /* longest escaped value, incl. NUL  */
} boot_limits_t;

extern const boot_backend_t boot_pmi1_backend;
extern const boot_backend_t boot_singleton_backend;
extern const boot_backend_t boot_pmi2_backend;
extern const boot_backend_t boot_pmix_backend;

/* Connect to the launcher over fd and run the PMI-1 start-up exchange: fills
 * appnum, universe_size, kvsname of *info (rank and size are already set) and
 * the limits.  mapping[cap] receives PMI_process_mapping ("" if the launcher
 * has none). */
int boot_pmi1_init(int fd, boot_info_t *info, boot_limits_t *limits, char *mapping, size_t cap);
int boot_singleton_init(boot_info_t *info, boot_limits_t *limits);
/* The same over the PMI-2 wire protocol (boot_pmi2.c): Slurm's --mpi=pmi2,
 * hydra when asked for version 2.  rank and size are already set from
 * PMI_RANK/PMI_SIZE and checked against the launcher's. */
int boot_pmi2_init(int fd, boot_info_t *info, boot_limits_t *limits, char *mapping, size_t cap);
/* PMIx through the PMIx library (boot_pmix.c, only when built with it): sets
 * rank, size, kvsname and node_of_rank/num_nodes itself (no mapping string). */
int boot_pmix_init(boot_info_t *info, boot_limits_t *limits);

/* Write all of buf to the launcher's fd: -EPIPE (never SIGPIPE) if it is gone. */
int boot_send_all(int fd, const char *buf, size_t len);

/* Which client the environment asks for (boot_env.c). */
typedef enum boot_method {
    BOOT_SINGLETON,
    BOOT_PMI1_FD,  /* PMI_FD: skiffrun, hydra                    */
    BOOT_PMI1_TCP, /* PMI_PORT: skiffrun's remote ranks           */
    BOOT_PMI2_FD,  /* PMI_FD under Slurm, or SKIFF_PMI=pmi2       */
    BOOT_PMIX,     /* PMIX_NAMESPACE + PMIX_RANK                  */
} boot_method_t;
/* Decide from the environment; a half-set or contradictory one is one line
 * on stderr and a negative errno. */
int boot_choose_method(boot_method_t *method);

/* One-line error on stderr: "skiff boot: rank R: <message>". */
void boot_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, only when SKIFF_VERBOSE is set to a positive number. */
void boot_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
