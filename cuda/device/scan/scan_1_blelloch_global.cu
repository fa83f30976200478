// Scan1: this version is work-efficient: Blelloch's up-sweep/down-sweep tree in global memory,
// O(n) adds instead of O(n log n).
//
// As in the thesis and the seeds: the input is copied into a buffer padded
// with zeros to a power of two m; the up-sweep builds partial sums at the
// tree's nodes (one launch per level), the root is cleared, and the
// down-sweep pushes prefixes back down (one launch per level). Any n works;
// the padding costs up to 2x memory, and the upper levels run few threads.
#include "primitives_tuning.h"
#include "scan_internal.cuh"

#include "temp_storage.cuh"

namespace {

const unsigned BLELLOCH_THREADS = KD_SCAN_SIMPLE_THREADS;

__global__ void pad_copy_kernel(const uint32_t *d_in, uint32_t *d_tree, size_t n, size_t m)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        d_tree[i] = i < n ? d_in[i] : 0u;
}

// Level with node span `stride`: the right child's slot accumulates the left's.
__global__ void up_sweep_kernel(uint32_t *d_tree, size_t num_nodes, size_t stride)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= num_nodes)
        return;
    const size_t right = (k + 1) * stride - 1;
    d_tree[right] += d_tree[right - stride / 2];
}

// Down-sweep level: the left child gets the node's prefix, the right child
// the prefix plus the left subtree's sum.
__global__ void down_sweep_kernel(uint32_t *d_tree, size_t num_nodes, size_t stride)
{
    const size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= num_nodes)
        return;
    const size_t right = (k + 1) * stride - 1;
    const size_t left = right - stride / 2;
    const uint32_t left_sum = d_tree[left];
    d_tree[left] = d_tree[right];
    d_tree[right] += left_sum;
}

unsigned blocks_for(size_t threads)
{
    return (unsigned)((threads + BLELLOCH_THREADS - 1) / BLELLOCH_THREADS);
}

} // namespace

cudaError_t kd_scan_blelloch_global_run(void *d_temp, size_t *temp_bytes, const uint32_t *d_in,
                                        uint32_t *d_out, size_t n, cudaStream_t stream)
{
    size_t m = 1;
    while (m < n)
        m *= 2;
    kd_temp_layout layout;
    kd_temp_init(&layout);
    const int slot_tree = kd_temp_add(&layout, m * sizeof(uint32_t));
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;
    if (m / BLELLOCH_THREADS > 0x7fffffffu)
        return cudaErrorInvalidValue;

    uint32_t *tree = kd_temp_slot<uint32_t>(&layout, d_temp, slot_tree);
    pad_copy_kernel<<<blocks_for(m), BLELLOCH_THREADS, 0, stream>>>(d_in, tree, n, m);
    KD_TRY_LAUNCH();
    for (size_t stride = 2; stride <= m; stride *= 2) {
        up_sweep_kernel<<<blocks_for(m / stride), BLELLOCH_THREADS, 0, stream>>>(tree, m / stride, stride);
        KD_TRY_LAUNCH();
    }
    KD_TRY_CUDA(cudaMemsetAsync(tree + (m - 1), 0, sizeof(uint32_t), stream));
    for (size_t stride = m; stride >= 2; stride /= 2) {
        down_sweep_kernel<<<blocks_for(m / stride), BLELLOCH_THREADS, 0, stream>>>(tree, m / stride, stride);
        KD_TRY_LAUNCH();
    }
    KD_TRY_CUDA(cudaMemcpyAsync(d_out, tree, n * sizeof(uint32_t), cudaMemcpyDeviceToDevice, stream));
    return cudaSuccess;
}
