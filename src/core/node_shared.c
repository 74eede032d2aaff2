/* node_shared — node-local shared-memory regions for upper layers (see node_shared.h). */
#include "core/node_shared.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/core.h"

static int map(int fd, size_t size, void **base)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    *base = p;
    return 0;
}

int skf_node_shm_create(skf_ctx_t *ctx, size_t size, char name[SKF_NODE_SHM_NAME], void **base)
{
    static unsigned made; /* regions this process created: keeps names unique */
    snprintf(name, SKF_NODE_SHM_NAME, "/skiff-%s-x%d-%u", ctx->boot->job_key, ctx->rank, made++);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        int rc = -errno;
        skf_error("node shared region: shm_open(%s): %s", name, strerror(errno));
        return rc;
    }
    int rc = ftruncate(fd, (off_t)size) ? -errno : map(fd, size, base);
    close(fd);
    if (rc) {
        skf_error("node shared region %s of %zu bytes: %s", name, size, strerror(-rc));
        shm_unlink(name);
    }
    return rc;
}

int skf_node_shm_attach(const char *name, size_t size, void **base)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        int rc = -errno;
        skf_error("node shared region: attach %s: %s", name, strerror(errno));
        return rc;
    }
    struct stat st;
    int rc = fstat(fd, &st) ? -errno : (size_t)st.st_size != size ? -EINVAL : map(fd, size, base);
    close(fd);
    if (rc)
        skf_error("node shared region %s (%zu bytes expected): %s", name, size, strerror(-rc));
    return rc;
}

int skf_node_shm_unlink(const char *name)
{
    return shm_unlink(name) ? -errno : 0;
}

void skf_node_shm_detach(void *base, size_t size)
{
    if (base)
        munmap(base, size);
}
