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

/* Connect to the launcher over fd and run the PMI-1 start-up exchange: fills
 * appnum, universe_size, kvsname of *info (rank and size are already set) and
 * the limits.  mapping[cap] receives PMI_process_mapping ("" if the launcher
 * has none). */
int boot_pmi1_init(int fd, boot_info_t *info, boot_limits_t *limits, char *mapping, size_t cap);
int boot_singleton_init(boot_info_t *info, boot_limits_t *limits);

/* One-line error on stderr: "skiff boot: rank R: <message>". */
void boot_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Same, only when SKIFF_VERBOSE is set to a positive number. */
void boot_verbose(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
