/*
 * peer_death_test — ranks blocked on a peer that gets SIGKILLed see -EPIPE.
 *
 * skiffrun and hydra end the whole job as soon as a rank dies, which would
 * race with (and hide) what the survivors see.  So this test is its own
 * launcher (minipmi.h: a PMI-1 server that keeps the survivors running and
 * lets barriers complete without the dead) and starts 3 ranks:
 *   rank 1 fills its ring at rank 2 (rank 2 never reads port 16) until
 *          -EAGAIN, reports "full" to rank 0, then blocks in
 *          skf_wait(SKF_WRITABLE) and must get -EPIPE, then keeps retrying
 *          skf_send and must get -EPIPE too;
 *   rank 0 tells rank 2 (on port 17) to die, then blocks in
 *          skf_wait(SKF_READABLE) on port 16 and must get -EPIPE;
 *   rank 2 SIGKILLs itself when told.
 * One-sided too: rank 2 exposes a word and sends rank 0 the key; rank 0 reads
 * it with skf_atomic before the death (over tcp: the first op, which opens
 * the one-sided connection) and after it gets -EPIPE from skf_atomic and
 * skf_get.
 * The survivors then close and finalize normally; the test passes when ranks
 * 0 and 1 exit 0, rank 2 died of SIGKILL, and no /dev/shm object of the job
 * is left.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "minipmi.h"
#include "shm_name.h"
#include "skftest.h"

static int child(void)
{
    skf_ctx_t *ctx;
    skf_chan_t *data, *ctl;
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t src;
    CHECK_EQ_INT(skf_init(&ctx), 0);
    int me = skf_rank(ctx);
    testutil_rank = me;
    CHECK_EQ_INT(skf_size(ctx), 3);
    CHECK_EQ_INT(skf_chan_open(ctx, 16, &data), 0);
    CHECK_EQ_INT(skf_chan_open(ctx, 17, &ctl), 0);
    if (me == 2) {
        static uint64_t word = 42;
        skf_mr_key_t key;
        CHECK_EQ_INT(skf_mr_expose(ctx, &word, sizeof word, &key), 0);
        send_all(ctl, skf_addr(ctx, 0, 17), &key, sizeof key);
        CHECK_EQ_INT(recv_wait(ctl, cont, &ncont, &src), 3); /* "die" */
        kill(getpid(), SIGKILL);
        pause();
    }
    if (me == 1) {
        char buf[1000];
        memset(buf, 1, sizeof buf);
        struct iovec iov = {buf, sizeof buf};
        ssize_t n;
        while ((n = skf_send(data, skf_addr(ctx, 2, 16), &iov, 1)) > 0)
            ;
        CHECK_EQ_INT(n, -EAGAIN);
        send_all(ctl, skf_addr(ctx, 0, 17), "full", 4);
        /* Over tcp (SKIFF_TRANSPORTS=tcp) the kernel and rank 2's receive
         * ring may still take bytes after the first -EAGAIN: fill again. */
        int r;
        while ((r = skf_wait(data, SKF_WRITABLE, -1)) == SKF_WRITABLE) {
            while ((n = skf_send(data, skf_addr(ctx, 2, 16), &iov, 1)) > 0)
                ;
            if (n == -EPIPE) /* tcp saw the reset while sending */
                break;
        }
        CHECK(r == -EPIPE || n == -EPIPE);
        long tries = 0;
        while ((n = skf_send(data, skf_addr(ctx, 2, 16), &iov, 1)) == -EAGAIN)
            tries++;
        CHECK_EQ_INT(n, -EPIPE);
        printf("rank 1: -EPIPE in skf_wait(WRITABLE) and after %ld send retries\n", tries);
    }
    if (me == 0) {
        skf_mr_key_t key;
        for (int i = 0; i < 2; i++) { /* "full" from rank 1, the key from rank 2 */
            ssize_t n = recv_wait(ctl, cont, &ncont, &src);
            CHECK(n == 4 || n == sizeof key);
            if (n == sizeof key)
                gather(cont, ncont, &key, sizeof key);
            skf_recv_done(ctl);
        }
        uint64_t old = 0;
        CHECK_EQ_INT(skf_atomic(data, &key, 0, SKF_AOP_FETCH, 8, 0, 0, &old), 0);
        CHECK_EQ_INT(old, 42);
        send_all(ctl, skf_addr(ctx, 2, 17), "die", 3);
        CHECK_EQ_INT(skf_wait(data, SKF_READABLE, -1), -EPIPE);
        printf("rank 0: -EPIPE in skf_wait(READABLE)\n");
        CHECK_EQ_INT(skf_atomic(data, &key, 0, SKF_AOP_ADD, 8, 1, 0, &old), -EPIPE);
        CHECK_EQ_INT(skf_get(data, &key, 0, &old, sizeof old), -EPIPE);
        printf("rank 0: -EPIPE from skf_atomic and skf_get on the dead owner\n");
    }
    CHECK_EQ_INT(skf_chan_close(ctl), 0);
    CHECK_EQ_INT(skf_chan_close(data), 0);
    CHECK_EQ_INT(skf_finalize(ctx), 0);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--child"))
        return child();
    unsigned char raw[8];
    char key[17], prefix[64];
    int status[3];
    CHECK_EQ_INT(getrandom(raw, sizeof raw, 0), sizeof raw);
    for (int i = 0; i < 8; i++)
        sprintf(key + 2 * i, "%02x", raw[i]);
    char *args[] = {argv[0], "--child", NULL};
    CHECK_EQ_INT(minipmi_run(3, args, key, status), 0);
    CHECK(WIFEXITED(status[0]) && WEXITSTATUS(status[0]) == 0);
    CHECK(WIFEXITED(status[1]) && WEXITSTATUS(status[1]) == 0);
    CHECK(WIFSIGNALED(status[2]) && WTERMSIG(status[2]) == SIGKILL);
    char tag[SHM_TAG_HEX + 1];
    CHECK_EQ_INT(shm_name_tag(key, tag), 0);
    snprintf(prefix, sizeof prefix, "skiff-%s-", tag);
    CHECK_EQ_INT(shm_entries(prefix), 0);
    printf("peer_death_test: ok\n");
    return 0;
}
