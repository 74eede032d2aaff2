/* flight.c — puts and non-fetching AMOs that return before their answer
 * (over the channel) still keep OpenSHMEM's ordering:
 *   - many puts (small, staged, large), then quiet, then a flag: the target
 *     that sees the flag sees every byte;
 *   - put, fence, put to the same address: the later value wins; data,
 *     fence, flag: the flag never overtakes the data;
 *   - non-fetching add/inc/and/or/xor/set from every PE at once: the
 *     counters exact after a barrier, mixed with fetching ones;
 *   - put-with-signal: the data is there when the signal is;
 *   - strided iput/iget with odd strides, checked element by element;
 *   - more operations than the flight ring holds between two quiets. */
#include <stdio.h>
#include <stdlib.h>

#include "shtest.h"

#define SMALL 3000       /* 8-byte puts, more than the flight ring's slots */
#define MID (4 << 10)    /* staged on the heap */
#define BIG (200 << 10)  /* above the staging limit: waits for its answer */
#define ROUNDS 3
#define FENCE_ITERS 500
#define AMO_ITERS 300
#define STRIDED 500

int main(void)
{
    test_init();
    int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    long *small = shmem_malloc(SMALL * sizeof(long));
    unsigned char *mid = shmem_malloc(MID), *mid_nbi = shmem_malloc(MID), *big = shmem_malloc(BIG);
    long *flag = shmem_calloc(ROUNDS + 1, sizeof(long));
    long *same = shmem_calloc(1, sizeof(long));
    long *seq = shmem_calloc(2, sizeof(long)); /* [0] data, [1] its flag */
    uint64_t *cnt = shmem_calloc(8, sizeof(uint64_t));
    unsigned int *bits = shmem_calloc(2, sizeof(unsigned int));
    uint64_t *sig = shmem_calloc(1, sizeof(uint64_t));
    long *strided = shmem_calloc(STRIDED * 3, sizeof(long));
    unsigned char *src_mid = malloc(MID), *src_nbi = malloc(MID), *src_big = malloc(BIG);
    CHECK(small && mid && mid_nbi && big && flag && same && seq && cnt && bits && sig && strided &&
          src_mid && src_nbi && src_big);
    shmem_barrier_all();

    /* 1. many puts, quiet, flag (no barrier between): all landed */
    for (int r = 0; r < ROUNDS; r++) {
        for (long i = 0; i < SMALL; i++)
            shmem_long_p(&small[i], me * 1000000L + r * 10000L + i, right);
        fill(src_mid, MID, me, r);
        shmem_putmem(mid, src_mid, MID, right);
        memset(src_mid, 0xEE, MID); /* the put copied it: reuse is allowed at return */
        fill(src_nbi, MID, me, r + 100);
        shmem_putmem_nbi(mid_nbi, src_nbi, MID, right); /* sent from src_nbi: kept until quiet */
        fill(src_big, BIG, me, r);
        shmem_putmem(big, src_big, BIG, right);
        shmem_quiet();
        memset(src_nbi, 0xEE, MID); /* complete: reuse is allowed now */
        shmem_long_p(&flag[r], 1, right);
        shmem_long_wait_until(&flag[r], SHMEM_CMP_EQ, 1);
        for (long i = 0; i < SMALL; i++)
            CHECK_EQ_INT(small[i], left * 1000000L + r * 10000L + i);
        CHECK_PATTERN(mid, MID, left, r);
        CHECK_PATTERN(mid_nbi, MID, left, r + 100);
        CHECK_PATTERN(big, BIG, left, r);
        shmem_barrier_all(); /* nobody overwrites before its target has looked */
    }

    /* 2. fence: same address, the last value wins; data before flag */
    for (long i = 1; i <= FENCE_ITERS; i++) {
        shmem_long_p(same, me * 100000L + i, right);
        shmem_fence();
    }
    shmem_long_p(&seq[0], 4242 + me, right);
    shmem_fence();
    shmem_long_p(&seq[1], 1, right);
    shmem_long_wait_until(&seq[1], SHMEM_CMP_EQ, 1);
    CHECK_EQ_INT(seq[0], 4242 + left);
    shmem_barrier_all();
    CHECK_EQ_INT(*same, left * 100000L + FENCE_ITERS);

    /* 3. non-fetching AMOs from every PE on every PE, mixed with fetching ones */
    for (int k = 0; k < AMO_ITERS; k++)
        for (int pe = 0; pe < npes; pe++) {
            shmem_uint64_atomic_add(&cnt[0], 3, pe);
            shmem_uint64_atomic_inc(&cnt[1], pe);
            if (k % 7 == 0)
                (void)shmem_uint64_atomic_fetch_add(&cnt[2], 5, pe);
            else
                shmem_uint64_atomic_add(&cnt[2], 5, pe);
        }
    for (int pe = 0; pe < npes; pe++) {
        shmem_uint_atomic_or(&bits[0], 1u << (me % 32), pe);
        shmem_uint_atomic_xor(&bits[1], 1u << (me % 32), pe);
        shmem_uint_atomic_xor(&bits[1], 1u << (me % 32), pe); /* twice: back to 0 */
        shmem_uint64_atomic_set(&cnt[3 + (pe == me)], 77, pe);
    }
    shmem_barrier_all();
    CHECK_EQ_INT(cnt[0], (uint64_t)npes * AMO_ITERS * 3);
    CHECK_EQ_INT(cnt[1], (uint64_t)npes * AMO_ITERS);
    CHECK_EQ_INT(cnt[2], (uint64_t)npes * AMO_ITERS * 5);
    unsigned want = 0;
    for (int pe = 0; pe < npes; pe++)
        want |= 1u << (pe % 32);
    CHECK_EQ_INT(bits[0], want);
    CHECK_EQ_INT(bits[1], 0);
    CHECK_EQ_INT(cnt[4], 77);
    CHECK_EQ_INT(cnt[3], npes > 1 ? 77 : 0);
    /* and: clear my bit everywhere; the word holds nobody's bit after */
    shmem_barrier_all(); /* everybody has looked */
    for (int pe = 0; pe < npes; pe++)
        shmem_uint_atomic_and(&bits[0], ~(1u << (me % 32)), pe);
    shmem_barrier_all();
    CHECK_EQ_INT(bits[0], 0);

    /* 4. put-with-signal: data there when the signal is */
    fill(src_mid, MID, me, 7);
    shmem_putmem_signal_nbi(mid, src_mid, MID, sig, 1, SHMEM_SIGNAL_ADD, right);
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 1);
    CHECK_PATTERN(mid, MID, left, 7);
    shmem_barrier_all();

    /* 5. strided: iput every 3rd element from every 2nd source, iget back */
    long *src = malloc(STRIDED * 2 * sizeof(long)), *back = calloc(STRIDED * 5, sizeof(long));
    CHECK(src && back);
    for (long i = 0; i < STRIDED * 2; i++)
        src[i] = me * 1000000L + i;
    shmem_long_iput(strided, src, 3, 2, STRIDED, right);
    shmem_barrier_all();
    for (long i = 0; i < STRIDED * 3; i++)
        CHECK_EQ_INT(strided[i], i % 3 == 0 ? left * 1000000L + (i / 3) * 2 : 0);
    shmem_long_iget(back, strided, 5, 3, STRIDED, right);
    for (long i = 0; i < STRIDED * 5; i++)
        CHECK_EQ_INT(back[i], i % 5 == 0 ? me * 1000000L + (i / 5) * 2 : 0);
    shmem_barrier_all();

    free(src);
    free(back);
    free(src_mid);
    free(src_nbi);
    free(src_big);
    shmem_free(strided);
    shmem_free(sig);
    shmem_free(bits);
    shmem_free(cnt);
    shmem_free(seq);
    shmem_free(same);
    shmem_free(flag);
    shmem_free(big);
    shmem_free(mid);
    shmem_free(mid_nbi);
    shmem_free(small);
    if (me == 0)
        printf("flight: %d PEs: every check passed\n", npes);
    shmem_finalize();
    return 0;
}
