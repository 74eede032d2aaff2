/*
 * cleanup — the job key and the removal of the job's shared-memory objects.
 *
 * Every job gets a random key.  The library's shared memory is normally
 * memfd objects that never appear in /dev/shm; with SKIFF_SHM_OBJECTS=dev-shm
 * (or when memfd_create is refused) it names each object
 * /dev/shm/skiff-<tag>-*, the tag derived from the key (src/common/shm_name.h:
 * the names, which every local user can list, do not reveal the key).  Ranks
 * can die by SIGKILL before they unlink what they made, so the launcher,
 * which outlives them, removes every object with the job's prefix once all
 * ranks are gone.
 */
#ifndef SKIFF_LAUNCHER_CLEANUP_H
#define SKIFF_LAUNCHER_CLEANUP_H

#define JOB_KEY_HEX 32 /* hex digits of a job key (128 random bits) */
#define SHM_DIR "/dev/shm"

/* Fill key[JOB_KEY_HEX + 1] with fresh random hex from getrandom(2).
 * Returns 0, or -errno. */
int job_key_make(char key[JOB_KEY_HEX + 1]);

/* Unlink every SHM_DIR/skiff-<tag of key>-* entry.  Returns how many were removed;
 * failures are reported on stderr. */
int job_shm_cleanup(const char *key);

#endif /* SKIFF_LAUNCHER_CLEANUP_H */
