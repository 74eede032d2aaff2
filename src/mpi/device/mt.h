/*
 * mt.h — MPI_THREAD_MULTIPLE: the device lock and the waiting protocol
 * (docs/threads.md).
 *
 * mpir_mt is set once, by MPI_Init_thread asking for MPI_THREAD_MULTIPLE,
 * before any other thread may call MPI.  Every helper here tests it first
 * (predicted false): a program at SINGLE/FUNNELED/SERIALIZED pays one load
 * and a not-taken branch, never an atomic or a lock.
 *
 * Under MULTIPLE the device's shared state (request pool, matching queues,
 * send FIFOs, the channel and its transports, the collective schedule list,
 * the communicator table) is guarded by one lock (mt.c), held only for short
 * non-blocking sections, never while a thread waits for its request.  It
 * is recursive per thread (a depth counter) because progress calls back
 * into the device (schedules start sends).  A thread waiting for its
 * request drives progress only if it gets the lock by trylock; otherwise it
 * sleeps on the progress epoch, bumped at every unlock, and looks at its
 * own request's done flag (release/acquire) when it wakes.
 */
#ifndef SKIFF_MPI_DEVICE_MT_H
#define SKIFF_MPI_DEVICE_MT_H

#pragma GCC visibility push(hidden)

extern int mpir_mt; /* 1: the program asked for MPI_THREAD_MULTIPLE */
/* initial-exec: a plain %fs-relative access, no __tls_get_addr call */
extern __thread int mpid_cs_depth __attribute__((tls_model("initial-exec")));

void mpid_cs_lock_slow(void);
void mpid_cs_unlock_slow(void);
int mpid_cs_trylock_slow(void);
/* Waiting without the lock (MULTIPLE): sleep until another thread unlocks
 * after this thread's last wait ended, the lock is free, or 1 ms. */
void mpid_mt_wait_epoch(void);
/* Threads asleep until the next unlock. */
int mpid_mt_sleepers(void);
/* After a wait that held the lock: the epoch now counts as seen. */
void mpid_mt_saw_epoch(void);
/* Someone sleeps in the channel holding the lock: wake it (lock_slow does). */
extern int mpid_mt_lock_waiters;

static inline int mpid_cs_enter(void)
{
    if (__builtin_expect(!mpir_mt, 1))
        return 0;
    mpid_cs_lock_slow();
    return 1;
}

static inline void mpid_cs_exit(int held)
{
    if (__builtin_expect(held, 0))
        mpid_cs_unlock_slow();
}

static inline void mpid_cs_scope_end(int *held) { mpid_cs_exit(*held); }

/* The device lock from here to the end of the enclosing block. */
#define MPID_CS_SCOPE()                                                                 \
    int mpid_cs_held_ __attribute__((cleanup(mpid_cs_scope_end), unused)) = mpid_cs_enter()

/* Reference counts of shared objects (datatypes, groups, ops, error
 * handlers): atomic only under MULTIPLE.  Returns the new count. */
static inline int mpid_ref_add(int *refs, int d)
{
    if (__builtin_expect(mpir_mt, 0))
        return __atomic_add_fetch(refs, d, __ATOMIC_ACQ_REL);
    return *refs += d;
}

/* Completion flags: written under the lock, read by waiters without it.
 * On x86 both are plain moves; they only keep the compiler's order. */
#define REQ_DONE(r) __atomic_load_n(&(r)->done, __ATOMIC_ACQUIRE)
#define REQ_SET_DONE(r) __atomic_store_n(&(r)->done, 1, __ATOMIC_RELEASE)

#pragma GCC visibility pop

#endif /* SKIFF_MPI_DEVICE_MT_H */
