#ifndef SKIFF_CORE_CPU_CACHE_H
#define SKIFF_CORE_CPU_CACHE_H
#include <stdint.h>

/* Bytes of one core's L2 (data or unified) as sysfs reports it for cpu0; 0 when unknown. */
uint64_t skf_l2_bytes(void);

/* The largest power of two in [lo, hi] that is <= v (lo when v < lo); lo and hi powers of two. */
uint64_t skf_pow2_clamp(uint64_t v, uint64_t lo, uint64_t hi);

#endif
