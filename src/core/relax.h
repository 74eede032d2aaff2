/* relax.h — the CPU's spin-wait hint, for polling loops (shm transport, SHMEM waits). */
#ifndef SKIFF_RELAX_H
#define SKIFF_RELAX_H

static inline void skf_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
