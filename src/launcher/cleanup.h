/*
 * cleanup — the job key and the removal of the job's shared-memory objects.
 *
 * Every job gets a random key; the library names each shared-memory object
 * it creates /dev/shm/skiff-<key>-*.  Ranks can die by SIGKILL before they
 * unlink what they made, so the launcher, which outlives them, removes every
 * object with the job's prefix once all ranks are gone.
 */
#ifndef SKIFF_LAUNCHER_CLEANUP_H
#define SKIFF_LAUNCHER_CLEANUP_H

#define JOB_KEY_HEX 32 /* hex digits of a job key (128 random bits) */
#define SHM_DIR "/dev/shm"

/* Fill key[JOB_KEY_HEX + 1] with fresh random hex from getrandom(2).
 * Returns 0, or -errno. */
int job_key_make(char key[JOB_KEY_HEX + 1]);

/* Unlink every SHM_DIR/skiff-<key>-* entry.  Returns how many were removed;
 * failures are reported on stderr. */
int job_shm_cleanup(const char *key);

#endif /* SKIFF_LAUNCHER_CLEANUP_H */
