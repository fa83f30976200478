// The scan family's public entry (not a rung): validates, then forwards to the
// rung chosen by kd_scan_variant (scan_0_naive.cu ... scan_3_lookback.cu).
#include "kd_primitives.h"

#include "scan_internal.cuh"
#include "temp_storage.cuh"

extern "C" const char *kd_scan_variant_name(kd_scan_variant variant)
{
    switch (variant) {
    case KD_SCAN_NAIVE: return "scan0-hillis-steele";
    case KD_SCAN_BLELLOCH_GLOBAL: return "scan1-blelloch-global";
    case KD_SCAN_BLELLOCH_SHARED: return "scan2-blelloch-shared";
    case KD_SCAN_LOOKBACK: return "scan3-lookback";
    case KD_SCAN_NUM_VARIANTS: break;
    }
    return "unknown";
}

extern "C" cudaError_t kd_scan_exclusive_i32(kd_scan_variant variant, void *d_temp, size_t *temp_bytes,
                                             const int32_t *d_in, int32_t *d_out, size_t n,
                                             cudaStream_t stream)
{
    if (temp_bytes == NULL || (int)variant < 0 || variant >= KD_SCAN_NUM_VARIANTS)
        return cudaErrorInvalidValue;
    if (n == 0) {
        if (d_temp == NULL)
            *temp_bytes = KD_TEMP_ALIGN;
        return cudaSuccess;
    }
    if (d_temp != NULL && (d_in == NULL || d_out == NULL))
        return cudaErrorInvalidValue;
    const uint32_t *in = reinterpret_cast<const uint32_t *>(d_in);
    uint32_t *out = reinterpret_cast<uint32_t *>(d_out);
    switch (variant) {
    case KD_SCAN_NAIVE: return kd_scan_naive_run(d_temp, temp_bytes, in, out, n, stream);
    case KD_SCAN_BLELLOCH_GLOBAL: return kd_scan_blelloch_global_run(d_temp, temp_bytes, in, out, n, stream);
    case KD_SCAN_BLELLOCH_SHARED: return kd_scan_blelloch_shared_run(d_temp, temp_bytes, in, out, n, stream);
    case KD_SCAN_LOOKBACK: return kd_scan_lookback_run(0, d_temp, temp_bytes, in, out, n, stream);
    case KD_SCAN_NUM_VARIANTS: break;
    }
    return cudaErrorInvalidValue;
}
