/* options — skiffrun's command line (see options.h). */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SKIFF_VERSION
#define SKIFF_VERSION "unknown"
#endif

__attribute__((format(printf, 1, 2))) static void usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("skiffrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see skiffrun --help)\n", stderr);
    va_end(ap);
}

void launch_print_version(void)
{
    printf("skiffrun (Skiff) %s\n", SKIFF_VERSION);
}

void launch_print_help(void)
{
    printf("Usage: skiffrun [options] [-n N] program [args...]\n"
           "       (also installed as mpiexec and mpirun)\n"
           "Start N copies (ranks) of program on this host and serve them PMI-1.\n"
           "\n"
           "  -n, -np N            number of ranks (default 1)\n"
           "  -x VAR[=VAL]         pass VAR (from this environment, or set to VAL)\n"
           "  -genv VAR VAL        set VAR=VAL for every rank\n"
           "  --env VAR=VAL        set VAR=VAL for every rank\n"
           "  --tag-output, -l     prefix every output line with \"[rank] \"\n"
           "  --bind-to none|core  pin rank i to the i-th available CPU (default: core\n"
           "                       when N = available CPUs, the job fills the node)\n"
           "  --hosts h1:2,h2:2    run on these hosts, N ranks each (also -hosts, -H)\n"
           "  --hostfile FILE      hosts from a file: 'host slots=N' lines (also -f)\n"
           "  -usize N             MPI_UNIVERSE_SIZE (also --universe-size; default: the\n"
           "                       hosts' slots, or -n)\n"
           "  -ppn N               N ranks per host (also -perhost, --npernode); without\n"
           "                       -n: N ranks on each host given (this one if none)\n"
           "  -wdir DIR            start the ranks in DIR (also --wdir, -wd); a program\n"
           "                       named with '/' is found from there\n"
           "  --launch-agent CMD   start remote ranks with CMD (default 'ssh -x {host}';\n"
           "                       e.g. 'ip netns exec {host}')\n"
           "  --launcher-addr A    address remote ranks use to reach this launcher\n"
           "  --launcher local|slurm  slurm: inside an allocation (SLURM_JOB_ID set) start\n"
           "                       the ranks with srun --mpi=pmi2; elsewhere as local\n"
           "  --oversubscribe, --allow-run-as-root, -genvall, -envall\n"
           "                       accepted and ignored: all always hold\n"
           "  --version            print the version and exit\n"
           "  -h, --help           print this help and exit\n"
           "\n"
           "Options stop at the program name.  Ranks inherit this environment plus\n"
           "PMI_FD, PMI_RANK, PMI_SIZE and SKIFF_JOB_KEY.  stdin goes to rank 0.\n"
           "Exit status: 0 if every rank exits 0; else the first failing rank's status\n"
           "(128+N for signal N); 2 for usage errors.  See docs/launcher.md.\n");
}

/* A rank count: decimal digits only, 1..LAUNCH_MAX_RANKS. */
static int parse_nranks(const char *opt, const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno) {
        usage_error("%s '%s': not a rank count", opt, s);
        return -1;
    }
    if (v < 1 || v > LAUNCH_MAX_RANKS) {
        usage_error("%s %s: the rank count must be between 1 and %d", opt, s, LAUNCH_MAX_RANKS);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int valid_var_name(const char *name, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (name[i] == '=' || name[i] == '\0')
            return 0;
    return 1;
}

/* Append "name=value" to the rank environment settings. */
static int add_env(launch_opts_t *o, const char *name, size_t name_len, const char *value)
{
    char **grown = realloc(o->env, (size_t)(o->nenv + 1) * sizeof *grown);
    if (!grown)
        return -1;
    o->env = grown;
    size_t vlen = strlen(value);
    char *s = malloc(name_len + vlen + 2);
    if (!s)
        return -1;
    memcpy(s, name, name_len);
    s[name_len] = '=';
    memcpy(s + name_len + 1, value, vlen + 1);
    o->env[o->nenv++] = s;
    return 0;
}

/* "-x VAR" takes VAR's value from the launcher's environment; "-x VAR=VAL" sets it. */
static int opt_x(launch_opts_t *o, const char *spec)
{
    const char *eq = strchr(spec, '=');
    size_t len = eq ? (size_t)(eq - spec) : strlen(spec);
    if (!valid_var_name(spec, len)) {
        usage_error("-x '%s': not a variable name", spec);
        return -1;
    }
    if (eq)
        return add_env(o, spec, len, eq + 1);
    const char *value = getenv(spec);
    if (!value) {
        fprintf(stderr, "skiffrun: warning: -x %s: not set in this environment; not passed\n",
                spec);
        return 0;
    }
    return add_env(o, spec, len, value);
}

/* If argv[*i] is option `name` (as "name VALUE" or "name=VALUE"), store its
 * value in *val and return 1; a missing value is a usage error (-1). */
static int match_valued(int argc, char **argv, int *i, const char *name, const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return 0;
    if (a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (a[n] != '\0')
        return 0;
    if (*i + 1 >= argc) {
        usage_error("%s needs a value", name);
        return -1;
    }
    *val = argv[++*i];
    return 1;
}

/* -wdir DIR: kept as an absolute path (the ranks chdir there before exec). */
static int opt_wdir(launch_opts_t *o, const char *opt, const char *dir)
{
    struct stat st;
    char *abs = realpath(dir, NULL);
    if (!abs || stat(abs, &st) != 0 || !S_ISDIR(st.st_mode) || access(abs, X_OK) != 0) {
        usage_error("%.*s '%s': %s", (int)strcspn(opt, "="), opt, dir,
                    !abs ? strerror(errno) : !S_ISDIR(st.st_mode) ? "not a directory"
                                                                  : "cannot enter it");
        free(abs);
        return -1;
    }
    free(o->wdir);
    o->wdir = abs;
    return 0;
}

/* -ppn N: every host of the list takes N ranks; with no list, this host runs
 * N ranks unless -n says otherwise (hydra's reading). */
static void apply_ppn(launch_opts_t *o)
{
    if (!o->ppn)
        return;
    if (!o->hosts.nhosts) {
        if (!o->nranks_given)
            o->nranks = o->ppn;
        return;
    }
    for (int h = 0; h < o->hosts.nhosts; h++)
        o->hosts.hosts[h].slots = o->ppn;
    long total = (long)o->ppn * o->hosts.nhosts;
    o->hosts.total_slots = total < LAUNCH_MAX_RANKS ? (int)total : LAUNCH_MAX_RANKS;
}

static int is_any(const char *a, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(a, *names) == 0)
            return 1;
    return 0;
}

int launch_opts_parse(int argc, char **argv, launch_opts_t *o)
{
    /* Always true here: oversubscribing, running as root, ranks getting the
     * whole environment (hydra's -genvall/-envall). */
    static const char *const ignored[] = {"--oversubscribe", "-oversubscribe", "--allow-run-as-root",
                                          "-allow-run-as-root", "-genvall", "-envall", NULL};
    static const char *const tag[] = {"--tag-output", "-tag-output", "-prepend-rank", "-l", NULL};
    memset(o, 0, sizeof *o);
    o->nranks = 1;
    o->bind = BIND_AUTO;
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        int m;
        if (a[0] != '-' || a[1] == '\0')
            break; /* the program ("-" alone is a file name, like for most tools) */
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->action = ACTION_HELP;
            return 0;
        }
        if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
            o->action = ACTION_VERSION;
            return 0;
        }
        if (is_any(a, ignored))
            continue;
        if (is_any(a, tag)) {
            o->tag_output = 1;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "-n", &val)) ||
            (m = match_valued(argc, argv, &i, "-np", &val)) ||
            (m = match_valued(argc, argv, &i, "--np", &val))) {
            if (m < 0 || parse_nranks(a, val, &o->nranks) < 0)
                return -1;
            o->nranks_given = 1;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "--hosts", &val)) ||
            (m = match_valued(argc, argv, &i, "-hosts", &val)) ||
            (m = match_valued(argc, argv, &i, "--host", &val)) ||
            (m = match_valued(argc, argv, &i, "-host", &val)) ||
            (m = match_valued(argc, argv, &i, "-H", &val))) {
            if (m < 0 || hosts_parse_list(&o->hosts, a, val) < 0)
                return -1;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "--hostfile", &val)) ||
            (m = match_valued(argc, argv, &i, "-hostfile", &val)) ||
            (m = match_valued(argc, argv, &i, "--machinefile", &val)) ||
            (m = match_valued(argc, argv, &i, "-machinefile", &val)) ||
            (m = match_valued(argc, argv, &i, "-f", &val))) {
            if (m < 0 || hosts_parse_file(&o->hosts, a, val) < 0)
                return -1;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "-ppn", &val)) ||
            (m = match_valued(argc, argv, &i, "--ppn", &val)) ||
            (m = match_valued(argc, argv, &i, "-perhost", &val)) ||
            (m = match_valued(argc, argv, &i, "--npernode", &val)) ||
            (m = match_valued(argc, argv, &i, "-npernode", &val))) {
            if (m < 0 || parse_nranks(a, val, &o->ppn) < 0)
                return -1;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "-usize", &val)) ||
            (m = match_valued(argc, argv, &i, "--universe-size", &val))) {
            if (m < 0 || parse_nranks(a, val, &o->universe_size) < 0)
                return -1;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "-wdir", &val)) ||
            (m = match_valued(argc, argv, &i, "--wdir", &val)) ||
            (m = match_valued(argc, argv, &i, "-wd", &val)) ||
            (m = match_valued(argc, argv, &i, "--wd", &val))) {
            if (m < 0 || opt_wdir(o, a, val) < 0)
                return -1;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "--launch-agent", &val)) ||
            (m = match_valued(argc, argv, &i, "-launch-agent", &val))) {
            if (m < 0)
                return -1;
            if (!strpbrk(val, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/")) {
                usage_error("--launch-agent '%s': expected a command such as 'ssh -x {host}'", val);
                return -1;
            }
            o->agent = val;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "--launcher", &val))) {
            if (m < 0)
                return -1;
            if (strcmp(val, "local") == 0 || strcmp(val, "slurm") == 0)
                o->launcher = val[0] == 's' ? LAUNCHER_SLURM : LAUNCHER_LOCAL;
            else {
                usage_error("--launcher '%s': expected local or slurm", val);
                return -1;
            }
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "--launcher-addr", &val)) ||
            (m = match_valued(argc, argv, &i, "-launcher-addr", &val))) {
            if (m < 0)
                return -1;
            o->launcher_addr = val;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "-x", &val))) {
            if (m < 0 || opt_x(o, val) < 0)
                return -1;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "--env", &val))) {
            const char *eq = m > 0 ? strchr(val, '=') : NULL;
            if (m < 0)
                return -1;
            if (!eq || !valid_var_name(val, (size_t)(eq - val))) {
                usage_error("--env '%s': expected VAR=VALUE", val);
                return -1;
            }
            if (add_env(o, val, (size_t)(eq - val), eq + 1) < 0)
                return -1;
            continue;
        }
        if (strcmp(a, "-genv") == 0 || strcmp(a, "--genv") == 0) {
            if (i + 2 >= argc) {
                usage_error("%s needs a name and a value", a);
                return -1;
            }
            const char *name = argv[i + 1];
            if (!valid_var_name(name, strlen(name))) {
                usage_error("%s '%s': not a variable name", a, name);
                return -1;
            }
            if (add_env(o, name, strlen(name), argv[i + 2]) < 0)
                return -1;
            i += 2;
            continue;
        }
        if ((m = match_valued(argc, argv, &i, "--bind-to", &val)) ||
            (m = match_valued(argc, argv, &i, "-bind-to", &val))) {
            if (m < 0)
                return -1;
            if (strcmp(val, "none") == 0)
                o->bind = BIND_NONE;
            else if (strcmp(val, "core") == 0)
                o->bind = BIND_CORE;
            else {
                usage_error("--bind-to '%s': expected none or core", val);
                return -1;
            }
            continue;
        }
        usage_error("unknown option '%s'", a);
        return -1;
    }
    if (i >= argc) {
        usage_error("no program given");
        return -1;
    }
    apply_ppn(o);
    if (o->hosts.nhosts && !o->nranks_given)
        o->nranks = o->hosts.total_slots < LAUNCH_MAX_RANKS ? o->hosts.total_slots : LAUNCH_MAX_RANKS;
    o->prog_argv = &argv[i];
    o->prog_path = launch_resolve_program(argv[i], o->wdir);
    return o->prog_path ? 0 : -1;
}

void launch_opts_free(launch_opts_t *o)
{
    for (int i = 0; i < o->nenv; i++)
        free(o->env[i]);
    free(o->env);
    free(o->prog_path);
    free(o->wdir);
    hosts_free(&o->hosts);
    o->env = NULL;
    o->prog_path = NULL;
    o->wdir = NULL;
}

/* 0 when path is an executable regular file; else errno (EACCES, ENOENT...). */
#define NOT_EXECUTABLE (-1)

/* 0: path is an executable file; NOT_EXECUTABLE: it exists but is not one;
 * else why it cannot be looked at (stat's errno: ENOENT, or EACCES for a
 * directory on the way that this user cannot search). */
static int check_executable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (!S_ISREG(st.st_mode) || access(path, X_OK) != 0)
        return NOT_EXECUTABLE;
    return 0;
}

/* dir/name into out (name alone when dir is NULL or name is absolute). */
static int join(char *out, size_t cap, const char *dir, const char *name)
{
    int n = (!dir || name[0] == '/') ? snprintf(out, cap, "%s", name)
                                     : snprintf(out, cap, "%s/%s", dir, name);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

char *launch_resolve_program(const char *prog, const char *wdir)
{
    char full[PATH_MAX];
    if (strchr(prog, '/')) {
        int err = join(full, sizeof full, wdir, prog) == 0 ? check_executable(full) : ENAMETOOLONG;
        if (err == 0)
            return strdup(full);
        fprintf(stderr, "skiffrun: cannot run '%s'%s%s: %s\n", prog, wdir ? " in " : "",
                wdir ? wdir : "", err == NOT_EXECUTABLE ? "not an executable file" : strerror(err));
        return NULL;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin"; /* execvp's fallback, minus "." */
    char unusable[PATH_MAX] = ""; /* the first match that is not executable */
    for (const char *p = path;; ) {
        const char *colon = strchrnul(p, ':');
        size_t dlen = (size_t)(colon - p);
        /* An empty PATH entry means the current directory. */
        int n = dlen ? snprintf(full, sizeof full, "%.*s/%s", (int)dlen, p, prog)
                     : snprintf(full, sizeof full, "./%s", prog);
        if (n > 0 && (size_t)n < sizeof full) {
            int err = check_executable(full);
            if (err == 0)
                return strdup(full);
            if (err == NOT_EXECUTABLE && !unusable[0])
                snprintf(unusable, sizeof unusable, "%s", full);
        }
        if (!*colon)
            break;
        p = colon + 1;
    }
    /* Users of other launchers type "mpiexec -n 4 hello" for ./hello. */
    int here = join(full, sizeof full, wdir ? wdir : ".", prog) == 0 && check_executable(full) == 0;
    if (unusable[0])
        fprintf(stderr, "skiffrun: cannot run '%s': found in PATH (%s) but not executable\n",
                prog, unusable);
    else if (here)
        fprintf(stderr, "skiffrun: cannot run '%s': command not found in PATH; there is ./%s in %s: "
                "run it as ./%s\n", prog, prog, wdir ? wdir : "the current directory", prog);
    else
        fprintf(stderr, "skiffrun: cannot run '%s': command not found in PATH\n", prog);
    return NULL;
}
