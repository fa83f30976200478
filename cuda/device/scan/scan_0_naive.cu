// Scan0, naive: Hillis-Steele, one launch per doubling step; every element adds the partner 2^d
// behind it (O(n log n) adds).
//
// Teaching rung from the seeds: simple and correct for any n, but it reads
// and writes the whole array log2(n) times. The scan is made exclusive by
// shifting the input right by one as the first step reads it.
#include "primitives_tuning.h"
#include "scan_internal.cuh"

#include "temp_storage.cuh"

namespace {

const unsigned NAIVE_THREADS = KD_SCAN_SIMPLE_THREADS;

// First step (distance 1) fused with the shift: dst[i] = in[i-1] + in[i-2].
__global__ void naive_first_step_kernel(const uint32_t *d_in, uint32_t *d_dst, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t sum = i >= 1 ? d_in[i - 1] : 0u;
    if (i >= 2)
        sum += d_in[i - 2];
    d_dst[i] = sum;
}

// Step with distance `offset`: dst[i] = src[i] + src[i - offset].
__global__ void naive_step_kernel(const uint32_t *d_src, uint32_t *d_dst, size_t n, size_t offset)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint32_t sum = d_src[i];
    if (i >= offset)
        sum += d_src[i - offset];
    d_dst[i] = sum;
}

} // namespace

cudaError_t kd_scan_naive_run(void *d_temp, size_t *temp_bytes, const uint32_t *d_in, uint32_t *d_out,
                              size_t n, cudaStream_t stream)
{
    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_buffer = kd_temp_add(&layout, n * sizeof(uint32_t));
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;

    // Steps ping-pong between the temporary buffer and d_out: the input is
    // read only by the first step, so d_out may alias it.
    uint32_t *buffer = kd_temp_slot<uint32_t>(&layout, d_temp, slot_buffer);
    const size_t num_blocks = (n + NAIVE_THREADS - 1) / NAIVE_THREADS;
    if (num_blocks > 0x7fffffffu)
        return cudaErrorInvalidValue;
    naive_first_step_kernel<<<(unsigned)num_blocks, NAIVE_THREADS, 0, stream>>>(d_in, buffer, n);
    KD_TRY_LAUNCH();
    uint32_t *src = buffer, *dst = d_out;
    for (size_t offset = 2; offset < n; offset *= 2) {
        naive_step_kernel<<<(unsigned)num_blocks, NAIVE_THREADS, 0, stream>>>(src, dst, n, offset);
        KD_TRY_LAUNCH();
        uint32_t *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != d_out)
        KD_TRY_CUDA(cudaMemcpyAsync(d_out, src, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, stream));
    return cudaSuccess;
}
