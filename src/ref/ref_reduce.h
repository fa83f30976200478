/* CPU references of the min/max reductions (what the GPU ladder is checked
 * against). NaN-free inputs; min/max follow fminf/fmaxf, so when -0 and +0
 * tie either may be returned (compare results by value, -0 == +0). */
#ifndef KD_REF_REDUCE_H
#define KD_REF_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "kd_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* min (is_max false) or max of in[0..n); +inf (min) or -inf (max) when n == 0. */
float kd_ref_reduce_f32(const float *in, size_t n, int is_max);

/* Box of n boxes given as six arrays: out_box = lo.xyz (min), hi.xyz (max).
 * n == 0 gives lo = +inf, hi = -inf. */
void kd_ref_reduce_bounds(const float *const lo[3], const float *const hi[3], size_t n,
                          float out_box[6]);

/* Per-segment boxes: segment_ids non-decreasing, each < num_segments;
 * out_boxes holds num_segments records of six floats; segments no element
 * names get lo = +inf, hi = -inf. Fails (KD_ERR_INVALID) on decreasing or
 * out-of-range ids, leaving out_boxes unspecified. */
kd_status kd_ref_segmented_bounds(const uint32_t *segment_ids, uint32_t num_segments,
                                  const float *const lo[3], const float *const hi[3], size_t n,
                                  float *out_boxes, kd_error *err);

#ifdef __cplusplus
}
#endif
#endif
