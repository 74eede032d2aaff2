/* Helpers shared by the channel tests: blocking send/receive loops on top of
 * the non-blocking calls, a byte pattern, and /dev/shm leftover checks. */
#ifndef SKIFF_SKFTEST_H
#define SKIFF_SKFTEST_H

#include <dirent.h>
#include <errno.h>
#include <string.h>

#include "skiff.h"
#include "testutil.h"

/* Byte off of the stream src -> dst: depends on all three, so a byte from
 * the wrong sender, the wrong place or out of order is caught. */
static inline unsigned char pattern(int src, int dst, unsigned long long off)
{
    return (unsigned char)(src * 131 + dst * 31 + off * 7 + (off >> 9) + (off >> 17));
}

/* Send all of buf as one or more messages, waiting for room.  len 0 sends
 * one empty message (loop until a send succeeded, not while bytes remain). */
static inline void send_all(skf_chan_t *ch, skf_addr_t dst, const void *buf, size_t len)
{
    size_t done = 0;
    for (;;) {
        struct iovec iov = {(char *)buf + done, len - done};
        ssize_t n = skf_send(ch, dst, &iov, 1);
        if (n == -EAGAIN) {
            int r = skf_wait(ch, SKF_WRITABLE, -1);
            CHECK(r >= 0);
            continue;
        }
        CHECK(n >= 0);
        done += (size_t)n;
        if (done >= len)
            return;
    }
}

/* Receive one message (blocking); returns its length. */
static inline ssize_t recv_wait(skf_chan_t *ch, struct iovec *cont, int *ncont, skf_addr_t *src)
{
    for (;;) {
        ssize_t n = skf_recv(ch, cont, ncont, src);
        if (n != -EAGAIN)
            return n;
        int r = skf_wait(ch, SKF_READABLE, -1);
        CHECK(r >= 0);
    }
}

/* Copy a received message out of its pieces. */
static inline size_t gather(const struct iovec *cont, int ncont, void *out, size_t cap)
{
    size_t n = 0;
    for (int i = 0; i < ncont; i++) {
        CHECK(n + cont[i].iov_len <= cap);
        memcpy((char *)out + n, cont[i].iov_base, cont[i].iov_len);
        n += cont[i].iov_len;
    }
    return n;
}

/* Number of /dev/shm entries whose name starts with prefix and contains
 * part (NULL: anything). */
static inline int shm_entries_with(const char *prefix, const char *part)
{
    DIR *d = opendir("/dev/shm");
    int n = 0;
    struct dirent *e;
    if (!d)
        return 0;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0 && (!part || strstr(e->d_name, part))) {
            fprintf(stderr, "left in /dev/shm: %s\n", e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

static inline int shm_entries(const char *prefix) { return shm_entries_with(prefix, NULL); }

#endif
