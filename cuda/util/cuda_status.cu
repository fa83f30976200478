// Device discovery and CUDA errors as scankd statuses (cuda_status.h).
#include "cuda_status.h"

#include <cuda_runtime.h>

extern "C" int kd_cuda_device_count(void)
{
    int count = 0;
    // No driver or no device both mean "no GPU" to the caller; clear the sticky error.
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return count;
}

extern "C" kd_status kd_cuda_fail(kd_error *err, cudaError_t code, const char *who, const char *what)
{
    if (code == cudaSuccess)
        return KD_OK;
    (void)cudaGetLastError(); // clear a sticky launch error so later calls report their own
    return kd_error_set(err, KD_ERR_CUDA, "%s: %s: %s", who, what, cudaGetErrorString(code));
}
