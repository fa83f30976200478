/* Public launchers of scankd's GPU primitives (the "device" layer, as in CUB).
 *
 * Every launcher follows CUB's temporary-storage contract: call it once with
 * d_temp == NULL to learn *temp_bytes, allocate that many bytes, call again.
 * n == 0 succeeds and does nothing. Each takes a stream, launches
 * asynchronously, checks every launch, and returns the first CUDA error
 * (cudaSuccess on success). Valid C and CUDA; no CUB types cross this line. */
#ifndef KD_PRIMITIVES_H
#define KD_PRIMITIVES_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_status.h" /* kd_cuda_device_count */

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Scan family: exclusive prefix sum of 32-bit ints -------------------- */
/* The rungs, each one change on the one before (scan/scan_<rung>_*.cu). */
typedef enum kd_scan_variant {
    KD_SCAN_NAIVE = 0,        /* Scan0: Hillis-Steele, one launch per doubling step */
    KD_SCAN_BLELLOCH_GLOBAL,  /* Scan1: work-efficient up/down sweep in global memory */
    KD_SCAN_BLELLOCH_SHARED,  /* Scan2: the sweeps in shared memory, block sums by level */
    KD_SCAN_LOOKBACK,         /* Scan3: one pass, decoupled look-back */
    KD_SCAN_NUM_VARIANTS
} kd_scan_variant;

const char *kd_scan_variant_name(kd_scan_variant variant);

/* d_out[i] = d_in[0] + ... + d_in[i-1] (wrapping); d_out may equal d_in. */
cudaError_t kd_scan_exclusive_i32(kd_scan_variant variant, void *d_temp, size_t *temp_bytes,
                                  const int32_t *d_in, int32_t *d_out, size_t n,
                                  cudaStream_t stream);

/* ---- Segmented exclusive scan ------------------------------------------ */
/* Segments are given by per-element segment ids, non-decreasing; an id that
 * no element carries is an empty segment. The sum restarts at 0 wherever the
 * id changes. */
cudaError_t kd_segmented_scan_exclusive_i32(void *d_temp, size_t *temp_bytes,
                                            const uint32_t *d_segment_ids,
                                            const int32_t *d_in, int32_t *d_out,
                                            size_t n, cudaStream_t stream);

/* Head flags (1 where a segment starts; element 0 always starts one) to
 * segment ids (the inclusive count of heads minus one). */
cudaError_t kd_head_flags_to_segment_ids(void *d_temp, size_t *temp_bytes,
                                         const uint8_t *d_head_flags,
                                         uint32_t *d_segment_ids, size_t n,
                                         cudaStream_t stream);

/* ---- Split-by-side ------------------------------------------------------ */
/* Sides are bit masks: left = 1, right = 2, both = 3 (a straddler is written
 * to each side). 0 is invalid. */
enum { KD_SIDE_LEFT = 1, KD_SIDE_RIGHT = 2, KD_SIDE_BOTH = 3 };

enum { KD_SPLIT_MAX_PAYLOADS = 8 };

typedef struct kd_split_payload {
    const void *d_in;      /* n elements */
    void *d_out;           /* n + (number of "both" elements) elements */
    uint32_t elem_bytes;   /* 4, 8 or 16 */
} kd_split_payload;

/* Stable split of every segment (segment ids as for the segmented scan, with
 * num_segments segments, ids < num_segments): the output holds segment 0's
 * lefts in input order, then its rights in input order, then segment 1's,
 * and so on. Each payload is scattered to those addresses.
 * d_left_counts / d_right_counts receive num_segments counts each.
 * If d_out_total is not NULL it receives the output length (one uint32). */
cudaError_t kd_split_by_side(void *d_temp, size_t *temp_bytes,
                             const uint32_t *d_segment_ids, uint32_t num_segments,
                             const uint8_t *d_sides, size_t n,
                             const kd_split_payload *payloads, int num_payloads,
                             uint32_t *d_left_counts, uint32_t *d_right_counts,
                             uint32_t *d_out_total, cudaStream_t stream);

/* ---- Stream compaction -------------------------------------------------- */
/* The selected elements of an input, in input order, packed at the start of
 * the output. One pass: the flags (or the values a predicate tests) and each
 * payload are read once and only the selected elements are written. Outputs
 * must not overlap inputs; each output needs room for n elements at most. */
enum { KD_COMPACT_MAX_PAYLOADS = 8 };

/* Element i is selected when d_flags[i] != 0. Each payload (d_in, d_out and
 * elem_bytes 4, 8 or 16, both pointers aligned to elem_bytes: the split's
 * payload type) is compacted alike; none is allowed (only the count). If
 * d_num_selected is not NULL it receives the number selected (one uint32;
 * 0 when n == 0). n < 2^32. */
cudaError_t kd_compact_flagged(void *d_temp, size_t *temp_bytes, const uint8_t *d_flags, size_t n,
                               const kd_split_payload *payloads, int num_payloads,
                               uint32_t *d_num_selected, cudaStream_t stream);

/* Predicates of the select-if form, on unsigned 32-bit words. */
typedef enum kd_compact_pred {
    KD_COMPACT_NONZERO = 0, /* x != 0: remove the zeros (any 32-bit type's zero bits) */
    KD_COMPACT_LESS,        /* x < bound */
    KD_COMPACT_AT_LEAST,    /* x >= bound (the complement of LESS) */
    KD_COMPACT_NUM_PREDS
} kd_compact_pred;

/* Select-if: d_out receives the words of d_in for which pred holds (bound is
 * ignored by NONZERO), in input order; d_num_selected as above. */
cudaError_t kd_compact_if_u32(void *d_temp, size_t *temp_bytes, kd_compact_pred pred, uint32_t bound,
                              const uint32_t *d_in, uint32_t *d_out, size_t n,
                              uint32_t *d_num_selected, cudaStream_t stream);

/* ---- Min/max reduction ladder over float -------------------------------- */
/* Rungs 0-4 are the thesis chapter "Understanding CUDA"'s Reduce0-Reduce4;
 * every later rung makes one change to the rung before it. */
typedef enum kd_reduce_variant {
    KD_REDUCE0 = 0,             /* interleaved addressing */
    KD_REDUCE1,                 /* sequential (coalesced) addressing */
    KD_REDUCE2,                 /* shared memory */
    KD_REDUCE3,                 /* register-held running value */
    KD_REDUCE4,                 /* first op during load, unrolled warp tail */
    KD_REDUCE5_SHUFFLE,         /* warp shuffles instead of a shared-memory tree */
    KD_REDUCE6_VEC4,            /* one 16-byte load a thread instead of two floats */
    KD_REDUCE7_MANY_PER_THREAD, /* many elements a thread: a grid sized to the GPU strides */
    KD_REDUCE8_ONEPASS,         /* one launch: the last block reduces the blocks' values */
    KD_REDUCE_NUM_VARIANTS
} kd_reduce_variant;

typedef enum kd_reduce_op { KD_REDUCE_MIN = 0, KD_REDUCE_MAX = 1 } kd_reduce_op;

const char *kd_reduce_variant_name(kd_reduce_variant variant);

/* *d_out = min or max of d_in[0..n) (NaN-free inputs; -0 and +0 compare
 * equal). n == 0 writes +inf for min and -inf for max. */
cudaError_t kd_reduce_f32(kd_reduce_variant variant, kd_reduce_op op,
                          void *d_temp, size_t *temp_bytes,
                          const float *d_in, float *d_out, size_t n,
                          cudaStream_t stream);

/* Bounds fused in one pass: boxes given as six arrays (structure of arrays:
 * d_lo[0..2] and d_hi[0..2], n floats each); d_out_box receives six floats
 * lo.xyz, hi.xyz (a kd_aabb). */
cudaError_t kd_reduce_bounds(kd_reduce_variant variant, void *d_temp, size_t *temp_bytes,
                             const float *const d_lo[3], const float *const d_hi[3],
                             float *d_out_box, size_t n, cudaStream_t stream);

/* Segmented bounds (per-node boxes for the builder): segments as for the
 * segmented scan; d_out_boxes receives num_segments boxes of six floats
 * (empty segments get lo = +inf, hi = -inf). Rungs 0-7 set the boxes to
 * the identities, then one kernel whose blocks take a tile each reduces the
 * tile's runs with the rung's tile reduction (rungs 5-7: runs short of the
 * tile by a warp each) and adds them into the boxes by atomics; Reduce7's
 * many elements a thread are a larger tile there. Reduce8 is a different
 * algorithm: one cooperative launch of block-wide segmented scans that
 * writes every box once (no init, no atomics). */
cudaError_t kd_segmented_reduce_bounds(kd_reduce_variant variant,
                                       void *d_temp, size_t *temp_bytes,
                                       const uint32_t *d_segment_ids, uint32_t num_segments,
                                       const float *const d_lo[3], const float *const d_hi[3],
                                       float *d_out_boxes, size_t n, cudaStream_t stream);

/* ---- Radix sort --------------------------------------------------------- */
/* Stable LSB radix sort of 32-bit keys with a 32-bit payload, built on the
 * split; passes above the highest set bit of the largest key are skipped
 * (found by a max reduction). Inputs are left unchanged. */
cudaError_t kd_radix_sort_pairs_u32(void *d_temp, size_t *temp_bytes,
                                    const uint32_t *d_keys_in, uint32_t *d_keys_out,
                                    const uint32_t *d_values_in, uint32_t *d_values_out,
                                    size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
