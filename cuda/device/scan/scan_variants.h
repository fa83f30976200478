/* Tile-shape variants of the look-back scan and of the segmented scan, for
 * tests and tuning (C and CUDA). The public launchers (kd_primitives.h) run
 * variant 0; these run any variant under the same launcher contract. Names:
 * kd_scan_lookback_config_name / kd_segscan_config_name (scan_internal.cuh). */
#ifndef KD_SCAN_VARIANTS_H
#define KD_SCAN_VARIANTS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

int kd_scan_lookback_num_variants(void);
cudaError_t kd_scan_lookback_i32_variant(int variant, void *d_temp, size_t *temp_bytes, const int32_t *d_in,
                                         int32_t *d_out, size_t n, cudaStream_t stream);

int kd_segmented_scan_num_variants(void);
cudaError_t kd_segmented_scan_exclusive_i32_variant(int variant, void *d_temp, size_t *temp_bytes,
                                                    const uint32_t *d_segment_ids, const int32_t *d_in,
                                                    int32_t *d_out, size_t n, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
