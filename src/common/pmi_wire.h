/*
 * pmi_wire — the text format of the simple PMI-1 wire protocol, shared by the
 * client (src/boot) and the server (src/launcher).
 *
 * A message is one line of space-separated key=value words ending in '\n',
 * e.g. "cmd=put kvsname=kvs_1 key=a value=b\n".  Values Skiff writes are
 * %XX-escaped (space, '=', '%', control bytes) so any byte string survives;
 * unescaping a value that was never escaped is the identity, so values written
 * by other PMI implementations read back unchanged.
 */
#ifndef SKIFF_PMI_WIRE_H
#define SKIFF_PMI_WIRE_H

#include <stddef.h>

#define PMI_WIRE_LINE_MAX 4096 /* longest accepted line, including '\n' */
#define PMI_WIRE_MAX_WORDS 16  /* most key=value words in one line     */

typedef struct pmi_kv {
    const char *key;
    const char *val;
} pmi_kv_t;

/* Split a NUL-terminated line (modified in place) into words.
 * Returns the number of words, or -EINVAL for a word without '=' or too many. */
int pmi_wire_parse(char *line, pmi_kv_t *kv, int max);
/* Value of key among the parsed words, or NULL. */
const char *pmi_wire_find(const pmi_kv_t *kv, int n, const char *key);

/* Value of one hex digit (either case), or -1. */
int pmi_wire_hexval(char c);

/* Escape/unescape into out[cap].  Return the length written (without NUL), or
 * -ENOSPC when out is too small, -EINVAL for a malformed escape. */
int pmi_wire_escape(const char *in, char *out, size_t cap);
int pmi_wire_unescape(const char *in, char *out, size_t cap);

/* Incoming byte stream cut into lines. */
typedef struct pmi_linebuf {
    char buf[PMI_WIRE_LINE_MAX];
    size_t len;
    int overflow; /* currently discarding an over-long line */
} pmi_linebuf_t;

/* One read(2) from fd into the buffer: >0 bytes read, 0 at EOF, -errno. */
long pmi_linebuf_fill(pmi_linebuf_t *b, int fd);
/* Take the next complete line out of the buffer (without '\n', NUL-terminated,
 * into line[cap] with cap >= PMI_WIRE_LINE_MAX).  Returns 1 for a line, 0 when
 * no complete line is buffered, -EMSGSIZE for an over-long line (dropped). */
int pmi_linebuf_next(pmi_linebuf_t *b, char *line, size_t cap);

/* Write all of buf to fd, retrying on EINTR/short writes. 0 or -errno. */
int pmi_wire_write_all(int fd, const char *buf, size_t len);

#endif /* SKIFF_PMI_WIRE_H */
