/* The profiler behind `scankd profile`: times the GPU primitives' variants
 * next to CUB and a device-to-device copy, after checking each result
 * against a CPU reference. Valid C; the CLI formats what comes back.
 *
 * Timing: each measurement is the median (and minimum) of `reps` runs after
 * `warmup` runs, each run bracketed by CUDA events on one stream. When the
 * run's working set is under twice the L2 size, a kernel reading a buffer of
 * twice the L2 size runs (untimed) before each timed run, so no run finds
 * its inputs in L2. */
#ifndef KD_PROFILE_H
#define KD_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"
#include "kd_primitives.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kd_profile_what {
    KD_PROFILE_REDUCE = 0,
    KD_PROFILE_SCAN,
    KD_PROFILE_SPLIT,
    KD_PROFILE_SORT,
    KD_PROFILE_COMPACT,
    KD_PROFILE_NUM_WHAT
} kd_profile_what;

/* "reduce", "scan", "split", "sort", "compact". */
const char *kd_profile_what_name(kd_profile_what what);
/* What the GB/s of a primitive count, in words, for table headers. */
const char *kd_profile_bytes_rule(kd_profile_what what);

typedef struct kd_profile_options {
    int reps;          /* timed runs per measurement; the median is reported */
    int warmup;        /* untimed runs before them */
    kd_reduce_op op;   /* reduce: min or max */
    uint64_t seed;     /* inputs are random from this seed */
} kd_profile_options;

typedef struct kd_profile_device {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    size_t l2_bytes;
    size_t total_bytes;
    size_t free_bytes; /* when the context was created */
} kd_profile_device;

typedef enum kd_profile_kind {
    KD_PROFILE_OURS = 0, /* one of scankd's variants */
    KD_PROFILE_CUB,      /* CUB's equivalent */
    KD_PROFILE_COPY      /* cudaMemcpyAsync device to device */
} kd_profile_kind;

typedef enum kd_profile_status {
    KD_PROFILE_OK = 0,  /* verified, then timed */
    KD_PROFILE_FAILED,  /* wrong result: not timed */
    KD_PROFILE_ERROR    /* a CUDA call failed: not timed */
} kd_profile_status;

enum { KD_PROFILE_NAME_BYTES = 64, KD_PROFILE_NOTE_BYTES = 160 };

typedef struct kd_profile_row {
    kd_profile_what what;
    kd_profile_kind kind;
    char variant[KD_PROFILE_NAME_BYTES];
    int block_size;     /* 0 when the variant has none to choose */
    size_t n;
    double median_us;
    double min_us;
    double bytes;       /* bytes counted for GB/s (see kd_profile_bytes_rule) */
    double gbps;        /* bytes / median */
    double copy_share;  /* gbps / the copy's gbps at this n; NaN when absent */
    double speedup;     /* first rung's median / this median; NaN when absent */
    double vs_cub;      /* gbps / the matching CUB row's gbps; NaN when absent */
    bool flushed;       /* L2 flushed before each timed run */
    kd_profile_status status;
    char note[KD_PROFILE_NOTE_BYTES];
} kd_profile_row;

typedef struct kd_profile_context kd_profile_context;

/* Selects device 0, creates a stream, events and the L2 flush buffer. */
kd_status kd_profile_context_create(kd_profile_context **ctx, const kd_profile_options *options,
                                    kd_error *err);
void kd_profile_context_free(kd_profile_context *ctx);
const kd_profile_device *kd_profile_context_device(const kd_profile_context *ctx);
/* Free device memory now. */
size_t kd_profile_free_bytes(kd_profile_context *ctx);

/* Device memory a profile of `what` at n elements needs at most (inputs,
 * outputs, temporary storage of every variant and of CUB, the copy's
 * destination), so the caller can skip sizes that do not fit. */
size_t kd_profile_device_bytes(kd_profile_what what, size_t n);

/* Every variant of `what`, CUB's equivalent and the copy at n elements:
 * appends up to `capacity` rows and sets *num_rows. A wrong result marks its
 * row KD_PROFILE_FAILED and the others still run; the function fails only
 * when it cannot go on (allocation, a CUDA error outside a variant). */
kd_status kd_profile_run(kd_profile_context *ctx, kd_profile_what what, size_t n,
                         kd_profile_row *rows, int capacity, int *num_rows, kd_error *err);

/* Block-size sweep at n: each variant that has a block size (or tile shape)
 * to choose, at each of the given block sizes it supports. Rows as above
 * (speedup and vs_cub relative to the same variant at its default). */
kd_status kd_profile_sweep(kd_profile_context *ctx, kd_profile_what what, size_t n,
                           const int *block_sizes, int num_block_sizes, kd_profile_row *rows,
                           int capacity, int *num_rows, kd_error *err);

/* Rows kd_profile_run can return at most (for sizing the array). */
enum { KD_PROFILE_MAX_ROWS = 24, KD_PROFILE_MAX_SWEEP_ROWS = 128 };

#ifdef __cplusplus
}
#endif
#endif
