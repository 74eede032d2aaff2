/* shmem_pi — pi with OpenSHMEM: every PE integrates 4/(1+x^2) over its share
 * of [0,1] (midpoint rule) and puts its part into its slot of PE 0's
 * symmetric array, then increments PE 0's counter; PE 0 waits for the count
 * and checks the sum against M_PI.  A sum reduction gives every PE the same
 * value to check too. */
#include <math.h>
#include <shmem.h>
#include <stdio.h>

static double parts[1024]; /* a global variable: symmetric */
static long arrived;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    if (npes > 1024) {
        if (me == 0)
            fprintf(stderr, "shmem_pi: at most 1024 PEs\n");
        shmem_global_exit(1);
    }
    const long n = 10000000;
    const double h = 1.0 / (double)n;
    static double part, total; /* symmetric: reduction source and result */
    for (long i = me; i < n; i += npes) {
        double x = h * ((double)i + 0.5);
        part += 4.0 / (1.0 + x * x);
    }
    part *= h;
    /* one-sided gather: my part into PE 0's slot, then a counter it waits on */
    shmem_double_p(&parts[me], part, 0);
    shmem_fence(); /* the part lands before the count */
    shmem_long_atomic_inc(&arrived, 0);
    if (me == 0) {
        shmem_long_wait_until(&arrived, SHMEM_CMP_EQ, npes);
        double pi = 0;
        for (int p = 0; p < npes; p++)
            pi += parts[p];
        double err = fabs(pi - M_PI);
        printf("shmem_pi: %.12f with %ld intervals on %d PEs, error %.2e\n", pi, n, npes, err);
        if (err > 1e-9) {
            fprintf(stderr, "shmem_pi: error %.3e is too large\n", err);
            shmem_global_exit(1);
        }
    }
    /* and the same sum as a collective, checked on every PE */
    shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &total, &part, 1);
    if (fabs(total - M_PI) > 1e-9) {
        fprintf(stderr, "shmem_pi: PE %d: reduction gave %.12f\n", me, total);
        shmem_global_exit(1);
    }
    shmem_finalize();
    return 0;
}
