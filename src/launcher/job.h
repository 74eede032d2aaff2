/*
 * job — one run of the program on N ranks: start them, serve PMI, forward
 * I/O and signals from a single event loop, end the job when a rank fails,
 * clean up, and compute the exit status.
 *
 * The loop is one epoll set (signals through a signalfd, children reaped on
 * SIGCHLD) and sleeps whenever nothing happens, so the launcher takes no CPU
 * from ranks that oversubscribe the cores.
 */
#ifndef SKIFF_LAUNCHER_JOB_H
#define SKIFF_LAUNCHER_JOB_H

#include "options.h"

#define JOB_KILL_GRACE_MS 500 /* SIGTERM, then SIGKILL after this: ends within 1 s */

/* Run the job described by o; returns the launcher's exit status. */
int job_run(const launch_opts_t *o);

#endif /* SKIFF_LAUNCHER_JOB_H */
