/*
 * config — every SKIFF_* environment variable, in one table.
 *
 * Each variable has a default, a one-line meaning and what it accepts:
 * numbers in a range (K/M/G suffixes, powers of 1024; optionally powers of
 * two only), a few words (case-insensitive), or text a check function judges.
 * skf_init refuses a job whose environment holds a value the table does not
 * accept, with one line per variable naming it and what it accepts; skiff-info
 * prints the table.  Adding a tunable means adding a row in config.c.  Values
 * are read once (callers cache what they use on a fast path).
 */
#ifndef SKIFF_CONFIG_H
#define SKIFF_CONFIG_H

#include <stddef.h>

typedef enum {
    SKF_PARAM_TEXT, /* free text: check() judges it (NULL: anything) */
    SKF_PARAM_NUM,  /* a number in [min, max], or one of words       */
    SKF_PARAM_WORD, /* one of words                                  */
} skf_param_kind_t;

/* Returns 0 when value is acceptable, else -1 with what is accepted in why. */
typedef int (*skf_param_check_fn)(const char *value, char *why, size_t cap);

typedef struct skf_param {
    const char *name;    /* "SKIFF_EAGER_MAX"                      */
    const char *def;     /* default as text: "16K", "1", "auto"... */
    const char *meaning; /* one line for skiff-info                */
    skf_param_kind_t kind;
    const char *const *words; /* NULL-terminated; NULL: no words      */
    long long min, max;       /* SKF_PARAM_NUM: the accepted range     */
    int pow2;                 /* SKF_PARAM_NUM: powers of two only     */
    skf_param_check_fn check; /* SKF_PARAM_TEXT                        */
} skf_param_t;

extern const skf_param_t skf_params[];
extern const int skf_nparams;

/* The variable's value from the environment, else its default.  A word comes
 * back in the table's spelling ("TCP" gives "tcp").  The name must be in the
 * table (an unknown name is a programming error and aborts). */
const char *skf_param_str(const char *name);
/* Same, parsed as an integer with optional K/M/G suffix (powers of 1024); a
 * word gives 0 (callers treat it as "choose").  A value the table does not
 * accept (skf_init has refused the job then) gives the default. */
long long skf_param_ll(const char *name);

/* 0 when value is acceptable for p, else -1 with "expected ..." in why. */
int skf_param_check(const skf_param_t *p, const char *value, char *why, size_t cap);
/* Check every SKIFF_* variable set in the environment: one line on stderr per
 * unacceptable value ("caller: SKIFF_X=v is not valid: expected ..."), and
 * -EINVAL when there was any. */
int skf_config_check(const char *caller);

#endif
