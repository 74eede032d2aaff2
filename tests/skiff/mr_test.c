/*
 * mr_test — one-sided get/put on exposed regions, by CMA or (SKIFF_CMA=0)
 * through the copy pipeline on the internal port.
 *
 *   mr_test cma|fallback
 * Every rank exposes a 1 MiB region and sends its key to every rank.  Each
 * rank reads ranges of its right neighbour's region (whole, unaligned, empty)
 * and checks the bytes, writes its own slot of the region of the rank two to
 * its right, and tells that rank; each rank then checks the bytes written
 * into its slot.  Out-of-range requests give -EINVAL; in fallback mode a
 * released key is refused by its owner.  The mode the test asked for must be
 * the one in use (skf_info_get).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/info.h"
#include "skftest.h"

#define PORT 16
#define REGION (1u << 20)
#define SLOT 4096

int main(int argc, char **argv)
{
    skf_ctx_t *ctx;
    skf_chan_t *ch, *ctl; /* keys travel on ch, "put"/"end" notes on ctl */
    CHECK(argc == 2);
    int want_cma = strcmp(argv[1], "cma") == 0;
    CHECK_EQ_INT(skf_init(&ctx), 0);
    int me = skf_rank(ctx), size = skf_size(ctx);
    testutil_rank = me;
    struct skf_info info;
    CHECK_EQ_INT(skf_info_get(ctx, &info), 0);
    CHECK_EQ_INT(info.cma_usable, want_cma);
    CHECK_EQ_INT(info.fallback_active, !want_cma);
    CHECK_EQ_INT(skf_chan_open(ctx, PORT, &ch), 0);
    CHECK_EQ_INT(skf_chan_open(ctx, PORT + 1, &ctl), 0);

    /* region: read by gets; inbox: written by puts. */
    unsigned char *region = malloc(REGION), *inbox = calloc(1, REGION), *got = malloc(REGION);
    CHECK(region && inbox && got);
    for (unsigned i = 0; i < REGION; i++)
        region[i] = pattern(me, 0, i);
    skf_mr_key_t mine[2], bad, *keys = calloc((size_t)size * 2, sizeof *keys);
    CHECK_EQ_INT(skf_mr_expose(ctx, region, REGION, &mine[0]), 0);
    CHECK_EQ_INT(skf_mr_expose(ctx, inbox, REGION, &mine[1]), 0);
    CHECK_EQ_INT(mine[0].owner, me);
    CHECK(mine[0].cookie != mine[1].cookie);
    CHECK_EQ_INT(skf_mr_expose(ctx, NULL, 10, &bad), -EINVAL);

    /* Everybody learns everybody's keys. */
    for (int r = 0; r < size; r++)
        send_all(ch, skf_addr(ctx, r, PORT), mine, sizeof mine);
    for (int i = 0; i < size; i++) {
        struct iovec cont[SKF_CONT_SIZE];
        int ncont;
        skf_addr_t src;
        skf_mr_key_t k[2];
        CHECK_EQ_INT(recv_wait(ch, cont, &ncont, &src), sizeof k);
        gather(cont, ncont, k, sizeof k);
        CHECK_EQ_INT(k[0].owner, skf_addr_rank(src));
        keys[2 * k[0].owner] = k[0];
        keys[2 * k[0].owner + 1] = k[1];
        skf_recv_done(ch);
    }

    /* get: whole region, unaligned pieces, nothing; and bad ranges. */
    int right = (me + 1) % size;
    const skf_mr_key_t *kr = &keys[2 * right];
    CHECK_EQ_INT(skf_get(ch, kr, 0, got, REGION), 0);
    for (unsigned i = 0; i < REGION; i++)
        if (got[i] != pattern(right, 0, i))
            CHECK(!"get: wrong byte");
    for (size_t off = 1; off < REGION; off = off * 3 + 7) {
        size_t len = (REGION - off) / 2 + 1;
        CHECK_EQ_INT(skf_get(ch, kr, off, got, len), 0);
        for (size_t i = 0; i < len; i++)
            if (got[i] != pattern(right, 0, off + i))
                CHECK(!"get: wrong byte in a range");
    }
    CHECK_EQ_INT(skf_get(ch, kr, 5, got, 0), 0);
    CHECK_EQ_INT(skf_get(ch, kr, REGION, got, 1), -EINVAL);
    CHECK_EQ_INT(skf_get(ch, kr, 1, got, REGION), -EINVAL);
    CHECK_EQ_INT(skf_get(ch, kr, (size_t)-1, got, 2), -EINVAL);
    CHECK_EQ_INT(skf_get(ch, NULL, 0, got, 1), -EINVAL);
    CHECK_EQ_INT(skf_put(ch, kr, 0, NULL, 1), -EINVAL);

    /* put: my slot of the region two to my right, then tell its owner. */
    int target = (me + 2) % size, writer = (me + size - 2) % size;
    unsigned char slot[SLOT];
    for (unsigned i = 0; i < SLOT; i++)
        slot[i] = pattern(me, target, i);
    CHECK_EQ_INT(skf_put(ch, &keys[2 * target + 1], (size_t)me * SLOT + 3, slot + 3, SLOT - 3), 0);
    send_all(ctl, skf_addr(ctx, target, PORT + 1), "put", 3);
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    int ends = 0; /* "end" of fast ranks may come before my "put" */
    for (;;) {
        char msg[3];
        CHECK_EQ_INT(recv_wait(ctl, cont, &ncont, &src), 3); /* keeps serving meanwhile */
        gather(cont, ncont, msg, 3);
        skf_recv_done(ctl);
        if (!memcmp(msg, "end", 3)) {
            ends++;
            continue;
        }
        CHECK(!memcmp(msg, "put", 3));
        CHECK_EQ_INT(skf_addr_rank(src), writer);
        break;
    }
    for (unsigned i = 3; i < SLOT; i++)
        CHECK_EQ_INT(inbox[(size_t)writer * SLOT + i], pattern(writer, me, i));
    CHECK_EQ_INT(inbox[(size_t)writer * SLOT + 2], 0);

    /* A key with a wrong cookie: in fallback mode the owner refuses it (CMA
     * cannot tell: it reads the address). */
    if (!want_cma && size > 1) {
        skf_mr_key_t forged = *kr;
        forged.cookie ^= 0x5a5a;
        CHECK_EQ_INT(skf_get(ch, &forged, 0, got, 8), -EINVAL);
    }
    /* Nobody closes before everybody finished serving the others. */
    for (int r = 0; r < size; r++)
        send_all(ctl, skf_addr(ctx, r, PORT + 1), "end", 3);
    for (int i = ends; i < size; i++) {
        CHECK_EQ_INT(recv_wait(ctl, cont, &ncont, &src), 3);
        skf_recv_done(ctl);
    }
    /* Released keys are refused by their owner. */
    skf_mr_key_t old = mine[0];
    CHECK_EQ_INT(skf_mr_release(ctx, &mine[0]), 0);
    CHECK_EQ_INT(skf_mr_release(ctx, &old), -EINVAL);
    CHECK_EQ_INT(skf_get(ch, &old, 0, got, 8), -EINVAL);
    CHECK_EQ_INT(skf_mr_release(ctx, &mine[1]), 0);
    CHECK_EQ_INT(skf_chan_close(ctl), 0);
    CHECK_EQ_INT(skf_chan_close(ch), 0);
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    printf("mr_test rank %d: ok (%s)\n", me, want_cma ? "CMA" : "fallback");
    free(region);
    free(inbox);
    free(got);
    free(keys);
    return 0;
}
