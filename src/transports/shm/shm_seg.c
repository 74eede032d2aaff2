/* shm_seg — create/attach/unlink one channel segment per node (see shm_seg.h). */
#include "transports/shm/shm_seg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"

/* Fail early, with sizes, when tmpfs cannot hold the segment (Docker's
 * default /dev/shm is 64 MB). */
static int check_room(const skf_ctx_t *ctx, uint16_t port, size_t size)
{
    struct statvfs sv;
    if (statvfs(SHM_DIR, &sv) != 0)
        return 0; /* no /dev/shm to ask: let shm_open speak */
    unsigned long long avail = (unsigned long long)sv.f_bavail * sv.f_frsize;
    if (avail >= size)
        return 0;
    skf_error("skf_chan_open(port %u): the shared-memory segment needs %zu bytes but %s has "
              "only %llu free (%d ranks on this node); enlarge %s (docker run --shm-size=...) "
              "or lower SKIFF_SHM_RING_SIZE",
              port, size, SHM_DIR, avail, ctx->boot->local_size, SHM_DIR);
    return -ENOSPC;
}

static int create(skf_ctx_t *ctx, uint16_t port, size_t size, struct shm_seg *seg)
{
    int rc = check_room(ctx, port, size);
    if (rc)
        return rc;
    int fd = shm_open(seg->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        rc = -errno;
        skf_error("skf_chan_open(port %u): shm_open(%s): %s", port, seg->name, strerror(errno));
        return rc;
    }
    seg->creator = 1;
    if (ftruncate(fd, (off_t)size) != 0) {
        rc = -errno;
        skf_error("skf_chan_open(port %u): ftruncate(%s, %zu): %s", port, seg->name, size,
                  strerror(errno));
    } else {
        seg->base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (seg->base == MAP_FAILED) {
            rc = -errno;
            seg->base = NULL;
            skf_error("skf_chan_open(port %u): mmap %zu bytes: %s", port, size, strerror(errno));
        }
    }
    close(fd);
    if (rc) {
        shm_unlink(seg->name);
        seg->creator = 0;
    }
    seg->size = size;
    return rc;
}

static int attach(uint16_t port, struct shm_seg *seg)
{
    int rc = 0;
    int fd = shm_open(seg->name, O_RDWR, 0);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        rc = -errno;
        skf_error("skf_chan_open(port %u): attach %s: %s", port, seg->name, strerror(errno));
        if (fd >= 0)
            close(fd);
        return rc;
    }
    seg->size = (size_t)st.st_size;
    seg->base = mmap(NULL, seg->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (seg->base == MAP_FAILED) {
        rc = -errno;
        seg->base = NULL;
        skf_error("skf_chan_open(port %u): mmap %s: %s", port, seg->name, strerror(errno));
    }
    close(fd);
    return rc;
}

int shm_seg_attach(skf_ctx_t *ctx, uint16_t port, size_t size,
                   void (*init)(void *base, void *arg), void *arg, struct shm_seg *seg)
{
    const boot_info_t *b = ctx->boot;
    int node = b->node_of_rank[b->rank];
    char key[BOOT_KEY_MAX], val[BOOT_VAL_MAX];
    int rc = 0;
    memset(seg, 0, sizeof *seg);
    snprintf(key, sizeof key, "skf-shm-%u-%d", ctx->chan_opens, node);
    if (b->local_rank == 0) {
        snprintf(seg->name, sizeof seg->name, "/skiff-%s-n%d-c%u-p%u", b->job_key, node,
                 ctx->chan_opens, port);
        rc = create(ctx, port, size, seg);
        if (!rc)
            init(seg->base, arg);
        if (rc)
            snprintf(val, sizeof val, "!%d", -rc);
        else
            snprintf(val, sizeof val, "%s", seg->name);
        int prc = boot_put(key, val);
        if (!rc)
            rc = prc;
    }
    int frc = boot_fence();
    if (!rc)
        rc = frc;
    if (b->local_rank != 0 && !rc) {
        rc = boot_get(key, val, sizeof val);
        if (!rc && val[0] == '!')
            rc = -atoi(val + 1); /* the creator already said why */
        else if (!rc) {
            if (strlen(val) >= sizeof seg->name)
                rc = -ENAMETOOLONG;
            else {
                memcpy(seg->name, val, strlen(val) + 1);
                rc = attach(port, seg);
            }
        }
    }
    return rc;
}

int shm_seg_commit(struct shm_seg *seg)
{
    int rc = boot_fence();
    if (seg->creator) {
        shm_unlink(seg->name);
        seg->creator = 0;
    }
    return rc;
}

void shm_seg_detach(struct shm_seg *seg)
{
    if (seg->creator)
        shm_unlink(seg->name);
    if (seg->base)
        munmap(seg->base, seg->size);
    seg->base = NULL;
    seg->creator = 0;
}
