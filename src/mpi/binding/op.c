/*
 * op.c — user reduction operations (MPI_Op_create, MPI_Op_free,
 * MPI_Op_commutative) and MPI_Reduce_local.
 *
 * A user op is freed when its handle is freed and no started collective still
 * uses it (schedules hold a reference).
 */
#include <stdlib.h>

#include "binding/coll_check.h"

/* user_fn is an MPI_User_function, or (large) an MPI_User_function_c. */
static int op_create(const char *fn, void (*user_fn)(void), int large, int commute, MPI_Op *op)
{
    CHECK_INIT(fn);
    if (!user_fn || !op)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL %s", fn, !user_fn ? "function" : "op pointer");
    struct MPI_ABI_Op *o = calloc(1, sizeof *o);
    if (!o)
        return mpir_error(NULL, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    o->magic = MAGIC_OP;
    o->commute = commute != 0;
    o->user = (MPI_User_function *)user_fn;
    o->large = large;
    o->name = "user operation";
    o->refs = 1;
    *op = o;
    return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create", (void (*)(void))user_fn, 0, commute, op);
}

int MPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    return op_create("MPI_Op_create_c", (void (*)(void))user_fn, 1, commute, op);
}

static int check_user_op(const char *fn, MPI_Op *op, struct MPI_ABI_Op **o)
{
    if (!op)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL op pointer", fn);
    uintptr_t v = (uintptr_t)*op;
    if (v >= MPIR_PREDEF_BOUND && ((struct MPI_ABI_Op *)*op)->magic == MAGIC_OP) {
        *o = (struct MPI_ABI_Op *)*op;
        return 0;
    }
    return mpir_error(NULL, MPI_ERR_OP, "%s: %s", fn,
                      v == 0x20 ? "op is MPI_OP_NULL"
                      : v - 0x20 < 32 ? "a predefined op cannot be freed"
                                      : "invalid op handle");
}

int MPI_Op_free(MPI_Op *op)
{
    static const char fn[] = "MPI_Op_free";
    CHECK_INIT(fn);
    struct MPI_ABI_Op *o = NULL;
    int rc = check_user_op(fn, op, &o);
    if (rc)
        return rc;
    op_release(o);
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int MPI_Op_commutative(MPI_Op op, int *commute)
{
    static const char fn[] = "MPI_Op_commutative";
    uintptr_t v = (uintptr_t)op;
    struct MPI_ABI_Op *o = v - 0x20 < 32 ? &mpir_op_predef[v & 31]
                           : v >= MPIR_PREDEF_BOUND ? (struct MPI_ABI_Op *)op : NULL;
    if (!o || o->magic != MAGIC_OP)
        return mpir_error(NULL, MPI_ERR_OP, "%s: invalid op", fn);
    if (!commute)
        return mpir_error(NULL, MPI_ERR_ARG, "%s: NULL commute pointer", fn);
    *commute = o->commute;
    return MPI_SUCCESS;
}

static int do_reduce_local(const char *fn, const void *inbuf, void *inoutbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op)
{
    CHECK_INIT(fn);
    reducer_t r;
    struct MPI_ABI_Datatype *d;
    int rc;
    if ((rc = check_count(fn, NULL, count)) || (rc = check_dtype(fn, NULL, datatype, &d)) ||
        (rc = op_reducer(fn, NULL, op, datatype, &r)))
        return rc;
    if (count && (!inbuf || !inoutbuf || inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE))
        return mpir_error(NULL, MPI_ERR_BUFFER, "%s: invalid buffer (NULL or MPI_IN_PLACE)", fn);
    if (!d->contiguous && (uintptr_t)datatype >= MPIR_PREDEF_BOUND)
        return mpir_error(NULL, MPI_ERR_TYPE, "%s: non-contiguous derived datatypes are not supported", fn);
    op_apply(&r, inbuf, inoutbuf, (size_t)count);
    return MPI_SUCCESS;
}

int MPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                     MPI_Op op)
{
    return do_reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}

int MPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype,
                       MPI_Op op)
{
    return do_reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
