/* generic.c — the C11 type-generic forms (shmem_put, shmem_p, shmem_g, shmem_atomic_*,
 * shmem_wait_until, shmem_sum_reduce) pick the typed functions. */
#include <shmem.h>
#include <stdio.h>

#include "testutil.h"
long L[4]; int I; double D[4]; unsigned long U;
int main(void) {
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long src[4] = {1, 2, 3, 4};
    shmem_put(L, src, 4, (me + 1) % n);
    shmem_p(&I, 5, (me + 1) % n);
    shmem_barrier_all();
    long g = shmem_g(&L[2], me);
    int x = shmem_atomic_fetch_add(&I, 1, me);
    shmem_atomic_or(&U, 4ul, me);
    shmem_wait_until(&I, SHMEM_CMP_GE, 6);
    shmem_sum_reduce(SHMEM_TEAM_WORLD, D, D, 4);
    testutil_rank = me;
    CHECK(g == 3 && x == 5 && U == 4);
    for (int i = 0; i < 4; i++)
        CHECK(L[i] == src[i] && D[i] == 0);
    shmem_finalize();
    if (me == 0)
        printf("generic: %d PEs: every check passed\n", n);
    return 0;
}
