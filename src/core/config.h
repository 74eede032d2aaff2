/*
 * config — every SKIFF_* environment variable, in one table.
 *
 * Each variable has a default and a one-line meaning; skiff-info prints the
 * table, so adding a tunable means adding a row in config.c.  Values are read
 * once (callers cache what they use on a fast path).
 */
#ifndef SKIFF_CONFIG_H
#define SKIFF_CONFIG_H

#include <stddef.h>

typedef struct skf_param {
    const char *name;    /* "SKIFF_EAGER_MAX"                      */
    const char *def;     /* default as text: "16K", "1", "auto"... */
    const char *meaning; /* one line for skiff-info                */
} skf_param_t;

extern const skf_param_t skf_params[];
extern const int skf_nparams;

/* The variable's value from the environment, else its default.  The name must
 * be in the table (an unknown name is a programming error and aborts). */
const char *skf_param_str(const char *name);
/* Same, parsed as an integer with optional K/M/G suffix (powers of 1024).
 * A malformed value prints one warning naming the variable and uses the default. */
long long skf_param_ll(const char *name);

#endif
