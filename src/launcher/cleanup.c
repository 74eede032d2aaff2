/* cleanup — job key and /dev/shm removal (see cleanup.h). */
#include "cleanup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "shm_name.h"

int job_key_make(char key[JOB_KEY_HEX + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[JOB_KEY_HEX / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++) {
        key[2 * i] = hex[raw[i] >> 4];
        key[2 * i + 1] = hex[raw[i] & 15];
    }
    key[JOB_KEY_HEX] = '\0';
    return 0;
}

int job_shm_cleanup(const char *key)
{
    char prefix[64], tag[SHM_TAG_HEX + 1];
    if (shm_name_tag(key, tag) != 0)
        return 0; /* not a key this launcher made: nothing of it to find */
    int plen = snprintf(prefix, sizeof prefix, "skiff-%s-", tag);
    DIR *dir = opendir(SHM_DIR);
    if (!dir)
        return 0; /* no /dev/shm: nothing can have been created there */
    int removed = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)plen) != 0)
            continue;
        if (unlinkat(dirfd(dir), e->d_name, 0) == 0)
            removed++;
        else if (errno != ENOENT)
            fprintf(stderr, "skiffrun: cannot remove %s/%s: %s\n", SHM_DIR, e->d_name,
                    strerror(errno));
    }
    closedir(dir);
    return removed;
}
