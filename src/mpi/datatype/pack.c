/*
 * pack.c — moving typed data: pack/unpack through the flattened runs (any
 * byte range of the packed stream, so a message can be packed or unpacked
 * piece by piece), the type-map walk over constructor arguments, element
 * counts, and the external32 representation (big-endian, standard sizes).
 */
#include <string.h>

#include "datatype/dtype.h"

/* Copy n runs of L bytes, `stride` apart in the typed buffer, packed in the
 * stream.  Small fixed lengths get inline moves instead of memcpy calls. */
#define RUN_LOOP(L_)                                                                               \
    for (int64_t i = 0; i < n; i++, p += stride, s += (L_)) {                                    \
        if (unpack)                                                                                \
            memcpy(p, s, (L_));                                                                    \
        else                                                                                       \
            memcpy(s, p, (L_));                                                                    \
    }
static char *strided(char *p, char *s, int64_t n, int64_t L, int64_t stride, int unpack)
{
    switch (L) {
    case 4:
        RUN_LOOP(4);
        break;
    case 8:
        RUN_LOOP(8);
        break;
    case 16:
        RUN_LOOP(16);
        break;
    default:
        RUN_LOOP((size_t)L);
    }
    return s;
}

/* Copy L bytes; short lengths as two overlapping fixed-size moves (no call). */
static inline void move(char *dst, const char *src, size_t L)
{
    if (L >= 8 && L <= 16) {
        uint64_t a, b;
        memcpy(&a, src, 8);
        memcpy(&b, src + L - 8, 8);
        memcpy(dst, &a, 8);
        memcpy(dst + L - 8, &b, 8);
    } else if (L >= 4 && L < 8) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + L - 4, 4);
        memcpy(dst, &a, 4);
        memcpy(dst + L - 4, &b, 4);
    } else if (L < 4) {
        for (size_t i = 0; i < L; i++)
            dst[i] = src[i];
    } else {
        memcpy(dst, src, L);
    }
}

/* Bytes [at, at+n) of one repetition of the runs, at rb: the general loop. */
static char *copy_in_rep(const struct dtype_rep *t, uintptr_t rb, size_t at, size_t n, char *s,
                         int unpack)
{
    for (int64_t k = 0; k < t->nruns && n; k++) {
        size_t L = (size_t)t->runs[k].len;
        if (at >= L) {
            at -= L;
            continue;
        }
        char *p = (char *)(rb + (uintptr_t)t->runs[k].off + at);
        size_t m = L - at < n ? L - at : n;
        at = 0;
        if (unpack)
            memcpy(p, s, m);
        else
            memcpy(s, p, m);
        s += m;
        n -= m;
    }
    return s;
}

/* Whole repetitions r0 .. r0+nrep-1 of one element at base. */
static char *copy_reps(const struct dtype_rep *t, uintptr_t base, int64_t r0, int64_t nrep, char *s,
                       int unpack)
{
    uintptr_t rb = base + (uintptr_t)(r0 * t->rep_stride);
    if (t->nruns == 1)
        return strided((char *)(rb + (uintptr_t)t->runs[0].off), s, nrep, t->runs[0].len,
                       t->rep_stride, unpack);
    for (int64_t r = 0; r < nrep; r++, rb += (uintptr_t)t->rep_stride)
        for (int64_t k = 0; k < t->nruns; k++) {
            char *p = (char *)(rb + (uintptr_t)t->runs[k].off);
            size_t L = (size_t)t->runs[k].len;
            if (unpack)
                move(p, s, L);
            else
                move(s, p, L);
            s += L;
        }
    return s;
}

/* Bytes [at, at+n) of the element at base: a partial repetition, whole ones
 * through the fast loops, a partial one. */
static char *copy_in_element(const struct MPI_ABI_Datatype *d, uintptr_t base, size_t at, size_t n,
                             char *s, int unpack)
{
    const struct dtype_rep *t = d->rep;
    size_t rep_size = (size_t)d->size / (size_t)t->reps;
    int64_t r = (int64_t)(at / rep_size);
    size_t in = at % rep_size;
    if (in) {
        size_t k = rep_size - in < n ? rep_size - in : n;
        s = copy_in_rep(t, base + (uintptr_t)(r * t->rep_stride), in, k, s, unpack);
        n -= k;
        r++;
    }
    int64_t whole = (int64_t)(n / rep_size);
    if (whole) {
        s = copy_reps(t, base, r, whole, s, unpack);
        n -= (size_t)whole * rep_size;
        r += whole;
    }
    if (n)
        s = copy_in_rep(t, base + (uintptr_t)(r * t->rep_stride), 0, n, s, unpack);
    return s;
}

/* Whole elements from the one at base on; one run per element is a single
 * strided loop over all of them. */
static void copy_elements(const struct MPI_ABI_Datatype *d, uintptr_t base, int64_t count, char *s,
                          int unpack)
{
    const struct dtype_rep *t = d->rep;
    if (t->nruns == 1 && t->reps == 1) {
        strided((char *)(base + (uintptr_t)t->runs[0].off), s, count, t->runs[0].len, d->extent,
                unpack);
        return;
    }
    for (int64_t e = 0; e < count; e++, base += (uintptr_t)d->extent)
        s = copy_reps(t, base, 0, t->reps, s, unpack);
}

size_t dt_copy(const struct MPI_ABI_Datatype *d, const void *buf, int64_t count, size_t skip,
               void *stream, size_t len, int unpack)
{
    size_t size = d->size;
    if (size == 0 || count <= 0)
        return 0;
    size_t total = (size_t)count * size;
    if (skip >= total)
        return 0;
    if (len > total - skip)
        len = total - skip;
    /* a window of the stream (pull windows, eager pieces): the partial
     * elements at its ends the slow way, the whole ones in between fast */
    int64_t e = (int64_t)(skip / size);
    size_t in = skip % size, left = len;
    char *s = stream;
    if (in) {
        size_t k = size - in < left ? size - in : left;
        s = copy_in_element(d, (uintptr_t)buf + (uintptr_t)(e * d->extent), in, k, s, unpack);
        left -= k;
        e++;
    }
    int64_t whole = (int64_t)(left / size);
    if (whole) {
        copy_elements(d, (uintptr_t)buf + (uintptr_t)(e * d->extent), whole, s, unpack);
        s += (size_t)whole * size;
        left -= (size_t)whole * size;
        e += whole;
    }
    if (left)
        copy_in_element(d, (uintptr_t)buf + (uintptr_t)(e * d->extent), 0, left, s, unpack);
    return len;
}

void dt_move(const struct MPI_ABI_Datatype *d, void *dst, const void *src, int64_t count)
{
    const struct dtype_rep *t = d->rep;
    for (int64_t e = 0; e < count; e++)
        for (int64_t r = 0; r < t->reps; r++) {
            int64_t at = e * d->extent + r * t->rep_stride;
            for (int64_t k = 0; k < t->nruns; k++)
                memcpy((char *)dst + at + t->runs[k].off, (const char *)src + at + t->runs[k].off,
                       (size_t)t->runs[k].len);
        }
}

/* ---- type-map walk ----------------------------------------------------------- */
static int walk_copies(const struct MPI_ABI_Datatype *t, int64_t base, int64_t n, dt_leaf_fn fn,
                       void *ctx)
{
    for (int64_t j = 0; j < n; j++) {
        int rc = dt_walk(t, base + j * t->extent, fn, ctx);
        if (rc)
            return rc;
    }
    return 0;
}

int dt_walk(const struct MPI_ABI_Datatype *d, int64_t base, dt_leaf_fn fn, void *ctx)
{
    const struct dtype_rep *t = d->rep;
    const int64_t *in = t->ints;
    const MPI_Aint *a = t->aints;
    struct MPI_ABI_Datatype *const *ty = t->types;
    int rc = 0;
    int64_t n = in ? in[0] : 0;
    switch (t->combiner) {
    case MPI_COMBINER_NAMED:
        if (!t->field[0])
            return fn(ctx, base, d);
        if ((rc = fn(ctx, base + t->field_off[0], t->field[0])))
            return rc;
        return fn(ctx, base + t->field_off[1], t->field[1]);
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        return dt_walk(ty[0], base, fn, ctx);
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        return dt_walk(t->inner, base, fn, ctx);
    case MPI_COMBINER_CONTIGUOUS:
        return walk_copies(ty[0], base, n, fn, ctx);
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR: {
        int64_t stride = t->combiner == MPI_COMBINER_VECTOR ? (int64_t)in[2] * ty[0]->extent : a[0];
        for (int64_t i = 0; i < n && !rc; i++)
            rc = walk_copies(ty[0], base + i * stride, in[1], fn, ctx);
        return rc;
    }
    case MPI_COMBINER_INDEXED:
        for (int64_t i = 0; i < n && !rc; i++)
            rc = walk_copies(ty[0], base + (int64_t)in[1 + n + i] * ty[0]->extent, in[1 + i], fn,
                             ctx);
        return rc;
    case MPI_COMBINER_HINDEXED:
        for (int64_t i = 0; i < n && !rc; i++)
            rc = walk_copies(ty[0], base + a[i], in[1 + i], fn, ctx);
        return rc;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int64_t i = 0; i < n && !rc; i++)
            rc = walk_copies(ty[0], base + (int64_t)in[2 + i] * ty[0]->extent, in[1], fn, ctx);
        return rc;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int64_t i = 0; i < n && !rc; i++)
            rc = walk_copies(ty[0], base + a[i], in[1], fn, ctx);
        return rc;
    case MPI_COMBINER_STRUCT:
        for (int64_t i = 0; i < n && !rc; i++)
            rc = walk_copies(ty[i], base + a[i], in[1 + i], fn, ctx);
        return rc;
    }
    return 0;
}

/* ---- element counts ---------------------------------------------------------- */
typedef struct count_ctx {
    int64_t bytes_left, elements;
} count_ctx_t;

static int count_leaf(void *ctx, int64_t off, const struct MPI_ABI_Datatype *b)
{
    (void)off;
    count_ctx_t *c = ctx;
    if ((int64_t)b->size > c->bytes_left)
        return 1;
    c->bytes_left -= (int64_t)b->size;
    c->elements++;
    return 0;
}

int64_t dt_elements(const struct MPI_ABI_Datatype *d, int64_t bytes)
{
    const struct dtype_rep *t = d->rep;
    if (d->size == 0)
        return 0;
    if (t->basic_size)
        return bytes / t->basic_size;
    int64_t whole = bytes / (int64_t)d->size;
    count_ctx_t c = {bytes - whole * (int64_t)d->size, 0};
    if (c.bytes_left)
        dt_walk(d, 0, count_leaf, &c);
    return whole * t->nbasic + c.elements;
}

typedef struct bytes_ctx {
    int64_t elements_left, bytes;
} bytes_ctx_t;

static int bytes_leaf(void *ctx, int64_t off, const struct MPI_ABI_Datatype *b)
{
    (void)off;
    bytes_ctx_t *c = ctx;
    if (c->elements_left == 0)
        return 1;
    c->elements_left--;
    c->bytes += (int64_t)b->size;
    return 0;
}

int64_t dt_bytes_of_elements(const struct MPI_ABI_Datatype *d, int64_t n)
{
    const struct dtype_rep *t = d->rep;
    if (t->nbasic == 0)
        return 0;
    if (t->basic_size)
        return n * t->basic_size;
    int64_t whole = n / t->nbasic;
    bytes_ctx_t c = {n - whole * t->nbasic, 0};
    if (c.elements_left)
        dt_walk(d, 0, bytes_leaf, &c);
    return whole * (int64_t)d->size + c.bytes;
}

/* ---- external32 -------------------------------------------------------------- */
/* Size of a basic type in external32; 0 for types it does not define. */
static int ext32_size(const struct MPI_ABI_Datatype *b)
{
    switch ((int)(b - mpir_dtype_predef) + 0x200) {
    case 0x207: case 0x243: case 0x244: case 0x245: case 0x247: case 0x238: case 0x240:
    case 0x241: case 0x239:
    case 0x21e: case 0x2c0: case 0x2c1: /* Fortran CHARACTER, LOGICAL1, INTEGER1 */
        return 1;
    case 0x208: case 0x20c: case 0x248: case 0x249:
    case 0x2c8: case 0x2c9: case 0x2ca:
        return 2;
    case 0x209: case 0x20a: case 0x20d: case 0x20e: case 0x210: case 0x23c: case 0x250:
    case 0x251:
    case 0x218: case 0x219: case 0x21a: case 0x2d0: case 0x2d1: case 0x2d2: case 0x2d3:
        return 4;
    case 0x201: case 0x202: case 0x203: case 0x20b: case 0x20f: case 0x214: case 0x258:
    case 0x259: case 0x212: case 0x213:
    case 0x21b: case 0x21c: case 0x2d8: case 0x2d9: case 0x2da: case 0x2db:
        return 8;
    case 0x216: case 0x217: case 0x220:
    case 0x21d: case 0x2e0: case 0x2e1: case 0x2e2: case 0x2e3:
        return 16;
    case 0x224: case 0x225:
    case 0x2eb:
        return 32;
    }
    return 0;
}

typedef struct ext_ctx {
    uintptr_t buf;
    char *io;
    size_t pos, room;
    int unpack, err;
} ext_ctx_t;

static void swap_into(unsigned char *dst, const unsigned char *src, int n)
{
    for (int i = 0; i < n; i++)
        dst[i] = src[n - 1 - i];
}

/* One scalar (n bytes external, m bytes native) between native and big-endian. */
static int scalar(ext_ctx_t *c, unsigned char *native, int m, int n, int is_signed,
                  int is_ldouble)
{
    unsigned char *x = (unsigned char *)c->io + c->pos;
    if (is_ldouble) { /* x87 80-bit <-> IEEE binary128 */
        __float128 q;
        if (!c->unpack) {
            long double v;
            memcpy(&v, native, sizeof v);
            q = (__float128)v;
            swap_into(x, (unsigned char *)&q, 16);
        } else {
            swap_into((unsigned char *)&q, x, 16);
            long double v = (long double)q;
            memcpy(native, &v, sizeof v);
        }
    } else if (m == n) {
        if (!c->unpack)
            swap_into(x, native, n);
        else
            swap_into(native, x, n);
    } else { /* long: 8 bytes here, 4 in external32 */
        int64_t v = 0;
        if (!c->unpack) {
            memcpy(&v, native, 8);
            if (is_signed ? (v < INT32_MIN || v > INT32_MAX) : ((uint64_t)v > UINT32_MAX))
                return MPI_ERR_CONVERSION;
            uint32_t w = (uint32_t)v;
            swap_into(x, (unsigned char *)&w, 4);
        } else {
            uint32_t w;
            swap_into((unsigned char *)&w, x, 4);
            v = is_signed ? (int64_t)(int32_t)w : (int64_t)w;
            memcpy(native, &v, 8);
        }
    }
    c->pos += (size_t)n;
    return 0;
}

static int ext_leaf(void *ctx, int64_t off, const struct MPI_ABI_Datatype *b)
{
    ext_ctx_t *c = ctx;
    int n = ext32_size(b), val = (int)(b - mpir_dtype_predef) + 0x200;
    if (n == 0)
        return c->err = MPI_ERR_TYPE;
    if (c->pos + (size_t)n > c->room)
        return c->err = MPI_ERR_TRUNCATE;
    unsigned char *native = (unsigned char *)(c->buf + (uintptr_t)off);
    int complex = val == 0x212 || val == 0x216 || val == 0x224 || val == 0x213 || val == 0x217 ||
                  val == 0x225 || val == 0x21b || val == 0x21d || val == 0x2d3 || val == 0x2db ||
                  val == 0x2e3 || val == 0x2eb;
    int parts = complex ? 2 : 1, m = (int)b->size / parts, nn = n / parts;
    int ld = val == 0x220 || val == 0x224 || val == 0x225;
    int sgn = val == 0x20a;
    for (int p = 0; p < parts; p++)
        if ((c->err = scalar(c, native + p * m, m, nn, sgn, ld)))
            return c->err;
    return 0;
}

static int ext_size_leaf(void *ctx, int64_t off, const struct MPI_ABI_Datatype *b)
{
    (void)off;
    *(int64_t *)ctx += ext32_size(b);
    return 0;
}

int64_t dt_external32_size(const struct MPI_ABI_Datatype *d)
{
    int64_t n = 0;
    dt_walk(d, 0, ext_size_leaf, &n);
    return n;
}

static int external(const struct MPI_ABI_Datatype *d, uintptr_t buf, int64_t count, char *io,
                    size_t room, size_t *pos, int unpack)
{
    ext_ctx_t c = {0, io, *pos, room, unpack, 0};
    for (int64_t e = 0; e < count && !c.err; e++) {
        c.buf = buf + (uintptr_t)(e * d->extent);
        dt_walk(d, 0, ext_leaf, &c);
    }
    if (!c.err)
        *pos = c.pos;
    return c.err;
}

int dt_pack_external(const struct MPI_ABI_Datatype *d, const void *buf, int64_t count, char *out,
                     size_t room, size_t *pos)
{
    return external(d, (uintptr_t)buf, count, out, room, pos, 0);
}

int dt_unpack_external(const struct MPI_ABI_Datatype *d, void *buf, int64_t count, const char *in,
                       size_t avail, size_t *pos)
{
    return external(d, (uintptr_t)buf, count, (char *)in, avail, pos, 1);
}
