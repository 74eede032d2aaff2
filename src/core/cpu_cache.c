/*
 * cpu_cache — the size of one core's L2, read from sysfs, for the shm
 * transport's automatic ring sizes (docs/shm-transport.md, "Ring size").
 */
#include <stdio.h>
#include <stdlib.h>

#include "core/cpu_cache.h"

/* One of cpu0's cache leaves: "size" of a level-2 unified or data cache. */
static uint64_t read_leaf(int index)
{
    char path[96], buf[64];
    uint64_t bytes = 0;
    int level = 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (fscanf(f, "%d", &level) != 1)
        level = 0;
    fclose(f);
    if (level != 2)
        return 0;
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", index);
    f = fopen(path, "r");
    if (!f || !fgets(buf, sizeof buf, f) || buf[0] == 'I') { /* an instruction cache: not ours */
        if (f)
            fclose(f);
        return 0;
    }
    fclose(f);
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
    f = fopen(path, "r");
    if (!f)
        return 0;
    if (fgets(buf, sizeof buf, f)) {
        char *end;
        unsigned long long v = strtoull(buf, &end, 10);
        bytes = *end == 'K' ? v << 10 : *end == 'M' ? v << 20 : v;
    }
    fclose(f);
    return bytes;
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
