#include "pmi_wire.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int pmi_wire_parse(char *line, pmi_kv_t *kv, int max)
{
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
            *p++ = '\0';
        if (*p == '\0')
            return n;
        if (n == max)
            return -EINVAL;
        char *word = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            p++;
        char *eq = memchr(word, '=', (size_t)(p - word));
        if (!eq || eq == word)
            return -EINVAL;
        if (*p)
            *p++ = '\0';
        *eq = '\0';
        kv[n].key = word;
        kv[n].val = eq + 1;
        n++;
    }
}

const char *pmi_wire_find(const pmi_kv_t *kv, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(kv[i].key, key) == 0)
            return kv[i].val;
    return NULL;
}

static int needs_escape(unsigned char c)
{
    return c <= ' ' || c == '=' || c == '%' || c >= 0x7f;
}

int pmi_wire_escape(const char *in, char *out, size_t cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        size_t need = needs_escape(*p) ? 3 : 1;
        if (o + need >= cap)
            return -ENOSPC;
        if (need == 3) {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        } else {
            out[o++] = (char)*p;
        }
    }
    if (o >= cap)
        return -ENOSPC;
    out[o] = '\0';
    return (int)o;
}

int pmi_wire_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

int pmi_wire_unescape(const char *in, char *out, size_t cap)
{
    size_t o = 0;
    for (const char *p = in; *p; p++) {
        char c = *p;
        if (c == '%') {
            int hi = pmi_wire_hexval(p[1]), lo = hi < 0 ? -1 : pmi_wire_hexval(p[2]);
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
                return -EINVAL;
            c = (char)(hi * 16 + lo);
            p += 2;
        }
        if (o + 1 >= cap)
            return -ENOSPC;
        out[o++] = c;
    }
    if (cap == 0)
        return -ENOSPC;
    out[o] = '\0';
    return (int)o;
}

long pmi_linebuf_fill(pmi_linebuf_t *b, int fd)
{
    if (b->len == sizeof b->buf) {
        /* A full buffer without a newline: the line is over-long; drop it. */
        b->len = 0;
        b->overflow = 1;
    }
    ssize_t n;
    do
        n = read(fd, b->buf + b->len, sizeof b->buf - b->len);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    b->len += (size_t)n;
    return n;
}

int pmi_linebuf_next(pmi_linebuf_t *b, char *line, size_t cap)
{
    char *nl = memchr(b->buf, '\n', b->len);
    if (!nl)
        return 0;
    size_t llen = (size_t)(nl - b->buf);
    int rc = 1;
    if (b->overflow || llen + 1 > cap) {
        rc = -EMSGSIZE;
        b->overflow = 0;
    } else {
        memcpy(line, b->buf, llen);
        line[llen] = '\0';
    }
    b->len -= llen + 1;
    memmove(b->buf, nl + 1, b->len);
    return rc;
}

int pmi_wire_write_all(int fd, const char *buf, size_t len)
{
    while (len) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}
