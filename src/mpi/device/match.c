/*
 * match.c — posted-receive and unexpected-message queues.
 *
 * Both are binned per (communicator, source): a message from rank s only looks
 * at posted[s] and posted_any, a receive for rank s only at unexp[s], so the
 * common case is O(1) whatever the number of ranks.  MPI_ANY_SOURCE stays
 * correct through sequence numbers: every posted receive gets post_seq (the
 * earliest-posted matching receive wins between posted[s] and posted_any), and
 * every unexpected message gets arrive_seq (an ANY_SOURCE receive takes the
 * earliest arrival among the heads of all bins that match).
 */
#include <stdlib.h>

#include "device/device.h"
#include "mpit_events.h"

static void list_append(req_list_t *l, mpid_req_t *r)
{
    r->next = NULL;
    if (l->tail)
        l->tail->next = r;
    else
        l->head = r;
    l->tail = r;
}

static void list_unlink(req_list_t *l, mpid_req_t *prev, mpid_req_t *r)
{
    if (prev)
        prev->next = r->next;
    else
        l->head = r->next;
    if (l->tail == r)
        l->tail = prev;
    r->next = NULL;
}

/* First receive in l whose tag filter accepts tag; *prevp gets its predecessor. */
static mpid_req_t *find_posted(req_list_t *l, int tag, mpid_req_t **prevp)
{
    mpid_req_t *prev = NULL;
    for (mpid_req_t *r = l->head; r; prev = r, r = r->next)
        if (match_tag(r->tag, tag)) {
            *prevp = prev;
            return r;
        }
    return NULL;
}

void match_post(struct MPI_ABI_Comm *c, mpid_req_t *r)
{
    r->seq = c->post_seq++;
    r->posted = 1;
    mpid.n_posted++;
    list_append(r->peer == MPI_ANY_SOURCE ? &c->posted_any : &c->posted[r->peer], r);
}

mpid_req_t *match_take_posted(struct MPI_ABI_Comm *c, int src, int tag)
{
    mpid_req_t *p1 = NULL, *p2 = NULL, *prev1 = NULL, *prev2 = NULL;
    req_list_t *l1 = &c->posted[src];
    if (l1->head)
        p1 = find_posted(l1, tag, &prev1);
    if (c->posted_any.head)
        p2 = find_posted(&c->posted_any, tag, &prev2);
    if (p2 && (!p1 || p2->seq < p1->seq)) {
        list_unlink(&c->posted_any, prev2, p2);
        p1 = p2;
    } else if (p1) {
        list_unlink(l1, prev1, p1);
    } else {
        return NULL;
    }
    p1->posted = 0;
    mpid.n_posted--;
    return p1;
}

int match_unpost(struct MPI_ABI_Comm *c, mpid_req_t *r)
{
    req_list_t *l = r->peer == MPI_ANY_SOURCE ? &c->posted_any : &c->posted[r->peer];
    mpid_req_t *prev = NULL;
    for (mpid_req_t *q = l->head; q; prev = q, q = q->next)
        if (q == r) {
            list_unlink(l, prev, r);
            r->posted = 0;
            mpid.n_posted--;
            return 1;
        }
    return 0;
}

void match_add_unexp(struct MPI_ABI_Comm *c, mpid_req_t *u)
{
    u->seq = c->arrive_seq++;
    c->n_unexp++;
    list_append(&c->unexp[u->st_source], u);
    mpir_t_event_unexpected(c, u->st_source, u->st_tag, u->msg_len);
}

mpid_req_t *match_find_unexp(struct MPI_ABI_Comm *c, int src, int tag, int remove)
{
    if (c->n_unexp == 0)
        return NULL;
    mpid_req_t *best = NULL, *best_prev = NULL;
    req_list_t *best_list = NULL;
    int lo = src == MPI_ANY_SOURCE ? 0 : src, hi = src == MPI_ANY_SOURCE ? c->size : src + 1;
    for (int s = lo; s < hi; s++) {
        mpid_req_t *prev = NULL;
        for (mpid_req_t *u = c->unexp[s].head; u; prev = u, u = u->next)
            if (match_tag(tag, u->st_tag)) {
                if (!best || u->seq < best->seq) {
                    best = u;
                    best_prev = prev;
                    best_list = &c->unexp[s];
                }
                break;
            }
    }
    if (best && remove) {
        list_unlink(best_list, best_prev, best);
        c->n_unexp--;
    }
    return best;
}

mpid_req_t *match_take_unexp_sreq(struct MPI_ABI_Comm *c, int src, uint64_t sreq,
                                  const mpid_req_t *busy)
{
    if (src < 0 || src >= c->size)
        return NULL;
    mpid_req_t *prev = NULL;
    for (mpid_req_t *u = c->unexp[src].head; u; prev = u, u = u->next)
        if (u->sreq == sreq && (u->sync || u->wire == W_RTS)) {
            if (u == busy)
                return NULL;
            list_unlink(&c->unexp[src], prev, u);
            c->n_unexp--;
            return u;
        }
    return NULL;
}

void match_free_all(struct MPI_ABI_Comm *c)
{
    for (int s = 0; s < c->size; s++) {
        while (c->unexp[s].head) {
            mpid_req_t *u = c->unexp[s].head;
            c->unexp[s].head = u->next;
            req_release(u);
        }
    }
    c->n_unexp = 0;
}
