/*
 * launcher_helper — a rank with one scripted behaviour, for the launcher's
 * tests (tests/launcher/launcher_cases.sh drives it):
 *
 *   exit CODE R [stubborn]  rank R exits with CODE; the others wait (and with
 *                           "stubborn" ignore SIGTERM, so only SIGKILL ends them)
 *   signal NAME R           rank R dies by SIGKILL/SIGSEGV (a real bad access)
 *   lines N LEN             N lines of LEN bytes on stdout and stderr, through
 *                           stdio's block buffering (writes cut lines anywhere)
 *   longline LEN            one line of LEN bytes, then "tail" without '\n'
 *   partial                 "partial<rank>" without '\n', then exit
 *   stdin                   read stdin to EOF; print byte count and checksum
 *   env VAR...              print VAR=value (or VAR unset) per variable
 *   affinity                print how many CPUs this rank may run on and which
 *   shm R                   create /dev/shm/skiff-<tag of the job key>-<rank> (as
 *                           the library names objects), print "key K tag T";
 *                           rank R then kills itself with SIGKILL (R = -1: all
 *                           exit 0)
 *   shm-tag KEY             print the /dev/shm name tag of job key KEY
 *   siphash                 check shm_siphash24 against the reference vectors
 *                           of the SipHash paper; print "siphash ok"
 *   trap                    print "ready", on SIGTERM print "got SIGTERM", exit 0
 *   count-int               on SIGINT print "got SIGINT" and go on; print
 *                           "ready"; wait to be killed
 *   pidfile FILE            append own pid to FILE, wait to be killed
 *   sigstate                print "rank R sig NAME ignored|default|caught|blocked"
 *                           for each signal the launcher forwards, then "ready";
 *                           wait to be killed
 */
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shm_name.h"

static int rank;

static void wait_forever(void)
{
    for (;;)
        pause();
}

static void on_term(int sig)
{
    (void)sig;
    static const char msg[] = "got SIGTERM\n";
    write(1, msg, sizeof msg - 1);
    _exit(0);
}

static void on_int(int sig)
{
    (void)sig;
    static const char msg[] = "got SIGINT\n";
    write(1, msg, sizeof msg - 1);
}

static void ready(void)
{
    printf("ready %d\n", rank);
    fflush(stdout);
}

static int do_lines(int n, int len)
{
    char *line = malloc((size_t)len + 1);
    for (int i = 0; i < n; i++) {
        int h = snprintf(line, (size_t)len + 1, "%d:%d:", rank, i);
        for (int k = h; k < len - 1; k++)
            line[k] = (char)('a' + (rank + i + k) % 26);
        line[len - 1] = '\n';
        fwrite(line, 1, (size_t)len, stdout);
        fwrite(line, 1, (size_t)len, stderr);
    }
    free(line);
    return 0;
}

static int do_stdin(void)
{
    uint32_t h = 2166136261u;
    long long count = 0;
    char buf[65536];
    ssize_t n;
    while ((n = read(0, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++)
            h = (h ^ (unsigned char)buf[i]) * 16777619u;
        count += n;
    }
    printf("rank %d stdin %lld bytes checksum %08x\n", rank, count, (unsigned)h);
    return n < 0;
}

static int do_shm(int victim)
{
    const char *key = getenv("SKIFF_JOB_KEY");
    char path[256], tag[SHM_TAG_HEX + 1];
    if (!key || shm_name_tag(key, tag) != 0)
        return 2;
    snprintf(path, sizeof path, "/dev/shm/skiff-%s-rank%d", tag, rank);
    int fd = open(path, O_CREAT | O_RDWR | O_EXCL, 0600);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    close(fd);
    printf("key %s tag %s\n", key, tag);
    fflush(stdout);
    if (victim < 0)
        return 0;
    if (rank == victim) {
        usleep(100000); /* let the others create theirs too */
        raise(SIGKILL);
    }
    wait_forever();
    return 0;
}

/* Key 00 01 .. 0f, message 00 01 .. len-1 (Aumasson & Bernstein, appendix). */
static int check_siphash(void)
{
    static const struct { size_t len; uint64_t want; } v[] = {
        {0, 0x726fdb47dd0e0e31ull}, {1, 0x74f839c593dc67fdull},
        {8, 0x93f5f5799a932462ull}, {15, 0xa129ca6149be45e5ull}};
    uint8_t key[16], msg[16];
    for (int i = 0; i < 16; i++)
        key[i] = msg[i] = (uint8_t)i;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint64_t got = shm_siphash24(key, msg, v[i].len);
        if (got != v[i].want) {
            printf("siphash of %zu bytes: %016llx, expected %016llx\n", v[i].len,
                   (unsigned long long)got, (unsigned long long)v[i].want);
            return 1;
        }
    }
    printf("siphash ok\n");
    return 0;
}

int main(int argc, char **argv)
{
    const char *r = getenv("PMI_RANK");
    rank = r ? atoi(r) : 0;
    if (argc < 2)
        return 2;
    const char *mode = argv[1];
    if (!strcmp(mode, "exit") && argc >= 4) {
        if (rank == atoi(argv[3]))
            return atoi(argv[2]);
        if (argc >= 5 && !strcmp(argv[4], "stubborn"))
            signal(SIGTERM, SIG_IGN);
        wait_forever();
    }
    if (!strcmp(mode, "signal") && argc >= 4) {
        if (rank == atoi(argv[3])) {
            if (!strcmp(argv[2], "SEGV")) {
                signal(SIGSEGV, SIG_DFL);
                volatile uintptr_t addr = 8; /* hidden from the optimizer */
                return *(volatile int *)addr;
            }
            raise(SIGKILL);
        }
        wait_forever();
    }
    if (!strcmp(mode, "lines") && argc >= 4)
        return do_lines(atoi(argv[2]), atoi(argv[3]));
    if (!strcmp(mode, "longline") && argc >= 3) {
        int len = atoi(argv[2]);
        for (int i = 0; i < len - 1; i++)
            putchar('A' + i % 26);
        printf("\ntail");
        return 0;
    }
    if (!strcmp(mode, "partial")) {
        printf("partial%d", rank);
        return 0;
    }
    if (!strcmp(mode, "stdin"))
        return do_stdin();
    if (!strcmp(mode, "env")) {
        for (int i = 2; i < argc; i++) {
            const char *v = getenv(argv[i]);
            printf("rank %d %s%s%s\n", rank, argv[i], v ? "=" : " unset", v ? v : "");
        }
        return 0;
    }
    if (!strcmp(mode, "affinity")) {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) != 0)
            return 1;
        int first = -1;
        for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
            if (CPU_ISSET(c, &set))
                first = c;
        printf("rank %d cpus %d first %d\n", rank, CPU_COUNT(&set), first);
        return 0;
    }
    if (!strcmp(mode, "siphash"))
        return check_siphash();
    if (!strcmp(mode, "shm-tag") && argc >= 3) {
        char tag[SHM_TAG_HEX + 1];
        if (shm_name_tag(argv[2], tag) != 0)
            return 2;
        printf("%s\n", tag);
        return 0;
    }
    if (!strcmp(mode, "shm") && argc >= 3)
        return do_shm(atoi(argv[2]));
    if (!strcmp(mode, "trap")) {
        signal(SIGTERM, on_term);
        ready();
        wait_forever();
    }
    if (!strcmp(mode, "count-int")) {
        signal(SIGINT, on_int);
        ready();
        wait_forever();
    }
    if (!strcmp(mode, "sigstate")) {
        static const struct { int sig; const char *name; } sigs[] = {
            {SIGINT, "INT"}, {SIGQUIT, "QUIT"}, {SIGTERM, "TERM"}, {SIGHUP, "HUP"},
            {SIGUSR1, "USR1"}, {SIGUSR2, "USR2"}, {SIGPIPE, "PIPE"}};
        sigset_t mask;
        sigprocmask(SIG_SETMASK, NULL, &mask);
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction sa;
            sigaction(sigs[i].sig, NULL, &sa);
            printf("rank %d sig %s %s\n", rank, sigs[i].name,
                   sigismember(&mask, sigs[i].sig) ? "blocked"
                   : sa.sa_handler == SIG_IGN     ? "ignored"
                   : sa.sa_handler == SIG_DFL     ? "default"
                                                  : "caught");
        }
        ready();
        wait_forever();
    }
    if (!strcmp(mode, "pidfile") && argc >= 3) {
        FILE *f = fopen(argv[2], "a");
        if (!f)
            return 1;
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
        wait_forever();
    }
    fprintf(stderr, "launcher_helper: bad arguments\n");
    return 2;
}
