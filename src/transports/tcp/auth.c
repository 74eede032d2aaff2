/* auth — job-key challenge-response with HMAC-SHA256 (see auth.h). */
#include "transports/tcp/auth.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>

/* OpenSSL frees its global state in an atexit handler unless told not to.  A
 * rank that leaves main without MPI_Finalize still has its tcp RMA service
 * thread running during exit(), and a handshake it answers then would take a
 * freed lock (SIGSEGV in HMAC, seen in the fault matrix's rndv/exit0 case).
 * The process's exit reclaims the memory anyway. */
static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;
static void crypto_init(void)
{
    OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}

int skf_auth_mac(const char *key, const char *label, const void *ctx, size_t ctx_len,
                 const uint8_t nonce_a[SKF_AUTH_NONCE], const uint8_t nonce_b[SKF_AUTH_NONCE],
                 uint8_t mac[SKF_AUTH_MAC])
{
    /* label, a NUL (so no label is a prefix of another's input), the
     * connection identity and both nonces, in one buffer: one-shot HMAC(). */
    pthread_once(&crypto_once, crypto_init);
    uint8_t msg[512];
    size_t llen = strlen(label) + 1;
    if (llen + ctx_len + 2 * SKF_AUTH_NONCE > sizeof msg)
        return -EINVAL;
    memcpy(msg, label, llen);
    memcpy(msg + llen, ctx, ctx_len);
    memcpy(msg + llen + ctx_len, nonce_a, SKF_AUTH_NONCE);
    memcpy(msg + llen + ctx_len + SKF_AUTH_NONCE, nonce_b, SKF_AUTH_NONCE);
    unsigned int out_len = 0;
    if (!HMAC(EVP_sha256(), key, (int)strlen(key), msg, llen + ctx_len + 2 * SKF_AUTH_NONCE, mac,
              &out_len) ||
        out_len != SKF_AUTH_MAC)
        return -EIO;
    return 0;
}

int skf_auth_equal(const uint8_t a[SKF_AUTH_MAC], const uint8_t b[SKF_AUTH_MAC])
{
    return CRYPTO_memcmp(a, b, SKF_AUTH_MAC) == 0;
}

int skf_auth_nonce(uint8_t nonce[SKF_AUTH_NONCE])
{
    size_t got = 0;
    while (got < SKF_AUTH_NONCE) {
        ssize_t n = getrandom(nonce + got, SKF_AUTH_NONCE - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        got += (size_t)n;
    }
    return 0;
}

void skf_auth_hex(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int skf_auth_unhex(const char *in, uint8_t *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hexval(in[2 * i]), lo = hi < 0 ? -1 : hexval(in[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -EINVAL;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return in[2 * n] == '\0' ? 0 : -EINVAL;
}
