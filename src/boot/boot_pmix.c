/*
 * boot_pmix — boot through the PMIx client library (srun --mpi=pmix, prterun,
 * Open MPI 5's mpirun).  Built only when libpmix is found (SKIFF_HAVE_PMIX).
 *
 * The PMI key-value space maps onto PMIx as:
 *   put    PMIx_Put(PMIX_GLOBAL, key, string)  (committed at the next fence)
 *   fence  PMIx_Commit + PMIx_Fence over the whole namespace, collecting data
 *   get    PMIx_Get of each rank's data in turn, locally first (PMIX_OPTIONAL),
 *          then from the server; after the fence "not there" is an answer
 *          (-ENOENT)
 * Locality: PMIx_Resolve_nodes / PMIx_Resolve_peers give every node's ranks,
 * so node_of_rank is filled here and no PMI_process_mapping is needed.
 */
#include "boot/boot_internal.h"

#include <errno.h>
#include <pmix.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    pmix_proc_t me;
    pmix_proc_t all; /* my namespace, every rank */
    int size;
} px;

static int fail(const char *call, pmix_status_t st)
{
    boot_error("%s failed: %s (%d)", call, PMIx_Error_string(st), (int)st);
    return st == PMIX_ERR_NOT_FOUND ? -ENOENT : -EIO;
}

/* A uint32 job attribute of proc; -ENOENT if the launcher has none. */
static int get_u32(const pmix_proc_t *proc, const char *key, unsigned *out)
{
    pmix_value_t *val = NULL;
    pmix_status_t st = PMIx_Get(proc, key, NULL, 0, &val);
    if (st != PMIX_SUCCESS)
        return -ENOENT;
    int rc = 0;
    switch (val->type) {
    case PMIX_UINT32: *out = val->data.uint32; break;
    case PMIX_UINT16: *out = val->data.uint16; break;
    case PMIX_INT: *out = val->data.integer >= 0 ? (unsigned)val->data.integer : 0; break;
    default:
        boot_error("PMIx attribute %s has unexpected type %d", key, (int)val->type);
        rc = -EPROTO;
    }
    PMIX_VALUE_RELEASE(val);
    return rc;
}

/* node_of_rank[size] from the launcher's node list and each node's ranks. */
static int fill_nodes(boot_info_t *info)
{
    char *nodes = NULL;
    pmix_status_t st = PMIx_Resolve_nodes(px.me.nspace, &nodes);
    if (st != PMIX_SUCCESS || !nodes)
        return fail("PMIx_Resolve_nodes", st);
    int *node_of = malloc((size_t)info->size * sizeof *node_of);
    if (!node_of) {
        free(nodes);
        return -ENOMEM;
    }
    for (int r = 0; r < info->size; r++)
        node_of[r] = -1;
    int n = 0, rc = 0;
    char *save = NULL;
    for (char *node = strtok_r(nodes, ",", &save); node && !rc;
         node = strtok_r(NULL, ",", &save)) {
        pmix_proc_t *procs = NULL;
        size_t nprocs = 0;
        if ((st = PMIx_Resolve_peers(node, px.me.nspace, &procs, &nprocs)) != PMIX_SUCCESS) {
            rc = fail("PMIx_Resolve_peers", st);
            break;
        }
        for (size_t i = 0; i < nprocs; i++) {
            pmix_rank_t r = procs[i].rank;
            if (r >= (pmix_rank_t)info->size || node_of[r] != -1) {
                boot_error("PMIx puts rank %u on node %s too (job of %d ranks)", (unsigned)r,
                           node, info->size);
                rc = -EPROTO;
                break;
            }
            node_of[r] = n;
        }
        if (nprocs)
            n++; /* nodes without ranks of this job get no number */
        PMIX_PROC_FREE(procs, nprocs);
    }
    free(nodes);
    for (int r = 0; r < info->size && !rc; r++)
        if (node_of[r] < 0) {
            boot_error("PMIx names no node for rank %d", r);
            rc = -EPROTO;
        }
    if (rc) {
        free(node_of);
        return rc;
    }
    info->node_of_rank = node_of;
    info->num_nodes = n;
    return 0;
}

int boot_pmix_init(boot_info_t *info, boot_limits_t *limits)
{
    pmix_status_t st = PMIx_Init(&px.me, NULL, 0);
    if (st != PMIX_SUCCESS)
        return fail("PMIx_Init", st);
    PMIX_LOAD_PROCID(&px.all, px.me.nspace, PMIX_RANK_WILDCARD);
    unsigned size, v;
    int rc = get_u32(&px.all, PMIX_JOB_SIZE, &size);
    if (rc || size < 1 || size > (1u << 24) || px.me.rank >= size) {
        boot_error("PMIx gives no usable job size (%s) for rank %u",
                   rc ? "none" : "out of range", (unsigned)px.me.rank);
        return -EPROTO;
    }
    info->rank = (int)px.me.rank;
    info->size = px.size = (int)size;
    info->appnum = get_u32(&px.me, PMIX_APPNUM, &v) == 0 ? (int)v : 0;
    info->universe_size = get_u32(&px.all, PMIX_UNIV_SIZE, &v) == 0 && v >= size ? (int)v : (int)size;
    snprintf(info->kvsname, sizeof info->kvsname, "%s", px.me.nspace);
    limits->key_max = BOOT_KEY_MAX;
    limits->wire_max = 3 * BOOT_VAL_MAX; /* strings of any length: only boot's own limit */
    return fill_nodes(info);
}

static int pmix_put(const char *key, const char *wire_value)
{
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_STRING;
    val.data.string = (char *)wire_value; /* PMIx_Put copies it */
    pmix_status_t st = PMIx_Put(PMIX_GLOBAL, key, &val);
    return st == PMIX_SUCCESS ? 0 : fail("PMIx_Put", st);
}

/* The value of key as published by rank r.  local: look only in this
 * process's store (PMIX_OPTIONAL); otherwise ask the server, which answers
 * from what it holds and does not wait for the key to appear (PMIX_IMMEDIATE). */
static pmix_status_t get_from(pmix_rank_t r, const char *key, int local, pmix_value_t **val)
{
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, px.me.nspace, r);
    pmix_info_t opt;
    bool yes = true;
    PMIX_INFO_LOAD(&opt, local ? PMIX_OPTIONAL : PMIX_IMMEDIATE, &yes, PMIX_BOOL);
    pmix_status_t st = PMIx_Get(&proc, key, &opt, 1, val);
    PMIX_INFO_DESTRUCT(&opt);
    return st;
}

static int not_found(pmix_status_t st)
{
    return st == PMIX_ERR_NOT_FOUND || st == PMIX_ERR_PROC_ENTRY_NOT_FOUND;
}

static int pmix_get(const char *key, char *out, size_t cap)
{
    /* PMI keys belong to the job, PMIx keys to the rank that put them, and
     * PMIX_RANK_UNDEF ("any rank") finds nothing with PMIx 4 under Slurm: ask
     * every rank's data.  First locally (under Slurm everything is here after
     * the collecting fence), then through the server (under prterun, whose
     * PMIx 5 keeps node-local data on its side).  After a fence the server
     * knows each rank's complete data, so a missing key is an answer. */
    pmix_value_t *val = NULL;
    pmix_status_t st = PMIX_ERR_NOT_FOUND;
    for (int r = 0; r < px.size && st != PMIX_SUCCESS; r++) {
        st = get_from((pmix_rank_t)r, key, 1, &val);
        if (st != PMIX_SUCCESS && !not_found(st))
            return fail("PMIx_Get", st);
    }
    if (st != PMIX_SUCCESS) {
        st = get_from(PMIX_RANK_UNDEF, key, 0, &val);
        if (st != PMIX_SUCCESS && !not_found(st))
            return fail("PMIx_Get", st);
    }
    if (st != PMIX_SUCCESS)
        return -ENOENT;
    int rc = 0;
    if (val->type != PMIX_STRING || !val->data.string) {
        boot_error("PMIx value of key '%s' is not a string (type %d)", key, (int)val->type);
        rc = -EPROTO;
    } else if (strlen(val->data.string) >= cap) {
        rc = -ENOSPC;
    } else {
        strcpy(out, val->data.string);
    }
    PMIX_VALUE_RELEASE(val);
    return rc;
}

static int pmix_fence(void)
{
    pmix_status_t st = PMIx_Commit();
    if (st != PMIX_SUCCESS)
        return fail("PMIx_Commit", st);
    pmix_info_t collect;
    bool yes = true;
    PMIX_INFO_LOAD(&collect, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    st = PMIx_Fence(&px.all, 1, &collect, 1);
    PMIX_INFO_DESTRUCT(&collect);
    return st == PMIX_SUCCESS ? 0 : fail("PMIx_Fence", st);
}

static int pmix_finalize(void)
{
    pmix_status_t st = PMIx_Finalize(NULL, 0);
    return st == PMIX_SUCCESS ? 0 : fail("PMIx_Finalize", st);
}

/* Asks the launcher to end every rank of the namespace; returns when it has
 * (or could not), and boot.c then exits with the code. */
static void pmix_abort(int code, const char *why)
{
    PMIx_Abort(code, why ? why : "", NULL, 0);
}

const boot_backend_t boot_pmix_backend = {
    .name = "pmix",
    .put = pmix_put,
    .get = pmix_get,
    .fence = pmix_fence,
    .finalize = pmix_finalize,
    .abort = pmix_abort,
};
