/*
 * symm.c — symmetric memory: the heap and the program's data+bss, every PE's
 * copy reachable from every PE (shmemi.h tells the two paths).
 *
 * Heap: each PE creates its heap as a node shared-memory object (memfd; pages
 * on first touch) when it has node mates that map it, else private memory.
 * Data+bss: the executable's writable segment has the same layout in every
 * PE (same binary) but, with PIE, a different base: a symmetric variable is
 * named by its offset from the segment's start.  With node mates the segment
 * is moved into a node shared-memory object in place (copied, then the object
 * is mapped over it with MAP_FIXED), so node mates map it too and global
 * variables get loads, stores and CPU atomics like the heap.
 * One exchange of "cards" (object names, exposure keys, sizes) over the
 * SHMEM port; then node mates attach, a barrier, and the names are dropped.
 */
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/config.h"
#include "core/node_shared.h"
#include "shmemi.h"

#define PAGE 4096

struct card {
    char heap_name[96], data_name[96];
    skf_mr_key_t heap_key, data_key;
    uint64_t heap_size, data_size;
};

static int *mapped_pe; /* [npes]: 1 when that PE's memory is mapped here */
static struct shmemi_seg *segs[2] = {&shmemi.heap, &shmemi.data};

/* ---- the executable's data+bss ------------------------------------------ */

struct rw_range {
    uintptr_t start, end;
};
static int find_rw(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct rw_range *r = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            r->start = info->dlpi_addr + ph->p_vaddr;
            r->end = r->start + ph->p_memsz;
            break;
        }
    }
    return 1; /* the first object is the executable */
}

/* A plain copy: AddressSanitizer poisons the red zones between globals, and
 * its memcpy would refuse to read them. */
__attribute__((no_sanitize_address)) static void copy_raw(char *dst, const char *src, size_t n)
{
    volatile const char *s = src;
    for (size_t i = 0; i < n; i++)
        dst[i] = s[i];
}

/* Move [start, end) (page-rounded) into a node shared-memory object in place. */
static int data_into_shared(struct shmemi_seg *d, uintptr_t pstart, size_t plen)
{
    void *tmp;
    int rc = skf_node_shm_create(shmemi.ctx, plen, d->name, &tmp);
    if (rc)
        return rc;
    copy_raw(tmp, (const char *)pstart, plen);
    rc = skf_node_shm_attach_at(d->name, plen, (void *)pstart);
    skf_node_shm_detach(tmp, plen);
    if (rc) {
        skf_node_shm_unlink(d->name);
        d->name[0] = 0;
    }
    return rc;
}

/* ---- the exchange --------------------------------------------------------- */

static int src_done(const size_t *got, int src)
{
    return src >= 0 && src < shmemi.npes && got[src] == sizeof(struct card);
}

/* Every PE's card to every PE, over the SHMEM port.  Cards may arrive cut
 * in pieces; pieces from one PE come in order.  The only other messages on
 * the port are barrier signals to other nodes (sync.c), and one can come
 * after a PE's card. */
static int exchange_cards(const struct card *mine, struct card *all)
{
    int n = shmemi.npes, me = shmemi.me;
    size_t *got = calloc((size_t)n, sizeof *got);
    if (!got)
        return -ENOMEM;
    all[me] = *mine;
    int next = 1, complete = 1;
    size_t sent = 0;
    while (next < n || complete < n) {
        int moved = 0;
        if (next < n) {
            skf_addr_t to = skf_addr(shmemi.ctx, (me + next) % n, SKF_PORT_SHMEM);
            struct iovec iov = {(char *)mine + sent, sizeof *mine - sent};
            ssize_t r = skf_send(shmemi.ch, to, &iov, 1);
            if (r >= 0) {
                sent += (size_t)r;
                if (sent == sizeof *mine) {
                    next++;
                    sent = 0;
                }
                moved = 1;
            } else if (r != -EAGAIN) {
                free(got);
                return (int)r;
            }
        }
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t from;
        ssize_t r = skf_recv(shmemi.ch, cont, &ncont, &from);
        if (r >= 0 && src_done(got, skf_addr_rank(from))) {
            /* its card is complete: this is a barrier signal (a PE that has
             * all cards may be in the first barrier already) */
            shmemi_chan_message(cont, ncont, skf_addr_rank(from));
            skf_recv_done(shmemi.ch);
            moved = 1;
        } else if (r >= 0) {
            int src = skf_addr_rank(from);
            for (int i = 0; i < ncont; i++) {
                size_t c = cont[i].iov_len;
                if (src < 0 || src >= n || got[src] + c > sizeof *mine) {
                    free(got);
                    return -EPROTO;
                }
                memcpy((char *)&all[src] + got[src], cont[i].iov_base, c);
                got[src] += c;
            }
            if (got[src] == sizeof *mine)
                complete++;
            skf_recv_done(shmemi.ch);
            moved = 1;
        } else if (r != -EAGAIN) {
            free(got);
            return (int)r;
        }
        if (!moved) {
            int w = skf_wait(shmemi.ch, SKF_READABLE | (next < n ? SKF_WRITABLE : 0), 100);
            if (w < 0) {
                free(got);
                return w;
            }
        }
    }
    free(got);
    return 0;
}

static int alloc_seg_tables(struct shmemi_seg *s)
{
    s->peer = calloc((size_t)shmemi.npes, sizeof *s->peer);
    s->key = calloc((size_t)shmemi.npes, sizeof *s->key);
    return s->peer && s->key ? 0 : -ENOMEM;
}

int shmemi_symm_init(void)
{
    int n = shmemi.npes, me = shmemi.me, rc;
    const char *call = "shmem_init";
    mapped_pe = calloc((size_t)n, sizeof *mapped_pe);
    if (!mapped_pe || alloc_seg_tables(&shmemi.heap) || alloc_seg_tables(&shmemi.data))
        shmemi_fatal(call, "out of memory for %d PEs", n);
    /* Mapped: my node, over shared memory (SKIFF_TRANSPORTS=tcp takes the
     * channel to every other PE, as MPI does). */
    int all_tcp = strcmp(skf_param_str("SKIFF_TRANSPORTS"), "tcp") == 0;
    int node = skf_node_id(shmemi.ctx, me), mates = 0, remote = 0;
    for (int p = 0; p < n; p++) {
        mapped_pe[p] = p == me || (!all_tcp && skf_node_id(shmemi.ctx, p) == node);
        mates += p != me && mapped_pe[p];
        remote += !mapped_pe[p];
    }
    shmemi.channel_peers = remote;
    shmemi.map_by_node = !all_tcp;

    /* The heap: the library's words, then the user's bytes. */
    struct shmemi_seg *h = &shmemi.heap;
    size_t words = ((2 * (size_t)n + 8) * sizeof(uint64_t) + PAGE - 1) / PAGE * PAGE;
    shmemi.heap_reserved = words + SHMEMI_COLL_SCRATCH;
    h->size = shmemi.heap_reserved + (shmemi.heap_user + PAGE - 1) / PAGE * PAGE;
    /* The heap starts on a SHMEMI_HEAP_ALIGN boundary in every PE, so an
     * offset aligned in one PE is aligned in all (shmem_align). */
    char *room = mmap(NULL, h->size + SHMEMI_HEAP_ALIGN, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (room == MAP_FAILED)
        shmemi_fatal(call, "cannot reserve %zu bytes of address space for the symmetric heap: %s "
                           "(SHMEM_SYMMETRIC_SIZE sets its size)", h->size, strerror(errno));
    h->base = (char *)(((uintptr_t)room + SHMEMI_HEAP_ALIGN - 1) & ~(uintptr_t)(SHMEMI_HEAP_ALIGN - 1));
    if (h->base > room)
        munmap(room, (size_t)(h->base - room));
    munmap(h->base + h->size, (size_t)(room + SHMEMI_HEAP_ALIGN - h->base));
    if (mates) {
        void *first;
        rc = skf_node_shm_create(shmemi.ctx, h->size, h->name, &first);
        if (!rc) {
            rc = skf_node_shm_attach_at(h->name, h->size, h->base);
            skf_node_shm_detach(first, h->size);
        }
        if (rc)
            shmemi_fatal(call, "cannot create the symmetric heap of %zu bytes in %s: %s "
                               "(SHMEM_SYMMETRIC_SIZE sets its size)",
                         h->size, skf_node_shm_where(), skf_strerror(rc));
    } else if (mmap(h->base, h->size, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) == MAP_FAILED) {
        shmemi_fatal(call, "cannot map the symmetric heap of %zu bytes: %s "
                           "(SHMEM_SYMMETRIC_SIZE sets its size)", h->size, strerror(errno));
    }
    shmemi.sync_in = (uint64_t *)h->base;
    shmemi.coll_word = shmemi.sync_in + n;
    shmemi.bell = (struct shmemi_bell *)(shmemi.coll_word + 1);
    shmemi.coll_count = (uint64_t *)(shmemi.bell + 1);
    shmemi.coll_count_want = shmemi.coll_count + 2;
    shmemi.coll_scratch = h->base + words;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    shmemi.oversubscribed = cpus > 0 && mates + 1 > cpus;

    /* Data+bss. */
    struct shmemi_seg *d = &shmemi.data;
    struct rw_range rw = {0, 0};
    dl_iterate_phdr(find_rw, &rw);
    if (rw.end <= rw.start)
        shmemi_fatal(call, "the program has no writable segment (data, bss) to make symmetric");
    uintptr_t pstart = rw.start & ~(uintptr_t)(PAGE - 1);
    size_t plen = ((rw.end + PAGE - 1) & ~(uintptr_t)(PAGE - 1)) - pstart;
    d->base = (char *)pstart;
    d->size = plen;
    if (mates && (rc = data_into_shared(d, pstart, plen)))
        shmemi_fatal(call, "cannot move the data segment (%zu bytes) into shared memory: %s",
                     plen, skf_strerror(rc));

    /* Exposures for the PEs that reach me over the channel. */
    for (int s = 0; s < 2 && remote; s++) {
        rc = skf_mr_expose(shmemi.ctx, segs[s]->base, segs[s]->size, &segs[s]->mine);
        if (rc)
            shmemi_fatal(call, "exposing symmetric memory failed: %s", skf_strerror(rc));
        segs[s]->exposed = 1;
    }

    struct card mine, *all = calloc((size_t)n, sizeof *all);
    if (!all)
        shmemi_fatal(call, "out of memory for %d PEs", n);
    memset(&mine, 0, sizeof mine);
    snprintf(mine.heap_name, sizeof mine.heap_name, "%s", h->name);
    snprintf(mine.data_name, sizeof mine.data_name, "%s", d->name);
    mine.heap_key = h->mine;
    mine.data_key = d->mine;
    mine.heap_size = h->size;
    mine.data_size = d->size;
    if ((rc = exchange_cards(&mine, all)))
        shmemi_fatal(call, "exchanging symmetric memory with the other PEs failed: %s",
                     skf_strerror(rc));
    for (int p = 0; p < n; p++) {
        if (all[p].heap_size != h->size || all[p].data_size != d->size)
            shmemi_fatal(call, "PE %d has a symmetric heap of %llu bytes and data of %llu, I have "
                               "%zu and %zu: every PE must run the same program with the same "
                               "SHMEM_SYMMETRIC_SIZE", p, (unsigned long long)all[p].heap_size,
                         (unsigned long long)all[p].data_size, h->size, d->size);
        h->key[p] = all[p].heap_key;
        d->key[p] = all[p].data_key;
        if (p == me) {
            h->peer[p] = h->base;
            d->peer[p] = d->base;
        } else if (mapped_pe[p]) {
            if ((rc = skf_node_shm_attach(all[p].heap_name, h->size, (void **)&h->peer[p])) ||
                (rc = skf_node_shm_attach(all[p].data_name, d->size, (void **)&d->peer[p])))
                shmemi_fatal(call, "mapping PE %d's symmetric memory failed: %s", p,
                             skf_strerror(rc));
        }
    }
    free(all);
    return 0;
}

/* After the first barrier: every node mate has mapped my objects. */
static void drop_names(void)
{
    for (int s = 0; s < 2; s++)
        if (segs[s]->name[0]) {
            skf_node_shm_unlink(segs[s]->name);
            segs[s]->name[0] = 0;
        }
}

void shmemi_symm_names_done(void) { drop_names(); }

void shmemi_symm_finalize(void)
{
    drop_names();
    for (int s = 0; s < 2; s++) {
        struct shmemi_seg *g = segs[s];
        if (g->exposed)
            skf_mr_release(shmemi.ctx, &g->mine);
        g->exposed = 0;
        for (int p = 0; p < shmemi.npes; p++)
            if (p != shmemi.me && g->peer[p])
                skf_node_shm_detach(g->peer[p], g->size);
    }
    /* My heap goes; my data segment stays where the program's globals are. */
    munmap(shmemi.heap.base, shmemi.heap.size);
    for (int s = 0; s < 2; s++) {
        free(segs[s]->peer);
        free(segs[s]->key);
        segs[s]->peer = NULL;
        segs[s]->key = NULL;
    }
    shmemi.heap.base = NULL;
    shmemi.heap.size = 0;
    free(mapped_pe);
    mapped_pe = NULL;
}

static struct shmemi_seg *seg_of(const void *addr, size_t len, size_t *off)
{
    for (int s = 0; s < 2; s++) {
        size_t o = (size_t)((const char *)addr - segs[s]->base);
        if (segs[s]->base && o < segs[s]->size && len <= segs[s]->size - o) {
            *off = o;
            return segs[s];
        }
    }
    return NULL;
}

char *shmemi_resolve(const char *call, const void *addr, size_t len, int pe,
                     const skf_mr_key_t **key, size_t *off)
{
    shmemi_check_init(call);
    if (pe < 0 || pe >= shmemi.npes)
        shmemi_fatal(call, "invalid PE %d (the job has PEs 0..%d)", pe, shmemi.npes - 1);
    struct shmemi_seg *s = seg_of(addr, len, off);
    if (!s)
        shmemi_fatal(call, "address %p (%zu bytes) is not symmetric: neither in the symmetric "
                           "heap nor in the program's global or static variables", addr, len);
    if (s->peer[pe])
        return s->peer[pe] + *off;
    *key = &s->key[pe];
    return NULL;
}

char *shmemi_ptr(const void *addr, int pe)
{
    size_t off;
    if (!shmemi.initialized || pe < 0 || pe >= shmemi.npes)
        return NULL;
    struct shmemi_seg *s = seg_of(addr, 1, &off);
    return s && s->peer[pe] ? s->peer[pe] + off : NULL;
}

void *shmem_ptr(const void *dest, int pe)
{
    shmemi_check_init("shmem_ptr");
    return shmemi_ptr(dest, pe);
}

int shmem_addr_accessible(const void *addr, int pe)
{
    size_t off;
    shmemi_check_init("shmem_addr_accessible");
    return pe >= 0 && pe < shmemi.npes && seg_of(addr, 1, &off) != NULL;
}
