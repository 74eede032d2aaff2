/*
 * names.c — MPI_Publish_name, MPI_Unpublish_name, MPI_Lookup_name.
 *
 * The name service is a directory every job of this user on this machine
 * sees: $SKIFF_NAME_DIR, else $TMPDIR/skiff-names-<uid> (TMPDIR: /tmp), mode
 * 0700.  One file per service, named by the hex of the service name, holding
 * the port name; created with O_EXCL, so a service is published once.
 * Between machines it needs a shared directory (SKIFF_NAME_DIR on a shared
 * file system).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding/check.h"
#include "info/info.h"

static int service_file(const char *fn, const char *service, char *out, size_t cap)
{
    const char *dir = getenv("SKIFF_NAME_DIR");
    char def[512];
    if (!dir || !*dir) {
        const char *tmp = getenv("TMPDIR");
        snprintf(def, sizeof def, "%s/skiff-names-%u", tmp && *tmp ? tmp : "/tmp",
                 (unsigned)getuid());
        dir = def;
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return mpir_error(NULL, MPI_ERR_SERVICE, "%s: cannot make the name directory %s: %s",
                          fn, dir, strerror(errno));
    /* In a shared /tmp someone else could have made it first: port names read
     * from a directory others can write would send a join to their server. */
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return mpir_error(NULL, MPI_ERR_SERVICE, "%s: the name directory %s is not a directory",
                          fn, dir);
    if (st.st_uid != getuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
        return mpir_error(NULL, MPI_ERR_SERVICE, "%s: the name directory %s is not safe: owned "
                          "by uid %u (I am %u), mode %03o; others could publish names in it",
                          fn, dir, (unsigned)st.st_uid, (unsigned)getuid(),
                          (unsigned)(st.st_mode & 0777));
    size_t n = (size_t)snprintf(out, cap, "%s/", dir);
    for (const unsigned char *s = (const unsigned char *)service; *s && n + 3 < cap; s++)
        n += (size_t)snprintf(out + n, cap - n, "%02x", *s);
    if (n + 3 >= cap)
        return mpir_error(NULL, MPI_ERR_SERVICE, "%s: service name too long", fn);
    return MPI_SUCCESS;
}

/* The checks every call makes, then the service's file into path[4096]. */
static int service_path(const char *fn, const char *service, MPI_Info info, const void *port,
                        char *path)
{
    struct MPI_ABI_Info *i;
    int rc = info_check(fn, info, 1, &i);
    if (rc)
        return rc;
    if (!service || !*service || !port)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL or empty service_name, or NULL port_name",
                          fn);
    return service_file(fn, service, path, 4096);
}

int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Publish_name";
    CHECK_INIT(fn);
    char path[4096];
    int rc = service_path(fn, service_name, info, port_name, path);
    if (rc)
        return rc;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return mpir_error(NULL, MPI_ERR_SERVICE, "%s: service '%.200s' %s", fn, service_name,
                          errno == EEXIST ? "is published already" : strerror(errno));
    size_t len = strnlen(port_name, MPI_MAX_PORT_NAME);
    int bad = write(fd, port_name, len) != (ssize_t)len;
    close(fd);
    if (bad) {
        unlink(path);
        return mpir_error(NULL, MPI_ERR_SERVICE, "%s: cannot write %s", fn, path);
    }
    return MPI_SUCCESS;
}

int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    static const char fn[] = "MPI_Unpublish_name";
    CHECK_INIT(fn);
    char path[4096];
    int rc = service_path(fn, service_name, info, port_name, path);
    if (rc)
        return rc;
    if (unlink(path) != 0)
        return mpir_error(NULL, MPI_ERR_SERVICE, "%s: service '%.200s' is not published", fn,
                          service_name);
    return MPI_SUCCESS;
}

int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Lookup_name";
    CHECK_INIT(fn);
    char path[4096];
    int rc = service_path(fn, service_name, info, port_name, path);
    if (rc)
        return rc;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mpir_error(NULL, MPI_ERR_NAME, "%s: service '%.200s' is not published", fn,
                          service_name);
    ssize_t n = read(fd, port_name, MPI_MAX_PORT_NAME - 1);
    close(fd);
    if (n <= 0)
        return mpir_error(NULL, MPI_ERR_NAME, "%s: service '%.200s' has no port", fn,
                          service_name);
    port_name[n] = '\0';
    return MPI_SUCCESS;
}
