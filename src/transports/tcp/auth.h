/*
 * auth — proving that a peer holds the job key (SKIFF_JOB_KEY), shared by
 * the tcp transport's handshake, the PMI-over-TCP client (src/boot) and the
 * launcher's PMI TCP service.
 *
 * The proof is a challenge-response with HMAC-SHA256 (OpenSSL's libcrypto;
 * never home-made crypto): each side contributes a fresh random nonce, and
 * each side's MAC covers both nonces, the connection's identity and a label
 * saying which side it speaks for, so a recorded answer is useless on any
 * other connection (replay) and one side's MAC cannot be reflected as the
 * other's.  MACs are compared in constant time.
 */
#ifndef SKIFF_TCP_AUTH_H
#define SKIFF_TCP_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define SKF_AUTH_NONCE 16 /* bytes of a nonce          */
#define SKF_AUTH_MAC 32   /* bytes of an HMAC-SHA256   */

/* mac = HMAC-SHA256(key, label || 0 || ctx || nonce_a || nonce_b).
 * Returns 0, or -EIO if the library fails. */
int skf_auth_mac(const char *key, const char *label, const void *ctx, size_t ctx_len,
                 const uint8_t nonce_a[SKF_AUTH_NONCE], const uint8_t nonce_b[SKF_AUTH_NONCE],
                 uint8_t mac[SKF_AUTH_MAC]);
/* 1 when the two MACs are equal (constant time), else 0. */
int skf_auth_equal(const uint8_t a[SKF_AUTH_MAC], const uint8_t b[SKF_AUTH_MAC]);
/* A fresh nonce from getrandom(2).  0 or -errno. */
int skf_auth_nonce(uint8_t nonce[SKF_AUTH_NONCE]);

/* Hex text of n bytes into out[2n+1]; parse exactly 2n hex digits (0 or -EINVAL). */
void skf_auth_hex(const uint8_t *in, size_t n, char *out);
int skf_auth_unhex(const char *in, uint8_t *out, size_t n);

#endif
