/*
 * flight.c — channel operations in flight: the puts and non-fetching AMOs
 * to PEs on other nodes that return before their answer (docs/shmem.md,
 * "Pipelined channel operations").
 *
 * Each is started on the channel (skf_put_start with the source copied
 * here first, so the caller may reuse it at return as OpenSHMEM says, except
 * an _nbi put's above FLIGHT_INLINE bytes, sent from the caller's source,
 * which the standard leaves untouched until quiet; skf_atomic_start) and
 * kept in a ring until it has finished.  Sources up
 * to FLIGHT_INLINE bytes are copied into their slot, larger ones into the
 * staging pool: one buffer of POOL_BYTES, allocated at the first such put,
 * used as a byte ring in the slots' order (they retire oldest first, so the
 * pool's oldest bytes are always the first freed) — no malloc per put.  The tcp
 * transport carries every operation to one PE, blocking ones included, on
 * one connection that the PE's service thread answers in order: so fence
 * needs nothing (ordering per PE is the stream's), and a get or a fetching
 * AMO after puts to the same PE sees them.  quiet (and every barrier)
 * waits for the whole ring; a full ring, or a full pool, retires the oldest
 * first.  (The barrier's signals to other nodes are messages: sync.c.)
 */
#include <stdlib.h>

#include "shmemi.h"

#define FLIGHT_SLOTS 256                  /* operations in flight at most (power of 2) */
#define FLIGHT_INLINE 64                  /* sources up to this size staged in the slot */
#define POOL_BYTES ((size_t)1 << 20)    /* the staging pool (larger sources): a few round trips
                                           of bytes at the link rate, and small enough to stay
                                           in cache (8 MiB cycled cold memory: 64 KiB puts lost) */

struct flight {
    skf_atomic_op_t a; /* a.op: the put's or the atomic's progress */
    const char *call;  /* who started it (for the error at its end) */
    int pe;
    uint64_t pool_end; /* pool position after its staged bytes (pool_tail when none) */
    char inline_src[FLIGHT_INLINE];
};

static struct flight ring[FLIGHT_SLOTS];
static unsigned head, tail; /* tail - head slots in flight (positions count up) */
/* The staging pool: positions count up; byte pos lives at pool[pos % POOL_BYTES].
 * [pool_head, pool_tail) is in flight (gaps skipped at the wrap included). */
static char *pool;
static uint64_t pool_head, pool_tail;
unsigned shmemi_in_flight;  /* tail - head, read without the lock by the fast checks */
/* Wait for one operation: 1 done, or a negative errno.  Progress passes
 * first, as a blocking skf_put polls (put + quiet measured 24 us against
 * 14 us with skf_wait's sleep-capable loop from the start), then skf_wait. */
#define WAIT_POLLS 20000
static int wait_op(skf_get_op_t *op)
{
    int rc;
    for (long polls = 0; (rc = skf_get_test(shmemi.ch, op)) == 0; polls++) {
        if (polls < WAIT_POLLS)
            while (shmemi_chan_take())
                ;
        else
            skf_wait(shmemi.ch, SKF_GET_DONE, 1);
    }
    return rc;
}

/* Wait for the oldest operation and free its slot (chan_lock held). */
static void retire_oldest(void)
{
    struct flight *f = &ring[head % FLIGHT_SLOTS];
    int rc = wait_op(&f->a.op);
    if (rc < 0)
        shmemi_fatal(f->call, "reaching PE %d over the channel failed: %s", f->pe,
                     skf_strerror(rc));
    pool_head = f->pool_end;
    head++;
    __atomic_store_n(&shmemi_in_flight, tail - head, __ATOMIC_RELAXED);
}

/* A free slot (chan_lock held). */
static struct flight *take_slot(void)
{
    while (tail - head == FLIGHT_SLOTS)
        retire_oldest();
    struct flight *f = &ring[tail % FLIGHT_SLOTS];
    f->pool_end = pool_tail;
    return f;
}

/* Room for len (<= POOL_BYTES) contiguous bytes in the staging pool for slot
 * f, retiring the oldest operations until they are free (chan_lock held). */
static char *pool_take(struct flight *f, size_t len, const char *call, int pe)
{
    if (!pool && !(pool = malloc(POOL_BYTES)))
        shmemi_fatal(call, "no memory for the %zu-byte staging pool (a put to PE %d)",
                     POOL_BYTES, pe);
    uint64_t at;
    for (;;) {
        at = pool_tail;
        size_t phys = (size_t)(at % POOL_BYTES);
        if (phys + len > POOL_BYTES) /* not contiguous: skip to the pool's start */
            at += POOL_BYTES - phys;
        if (at + len - pool_head <= POOL_BYTES)
            break;
        if (tail == head) /* all free (pool_head == pool_tail): start over at byte 0 */
            pool_head = pool_tail = at;
        else
            retire_oldest();
    }
    pool_tail = f->pool_end = at + len;
    return pool + at % POOL_BYTES;
}

/* Requests of deferred puts not yet pushed; a push at this many, or at this
 * many of their bytes, keeps the stream moving. */
#define PUSH_BATCH 64
#define PUSH_BYTES ((size_t)64 << 10)
static unsigned unpushed;
static size_t unpushed_bytes;

static void push(void)
{
    unpushed = 0;
    unpushed_bytes = 0;
    skf_rma_push(shmemi.ch);
}

void shmemi_flight_push(void)
{
    shmemi_chan_enter();
    if (unpushed)
        push();
    shmemi_chan_leave();
}

/* Keep a started operation (rc as skf_*_start returned) in the ring; push
 * its request out unless it may be deferred (len: its bytes). */
static void started(struct flight *f, const char *call, int pe, int rc, int defer, size_t len)
{
    if (rc < 0)
        shmemi_fatal(call, "reaching PE %d over the channel failed: %s", pe, skf_strerror(rc));
    if (rc == 1) /* done already (a node mate's data segment): nothing to keep */
        return;
    f->call = call;
    f->pe = pe;
    tail++;
    __atomic_store_n(&shmemi_in_flight, tail - head, __ATOMIC_RELAXED);
    /* Out now, not at the next progress pass: the target may be waiting for
     * it while I am away from SHMEM (in MPI, computing).  Only the _nbi puts
     * (and iput's elements but its last) may wait for a batch: the standard
     * completes those at quiet, and quiet, every wait and every other
     * operation started here push them. */
    if (defer && ++unpushed < PUSH_BATCH && (unpushed_bytes += len) < PUSH_BYTES)
        return;
    push();
}

void shmemi_put_flight(const char *call, const skf_mr_key_t *key, size_t off, const void *src,
                       size_t len, int pe, int how)
{
    shmemi_chan_enter();
    struct flight *f = take_slot();
    uint64_t pool_before = pool_tail;
    const char *from = src;
    if (len <= FLIGHT_INLINE || !(how & SHMEMI_PUT_NOCOPY)) {
        char *stage = len > FLIGHT_INLINE ? pool_take(f, len, call, pe) : f->inline_src;
        memcpy(stage, src, len);
        from = stage;
    }
    int rc = how & SHMEMI_PUT_HOLD ? skf_put_start_held(shmemi.ch, key, off, from, len, &f->a.op)
                                   : skf_put_start(shmemi.ch, key, off, from, len, &f->a.op);
    if (rc == 1) /* done at once: its pool bytes (the newest) are free again */
        pool_tail = pool_before > pool_head ? pool_before : pool_head;
    started(f, call, pe, rc, how & SHMEMI_PUT_DEFER, len);
    shmemi_chan_leave();
}

void shmemi_amo_flight(const char *call, const skf_mr_key_t *key, size_t off, int op, int size,
                       uint64_t v, int pe)
{
    shmemi_chan_enter();
    struct flight *f = take_slot();
    started(f, call, pe, skf_atomic_start(shmemi.ch, key, off, op, size, v, 0, &f->a), 0, 0);
    shmemi_chan_leave();
}

void shmemi_quiet_slow(void)
{
    shmemi_chan_enter();
    if (unpushed)
        push();
    while (tail != head)
        retire_oldest();
    shmemi_chan_leave();
}

void shmemi_flight_finalize(void)
{
    shmemi_quiet();
    free(pool);
    pool = NULL;
    pool_head = pool_tail = 0;
}
