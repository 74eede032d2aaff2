/*
 * spawn.c — MPI_Comm_spawn and MPI_Comm_spawn_multiple.
 *
 * The root opens a port and starts a new job with Skiff's own launcher
 * (skiffrun, found next to libmpi: <libdir>/../bin/skiffrun, or
 * SKIFF_SKIFFRUN, or PATH), giving the children SKIFF_PARENT_PORT; their
 * MPI_Init connects to it and the parents' accept makes the
 * intercommunicator (connect.c).  The child launcher serves the children's
 * PMI, forwards their output through the root (so it reaches the parents'
 * launcher too), ends their job when one of them fails and removes their
 * shared memory.  It runs as a child of the root: a launcher that ends before
 * the children connected fails the spawn (errcodes MPI_ERR_SPAWN); one that
 * fails later ends the parents' job (bridge.c); MPI_Finalize waits for it.
 * Several programs (spawn_multiple) run as one job through a small sh script
 * that picks each rank's program by PMI_RANK and sets SKIFF_APPNUM.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/check.h"
#include "comm_create.h"
#include "device/device.h"
#include "dynproc/bridge.h"
#include "dynproc/dynproc.h"
#include "info/info.h"

typedef struct app {
    const char *cmd;
    char **argv;
    int n;
    int maxprocs; /* asked for; n: started (fewer when "soft" allows and says so) */
    char wdir[MPI_MAX_INFO_VAL], host[MPI_MAX_INFO_VAL], path[MPI_MAX_INFO_VAL];
    char soft[MPI_MAX_INFO_VAL];
} app_t;

typedef struct strv {
    char **v;
    int n, cap;
} strv_t;

static void push(strv_t *s, const char *w)
{
    if (s->n + 2 > s->cap) {
        s->cap = s->cap ? 2 * s->cap : 32;
        if (!(s->v = realloc(s->v, (size_t)s->cap * sizeof *s->v)))
            mpir_fatal("MPI_Comm_spawn: out of memory");
    }
    if (!(s->v[s->n++] = strdup(w)))
        mpir_fatal("MPI_Comm_spawn: out of memory");
    s->v[s->n] = NULL;
}

static void strv_free(strv_t *s)
{
    for (int i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
}

/* s with every ' made safe inside '...' */
static void quote(char *out, size_t cap, const char *s)
{
    size_t o = 0;
    out[o++] = '\'';
    for (; *s && o + 6 < cap; s++) {
        if (*s == '\'') {
            memcpy(out + o, "'\\''", 4);
            o += 4;
        } else {
            out[o++] = *s;
        }
    }
    out[o++] = '\'';
    out[o] = '\0';
}

static void launcher_path(char *out, size_t cap)
{
    const char *forced = getenv("SKIFF_SKIFFRUN");
    if (forced && *forced) {
        snprintf(out, cap, "%s", forced);
        return;
    }
    Dl_info d;
    if (dladdr((void *)&MPI_Comm_spawn, &d) && d.dli_fname && strchr(d.dli_fname, '/')) {
        char lib[4096];
        snprintf(lib, sizeof lib, "%s", d.dli_fname);
        snprintf(out, cap, "%s/../bin/skiffrun", dirname(lib));
        if (access(out, X_OK) == 0)
            return;
    }
    snprintf(out, cap, "skiffrun");
}

/* The sh script that runs rank r's program for spawn_multiple. */
static char *multi_script(const app_t *apps, int napps)
{
    size_t cap = 4096, len = 0;
    char *s = malloc(cap), q[8192];
    if (!s)
        return NULL;
    s[0] = '\0';
    int first = 0;
    for (int a = 0; a < napps; a++) {
        char line[4096 * 4];
        int n = snprintf(line, sizeof line, "%sif [ \"$PMI_RANK\" -lt %d ]; then SKIFF_APPNUM=%d; "
                         "export SKIFF_APPNUM; ", a ? "el" : "", first + apps[a].n, a);
        if (apps[a].wdir[0]) {
            quote(q, sizeof q, apps[a].wdir);
            n += snprintf(line + n, sizeof line - (size_t)n, "cd %s || exit 127; ", q);
        }
        quote(q, sizeof q, apps[a].cmd);
        n += snprintf(line + n, sizeof line - (size_t)n, "exec %s", q);
        for (int i = 0; apps[a].argv && apps[a].argv[i]; i++) {
            quote(q, sizeof q, apps[a].argv[i]);
            n += snprintf(line + n, sizeof line - (size_t)n, " %s", q);
        }
        n += snprintf(line + n, sizeof line - (size_t)n, "; ");
        first += apps[a].n;
        while (len + (size_t)n + 16 > cap) {
            cap *= 2;
            char *t = realloc(s, cap);
            if (!t) {
                free(s);
                return NULL;
            }
            s = t;
        }
        memcpy(s + len, line, (size_t)n + 1);
        len += (size_t)n;
    }
    strcat(s, "fi");
    return s;
}

/* Start the children's launcher; its pid, or -1. */
static pid_t start_job(const app_t *apps, int napps, const char *port)
{
    int total = 0;
    for (int a = 0; a < napps; a++)
        total += apps[a].n;
    char exe[4096], num[32], env[MPI_MAX_PORT_NAME + 32];
    launcher_path(exe, sizeof exe);
    strv_t v = {0};
    push(&v, exe);
    snprintf(num, sizeof num, "%d", total);
    push(&v, "-n");
    push(&v, num);
    push(&v, "--bind-to"); /* the parents hold cores already */
    push(&v, "none");
    if (apps[0].host[0]) {
        push(&v, "--hosts");
        push(&v, apps[0].host);
    }
    snprintf(env, sizeof env, "SKIFF_PARENT_PORT=%s", port);
    push(&v, "--env");
    push(&v, env);
    char *script = NULL;
    if (napps == 1) {
        if (apps[0].wdir[0]) {
            push(&v, "--wdir");
            push(&v, apps[0].wdir);
        }
        push(&v, apps[0].cmd);
        for (int i = 0; apps[0].argv && apps[0].argv[i]; i++)
            push(&v, apps[0].argv[i]);
    } else {
        if (!(script = multi_script(apps, napps)))
            mpir_fatal("MPI_Comm_spawn_multiple: out of memory");
        push(&v, "/bin/sh");
        push(&v, "-c");
        push(&v, script);
        push(&v, "skiff-spawn");
        free(script);
    }
    char newpath[2 * MPI_MAX_INFO_VAL + 4096] = "";
    if (apps[0].path[0]) {
        const char *old = getenv("PATH");
        snprintf(newpath, sizeof newpath, "%s:%s", apps[0].path, old ? old : "/usr/bin:/bin");
    }
    fflush(NULL);
    pid_t parent = getpid();
    /* PR_SET_PDEATHSIG fires when the forking *thread* ends: only the main
     * thread's lasts as long as the process (mpi4py spawns from a helper
     * thread that ends with its pool, before the workers finalize).  From
     * another thread the children still end with the root: their
     * connections to it close, which their default handler makes fatal. */
    int tie_to_parent = (pid_t)syscall(SYS_gettid) == parent;
    pid_t pid = fork();
    if (pid == 0) {
        /* the new job is a job of its own: none of my launcher's settings */
        static const char *drop[] = {"PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID",
                                     "SKIFF_JOB_KEY", "SKIFF_PARENT_PORT", "SKIFF_APPNUM",
                                     "PMI_SPAWNED"};
        for (size_t i = 0; i < sizeof drop / sizeof drop[0]; i++)
            unsetenv(drop[i]);
        if (newpath[0])
            setenv("PATH", newpath, 1);
        if (tie_to_parent) /* a dying root takes its children's job along */
            prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(1);
        int null = open("/dev/null", O_RDONLY);
        if (null >= 0)
            dup2(null, 0);
        execvp(v.v[0], v.v);
        fprintf(stderr, "skiff MPI: MPI_Comm_spawn: cannot run the launcher %s: %s\n", v.v[0],
                strerror(errno));
        _exit(127);
    }
    strv_free(&v);
    return pid;
}

/* The "soft" info key (MPI 4.1 §11.3.4): a comma-separated list of counts
 * a, ranges a:b and strided ranges a:b:c.  Skiff can always start maxprocs
 * (it oversubscribes), so it starts the largest allowed count <= maxprocs.
 * -1: malformed, or no allowed count in 1..maxprocs. */
static int soft_count(const char *soft, int maxprocs)
{
    int best = -1;
    const char *p = soft;
    while (*p) {
        long v[3] = {0, 0, 1};
        int k = 0;
        for (;;) {
            char *end;
            v[k] = strtol(p, &end, 10);
            if (end == p || k > 2)
                return -1;
            p = end;
            k++;
            if (*p != ':')
                break;
            p++;
        }
        if (*p && *p != ',')
            return -1;
        if (*p)
            p++;
        long lo = v[0], hi = k > 1 ? v[1] : v[0], step = k > 2 ? v[2] : 1;
        if (step <= 0 || lo < 0 || hi < lo)
            return -1;
        for (long x = lo; x <= hi && x <= maxprocs; x += step)
            if (x >= 1 && x > best)
                best = (int)x;
    }
    return best;
}

/* Read the keys of one app's info the launcher understands. */
static int read_info(const char *fn, MPI_Info info, app_t *a)
{
    struct MPI_ABI_Info *i;
    int rc = info_check(fn, info, 1, &i);
    if (rc || info == MPI_INFO_NULL)
        return rc;
    int flag;
    MPI_Info_get(info, "wdir", MPI_MAX_INFO_VAL - 1, a->wdir, &flag);
    if (!flag)
        a->wdir[0] = '\0';
    MPI_Info_get(info, "host", MPI_MAX_INFO_VAL - 1, a->host, &flag);
    if (!flag)
        a->host[0] = '\0';
    MPI_Info_get(info, "path", MPI_MAX_INFO_VAL - 1, a->path, &flag);
    if (!flag)
        a->path[0] = '\0';
    MPI_Info_get(info, "soft", MPI_MAX_INFO_VAL - 1, a->soft, &flag);
    if (!flag)
        return MPI_SUCCESS;
    int n = soft_count(a->soft, a->maxprocs);
    if (n < 0)
        return mpir_error(NULL, MPI_ERR_INFO_VALUE, "%s: info soft='%.200s' allows no count of "
                          "processes from 1 to maxprocs %d", fn, a->soft, a->maxprocs);
    a->n = n;
    return MPI_SUCCESS;
}

static int spawn(const char *fn, int count, char *cmds[], char **argvs[], const int maxprocs[],
                 const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                 int errcodes[])
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = dyn_check_group(fn, comm, root, intercomm, &c)))
        return rc;
    dyn_how_t how = {.kind = DYN_ACCEPT};
    char port[MPI_MAX_PORT_NAME] = "";
    int *started = NULL; /* root: processes started of each command */
    int reported = 0;     /* root: its own argument error, reported already */
    if (c->rank == root) {
        app_t *apps = NULL;
        if (count <= 0 || !cmds || !maxprocs)
            rc = mpir_error(c, MPI_ERR_ARG, "%s: count %d, or NULL commands/maxprocs", fn, count);
        else if (!(apps = calloc((size_t)count, sizeof *apps)))
            rc = mpir_error(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        for (int a = 0; apps && a < count && !rc; a++) {
            apps[a].cmd = cmds[a];
            apps[a].argv = argvs ? argvs[a] : NULL;
            apps[a].n = apps[a].maxprocs = maxprocs[a];
            if (!cmds[a] || !*cmds[a])
                rc = mpir_error(c, MPI_ERR_ARG, "%s: command %d is NULL or empty", fn, a);
            else if (maxprocs[a] <= 0)
                rc = mpir_error(c, MPI_ERR_ARG, "%s: maxprocs %d of '%s' must be positive", fn,
                                maxprocs[a], cmds[a]);
            else if (infos)
                rc = read_info(fn, infos[a], &apps[a]);
        }
        if (!rc && !(started = malloc((size_t)count * sizeof *started)))
            rc = mpir_error(c, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        for (int a = 0; !rc && a < count; a++)
            started[a] = apps[a].n;
        if (!rc && (rc = dyn_open_port(port)))
            rc = mpir_error(c, rc, "%s: cannot open a port for the children", fn);
        if (!rc) {
            how.port = port;
            how.watch = start_job(apps, count, port);
        }
        /* the others wait for the root's word: a failure here fails them too */
        how.local_status = rc ? rc : how.watch < 0 ? MPI_ERR_SPAWN : 0;
        reported = rc;
        free(apps);
    }
    rc = dyn_join(fn, c, root, &how, intercomm);
    if (reported) { /* nothing was started; the root has said why */
        free(started);
        if (port[0])
            dyn_close_port(port);
        return reported;
    }
    if (c->rank == root) {
        dyn_close_port(port);
        if (!rc)
            dyn_watch_launcher(how.watch, comm_of(*intercomm)->world_of,
                               comm_of(*intercomm)->size);
        else if (how.watch > 0)
            waitpid(how.watch, NULL, 0);
    }
    if (errcodes && c->rank == root) /* one per process asked for, command by command */
        for (int a = 0, k = 0; a < count; a++)
            for (int i = 0; i < maxprocs[a]; i++)
                errcodes[k++] = !rc && i < started[a] ? MPI_SUCCESS : MPI_ERR_SPAWN;
    free(started);
    if (rc) {
        return mpir_error(c, MPI_ERR_SPAWN, "%s: the new job could not be started (%s%s); "
                          "the launcher's message is above", fn,
                          c->rank == root ? "program " : "see the root's message",
                          c->rank == root ? cmds[0] : "");
    }
    return MPI_SUCCESS;
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmds[1] = {(char *)command};
    char **argvs[1] = {argv};
    int mp[1] = {maxprocs};
    MPI_Info infos[1] = {info};
    return spawn("MPI_Comm_spawn", 1, cmds, argvs, mp, infos, root, comm, intercomm,
                 array_of_errcodes);
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[],
                            int root, MPI_Comm comm, MPI_Comm *intercomm,
                            int array_of_errcodes[])
{
    return spawn("MPI_Comm_spawn_multiple", count, array_of_commands, array_of_argv,
                 array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes);
}
