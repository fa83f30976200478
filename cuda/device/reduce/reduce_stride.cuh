// The grid-stride kernel of rungs 7 and 8: a grid of at most as many blocks
// as the GPU holds at once strides over the input in tiles of V float4 loads
// a thread (all issued before any is used), and each block reduces what it
// read to one value per lane. Rung 7 then reduces the blocks' values with a
// second launch of one block; rung 8 (ONE_PASS) lets the last block to finish
// do it. Lanes that share one 16-byte phase load vectors (VEC); otherwise
// every load is a scalar one.
#ifndef KD_REDUCE_STRIDE_CUH
#define KD_REDUCE_STRIDE_CUH

#include "block_reduce.cuh"
#include "reduce_common.cuh"
#include "temp_storage.cuh"

namespace kdr {

// float4 loads per thread per tile.
template <int K>
__host__ __device__ constexpr int vec_items()
{
    return K == 1 ? KD_REDUCE_VECS_ONE_LANE : KD_REDUCE_VECS_SIX_LANES;
}

template <unsigned OPS>
__device__ __forceinline__ float combine4(int k, float acc, float4 v)
{
    return lane_op<OPS>(k, acc, lane_op<OPS>(k, lane_op<OPS>(k, v.x, v.y), lane_op<OPS>(k, v.z, v.w)));
}

// Vector loads: `head` (0-3) elements come before the first aligned vector
// (block 0 takes them), then whole tiles unguarded, the vectors after the
// last whole tile spread over the grid, and up to three elements after the
// last whole vector (block 0 again).
template <int K, unsigned OPS, int BLOCK>
__device__ __forceinline__ void stride_vectors(const InLanes &in, size_t n, unsigned head, float (&acc)[K])
{
    constexpr int V = vec_items<K>();
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
    for (size_t i = full_tiles * kTile + (size_t)blockIdx.x * BLOCK + threadIdx.x; i < nvec;
         i += (size_t)gridDim.x * BLOCK) {
#pragma unroll
        for (int k = 0; k < K; k++)
            acc[k] = combine4<OPS>(k, acc[k], __ldg(vin[k] + i));
    }
    const size_t tail_begin = head + nvec * 4;
    if (blockIdx.x == 0 && tail_begin + threadIdx.x < n) {
#pragma unroll
        for (int k = 0; k < K; k++)
            acc[k] = lane_op<OPS>(k, acc[k], in.p[k][tail_begin + threadIdx.x]);
    }
}

// Scalar loads: the same tiles (as many elements as the vector path's), then
// the elements after the last whole tile spread over the grid.
template <int K, unsigned OPS, int BLOCK>
__device__ __forceinline__ void stride_scalars(const InLanes &in, size_t n, float (&acc)[K])
{
    constexpr int S = vec_items<K>() * 4;
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

// Rung 8: publish this block's value, then take a ticket; the last ticket
// holder sees every other block's value (each fenced before its ticket) and
// reduces them all into out. It resets the ticket for the next launch.
template <int K, unsigned OPS, int BLOCK>
__device__ __forceinline__ void join_by_last_block(float (&acc)[K], const OutLanes &out, float *partials,
                                                   unsigned *counter, bool &s_is_last,
                                                   typename kd_block_reduce<BLOCK, K, float>::storage &s_reduce)
{
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
    kd_block_reduce<BLOCK, K, float>::reduce(acc, LaneOps<OPS>(), s_reduce);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < K; k++)
            out.p[k][0] = acc[k];
        *counter = 0;
    }
}

// One launch of either rung. A grid of one block writes out.p[k][0]; a larger
// one writes each block's value to out.p[k][block] (rung 7) or joins them by
// the last block (rung 8, which then writes out.p[k][0]).
template <int K, unsigned OPS, int BLOCK, bool VEC, bool ONE_PASS>
__global__ void __launch_bounds__(BLOCK)
    stride_kernel(InLanes in, OutLanes out, size_t n, unsigned head, float *partials, unsigned *counter)
{
    typedef kd_block_reduce<BLOCK, K, float> block_reduce;
    __shared__ typename block_reduce::storage s_reduce;
    __shared__ bool s_is_last;
    float acc[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        acc[k] = lane_identity<OPS>(k);
    if (VEC)
        stride_vectors<K, OPS, BLOCK>(in, n, head, acc);
    else
        stride_scalars<K, OPS, BLOCK>(in, n, acc);

    block_reduce::reduce(acc, LaneOps<OPS>(), s_reduce);
    if (gridDim.x == 1) {
        if (threadIdx.x == 0) {
#pragma unroll
            for (int k = 0; k < K; k++)
                out.p[k][0] = acc[k];
        }
        return;
    }
    if (!ONE_PASS) {
        if (threadIdx.x == 0) {
#pragma unroll
            for (int k = 0; k < K; k++)
                out.p[k][blockIdx.x] = acc[k];
        }
        return;
    }
    join_by_last_block<K, OPS, BLOCK>(acc, out, partials, counter, s_is_last, s_reduce);
}

// ---- Host side ----------------------------------------------------------------
// How one launch reads its lanes: by vectors when every lane has the same
// 16-byte phase (after `head` scalars), and over how many blocks.
struct StridePlan {
    bool vec;
    unsigned head;
    unsigned grid;
};

// One block per tile, at most as many as the GPU holds at once (threads per
// SM / BLOCK on every SM). The bound is the same for every instantiation, so
// the size query and the run agree whichever load path the run takes; a
// kernel with lower occupancy is still correct (no block waits on another).
template <int K, int BLOCK>
cudaError_t stride_plan(const InLanes &in, size_t n, StridePlan *plan)
{
    const uintptr_t phase = reinterpret_cast<uintptr_t>(in.p[0]) & 15;
    bool same_phase = (phase & 3) == 0;
    for (int k = 1; k < K; k++)
        same_phase = same_phase && (reinterpret_cast<uintptr_t>(in.p[k]) & 15) == phase;
    size_t head = ((16 - phase) & 15) / 4;
    plan->vec = same_phase;
    plan->head = same_phase ? (unsigned)(head > n ? n : head) : 0u;

    int sms = 0, threads_per_sm = 0;
    KD_TRY_CUDA(kd_device_attribute(cudaDevAttrMultiProcessorCount, &sms));
    KD_TRY_CUDA(kd_device_attribute(cudaDevAttrMaxThreadsPerMultiProcessor, &threads_per_sm));
    const size_t tile = (size_t)BLOCK * vec_items<K>() * (plan->vec ? 1 : 4);
    const size_t work = plan->vec ? (n - plan->head) / 4 : n;
    size_t tiles = (work + tile - 1) / tile;
    if (tiles < 1)
        tiles = 1;
    size_t resident = (size_t)sms * (threads_per_sm / BLOCK);
    if (resident < 1)
        resident = 1;
    plan->grid = (unsigned)(tiles < resident ? tiles : resident);
    return cudaSuccess;
}

template <int K, unsigned OPS, int BLOCK, bool ONE_PASS>
cudaError_t stride_launch(const StridePlan &plan, const InLanes &in, const OutLanes &out, size_t n,
                          float *partials, unsigned *counter, cudaStream_t stream)
{
    if (plan.vec)
        stride_kernel<K, OPS, BLOCK, true, ONE_PASS>
            <<<plan.grid, BLOCK, 0, stream>>>(in, out, n, plan.head, partials, counter);
    else
        stride_kernel<K, OPS, BLOCK, false, ONE_PASS>
            <<<plan.grid, BLOCK, 0, stream>>>(in, out, n, plan.head, partials, counter);
    return cudaGetLastError();
}

// Temporary storage of a run: K partials per block, and rung 8's ticket.
template <int K, bool ONE_PASS>
void stride_layout(const StridePlan &plan, kd_temp_layout *layout, int *slot_partials, int *slot_counter)
{
    kd_temp_init(layout);
    *slot_partials = kd_temp_add(layout, (size_t)K * plan.grid * sizeof(float));
    *slot_counter = kd_temp_add(layout, ONE_PASS ? sizeof(unsigned) : 0);
}

// Rung 7's second launch: one block over the first launch's values.
template <int K, unsigned OPS, int BLOCK>
cudaError_t stride_second_pass(const float *partials, unsigned blocks, const OutLanes &out, cudaStream_t stream)
{
    InLanes values{};
    for (int k = 0; k < K; k++)
        values.p[k] = partials + (size_t)k * blocks;
    StridePlan plan;
    KD_TRY_CUDA((stride_plan<K, BLOCK>(values, blocks, &plan)));
    plan.grid = 1;
    return stride_launch<K, OPS, BLOCK, false>(plan, values, out, blocks, nullptr, nullptr, stream);
}

// A whole reduction; d_temp == NULL only reports *temp_bytes.
template <int K, unsigned OPS, int BLOCK, bool ONE_PASS>
cudaError_t stride_run(const InLanes &in, float *d_out, size_t n, void *d_temp, size_t *temp_bytes,
                       cudaStream_t stream)
{
    StridePlan plan;
    KD_TRY_CUDA((stride_plan<K, BLOCK>(in, n, &plan)));
    kd_temp_layout layout;
    int slot_partials, slot_counter;
    stride_layout<K, ONE_PASS>(plan, &layout, &slot_partials, &slot_counter);
    cudaError_t err;
    if (kd_temp_is_query(&layout, d_temp, temp_bytes, &err))
        return err;
    float *partials = kd_temp_slot<float>(&layout, d_temp, slot_partials);
    unsigned *counter = kd_temp_slot<unsigned>(&layout, d_temp, slot_counter);
    OutLanes out{};
    for (int k = 0; k < K; k++)
        out.p[k] = d_out + k;
    if (ONE_PASS) {
        if (plan.grid > 1)
            KD_TRY_CUDA(cudaMemsetAsync(counter, 0, sizeof(unsigned), stream));
        return stride_launch<K, OPS, BLOCK, true>(plan, in, out, n, partials, counter, stream);
    }
    if (plan.grid == 1)
        return stride_launch<K, OPS, BLOCK, false>(plan, in, out, n, nullptr, nullptr, stream);
    OutLanes values{};
    for (int k = 0; k < K; k++)
        values.p[k] = partials + (size_t)k * plan.grid;
    KD_TRY_CUDA((stride_launch<K, OPS, BLOCK, false>(plan, in, values, n, nullptr, nullptr, stream)));
    return stride_second_pass<K, OPS, BLOCK>(partials, plan.grid, out, stream);
}

template <int K, unsigned OPS, bool ONE_PASS>
cudaError_t stride_run_block(int block_size, const InLanes &in, float *d_out, size_t n, void *d_temp,
                             size_t *temp_bytes, cudaStream_t stream)
{
    switch (block_size) {
    case 128: return stride_run<K, OPS, 128, ONE_PASS>(in, d_out, n, d_temp, temp_bytes, stream);
    case 256: return stride_run<K, OPS, 256, ONE_PASS>(in, d_out, n, d_temp, temp_bytes, stream);
    case 512: return stride_run<K, OPS, 512, ONE_PASS>(in, d_out, n, d_temp, temp_bytes, stream);
    case 1024: return stride_run<K, OPS, 1024, ONE_PASS>(in, d_out, n, d_temp, temp_bytes, stream);
    }
    return cudaErrorInvalidValue;
}

template <bool ONE_PASS>
cudaError_t stride_run_shape(kd_reduce_shape shape, int block_size, const InLanes &in, float *d_out, size_t n,
                             void *d_temp, size_t *temp_bytes, cudaStream_t stream)
{
    switch (shape) {
    case KD_REDUCE_SHAPE_MIN:
        return stride_run_block<1, kOpsMin, ONE_PASS>(block_size, in, d_out, n, d_temp, temp_bytes, stream);
    case KD_REDUCE_SHAPE_MAX:
        return stride_run_block<1, kOpsMax, ONE_PASS>(block_size, in, d_out, n, d_temp, temp_bytes, stream);
    case KD_REDUCE_SHAPE_BOUNDS:
        return stride_run_block<6, kOpsBounds, ONE_PASS>(block_size, in, d_out, n, d_temp, temp_bytes, stream);
    }
    return cudaErrorInvalidValue;
}

// The partials depend on the grid, which depends on n, the block size and the
// load path (vector or scalar): ask for both paths with stand-in addresses
// (lanes in one 16-byte phase, lanes in different phases) and keep the larger.
template <bool ONE_PASS>
cudaError_t stride_temp_bytes(kd_reduce_shape shape, int block_size, size_t n, size_t *bytes)
{
    InLanes same{}, mixed{};
    for (int k = 0; k < KD_REDUCE_MAX_LANES; k++) {
        same.p[k] = reinterpret_cast<const float *>(uintptr_t{256});
        mixed.p[k] = reinterpret_cast<const float *>(uintptr_t{256} + 4 * k);
    }
    size_t a = 0, b = 0;
    cudaError_t e = stride_run_shape<ONE_PASS>(shape, block_size, same, nullptr, n, nullptr, &a, 0);
    if (e == cudaSuccess)
        e = stride_run_shape<ONE_PASS>(shape, block_size, mixed, nullptr, n, nullptr, &b, 0);
    *bytes = a > b ? a : b;
    return e;
}

template <bool ONE_PASS>
cudaError_t stride_run_any(kd_reduce_shape shape, int block_size, const InLanes &in, float *d_out, size_t n,
                           void *d_temp, size_t temp_bytes, cudaStream_t stream)
{
    return stride_run_shape<ONE_PASS>(shape, block_size, in, d_out, n, d_temp, &temp_bytes, stream);
}

} // namespace kdr

#endif
