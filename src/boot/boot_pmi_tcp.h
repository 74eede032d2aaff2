/*
 * boot_pmi_tcp — reaching the launcher's PMI service over TCP (PMI_PORT),
 * for ranks a launcher started on another host.  After the job-key check
 * (src/launcher/pmi_tcp.h describes the four lines), the connection carries
 * the same PMI-1 protocol as PMI_FD, served by boot_pmi1.c.
 */
#ifndef SKIFF_BOOT_PMI_TCP_H
#define SKIFF_BOOT_PMI_TCP_H

#include <stddef.h>

/* Connect to PMI_PORT ("a.b.c.d:port" or "[v6]:port"), prove the job key
 * (SKIFF_JOB_KEY) and check the launcher's proof.  Sets rank (PMI_ID, else
 * PMI_RANK), size (PMI_SIZE) and the connected blocking fd.  0 or -errno
 * after one line on stderr. */
int boot_pmi_tcp_connect(const char *port_env, int *rank, int *size, int *fd);
/* The local address of that connection ("10.0.0.2"): the interface from
 * which this process reaches the launcher.  -ENOENT when PMI is not over TCP. */
int boot_pmi_tcp_local_addr(char *out, size_t cap);

#endif
