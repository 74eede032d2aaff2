/*
 * shm_name — the public tag that names a job's shared-memory objects.
 *
 * The job key is a secret (it authenticates tcp connections and PMI-over-TCP
 * clients), but /dev/shm can be listed by every local user, so object names
 * carry a tag derived from the key instead: SipHash-2-4 keyed with the job
 * key's 128 bits over a fixed label.  SipHash is a pseudo-random function,
 * so the tag says nothing about the key; the launcher, which knows the key,
 * computes the same tag to find and remove the job's objects after a crash.
 * Shared by the library (src/core) and skiffrun, which both link src/common.
 */
#ifndef SKIFF_SHM_NAME_H
#define SKIFF_SHM_NAME_H

#include <stddef.h>
#include <stdint.h>

#define SHM_TAG_HEX 16 /* hex digits of a tag (64 bits) */

/* SipHash-2-4 of msg[len] under the 16-byte key k. */
uint64_t shm_siphash24(const uint8_t k[16], const void *msg, size_t len);

/* tag[SHM_TAG_HEX + 1] for a job key of 1 to 32 hex digits (either case).
 * Returns 0, or -1 when key is not such a string. */
int shm_name_tag(const char *job_key, char tag[SHM_TAG_HEX + 1]);

/* The same derivation under another label: a public name of the job for
 * another purpose (dynamic processes' endpoints), unrelated to the shm tag
 * and saying nothing about the key. */
int job_key_tag(const char *job_key, const char *label, char tag[SHM_TAG_HEX + 1]);

#endif
