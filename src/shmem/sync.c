/*
 * sync.c — waiting, and the barriers every collective stands on.
 *
 * Barrier signals are per-pair counters: sync_in[j] on PE i counts the
 * signals PE j has sent PE i, raised with an atomic add (a CPU atomic on the
 * mapped heap of a node mate, skf_atomic answered by the tcp service thread
 * of any other PE), so no PE has to be inside SHMEM for another to progress.
 * The counters only grow: nothing is reset between barriers and no barrier
 * can meet another's signal early, provided every pair of PEs calls the
 * collectives of their common teams in the same order (as the standard
 * requires of each team).  Two shapes use them:
 *
 *   node (every member mapped here, and either they outnumber the CPUs or
 *        are at most NODE_FLAT_MAX): member 0 waits for one signal from each
 *        other member, then signals each of them back.  A member that waits
 *        sleeps on its doorbell after a short poll, and only the signal that
 *        completes its wait wakes it: each PE is woken about once per barrier,
 *        which is what keeps 8 PEs on 2 cores fast (the dissemination shape
 *        below wakes each PE once per round, and spinning PEs there starved
 *        the ones they waited for);
 *   dissemination (otherwise): in round k member i signals member i+2^k and
 *        waits for the signal of member i-2^k; log2(n) rounds.
 *
 * Waiting: SPIN_POLLS polls (SPIN_POLLS_OVER when the mapped PEs outnumber
 * the CPUs), then WAIT_YIELDS sched_yields, then sleep on the doorbell.
 * Doorbell: the waiter reads its ring, says whose signal it waits for, bumps
 * its sleeper count, re-checks the counter, then futex-waits on ring; the
 * signaller adds to the counter, then reads the sleeper count and whom the
 * sleeper waits for, and rings when that is itself (all sequentially
 * consistent, so one of them always sees the other: no lost wake-up, and
 * no PE is woken by a signal it does not wait for yet).  The same bell
 * serves the collectives' read counter (coll_count): a sleeper publishes the
 * count it waits for, and only the add that reaches it rings.  Only
 * node mates ring; a counter raised over the channel is polled (waits there
 * also drive the channel).
 */
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/relax.h"
#include "shmemi.h"


/* A barrier signal to a PE on another node: this 4-byte message on the SHMEM
 * port, one way (no answer to wait for or to read), counted by the receiver
 * in chan_sig[sender] when its own thread takes it from the channel. */
#define CHAN_SIGNAL 0x53474e4cu

void shmemi_chan_message(const struct iovec *cont, int ncont, int src)
{
    uint32_t m = 0;
    size_t at = 0;
    for (int i = 0; i < ncont; i++) {
        if (at + cont[i].iov_len > sizeof m)
            return; /* not a signal: dropped (nothing else arrives after start-up) */
        memcpy((char *)&m + at, cont[i].iov_base, cont[i].iov_len);
        at += cont[i].iov_len;
    }
    if (at == sizeof m && m == CHAN_SIGNAL && src >= 0 && src < shmemi.npes)
        __atomic_add_fetch(&shmemi.chan_sig[src], 1, __ATOMIC_RELEASE);
}

/* Take one message from the channel, if one is there (chan_lock held): 1 if
 * one was. */
int shmemi_chan_take(void)
{
    struct iovec cont[SKF_CONT_SIZE];
    int ncont;
    skf_addr_t from;
    if (skf_recv(shmemi.ch, cont, &ncont, &from) < 0)
        return 0;
    shmemi_chan_message(cont, ncont, skf_addr_rank(from));
    skf_recv_done(shmemi.ch);
    return 1;
}

/* Drive the channel while waiting: over tcp a message or a request can sit in
 * my send ring until progress runs (a fresh connection's first frames wait
 * for its handshake), and a peer may be waiting for exactly those bytes;
 * barrier signals from other nodes are taken (counted) here. */
static void channel_progress(void)
{
    if (shmemi.thread_level == SHMEM_THREAD_MULTIPLE &&
        pthread_mutex_trylock(&shmemi.chan_lock) != 0)
        return; /* another thread is in the channel: it drives it */
    while (shmemi_chan_take())
        ;
    if (shmemi.thread_level == SHMEM_THREAD_MULTIPLE)
        pthread_mutex_unlock(&shmemi.chan_lock);
}

void shmemi_poll_pause(unsigned *round)
{
    unsigned r = (*round)++;
    if (shmemi.channel_peers && (r >= 64 || r % 16 == 15))
        channel_progress();
    if (r < 64) {
        skf_cpu_relax();
    } else if (r < (1u << 16)) {
        sched_yield(); /* PEs may outnumber cores: let the one we wait for run */
    } else {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
    }
}

#define NODE_FLAT_MAX 8      /* node-shape barrier up to this many members when not oversubscribed */
#define SPIN_POLLS 20000     /* polls before sleeping when every mapped PE has a CPU */
#define SPIN_POLLS_OVER 64   /* ... when they outnumber the CPUs, or some PE is on another node
                                (the wait is then at least a network trip: spinning 20000 polls
                                for it made 2 netns hosts x 2 PEs 2-6 ms a barrier, 64: 0.08-0.14) */
#define WAIT_YIELDS 8        /* then sched_yields: on 2 cores with 8 PEs the one we wait for often
                                is runnable; handing it the CPU is cheaper than a futex round */
#define SLEEP_NS_MAX 20000000L /* a sleeper re-checks at least this often (ns) */

/* Wake mapped PE pe if it sleeps on its bell waiting for what I just did:
 * my signal (waiting_for == me), or a count that has now reached the want
 * it published (waiting_for == which: BELL_COUNT - half; count = coll_count[half]
 * after my add). */
#define BELL_COUNT (-2) /* - half: waits for coll_count[half] */
static void ring_bell(int pe, const uint64_t *count_want, uint64_t count, int32_t which)
{
    struct shmemi_bell *b = (struct shmemi_bell *)shmemi_mapped(shmemi.bell, sizeof *b, pe);
    if (!b || !__atomic_load_n(&b->sleepers, __ATOMIC_SEQ_CST))
        return;
    int32_t waits_for = __atomic_load_n(&b->waiting_for, __ATOMIC_SEQ_CST);
    if (count_want ? waits_for == which && count >= __atomic_load_n(count_want, __ATOMIC_SEQ_CST)
                   : waits_for == shmemi.me) {
        __atomic_fetch_add(&b->ring, 1, __ATOMIC_SEQ_CST);
        syscall(SYS_futex, &b->ring, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
    }
}

/* Signal PE pe over the channel (a PE on another node). */
static void signal_chan(int pe)
{
    uint32_t m = CHAN_SIGNAL;
    struct iovec iov = {&m, sizeof m};
    skf_addr_t to = skf_addr(shmemi.ctx, pe, SKF_PORT_SHMEM);
    ssize_t r;
    shmemi_chan_enter();
    while ((r = skf_send(shmemi.ch, to, &iov, 1)) == -EAGAIN) {
        /* its window is full of my earlier signals: take what came meanwhile
         * (it may wait for a signal of mine in turn), then wait for room */
        while (shmemi_chan_take())
            ;
        r = skf_wait(shmemi.ch, SKF_WRITABLE | SKF_READABLE, 100);
        if (r < 0)
            break;
    }
    shmemi_chan_leave();
    if (r < 0)
        shmemi_fatal("shmem barrier", "signalling PE %d over the channel failed: %s", pe,
                     skf_strerror((int)r));
}

void shmemi_signal_pe(int pe)
{
    uint64_t *w = &shmemi.sync_in[shmemi.me];
    char *p = shmemi_mapped(w, sizeof *w, pe);
    if (!p) {
        signal_chan(pe);
        return;
    }
    __atomic_fetch_add((uint64_t *)p, 1, __ATOMIC_SEQ_CST);
    ring_bell(pe, NULL, 0, 0);
}

/* Wait until PE from's channel signals reach want: take messages from the
 * channel, CHAN_SPIN polls, then a sched_yield between polls (the PE I wait
 * for may share my core: the transport's own spin of 100 us before it
 * sleeps then costs each barrier about that -- 2 PEs pinned to one core on
 * 2 netns hosts, load 18: 440-780 us a barrier, 43-61 us yielding), and
 * CHAN_YIELDS polls later sleep in skf_wait, which a message ends at once.
 * Each poll is a system call (recv), so CHAN_SPIN is small.  Requests to
 * serve are answered by the polls too. */
#define CHAN_SPIN 4
#define CHAN_YIELDS 2000
static void wait_chan(int from, uint64_t want)
{
    const uint64_t *w = &shmemi.chan_sig[from];
    int multi = shmemi.thread_level == SHMEM_THREAD_MULTIPLE;
    unsigned polls = 0;
    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < want) {
        if (multi && pthread_mutex_trylock(&shmemi.chan_lock) != 0) {
            sched_yield(); /* another thread drives the channel */
            continue;
        }
        int r = 0, took = shmemi_chan_take();
        if (!took && polls >= CHAN_SPIN + CHAN_YIELDS &&
            __atomic_load_n(w, __ATOMIC_ACQUIRE) < want)
            r = skf_wait(shmemi.ch, SKF_READABLE, multi ? 1 : 100);
        if (multi)
            pthread_mutex_unlock(&shmemi.chan_lock);
        if (r < 0)
            shmemi_fatal("shmem barrier", "waiting for PE %d's signal failed: %s", from,
                         skf_strerror(r));
        if (took || polls >= CHAN_SPIN + CHAN_YIELDS)
            continue;
        if (polls++ < CHAN_SPIN)
            skf_cpu_relax();
        else
            sched_yield();
    }
}

/* Wait until my word w (raised by node mates only) reaches want: poll, a few
 * yields, then sleep on my bell saying whom I wait for (waiting_for: a PE,
 * or BELL_COUNT - half with want published in *count_want). */
static void wait_mapped(const uint64_t *w, uint64_t want, int32_t waiting_for, uint64_t *count_want)
{
    unsigned spin = shmemi.oversubscribed || shmemi.channel_peers ? SPIN_POLLS_OVER : SPIN_POLLS;
    int yields = WAIT_YIELDS;
    unsigned round = 0;
    struct shmemi_bell *b = shmemi.bell;
    if (count_want)
        __atomic_store_n(count_want, want, __ATOMIC_SEQ_CST);
    for (;;) {
        for (unsigned k = 0; k < spin; k++) {
            if (__atomic_load_n(w, __ATOMIC_ACQUIRE) >= want)
                return;
            skf_cpu_relax();
        }
        if (yields-- > 0) {
            sched_yield();
            spin = SPIN_POLLS_OVER;
            continue;
        }
        if (shmemi.channel_peers)
            shmemi_poll_pause(&round); /* drives the channel now and then */
        uint32_t ring = __atomic_load_n(&b->ring, __ATOMIC_SEQ_CST);
        __atomic_store_n(&b->waiting_for, waiting_for, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&b->sleepers, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(w, __ATOMIC_SEQ_CST) < want) {
            struct timespec ts = {0, shmemi.channel_peers ? 1000000L : SLEEP_NS_MAX};
            syscall(SYS_futex, &b->ring, FUTEX_WAIT, ring, &ts, NULL, 0);
        }
        __atomic_fetch_sub(&b->sleepers, 1, __ATOMIC_SEQ_CST);
        spin = SPIN_POLLS_OVER; /* woken: look, and sleep again soon if it was not for us */
    }
}

/* Wait for the next signal of PE from: poll, then (a node mate) sleep on my bell. */
void shmemi_wait_signal(int from)
{
    const uint64_t *w = &shmemi.sync_in[from];
    uint64_t want = ++shmemi.sync_expect[from];
    if (!shmemi.heap.peer[from])
        wait_chan(from, want); /* signalled over the channel */
    else if (__atomic_load_n(w, __ATOMIC_ACQUIRE) < want)
        wait_mapped(w, want, from, NULL);
}

void shmemi_count_add(int pe, int half)
{
    uint64_t *p = (uint64_t *)shmemi_mapped(&shmemi.coll_count[half], sizeof *p, pe);
    uint64_t v = __atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST);
    ring_bell(pe, (const uint64_t *)shmemi_mapped(shmemi.coll_count_want, sizeof v, pe), v,
              BELL_COUNT - half);
}

void shmemi_wait_count(int half, uint64_t want)
{
    const uint64_t *w = &shmemi.coll_count[half];
    if (__atomic_load_n(w, __ATOMIC_ACQUIRE) < want)
        wait_mapped(w, want, BELL_COUNT - half, shmemi.coll_count_want);
}

/* Every member mapped here, and few of them or more than the CPUs. */
int shmemi_node_shape(const struct shmemi_team *t)
{
    if (!shmemi.oversubscribed && t->n > NODE_FLAT_MAX)
        return 0;
    for (int j = 0; j < t->n; j++)
        if (!shmemi.heap.peer[shmemi_member(t, j)])
            return 0;
    return 1;
}

/* The node-aware shape, for a team on several nodes with more than one member
 * on some: each node's first member (its leader) waits for a signal from
 * every other member there, the leaders run the dissemination among
 * themselves over the channel, and each leader signals its node mates back.
 * One message each way between two nodes per round, log2(nodes) rounds,
 * where a dissemination over all members crosses nodes in nearly every
 * round (2 hosts x 2 PEs: 2 rounds across).  0: the team is on one node, or
 * has one member per node (the plain shapes serve it). */
#define HIER_MAX 256 /* members at most (the leaders' list lives on the stack) */
static int sync_by_node(const struct shmemi_team *t)
{
    int n = t->n, i = t->my, nl = 0, mine = -1;
    int lead[HIER_MAX], node[HIER_MAX]; /* leaders (member indices) and their nodes */
    int my_node = skf_node_id(shmemi.ctx, shmemi.me);
    for (int j = 0; j < n; j++) {
        int nd = skf_node_id(shmemi.ctx, shmemi_member(t, j)), l = 0;
        while (l < nl && node[l] != nd)
            l++;
        if (l == nl) {
            lead[nl] = j;
            node[nl++] = nd;
        }
        if (nd == my_node)
            mine = l;
    }
    if (nl == 1 || nl == n)
        return 0;
    if (lead[mine] != i) {
        shmemi_signal_pe(shmemi_member(t, lead[mine]));
        shmemi_wait_signal(shmemi_member(t, lead[mine]));
        return 1;
    }
    for (int j = i + 1; j < n; j++)
        if (shmemi.heap.peer[shmemi_member(t, j)])
            shmemi_wait_signal(shmemi_member(t, j));
    for (int d = 1; d < nl; d <<= 1) {
        shmemi_signal_pe(shmemi_member(t, lead[(mine + d) % nl]));
        shmemi_wait_signal(shmemi_member(t, lead[(mine - d + nl) % nl]));
    }
    for (int j = i + 1; j < n; j++)
        if (shmemi.heap.peer[shmemi_member(t, j)])
            shmemi_signal_pe(shmemi_member(t, j));
    return 1;
}

void shmemi_team_sync(const struct shmemi_team *t)
{
    int n = t->n, i = t->my;
    shmemi_quiet(); /* my puts in flight have landed (a signal travels only to some PEs) */
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* my puts before my signals */
    if (n < 2)
        return;
    if (shmemi_node_shape(t)) {
        int root = shmemi_member(t, 0);
        if (i != 0) {
            shmemi_signal_pe(root);
            shmemi_wait_signal(root);
            return;
        }
        for (int j = 1; j < n; j++)
            shmemi_wait_signal(shmemi_member(t, j));
        for (int j = 1; j < n; j++)
            shmemi_signal_pe(shmemi_member(t, j));
        return;
    }
    if (n <= HIER_MAX && shmemi.map_by_node && sync_by_node(t))
        return;
    for (int d = 1; d < n; d <<= 1) {
        shmemi_signal_pe(shmemi_member(t, (i + d) % n));
        shmemi_wait_signal(shmemi_member(t, (i - d + n) % n));
    }
}

void shmem_barrier_all(void)
{
    shmemi_check_init("shmem_barrier_all");
    shmemi_team_sync(&shmemi_team_world);
}

void shmem_sync_all(void)
{
    shmemi_check_init("shmem_sync_all");
    shmemi_team_sync(&shmemi_team_world);
}

int shmem_team_sync(shmem_team_t team)
{
    shmemi_check_init("shmem_team_sync");
    if (!team || team->my < 0)
        return -1;
    shmemi_team_sync(team);
    return 0;
}

void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct shmemi_team t;
    (void)pSync;
    shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_barrier");
    shmemi_team_sync(&t);
}

void shmemi_sync_active_set(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    struct shmemi_team t;
    (void)pSync;
    shmemi_active_set(&t, PE_start, logPE_stride, PE_size, "shmem_sync");
    shmemi_team_sync(&t);
}

#undef shmem_sync
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    shmemi_sync_active_set(PE_start, logPE_stride, PE_size, pSync);
}
