/* coll_sleepers — the node collectives' sleep/wake handshake: in every round
 * one rank (a different one each time) is late by a random 0-2 ms, so the
 * others stop polling and sleep on the segment's bells (run with SKIFF_SPIN=1:
 * they sleep almost at once).  Bcast series long enough that the root runs
 * past its slot generations and sleeps until the late reader catches up;
 * allreduce and barrier with a late arriver.  Each value is checked, and the
 * run must end (a lost wake-up would cost a bounded sleep, not a hang). */
#include <unistd.h>

#include "mpitest.h"

#define ROUNDS 60
#define SERIES 40 /* bcasts in a row: more than the 16 slot generations */

static unsigned rnd(unsigned *s) { return *s = *s * 1103515245u + 12345u, *s >> 16; }

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    int P = T_size, me = T_rank;
    unsigned seed = 12345; /* the same sequence on every rank */
    for (int round = 0; round < ROUNDS; round++) {
        int late = (int)(rnd(&seed) % (unsigned)P), root = (int)(rnd(&seed) % (unsigned)P);
        useconds_t delay = rnd(&seed) % 2000;
        if (me == late)
            usleep(delay);
        for (int k = 0; k < SERIES; k++) {
            int v = me == root ? round * 1000 + k : -1;
            MPI_Bcast(&v, 1, MPI_INT, root, MPI_COMM_WORLD);
            CHECK_EQ_INT(v, round * 1000 + k);
        }
        if (me == late)
            usleep(delay);
        long in[8], out[8];
        for (int i = 0; i < 8; i++)
            in[i] = (long)me * 100 + i + round;
        MPI_Allreduce(in, out, 8, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < 8; i++)
            CHECK_EQ_INT(out[i], (long)P * (P - 1) / 2 * 100 + (long)P * (i + round));
        if (me == late)
            usleep(delay);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (me == 0)
        printf("coll_sleepers: %d ranks, %d rounds\n", P, ROUNDS);
    MPI_Finalize();
    return 0;
}
