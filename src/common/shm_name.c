/* shm_name — SipHash-2-4 and the job's object-name tag (see shm_name.h).
 * SipHash as specified by Aumasson and Bernstein (2012): c = 2 compression
 * rounds per 8-byte word, d = 4 finalisation rounds, 64-bit output. */
#include "shm_name.h"

#include <string.h>

#include "pmi_wire.h"

static inline uint64_t rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }

static inline uint64_t load_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline void sip_round(uint64_t v[4])
{
    v[0] += v[1]; v[1] = rotl(v[1], 13); v[1] ^= v[0]; v[0] = rotl(v[0], 32);
    v[2] += v[3]; v[3] = rotl(v[3], 16); v[3] ^= v[2];
    v[0] += v[3]; v[3] = rotl(v[3], 21); v[3] ^= v[0];
    v[2] += v[1]; v[1] = rotl(v[1], 17); v[1] ^= v[2]; v[2] = rotl(v[2], 32);
}

static inline void absorb(uint64_t v[4], uint64_t m)
{
    v[3] ^= m;
    sip_round(v);
    sip_round(v);
    v[0] ^= m;
}

uint64_t shm_siphash24(const uint8_t k[16], const void *msg, size_t len)
{
    const uint8_t *in = msg;
    uint64_t k0 = load_le64(k), k1 = load_le64(k + 8);
    uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
                     k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull};
    size_t whole = len & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8)
        absorb(v, load_le64(in + i));
    /* last word: the remaining bytes, and the length in the top byte */
    uint8_t tail[8] = {0};
    memcpy(tail, in + whole, len - whole);
    tail[7] = (uint8_t)len;
    absorb(v, load_le64(tail));
    v[2] ^= 0xff;
    for (int i = 0; i < 4; i++)
        sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

int job_key_tag(const char *job_key, const char *label, char tag[SHM_TAG_HEX + 1])
{
    size_t n = job_key ? strlen(job_key) : 0, ln = strlen(label);
    if (n == 0 || n > 32 || ln > 64)
        return -1;
    /* The key's digits as a 128-bit number (big-endian, short keys padded
     * with leading zeros); its length goes into the message so "1" and "01"
     * (different keys for the tcp handshake) get different tags too. */
    uint8_t k[16] = {0};
    for (size_t i = 0; i < n; i++) {
        int d = pmi_wire_hexval(job_key[i]);
        if (d < 0)
            return -1;
        size_t nib = 32 - n + i; /* nibble position in the 32-digit number */
        k[nib / 2] |= (uint8_t)(nib % 2 ? d : d << 4);
    }
    char msg[65];
    memcpy(msg, label, ln);
    msg[ln] = (char)n;
    uint64_t h = shm_siphash24(k, msg, ln + 1);
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < SHM_TAG_HEX; i++)
        tag[i] = hex[(h >> (60 - 4 * i)) & 15];
    tag[SHM_TAG_HEX] = '\0';
    return 0;
}

int shm_name_tag(const char *job_key, char tag[SHM_TAG_HEX + 1])
{
    return job_key_tag(job_key, "skiff shm object names v1", tag);
}
