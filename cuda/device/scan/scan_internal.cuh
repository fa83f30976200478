// The rungs of the scan ladder behind kd_scan_exclusive_i32 (scan_dispatch.cu).
// Each follows the launcher contract of kd_primitives.h; n > 0 here. The
// int32 sums wrap, so the rungs work on the same bits as uint32.
#ifndef KD_SCAN_INTERNAL_CUH
#define KD_SCAN_INTERNAL_CUH

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime.h>

cudaError_t kd_scan_naive_run(void *d_temp, size_t *temp_bytes, const uint32_t *d_in, uint32_t *d_out,
                              size_t n, cudaStream_t stream);
cudaError_t kd_scan_blelloch_global_run(void *d_temp, size_t *temp_bytes, const uint32_t *d_in,
                                        uint32_t *d_out, size_t n, cudaStream_t stream);
cudaError_t kd_scan_blelloch_shared_run(void *d_temp, size_t *temp_bytes, const uint32_t *d_in,
                                        uint32_t *d_out, size_t n, cudaStream_t stream);

// The look-back scan's tile shape: threads per block x 16-byte vectors per
// thread. KD_SCAN_LOOKBACK uses config 0 (the table in scan_3_lookback.cu
// lists the tuned shape first); the others exist for tuning sweeps.
enum { KD_SCAN_LOOKBACK_NUM_CONFIGS = 4 };
const char *kd_scan_lookback_config_name(int config);
cudaError_t kd_scan_lookback_run(int config, void *d_temp, size_t *temp_bytes, const uint32_t *d_in,
                                 uint32_t *d_out, size_t n, cudaStream_t stream);

// The segmented scan's tile shapes (segscan.cu), likewise: config 0 is the
// one kd_segmented_scan_exclusive_i32 uses.
enum { KD_SEGSCAN_NUM_CONFIGS = 4 };
const char *kd_segscan_config_name(int config);
cudaError_t kd_segscan_run(int config, void *d_temp, size_t *temp_bytes, const uint32_t *d_segment_ids,
                           const uint32_t *d_in, uint32_t *d_out, size_t n, cudaStream_t stream);

#endif
