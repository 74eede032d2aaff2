/* large_count.c — messages, collectives and pack buffers of more than 2^31
 * elements through the _c (MPI_Count) functions, every byte checked.
 *
 *   large_count p2p | coll | pack
 *
 * Each part needs several GB; rank 0 reads MemAvailable and the whole job
 * skips (exit 77, ctest SKIP_RETURN_CODE) with a message when there is not
 * enough.  Meant for 2 ranks (ctest runs these one at a time: RESOURCE_LOCK).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "mpitest.h"

#define BIG ((MPI_Count)INT_MAX + 9) /* 2^31 + 8 */
#define GIB (1024.0 * 1024 * 1024)

static long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

/* Skip the whole job unless `need` bytes (over all ranks) plus a 1 GiB margin
 * are available. */
static void need_memory(const char *part, double need)
{
    int go = 1;
    if (T_rank == 0) {
        long long avail = mem_available();
        if (avail >= 0 && avail < need + GIB) {
            printf("large_count %s: SKIPPED: needs %.1f GiB (+1 GiB margin), MemAvailable is "
                   "%.1f GiB\n",
                   part, need / GIB, avail / GIB);
            go = 0;
        }
    }
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!go) {
        MPI_Finalize();
        exit(77);
    }
}

static unsigned char *alloc_big(size_t n)
{
    unsigned char *p = malloc(n);
    CHECK(p != NULL);
    return p;
}

/* A cheap pattern for gigabytes: word-wise, different per seed. */
static void fill_big(unsigned char *b, size_t n, unsigned seed)
{
    uint64_t *w = (uint64_t *)b;
    size_t nw = n / 8;
    for (size_t i = 0; i < nw; i++)
        w[i] = (i * 0x9e3779b97f4a7c15ull) ^ seed;
    for (size_t i = nw * 8; i < n; i++)
        b[i] = (unsigned char)(i ^ seed);
}

static size_t check_big(const unsigned char *b, size_t n, unsigned seed)
{
    const uint64_t *w = (const uint64_t *)b;
    size_t nw = n / 8;
    for (size_t i = 0; i < nw; i++)
        if (w[i] != ((i * 0x9e3779b97f4a7c15ull) ^ seed))
            return i * 8;
    for (size_t i = nw * 8; i < n; i++)
        if (b[i] != (unsigned char)(i ^ seed))
            return i;
    return (size_t)-1;
}

/* 2^31+8 bytes from rank 0 to rank 1 with Send_c/Recv_c, then back with
 * Isend_c/Irecv_c as 2^28+1 doubles (an int count whose bytes pass 2 GiB). */
static void part_p2p(void)
{
    need_memory("p2p", 2.0 * (double)BIG);
    if (T_rank < 2 && T_size >= 2) {
        unsigned char *buf = alloc_big((size_t)BIG);
        MPI_Status st;
        MPI_Count n;
        int ni;
        if (T_rank == 0) {
            fill_big(buf, (size_t)BIG, 1);
            CHECK_EQ_INT(MPI_Send_c(buf, BIG, MPI_BYTE, 1, 5, MPI_COMM_WORLD), MPI_SUCCESS);
        } else {
            memset(buf, 0, (size_t)BIG);
            CHECK_EQ_INT(MPI_Recv_c(buf, BIG, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st), MPI_SUCCESS);
            CHECK_EQ_INT(check_big(buf, (size_t)BIG, 1), (size_t)-1);
            CHECK_EQ_INT(MPI_Get_count_c(&st, MPI_BYTE, &n), MPI_SUCCESS);
            CHECK_EQ_INT(n, BIG);
            CHECK_EQ_INT(MPI_Get_count(&st, MPI_BYTE, &ni), MPI_SUCCESS);
            CHECK_EQ_INT(ni, MPI_UNDEFINED); /* does not fit an int */
            CHECK_EQ_INT(MPI_Get_elements_c(&st, MPI_BYTE, &n), MPI_SUCCESS);
            CHECK_EQ_INT(n, BIG);
            CHECK_EQ_INT(MPI_Get_elements(&st, MPI_BYTE, &ni), MPI_SUCCESS);
            CHECK_EQ_INT(ni, MPI_UNDEFINED);
            CHECK_EQ_INT(MPI_Get_count(&st, MPI_DOUBLE, &ni), MPI_SUCCESS);
            CHECK_EQ_INT(ni, (int)(BIG / 8)); /* 2^28+1 doubles: fits */
        }
        /* back, as doubles through the int forms: count 2^28+1, bytes 2^31+8 */
        int dcount = (int)(BIG / 8);
        MPI_Request rq;
        if (T_rank == 1) {
            fill_big(buf, (size_t)BIG, 2);
            CHECK_EQ_INT(MPI_Isend(buf, dcount, MPI_DOUBLE, 0, 6, MPI_COMM_WORLD, &rq),
                         MPI_SUCCESS);
        } else {
            memset(buf, 0, (size_t)BIG);
            CHECK_EQ_INT(MPI_Irecv_c(buf, dcount, MPI_DOUBLE, 1, 6, MPI_COMM_WORLD, &rq),
                         MPI_SUCCESS);
        }
        CHECK_EQ_INT(MPI_Wait(&rq, &st), MPI_SUCCESS);
        if (T_rank == 0) {
            CHECK_EQ_INT(check_big(buf, (size_t)BIG, 2), (size_t)-1);
            CHECK_EQ_INT(MPI_Get_count_c(&st, MPI_DOUBLE, &n), MPI_SUCCESS);
            CHECK_EQ_INT(n, dcount);
        }
        /* one element of a 2^31+8-byte contiguous type */
        MPI_Datatype big;
        CHECK_EQ_INT(MPI_Type_contiguous_c(BIG, MPI_BYTE, &big), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Type_commit(&big), MPI_SUCCESS);
        CHECK_EQ_INT(MPI_Type_size_c(big, &n), MPI_SUCCESS);
        CHECK_EQ_INT(n, BIG);
        CHECK_EQ_INT(MPI_Type_size(big, &ni), MPI_SUCCESS);
        CHECK_EQ_INT(ni, MPI_UNDEFINED);
        if (T_rank == 0) {
            fill_big(buf, (size_t)BIG, 3);
            CHECK_EQ_INT(MPI_Ssend(buf, 1, big, 1, 7, MPI_COMM_WORLD), MPI_SUCCESS);
        } else {
            memset(buf, 0, (size_t)BIG);
            CHECK_EQ_INT(MPI_Recv(buf, 1, big, 0, 7, MPI_COMM_WORLD, &st), MPI_SUCCESS);
            CHECK_EQ_INT(check_big(buf, (size_t)BIG, 3), (size_t)-1);
            CHECK_EQ_INT(MPI_Get_count(&st, big, &ni), MPI_SUCCESS);
            CHECK_EQ_INT(ni, 1);
            CHECK_EQ_INT(MPI_Get_elements_c(&st, big, &n), MPI_SUCCESS);
            CHECK_EQ_INT(n, BIG);
        }
        MPI_Type_free(&big);
        free(buf);
    }
}

/* Pack_c/Unpack_c of 2^31+8 bytes (rank 0; a non-contiguous type: every
 * other byte of a 2^32+16-byte area would need 6 GiB, so bytes). */
static void part_pack(void)
{
    need_memory("pack", 2.0 * (double)BIG);
    if (T_rank == 0) {
        unsigned char *in = alloc_big((size_t)BIG), *out = alloc_big((size_t)BIG);
        MPI_Count pos = 0, size;
        fill_big(in, (size_t)BIG, 4);
        CHECK_EQ_INT(MPI_Pack_size_c(BIG, MPI_BYTE, MPI_COMM_WORLD, &size), MPI_SUCCESS);
        CHECK_EQ_INT(size, BIG);
        int isize;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int rc = MPI_Pack_size(INT_MAX, MPI_SHORT, MPI_COMM_WORLD, &isize);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK_EQ_INT(cls, MPI_ERR_VALUE_TOO_LARGE); /* 2^32 bytes do not fit an int */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        CHECK_EQ_INT(MPI_Pack_c(in, BIG, MPI_BYTE, out, BIG, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
        CHECK_EQ_INT(pos, BIG);
        CHECK_EQ_INT(check_big(out, (size_t)BIG, 4), (size_t)-1);
        fill_big(out, (size_t)BIG, 5);
        pos = 0;
        CHECK_EQ_INT(MPI_Unpack_c(out, BIG, &pos, in, BIG, MPI_BYTE, MPI_COMM_WORLD),
                     MPI_SUCCESS);
        CHECK_EQ_INT(pos, BIG);
        CHECK_EQ_INT(check_big(in, (size_t)BIG, 5), (size_t)-1);
        free(in);
        free(out);
    }
}

/* Bcast_c, Allreduce_c (in place, MPI_UINT8_T sum) and Allgatherv_c with a
 * displacement past 2^31 at 2 ranks. */
static void part_coll(void)
{
    need_memory("coll", 2.1 * (double)BIG * T_size);
    unsigned char *buf = alloc_big((size_t)BIG + 64);
    /* bcast from the last rank */
    int root = T_size - 1;
    if (T_rank == root)
        fill_big(buf, (size_t)BIG, 6);
    else
        memset(buf, 0, (size_t)BIG);
    CHECK_EQ_INT(MPI_Bcast_c(buf, BIG, MPI_BYTE, root, MPI_COMM_WORLD), MPI_SUCCESS);
    CHECK_EQ_INT(check_big(buf, (size_t)BIG, 6), (size_t)-1);

    /* allreduce: rank r holds (i + r) mod 256 at byte i; the sum is known */
    for (size_t i = 0; i < (size_t)BIG; i++)
        buf[i] = (unsigned char)(i + (size_t)T_rank);
    CHECK_EQ_INT(MPI_Allreduce_c(MPI_IN_PLACE, buf, BIG, MPI_UINT8_T, MPI_SUM, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    unsigned rsum = (unsigned)(T_size * (T_size - 1) / 2);
    for (size_t i = 0; i < (size_t)BIG; i++)
        if (buf[i] != (unsigned char)(i * (size_t)T_size + rsum)) {
            fprintf(stderr, "rank %d: allreduce byte %zu is %u\n", T_rank, i, buf[i]);
            CHECK(0);
        }

    /* allgatherv: rank 0 gives BIG - 8*(size-1) bytes, the others 8 each, so
     * the last displacements are past 2^31 */
    MPI_Count *counts = malloc(sizeof *counts * (size_t)T_size);
    MPI_Aint *displs = malloc(sizeof *displs * (size_t)T_size);
    CHECK(counts && displs);
    MPI_Aint at = 0;
    for (int r = 0; r < T_size; r++) {
        counts[r] = r == 0 ? BIG - 8 * (T_size - 1) : 8;
        displs[r] = at;
        at += counts[r];
    }
    memset(buf, 0, (size_t)BIG);
    if (T_rank == 0)
        fill_big(buf, (size_t)counts[0], 7);
    else
        for (int k = 0; k < 8; k++)
            buf[displs[T_rank] + k] = (unsigned char)(T_rank * 16 + k);
    CHECK_EQ_INT(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts, displs,
                                  MPI_BYTE, MPI_COMM_WORLD),
                 MPI_SUCCESS);
    CHECK_EQ_INT(check_big(buf, (size_t)counts[0], 7), (size_t)-1);
    for (int r = 1; r < T_size; r++)
        for (int k = 0; k < 8; k++)
            CHECK_EQ_INT(buf[displs[r] + k], r * 16 + k);
    free(counts);
    free(displs);
    free(buf);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    const char *part = argc > 1 ? argv[1] : "p2p";
    if (!strcmp(part, "p2p"))
        part_p2p();
    else if (!strcmp(part, "pack"))
        part_pack();
    else if (!strcmp(part, "coll"))
        part_coll();
    else
        CHECK(!"unknown part");
    char name[64];
    snprintf(name, sizeof name, "large_count %s", part);
    test_done(name);
    return 0;
}
