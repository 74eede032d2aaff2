/* flight_pool.c — puts in flight and their staging pool (flight.c, docs/shmem.md
 * "Pipelined channel operations"): thousands of outstanding _nbi and blocking
 * puts of sizes from 1 byte to beyond the pipelined limit, whose staged bytes
 * add up to several times the pool (so it fills, wraps around with a gap at
 * its end, and retires its oldest puts to make room), and single puts larger
 * than the whole pool.  A blocking put's source is scribbled on as soon as
 * the call returns (it was staged); an _nbi put's source is its own, left
 * alone until quiet as the standard says (it is sent from there), then
 * scribbled on.  Also _nbi puts far above the staging limit in flight
 * together, and put-with-signal, blocking (source scribbled at return) and
 * _nbi.  After quiet every destination is checked byte for byte (serial
 * reference: the pattern of the putting PE and round).  Each PE puts to its
 * right neighbour; mapped neighbours take memcpy, those over tcp or on
 * another host the channel. */
#include <stdio.h>
#include <stdlib.h>

#include "shtest.h"

#define POOL ((size_t)1 << 20) /* flight.c's POOL_BYTES */
#define AREA ((size_t)24 << 20) /* destination area (symmetric) */

static unsigned char *area;

/* The k-th put of a round: its size (a mix that wraps the pool unevenly). */
static size_t put_size(int k)
{
    static const size_t sz[] = {1, 64, 65, 100, 4096, 5000, 65536, 131072, 131073, 262144};
    return sz[(k * 7) % (int)(sizeof sz / sizeof *sz)];
}

int main(void)
{
    test_init();
    area = shmem_malloc(AREA);
    unsigned char *src = malloc(POOL + 4096), *nsrc = malloc(AREA); /* nsrc: the _nbi sources */
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    CHECK(area && src && nsrc && sig);
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    /* 1: many puts, back to back, each to its own place in the area, staged
     * bytes about three pool sizes; nbi and blocking forms alternate */
    for (int round = 1; round <= 3; round++) {
        memset(area, 0, AREA);
        shmem_barrier_all();
        size_t at = 0;
        int k = 0;
        for (size_t staged = 0; staged < 3 * POOL; k++) {
            size_t n = put_size(k + round);
            if (at + n > AREA)
                at = 0; /* later puts overwrite earlier ones: same pattern, by put number */
            if (k % 2) { /* its own source (the area never wraps within a round) */
                fill(nsrc + at, n, me, round * 4096 + k % 4096);
                shmem_putmem_nbi(area + at, nsrc + at, n, right);
            } else {
                fill(src, n, me, round * 4096 + k % 4096);
                shmem_putmem(area + at, src, n, right);
                memset(src, 0xa5, n);
            }
            at += n;
            staged += n;
        }
        shmem_quiet();
        memset(nsrc, 0xa5, at);
        shmem_barrier_all();
        /* replay what my left neighbour did: the last put to each byte wins */
        at = 0;
        int puts = k;
        unsigned char *want = malloc(AREA);
        CHECK(want != NULL);
        memset(want, 0, AREA);
        for (k = 0; k < puts; k++) {
            size_t n = put_size(k + round);
            if (at + n > AREA)
                at = 0;
            fill(want + at, n, left, round * 4096 + k % 4096);
            at += n;
        }
        for (size_t i = 0; i < AREA; i++)
            if (area[i] != want[i]) {
                fprintf(stderr, "flight_pool: PE %d: round %d: byte %zu is %u, expected %u\n", me,
                        round, i, area[i], want[i]);
                exit(1);
            }
        free(want);
    }
    /* 2: one put larger than the pool (blocking, from the caller's buffer),
     * after a few staged ones still in flight */
    shmem_barrier_all();
    size_t big = POOL + 4096;
    for (int k = 0; k < 8; k++) {
        fill(nsrc + (size_t)k * 1000, 1000, me, 50 + k);
        shmem_putmem_nbi(area + POOL + 8192 + (size_t)k * 1000, nsrc + (size_t)k * 1000, 1000,
                         right);
    }
    fill(src, big, me, 60);
    shmem_putmem(area, src, big, right);
    memset(src, 0xa5, big);
    shmem_quiet();
    shmem_barrier_all();
    CHECK_PATTERN(area, big, left, 60);
    for (int k = 0; k < 8; k++)
        CHECK_PATTERN(area + POOL + 8192 + (size_t)k * 1000, 1000, left, 50 + k);
    shmem_barrier_all();
    /* 3: _nbi puts far above the staging limit, in flight together (sent from
     * their sources), between staged blocking ones; then put-with-signal */
    static const size_t large[] = {131073, 262144, 3 * POOL / 2, 65536, POOL + 1};
    size_t at = 0;
    for (int k = 0; k < 5; k++) {
        fill(nsrc + at, large[k], me, 70 + k);
        shmem_putmem_nbi(area + at, nsrc + at, large[k], right);
        at += large[k];
        fill(src, 4096, me, 80 + k);
        shmem_putmem(area + at, src, 4096, right);
        memset(src, 0xa5, 4096);
        at += 4096;
    }
    shmem_quiet();
    memset(nsrc, 0xa5, at);
    shmem_barrier_all();
    at = 0;
    for (int k = 0; k < 5; k++) {
        CHECK_PATTERN(area + at, large[k], left, 70 + k);
        at += large[k];
        CHECK_PATTERN(area + at, 4096, left, 80 + k);
        at += 4096;
    }
    shmem_barrier_all();
    fill(src, 100000, me, 90); /* blocking: staged, the source reusable at return */
    shmem_putmem_signal(area, src, 100000, sig, 1, SHMEM_SIGNAL_ADD, right);
    memset(src, 0xa5, 100000);
    fill(nsrc, 300000, me, 91); /* _nbi: sent from nsrc, untouched until the signal came */
    shmem_putmem_signal_nbi(area + 100000, nsrc, 300000, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 2);
    CHECK_PATTERN(area, 100000, left, 90);
    CHECK_PATTERN(area + 100000, 300000, left, 91);
    shmem_quiet();
    shmem_barrier_all();
    free(src);
    free(nsrc);
    shmem_free(sig);
    shmem_free(area);
    if (me == 0)
        printf("flight_pool: %d PEs: every check passed\n", npes);
    shmem_finalize();
    return 0;
}
