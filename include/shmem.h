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
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_GEN_P2P(X)                                                                      \
    X(short, short) X(int, int) X(long, long) X(long long, longlong) X(unsigned short, ushort) \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEMI_GEN_ARITH(X)                                                                    \
    X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)              \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)                   \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)             \
    X(float, float) X(double, double) X(long double, longdouble)
#define SHMEMI_GEN_BIT(X)                                                                      \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong)

/* One association per type: "T: shmem_<name>_<fn>," — the list ends in a
 * default that names no function, so a wrong type fails to compile. */
#define SHMEMI_G_put(T, N) T: shmem_##N##_put,
#define SHMEMI_G_get(T, N) T: shmem_##N##_get,
#define SHMEMI_G_put_nbi(T, N) T: shmem_##N##_put_nbi,
#define SHMEMI_G_get_nbi(T, N) T: shmem_##N##_get_nbi,
#define SHMEMI_G_iput(T, N) T: shmem_##N##_iput,
#define SHMEMI_G_iget(T, N) T: shmem_##N##_iget,
#define SHMEMI_G_p(T, N) T: shmem_##N##_p,
#define SHMEMI_G_g(T, N) T: shmem_##N##_g,
#define SHMEMI_G_put_signal(T, N) T: shmem_##N##_put_signal,
#define SHMEMI_G_put_signal_nbi(T, N) T: shmem_##N##_put_signal_nbi,
#define SHMEMI_G_broadcast(T, N) T: shmem_##N##_broadcast,
#define SHMEMI_G_collect(T, N) T: shmem_##N##_collect,
#define SHMEMI_G_fcollect(T, N) T: shmem_##N##_fcollect,
#define SHMEMI_G_alltoall(T, N) T: shmem_##N##_alltoall,
#define SHMEMI_G_alltoalls(T, N) T: shmem_##N##_alltoalls,
#define SHMEMI_G_fetch(T, N) T: shmem_##N##_atomic_fetch,
#define SHMEMI_G_set(T, N) T: shmem_##N##_atomic_set,
#define SHMEMI_G_swap(T, N) T: shmem_##N##_atomic_swap,
#define SHMEMI_G_compare_swap(T, N) T: shmem_##N##_atomic_compare_swap,
#define SHMEMI_G_fetch_inc(T, N) T: shmem_##N##_atomic_fetch_inc,
#define SHMEMI_G_inc(T, N) T: shmem_##N##_atomic_inc,
#define SHMEMI_G_fetch_add(T, N) T: shmem_##N##_atomic_fetch_add,
#define SHMEMI_G_add(T, N) T: shmem_##N##_atomic_add,
#define SHMEMI_G_fetch_and(T, N) T: shmem_##N##_atomic_fetch_and,
#define SHMEMI_G_and(T, N) T: shmem_##N##_atomic_and,
#define SHMEMI_G_fetch_or(T, N) T: shmem_##N##_atomic_fetch_or,
#define SHMEMI_G_or(T, N) T: shmem_##N##_atomic_or,
#define SHMEMI_G_fetch_xor(T, N) T: shmem_##N##_atomic_fetch_xor,
#define SHMEMI_G_xor(T, N) T: shmem_##N##_atomic_xor,
#define SHMEMI_G_wait_until(T, N) T: shmem_##N##_wait_until,
#define SHMEMI_G_wait_until_all(T, N) T: shmem_##N##_wait_until_all,
#define SHMEMI_G_wait_until_any(T, N) T: shmem_##N##_wait_until_any,
#define SHMEMI_G_wait_until_some(T, N) T: shmem_##N##_wait_until_some,
#define SHMEMI_G_test(T, N) T: shmem_##N##_test,
#define SHMEMI_G_test_all(T, N) T: shmem_##N##_test_all,
#define SHMEMI_G_test_any(T, N) T: shmem_##N##_test_any,
#define SHMEMI_G_test_some(T, N) T: shmem_##N##_test_some,
#define SHMEMI_G_max_reduce(T, N) T: shmem_##N##_max_reduce,
#define SHMEMI_G_min_reduce(T, N) T: shmem_##N##_min_reduce,
#define SHMEMI_G_sum_reduce(T, N) T: shmem_##N##_sum_reduce,
#define SHMEMI_G_prod_reduce(T, N) T: shmem_##N##_prod_reduce,
#define SHMEMI_G_and_reduce(T, N) T: shmem_##N##_and_reduce,
#define SHMEMI_G_or_reduce(T, N) T: shmem_##N##_or_reduce,
#define SHMEMI_G_xor_reduce(T, N) T: shmem_##N##_xor_reduce,
void shmemi_generic_no_such_type(void);
#define SHMEMI_GEN(TYPES, FN, lv) _Generic((lv), TYPES(SHMEMI_G_##FN) default: shmemi_generic_no_such_type)

#define shmem_put(dest, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, put, *(dest))(dest, __VA_ARGS__)
#define shmem_get(dest, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, get, *(dest))(dest, __VA_ARGS__)
#define shmem_put_nbi(dest, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, put_nbi, *(dest))(dest, __VA_ARGS__)
#define shmem_get_nbi(dest, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, get_nbi, *(dest))(dest, __VA_ARGS__)
#define shmem_iput(dest, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, iput, *(dest))(dest, __VA_ARGS__)
#define shmem_iget(dest, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, iget, *(dest))(dest, __VA_ARGS__)
#define shmem_p(dest, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, p, *(dest))(dest, __VA_ARGS__)
#define shmem_g(src, ...) SHMEMI_GEN(SHMEMI_GENERIC_TYPES, g, *(src))(src, __VA_ARGS__)
#define shmem_put_signal(dest, ...)                                                            \
    SHMEMI_GEN(SHMEMI_GENERIC_TYPES, put_signal, *(dest))(dest, __VA_ARGS__)
#define shmem_put_signal_nbi(dest, ...)                                                        \
    SHMEMI_GEN(SHMEMI_GENERIC_TYPES, put_signal_nbi, *(dest))(dest, __VA_ARGS__)
#define shmem_broadcast(team, dest, ...)                                                       \
    SHMEMI_GEN(SHMEMI_GENERIC_TYPES, broadcast, *(dest))(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...)                                                         \
    SHMEMI_GEN(SHMEMI_GENERIC_TYPES, collect, *(dest))(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...)                                                        \
    SHMEMI_GEN(SHMEMI_GENERIC_TYPES, fcollect, *(dest))(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...)                                                        \
    SHMEMI_GEN(SHMEMI_GENERIC_TYPES, alltoall, *(dest))(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...)                                                       \
    SHMEMI_GEN(SHMEMI_GENERIC_TYPES, alltoalls, *(dest))(team, dest, __VA_ARGS__)
#define shmem_atomic_fetch(src, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, fetch, *(src))(src, __VA_ARGS__)
#define shmem_atomic_set(dest, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, set, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_swap(dest, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_EXT, swap, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_compare_swap(dest, ...)                                                   \
    SHMEMI_GEN(SHMEMI_GEN_AMO_STD, compare_swap, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_inc(dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_AMO_STD, fetch_inc, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_inc(dest, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, inc, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_add(dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_AMO_STD, fetch_add, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_add(dest, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_STD, add, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_and(dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, fetch_and, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_and(dest, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, and, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_or(dest, ...)                                                       \
    SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, fetch_or, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_or(dest, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, or, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_fetch_xor(dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, fetch_xor, *(dest))(dest, __VA_ARGS__)
#define shmem_atomic_xor(dest, ...) SHMEMI_GEN(SHMEMI_GEN_AMO_BIT, xor, *(dest))(dest, __VA_ARGS__)
#define shmem_wait_until(ivar, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until, *(ivar))(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...)                                                       \
    SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_all, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...)                                                       \
    SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_any, *(ivars))(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_P2P, wait_until_some, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test, *(ivar))(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test_all, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) SHMEMI_GEN(SHMEMI_GEN_P2P, test_any, *(ivars))(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...)                                                            \
    SHMEMI_GEN(SHMEMI_GEN_P2P, test_some, *(ivars))(ivars, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_ARITH, max_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_ARITH, min_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_ARITH, sum_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...)                                                     \
    SHMEMI_GEN(SHMEMI_GEN_ARITH, prod_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_BIT, and_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...)                                                       \
    SHMEMI_GEN(SHMEMI_GEN_BIT, or_reduce, *(dest))(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...)                                                      \
    SHMEMI_GEN(SHMEMI_GEN_BIT, xor_reduce, *(dest))(team, dest, __VA_ARGS__)
#endif

#endif /* SHMEM_H */
