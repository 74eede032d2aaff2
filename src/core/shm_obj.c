/* shm_obj — create, attach and unname a node's shared-memory objects (see shm_obj.h). */
#include "core/shm_obj.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/config.h"

#define SHM_DIR "/dev/shm"

static char memfd_unusable[96]; /* why auto fell back to /dev/shm ("" = it did not) */

/* Can my peers open my memfd objects?  They need memfd_create (a seccomp
 * filter or an old kernel may refuse it), /proc, and this process dumpable
 * (otherwise /proc/<pid>/fd is root's: setuid programs, PR_SET_DUMPABLE 0).
 * 0, or -1 with the reason in memfd_unusable. */
static int memfd_usable(void)
{
    int fd = memfd_create("skiff-probe", MFD_CLOEXEC);
    if (fd < 0) {
        snprintf(memfd_unusable, sizeof memfd_unusable, "memfd_create: %s", strerror(errno));
        return -1;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int again = open(path, O_RDWR | O_CLOEXEC);
    if (again < 0)
        snprintf(memfd_unusable, sizeof memfd_unusable, "open %s: %s", path, strerror(errno));
    else if (prctl(PR_GET_DUMPABLE) != 1)
        snprintf(memfd_unusable, sizeof memfd_unusable,
                 "this process is not dumpable (peers cannot open its /proc/<pid>/fd)");
    if (again >= 0)
        close(again);
    close(fd);
    return memfd_unusable[0] ? -1 : 0;
}

int skf_shm_kind(void)
{
    static int kind = -1;
    if (kind >= 0)
        return kind;
    const char *want = skf_param_str("SKIFF_SHM_OBJECTS");
    if (strcasecmp(want, "memfd") == 0)
        kind = SKF_SHM_MEMFD;
    else if (strcasecmp(want, "dev-shm") == 0)
        kind = SKF_SHM_DEVSHM;
    else if (strcasecmp(want, "auto") == 0)
        kind = memfd_usable() == 0 ? SKF_SHM_MEMFD : SKF_SHM_DEVSHM;
    else {
        skf_error("SKIFF_SHM_OBJECTS=%.40s is not one of auto, memfd, dev-shm", want);
        return -EINVAL;
    }
    return kind;
}

const char *skf_shm_where(int kind) { return kind == SKF_SHM_MEMFD ? "memory" : SHM_DIR; }

uint64_t skf_shm_room(int kind)
{
    if (kind == SKF_SHM_MEMFD) { /* not bounded by a file system: by the node's memory */
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
    }
    struct statvfs sv;
    if (statvfs(SHM_DIR, &sv) != 0)
        return UINT64_MAX; /* cannot ask: shm_open will say what is wrong */
    return (uint64_t)sv.f_bavail * sv.f_frsize;
}

static int map(int fd, size_t size, void *fixed, void **base)
{
    void *p = mmap(fixed, size, PROT_READ | PROT_WRITE, MAP_SHARED | (fixed ? MAP_FIXED : 0), fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    *base = p;
    return 0;
}

static void reset(struct skf_shm_obj *o)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
}

int skf_shm_obj_create(const skf_ctx_t *ctx, const char *label, size_t size, int reserve,
                       int quiet_nospace, const char *who, struct skf_shm_obj *o)
{
    reset(o);
    int kind = skf_shm_kind();
    if (kind < 0)
        return kind;
    char obj[64];
    snprintf(obj, sizeof obj, "skiff-%s-%s", ctx->boot->shm_tag, label);
    int fd, rc = 0;
    const char *step;
    if (kind == SKF_SHM_MEMFD) {
        step = "memfd_create";
        fd = memfd_create(obj, MFD_CLOEXEC);
        rc = fd < 0 ? -errno : 0;
        snprintf(o->name, sizeof o->name, "@%d.%d.%s", (int)getpid(), fd, obj);
    } else {
        step = "shm_open";
        snprintf(o->name, sizeof o->name, "/%s", obj);
        fd = shm_open(o->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        rc = fd < 0 ? -errno : 0;
        o->linked = fd >= 0;
    }
    if (!rc && ftruncate(fd, (off_t)size) != 0) {
        step = "ftruncate";
        rc = -errno;
    }
    if (!rc && reserve && kind == SKF_SHM_MEMFD && size > skf_shm_room(kind)) {
        step = "room check"; /* a memfd is bounded by the node's memory only */
        rc = -ENOSPC;
    }
    if (!rc && reserve && kind == SKF_SHM_DEVSHM) {
        step = "posix_fallocate";
        while ((rc = -posix_fallocate(fd, 0, (off_t)size)) == -EINTR)
            ; /* a signal during a large reservation: try again */
    }
    if (!rc) {
        step = "mmap";
        rc = map(fd, size, NULL, &o->base);
    }
    if (rc) {
        char hint[256] = "";
        if (kind == SKF_SHM_DEVSHM && rc != -ENOSPC && memfd_unusable[0])
            snprintf(hint, sizeof hint, " (and memfd objects cannot be shared: %s; no shared "
                     "memory can work here)", memfd_unusable);
        else if (kind == SKF_SHM_DEVSHM && rc != -ENOSPC)
            snprintf(hint, sizeof hint, " (is /dev/shm mounted and writable? "
                     "SKIFF_SHM_OBJECTS=memfd does without it)");
        if (!(quiet_nospace && rc == -ENOSPC))
            skf_error("%s: %s for %s (%zu bytes in %s): %s%s", who, step, obj, size,
                      skf_shm_where(kind), strerror(-rc), hint);
        if (fd >= 0)
            close(fd);
        skf_shm_obj_unname(o);
        reset(o);
        return rc;
    }
    if (kind == SKF_SHM_MEMFD)
        o->fd = fd; /* the name lives as long as this descriptor */
    else
        close(fd);
    o->size = size;
    return 0;
}

/* Does my descriptor fd hold the memfd called label? */
static int is_memfd(int fd, const char *label)
{
    char path[64], target[SKF_SHM_OBJ_NAME + 32];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0)
        return 0;
    target[n] = '\0';
    size_t len = strlen(label);
    /* "/memfd:<label> (deleted)" */
    return strncmp(target, "/memfd:", 7) == 0 && strncmp(target + 7, label, len) == 0 &&
           (target[7 + len] == '\0' || target[7 + len] == ' ');
}

/* "@pid.fd.label": 0 and the parts, or -EINVAL. */
static int parse_memfd_name(const char *name, int *pid, int *fd, const char **label)
{
    int off = 0;
    if (sscanf(name, "@%d.%d.%n", pid, fd, &off) != 2 || off == 0 || *pid <= 0 || *fd < 0)
        return -EINVAL;
    *label = name + off;
    return 0;
}

static int attach(const char *name, size_t size, void *at, const char *who, int quiet_gone,
                  struct skf_shm_obj *o);

int skf_shm_obj_attach(const char *name, size_t size, const char *who, struct skf_shm_obj *o)
{
    return attach(name, size, NULL, who, 0, o);
}

int skf_shm_obj_try_attach(const char *name, size_t size, const char *who, struct skf_shm_obj *o)
{
    return attach(name, size, NULL, who, 1, o);
}

int skf_shm_obj_attach_at(const char *name, size_t size, void *at, const char *who,
                          struct skf_shm_obj *o)
{
    return attach(name, size, at, who, 0, o);
}

/* quiet_gone: say nothing when the object is gone (its creator closed it or
 * left): the caller has a fallback and reports it its own way. */
static int attach(const char *name, size_t size, void *at, const char *who, int quiet_gone,
                  struct skf_shm_obj *o)
{
    reset(o);
    int fd, rc = 0;
    char path[64];
    if (name[0] == '@') {
        int pid, nfd;
        const char *label;
        if (parse_memfd_name(name, &pid, &nfd, &label)) {
            skf_error("%s: '%.60s' is not a shared-memory object name", who, name);
            return -EINVAL;
        }
        snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, nfd);
        fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            rc = -errno;
            if (quiet_gone && rc == -ENOENT)
                return rc;
            skf_error("%s: attach %s: open %s: %s (the creator's descriptors must be open to its "
                      "peers; SKIFF_SHM_OBJECTS=dev-shm uses /dev/shm instead)",
                      who, label, path, strerror(errno));
            return rc;
        }
        if (!is_memfd(fd, label)) { /* the creator closed it and reused the number */
            close(fd);
            if (quiet_gone)
                return -ESTALE;
            skf_error("%s: attach %s: %s is another file now", who, label, path);
            return -ESTALE;
        }
    } else {
        fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
        if (fd < 0) {
            rc = -errno;
            if (quiet_gone && rc == -ENOENT)
                return rc;
            skf_error("%s: attach %s: %s", who, name, strerror(errno));
            return rc;
        }
    }
    struct stat st = {0};
    if (fstat(fd, &st) != 0)
        rc = -errno;
    else if (size && (size_t)st.st_size != size)
        rc = -EINVAL;
    else
        rc = map(fd, (size_t)st.st_size, at, &o->base);
    close(fd);
    if (rc) {
        skf_error("%s: attach %s (%lld bytes, %zu expected): %s", who, name, (long long)st.st_size,
                  size, strerror(-rc));
        reset(o);
        return rc;
    }
    o->size = (size_t)st.st_size;
    snprintf(o->name, sizeof o->name, "%s", name);
    return 0;
}

void skf_shm_obj_unname(struct skf_shm_obj *o)
{
    if (o->fd >= 0)
        close(o->fd);
    o->fd = -1;
    if (o->linked)
        shm_unlink(o->name);
    o->linked = 0;
}

void skf_shm_obj_close(struct skf_shm_obj *o)
{
    skf_shm_obj_unname(o);
    if (o->base)
        munmap(o->base, o->size);
    o->base = NULL;
}

int skf_shm_obj_unname_by_name(const char *name)
{
    if (name[0] != '@')
        return shm_unlink(name) ? -errno : 0;
    int pid, fd;
    const char *label;
    if (parse_memfd_name(name, &pid, &fd, &label) || pid != (int)getpid() || !is_memfd(fd, label))
        return -ENOENT; /* not a name this process holds */
    close(fd);
    return 0;
}
