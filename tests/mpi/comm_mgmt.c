/* comm_mgmt — groups and communicators: group set operations against hand-
 * computed results, dup/split/create/create_group/free/compare/names at any
 * rank count, traffic isolation between communicators with equal tags,
 * communicators created back to back on overlapping groups (early messages
 * on a context a peer has not finished creating), split_type SHARED,
 * intercommunicators (create, point-to-point, dup, merge), and bad
 * arguments -> error classes. */
#include "mpitest.h"

static void groups(void)
{
    MPI_Group world, g, h, u;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int n, r, res;
    MPI_Group_size(world, &n);
    MPI_Group_rank(world, &r);
    CHECK(n == T_size && r == T_rank);
    /* evens and the upper half */
    int ev[64], ne = 0, up[64], nu = 0;
    for (int i = 0; i < T_size; i += 2)
        ev[ne++] = i;
    for (int i = T_size / 2; i < T_size; i++)
        up[nu++] = i;
    MPI_Group_incl(world, ne, ev, &g);
    MPI_Group_incl(world, nu, up, &h);
    MPI_Group_size(g, &n);
    CHECK_EQ_INT(n, ne);
    MPI_Group_rank(g, &r);
    CHECK_EQ_INT(r, T_rank % 2 ? MPI_UNDEFINED : T_rank / 2);
    /* union: evens in order, then odd members of the upper half */
    MPI_Group_union(g, h, &u);
    int want[64], nw = 0;
    for (int i = 0; i < ne; i++)
        want[nw++] = ev[i];
    for (int i = 0; i < nu; i++)
        if (up[i] % 2)
            want[nw++] = up[i];
    MPI_Group_size(u, &n);
    CHECK_EQ_INT(n, nw);
    int idx[64], tr[64];
    for (int i = 0; i < nw; i++)
        idx[i] = i;
    MPI_Group_translate_ranks(u, nw, idx, world, tr);
    for (int i = 0; i < nw; i++)
        CHECK_EQ_INT(tr[i], want[i]);
    MPI_Group_free(&u);
    CHECK(u == MPI_GROUP_NULL);
    /* intersection: evens of the upper half; difference: evens below half */
    MPI_Group_intersection(g, h, &u);
    MPI_Group_size(u, &n);
    int cnt = 0;
    for (int i = T_size / 2; i < T_size; i++)
        cnt += i % 2 == 0;
    CHECK_EQ_INT(n, cnt);
    MPI_Group_free(&u);
    MPI_Group_difference(g, h, &u);
    MPI_Group_size(u, &n);
    CHECK_EQ_INT(n, ne - cnt);
    if (n == 0)
        CHECK(u == MPI_GROUP_EMPTY);
    MPI_Group_free(&u);
    /* excl of the evens = the odds; range_incl (0, size-1, 2) = evens */
    MPI_Group_excl(world, ne, ev, &u);
    MPI_Group_size(u, &n);
    CHECK_EQ_INT(n, T_size - ne);
    MPI_Group_free(&u);
    int range[1][3] = {{0, T_size - 1, 2}};
    MPI_Group_range_incl(world, 1, range, &u);
    MPI_Group_compare(u, g, &res);
    CHECK_EQ_INT(res, MPI_IDENT);
    MPI_Group_free(&u);
    MPI_Group_range_excl(world, 1, range, &u);
    MPI_Group_size(u, &n);
    CHECK_EQ_INT(n, T_size - ne);
    MPI_Group_free(&u);
    /* reversed world: similar, not identical (for more than one rank) */
    int rev[64];
    for (int i = 0; i < T_size; i++)
        rev[i] = T_size - 1 - i;
    MPI_Group_incl(world, T_size, rev, &u);
    MPI_Group_compare(u, world, &res);
    CHECK_EQ_INT(res, T_size > 1 ? MPI_SIMILAR : MPI_IDENT);
    MPI_Group_free(&u);
    /* the empty group */
    MPI_Group_size(MPI_GROUP_EMPTY, &n);
    CHECK_EQ_INT(n, 0);
    MPI_Group_rank(MPI_GROUP_EMPTY, &r);
    CHECK_EQ_INT(r, MPI_UNDEFINED);
    int one = 0, out;
    MPI_Group_translate_ranks(world, 1, &one, MPI_GROUP_EMPTY, &out);
    CHECK_EQ_INT(out, MPI_UNDEFINED);
    MPI_Group_free(&g);
    MPI_Group_free(&h);
    MPI_Group_free(&world);
}

/* Every rank sends its rank to every other on comm with tag; checks values. */
static void all_to_all(MPI_Comm comm, int tag, int salt)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Request *rq = malloc(2 * (size_t)size * sizeof *rq);
    int *in = malloc((size_t)size * sizeof *in), *out = malloc((size_t)size * sizeof *out);
    for (int p = 0; p < size; p++) {
        out[p] = rank * 1000 + salt;
        MPI_Irecv(&in[p], 1, MPI_INT, p, tag, comm, &rq[p]);
    }
    for (int p = 0; p < size; p++)
        MPI_Isend(&out[p], 1, MPI_INT, p, tag, comm, &rq[size + p]);
    MPI_Waitall(2 * size, rq, MPI_STATUSES_IGNORE);
    for (int p = 0; p < size; p++)
        CHECK_EQ_INT(in[p], p * 1000 + salt);
    free(rq);
    free(in);
    free(out);
}

static void comms(void)
{
    MPI_Comm dup, half, rev, none;
    int res, n, r;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_compare(dup, MPI_COMM_WORLD, &res);
    CHECK_EQ_INT(res, MPI_CONGRUENT);
    MPI_Comm_compare(dup, dup, &res);
    CHECK_EQ_INT(res, MPI_IDENT);
    /* isolation: the same tag on WORLD and on dup, dup's messages sent first */
    int a = T_rank + 1, b = -(T_rank + 1), ga, gb;
    int peer = test_partner();
    MPI_Request rq[2];
    MPI_Isend(&b, 1, MPI_INT, peer, 9, dup, &rq[0]);
    MPI_Isend(&a, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &rq[1]);
    MPI_Recv(&ga, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&gb, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, dup, MPI_STATUS_IGNORE);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    CHECK_EQ_INT(ga, peer + 1);
    CHECK_EQ_INT(gb, -(peer + 1));
    /* split into halves, key reversing the order */
    MPI_Comm_split(MPI_COMM_WORLD, T_rank < T_size / 2, T_size - T_rank, &half);
    MPI_Comm_size(half, &n);
    MPI_Comm_rank(half, &r);
    int lo = T_size / 2;
    CHECK_EQ_INT(n, T_rank < lo ? lo : T_size - lo);
    CHECK_EQ_INT(r, T_rank < lo ? lo - 1 - T_rank : T_size - 1 - T_rank);
    all_to_all(half, 3, 1);
    /* split with MPI_UNDEFINED for odd ranks */
    MPI_Comm_split(MPI_COMM_WORLD, T_rank % 2 ? MPI_UNDEFINED : 0, 0, &none);
    CHECK((none == MPI_COMM_NULL) == (T_rank % 2 == 1));
    if (none != MPI_COMM_NULL) {
        all_to_all(none, 3, 2);
        MPI_Comm_free(&none);
    }
    /* create from a reversed group; create_group over the upper half */
    MPI_Group world, rg;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int order[64];
    for (int i = 0; i < T_size; i++)
        order[i] = T_size - 1 - i;
    MPI_Group_incl(world, T_size, order, &rg);
    MPI_Comm_create(MPI_COMM_WORLD, rg, &rev);
    MPI_Comm_rank(rev, &r);
    CHECK_EQ_INT(r, T_size - 1 - T_rank);
    MPI_Comm_compare(rev, MPI_COMM_WORLD, &res);
    CHECK_EQ_INT(res, T_size > 1 ? MPI_SIMILAR : MPI_CONGRUENT);
    all_to_all(rev, 3, 3);
    MPI_Group_free(&rg);
    int upper[64], nu = 0;
    for (int i = T_size / 2; i < T_size; i++)
        upper[nu++] = i;
    MPI_Group_incl(world, nu, upper, &rg);
    if (T_rank >= T_size / 2) {
        MPI_Comm cg;
        MPI_Comm_create_group(MPI_COMM_WORLD, rg, 77, &cg);
        MPI_Comm_size(cg, &n);
        CHECK_EQ_INT(n, nu);
        all_to_all(cg, 3, 4);
        MPI_Comm_free(&cg);
    }
    MPI_Group_free(&rg);
    MPI_Group_free(&world);
    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Comm_get_name(MPI_COMM_WORLD, name, &n);
    CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && n == 14);
    MPI_Comm_get_name(dup, name, &n);
    CHECK_EQ_INT(n, 0);
    MPI_Comm_set_name(dup, "my dup");
    MPI_Comm_get_name(dup, name, &n);
    CHECK(strcmp(name, "my dup") == 0);
    int flag;
    MPI_Comm_test_inter(dup, &flag);
    CHECK_EQ_INT(flag, 0);
    MPI_Comm_free(&half);
    MPI_Comm_free(&rev);
    MPI_Comm_free(&dup);
    CHECK(dup == MPI_COMM_NULL);
}

/* Many communicators created and freed back to back, with traffic right
 * after creation (a fast rank's messages reach slower ranks before their
 * creation has finished), on overlapping groups. */
static void churn(void)
{
    for (int round = 0; round < 40; round++) {
        MPI_Comm c1, c2;
        MPI_Comm_split(MPI_COMM_WORLD, T_rank % 2, T_rank, &c1);
        MPI_Comm_split(MPI_COMM_WORLD, T_rank < T_size / 2, -T_rank, &c2);
        all_to_all(c2, round, round);
        all_to_all(c1, round, round + 1);
        MPI_Comm d;
        MPI_Comm_dup(c1, &d);
        all_to_all(d, 0, round + 2);
        MPI_Comm_free(&d);
        MPI_Comm_free(&c1);
        MPI_Comm_free(&c2);
    }
    /* hold many at once: ids must stay distinct */
    MPI_Comm keep[100];
    for (int i = 0; i < 100; i++)
        MPI_Comm_dup(MPI_COMM_WORLD, &keep[i]);
    for (int i = 99; i >= 0; i -= 7)
        all_to_all(keep[i], 5, i);
    for (int i = 0; i < 100; i++)
        MPI_Comm_free(&keep[i]);
}

/* Two communicators created at the same time on overlapping groups (the
 * middle rank belongs to both and creates them one after the other), then
 * used at once with equal tags. */
static void overlapping(void)
{
    if (T_size < 3)
        return;
    int k = T_size / 2, a[64], b[64], na = 0, nb = 0;
    for (int i = 0; i <= k; i++)
        a[na++] = i;
    for (int i = k; i < T_size; i++)
        b[nb++] = i;
    MPI_Group world, ga, gb;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, na, a, &ga);
    MPI_Group_incl(world, nb, b, &gb);
    for (int round = 0; round < 10; round++) {
        MPI_Comm ca = MPI_COMM_NULL, cb = MPI_COMM_NULL;
        if (T_rank <= k)
            MPI_Comm_create_group(MPI_COMM_WORLD, ga, 1, &ca);
        if (T_rank >= k)
            MPI_Comm_create_group(MPI_COMM_WORLD, gb, 2, &cb);
        if (ca != MPI_COMM_NULL)
            all_to_all(ca, 4, 100 + round);
        if (cb != MPI_COMM_NULL)
            all_to_all(cb, 4, 200 + round);
        if (ca != MPI_COMM_NULL && cb != MPI_COMM_NULL) { /* rank k: both, same tag */
            int x = 1, y = 2, gx = 0, gy = 0, ra, rb;
            MPI_Comm_rank(ca, &ra);
            MPI_Comm_rank(cb, &rb);
            MPI_Request rq[4];
            MPI_Irecv(&gx, 1, MPI_INT, MPI_ANY_SOURCE, 6, ca, &rq[0]);
            MPI_Irecv(&gy, 1, MPI_INT, MPI_ANY_SOURCE, 6, cb, &rq[1]);
            MPI_Isend(&y, 1, MPI_INT, rb, 6, cb, &rq[2]);
            MPI_Isend(&x, 1, MPI_INT, ra, 6, ca, &rq[3]);
            MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
            CHECK(gx == 1 && gy == 2);
        }
        if (ca != MPI_COMM_NULL)
            MPI_Comm_free(&ca);
        if (cb != MPI_COMM_NULL)
            MPI_Comm_free(&cb);
    }
    MPI_Group_free(&ga);
    MPI_Group_free(&gb);
    MPI_Group_free(&world);
}

/* MPI_Comm_idup does not wait for the other ranks: rank 0 starts it, then
 * sends what rank 1 must receive before rank 1 starts its own.  A dup made
 * while an idup is pending gets a different context. */
static void idup(void)
{
    MPI_Comm a, b;
    MPI_Request rq;
    int token = 7;
    if (T_rank == 0) {
        MPI_Comm_idup(MPI_COMM_WORLD, &a, &rq);
        if (T_size > 1)
            MPI_Send(&token, 1, MPI_INT, 1, 12, MPI_COMM_WORLD);
    } else {
        if (T_rank == 1)
            MPI_Recv(&token, 1, MPI_INT, 0, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(MPI_COMM_WORLD, &a, &rq);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &b); /* while the idup may still be pending */
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(rq == MPI_REQUEST_NULL);
    int res;
    MPI_Comm_compare(a, MPI_COMM_WORLD, &res);
    CHECK_EQ_INT(res, MPI_CONGRUENT);
    /* same tag on both: traffic must not cross */
    all_to_all(a, 3, 40);
    all_to_all(b, 3, 41);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    /* two idups in flight at once, completed in the other order */
    MPI_Request r2[2];
    MPI_Comm c2[2];
    MPI_Comm_idup(MPI_COMM_WORLD, &c2[0], &r2[0]);
    MPI_Comm_idup(MPI_COMM_WORLD, &c2[1], &r2[1]);
    MPI_Wait(&r2[1], MPI_STATUS_IGNORE);
    MPI_Wait(&r2[0], MPI_STATUS_IGNORE);
    all_to_all(c2[1], 3, 42);
    all_to_all(c2[0], 3, 43);
    MPI_Comm_free(&c2[0]);
    MPI_Comm_free(&c2[1]);
}

static void shared(void)
{
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int n;
    MPI_Comm_size(node, &n);
    CHECK_EQ_INT(n, T_size); /* one node under skiffrun without --hosts */
    all_to_all(node, 1, 9);
    MPI_Comm_free(&node);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node);
    CHECK(node == MPI_COMM_NULL);
}

static void intercomms(void)
{
    if (T_size < 2)
        return;
    MPI_Comm half, inter, inter2, merged;
    int color = T_rank % 2, n, r, flag;
    MPI_Comm_split(MPI_COMM_WORLD, color, T_rank, &half);
    /* leaders: rank 0 of each half = world ranks 0 and 1 */
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, color ? 0 : 1, 42, &inter);
    MPI_Comm_test_inter(inter, &flag);
    CHECK_EQ_INT(flag, 1);
    int evens = (T_size + 1) / 2, odds = T_size / 2;
    MPI_Comm_size(inter, &n);
    CHECK_EQ_INT(n, color ? odds : evens);
    MPI_Comm_remote_size(inter, &n);
    CHECK_EQ_INT(n, color ? evens : odds);
    MPI_Comm_rank(inter, &r);
    CHECK_EQ_INT(r, T_rank / 2);
    MPI_Group rg;
    MPI_Comm_remote_group(inter, &rg);
    MPI_Group_size(rg, &n);
    CHECK_EQ_INT(n, color ? evens : odds);
    MPI_Group_free(&rg);
    /* point-to-point across: remote rank r%remote_size */
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    int dest = r % rsize, v = T_rank, got;
    MPI_Request rq;
    MPI_Isend(&v, 1, MPI_INT, dest, 5, inter, &rq);
    /* who sends to me: remote ranks q with q % my_local_size == r */
    int lsize;
    MPI_Comm_size(inter, &lsize);
    for (int q = 0; q < rsize; q++)
        if (q % lsize == r) {
            MPI_Status st;
            MPI_Recv(&got, 1, MPI_INT, q, 5, inter, &st);
            CHECK_EQ_INT(st.MPI_SOURCE, q);
            CHECK_EQ_INT(got, 2 * q + (color ? 0 : 1)); /* remote world rank */
        }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    /* split the intercommunicator by the parity of the local rank: each part
     * faces the remote ranks of the same parity */
    {
        MPI_Comm part;
        int x = r % 2, other = 1 - color, nrem = 0;
        MPI_Comm_split(inter, x, -r, &part);
        for (int w = 0; w < T_size; w++)
            nrem += w % 2 == other && (w / 2) % 2 == x;
        CHECK((part == MPI_COMM_NULL) == (nrem == 0));
        if (part != MPI_COMM_NULL) {
            int prs, pls, seen = 0;
            MPI_Comm_remote_size(part, &prs);
            MPI_Comm_size(part, &pls);
            CHECK_EQ_INT(prs, nrem);
            /* everyone sends its world rank to every remote rank */
            MPI_Request *q = malloc(2 * (size_t)prs * sizeof *q);
            int *in = malloc((size_t)prs * sizeof *in);
            for (int i = 0; i < prs; i++)
                MPI_Irecv(&in[i], 1, MPI_INT, i, 8, part, &q[i]);
            for (int i = 0; i < prs; i++)
                MPI_Isend(&T_rank, 1, MPI_INT, i, 8, part, &q[prs + i]);
            MPI_Waitall(2 * prs, q, MPI_STATUSES_IGNORE);
            for (int i = 0; i < prs; i++) {
                CHECK(in[i] % 2 == other && (in[i] / 2) % 2 == x);
                seen++;
            }
            CHECK_EQ_INT(seen, nrem);
            free(q);
            free(in);
            MPI_Comm_free(&part);
        }
    }
    /* create from the local group reversed: every rank takes part */
    {
        MPI_Group lg, rev;
        MPI_Comm part;
        int ls, order[64];
        MPI_Comm_group(inter, &lg);
        MPI_Group_size(lg, &ls);
        for (int i = 0; i < ls; i++)
            order[i] = ls - 1 - i;
        MPI_Group_incl(lg, ls, order, &rev);
        MPI_Comm_create(inter, rev, &part);
        int pr, prs;
        MPI_Comm_rank(part, &pr);
        MPI_Comm_remote_size(part, &prs);
        CHECK_EQ_INT(pr, ls - 1 - r);
        CHECK_EQ_INT(prs, rsize);
        int v2 = T_rank, g2;
        MPI_Request q;
        MPI_Isend(&v2, 1, MPI_INT, 0, 9, part, &q);
        if (pr == 0)
            for (int i = 0; i < prs; i++) {
                MPI_Recv(&g2, 1, MPI_INT, i, 9, part, MPI_STATUS_IGNORE);
                CHECK(g2 % 2 == 1 - color);
            }
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Comm_free(&part);
        MPI_Group_free(&rev);
        MPI_Group_free(&lg);
    }
    MPI_Comm_dup(inter, &inter2);
    MPI_Comm_compare(inter, inter2, &flag);
    CHECK_EQ_INT(flag, MPI_CONGRUENT);
    /* merge: odds high, so evens come first */
    MPI_Intercomm_merge(inter2, color, &merged);
    MPI_Comm_rank(merged, &r);
    CHECK_EQ_INT(r, color ? evens + T_rank / 2 : T_rank / 2);
    MPI_Comm_size(merged, &n);
    CHECK_EQ_INT(n, T_size);
    all_to_all(merged, 2, 11);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter2);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static void errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_WORLD, n;
    MPI_Group g;
    CHECK_EQ_INT(MPI_Comm_free(&c), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Comm_dup(MPI_COMM_NULL, &n), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Group_size(MPI_GROUP_NULL, &c == NULL ? NULL : (int[1]){0}), MPI_ERR_GROUP);
    MPI_Comm_group(MPI_COMM_WORLD, &g);
    int bad = T_size;
    MPI_Group ng;
    CHECK_EQ_INT(MPI_Group_incl(g, 1, &bad, &ng), MPI_ERR_RANK);
    int twice[2] = {0, 0};
    if (T_size >= 1)
        CHECK_EQ_INT(MPI_Group_incl(g, 2, twice, &ng), T_size >= 2 ? MPI_ERR_RANK : MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &n), MPI_ERR_ARG);
    CHECK_EQ_INT(MPI_Comm_remote_size(MPI_COMM_WORLD, &bad), MPI_ERR_COMM);
    CHECK_EQ_INT(MPI_Comm_split_type(MPI_COMM_WORLD, 12345, 0, MPI_INFO_NULL, &n), MPI_ERR_ARG);
    MPI_Group_free(&g);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    test_init(&argc, &argv);
    groups();
    comms();
    churn();
    overlapping();
    idup();
    shared();
    intercomms();
    errors();
    test_done("comm_mgmt");
    return 0;
}
