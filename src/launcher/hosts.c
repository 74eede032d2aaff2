/* hosts — host lists, host files and rank placement (see hosts.h). */
#include "hosts.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "pmi_server.h"

static int valid_host(const char *s, size_t n)
{
    if (n == 0 || n > HOST_NAME_MAX_LEN)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && !strchr("-._:[]", s[i]))
            return 0;
    return 1;
}

static int add_host(host_list_t *h, const char *name, size_t n, int slots)
{
    for (int i = 0; i < h->nhosts; i++)
        if (strlen(h->hosts[i].name) == n && strncmp(h->hosts[i].name, name, n) == 0) {
            h->hosts[i].slots += slots; /* "a:2,a:2" is one node with 4 slots */
            h->total_slots += slots;
            return 0;
        }
    host_entry_t *grown = realloc(h->hosts, (size_t)(h->nhosts + 1) * sizeof *grown);
    if (!grown)
        return -1;
    h->hosts = grown;
    if (!(h->hosts[h->nhosts].name = strndup(name, n)))
        return -1;
    h->hosts[h->nhosts++].slots = slots;
    h->total_slots += slots;
    return 0;
}

static int parse_slots(const char *s, size_t n, int *out)
{
    long v = 0;
    if (n == 0 || n > 6)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    if (v < 1 || v > LAUNCH_MAX_RANKS)
        return -1;
    *out = (int)v;
    return 0;
}

/* One "host" or "host:N" word of length n. */
static int add_word(host_list_t *h, const char *opt, const char *w, size_t n)
{
    const char *colon = memchr(w, ':', n);
    size_t hn = colon ? (size_t)(colon - w) : n;
    int slots = 1;
    if ((colon && parse_slots(colon + 1, n - hn - 1, &slots) < 0) || !valid_host(w, hn)) {
        fprintf(stderr, "skiffrun: %s '%.*s': expected host or host:N (N from 1 to %d)\n", opt,
                (int)n, w, LAUNCH_MAX_RANKS);
        return -1;
    }
    if (add_host(h, w, hn, slots) < 0) {
        fprintf(stderr, "skiffrun: out of memory for the host list\n");
        return -1;
    }
    return 0;
}

int hosts_parse_list(host_list_t *h, const char *opt, const char *spec)
{
    const char *p = spec;
    if (!*p) {
        fprintf(stderr, "skiffrun: %s: empty host list\n", opt);
        return -1;
    }
    for (;;) {
        const char *comma = strchrnul(p, ',');
        if (add_word(h, opt, p, (size_t)(comma - p)) < 0)
            return -1;
        if (!*comma)
            return 0;
        p = comma + 1;
    }
}

int hosts_parse_file(host_list_t *h, const char *opt, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "skiffrun: %s '%s': %s\n", opt, path, strerror(errno));
        return -1;
    }
    char line[1024];
    int lineno = 0, rc = 0, before = h->nhosts;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *words[3];
        int nw = 0;
        for (char *save, *w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save))
            words[nw < 3 ? nw : 2] = w, nw++;
        if (nw == 0)
            continue;
        if (nw == 1) {
            rc = add_word(h, opt, words[0], strlen(words[0]));
            continue;
        }
        int slots;
        if (nw == 2 && strncmp(words[1], "slots=", 6) == 0 &&
            parse_slots(words[1] + 6, strlen(words[1] + 6), &slots) == 0 &&
            valid_host(words[0], strlen(words[0])) && !strchr(words[0], ':')) {
            rc = add_host(h, words[0], strlen(words[0]), slots);
            continue;
        }
        fprintf(stderr, "skiffrun: %s '%s' line %d: expected 'host', 'host:N' or 'host slots=N'\n",
                opt, path, lineno);
        rc = -1;
    }
    fclose(f);
    if (rc == 0 && h->nhosts == before) {
        fprintf(stderr, "skiffrun: %s '%s': no hosts in the file\n", opt, path);
        rc = -1;
    }
    return rc;
}

void hosts_free(host_list_t *h)
{
    for (int i = 0; i < h->nhosts; i++)
        free(h->hosts[i].name);
    free(h->hosts);
    h->hosts = NULL;
    h->nhosts = h->total_slots = 0;
}

int hosts_place(const host_list_t *h, int size, int *node_of_rank, char *mapping, size_t cap)
{
    /* One mapping block per run of ranks on one host (hydra's format). */
    pmi_map_block_t *blocks = calloc((size_t)size, sizeof *blocks);
    int nblocks = 0, r = 0;
    if (!blocks)
        return -1;
    while (r < size)
        for (int i = 0; i < h->nhosts && r < size; i++) {
            int n = h->hosts[i].slots < size - r ? h->hosts[i].slots : size - r;
            blocks[nblocks++] = (pmi_map_block_t){i, 1, n};
            for (int k = 0; k < n; k++)
                node_of_rank[r++] = i;
        }
    int rc = pmi_mapping_format(blocks, nblocks, mapping, cap) < 0 ? -1 : 0;
    free(blocks);
    return rc;
}

int hosts_is_self(const char *name)
{
    char me[HOST_NAME_MAX_LEN + 1];
    if (strcmp(name, "localhost") == 0 || strncmp(name, "127.", 4) == 0 || strcmp(name, "::1") == 0)
        return 1;
    if (gethostname(me, sizeof me) != 0)
        return 0;
    me[sizeof me - 1] = '\0';
    return strcmp(name, me) == 0;
}
