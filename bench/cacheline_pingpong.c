/*
 * cacheline_pingpong — the hardware floor for a one-way message between two
 * cores: two processes pinned to CPU0 and CPU1 bounce a counter through two
 * 64-bit atomic flags on separate cache lines of a shared page.
 *
 *   cacheline_pingpong [round_trips] [trials]
 * Prints "cacheline_pingpong,8,<median half round trip>,ns" plus one line per
 * trial on stderr.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct flags {
    _Alignas(64) _Atomic uint64_t ping;
    _Alignas(64) _Atomic uint64_t pong;
};

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int trials = argc > 2 ? atoi(argv[2]) : 5;
    struct flags *f = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (f == MAP_FAILED)
        return 1;
    uint64_t total = (uint64_t)n * (uint64_t)trials;
    pid_t child = fork();
    if (child == 0) { /* echo every ping back */
        pin(1);
        for (uint64_t i = 1; i <= total; i++) {
            while (atomic_load_explicit(&f->ping, memory_order_acquire) != i)
                __builtin_ia32_pause();
            atomic_store_explicit(&f->pong, i, memory_order_release);
        }
        _exit(0);
    }
    pin(0);
    double *half = malloc(sizeof(double) * (size_t)trials);
    uint64_t k = 0;
    for (int t = 0; t < trials; t++) {
        double t0 = now();
        for (long i = 0; i < n; i++) {
            k++;
            atomic_store_explicit(&f->ping, k, memory_order_release);
            while (atomic_load_explicit(&f->pong, memory_order_acquire) != k)
                __builtin_ia32_pause();
        }
        half[t] = (now() - t0) * 1e9 / (2.0 * (double)n);
        fprintf(stderr, "trial %d: %.1f ns\n", t, half[t]);
    }
    waitpid(child, NULL, 0);
    qsort(half, (size_t)trials, sizeof *half, cmp);
    printf("cacheline_pingpong,8,%.1f,ns\n", half[trials / 2]);
    return 0;
}
