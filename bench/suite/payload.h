/*
 * payload.h — the suite's "fresh payload" discipline, free of any MPI or Skiff
 * header so every benchmark program (MPI or raw channel) shares it.
 *
 * The sender writes one 8-byte stamp at the start of every 64-byte line before
 * each send, so every line is dirty in the sender's cache as with real data (an
 * OSU-style buffer that is never written can stay cached on both cores and
 * flatters 16 KiB-1 MiB results by 2-3x, see docs/benchmarks.md).  The
 * receiver checks the first and the last line.
 */
#ifndef SUITE_PAYLOAD_H
#define SUITE_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define PAYLOAD_LINE 64

static inline void payload_stamp(void *buf, size_t size, uint64_t stamp)
{
    char *b = buf;
    for (size_t off = 0; off < size; off += PAYLOAD_LINE)
        memcpy(b + off, &stamp, size - off < 8 ? size - off : 8);
}

/* Offset of the first line whose stamp is wrong (first and last line are
 * looked at), or -1 when both carry `stamp`. */
static inline long payload_mismatch(const void *buf, size_t size, uint64_t stamp)
{
    if (size == 0)
        return -1;
    const char *b = buf;
    size_t offs[2] = {0, (size - 1) / PAYLOAD_LINE * PAYLOAD_LINE};
    for (int k = 0; k < 2; k++) {
        size_t n = size - offs[k] < 8 ? size - offs[k] : 8;
        if (memcmp(b + offs[k], &stamp, n) != 0)
            return (long)offs[k];
    }
    return -1;
}

#endif
