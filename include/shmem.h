/*
 * shmem.h — OpenSHMEM 1.5 on the Skiff channel layer (docs/shmem.md).
 *
 * A sibling of MPI, not a client of it: the library (libskiff_shmem) stands on
 * skiff.h.  MPI and OpenSHMEM may be used in one program, either initialised
 * first; they share the job's boot and channel context.
 *
 * The typed families are declared from the type tables below (the standard's
 * tables, by name): SHMEMI_RMA_TYPES for RMA and collectives, SHMEMI_AMO_*
 * for atomics, SHMEMI_P2P_TYPES for wait/test, SHMEMI_*_REDUCE_TYPES for
 * reductions.  Every function declared here is implemented; what is absent
 * is listed in docs/shmem.md (complex reductions, the C11 generic ctx forms).
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- version, vendor ------------------------------------------------------ */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "Skiff OpenSHMEM (on the Skiff channel layer)"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

/* ---- constants ------------------------------------------------------------ */
#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

#define SHMEM_CTX_SERIALIZED 1L
#define SHMEM_CTX_PRIVATE 2L
#define SHMEM_CTX_NOSTORE 4L

/* Work arrays of the deprecated active-set collectives: Skiff keeps its own
 * synchronisation state, so pSync/pWrk are accepted but never touched. */
#define SHMEM_SYNC_VALUE (-1L)
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- handles -------------------------------------------------------------- */
typedef struct shmemi_team *shmem_team_t;
typedef struct shmemi_ctx *shmem_ctx_t;
extern struct shmemi_team shmemi_team_world, shmemi_team_shared;
extern struct shmemi_ctx shmemi_ctx_default;
#define SHMEM_TEAM_WORLD (&shmemi_team_world)
#define SHMEM_TEAM_SHARED (&shmemi_team_shared)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_CTX_DEFAULT (&shmemi_ctx_default)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)

typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS 1L

/* ---- type tables (X(C type, name)) ---------------------------------------- */
#define SHMEMI_RMA_TYPES(X)                                                                    \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)                 \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)     \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)                   \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)                    \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)                \
    X(ptrdiff_t, ptrdiff)
#define SHMEMI_SIZED_RMA(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)
#define SHMEMI_AMO_STD_TYPES(X)                                                                \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                     \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)                 \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)                  \
    X(ptrdiff_t, ptrdiff)
#define SHMEMI_AMO_EXT_TYPES(X) SHMEMI_AMO_STD_TYPES(X) X(float, float) X(double, double)
#define SHMEMI_AMO_BIT_TYPES(X)                                                                \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)             \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
#define SHMEMI_P2P_TYPES(X)                                                                    \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)             \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)                \
    X(size_t, size) X(ptrdiff_t, ptrdiff)
#define SHMEMI_BIT_REDUCE_TYPES(X)                                                             \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)                   \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)                    \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEMI_ARITH_REDUCE_TYPES(X)                                                           \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)              \
    X(long long, longlong) X(ptrdiff_t, ptrdiff) X(unsigned char, uchar)                       \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                    \
    X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) X(int32_t, int32)       \
    X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32)                \
    X(uint64_t, uint64) X(size_t, size) X(float, float) X(double, double)                      \
    X(long double, longdouble)
/* The deprecated TYPE_OP_to_all reductions. */
#define SHMEMI_TOALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEMI_TOALL_ARITH_TYPES(X)                                                            \
    SHMEMI_TOALL_BIT_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)

/* ---- setup, exit, queries ------------------------------------------------- */
void shmem_init(void);
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_pcontrol(int level, ...); /* profiling control: accepted, no profiling library yet */
/* deprecated */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);

/* ---- symmetric heap ------------------------------------------------------- */
void *shmem_malloc(size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_realloc(void *ptr, size_t size);
void shmem_free(void *ptr);
/* deprecated */
void *shmalloc(size_t size);
void *shmemalign(size_t alignment, size_t size);
void *shrealloc(void *ptr, size_t size);
void shfree(void *ptr);

/* ---- teams ---------------------------------------------------------------- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
void shmem_team_destroy(shmem_team_t team);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);

/* ---- contexts ------------------------------------------------------------- */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);

/* ---- RMA ------------------------------------------------------------------ */
#define SHMEMI_DECL_RMA(T, N)                                                                  \
    void shmem_##N##_put(T *dest, const T *source, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_put(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_##N##_get(T *dest, const T *source, size_t nelems, int pe);                     \
    void shmem_ctx_##N##_get(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems, int pe); \
    void shmem_##N##_put_nbi(T *dest, const T *source, size_t nelems, int pe);                 \
    void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                 int pe);                                                      \
    void shmem_##N##_get_nbi(T *dest, const T *source, size_t nelems, int pe);                 \
    void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,     \
                                 int pe);                                                      \
    void shmem_##N##_iput(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                          size_t nelems, int pe);                                              \
    void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,        \
                              ptrdiff_t sst, size_t nelems, int pe);                           \
    void shmem_##N##_iget(T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst,              \
                          size_t nelems, int pe);                                              \
    void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T *dest, const T *source, ptrdiff_t dst,        \
                              ptrdiff_t sst, size_t nelems, int pe);                           \
    void shmem_##N##_p(T *dest, T value, int pe);                                              \
    void shmem_ctx_##N##_p(shmem_ctx_t ctx, T *dest, T value, int pe);                         \
    T shmem_##N##_g(const T *source, int pe);                                                  \
    T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T *source, int pe);                             \
    void shmem_##N##_put_signal(T *dest, const T *source, size_t nelems, uint64_t *sig_addr,   \
                                uint64_t signal, int sig_op, int pe);                          \
    void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T *dest, const T *source, size_t nelems,  \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);  \
    void shmem_##N##_put_signal_nbi(T *dest, const T *source, size_t nelems,                   \
                                    uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);  \
    void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T *dest, const T *source,             \
                                        size_t nelems, uint64_t *sig_addr, uint64_t signal,    \
                                        int sig_op, int pe);
SHMEMI_RMA_TYPES(SHMEMI_DECL_RMA)

#define SHMEMI_DECL_SIZED(BITS, BYTES)                                                         \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);               \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,   \
                             int pe);                                                          \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);               \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,   \
                             int pe);                                                          \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);         \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,            \
                                   size_t nelems, int pe);                                     \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe);         \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source,            \
                                   size_t nelems, int pe);                                     \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                          size_t nelems, int pe);                                              \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems, int pe);                           \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,        \
                          size_t nelems, int pe);                                              \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst,  \
                              ptrdiff_t sst, size_t nelems, int pe);                           \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,               \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);    \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source,         \
                                      size_t nelems, uint64_t *sig_addr, uint64_t signal,      \
                                      int sig_op, int pe);                                     \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,           \
                                      uint64_t *sig_addr, uint64_t signal, int sig_op, int pe); \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source,     \
                                          size_t nelems, uint64_t *sig_addr, uint64_t signal,  \
                                          int sig_op, int pe);
SHMEMI_SIZED_RMA(SHMEMI_DECL_SIZED)

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_signal(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* ---- ordering and completion --------------------------------------------- */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);

/* ---- atomics -------------------------------------------------------------- */
#define SHMEMI_DECL_AMO_EXT(T, N)                                                              \
    T shmem_##N##_atomic_fetch(const T *source, int pe);                                       \
    T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T *source, int pe);                  \
    void shmem_##N##_atomic_set(T *dest, T value, int pe);                                     \
    void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T *dest, T value, int pe);                \
    T shmem_##N##_atomic_swap(T *dest, T value, int pe);                                       \
    T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T *dest, T value, int pe);                  \
    void shmem_##N##_atomic_fetch_nbi(T *fetch, const T *source, int pe);                      \
    void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T *fetch, const T *source, int pe); \
    void shmem_##N##_atomic_swap_nbi(T *fetch, T *dest, T value, int pe);                      \
    void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value, int pe);
#define SHMEMI_DECL_AMO_STD(T, N)                                                              \
    T shmem_##N##_atomic_compare_swap(T *dest, T cond, T value, int pe);                       \
    T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T *dest, T cond, T value, int pe);  \
    T shmem_##N##_atomic_fetch_inc(T *dest, int pe);                                           \
    T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T *dest, int pe);                      \
    void shmem_##N##_atomic_inc(T *dest, int pe);                                              \
    void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T *dest, int pe);                         \
    T shmem_##N##_atomic_fetch_add(T *dest, T value, int pe);                                  \
    T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T *dest, T value, int pe);             \
    void shmem_##N##_atomic_add(T *dest, T value, int pe);                                     \
    void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T *dest, T value, int pe);                \
    void shmem_##N##_atomic_compare_swap_nbi(T *fetch, T *dest, T cond, T value, int pe);      \
    void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T cond,   \
                                                 T value, int pe);                             \
    void shmem_##N##_atomic_fetch_inc_nbi(T *fetch, T *dest, int pe);                          \
    void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T *fetch, T *dest, int pe);     \
    void shmem_##N##_atomic_fetch_add_nbi(T *fetch, T *dest, T value, int pe);                 \
    void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,     \
                                              int pe);
#define SHMEMI_DECL_AMO_BIT1(T, N, OP)                                                         \
    T shmem_##N##_atomic_fetch_##OP(T *dest, T value, int pe);                                 \
    T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);            \
    void shmem_##N##_atomic_##OP(T *dest, T value, int pe);                                    \
    void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T *dest, T value, int pe);               \
    void shmem_##N##_atomic_fetch_##OP##_nbi(T *fetch, T *dest, T value, int pe);              \
    void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T *fetch, T *dest, T value,  \
                                                 int pe);
#define SHMEMI_DECL_AMO_BIT(T, N)                                                              \
    SHMEMI_DECL_AMO_BIT1(T, N, and) SHMEMI_DECL_AMO_BIT1(T, N, or)                             \
    SHMEMI_DECL_AMO_BIT1(T, N, xor)
SHMEMI_AMO_EXT_TYPES(SHMEMI_DECL_AMO_EXT)
SHMEMI_AMO_STD_TYPES(SHMEMI_DECL_AMO_STD)
SHMEMI_AMO_BIT_TYPES(SHMEMI_DECL_AMO_BIT)

/* deprecated (OpenSHMEM 1.3 names) */
#define SHMEMI_DEPR_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEMI_DECL_DEPR_AMO(T, N)                                                             \
    T shmem_##N##_swap(T *dest, T value, int pe);                                              \
    T shmem_##N##_cswap(T *dest, T cond, T value, int pe);                                     \
    T shmem_##N##_fadd(T *dest, T value, int pe);                                              \
    T shmem_##N##_finc(T *dest, int pe);                                                       \
    void shmem_##N##_add(T *dest, T value, int pe);                                            \
    void shmem_##N##_inc(T *dest, int pe);                                                     \
    T shmem_##N##_fetch(const T *source, int pe);                                              \
    void shmem_##N##_set(T *dest, T value, int pe);
SHMEMI_DEPR_AMO_TYPES(SHMEMI_DECL_DEPR_AMO)
float shmem_float_swap(float *dest, float value, int pe);
double shmem_double_swap(double *dest, double value, int pe);
float shmem_float_fetch(const float *source, int pe);
double shmem_double_fetch(const double *source, int pe);
void shmem_float_set(float *dest, float value, int pe);
void shmem_double_set(double *dest, double value, int pe);
long shmem_swap(long *dest, long value, int pe);

/* ---- point-to-point synchronisation -------------------------------------- */
#define SHMEMI_DECL_P2P(T, N)                                                                  \
    void shmem_##N##_wait_until(T *ivar, int cmp, T cmp_value);                                \
    void shmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,       \
                                    T cmp_value);                                              \
    size_t shmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,     \
                                      T cmp_value);                                            \
    size_t shmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,               \
                                       const int *status, int cmp, T cmp_value);               \
    void shmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status, int cmp, \
                                           T *cmp_values);                                     \
    size_t shmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,       \
                                             int cmp, T *cmp_values);                          \
    size_t shmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,        \
                                              const int *status, int cmp, T *cmp_values);      \
    int shmem_##N##_test(T *ivar, int cmp, T cmp_value);                                       \
    int shmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp, T cmp_value); \
    size_t shmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,           \
                                T cmp_value);                                                  \
    size_t shmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status,  \
                                 int cmp, T cmp_value);                                        \
    int shmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,       \
                                    T *cmp_values);                                            \
    size_t shmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,    \
                                       T *cmp_values);                                         \
    size_t shmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,              \
                                        const int *status, int cmp, T *cmp_values);
SHMEMI_P2P_TYPES(SHMEMI_DECL_P2P)
/* deprecated: wait while *ivar == cmp_value */
void shmem_short_wait(short *ivar, short cmp_value);
void shmem_int_wait(int *ivar, int cmp_value);
void shmem_long_wait(long *ivar, long cmp_value);
void shmem_longlong_wait(long long *ivar, long long cmp_value);
void shmem_wait(long *ivar, long cmp_value);

/* ---- locks ---------------------------------------------------------------- */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- collectives ---------------------------------------------------------- */
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync); /* deprecated */
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);    /* deprecated */
void shmemi_sync_active_set(int PE_start, int logPE_stride, int PE_size, long *pSync);

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);
#define SHMEMI_DECL_COLL(T, N)                                                                 \
    int shmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,      \
                              int PE_root);                                                    \
    int shmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems);       \
    int shmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems);      \
    int shmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems);      \
    int shmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,      \
                              ptrdiff_t sst, size_t nelems);
SHMEMI_RMA_TYPES(SHMEMI_DECL_COLL)

#define SHMEMI_DECL_REDUCE(T, N, OP)                                                           \
    int shmem_##N##_##OP##_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce);
#define SHMEMI_DECL_BIT_REDUCE(T, N)                                                           \
    SHMEMI_DECL_REDUCE(T, N, and) SHMEMI_DECL_REDUCE(T, N, or) SHMEMI_DECL_REDUCE(T, N, xor)
#define SHMEMI_DECL_ARITH_REDUCE(T, N)                                                         \
    SHMEMI_DECL_REDUCE(T, N, max) SHMEMI_DECL_REDUCE(T, N, min)                                \
    SHMEMI_DECL_REDUCE(T, N, sum) SHMEMI_DECL_REDUCE(T, N, prod)
SHMEMI_BIT_REDUCE_TYPES(SHMEMI_DECL_BIT_REDUCE)
SHMEMI_ARITH_REDUCE_TYPES(SHMEMI_DECL_ARITH_REDUCE)
#ifndef __cplusplus /* C's complex types: sum and product */
#define SHMEMI_COMPLEX_TYPES(X) X(float _Complex, complexf) X(double _Complex, complexd)
#define SHMEMI_DECL_COMPLEX_REDUCE(T, N)                                                       \
    SHMEMI_DECL_REDUCE(T, N, sum) SHMEMI_DECL_REDUCE(T, N, prod)                               \
    SHMEMI_DECL_TO_ALL(T, N, sum) SHMEMI_DECL_TO_ALL(T, N, prod)
#endif

/* deprecated active-set collectives (pSync, pWrk unused: see above) */
#define SHMEMI_DECL_ACTIVE_SET(BITS)                                                           \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,     \
                               int PE_start, int logPE_stride, int PE_size, long *pSync);      \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,      \
                             int logPE_stride, int PE_size, long *pSync);                      \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                              int logPE_stride, int PE_size, long *pSync);                     \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,     \
                              int logPE_stride, int PE_size, long *pSync);                     \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,   \
                               size_t nelems, int PE_start, int logPE_stride, int PE_size,     \
                               long *pSync);
SHMEMI_DECL_ACTIVE_SET(32)
SHMEMI_DECL_ACTIVE_SET(64)
#define SHMEMI_DECL_TO_ALL(T, N, OP)                                                           \
    void shmem_##N##_##OP##_to_all(T *dest, const T *source, int nreduce, int PE_start,        \
                                   int logPE_stride, int PE_size, T *pWrk, long *pSync);
#define SHMEMI_DECL_TO_ALL_BIT(T, N)                                                           \
    SHMEMI_DECL_TO_ALL(T, N, and) SHMEMI_DECL_TO_ALL(T, N, or) SHMEMI_DECL_TO_ALL(T, N, xor)
#define SHMEMI_DECL_TO_ALL_ARITH(T, N)                                                         \
    SHMEMI_DECL_TO_ALL(T, N, max) SHMEMI_DECL_TO_ALL(T, N, min)                                \
    SHMEMI_DECL_TO_ALL(T, N, sum) SHMEMI_DECL_TO_ALL(T, N, prod)
SHMEMI_TOALL_BIT_TYPES(SHMEMI_DECL_TO_ALL_BIT)
SHMEMI_TOALL_ARITH_TYPES(SHMEMI_DECL_TO_ALL_ARITH)
#ifndef __cplusplus
SHMEMI_COMPLEX_TYPES(SHMEMI_DECL_COMPLEX_REDUCE)
#endif

/* deprecated cache management: no-ops on cache-coherent machines */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void *dest);
void shmem_set_cache_line_inv(void *dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void *dest);

#ifdef __cplusplus
}
#endif

/* ---- C11 type-generic forms (C only; the forms without a ctx argument) ---- */
#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SHMEMI_GENERIC_TYPES(X)                                                                \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)                 \
    X(signed char, schar) X(short, short) X(int, int) X(long, long) X(long long, longlong)     \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_GEN_AMO_STD(X)                                                                  \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                     \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_GEN_AMO_EXT(X) SHMEMI_GEN_AMO_STD(X) X(float, float) X(double, double)
#define SHMEMI_GEN_AMO_BIT(X)                                                                  \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)             \
    X(int32_t, int32) X(int64_t, int64)
#define SHMEMI_GEN_P2P(X)                                                                      \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_GEN_ARITH(X)                                                                    \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)              \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)                   \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)             \
    X(float, float) X(double, double) X(long double, longdouble)
#define SHMEMI_GEN_SUMPROD(X) SHMEMI_GEN_ARITH(X) X(float _Complex, complexf) X(double _Complex, complexd)
#define SHMEMI_GEN_BIT(X)                                                                      \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8) X(int16_t, int16) \
    X(int32_t, int32) X(int64_t, int64)

/* One association per type: "T: shmem_<name>_<fn>," — the list ends in a
 * default that names no function, so a wrong type fails to compile.  The ctx
 * forms take one argument more: SHMEMI_NARG tells them apart. */
void shmemi_generic_no_such_type(void);
#define SHMEMI_GEN(TYPES, FN, lv) _Generic((lv), TYPES(SHMEMI_G_##FN) default: shmemi_generic_no_such_type)
#define SHMEMI_NARG(...) SHMEMI_NARG_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SHMEMI_NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N
#define SHMEMI_CAT(a, b) SHMEMI_CAT_(a, b)
#define SHMEMI_CAT_(a, b) a##b

#define SHMEMI_G_put(T, N) T: shmem_##N##_put,
#define SHMEMI_G_ctx_put(T, N) T: shmem_ctx_##N##_put,
#define shmem_put(...) SHMEMI_CAT(SHMEMI_put_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_put_4(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, put, *(a))(a, __VA_ARGS__)
#define SHMEMI_put_5(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_put, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_get(T, N) T: shmem_##N##_get,
#define SHMEMI_G_ctx_get(T, N) T: shmem_ctx_##N##_get,
#define shmem_get(...) SHMEMI_CAT(SHMEMI_get_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_get_4(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, get, *(a))(a, __VA_ARGS__)
#define SHMEMI_get_5(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_get, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_put_nbi(T, N) T: shmem_##N##_put_nbi,
#define SHMEMI_G_ctx_put_nbi(T, N) T: shmem_ctx_##N##_put_nbi,
#define shmem_put_nbi(...) SHMEMI_CAT(SHMEMI_put_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_put_nbi_4(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, put_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_put_nbi_5(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_put_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_get_nbi(T, N) T: shmem_##N##_get_nbi,
#define SHMEMI_G_ctx_get_nbi(T, N) T: shmem_ctx_##N##_get_nbi,
#define shmem_get_nbi(...) SHMEMI_CAT(SHMEMI_get_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_get_nbi_4(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, get_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_get_nbi_5(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_get_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_iput(T, N) T: shmem_##N##_iput,
#define SHMEMI_G_ctx_iput(T, N) T: shmem_ctx_##N##_iput,
#define shmem_iput(...) SHMEMI_CAT(SHMEMI_iput_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_iput_6(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, iput, *(a))(a, __VA_ARGS__)
#define SHMEMI_iput_7(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_iput, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_iget(T, N) T: shmem_##N##_iget,
#define SHMEMI_G_ctx_iget(T, N) T: shmem_ctx_##N##_iget,
#define shmem_iget(...) SHMEMI_CAT(SHMEMI_iget_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_iget_6(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, iget, *(a))(a, __VA_ARGS__)
#define SHMEMI_iget_7(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_iget, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_p(T, N) T: shmem_##N##_p,
#define SHMEMI_G_ctx_p(T, N) T: shmem_ctx_##N##_p,
#define shmem_p(...) SHMEMI_CAT(SHMEMI_p_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_p_3(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, p, *(a))(a, __VA_ARGS__)
#define SHMEMI_p_4(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_p, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_g(T, N) T: shmem_##N##_g,
#define SHMEMI_G_ctx_g(T, N) T: shmem_ctx_##N##_g,
#define shmem_g(...) SHMEMI_CAT(SHMEMI_g_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_g_2(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, g, *(a))(a, __VA_ARGS__)
#define SHMEMI_g_3(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_g, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_put_signal(T, N) T: shmem_##N##_put_signal,
#define SHMEMI_G_ctx_put_signal(T, N) T: shmem_ctx_##N##_put_signal,
#define shmem_put_signal(...) SHMEMI_CAT(SHMEMI_put_signal_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_put_signal_7(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, put_signal, *(a))(a, __VA_ARGS__)
#define SHMEMI_put_signal_8(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_put_signal, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_put_signal_nbi(T, N) T: shmem_##N##_put_signal_nbi,
#define SHMEMI_G_ctx_put_signal_nbi(T, N) T: shmem_ctx_##N##_put_signal_nbi,
#define shmem_put_signal_nbi(...) SHMEMI_CAT(SHMEMI_put_signal_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_put_signal_nbi_7(a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, put_signal_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_put_signal_nbi_8(c, a, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, ctx_put_signal_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch(T, N) T: shmem_##N##_atomic_fetch,
#define SHMEMI_G_ctx_atomic_fetch(T, N) T: shmem_ctx_##N##_atomic_fetch,
#define shmem_atomic_fetch(...) SHMEMI_CAT(SHMEMI_atomic_fetch_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_2(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, atomic_fetch, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_3(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, ctx_atomic_fetch, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_set(T, N) T: shmem_##N##_atomic_set,
#define SHMEMI_G_ctx_atomic_set(T, N) T: shmem_ctx_##N##_atomic_set,
#define shmem_atomic_set(...) SHMEMI_CAT(SHMEMI_atomic_set_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_set_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, atomic_set, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_set_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, ctx_atomic_set, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_swap(T, N) T: shmem_##N##_atomic_swap,
#define SHMEMI_G_ctx_atomic_swap(T, N) T: shmem_ctx_##N##_atomic_swap,
#define shmem_atomic_swap(...) SHMEMI_CAT(SHMEMI_atomic_swap_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_swap_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, atomic_swap, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_swap_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, ctx_atomic_swap, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_nbi(T, N) T: shmem_##N##_atomic_fetch_nbi,
#define SHMEMI_G_ctx_atomic_fetch_nbi(T, N) T: shmem_ctx_##N##_atomic_fetch_nbi,
#define shmem_atomic_fetch_nbi(...) SHMEMI_CAT(SHMEMI_atomic_fetch_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_nbi_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, atomic_fetch_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_nbi_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, ctx_atomic_fetch_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_swap_nbi(T, N) T: shmem_##N##_atomic_swap_nbi,
#define SHMEMI_G_ctx_atomic_swap_nbi(T, N) T: shmem_ctx_##N##_atomic_swap_nbi,
#define shmem_atomic_swap_nbi(...) SHMEMI_CAT(SHMEMI_atomic_swap_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_swap_nbi_4(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, atomic_swap_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_swap_nbi_5(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, ctx_atomic_swap_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_compare_swap(T, N) T: shmem_##N##_atomic_compare_swap,
#define SHMEMI_G_ctx_atomic_compare_swap(T, N) T: shmem_ctx_##N##_atomic_compare_swap,
#define shmem_atomic_compare_swap(...) SHMEMI_CAT(SHMEMI_atomic_compare_swap_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_compare_swap_4(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, atomic_compare_swap, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_compare_swap_5(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, ctx_atomic_compare_swap, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_inc(T, N) T: shmem_##N##_atomic_fetch_inc,
#define SHMEMI_G_ctx_atomic_fetch_inc(T, N) T: shmem_ctx_##N##_atomic_fetch_inc,
#define shmem_atomic_fetch_inc(...) SHMEMI_CAT(SHMEMI_atomic_fetch_inc_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_inc_2(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, atomic_fetch_inc, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_inc_3(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, ctx_atomic_fetch_inc, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_inc(T, N) T: shmem_##N##_atomic_inc,
#define SHMEMI_G_ctx_atomic_inc(T, N) T: shmem_ctx_##N##_atomic_inc,
#define shmem_atomic_inc(...) SHMEMI_CAT(SHMEMI_atomic_inc_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_inc_2(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, atomic_inc, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_inc_3(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, ctx_atomic_inc, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_add(T, N) T: shmem_##N##_atomic_fetch_add,
#define SHMEMI_G_ctx_atomic_fetch_add(T, N) T: shmem_ctx_##N##_atomic_fetch_add,
#define shmem_atomic_fetch_add(...) SHMEMI_CAT(SHMEMI_atomic_fetch_add_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_add_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, atomic_fetch_add, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_add_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, ctx_atomic_fetch_add, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_add(T, N) T: shmem_##N##_atomic_add,
#define SHMEMI_G_ctx_atomic_add(T, N) T: shmem_ctx_##N##_atomic_add,
#define shmem_atomic_add(...) SHMEMI_CAT(SHMEMI_atomic_add_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_add_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, atomic_add, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_add_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, ctx_atomic_add, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_compare_swap_nbi(T, N) T: shmem_##N##_atomic_compare_swap_nbi,
#define SHMEMI_G_ctx_atomic_compare_swap_nbi(T, N) T: shmem_ctx_##N##_atomic_compare_swap_nbi,
#define shmem_atomic_compare_swap_nbi(...) SHMEMI_CAT(SHMEMI_atomic_compare_swap_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_compare_swap_nbi_5(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, atomic_compare_swap_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_compare_swap_nbi_6(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, ctx_atomic_compare_swap_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_inc_nbi(T, N) T: shmem_##N##_atomic_fetch_inc_nbi,
#define SHMEMI_G_ctx_atomic_fetch_inc_nbi(T, N) T: shmem_ctx_##N##_atomic_fetch_inc_nbi,
#define shmem_atomic_fetch_inc_nbi(...) SHMEMI_CAT(SHMEMI_atomic_fetch_inc_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_inc_nbi_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, atomic_fetch_inc_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_inc_nbi_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, ctx_atomic_fetch_inc_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_add_nbi(T, N) T: shmem_##N##_atomic_fetch_add_nbi,
#define SHMEMI_G_ctx_atomic_fetch_add_nbi(T, N) T: shmem_ctx_##N##_atomic_fetch_add_nbi,
#define shmem_atomic_fetch_add_nbi(...) SHMEMI_CAT(SHMEMI_atomic_fetch_add_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_add_nbi_4(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, atomic_fetch_add_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_add_nbi_5(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, ctx_atomic_fetch_add_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_and(T, N) T: shmem_##N##_atomic_fetch_and,
#define SHMEMI_G_ctx_atomic_fetch_and(T, N) T: shmem_ctx_##N##_atomic_fetch_and,
#define shmem_atomic_fetch_and(...) SHMEMI_CAT(SHMEMI_atomic_fetch_and_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_and_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_fetch_and, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_and_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_fetch_and, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_and(T, N) T: shmem_##N##_atomic_and,
#define SHMEMI_G_ctx_atomic_and(T, N) T: shmem_ctx_##N##_atomic_and,
#define shmem_atomic_and(...) SHMEMI_CAT(SHMEMI_atomic_and_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_and_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_and, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_and_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_and, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_and_nbi(T, N) T: shmem_##N##_atomic_fetch_and_nbi,
#define SHMEMI_G_ctx_atomic_fetch_and_nbi(T, N) T: shmem_ctx_##N##_atomic_fetch_and_nbi,
#define shmem_atomic_fetch_and_nbi(...) SHMEMI_CAT(SHMEMI_atomic_fetch_and_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_and_nbi_4(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_fetch_and_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_and_nbi_5(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_fetch_and_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_or(T, N) T: shmem_##N##_atomic_fetch_or,
#define SHMEMI_G_ctx_atomic_fetch_or(T, N) T: shmem_ctx_##N##_atomic_fetch_or,
#define shmem_atomic_fetch_or(...) SHMEMI_CAT(SHMEMI_atomic_fetch_or_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_or_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_fetch_or, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_or_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_fetch_or, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_or(T, N) T: shmem_##N##_atomic_or,
#define SHMEMI_G_ctx_atomic_or(T, N) T: shmem_ctx_##N##_atomic_or,
#define shmem_atomic_or(...) SHMEMI_CAT(SHMEMI_atomic_or_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_or_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_or, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_or_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_or, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_or_nbi(T, N) T: shmem_##N##_atomic_fetch_or_nbi,
#define SHMEMI_G_ctx_atomic_fetch_or_nbi(T, N) T: shmem_ctx_##N##_atomic_fetch_or_nbi,
#define shmem_atomic_fetch_or_nbi(...) SHMEMI_CAT(SHMEMI_atomic_fetch_or_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_or_nbi_4(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_fetch_or_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_or_nbi_5(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_fetch_or_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_xor(T, N) T: shmem_##N##_atomic_fetch_xor,
#define SHMEMI_G_ctx_atomic_fetch_xor(T, N) T: shmem_ctx_##N##_atomic_fetch_xor,
#define shmem_atomic_fetch_xor(...) SHMEMI_CAT(SHMEMI_atomic_fetch_xor_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_xor_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_fetch_xor, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_xor_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_fetch_xor, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_xor(T, N) T: shmem_##N##_atomic_xor,
#define SHMEMI_G_ctx_atomic_xor(T, N) T: shmem_ctx_##N##_atomic_xor,
#define shmem_atomic_xor(...) SHMEMI_CAT(SHMEMI_atomic_xor_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_xor_3(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_xor, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_xor_4(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_xor, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_atomic_fetch_xor_nbi(T, N) T: shmem_##N##_atomic_fetch_xor_nbi,
#define SHMEMI_G_ctx_atomic_fetch_xor_nbi(T, N) T: shmem_ctx_##N##_atomic_fetch_xor_nbi,
#define shmem_atomic_fetch_xor_nbi(...) SHMEMI_CAT(SHMEMI_atomic_fetch_xor_nbi_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_atomic_fetch_xor_nbi_4(a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, atomic_fetch_xor_nbi, *(a))(a, __VA_ARGS__)
#define SHMEMI_atomic_fetch_xor_nbi_5(c, a, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, ctx_atomic_fetch_xor_nbi, *(a))(c, a, __VA_ARGS__)
#define SHMEMI_G_wait_until(T, N) T: shmem_##N##_wait_until,
#define shmem_wait_until(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_wait_until_all(T, N) T: shmem_##N##_wait_until_all,
#define shmem_wait_until_all(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_all, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_wait_until_any(T, N) T: shmem_##N##_wait_until_any,
#define shmem_wait_until_any(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_any, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_wait_until_some(T, N) T: shmem_##N##_wait_until_some,
#define shmem_wait_until_some(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_some, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_wait_until_all_vector(T, N) T: shmem_##N##_wait_until_all_vector,
#define shmem_wait_until_all_vector(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_all_vector, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_wait_until_any_vector(T, N) T: shmem_##N##_wait_until_any_vector,
#define shmem_wait_until_any_vector(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_any_vector, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_wait_until_some_vector(T, N) T: shmem_##N##_wait_until_some_vector,
#define shmem_wait_until_some_vector(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_some_vector, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_test(T, N) T: shmem_##N##_test,
#define shmem_test(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_test_all(T, N) T: shmem_##N##_test_all,
#define shmem_test_all(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test_all, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_test_any(T, N) T: shmem_##N##_test_any,
#define shmem_test_any(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test_any, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_test_some(T, N) T: shmem_##N##_test_some,
#define shmem_test_some(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test_some, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_test_all_vector(T, N) T: shmem_##N##_test_all_vector,
#define shmem_test_all_vector(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test_all_vector, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_test_any_vector(T, N) T: shmem_##N##_test_any_vector,
#define shmem_test_any_vector(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test_any_vector, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_test_some_vector(T, N) T: shmem_##N##_test_some_vector,
#define shmem_test_some_vector(a, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test_some_vector, *(a))(a, __VA_ARGS__)
#define SHMEMI_G_broadcast(T, N) T: shmem_##N##_broadcast,
#define shmem_broadcast(team, d, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, broadcast, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_collect(T, N) T: shmem_##N##_collect,
#define shmem_collect(team, d, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, collect, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_fcollect(T, N) T: shmem_##N##_fcollect,
#define shmem_fcollect(team, d, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, fcollect, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_alltoall(T, N) T: shmem_##N##_alltoall,
#define shmem_alltoall(team, d, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, alltoall, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_alltoalls(T, N) T: shmem_##N##_alltoalls,
#define shmem_alltoalls(team, d, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, alltoalls, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_max_reduce(T, N) T: shmem_##N##_max_reduce,
#define shmem_max_reduce(team, d, ...) SHMEMI_GEN(SHMEMI_GEN_ARITH, max_reduce, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_min_reduce(T, N) T: shmem_##N##_min_reduce,
#define shmem_min_reduce(team, d, ...) SHMEMI_GEN(SHMEMI_GEN_ARITH, min_reduce, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_sum_reduce(T, N) T: shmem_##N##_sum_reduce,
#define shmem_sum_reduce(team, d, ...) SHMEMI_GEN(SHMEMI_GEN_SUMPROD, sum_reduce, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_prod_reduce(T, N) T: shmem_##N##_prod_reduce,
#define shmem_prod_reduce(team, d, ...) SHMEMI_GEN(SHMEMI_GEN_SUMPROD, prod_reduce, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_and_reduce(T, N) T: shmem_##N##_and_reduce,
#define shmem_and_reduce(team, d, ...) SHMEMI_GEN(SHMEMI_GEN_BIT, and_reduce, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_or_reduce(T, N) T: shmem_##N##_or_reduce,
#define shmem_or_reduce(team, d, ...) SHMEMI_GEN(SHMEMI_GEN_BIT, or_reduce, *(d))(team, d, __VA_ARGS__)
#define SHMEMI_G_xor_reduce(T, N) T: shmem_##N##_xor_reduce,
#define shmem_xor_reduce(team, d, ...) SHMEMI_GEN(SHMEMI_GEN_BIT, xor_reduce, *(d))(team, d, __VA_ARGS__)
/* shmem_sync(team) is shmem_team_sync; with four arguments, the deprecated
 * active-set barrier without the quiet. */
#define shmem_sync(...) SHMEMI_CAT(SHMEMI_sync_, SHMEMI_NARG(__VA_ARGS__))(__VA_ARGS__)
#define SHMEMI_sync_1(team) shmem_team_sync(team)
#define SHMEMI_sync_4(a, b, c, d) shmemi_sync_active_set(a, b, c, d)

#endif

#endif /* SHMEM_H */
