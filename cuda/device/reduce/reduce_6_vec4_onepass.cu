// Reduce6: 16-byte loads, many elements per thread, one launch: a grid sized to fill the GPU
// strides over tiles with float4 loads kept in flight, and the last block to finish (found with a
// threadfence and an atomic ticket) reduces the blocks' partials, so no second pass is launched.
#include "reduce_5_shuffle.cuh"

namespace kdr {

// float4 loads per thread per tile: enough bytes in flight to cover memory latency.
template <int K>
__host__ __device__ constexpr int vec_items() { return K == 1 ? 4 : 2; }

template <unsigned OPS>
__device__ __forceinline__ float combine4(int k, float acc, float4 v)
{
    return lane_op<OPS>(k, acc, lane_op<OPS>(k, lane_op<OPS>(k, v.x, v.y), lane_op<OPS>(k, v.z, v.w)));
}

// VEC: every lane shares one 16-byte phase; `head` (0-3) elements come before
// the first aligned vector. Otherwise every load is a scalar one.
template <int K, unsigned OPS, int BLOCK, bool VEC>
__global__ void __launch_bounds__(BLOCK)
    reduce6_kernel(InLanes in, OutLanes out, size_t n, unsigned head, float *partials,
                   unsigned *counter)
{
    constexpr int V = vec_items<K>();
    float acc[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        acc[k] = lane_identity<OPS>(k);

    if (VEC) {
        if (blockIdx.x == 0 && threadIdx.x < head) {
#pragma unroll
            for (int k = 0; k < K; k++)
                acc[k] = lane_op<OPS>(k, acc[k], in.p[k][threadIdx.x]);
        }
        const size_t nvec = (n - head) / 4;
        const float4 *vin[K];
#pragma unroll
        for (int k = 0; k < K; k++)
            vin[k] = reinterpret_cast<const float4 *>(in.p[k] + head);
        constexpr size_t kTile = (size_t)BLOCK * V;
        const size_t full_tiles = nvec / kTile;
        // Full tiles: all V loads of every lane issued before any is used, unguarded.
        for (size_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
            const size_t base = t * kTile + threadIdx.x;
            float4 x[K][V];
#pragma unroll
            for (int i = 0; i < V; i++) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    x[k][i] = __ldg(vin[k] + base + (size_t)i * BLOCK);
            }
#pragma unroll
            for (int i = 0; i < V; i++) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    acc[k] = combine4<OPS>(k, acc[k], x[k][i]);
            }
        }
        // Vectors after the last full tile, spread over the grid.
        for (size_t i = full_tiles * kTile + (size_t)blockIdx.x * BLOCK + threadIdx.x; i < nvec;
             i += (size_t)gridDim.x * BLOCK) {
#pragma unroll
            for (int k = 0; k < K; k++)
                acc[k] = combine4<OPS>(k, acc[k], __ldg(vin[k] + i));
        }
        // Up to three elements after the last whole vector.
        const size_t tail_begin = head + nvec * 4;
        if (blockIdx.x == 0 && tail_begin + threadIdx.x < n) {
#pragma unroll
            for (int k = 0; k < K; k++)
                acc[k] = lane_op<OPS>(k, acc[k], in.p[k][tail_begin + threadIdx.x]);
        }
    } else {
        constexpr int S = V * 4;
        constexpr size_t kTile = (size_t)BLOCK * S;
        const size_t full_tiles = n / kTile;
        for (size_t t = blockIdx.x; t < full_tiles; t += gridDim.x) {
            const size_t base = t * kTile + threadIdx.x;
            float x[K][S];
#pragma unroll
            for (int i = 0; i < S; i++) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    x[k][i] = __ldg(in.p[k] + base + (size_t)i * BLOCK);
            }
#pragma unroll
            for (int i = 0; i < S; i++) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    acc[k] = lane_op<OPS>(k, acc[k], x[k][i]);
            }
        }
        for (size_t i = full_tiles * kTile + (size_t)blockIdx.x * BLOCK + threadIdx.x; i < n;
             i += (size_t)gridDim.x * BLOCK) {
#pragma unroll
            for (int k = 0; k < K; k++)
                acc[k] = lane_op<OPS>(k, acc[k], __ldg(in.p[k] + i));
        }
    }

    block_reduce_shuffle<K, OPS, BLOCK>(acc);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) {
#pragma unroll
            for (int k = 0; k < K; k++)
                out.p[k][0] = acc[k];
        }
        return;
    }

    // Publish this block's partial, then take a ticket; the last ticket holder
    // sees every other block's partial (each fenced before its ticket).
    __shared__ bool s_is_last;
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < K; k++)
            partials[(size_t)k * gridDim.x + blockIdx.x] = acc[k];
        __threadfence();
        s_is_last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!s_is_last)
        return;
    __threadfence();
#pragma unroll
    for (int k = 0; k < K; k++) {
        acc[k] = lane_identity<OPS>(k);
        for (unsigned i = threadIdx.x; i < gridDim.x; i += BLOCK)
            acc[k] = lane_op<OPS>(k, acc[k], __ldcg(partials + (size_t)k * gridDim.x + i));
    }
    block_reduce_shuffle<K, OPS, BLOCK>(acc);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < K; k++)
            out.p[k][0] = acc[k];
        *counter = 0;
    }
}

// ---- Host side ----------------------------------------------------------------
static size_t align_up(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

// One block per tile, at most as many as the GPU holds at once (threads per
// SM / BLOCK on every SM). The bound is the same for every instantiation, so
// the size query and the run agree whichever load path the run takes; a
// kernel with lower occupancy is still correct (no block waits on another).
template <int K, int BLOCK, bool VEC>
static cudaError_t grid_for(size_t n, unsigned head, unsigned *grid)
{
    int sms = 0, threads_per_sm = 0;
    cudaError_t e = kd_device_attribute(cudaDevAttrMultiProcessorCount, &sms);
    if (e == cudaSuccess)
        e = kd_device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor, &threads_per_sm);
    if (e != cudaSuccess)
        return e;
    const size_t tile = (size_t)BLOCK * vec_items<K>() * (VEC ? 1 : 4);
    const size_t work = VEC ? (n - head) / 4 : n;
    size_t tiles = (work + tile - 1) / tile;
    if (tiles < 1)
        tiles = 1;
    size_t resident = (size_t)sms * (threads_per_sm / BLOCK);
    if (resident < 1)
        resident = 1;
    *grid = (unsigned)(tiles < resident ? tiles : resident);
    return cudaSuccess;
}

template <int K, unsigned OPS, int BLOCK, bool VEC>
static cudaError_t run_k(const InLanes &in, float *d_out, size_t n, unsigned head, void *d_temp,
                         size_t *temp_bytes, cudaStream_t stream)
{
    unsigned grid = 0;
    cudaError_t e = grid_for<K, BLOCK, VEC>(n, head, &grid);
    if (e != cudaSuccess)
        return e;
    const size_t partial_bytes = align_up((size_t)K * grid * sizeof(float));
    const size_t needed = partial_bytes + align_up(sizeof(unsigned));
    if (d_temp == nullptr) {
        *temp_bytes = needed;
        return cudaSuccess;
    }
    if (*temp_bytes < needed)
        return cudaErrorInvalidValue;
    float *partials = static_cast<float *>(d_temp);
    unsigned *counter = reinterpret_cast<unsigned *>(static_cast<char *>(d_temp) + partial_bytes);
    if (grid > 1) {
        e = cudaMemsetAsync(counter, 0, sizeof(unsigned), stream);
        if (e != cudaSuccess)
            return e;
    }
    OutLanes out{};
    for (int k = 0; k < K; k++)
        out.p[k] = d_out + k;
    reduce6_kernel<K, OPS, BLOCK, VEC><<<grid, BLOCK, 0, stream>>>(in, out, n, head, partials, counter);
    return cudaGetLastError();
}

template <int K, unsigned OPS, int BLOCK>
static cudaError_t run_block(const InLanes &in, float *d_out, size_t n, void *d_temp,
                             size_t *temp_bytes, cudaStream_t stream)
{
    // Vector loads need every lane at the same 16-byte phase.
    const uintptr_t phase = reinterpret_cast<uintptr_t>(in.p[0]) & 15;
    bool same_phase = (phase & 3) == 0;
    for (int k = 1; k < K; k++)
        same_phase = same_phase && (reinterpret_cast<uintptr_t>(in.p[k]) & 15) == phase;
    if (!same_phase)
        return run_k<K, OPS, BLOCK, false>(in, d_out, n, 0, d_temp, temp_bytes, stream);
    size_t head = ((16 - phase) & 15) / 4;
    if (head > n)
        head = n;
    return run_k<K, OPS, BLOCK, true>(in, d_out, n, (unsigned)head, d_temp, temp_bytes, stream);
}

template <int K, unsigned OPS>
static cudaError_t run_shape(int block_size, const InLanes &in, float *d_out, size_t n,
                             void *d_temp, size_t *temp_bytes, cudaStream_t stream)
{
    switch (block_size) {
    case 128: return run_block<K, OPS, 128>(in, d_out, n, d_temp, temp_bytes, stream);
    case 256: return run_block<K, OPS, 256>(in, d_out, n, d_temp, temp_bytes, stream);
    case 512: return run_block<K, OPS, 512>(in, d_out, n, d_temp, temp_bytes, stream);
    case 1024: return run_block<K, OPS, 1024>(in, d_out, n, d_temp, temp_bytes, stream);
    }
    return cudaErrorInvalidValue;
}

static cudaError_t run_any(kd_reduce_shape shape, int block_size, const InLanes &in, float *d_out,
                           size_t n, void *d_temp, size_t *temp_bytes, cudaStream_t stream)
{
    switch (shape) {
    case KD_REDUCE_SHAPE_MIN: return run_shape<1, kOpsMin>(block_size, in, d_out, n, d_temp, temp_bytes, stream);
    case KD_REDUCE_SHAPE_MAX: return run_shape<1, kOpsMax>(block_size, in, d_out, n, d_temp, temp_bytes, stream);
    case KD_REDUCE_SHAPE_BOUNDS: return run_shape<6, kOpsBounds>(block_size, in, d_out, n, d_temp, temp_bytes, stream);
    }
    return cudaErrorInvalidValue;
}

cudaError_t reduce6_temp_bytes(kd_reduce_shape shape, int block_size, size_t n, size_t *bytes)
{
    // The partials depend on the grid, which depends on n, the block size and
    // the load path (vector or scalar): ask for both paths with stand-in
    // addresses (lanes in one 16-byte phase, lanes in different phases) and
    // keep the larger.
    InLanes same{}, mixed{};
    for (int k = 0; k < KD_REDUCE_MAX_LANES; k++) {
        same.p[k] = reinterpret_cast<const float *>(uintptr_t{256});
        mixed.p[k] = reinterpret_cast<const float *>(uintptr_t{256} + 4 * k);
    }
    size_t a = 0, b = 0;
    cudaError_t e = run_any(shape, block_size, same, nullptr, n, nullptr, &a, 0);
    if (e == cudaSuccess)
        e = run_any(shape, block_size, mixed, nullptr, n, nullptr, &b, 0);
    *bytes = a > b ? a : b;
    return e;
}

cudaError_t reduce6_run(kd_reduce_shape shape, int block_size, const InLanes &in, float *d_out,
                        size_t n, void *d_temp, size_t temp_bytes, cudaStream_t stream)
{
    return run_any(shape, block_size, in, d_out, n, d_temp, &temp_bytes, stream);
}

// Segmented: reduce_6_segmented.cu.

} // namespace kdr
