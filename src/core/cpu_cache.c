/*
 * cpu_cache — the size of one core's L2, read from sysfs, for the shm
 * transport's automatic ring sizes (docs/shm-transport.md, "Ring size").
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/cpu_cache.h"

/* The first line of cpu0's cache leaf `index`, attribute `name`; 0 when absent. */
static int read_attr(int index, const char *name, char *buf, size_t cap)
{
    char path[96];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, name);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    return ok;
}

/* One of cpu0's cache leaves: "size" of a level-2 unified or data cache. */
static uint64_t read_leaf(int index)
{
    char buf[64];
    if (!read_attr(index, "level", buf, sizeof buf) || atoi(buf) != 2 ||
        !read_attr(index, "type", buf, sizeof buf) || buf[0] == 'I' || /* instruction: not ours */
        !read_attr(index, "size", buf, sizeof buf))
        return 0;
    char *end;
    unsigned long long v = strtoull(buf, &end, 10);
    return *end == 'K' ? v << 10 : *end == 'M' ? v << 20 : v;
}

uint64_t skf_l2_bytes(void)
{
    for (int i = 0; i < 8; i++) {
        uint64_t b = read_leaf(i);
        if (b)
            return b;
    }
    return 0;
}

uint64_t skf_pow2_clamp(uint64_t v, uint64_t lo, uint64_t hi)
{
    uint64_t p = lo;
    while (p < hi && p * 2 <= v)
        p *= 2;
    return p;
}
