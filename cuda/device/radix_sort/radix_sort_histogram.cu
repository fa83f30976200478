// Radix sort: the max reduction over the keys and the per-block digit
// histograms of each pass (see radix_sort_internal.cuh).
#include "radix_sort_internal.cuh"

#include "temp_storage.cuh"
#include "warp_reduce.cuh"

namespace {

// Largest key: thread maxima, a warp reduction, one atomicMax per warp.
__global__ void __launch_bounds__(256) sort_max_kernel(const uint32_t *d_keys, size_t n, bool vector_in,
                                                       uint32_t *d_max)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t best = 0;
    size_t tail = 0;
    if (vector_in) {
        const uint4 *keys4 = reinterpret_cast<const uint4 *>(d_keys);
        const size_t n4 = n / 4;
        for (size_t i = first; i < n4; i += stride) {
            uint4 v = keys4[i];
            best = max(best, max(max(v.x, v.y), max(v.z, v.w)));
        }
        tail = n4 * 4;
    }
    for (size_t i = tail + first; i < n; i += stride)
        best = max(best, d_keys[i]);
    best = kd_warp_max_u32(best);
    if (kd_lane_id() == 0)
        atomicMax(d_max, best);
}

// Digit counts of one block's chunk for one pass; per-warp counters in
// shared memory keep equal keys from piling onto one atomic.
__global__ void __launch_bounds__(SORT_THREADS) sort_histogram_kernel(sort_buffers b, int pass, uint32_t *d_table)
{
    sort_pass ps;
    if (!sort_pass_begin(b, pass, &ps))
        return;
    const uint32_t *keys = ps.src_keys;
    const int shift = ps.shift;

    __shared__ uint32_t s_counts[SORT_WARPS][SORT_DIGITS];
    const unsigned t = threadIdx.x, warp = t / 32;
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++)
        s_counts[w][t] = 0;
    __syncthreads();

    const size_t begin = (size_t)blockIdx.x * b.chunk;
    const size_t end = min(b.n, begin + b.chunk);
    uint32_t *counts = s_counts[warp];
    size_t done = begin; // keys before this index are counted
    if (b.keys_vector) {
        // begin is a multiple of the tile, so 16-byte aligned. Each round
        // issues all its loads before counting, to keep many in flight.
        constexpr int UNROLL = KD_SORT_HISTOGRAM_LOADS;
        const uint4 *keys4 = reinterpret_cast<const uint4 *>(keys + begin);
        const size_t rounds = (end - begin) / (4 * UNROLL * SORT_THREADS);
        for (size_t r = 0; r < rounds; r++) {
            uint4 v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++)
                v[u] = __ldg(keys4 + (r * UNROLL + u) * SORT_THREADS + t);
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                atomicAdd(counts + ((v[u].x >> shift) & 0xffu), 1u);
                atomicAdd(counts + ((v[u].y >> shift) & 0xffu), 1u);
                atomicAdd(counts + ((v[u].z >> shift) & 0xffu), 1u);
                atomicAdd(counts + ((v[u].w >> shift) & 0xffu), 1u);
            }
        }
        done = begin + rounds * 4 * UNROLL * SORT_THREADS;
    }
    for (size_t i = done + t; i < end; i += SORT_THREADS)
        atomicAdd(counts + ((__ldg(keys + i) >> shift) & 0xffu), 1u);
    __syncthreads();
    uint32_t total = 0;
#pragma unroll
    for (int w = 0; w < SORT_WARPS; w++)
        total += s_counts[w][t];
    d_table[(size_t)t * b.num_blocks + blockIdx.x] = total;
}

} // namespace

cudaError_t sort_launch_max(const sort_buffers &b, uint32_t *d_max, cudaStream_t stream)
{
    KD_TRY_CUDA(cudaMemsetAsync(d_max, 0, sizeof(uint32_t), stream));
    const size_t wanted = (b.n + 256 * 16 - 1) / (256 * 16);
    const unsigned blocks = (unsigned)(wanted < KD_FILL_MAX_BLOCKS ? wanted : KD_FILL_MAX_BLOCKS);
    sort_max_kernel<<<blocks, 256, 0, stream>>>(b.keys_in, b.n, (uintptr_t)b.keys_in % 16 == 0, d_max);
    KD_TRY_LAUNCH();
    return cudaSuccess;
}

cudaError_t sort_launch_histogram(const sort_buffers &b, int pass, uint32_t *d_table, cudaStream_t stream)
{
    sort_histogram_kernel<<<b.num_blocks, SORT_THREADS, 0, stream>>>(b, pass, d_table);
    KD_TRY_LAUNCH();
    return cudaSuccess;
}
