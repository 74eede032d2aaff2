/* chan_kick_test — skf_kick ends a skf_wait that has nothing to wait for.
 *
 * Every rank waits forever (timeout -1) for a message nobody has sent while
 * a thread of its own kicks the channel; the wait must return 0.  Then a
 * ring of messages on both ports (the second opened after every rank's
 * kicked waits: the open is collective) checks delivery, bytes compared.
 * Over shm,ofi the wait is skf_wait's polling of several transports (ofi
 * moves data only while polled), whose end a kick must reach too; a kick
 * that is lost leaves the rank waiting until the test's timeout. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "skftest.h"

static void *kicker(void *arg)
{
    struct timespec ts = {0, 50 * 1000 * 1000};
    nanosleep(&ts, NULL);
    skf_kick(arg);
    return NULL;
}

/* rank r sends 1000 bytes of pattern to r + 1 and checks what r - 1 sent */
static void ring(skf_ctx_t *ctx, skf_chan_t *ch, uint16_t port, int me, int n)
{
    unsigned char out[1000], in[1000];
    for (int i = 0; i < (int)sizeof out; i++)
        out[i] = pattern(me, (me + 1) % n, (unsigned long long)i);
    send_all(ch, skf_addr(ctx, (me + 1) % n, port), out, sizeof out);
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    ssize_t len = recv_wait(ch, cont, &ncont, &src);
    CHECK_EQ_INT((int)len, (int)sizeof in);
    CHECK_EQ_INT((int)gather(cont, ncont, in, sizeof in), (int)sizeof in);
    int from = (me + n - 1) % n;
    for (int i = 0; i < (int)sizeof in; i++)
        CHECK_EQ_INT(in[i], pattern(from, me, (unsigned long long)i));
    CHECK_EQ_INT(skf_recv_done(ch), 0);
}

int main(void)
{
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    CHECK_EQ_INT(skf_init(&ctx), 0);
    testutil_rank = skf_rank(ctx);
    int me = skf_rank(ctx), n = skf_size(ctx);
    CHECK_EQ_INT(skf_chan_open(ctx, 16, &ch), 0);
    for (int round = 0; round < 3; round++) {
        pthread_t th;
        CHECK_EQ_INT(pthread_create(&th, NULL, kicker, ch), 0);
        CHECK_EQ_INT(skf_wait(ch, SKF_READABLE, -1), 0);
        CHECK_EQ_INT(pthread_join(th, NULL), 0);
    }
    skf_chan_t *ch2;
    CHECK_EQ_INT(skf_chan_open(ctx, 17, &ch2), 0);
    ring(ctx, ch2, 17, me, n);
    ring(ctx, ch, 16, me, n);
    CHECK_EQ_INT(skf_chan_close(ch2), 0);
    CHECK_EQ_INT(skf_chan_close(ch), 0);
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    printf("chan_kick rank %d: ok\n", me);
    return 0;
}
