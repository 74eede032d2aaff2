/*
 * sock_call.h — the socket calls of tcp's polling paths, made as bare
 * system calls.
 *
 * glibc's recv/send/sendmsg/readv/epoll_wait are thread-cancellation
 * points: in a process with more than one thread (every Skiff rank has its
 * RMA service thread) each call switches asynchronous cancellation on and
 * off around the system call.  A waiting rank polls its socket with a
 * failing recv several million times a second, and those two switches were
 * 5-6 % of its samples (perf, 8-byte netns ping-pong; a single-threaded
 * raw TCP probe has none; the ping-pong's latency moved within its noise,
 * the polling thread's CPU did not).  syscall() is not a cancellation point, and
 * Skiff never wants one inside a transport call anyway: a thread cancelled
 * mid-frame would leave its connection's stream cut.
 *
 * Same contract as the libc calls: -1 and errno on failure.  Where the
 * architecture has no direct system call number, the libc call is used.
 */
#ifndef SKIFF_TCP_SOCK_CALL_H
#define SKIFF_TCP_SOCK_CALL_H

#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static inline ssize_t sc_recv(int fd, void *buf, size_t n, int flags)
{
#ifdef SYS_recvfrom
    return syscall(SYS_recvfrom, fd, buf, n, flags, NULL, NULL);
#else
    return recv(fd, buf, n, flags);
#endif
}

static inline ssize_t sc_send(int fd, const void *buf, size_t n, int flags)
{
#ifdef SYS_sendto
    return syscall(SYS_sendto, fd, buf, n, flags, NULL, 0);
#else
    return send(fd, buf, n, flags);
#endif
}

static inline ssize_t sc_sendmsg(int fd, const struct msghdr *m, int flags)
{
#ifdef SYS_sendmsg
    return syscall(SYS_sendmsg, fd, m, flags);
#else
    return sendmsg(fd, m, flags);
#endif
}

static inline ssize_t sc_readv(int fd, const struct iovec *v, int n)
{
#ifdef SYS_readv
    return syscall(SYS_readv, fd, v, n);
#else
    return readv(fd, v, n);
#endif
}

/* epoll_pwait with no mask: the one every architecture has */
static inline int sc_epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout_ms)
{
#ifdef SYS_epoll_pwait
    return (int)syscall(SYS_epoll_pwait, epfd, ev, max, timeout_ms, NULL, (size_t)(_NSIG / 8));
#else
    return epoll_wait(epfd, ev, max, timeout_ms);
#endif
}

#endif
