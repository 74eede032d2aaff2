/*
 * skf_hello — the channel layer (skiff.h) in one page: every rank sends a
 * greeting to its right neighbour and prints the one from its left, then
 * reads a word of the left neighbour's memory with one-sided skf_get.
 *
 *   build/bin/skiffrun -n 4 build/bin/skf_hello      (also runs alone)
 */
#include <errno.h>
#include <skiff.h>
#include <stdio.h>
#include <string.h>

#define PORT (SKF_PORT_USER + 0)

/* skf_send may take fewer bytes than offered and returns -EAGAIN when the
 * receiver's ring is full: loop, and wait instead of spinning. */
static int send_all(skf_chan_t *ch, skf_addr_t to, const void *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        struct iovec iov = {(char *)buf + done, len - done};
        ssize_t n = skf_send(ch, to, &iov, 1);
        if (n == -EAGAIN)
            n = skf_wait(ch, SKF_WRITABLE, -1) < 0 ? -EPIPE : 0;
        if (n < 0)
            return (int)n;
        done += (size_t)n;
    }
    return 0;
}

/* One message, copied out of Skiff's ring (it may come in two pieces). */
static ssize_t recv_one(skf_chan_t *ch, void *buf, size_t cap, skf_addr_t *from)
{
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    ssize_t n;
    while ((n = skf_recv(ch, cont, &ncont, from)) == -EAGAIN)
        if (skf_wait(ch, SKF_READABLE, -1) < 0)
            return -EPIPE;
    if (n < 0)
        return n;
    size_t got = 0;
    for (int i = 0; i < ncont; i++) {
        size_t c = cont[i].iov_len < cap - got ? cont[i].iov_len : cap - got;
        memcpy((char *)buf + got, cont[i].iov_base, c);
        got += c;
    }
    skf_recv_done(ch); /* hand the ring space back */
    return (ssize_t)got;
}

int main(void)
{
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    int rc;
    if ((rc = skf_init(&ctx)) || (rc = skf_chan_open(ctx, PORT, &ch))) {
        fprintf(stderr, "skf_hello: %s\n", skf_strerror(rc));
        return 1;
    }
    int me = skf_rank(ctx), size = skf_size(ctx);
    skf_addr_t right = skf_addr(ctx, (me + 1) % size, PORT);

    /* Two-sided: a greeting to the right, one from the left. */
    char msg[64], got[64] = "";
    skf_addr_t from;
    snprintf(msg, sizeof msg, "hello from rank %d", me);
    if ((rc = send_all(ch, right, msg, strlen(msg) + 1)) ||
        (rc = (int)recv_one(ch, got, sizeof got, &from)) < 0) {
        fprintf(stderr, "skf_hello: %s\n", skf_strerror(rc));
        return 1;
    }
    printf("rank %d of %d got \"%s\" (from rank %d)\n", me, size, got, skf_addr_rank(from));

    /* One-sided: expose a word, pass its key right, read the left one's. */
    long word = 1000 + me, theirs = 0;
    skf_mr_key_t key, left_key;
    char note[sizeof left_key];
    int right_done = 0; /* order holds per sender only: "done" may come first */
    skf_mr_expose(ctx, &word, sizeof word, &key);
    send_all(ch, right, &key, sizeof key);
    while (recv_one(ch, note, sizeof note, NULL) != sizeof left_key)
        right_done = 1;
    memcpy(&left_key, note, sizeof left_key);
    if ((rc = skf_get(ch, &left_key, 0, &theirs, sizeof theirs)) == 0)
        printf("rank %d read %ld from rank %d's memory\n", me, theirs, left_key.owner);
    /* Nobody releases its word before its right neighbour has read it. */
    send_all(ch, skf_addr(ctx, left_key.owner, PORT), "done", 5);
    if (!right_done)
        recv_one(ch, got, sizeof got, NULL);
    skf_mr_release(ctx, &key);

    skf_chan_close(ch); /* collective, like skf_chan_open */
    skf_finalize(ctx);
    return rc == 0 && theirs == 1000 + left_key.owner ? 0 : 1;
}
