/*
 * skiff-info — what this Skiff build is and how it is configured: version,
 * transports, limits, and every SKIFF_* variable (from the one table in
 * src/core/config.c) with its default, its current value and its meaning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "core/core.h"
#include "core/transport.h"
#include "transports/shm/shm.h"
#ifdef SKIFF_HAVE_OFI
#include "transports/ofi/ofi.h"
#endif
#include "mpi.h"
#include "skiff.h"

/* MPI's short-protocol limit is fixed by its wire header (src/mpi/device). */
#define MPI_SHORT_MAX 40

static void limits(void)
{
    skf_ctx_t *ctx;
    skf_chan_t *ch;
    printf("\nLimits (measured on a singleton channel):\n");
    if (skf_init(&ctx) < 0) {
        printf("  (could not start a singleton context)\n");
        return;
    }
    if (skf_chan_open(ctx, SKF_PORT_USER, &ch) == 0) {
        printf("  %-28s %zu bytes\n", "largest channel message", skf_max_msg(ch, skf_addr(ctx, 0, SKF_PORT_USER)));
        skf_chan_close(ch);
    }
    /* the rings a job gets (a singleton's own channel has the small kind) */
    uint64_t ring = skf_shm_ring_bytes(ctx, SKF_PORT_USER, 2);
    uint64_t mpi_ring = skf_shm_ring_bytes(ctx, SKF_PORT_MPI, SKF_SHM_RING_FEW_RANKS);
    printf("  %-28s %llu KiB each", "shm ring", (unsigned long long)(ring >> 10));
    if (mpi_ring != ring)
        printf("; MPI's on a node of <= %d ranks: %llu KiB", SKF_SHM_RING_FEW_RANKS,
               (unsigned long long)(mpi_ring >> 10));
    printf(" (SKIFF_SHM_RING_SIZE; less when /dev/shm is small)\n");
    printf("  %-28s %llu KiB per pair on a node of <= %lld ranks (SKIFF_SHM_BULK_SIZE)\n",
           "shm bulk ring", (unsigned long long)(skf_shm_bulk_bytes(ctx) >> 10),
           skf_param_ll("SKIFF_SHM_BULK_RANKS"));
    skf_finalize(ctx);
    printf("  %-28s %d\n", "pieces per received message", SKF_CONT_SIZE);
    printf("  %-28s %d bytes (header + data in one 64-byte line)\n", "MPI short protocol up to",
           MPI_SHORT_MAX);
    printf("  %-28s %lld bytes (SKIFF_MPI_EAGER_MAX); rendezvous above\n", "MPI eager protocol up to",
           skf_param_ll("SKIFF_MPI_EAGER_MAX"));
    printf("  %-28s %d\n", "MPI tag upper bound", 0x7fffffff);
}

int main(int argc, char **argv)
{
    int probe = !(argc > 1 && strcmp(argv[1], "--no-probe") == 0);
    if (argc > 1 && probe) {
        fprintf(stderr, "usage: skiff-info [--no-probe]\n");
        return 2;
    }
    printf("Skiff %s\n", SKIFF_VERSION_STRING);
    printf("  MPI API level %d.%d (standard-ABI handle values), thread level up to "
           "MPI_THREAD_MULTIPLE\n", MPI_VERSION, MPI_SUBVERSION);
    printf("  Fortran: %s\n", SKIFF_FORTRAN_INFO);
    printf("\nTransports (in order of preference; SKIFF_TRANSPORTS chooses):\n");
    printf("  %-6s same node: receiver-managed rings in shared memory, CMA for bulk\n",
           skf_shm_ops.name);
    printf("  %-6s other nodes: framed streams with job-key authentication\n", skf_tcp_ops.name);
#ifdef SKIFF_HAVE_OFI
    char ofi[256];
    skf_ofi_describe(ofi, sizeof ofi);
    printf("  %-6s other nodes (SKIFF_TRANSPORTS=shm,ofi): libfabric reliable datagrams; %s\n",
           skf_ofi_ops.name, ofi);
#else
    printf("  ofi    not built (libfabric not found at build time)\n");
#endif
    if (probe)
        limits();
    printf("\nEnvironment variables:\n");
    for (int i = 0; i < skf_nparams; i++) {
        const skf_param_t *p = &skf_params[i];
        const char *cur = getenv(p->name);
        printf("  %-26s default %s", p->name, p->def);
        char why[256];
        if (cur && *cur && skf_param_check(p, cur, why, sizeof why) != 0)
            printf(", set to %s: NOT VALID, %s", cur, why);
        else if (cur && *cur)
            printf(", set to %s", cur);
        printf("\n      %s\n", p->meaning);
    }
    return 0;
}
