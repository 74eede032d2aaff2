/*
 * copy_test — skf_copy (src/core/copy.h) against a byte-by-byte reference:
 * every source and destination offset within a cache line, sizes around the
 * vector threshold and odd tails, guard bytes on both sides of the
 * destination.  "auto": on a CPU with AVX2 the vector loop must be in use;
 * "libc" (run with SKIFF_COPY=libc): it must not be.  Also skf_copy_to_ring,
 * which picks ordinary or streaming stores for big pieces: its picker is run
 * through both kinds (and a pick forced to each), bytes checked the same way;
 * "stream" (SKIFF_COPY=stream): streaming must be forced on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/copy.h"
#include "testutil.h"

#define GUARD 64
#define FAIL(...)                                                                        \
    do {                                                                                 \
        fprintf(stderr, "copy_test: " __VA_ARGS__);                                      \
        fputc('\n', stderr);                                                             \
        exit(1);                                                                         \
    } while (0)

static void check_one(void (*copy)(void *, const void *, size_t), size_t n, int so, int dof,
                      unsigned char *src, unsigned char *dst)
{
    for (size_t i = 0; i < n; i++)
        src[so + i] = (unsigned char)(i * 131 + (size_t)so * 7 + 1);
    memset(dst, 0xA5, n + 64 + 2 * GUARD);
    copy(dst + GUARD + dof, src + so, n);
    for (int i = 0; i < GUARD + dof; i++)
        if (dst[i] != 0xA5)
            FAIL("copy of %zu bytes (src +%d, dst +%d) wrote %d bytes before the destination", n,
                 so, dof, GUARD + dof - i);
    if (memcmp(dst + GUARD + dof, src + so, n) != 0)
        FAIL("copy of %zu bytes (src +%d, dst +%d): wrong bytes", n, so, dof);
    for (size_t i = GUARD + (size_t)dof + n; i < n + 64 + 2 * GUARD; i++)
        if (dst[i] != 0xA5)
            FAIL("copy of %zu bytes (src +%d, dst +%d) wrote past the destination", n, so, dof);
}

static void copy_inline(void *d, const void *s, size_t n) { skf_copy(d, s, n); }

/* The picker: a fresh one tries both kinds on its first two big copies,
 * and every SKF_COPY_PICK_PROBE-th copy takes the other kind. */
static struct skf_copy_pick pick;
static void copy_picked(void *d, const void *s, size_t n) { skf_copy_to_ring(&pick, d, s, n); }

int main(int argc, char **argv)
{
    const char *expect = argc > 1 ? argv[1] : "auto";
    skf_copy_init();
    if (strcmp(expect, "libc") == 0)
        CHECK_EQ_INT(skf_copy_skewed_ok, 0);
#if defined(__x86_64__) && defined(__GNUC__)
    else if (__builtin_cpu_supports("avx2")) /* the vector loop is for AMD's skew cliff only */
        CHECK_EQ_INT(skf_copy_skewed_ok, __builtin_cpu_is("amd") ? 1 : 0);
    if (strcmp(expect, "stream") == 0 && __builtin_cpu_supports("avx2"))
        CHECK_EQ_INT(skf_copy_stream_mode, SKF_COPY_STREAM_ALWAYS);
    if (strcmp(expect, "auto") == 0 && __builtin_cpu_supports("avx2"))
        CHECK_EQ_INT(skf_copy_stream_mode, SKF_COPY_STREAM_AUTO);
#endif
    static const size_t sizes[] = {0, 1, 31, 32, 33, 2047, 2048, 2049, 2079, 4096, 4097, 8191,
                                   8192 + 13, 65536 + 7, 262144 + 63};
    size_t max = 262144 + 63;
    size_t room = (max + 64 + 2 * GUARD + 63) & ~(size_t)63; /* aligned_alloc: a multiple */
    unsigned char *src = aligned_alloc(64, room), *dst = aligned_alloc(64, room);
    CHECK(src && dst);
    int cases = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int so = 0; so < 64; so += (sizes[k] > 8192 ? 8 : 1))
            for (int dof = 0; dof < 64; dof += (sizes[k] > 65536 ? 8 : 1)) {
                check_one(copy_inline, sizes[k], so, dof, src, dst);
                if (sizes[k] >= SKF_COPY_SKEW_MIN)
                    check_one(skf_copy_skewed, sizes[k], so, dof, src, dst);
                for (int kind = 0; kind < 3; kind++) { /* picker's own choice, forced ordinary, forced streaming */
                    if (kind)
                        pick.stream = (uint8_t)(kind - 1), pick.count = 1;
                    check_one(copy_picked, sizes[k], so, dof, src, dst);
                }
                cases++;
            }
    /* cldemote is a hint (a no-op where the core lacks it): ranges that start
     * and end inside lines must leave every byte as it was */
    for (size_t i = 0; i < 4096 + 200; i++)
        src[i] = (unsigned char)(i * 7);
    skf_demote(src + 3, 4096 + 100);
    skf_demote(src + 64, 1);
    skf_demote(src, 0);
    for (size_t i = 0; i < 4096 + 200; i++)
        if (src[i] != (unsigned char)(i * 7))
            FAIL("skf_demote changed byte %zu", i);
    if (skf_copy_stream_mode == SKF_COPY_STREAM_AUTO) /* both kinds were timed */
        CHECK(pick.ticks_per_kib[0] > 0 && pick.ticks_per_kib[1] > 0);
    printf("copy_test: %d cases (%s, vector loop %s, streaming %s)\n", cases, expect,
           skf_copy_skewed_ok ? "on" : "off",
           skf_copy_stream_mode == SKF_COPY_STREAM_AUTO     ? "picked"
           : skf_copy_stream_mode == SKF_COPY_STREAM_ALWAYS ? "always"
                                                            : "never");
    free(src);
    free(dst);
    return 0;
}
