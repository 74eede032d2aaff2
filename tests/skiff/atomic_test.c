/*
 * atomic_test — skf_atomic: every op at sizes 4 and 8 against a reference,
 * bad arguments, contention from every rank.
 *
 *   atomic_test all [rounds]
 * Every rank exposes a small region and sends its key to every rank.
 *  1. ops: on its own slot of its right neighbour's region (its own region
 *     when alone) each rank runs every op x size x pair of edge values
 *     (0, 1, all ones, the signed minimum and maximum, a plain value; for
 *     CSWAP a matching and a missing comparand), checking the old value
 *     returned and the value left (read back with FETCH); 4-byte ops on the
 *     upper half of a word must leave the lower half alone, and the upper
 *     32 bits of a 4-byte operand must not count.
 *  2. errors: misaligned, out of range, bad op, bad size, a key the owner
 *     never made (the owner refuses it: -EINVAL through the remote path),
 *     no such rank, NULL arguments: -EINVAL.
 *  3. counter: every rank adds 1 rounds times, at once, to an 8-byte and a
 *     4-byte counter at rank 0; the old values each rank saw rise, all of
 *     them together are each number below size*rounds exactly once, and the
 *     counters end at size*rounds.
 *  4. lock: a CSWAP spin lock at the last rank guards a plain counter that
 *     each holder moves by get + put; a holder word swapped on entry and
 *     exit must show nobody else inside, and the counter ends exact.
 *  5. skf_accumulate (executed by the owner): on rank 0, every rank at once
 *     adds to two int64 words per element with atomics (old values fetched:
 *     below the final count), sums doubles and takes the maximum of int32s
 *     under a lock word at rank 0; the results are exact.  Its own op table
 *     on the right neighbour (every op x type on small values, old values
 *     and values left against plain C); bad arguments -EINVAL.  A node mate
 *     reached over shm: -EOPNOTSUPP (checked, nothing else).
 *
 *   atomic_test busy      (over tcp: the owner's RMA service thread)
 * Rank 0 exposes a region, sends its key (a barrier: it arrived) and computes outside Skiff
 * (a busy loop, then a plain sleep: at least 2 s, no Skiff call) until its
 * own memory says every other rank is done.  Meanwhile each other rank's
 * very first one-sided op to it (which opens the connection) and all the
 * rest must complete: fetch-adds on a counter, a CSWAP, a put of its slot,
 * a get of a pattern; at last an ADD on the "done" word.  Rank 0 then
 * checks counter and slots.  Without a server of its own in rank 0 nothing
 * completes and rank 0 gives up after 60 s (a failure, not a time check).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "skftest.h"

#define PORT 16
#define W_COUNT64 0 /* words of every region; the counters are used at rank 0 */
#define W_COUNT32 1
#define W_LOCK 2    /* ... the lock at the last rank */
#define W_HOLDER 3
#define W_GUARDED 4
#define W_SLOTS 8   /* then 2 words per rank for the op table */
#define NOPS (SKF_AOP_UMAX + 1)

static skf_chan_t *ch, *bar;
static int me, size;

/* Everybody arrives before anybody leaves (messages on their own port). */
static void barrier(skf_ctx_t *ctx)
{
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    if (me == 0) {
        for (int i = 1; i < size; i++) {
            CHECK(recv_wait(bar, cont, &ncont, &src) == 0);
            skf_recv_done(bar);
        }
        for (int r = 1; r < size; r++)
            send_all(bar, skf_addr(ctx, r, PORT + 1), NULL, 0);
    } else {
        send_all(bar, skf_addr(ctx, 0, PORT + 1), NULL, 0);
        CHECK(recv_wait(bar, cont, &ncont, &src) == 0);
        skf_recv_done(bar);
    }
}

/* The value an op leaves, computed the plain way. */
static uint64_t reference(int op, int sz, uint64_t cur, uint64_t v, uint64_t cmp)
{
    uint64_t mask = sz == 4 ? 0xffffffffull : ~0ull;
    cur &= mask, v &= mask, cmp &= mask;
    int64_t sc = sz == 4 ? (int32_t)(uint32_t)cur : (int64_t)cur;
    int64_t sv = sz == 4 ? (int32_t)(uint32_t)v : (int64_t)v;
    switch (op) {
    case SKF_AOP_FETCH: return cur;
    case SKF_AOP_SET:
    case SKF_AOP_SWAP: return v;
    case SKF_AOP_CSWAP: return cur == cmp ? v : cur;
    case SKF_AOP_ADD: return (cur + v) & mask;
    case SKF_AOP_AND: return cur & v;
    case SKF_AOP_OR: return cur | v;
    case SKF_AOP_XOR: return cur ^ v;
    case SKF_AOP_MIN: return sv < sc ? v : cur;
    case SKF_AOP_MAX: return sv > sc ? v : cur;
    case SKF_AOP_UMIN: return v < cur ? v : cur;
    default: return v > cur ? v : cur; /* UMAX */
    }
}

static uint64_t atomic_ok(const skf_mr_key_t *k, size_t off, int op, int sz, uint64_t v, uint64_t cmp)
{
    uint64_t old = 0xdeadbeefdeadbeefull;
    CHECK_EQ_INT(skf_atomic(ch, k, off, op, sz, v, cmp, &old), 0);
    CHECK(sz == 8 || old >> 32 == 0); /* zero-extended */
    return old;
}

static void ops_table(const skf_mr_key_t *k)
{
    static const uint64_t vals[2][6] = {
        {0, 1, 0xffffffffull, 0x80000000ull, 0x7fffffffull, 0x12345678ull},
        {0, 1, ~0ull, 1ull << 63, (1ull << 63) - 1, 0x0123456789abcdefull}};
    size_t word = (size_t)(W_SLOTS + 2 * me) * 8;
    size_t sentinel = word + 8; /* a second word: its lower half must survive 4-byte ops on its upper */
    atomic_ok(k, sentinel, SKF_AOP_SET, 8, 0x1122334455667788ull, 0);
    for (int s = 0; s < 2; s++) {
        int sz = s ? 8 : 4;
        size_t off = s ? word : sentinel + 4;
        uint64_t known = atomic_ok(k, off, SKF_AOP_FETCH, sz, 0, 0);
        for (int op = 0; op < NOPS; op++)
            for (int a = 0; a < 6; a++)
                for (int b = 0; b < 6; b++)
                    for (int c = 0; c < (op == SKF_AOP_CSWAP ? 2 : 1); c++) {
                        uint64_t init = vals[s][a], v = vals[s][b];
                        uint64_t cmp = c ? init : init ^ 4;
                        CHECK(atomic_ok(k, off, SKF_AOP_SET, sz, init, 0) == known);
                        uint64_t garbage = sz == 4 ? 0xabcd000000000000ull : 0; /* ignored */
                        uint64_t old = atomic_ok(k, off, op, sz, v | garbage, cmp | garbage);
                        if (old != init) {
                            fprintf(stderr, "rank %d: op %d size %d init %#llx operand %#llx: old "
                                    "%#llx\n", me, op, sz, (unsigned long long)init,
                                    (unsigned long long)v, (unsigned long long)old);
                            CHECK(!"old value");
                        }
                        known = atomic_ok(k, off, SKF_AOP_FETCH, sz, 0, 0);
                        uint64_t want = reference(op, sz, init, v, cmp);
                        if (known != want) {
                            fprintf(stderr, "rank %d: op %d size %d init %#llx operand %#llx cmp "
                                    "%#llx: left %#llx, want %#llx\n", me, op, sz,
                                    (unsigned long long)init, (unsigned long long)v,
                                    (unsigned long long)cmp, (unsigned long long)known,
                                    (unsigned long long)want);
                            CHECK(!"value left");
                        }
                    }
    }
    CHECK_EQ_INT(atomic_ok(k, sentinel, SKF_AOP_FETCH, 4, 0, 0), 0x55667788);
}

static void errors(const skf_mr_key_t *k)
{
    uint64_t old;
    size_t word = (size_t)(W_SLOTS + 2 * me) * 8;
    CHECK_EQ_INT(skf_atomic(ch, k, word + 4, SKF_AOP_ADD, 8, 1, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, word + 2, SKF_AOP_ADD, 4, 1, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, k->len - 4, SKF_AOP_FETCH, 8, 0, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, k->len, SKF_AOP_FETCH, 4, 0, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, SIZE_MAX - 3, SKF_AOP_FETCH, 4, 0, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, word, -1, 8, 0, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, word, NOPS, 8, 0, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, word, SKF_AOP_ADD, 2, 0, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, word, SKF_AOP_ADD, 0, 0, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, k, word, SKF_AOP_ADD, 16, 0, 0, &old), -EINVAL);
    skf_mr_key_t forged = *k;
    forged.cookie ^= 0x5a5a;
    CHECK_EQ_INT(skf_atomic(ch, &forged, word, SKF_AOP_ADD, 8, 1, 0, &old), -EINVAL);
    forged = *k;
    forged.owner = size;
    CHECK_EQ_INT(skf_atomic(ch, &forged, word, SKF_AOP_ADD, 8, 1, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(NULL, k, word, SKF_AOP_ADD, 8, 1, 0, &old), -EINVAL);
    CHECK_EQ_INT(skf_atomic(ch, NULL, word, SKF_AOP_ADD, 8, 1, 0, &old), -EINVAL);
    /* nothing of the refused ones happened; old may be NULL */
    CHECK_EQ_INT(skf_atomic(ch, k, word, SKF_AOP_SET, 8, 77, 0, NULL), 0);
    CHECK_EQ_INT(atomic_ok(k, word, SKF_AOP_ADD, 8, 0, 0), 77);
}

static void counter(skf_ctx_t *ctx, const skf_mr_key_t *k0, int rounds)
{
    uint64_t *olds = calloc((size_t)rounds, sizeof *olds);
    CHECK(olds);
    for (int i = 0; i < rounds; i++) {
        olds[i] = atomic_ok(k0, W_COUNT64 * 8, SKF_AOP_ADD, 8, 1, 0);
        uint64_t o32 = atomic_ok(k0, W_COUNT32 * 8, SKF_AOP_ADD, 4, 1, 0);
        CHECK(i == 0 || olds[i] > olds[i - 1]);
        CHECK(o32 < (uint64_t)size * (uint64_t)rounds);
    }
    send_all(ch, skf_addr(ctx, 0, PORT), olds, (size_t)rounds * sizeof *olds);
    if (me == 0) { /* every number seen exactly once */
        size_t total = (size_t)size * (size_t)rounds, got = 0;
        unsigned char *seen = calloc(total, 1);
        uint64_t *buf = malloc(total * sizeof *buf);
        CHECK(seen && buf);
        while (got < total * sizeof *buf) {
            struct iovec cont[SKF_CONT_SIZE];
            int ncont;
            skf_addr_t src;
            ssize_t n = recv_wait(ch, cont, &ncont, &src);
            CHECK(n > 0 && n % 8 == 0 && got + (size_t)n <= total * sizeof *buf);
            gather(cont, ncont, (char *)buf + got, (size_t)n);
            got += (size_t)n;
            skf_recv_done(ch);
        }
        for (size_t i = 0; i < total; i++) {
            CHECK(buf[i] < total && !seen[buf[i]]);
            seen[buf[i]] = 1;
        }
        free(seen);
        free(buf);
    }
    barrier(ctx);
    if (me == 0) {
        CHECK_EQ_INT(atomic_ok(k0, W_COUNT64 * 8, SKF_AOP_FETCH, 8, 0, 0), size * rounds);
        CHECK_EQ_INT(atomic_ok(k0, W_COUNT32 * 8, SKF_AOP_FETCH, 4, 0, 0), size * rounds);
    }
    free(olds);
}

static void lock_test(skf_ctx_t *ctx, const skf_mr_key_t *kl, int rounds)
{
    uint64_t mine = (uint64_t)me + 1;
    for (int i = 0; i < rounds; i++) {
        while (atomic_ok(kl, W_LOCK * 8, SKF_AOP_CSWAP, 8, mine, 0) != 0)
            ; /* the owner spins here too: over tcp its service thread answers meanwhile */
        CHECK_EQ_INT(atomic_ok(kl, W_HOLDER * 8, SKF_AOP_SWAP, 8, mine, 0), 0);
        uint64_t v;
        CHECK_EQ_INT(skf_get(ch, kl, W_GUARDED * 8, &v, sizeof v), 0);
        v++;
        CHECK_EQ_INT(skf_put(ch, kl, W_GUARDED * 8, &v, sizeof v), 0);
        CHECK_EQ_INT(atomic_ok(kl, W_HOLDER * 8, SKF_AOP_SWAP, 8, 0, 0), mine);
        CHECK_EQ_INT(atomic_ok(kl, W_LOCK * 8, SKF_AOP_SET, 8, 0, 0), mine);
    }
    barrier(ctx);
    if (me == size - 1) {
        CHECK_EQ_INT(atomic_ok(kl, W_LOCK * 8, SKF_AOP_FETCH, 8, 0, 0), 0);
        uint64_t v;
        CHECK_EQ_INT(skf_get(ch, kl, W_GUARDED * 8, &v, sizeof v), 0);
        CHECK_EQ_INT(v, size * rounds);
    }
}

/* busy mode's layout of rank 0's region */
#define B_COUNT 0
#define B_DONE 1
#define B_LOCK 2
#define B_SLOTS 8      /* a 64-byte slot per rank (put), then ... */
#define B_PATTERN 4096 /* bytes of pattern at the end (get) */
#define B_ADDS 100

/* ---- 5. skf_accumulate ---- */

/* after the slots: [0,1] int64 sums, [2] lock, [3..6] doubles, [7] int32 max x 2,
 * [8] unused, then one word per rank for its op table */
#define ACC_WORDS (9 + size)

static int acc_reaches(skf_ctx_t *ctx, int owner)
{
    const char *tr = getenv("SKIFF_TRANSPORTS");
    return owner == me || (tr && (strcmp(tr, "tcp") == 0 || strcmp(tr, "ofi") == 0)) ||
           skf_node_id(ctx, owner) != skf_node_id(ctx, me);
}

/* Every op on every type, one element at a time, against plain C. */
static void acc_table(const skf_mr_key_t *k, size_t at)
{
    static const size_t es[SKF_T_NTYPES] = {1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    for (int ty = 0; ty < SKF_T_NTYPES; ty++)
        for (int op = 0; op < SKF_ACC_NOPS; op++) {
            int fl = ty >= SKF_T_F32;
            if (fl && ((op >= SKF_ACC_BAND && op <= SKF_ACC_LXOR) || op == SKF_ACC_CSWAP))
                continue;
            /* start value 6, operand 3 (compare 6: the swap happens) */
            union { int64_t i; double d; float f; uint8_t b[8]; } start = {0}, in = {0}, cmp = {0},
                                                               old = {0}, left = {0};
            if (ty == SKF_T_F32) start.f = 6, in.f = 3, cmp.f = 6;
            else if (ty == SKF_T_F64) start.d = 6, in.d = 3, cmp.d = 6;
            else start.i = 6, in.i = 3, cmp.i = 6; /* little-endian: the low bytes */
            skf_acc_t put = {.op = SKF_ACC_REPLACE, .type = ty, .count = 1, .operand = &start};
            skf_mr_key_t lock = *k;
            skf_acc_t a = {.op = op, .type = ty, .count = 1, .operand = &in, .compare = &cmp,
                           .old = &old, .lock = &lock, .lock_off = (W_SLOTS + 2 * size + 2) * 8,
                           .lock_val = (uint64_t)me + 1};
            put.lock = a.lock, put.lock_off = a.lock_off, put.lock_val = a.lock_val;
            CHECK_EQ_INT(skf_accumulate(ch, k, at, &put), 0);
            CHECK_EQ_INT(skf_accumulate(ch, k, at, &a), 0);
            CHECK_EQ_INT(skf_get(ch, k, at, &left, es[ty]), 0);
            double want = op == SKF_ACC_SUM ? 9 : op == SKF_ACC_PROD ? 18 : op == SKF_ACC_MIN ? 3
                        : op == SKF_ACC_MAX ? 6 : op == SKF_ACC_BAND ? (6 & 3)
                        : op == SKF_ACC_BOR ? (6 | 3) : op == SKF_ACC_BXOR ? (6 ^ 3)
                        : op == SKF_ACC_LAND || op == SKF_ACC_LOR ? 1 : op == SKF_ACC_LXOR ? 0
                        : op == SKF_ACC_REPLACE || op == SKF_ACC_CSWAP ? 3 : 6;
            double got = ty == SKF_T_F32 ? left.f : ty == SKF_T_F64 ? left.d : (double)left.i;
            double was = ty == SKF_T_F32 ? old.f : ty == SKF_T_F64 ? old.d : (double)old.i;
            if (got != want || was != 6) {
                fprintf(stderr, "rank %d: skf_accumulate type %d op %d: left %g (want %g), old %g\n",
                        me, ty, op, got, want, was);
                CHECK(!"accumulate result");
            }
        }
}

static void acc_errors(const skf_mr_key_t *k, size_t at)
{
    int64_t v = 1;
    skf_acc_t a = {.op = SKF_ACC_SUM, .type = SKF_T_I64, .count = 1, .operand = &v};
    CHECK_EQ_INT(skf_accumulate(ch, k, at + 4, &a), -EINVAL); /* misaligned */
    CHECK_EQ_INT(skf_accumulate(ch, k, k->len, &a), -EINVAL); /* outside */
    a.count = k->len / 8 + 1;
    CHECK_EQ_INT(skf_accumulate(ch, k, 0, &a), -EINVAL);
    a.count = 1;
    a.type = SKF_T_NTYPES;
    CHECK_EQ_INT(skf_accumulate(ch, k, at, &a), -EINVAL);
    a.type = SKF_T_F64;
    a.op = SKF_ACC_BAND; /* no bitwise op on doubles, locked or not */
    skf_mr_key_t lock = *k;
    a.lock = &lock, a.lock_off = (W_SLOTS + 2 * size + 2) * 8, a.lock_val = 1;
    CHECK_EQ_INT(skf_accumulate(ch, k, at, &a), -EINVAL);
    a.op = SKF_ACC_SUM;
    a.lock = NULL; /* a double sum has no atomic instruction: needs the lock word */
    CHECK_EQ_INT(skf_accumulate(ch, k, at, &a), -EINVAL);
    a.type = SKF_T_I64, a.op = SKF_ACC_CSWAP; /* no compare value */
    CHECK_EQ_INT(skf_accumulate(ch, k, at, &a), -EINVAL);
    a.op = SKF_ACC_NOPS;
    CHECK_EQ_INT(skf_accumulate(ch, k, at, &a), -EINVAL);
    a.op = SKF_ACC_SUM, a.lock = &lock, a.lock_off = 4; /* a misaligned lock word */
    CHECK_EQ_INT(skf_accumulate(ch, k, at, &a), -EINVAL);
    skf_mr_key_t forged = *k;
    forged.cookie ^= 0x5a5a; /* the owner refuses a key it never made */
    a.lock = NULL;
    CHECK_EQ_INT(skf_accumulate(ch, &forged, at, &a), -EINVAL);
    CHECK_EQ_INT(skf_accumulate(NULL, k, at, &a), -EINVAL);
    CHECK_EQ_INT(skf_accumulate(ch, k, at, NULL), -EINVAL);
}

static void acc_test(skf_ctx_t *ctx, const skf_mr_key_t *keys, int rounds)
{
    const size_t base = (size_t)(W_SLOTS + 2 * size) * 8;
    const skf_mr_key_t *k0 = &keys[0], *right = &keys[(me + 1) % size];
    int64_t two[2] = {1, 2}, olds[2];
    double dv[4] = {me + 1, me + 1, me + 1, me + 1};
    int32_t mx[2];
    skf_mr_key_t lock = *k0;
    if (!acc_reaches(ctx, 0)) {
        skf_acc_t a = {.op = SKF_ACC_SUM, .type = SKF_T_I64, .count = 2, .operand = two};
        CHECK_EQ_INT(skf_accumulate(ch, k0, base, &a), -EOPNOTSUPP);
    } else {
        for (int i = 0; i < rounds; i++) {
            skf_acc_t a = {.op = SKF_ACC_SUM, .type = SKF_T_I64, .count = 2, .operand = two,
                           .old = olds};
            CHECK_EQ_INT(skf_accumulate(ch, k0, base, &a), 0);
            /* atomic per element, not across the two: each old value in range */
            CHECK(olds[0] >= 0 && olds[0] < size * rounds);
            CHECK(olds[1] >= 0 && olds[1] < 2 * size * rounds && olds[1] % 2 == 0);
            skf_acc_t d = {.op = SKF_ACC_SUM, .type = SKF_T_F64, .count = 4, .operand = dv,
                           .lock = &lock, .lock_off = base + 16, .lock_val = (uint64_t)me + 1};
            CHECK_EQ_INT(skf_accumulate(ch, k0, base + 24, &d), 0);
            mx[0] = me * rounds + i, mx[1] = -mx[0];
            skf_acc_t m = {.op = SKF_ACC_MAX, .type = SKF_T_I32, .count = 2, .operand = mx,
                           .lock = &lock, .lock_off = base + 16, .lock_val = (uint64_t)me + 1};
            CHECK_EQ_INT(skf_accumulate(ch, k0, base + 56, &m), 0);
        }
    }
    if (acc_reaches(ctx, right->owner)) {
        acc_table(right, base + 72 + 8 * (size_t)me);
        acc_errors(right, base + 72);
    }
    barrier(ctx);
    if (me == 0) {
        int n = 0; /* the ranks that reach rank 0 */
        for (int r = 0; r < size; r++)
            n += acc_reaches(ctx, r);
        int64_t w[2];
        double d[4];
        int32_t m[2];
        CHECK_EQ_INT(skf_get(ch, k0, base, w, sizeof w), 0);
        CHECK_EQ_INT(skf_get(ch, k0, base + 24, d, sizeof d), 0);
        CHECK_EQ_INT(skf_get(ch, k0, base + 56, m, sizeof m), 0);
        CHECK_EQ_INT(w[0], n * rounds);
        CHECK_EQ_INT(w[1], 2 * n * rounds);
        double dsum = 0;
        int top = -1;
        for (int r = 0; r < size; r++)
            if (acc_reaches(ctx, r)) {
                dsum += (double)(r + 1) * rounds;
                top = r;
            }
        for (int i = 0; i < 4; i++)
            CHECK(d[i] == dsum);
        CHECK_EQ_INT(m[0], top * rounds + rounds - 1);
        CHECK_EQ_INT(m[1], 0); /* the max of 0 and the negatives */
    }
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void busy_owner(skf_ctx_t *ctx)
{
    size_t pat_off = (size_t)(B_SLOTS + 8 * size) * 8, len = pat_off + B_PATTERN;
    uint64_t *region = calloc(len / 8, 8);
    CHECK(region);
    unsigned char *pat = (unsigned char *)region + pat_off;
    for (size_t i = 0; i < B_PATTERN; i++)
        pat[i] = pattern(0, 1, i);
    skf_mr_key_t key;
    CHECK_EQ_INT(skf_mr_expose(ctx, region, len, &key), 0);
    if (me == 0) {
        for (int r = 1; r < size; r++)
            send_all(ch, skf_addr(ctx, r, PORT), &key, sizeof key);
        barrier(ctx); /* the keys are there (sending them needs my progress) */
        /* outside Skiff from here: at least 2 s, and until everybody is done */
        double t0 = seconds();
        volatile uint64_t spin = 0;
        while (seconds() - t0 < 1.0)
            spin++;
        struct timespec one = {1, 0};
        nanosleep(&one, NULL);
        while (__atomic_load_n(&region[B_DONE], __ATOMIC_SEQ_CST) != (uint64_t)size - 1) {
            if (seconds() - t0 > 60) {
                fprintf(stderr, "rank 0: after 60 s outside Skiff only %llu of %d ranks are "
                        "done: one-sided ops did not complete without me\n",
                        (unsigned long long)region[B_DONE], size - 1);
                CHECK(!"passive progress");
            }
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        }
        CHECK_EQ_INT(region[B_COUNT], (size - 1) * B_ADDS);
        CHECK_EQ_INT(region[B_LOCK], 0);
        for (int r = 1; r < size; r++)
            for (int i = 0; i < 64; i++)
                CHECK_EQ_INT(((unsigned char *)&region[B_SLOTS + 8 * r])[i], pattern(r, 0, i));
    } else {
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t src;
        skf_mr_key_t k0;
        CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), sizeof k0);
        gather(cont, ncont, &k0, sizeof k0);
        skf_recv_done(ch);
        barrier(ctx);
        /* the first op ever to rank 0, the others after it */
        uint64_t prev = atomic_ok(&k0, B_COUNT * 8, SKF_AOP_ADD, 8, 1, 0);
        for (int i = 1; i < B_ADDS; i++) {
            uint64_t o = atomic_ok(&k0, B_COUNT * 8, SKF_AOP_ADD, 8, 1, 0);
            CHECK(o > prev);
            prev = o;
        }
        while (atomic_ok(&k0, B_LOCK * 8, SKF_AOP_CSWAP, 8, (uint64_t)me, 0) != 0)
            ;
        unsigned char slot[64], got[B_PATTERN];
        for (int i = 0; i < 64; i++)
            slot[i] = pattern(me, 0, i);
        CHECK_EQ_INT(skf_put(ch, &k0, (size_t)(B_SLOTS + 8 * me) * 8, slot, sizeof slot), 0);
        CHECK_EQ_INT(skf_get(ch, &k0, pat_off, got, sizeof got), 0);
        for (size_t i = 0; i < B_PATTERN; i++)
            CHECK_EQ_INT(got[i], pattern(0, 1, i));
        CHECK_EQ_INT(atomic_ok(&k0, B_LOCK * 8, SKF_AOP_SET, 8, 0, 0), me);
        atomic_ok(&k0, B_DONE * 8, SKF_AOP_ADD, 8, 1, 0);
    }
    barrier(ctx);
    CHECK_EQ_INT(skf_mr_release(ctx, &key), 0);
    free(region);
}

int main(int argc, char **argv)
{
    skf_ctx_t *ctx;
    CHECK(argc >= 2 && (strcmp(argv[1], "all") == 0 || strcmp(argv[1], "busy") == 0));
    int rounds = argc > 2 ? atoi(argv[2]) : 200;
    CHECK_EQ_INT(skf_init(&ctx), 0);
    me = skf_rank(ctx);
    size = skf_size(ctx);
    testutil_rank = me;
    CHECK_EQ_INT(skf_chan_open(ctx, PORT, &ch), 0);
    CHECK_EQ_INT(skf_chan_open(ctx, PORT + 1, &bar), 0);
    if (strcmp(argv[1], "busy") == 0) {
        busy_owner(ctx);
        CHECK_EQ_INT(skf_chan_close(bar), 0);
        CHECK_EQ_INT(skf_chan_close(ch), 0);
        CHECK_EQ_INT(skf_finalize(ctx), 0);
        if (me == 0)
            printf("atomic_test busy: %d ranks: ok\n", size);
        return 0;
    }

    size_t words = (size_t)(W_SLOTS + 2 * size + ACC_WORDS);
    uint64_t *region = calloc(words, 8);
    skf_mr_key_t mine, *keys = calloc((size_t)size, sizeof *keys);
    CHECK(region && keys);
    CHECK_EQ_INT(skf_mr_expose(ctx, region, words * 8, &mine), 0);
    for (int r = 0; r < size; r++)
        send_all(ch, skf_addr(ctx, r, PORT), &mine, sizeof mine);
    for (int i = 0; i < size; i++) {
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t src;
        skf_mr_key_t k;
        CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), sizeof k);
        gather(cont, ncont, &k, sizeof k);
        CHECK_EQ_INT(k.owner, skf_addr_rank(src));
        keys[k.owner] = k;
        skf_recv_done(ch);
    }

    const skf_mr_key_t *right = &keys[(me + 1) % size];
    ops_table(right);
    errors(right);
    barrier(ctx);
    counter(ctx, &keys[0], rounds);
    lock_test(ctx, &keys[size - 1], rounds / 4 + 1);
    barrier(ctx);
    acc_test(ctx, keys, rounds / 4 + 1);
    barrier(ctx);

    CHECK_EQ_INT(skf_mr_release(ctx, &mine), 0);
    CHECK_EQ_INT(skf_chan_close(bar), 0);
    CHECK_EQ_INT(skf_chan_close(ch), 0);
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    free(region);
    free(keys);
    if (me == 0)
        printf("atomic_test: %d ranks, %d rounds: ok\n", size, rounds);
    return 0;
}
