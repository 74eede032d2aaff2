/* alloc_mem.c — MPI_Alloc_mem / MPI_Free_mem as a program that uses them like
 * malloc sees them:
 *  - thousands of small blocks under a low descriptor limit: the process can
 *    still open files afterwards (small blocks share shared-memory arenas);
 *  - every block holds its own bytes (filled, then checked after all the
 *    others are written), blocks are 64-byte aligned and do not overlap;
 *  - freeing half and allocating again reuses the space; large blocks and
 *    zero-size ones work;
 *  - a window made with MPI_Win_create on a small block (a piece of an arena
 *    that node mates map) takes every rank's puts and nothing lands next to it;
 *  - MPI_Free_mem of a pointer inside a block, or of a freed block, is
 *    MPI_ERR_BASE;
 *  - "threads": under MPI_THREAD_MULTIPLE, four threads allocate, fill,
 *    check and free blocks at once. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "mpitest.h"

#define NSMALL 4000
#define GUARD 0x5a

static size_t small_size(int i) { return (size_t)(i * 37 % 1500) + 1; }

/* Lower the soft descriptor limit to what is open now + 64. */
static void low_fd_limit(void)
{
    int highest = 0;
    for (int fd = 0; fd < 65536; fd++)
        if (fcntl(fd, F_GETFD) >= 0)
            highest = fd;
    struct rlimit r;
    CHECK(getrlimit(RLIMIT_NOFILE, &r) == 0);
    r.rlim_cur = (rlim_t)highest + 64;
    CHECK(setrlimit(RLIMIT_NOFILE, &r) == 0);
}

static void many_small_blocks(void)
{
    static unsigned char *p[NSMALL];
    for (int i = 0; i < NSMALL; i++) {
        CHECK_EQ_INT(MPI_Alloc_mem((MPI_Aint)small_size(i), MPI_INFO_NULL, &p[i]), MPI_SUCCESS);
        CHECK(((uintptr_t)p[i] & 63) == 0);
        fill(p[i], small_size(i), (unsigned)i);
    }
    for (int i = 0; i < NSMALL; i++)
        check_verified("small block", small_size(i), T_rank, verify(p[i], small_size(i), (unsigned)i));
    int fd = open("/dev/null", O_RDONLY);
    if (fd < 0)
        fprintf(stderr, "rank %d: open after %d MPI_Alloc_mem blocks failed\n", T_rank, NSMALL);
    CHECK(fd >= 0);
    close(fd);
    /* free the even ones, allocate them again (other sizes), all still intact */
    for (int i = 0; i < NSMALL; i += 2)
        CHECK_EQ_INT(MPI_Free_mem(p[i]), MPI_SUCCESS);
    for (int i = 0; i < NSMALL; i += 2) {
        CHECK_EQ_INT(MPI_Alloc_mem((MPI_Aint)small_size(i + 7), MPI_INFO_NULL, &p[i]), MPI_SUCCESS);
        fill(p[i], small_size(i + 7), (unsigned)i + 7);
    }
    for (int i = 0; i < NSMALL; i++) {
        size_t n = small_size(i % 2 ? i : i + 7);
        check_verified("reused block", n, T_rank, verify(p[i], n, (unsigned)(i % 2 ? i : i + 7)));
    }
    for (int i = 0; i < NSMALL; i++)
        CHECK_EQ_INT(MPI_Free_mem(p[i]), MPI_SUCCESS);
}

static void large_and_empty(void)
{
    unsigned char *big, *none;
    size_t n = (3u << 20) + 5;
    CHECK_EQ_INT(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &big), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Alloc_mem(0, MPI_INFO_NULL, &none), MPI_SUCCESS);
    fill(big, n, 3);
    check_verified("large block", n, T_rank, verify(big, n, 3));
    CHECK_EQ_INT(MPI_Free_mem(none), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Free_mem(big), MPI_SUCCESS);
}

/* A window on the middle one of three small blocks: every rank puts its rank
 * into its slot at every target; the blocks around it keep their guard bytes. */
static void window_on_small_block(void)
{
    int *before, *mid, *after;
    MPI_Aint bytes = (MPI_Aint)T_size * (MPI_Aint)sizeof(int);
    CHECK_EQ_INT(MPI_Alloc_mem(256, MPI_INFO_NULL, &before), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &mid), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Alloc_mem(256, MPI_INFO_NULL, &after), MPI_SUCCESS);
    memset(before, GUARD, 256);
    memset(after, GUARD, 256);
    for (int r = 0; r < T_size; r++)
        mid[r] = -1;
    MPI_Win win;
    CHECK_EQ_INT(MPI_Win_create(mid, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                 MPI_SUCCESS);
    MPI_Win_fence(0, win);
    for (int t = 0; t < T_size; t++)
        CHECK_EQ_INT(MPI_Put(&T_rank, 1, MPI_INT, t, T_rank, 1, MPI_INT, win), MPI_SUCCESS);
    MPI_Win_fence(0, win);
    for (int r = 0; r < T_size; r++)
        CHECK_EQ_INT(mid[r], r);
    for (int i = 0; i < 256; i++) {
        CHECK_EQ_INT(((unsigned char *)before)[i], GUARD);
        CHECK_EQ_INT(((unsigned char *)after)[i], GUARD);
    }
    MPI_Win_free(&win);
    CHECK_EQ_INT(MPI_Free_mem(before), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Free_mem(mid), MPI_SUCCESS);
    CHECK_EQ_INT(MPI_Free_mem(after), MPI_SUCCESS);
}

static void bad_frees(void)
{
    char *b;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_EQ_INT(MPI_Alloc_mem(100, MPI_INFO_NULL, &b), MPI_SUCCESS);
    int rc = MPI_Free_mem(b + 8), cls;
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_BASE);
    CHECK_EQ_INT(MPI_Free_mem(b), MPI_SUCCESS);
    rc = MPI_Free_mem(b);
    MPI_Error_class(rc, &cls);
    CHECK_EQ_INT(cls, MPI_ERR_BASE);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

#define NTHREADS 4

static void *thread_blocks(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    unsigned char *p[64];
    for (int round = 0; round < 50; round++) {
        for (int i = 0; i < 64; i++) {
            size_t n = small_size(i + (int)id * 64 + round);
            CHECK_EQ_INT(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &p[i]), MPI_SUCCESS);
            fill(p[i], n, id * 1000 + (unsigned)i);
        }
        for (int i = 0; i < 64; i++) {
            size_t n = small_size(i + (int)id * 64 + round);
            check_verified("a thread's block", n, T_rank, verify(p[i], n, id * 1000 + (unsigned)i));
            CHECK_EQ_INT(MPI_Free_mem(p[i]), MPI_SUCCESS);
        }
    }
    return NULL;
}

static void threads(int *argc, char ***argv)
{
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK_EQ_INT(provided, MPI_THREAD_MULTIPLE);
    MPI_Comm_rank(MPI_COMM_WORLD, &T_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &T_size);
    testutil_rank = T_rank;
    pthread_t t[NTHREADS];
    for (uintptr_t i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&t[i], NULL, thread_blocks, (void *)i) == 0);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    test_done("alloc_mem threads");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "threads") == 0) {
        threads(&argc, &argv);
        return 0;
    }
    test_init(&argc, &argv);
    low_fd_limit();
    many_small_blocks();
    large_and_empty();
    window_on_small_block();
    bad_frees();
    test_done("alloc_mem");
    return 0;
}
