// Bounds of boxes given as six arrays, in one fused pass (each thread reads
// its element of all six arrays), and segmented bounds: the public launchers,
// forwarding to the ladder with the rung's default block size.
#include "reduce_internal.h"

extern "C" cudaError_t kd_reduce_bounds(kd_reduce_variant variant, void *d_temp, size_t *temp_bytes,
                                        const float *const d_lo[3], const float *const d_hi[3],
                                        float *d_out_box, size_t n, cudaStream_t stream)
{
    if ((int)variant < 0 || variant >= KD_REDUCE_NUM_VARIANTS)
        return cudaErrorInvalidValue;
    const float *lanes[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    if (d_lo != nullptr && d_hi != nullptr)
        for (int a = 0; a < 3; a++) {
            lanes[a] = d_lo[a];
            lanes[3 + a] = d_hi[a];
        }
    return kd_reduce_lanes(variant, kd_reduce_default_block_size(variant), KD_REDUCE_SHAPE_BOUNDS,
                           d_temp, temp_bytes, lanes, d_out_box, n, stream);
}

extern "C" cudaError_t kd_segmented_reduce_bounds(kd_reduce_variant variant, void *d_temp,
                                                  size_t *temp_bytes, const uint32_t *d_segment_ids,
                                                  uint32_t num_segments, const float *const d_lo[3],
                                                  const float *const d_hi[3], float *d_out_boxes,
                                                  size_t n, cudaStream_t stream)
{
    if ((int)variant < 0 || variant >= KD_REDUCE_NUM_VARIANTS)
        return cudaErrorInvalidValue;
    const float *lanes[6] = {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
    if (d_lo != nullptr && d_hi != nullptr)
        for (int a = 0; a < 3; a++) {
            lanes[a] = d_lo[a];
            lanes[3 + a] = d_hi[a];
        }
    return kd_reduce_segmented_lanes(variant, kd_reduce_default_block_size(variant),
                                     KD_REDUCE_SHAPE_BOUNDS, d_temp, temp_bytes, d_segment_ids,
                                     num_segments, lanes, d_out_boxes, n, stream);
}
