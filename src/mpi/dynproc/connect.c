/*
 * connect.c — joining two groups of processes that did not start together:
 * MPI_Open_port/Close_port, MPI_Comm_accept/connect, MPI_Comm_join,
 * MPI_Comm_disconnect, MPI_Comm_get_parent, and the name service
 * (MPI_Publish_name/Unpublish_name/Lookup_name).
 *
 * Every join is one agreement, as for MPI_Intercomm_create: inside each group
 * an allgather of (free-context mask, bridge endpoint); the two roots swap
 * their group's size, mask and endpoints over one TCP connection (the port);
 * each root broadcasts the other side's to its group.  The intercommunicator
 * takes the lowest context id free in both groups; the other side's processes
 * become bridge peers (bridge.h).  A port is a listening socket:
 * "skiff-port:<ip>:<port>:<nonce>"; the connecting root must name the nonce.
 */
#include "dynproc/dynproc.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding/check.h"
#include "comm_create.h"
#include "device/device.h"
#include "dynproc/bridge.h"
#include "info/info.h"

#define TAG_DYN 0x7fffffe0 /* internal messages of a join (below TAG_CREATE) */
#define HS_MAGIC "skiffdp1"

typedef struct hs_hdr { /* what one root tells the other */
    char magic[8];
    char nonce[33];
    char pad[3];
    int32_t status; /* 0, or an MPI error class: the join failed on that side */
    int32_t size;
    ctx_mask_t mask;
} hs_hdr_t;

typedef struct member {
    ctx_mask_t mask;
    char ep[DYN_EP_LEN];
} member_t;

/* ---- blocking socket I/O that keeps MPI progressing ------------------------------ */
/* Wait until fd has `events`; 0, or -1 when watch (a launcher pid, 0: none)
 * ended first. */
static int wait_fd(int fd, short events, pid_t watch)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, 10);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            return -1;
        if (watch > 0) {
            int st;
            if (waitpid(watch, &st, WNOHANG) == watch)
                return -1;
        }
        if (mpir_initialized)
            mpid_progress();
    }
}

static int io_all(int fd, void *buf, size_t n, int writing)
{
    char *p = buf;
    while (n) {
        ssize_t k = writing ? send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT)
                            : recv(fd, p, n, MSG_DONTWAIT);
        if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
            if (wait_fd(fd, writing ? POLLOUT : POLLIN, 0))
                return -1;
            continue;
        }
        if (k <= 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Send my group's header and endpoints, or read the other side's (eps malloc'd). */
static int send_side(int fd, const hs_hdr_t *h, const char *eps)
{
    return io_all(fd, (void *)h, sizeof *h, 1) ||
           io_all(fd, (void *)eps, (size_t)h->size * DYN_EP_LEN, 1);
}

static int read_side(int fd, hs_hdr_t *h, char **eps)
{
    *eps = NULL;
    if (io_all(fd, h, sizeof *h, 0) || memcmp(h->magic, HS_MAGIC, 8) != 0 || h->size < 0 ||
        h->size > (1 << 20))
        return -1;
    h->nonce[32] = '\0';
    if (!(*eps = malloc((size_t)(h->size ? h->size : 1) * DYN_EP_LEN)))
        return -1;
    return io_all(fd, *eps, (size_t)h->size * DYN_EP_LEN, 0);
}

/* ---- ports ------------------------------------------------------------------------- */
typedef struct port {
    char name[MPI_MAX_PORT_NAME];
    int fd;
    struct port *next;
} port_t;
static port_t *ports;

static int parse_port(const char *name, struct sockaddr_in *a, char nonce[33])
{
    char ip[64];
    unsigned pn;
    memset(a, 0, sizeof *a);
    if (sscanf(name, "skiff-port:%63[^:]:%u:%32[0-9a-f]", ip, &pn, nonce) != 3 || pn > 65535 ||
        strlen(nonce) != 32)
        return -1;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)pn);
    return inet_pton(AF_INET, ip, &a->sin_addr) == 1 ? 0 : -1;
}

int dyn_open_port(char *name)
{
    int rc = dyn_start();
    if (rc)
        return rc;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY)};
    socklen_t alen = sizeof a;
    port_t *p = calloc(1, sizeof *p);
    unsigned char rnd[16];
    if (!p || fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 16) ||
        getsockname(fd, (struct sockaddr *)&a, &alen) || getrandom(rnd, sizeof rnd, 0) != 16) {
        if (fd >= 0)
            close(fd);
        free(p);
        return MPI_ERR_PORT;
    }
    char ip[64] = "127.0.0.1";
    const char *ep = dyn_endpoint(); /* the address others reach me at */
    sscanf(ep, "%63[^:]", ip);
    char nonce[33];
    for (int i = 0; i < 16; i++)
        snprintf(nonce + 2 * i, 3, "%02x", rnd[i]);
    snprintf(p->name, sizeof p->name, "skiff-port:%s:%u:%s", ip, ntohs(a.sin_port), nonce);
    p->fd = fd;
    p->next = ports;
    ports = p;
    snprintf(name, MPI_MAX_PORT_NAME, "%s", p->name);
    return MPI_SUCCESS;
}

static port_t *find_port(const char *name, port_t ***link)
{
    port_t **l = &ports;
    for (; *l; l = &(*l)->next)
        if (strcmp((*l)->name, name) == 0) {
            if (link)
                *link = l;
            return *l;
        }
    return NULL;
}

int dyn_close_port(const char *name)
{
    port_t **l, *p = find_port(name, &l);
    if (!p)
        return MPI_ERR_PORT;
    *l = p->next;
    close(p->fd);
    free(p);
    return MPI_SUCCESS;
}

/* ---- the root's half of a join ------------------------------------------------------- */
/* Accept on port until a connection names its nonce (or watch ends: -1). */
static int root_accept(const char *port, const hs_hdr_t *mine, const char *eps, hs_hdr_t *them,
                       char **their_eps, pid_t watch)
{
    port_t *p = find_port(port, NULL);
    char nonce[33];
    struct sockaddr_in a;
    if (!p || parse_port(port, &a, nonce))
        return MPI_ERR_PORT;
    for (;;) {
        if (wait_fd(p->fd, POLLIN, watch))
            return MPI_ERR_SPAWN;
        int fd = accept4(p->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0)
            continue;
        int ok = read_side(fd, them, their_eps) == 0 && strcmp(them->nonce, nonce) == 0;
        if (ok)
            ok = send_side(fd, mine, eps) == 0;
        close(fd);
        if (ok)
            return them->status;
        free(*their_eps); /* a stranger, or a peer that went away: wait for the next */
        *their_eps = NULL;
    }
}

static int root_connect(const char *port, hs_hdr_t *mine, const char *eps, hs_hdr_t *them,
                        char **their_eps)
{
    struct sockaddr_in a;
    if (parse_port(port, &a, mine->nonce))
        return MPI_ERR_PORT;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0)
            close(fd);
        return MPI_ERR_PORT;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int bad = send_side(fd, mine, eps) || read_side(fd, them, their_eps);
    close(fd);
    return bad ? MPI_ERR_PORT : them->status;
}

/* Comm_join: both sides write, then read (one endpoint each: fits any buffer). */
static int root_join(int fd, const hs_hdr_t *mine, const char *eps, hs_hdr_t *them,
                     char **their_eps)
{
    int bad = send_side(fd, mine, eps) || read_side(fd, them, their_eps);
    return bad ? MPI_ERR_OTHER : them->status;
}

/* ---- the whole join ----------------------------------------------------------------- */
int dyn_join(const char *fn, struct MPI_ABI_Comm *lc, int root, const dyn_how_t *how,
             MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    int rc = dyn_start();
    if (rc)
        return rc;
    ic_set_t s = {lc->coll, NULL, lc->size, lc->rank, TAG_DYN};
    member_t me;
    memset(&me, 0, sizeof me);
    comm_reap_freed(0);
    ctx_local_mask(&me.mask);
    ctx_hold(&me.mask);
    snprintf(me.ep, sizeof me.ep, "%s", dyn_endpoint());
    member_t *all = malloc((size_t)lc->size * sizeof *all);
    char *eps = malloc((size_t)lc->size * DYN_EP_LEN);
    if (!all || !eps)
        mpir_fatal("%s: out of memory", fn);
    ic_allgather(&s, &me, sizeof me, all);
    hs_hdr_t mine, them;
    memset(&mine, 0, sizeof mine);
    memset(&them, 0, sizeof them);
    memcpy(mine.magic, HS_MAGIC, 8);
    mine.size = lc->size;
    mine.mask = all[0].mask;
    for (int i = 0; i < lc->size; i++) {
        if (i)
            ctx_and(&mine.mask, &all[i].mask);
        memcpy(eps + (size_t)i * DYN_EP_LEN, all[i].ep, DYN_EP_LEN);
    }
    free(all);
    char *theirs = NULL;
    if (lc->rank == root) {
        if (how->local_status)
            rc = how->local_status;
        else if (how->kind == DYN_ACCEPT)
            rc = root_accept(how->port, &mine, eps, &them, &theirs, how->watch);
        else if (how->kind == DYN_CONNECT)
            rc = root_connect(how->port, &mine, eps, &them, &theirs);
        else
            rc = root_join(how->fd, &mine, eps, &them, &theirs);
        them.status = rc;
        if (rc)
            them.size = 0;
    }
    ic_bcast(&s, root, &them, sizeof them);
    if (them.status) {
        free(theirs);
        free(eps);
        ctx_unhold();
        return them.status;
    }
    if (lc->rank != root && !(theirs = malloc((size_t)(them.size ? them.size : 1) * DYN_EP_LEN)))
        mpir_fatal("%s: out of memory", fn);
    ic_bcast(&s, root, theirs, (size_t)them.size * DYN_EP_LEN);
    free(eps);
    ctx_mask_t both = mine.mask; /* every member has the group's AND from the allgather */
    ctx_and(&both, &them.mask);
    int ctx = ctx_first(&both, -1), lctx = ctx_first(&mine.mask, ctx);
    ctx_unhold();
    if (ctx < 0 || lctx < 0) {
        free(theirs);
        return mpir_error(lc, MPI_ERR_OTHER, "%s: no context id is free in both groups", fn);
    }
    int *rw = malloc((size_t)(them.size ? them.size : 1) * sizeof *rw);
    int *lw = malloc((size_t)lc->size * sizeof *lw), *lw2 = malloc((size_t)lc->size * sizeof *lw2);
    if (!rw || !lw || !lw2)
        mpir_fatal("%s: out of memory", fn);
    for (int i = 0; i < them.size; i++) {
        theirs[(size_t)(i + 1) * DYN_EP_LEN - 1] = '\0';
        if ((rw[i] = dyn_peer(theirs + (size_t)i * DYN_EP_LEN)) < 0)
            mpir_fatal("%s: malformed endpoint '%s' from the other side", fn,
                       theirs + (size_t)i * DYN_EP_LEN);
    }
    free(theirs);
    int fatal = !lc->eh || lc->eh->kind == EH_FATAL || lc->eh->kind == EH_ABORT;
    for (int i = 0; i < them.size; i++) /* see dyn_connect */
        if (rw[i] >= mpid.size)
            dyn_connect(rw[i], fatal);
    for (int i = 0; i < lc->size; i++)
        lw[i] = lw2[i] = comm_world_rank(lc, i);
    struct MPI_ABI_Group *g = group_new(lc->size, lw), *rg = group_new(them.size, rw);
    free(lw);
    if (!g || !rg)
        mpir_fatal("%s: out of memory", fn);
    group_retain(g);
    struct MPI_ABI_Comm *local = comm_build(lctx, lc->rank, lc->size, lw2, g, NULL, lc->eh);
    struct MPI_ABI_Comm *n = comm_build(ctx, lc->rank, them.size, rw, g, rg, lc->eh);
    n->ext->local = local;
    *newcomm = (MPI_Comm)n;
    return MPI_SUCCESS;
}

/* ---- entry points ------------------------------------------------------------------- */
static int check_info_arg(const char *fn, MPI_Info info)
{
    struct MPI_ABI_Info *i;
    return info_check(fn, info, 1, &i);
}

int MPI_Open_port(MPI_Info info, char *port_name)
{
    static const char fn[] = "MPI_Open_port";
    CHECK_INIT(fn);
    int rc;
    if ((rc = check_info_arg(fn, info)))
        return rc;
    if (!port_name)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL port_name", fn);
    if ((rc = dyn_open_port(port_name)))
        return mpir_error(NULL, rc, "%s: cannot open a listening TCP socket", fn);
    return MPI_SUCCESS;
}

int MPI_Close_port(const char *port_name)
{
    static const char fn[] = "MPI_Close_port";
    CHECK_INIT(fn);
    if (!port_name)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL port_name", fn);
    if (dyn_close_port(port_name))
        return mpir_error(NULL, MPI_ERR_PORT, "%s: '%.100s' is not a port this process opened",
                          fn, port_name);
    return MPI_SUCCESS;
}

int dyn_check_group(const char *fn, MPI_Comm comm, int root, const MPI_Comm *out,
                    struct MPI_ABI_Comm **c)
{
    int rc;
    if ((rc = check_comm(fn, comm, c)))
        return rc;
    if (comm_is_inter(*c))
        return mpir_error(*c, MPI_ERR_COMM, "%s: not supported on an intercommunicator", fn);
    if ((rc = check_rank(fn, *c, root, 0)))
        return rc;
    if (!out)
        return mpir_error(*c, MPI_ERR_ARG, "%s: NULL new communicator argument", fn);
    return MPI_SUCCESS;
}

static int accept_connect(const char *fn, int kind, const char *port_name, MPI_Info info,
                          int root, MPI_Comm comm, MPI_Comm *newcomm)
{
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if ((rc = dyn_check_group(fn, comm, root, newcomm, &c)))
        return rc;
    dyn_how_t how = {.kind = kind, .port = port_name};
    if (c->rank == root) {
        struct sockaddr_in a;
        char nonce[33];
        if ((rc = check_info_arg(fn, info)))
            return rc;
        if (!port_name || parse_port(port_name, &a, nonce))
            how.local_status = MPI_ERR_PORT;
        else if (kind == DYN_ACCEPT && !find_port(port_name, NULL))
            how.local_status = MPI_ERR_PORT;
    }
    rc = dyn_join(fn, c, root, &how, newcomm);
    if (rc)
        return mpir_error(c, rc, "%s: %s port '%.200s' failed (root %d)", fn,
                          kind == DYN_ACCEPT ? "accepting on" : "connecting to",
                          c->rank == root && port_name ? port_name : "(the root's)", root);
    return MPI_SUCCESS;
}

int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *newcomm)
{
    return accept_connect("MPI_Comm_accept", DYN_ACCEPT, port_name, info, root, comm, newcomm);
}

int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return accept_connect("MPI_Comm_connect", DYN_CONNECT, port_name, info, root, comm, newcomm);
}

int MPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char fn[] = "MPI_Comm_join";
    CHECK_INIT(fn);
    if (!intercomm)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL intercomm", fn);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode))
        return mpir_error(NULL, MPI_ERR_ARG, "%s: fd %d is not a socket", fn, fd);
    dyn_how_t how = {.kind = DYN_JOIN, .fd = fd};
    int rc = dyn_join(fn, comm_of(MPI_COMM_SELF), 0, &how, intercomm);
    if (rc)
        return mpir_error(NULL, rc, "%s: the exchange over fd %d failed", fn, fd);
    return MPI_SUCCESS;
}

/* Collective over both groups: every message sent on comm has been received
 * once the barrier is through (a barrier is ordered after them), then free. */
int MPI_Comm_disconnect(MPI_Comm *comm)
{
    static const char fn[] = "MPI_Comm_disconnect";
    CHECK_INIT(fn);
    struct MPI_ABI_Comm *c;
    int rc;
    if (!comm)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL comm", fn);
    if ((rc = check_comm(fn, *comm, &c)))
        return rc;
    if ((uintptr_t)*comm < MPIR_PREDEF_BOUND)
        return mpir_error(c, MPI_ERR_COMM, "%s: cannot disconnect %s", fn, c->name);
    if ((rc = PMPI_Barrier(*comm)))
        return rc;
    return PMPI_Comm_free(comm); /* forgets the parent too */
}

/* ---- the parent ----------------------------------------------------------------------- */
MPI_Comm dyn_parent = MPI_COMM_NULL;

int dyn_init_parent(void)
{
    const char *port = getenv("SKIFF_PARENT_PORT");
    if (!port || !*port)
        return MPI_SUCCESS;
    dyn_how_t how = {.kind = DYN_CONNECT, .port = port};
    int rc = dyn_join("MPI_Init", comm_of(MPI_COMM_WORLD), 0, &how, &dyn_parent);
    if (rc)
        mpir_fatal("MPI_Init: cannot connect to the parent job at %s (error class %d)", port,
                   rc);
    return MPI_SUCCESS;
}

int MPI_Comm_get_parent(MPI_Comm *parent)
{
    static const char fn[] = "MPI_Comm_get_parent";
    CHECK_INIT(fn);
    if (!parent)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL parent", fn);
    *parent = dyn_parent;
    return MPI_SUCCESS;
}
