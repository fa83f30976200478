// Device discovery: the CLI and the GPU tests ask here whether a device exists.
#include "kd_primitives.h"

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
