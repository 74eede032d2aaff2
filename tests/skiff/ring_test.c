/*
 * ring_test — unit tests of the shm ring (src/transports/shm/ring.h) without
 * processes or a launcher: wrap-around into two pieces, a full ring refuses
 * (never overwrites), partial takes, and multi-producer races under stress
 * (threads hammering one small shared ring while one consumer checks every
 * byte and per-producer order).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "transports/shm/ring.h"

static void *ring_mem(uint64_t lines)
{
    void *p = aligned_alloc(4096, (SHM_RING_CTL_SIZE + lines * SHM_LINE + 4095) & ~4095ul);
    CHECK(p);
    memset(p, 0, SHM_RING_CTL_SIZE + lines * SHM_LINE);
    return p;
}

/* Consume the message at *head into out; returns its length or -1 if none. */
static long take(struct shm_ring *r, uint64_t *head, unsigned char *out, uint32_t *src, int *pieces)
{
    uint64_t meta = atomic_load_explicit(shm_ring_word(r, *head), memory_order_acquire);
    if (!meta)
        return -1;
    struct iovec cont[2];
    uint32_t len = shm_meta_len(meta);
    int n = shm_pieces(r, *head, len, cont);
    size_t off = 0;
    for (int i = 0; i < n; i++) {
        memcpy(out + off, cont[i].iov_base, cont[i].iov_len);
        off += cont[i].iov_len;
    }
    CHECK_EQ_INT(off, len);
    *src = shm_meta_src(meta);
    *pieces = n;
    shm_release(r, *head, len, 1);
    *head += shm_lines_for(len);
    atomic_store_explicit(&r->ctl->head, *head, memory_order_release);
    return len;
}

static void single_producer(void)
{
    const uint64_t lines = 16; /* 1 KiB */
    void *mem = ring_mem(lines);
    struct shm_ring r;
    shm_ring_view(&r, mem, lines, 512);
    uint64_t tail = 0, head_cache = 0, head = 0;
    unsigned char msg[600], out[600];
    int wrapped = 0;
    for (int i = 0; i < 1000; i++) {
        size_t len = (size_t)(i * 37) % 300;
        for (size_t k = 0; k < len; k++)
            msg[k] = (unsigned char)(i + k);
        struct iovec iov[2] = {{msg, len / 2}, {msg + len / 2, len - len / 2}};
        int64_t n = shm_reserve_sp(&r, tail, &head_cache, len);
        CHECK_EQ_INT(n, (long long)len);
        shm_fill(&r, tail, iov, 2, len, NULL);
        atomic_store_explicit(shm_ring_word(&r, tail), shm_meta(3, len), memory_order_release);
        tail += shm_lines_for(len);
        uint32_t src;
        int pieces;
        CHECK_EQ_INT(take(&r, &head, out, &src, &pieces), (long long)len);
        CHECK_EQ_INT(src, 3);
        CHECK(memcmp(out, msg, len) == 0);
        wrapped += pieces == 2;
    }
    CHECK(wrapped > 0);
    /* Fill: 16 lines take 8 two-line messages (up to 120 bytes each). */
    int put = 0;
    for (;;) {
        struct iovec iov = {msg, 100};
        int64_t n = shm_reserve_sp(&r, tail, &head_cache, 100);
        if (n < 0)
            break;
        CHECK_EQ_INT(n, 100);
        msg[0] = (unsigned char)put;
        shm_fill(&r, tail, &iov, 1, 100, NULL);
        atomic_store_explicit(shm_ring_word(&r, tail), shm_meta(1, 100), memory_order_release);
        tail += 2;
        put++;
    }
    CHECK_EQ_INT(put, 8);
    /* Nothing was overwritten: all 8 come back in order. */
    for (int i = 0; i < put; i++) {
        uint32_t src;
        int pieces;
        CHECK_EQ_INT(take(&r, &head, out, &src, &pieces), 100);
        CHECK_EQ_INT(out[0], i);
    }
    /* Partial take: 6 empty messages use 12 of the 16 lines (a message takes
     * a 128-byte pair); a 500-byte offer then gets the 4 free lines' worth. */
    for (int i = 0; i < 6; i++) {
        CHECK_EQ_INT(shm_reserve_sp(&r, tail, &head_cache, 0), 0);
        atomic_store_explicit(shm_ring_word(&r, tail), shm_meta(0, 0), memory_order_release);
        tail += shm_lines_for(0);
    }
    CHECK_EQ_INT(shm_lines_for(0), 2);
    CHECK_EQ_INT(shm_reserve_sp(&r, tail, &head_cache, 500), 4 * 64 - 8);
    free(mem);
}

/* ---- multi-producer stress ---- */

#define PRODUCERS 4
#define STREAM_BYTES 20000000ull /* per producer */

static struct shm_ring mp;

static unsigned char stream_byte(uint32_t id, uint64_t off)
{
    return (unsigned char)(id * 17 + off * 5 + (off >> 8));
}

/* Each producer streams STREAM_BYTES in random-size messages; the ring may
 * take fewer bytes than offered, and the producer goes on from there. */
static void *producer(void *arg)
{
    uint32_t id = (uint32_t)(uintptr_t)arg;
    uint64_t head_cache = 0, off = 0;
    unsigned seed = id * 77u + 1;
    unsigned char msg[512];
    while (off < STREAM_BYTES) {
        size_t len = 1 + (size_t)(rand_r(&seed) % 400);
        if (len > STREAM_BYTES - off)
            len = (size_t)(STREAM_BYTES - off);
        for (size_t k = 0; k < len; k++)
            msg[k] = stream_byte(id, off + k);
        struct iovec iov = {msg, len};
        uint64_t pos = 0;
        int64_t n = shm_reserve_mp(&mp, &head_cache, len, &pos);
        if (n < 0)
            continue; /* full: try again */
        CHECK(n > 0 && (size_t)n <= len);
        shm_fill(&mp, pos, &iov, 1, (uint64_t)n, NULL);
        atomic_store_explicit(shm_ring_word(&mp, pos), shm_meta(id, (uint64_t)n),
                              memory_order_seq_cst);
        off += (uint64_t)n;
    }
    return NULL;
}

static void multi_producer(void)
{
    const uint64_t lines = 64; /* 4 KiB: producers constantly find it full */
    void *mem = ring_mem(lines);
    shm_ring_view(&mp, mem, lines, 1024);
    pthread_t th[PRODUCERS];
    for (uintptr_t i = 0; i < PRODUCERS; i++)
        CHECK_EQ_INT(pthread_create(&th[i], NULL, producer, (void *)i), 0);
    uint64_t off[PRODUCERS] = {0}, got = 0, partial = 0;
    uint64_t head = 0;
    unsigned char out[1024];
    while (got < PRODUCERS * STREAM_BYTES) {
        uint32_t src;
        int pieces;
        long len = take(&mp, &head, out, &src, &pieces);
        if (len < 0)
            continue;
        CHECK(src < PRODUCERS && len > 0);
        for (long k = 0; k < len; k++)
            if (out[k] != stream_byte(src, off[src] + (uint64_t)k)) {
                fprintf(stderr, "producer %u: byte %llu wrong\n", src,
                        (unsigned long long)(off[src] + (uint64_t)k));
                CHECK(0);
            }
        partial += len % 64 == 56; /* typical size of a take cut by the ring */
        off[src] += (uint64_t)len;
        got += (uint64_t)len;
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(th[i], NULL);
    uint32_t src;
    int pieces;
    CHECK_EQ_INT(take(&mp, &head, out, &src, &pieces), -1); /* nothing extra */
    CHECK_EQ_INT(atomic_load(&mp.ctl->tail), head);
    for (int i = 0; i < PRODUCERS; i++)
        CHECK_EQ_INT(off[i], STREAM_BYTES);
    free(mem);
}

/* ---- dedicated-ring discipline under stress ---- */

static struct shm_ring sp;

/* One producer thread, sizes mixing small (1-2 lines) and big messages, so
 * headers land on lines that held big payload a lap earlier: the producer's
 * next-slot zeroing (shm_prepare_next_sp) must keep the consumer from
 * mistaking old payload for a header. */
static void *sp_producer(void *arg)
{
    (void)arg;
    uint64_t tail = 0, head_cache = 0, stale = 0, off = 0;
    unsigned seed = 99;
    unsigned char msg[1024];
    while (off < STREAM_BYTES) {
        size_t len = rand_r(&seed) % 3 ? 1 + (size_t)(rand_r(&seed) % 100)
                                       : 1 + (size_t)(rand_r(&seed) % 1000);
        if (len > STREAM_BYTES - off)
            len = (size_t)(STREAM_BYTES - off);
        /* Payload words that look like valid meta words, on purpose. */
        for (size_t k = 0; k < len; k++)
            msg[k] = stream_byte(7, off + k) | 1;
        struct iovec iov = {msg, len};
        int64_t n = shm_reserve_sp(&sp, tail, &head_cache, len);
        if (n < 0)
            continue;
        shm_fill(&sp, tail, &iov, 1, (uint64_t)n, NULL);
        uint64_t pos = tail;
        tail += shm_lines_for((uint64_t)n);
        shm_prepare_next_sp(&sp, (uint64_t)n, tail, &head_cache, &stale);
        atomic_store_explicit(shm_ring_word(&sp, pos), shm_meta(7, (uint64_t)n), memory_order_seq_cst);
        off += (uint64_t)n;
    }
    return NULL;
}

static void single_producer_stress(void)
{
    const uint64_t lines = 128;
    void *mem = ring_mem(lines);
    shm_ring_view(&sp, mem, lines, 2048);
    pthread_t th;
    CHECK_EQ_INT(pthread_create(&th, NULL, sp_producer, NULL), 0);
    uint64_t head = 0, off = 0;
    unsigned char out[2048];
    while (off < STREAM_BYTES) {
        uint64_t meta = atomic_load_explicit(shm_ring_word(&sp, head), memory_order_acquire);
        if (!meta)
            continue;
        uint32_t len = shm_meta_len(meta);
        CHECK_EQ_INT(shm_meta_src(meta), 7);
        CHECK(len > 0 && len <= 2048 && off + len <= STREAM_BYTES);
        struct iovec cont[2];
        int np = shm_pieces(&sp, head, len, cont);
        size_t k = 0;
        for (int i = 0; i < np; i++) {
            memcpy(out + k, cont[i].iov_base, cont[i].iov_len);
            k += cont[i].iov_len;
        }
        for (k = 0; k < len; k++)
            if (out[k] != (unsigned char)(stream_byte(7, off + k) | 1))
                CHECK(!"dedicated ring: wrong byte");
        shm_release(&sp, head, len, 0);
        head += shm_lines_for(len);
        atomic_store_explicit(&sp.ctl->head, head, memory_order_release);
        off += len;
    }
    pthread_join(th, NULL);
    free(mem);
}

int main(void)
{
    single_producer();
    multi_producer();
    single_producer_stress();
    printf("ring_test: ok\n");
    return 0;
}
