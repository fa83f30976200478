/* GPU test: lists the CUDA devices and checks a round trip through device
 * memory. Exits 77 (skipped) when no device is present. */
#include <stdint.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda_status.h"
#include "test_support.h"

int main(void)
{
    int count = kd_cuda_device_count();
    if (count == 0) {
        printf("gpu_device_query: no CUDA device, skipping\n");
        return KD_TEST_SKIP;
    }
    for (int d = 0; d < count; d++) {
        struct cudaDeviceProp prop;
        CHECK(cudaGetDeviceProperties(&prop, d) == cudaSuccess);
        printf("device %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", d, prop.name, prop.major, prop.minor,
               prop.multiProcessorCount, (double)prop.totalGlobalMem / (1u << 30));
        CHECK(prop.major >= 7);
    }
    uint32_t host[256], back[256];
    for (int i = 0; i < 256; i++)
        host[i] = 2654435761u * (uint32_t)i;
    memset(back, 0, sizeof back);
    void *d_buf = NULL;
    CHECK(cudaMalloc(&d_buf, sizeof host) == cudaSuccess);
    CHECK(cudaMemcpy(d_buf, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(cudaMemcpy(back, d_buf, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
    CHECK(memcmp(host, back, sizeof host) == 0);
    CHECK(cudaFree(d_buf) == cudaSuccess);
    return kd_test_finish("gpu_device_query");
}
