/* CPU reference implementations of the GPU primitives (cuda/device/kd_primitives.h).
 * Plain sequential loops that say exactly what each primitive computes; the
 * GPU tests compare against them, and CI (no GPU) tests them directly. */
#ifndef KD_REF_PRIMITIVES_H
#define KD_REF_PRIMITIVES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = in[0] + ... + in[i-1], wrapping modulo 2^32; out may equal in. */
void kd_ref_scan_exclusive_i32(const int32_t *in, int32_t *out, size_t n);

/* Exclusive sum restarting wherever the segment id changes; out may equal in.
 * Fails (KD_ERR_INVALID) if the ids decrease anywhere. */
kd_status kd_ref_segmented_scan_exclusive_i32(const uint32_t *segment_ids, const int32_t *in, int32_t *out,
                                              size_t n, kd_error *err);

/* ids[i] = (number of heads in flags[0..i]) - 1, element 0 always a head;
 * any nonzero flag is a head. */
void kd_ref_head_flags_to_segment_ids(const uint8_t *head_flags, uint32_t *segment_ids, size_t n);

typedef struct kd_ref_payload {
    const void *in;      /* n elements */
    void *out;           /* n + (number of "both") elements */
    uint32_t elem_bytes; /* 4, 8 or 16 */
} kd_ref_payload;

/* Stable split by side, segmented (see kd_split_by_side). Sides are bit masks
 * (1 left, 2 right, 3 both); 0 drops the element. segment_ids may be NULL
 * when num_segments is 1. left_counts / right_counts
 * (num_segments each) and out_total may be NULL. Fails (KD_ERR_INVALID) on
 * decreasing ids, an id >= num_segments, or a payload size not 4, 8 or 16. */
kd_status kd_ref_split_by_side(const uint32_t *segment_ids, uint32_t num_segments, const uint8_t *sides, size_t n,
                               const kd_ref_payload *payloads, int num_payloads, uint32_t *left_counts,
                               uint32_t *right_counts, uint32_t *out_total, kd_error *err);

/* Stream compaction (kd_compact_flagged): the elements whose flag is nonzero,
 * in input order, at the start of each payload's output; *num_selected (may
 * be NULL) receives their number. Fails (KD_ERR_INVALID) on a payload size
 * not 4, 8 or 16, or n >= 2^32. */
kd_status kd_ref_compact_flagged(const uint8_t *flags, size_t n, const kd_ref_payload *payloads, int num_payloads,
                                 uint32_t *num_selected, kd_error *err);

/* The select-if predicates, numbered as kd_compact_pred (kd_primitives.h). */
typedef enum kd_ref_pred { KD_REF_NONZERO = 0, KD_REF_LESS, KD_REF_AT_LEAST } kd_ref_pred;

/* True when pred keeps x: x != 0, x < bound, x >= bound (unsigned). */
bool kd_ref_pred_keeps(kd_ref_pred pred, uint32_t bound, uint32_t x);

/* Select-if (kd_compact_if_u32): the words of in that pred keeps, in order,
 * into out; returns their number. */
size_t kd_ref_compact_if_u32(kd_ref_pred pred, uint32_t bound, const uint32_t *in, uint32_t *out, size_t n);

/* Stable sort of (key, value) pairs by key, ascending (LSB counting sort).
 * Inputs unchanged; outputs must not overlap them. */
kd_status kd_ref_radix_sort_pairs_u32(const uint32_t *keys_in, uint32_t *keys_out, const uint32_t *values_in,
                                      uint32_t *values_out, size_t n, kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
