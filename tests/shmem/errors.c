/* errors.c <case> — what a wrong call says: each case makes one mistake on
 * the last PE (the others wait in a barrier) and the test (CMakeLists.txt)
 * matches the one line naming the call, the PE and the values, and checks
 * that the job ended with a failing status.
 *   badpe      shmem_long_put to PE npes+7
 *   nonsym     shmem_putmem to a stack address
 *   uninit     shmem_long_p before shmem_init
 *   badcmp     shmem_int_wait_until with comparison 42
 *   badfree    shmem_free of memory shmem_malloc never returned
 *   die        the last PE exits with status 3 mid-job
 *   globalexit the last PE calls shmem_global_exit(7) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shtest.h"

static long target[4];

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "uninit")) {
        shmem_long_p(target, 1, 0);
        printf("not reached\n");
        return 0;
    }
    test_init();
    long src[4] = {1, 2, 3, 4};
    if (me == npes - 1) {
        if (!strcmp(c, "badpe")) {
            shmem_long_put(target, src, 4, npes + 7);
        } else if (!strcmp(c, "nonsym")) {
            long on_stack[4];
            shmem_putmem(on_stack, src, sizeof src, 0);
        } else if (!strcmp(c, "badcmp")) {
            static int x;
            shmem_int_wait_until(&x, 42, 0);
        } else if (!strcmp(c, "badfree")) {
            shmem_free(target); /* also enters the free's barrier first: alone */
        } else if (!strcmp(c, "die")) {
            fflush(stdout);
            exit(3);
        } else if (!strcmp(c, "globalexit")) {
            shmem_global_exit(7);
        } else {
            fprintf(stderr, "errors: unknown case '%s'\n", c);
            return 2;
        }
        printf("not reached\n");
    }
    if (strcmp(c, "badfree"))
        shmem_barrier_all(); /* the others wait here until the job ends */
    else
        shmem_free(target);
    printf("not reached\n");
    shmem_finalize();
    return 0;
}
