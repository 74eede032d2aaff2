/* shmem_stencil — a 2-D Jacobi stencil (5 points) on a G x G grid with
 * OpenSHMEM put-with-signal: the rows are split among the PEs; each
 * iteration every PE puts its first row into the halo of the PE above and its
 * last row into the halo of the PE below, each put carrying a signal (the
 * iteration number), and waits for its own two signals before computing.
 * Halos are double-buffered by iteration parity: a neighbour can be at most
 * one iteration ahead.  Every PE checks its rows against a serial run of the
 * same arithmetic, bit for bit. */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define G 64       /* interior points per side */
#define W (G + 2)  /* a row with its two boundary columns */
#define ITERS 300

static double top_halo[2][W], bot_halo[2][W]; /* symmetric (global variables) */
static uint64_t top_sig, bot_sig;

static void sweep(const double *up, const double *rows, const double *down, double *out, int n)
{
    for (int i = 0; i < n; i++) {
        const double *a = i ? rows + (i - 1) * W : up, *b = i + 1 < n ? rows + (i + 1) * W : down;
        const double *c = rows + i * W;
        for (int j = 1; j <= G; j++)
            out[i * W + j] = 0.25 * (a[j] + b[j] + c[j - 1] + c[j + 1]);
    }
}

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    int per = G / npes, extra = G % npes;
    int r0 = me * per + (me < extra ? me : extra), n = per + (me < extra);
    int up = me > 0 && n ? me - 1 : -1, down = me + 1 < npes && n ? me + 1 : -1;
    if (per == 0 && me >= extra) /* more PEs than rows: the extra ones idle */
        up = down = -1;
    if (per == 0 && me + 1 == extra)
        down = -1; /* the last PE with a row has nobody below */
    double *u = calloc((size_t)(n ? n : 1) * W, sizeof *u), *v = calloc((size_t)(n ? n : 1) * W,
                                                                       sizeof *v);
    double boundary_top[W], boundary_bottom[W];
    for (int j = 0; j < W; j++)
        boundary_top[j] = 1.0, boundary_bottom[j] = 0.0;
    boundary_top[0] = boundary_top[W - 1] = 0.0;
    shmem_barrier_all();
    for (int k = 1; k <= ITERS && n; k++) {
        int b = k % 2;
        if (up >= 0)
            shmem_double_put_signal_nbi(bot_halo[b], u, W, &bot_sig, (uint64_t)k, SHMEM_SIGNAL_SET,
                                        up);
        if (down >= 0)
            shmem_double_put_signal_nbi(top_halo[b], u + (n - 1) * W, W, &top_sig, (uint64_t)k,
                                        SHMEM_SIGNAL_SET, down);
        if (up >= 0)
            shmem_signal_wait_until(&top_sig, SHMEM_CMP_GE, (uint64_t)k);
        if (down >= 0)
            shmem_signal_wait_until(&bot_sig, SHMEM_CMP_GE, (uint64_t)k);
        sweep(up >= 0 ? top_halo[b] : boundary_top, u, down >= 0 ? bot_halo[b] : boundary_bottom,
              v, n);
        double *t = u;
        u = v;
        v = t;
    }
    shmem_barrier_all();
    /* the serial reference, same arithmetic */
    double *su = calloc((size_t)G * W, sizeof *su), *sv = calloc((size_t)G * W, sizeof *sv);
    for (int k = 1; k <= ITERS; k++) {
        sweep(boundary_top, su, boundary_bottom, sv, G);
        double *t = su;
        su = sv;
        sv = t;
    }
    int bad = n ? memcmp(u, su + (size_t)r0 * W, (size_t)n * W * sizeof *u) != 0 : 0;
    static int bad_in, bad_all;
    bad_in = bad;
    shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &bad_all, &bad_in, 1);
    if (me == 0)
        printf("shmem_stencil: %dx%d Jacobi, %d iterations on %d PEs with put-with-signal: "
               "u[G/4][G/2] = %.9f, %s\n", G, G, ITERS, npes, su[(G / 4) * W + G / 2],
               bad_all ? "MISMATCH against the serial run" : "every PE matches the serial run");
    free(u), free(v), free(su), free(sv);
    shmem_finalize();
    return bad_all ? 1 : 0;
}
