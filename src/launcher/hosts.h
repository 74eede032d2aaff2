/*
 * hosts — the multi-host part of the command line: the host list
 * (--hosts a:2,b:2 or a host file) and where each rank runs.
 *
 * Ranks fill the hosts in order, `slots` ranks per host, wrapping around to
 * the first host when -n is larger than the total (as hydra does).  Every
 * distinct host name is one node of PMI_process_mapping, whatever the names
 * resolve to: network namespaces on one kernel are different nodes.
 */
#ifndef SKIFF_LAUNCHER_HOSTS_H
#define SKIFF_LAUNCHER_HOSTS_H

#include <stddef.h>

#define HOST_NAME_MAX_LEN 255

typedef struct host_entry {
    char *name;
    int slots;
} host_entry_t;

typedef struct host_list {
    host_entry_t *hosts; /* distinct names, in first-seen order */
    int nhosts;
    int total_slots;
} host_list_t;

/* Append the hosts of "a:2,b,c:1" (default 1 slot).  0, or -1 after a usage
 * error naming the option and the bad word. */
int hosts_parse_list(host_list_t *h, const char *opt, const char *spec);
/* Append the hosts of a file: one per line, "host", "host:N" or
 * "host slots=N"; '#' starts a comment.  0 or -1 (message printed). */
int hosts_parse_file(host_list_t *h, const char *opt, const char *path);
void hosts_free(host_list_t *h);

/* node_of_rank[size]: index of the host each rank runs on.  Also formats
 * PMI_process_mapping into mapping[cap].  0, or -1 when it does not fit. */
int hosts_place(const host_list_t *h, int size, int *node_of_rank, char *mapping, size_t cap);

/* 1 when name means the launcher's own host ("localhost", 127.x, or the
 * name gethostname() returns). */
int hosts_is_self(const char *name);

#endif
