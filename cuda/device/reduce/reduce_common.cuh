// What every rung of the reduction ladder shares: lanes and their operators,
// the generic pass kernel a rung plugs its tile reduction into (the
// segmented one is in reduce_segmented.cuh), and the per-rung host entry
// points the dispatcher calls (C++ only).
#ifndef KD_REDUCE_COMMON_CUH
#define KD_REDUCE_COMMON_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "block_reduce.cuh"
#include "launch.cuh"
#include "primitives_tuning.h"
#include "reduce_internal.h"

namespace kdr {

// ---- Lanes: up to six float arrays reduced together ----------------------
struct InLanes {
    const float *p[KD_REDUCE_MAX_LANES];
};
struct OutLanes {
    float *p[KD_REDUCE_MAX_LANES];
};

// A shape as template arguments: K lanes, bit k of OPS set = lane k takes max.
constexpr unsigned kOpsMin = 0u;
constexpr unsigned kOpsMax = 1u;
constexpr unsigned kOpsBounds = 0x38u; // lanes 0-2 min (lo), 3-5 max (hi)

template <unsigned OPS>
__device__ __forceinline__ bool lane_is_max(int lane) { return ((OPS >> lane) & 1u) != 0; }

// fminf/fmaxf: NaN-free inputs assumed; -0 and +0 tie and either may win.
template <unsigned OPS>
__device__ __forceinline__ float lane_op(int lane, float a, float b)
{
    return lane_is_max<OPS>(lane) ? fmaxf(a, b) : fminf(a, b);
}

template <unsigned OPS>
__device__ __forceinline__ float lane_identity(int lane)
{
    return lane_is_max<OPS>(lane) ? -INFINITY : INFINITY;
}

// The lanes as a chained operator of the warp and block layers
// (warp_reduce.cuh): chain k is lane k.
template <unsigned OPS>
struct LaneOps {
    __device__ __forceinline__ float operator()(int lane, float a, float b) const { return lane_op<OPS>(lane, a, b); }
    __device__ __forceinline__ float identity(int lane) const { return lane_identity<OPS>(lane); }
};

// Float min/max through integer atomics on the float's own bits: a value
// with the sign bit clear orders like a signed int, one with it set orders
// backwards as an unsigned int, so each half takes the matching atomic.
// Decided by the sign bit (not v >= 0) so -0 takes the unsigned path.
__device__ __forceinline__ void atomic_min_float(float *addr, float v)
{
    if ((__float_as_uint(v) >> 31) == 0)
        atomicMin(reinterpret_cast<int *>(addr), __float_as_int(v));
    else
        atomicMax(reinterpret_cast<unsigned int *>(addr), __float_as_uint(v));
}

__device__ __forceinline__ void atomic_max_float(float *addr, float v)
{
    if ((__float_as_uint(v) >> 31) == 0)
        atomicMax(reinterpret_cast<int *>(addr), __float_as_int(v));
    else
        atomicMin(reinterpret_cast<unsigned int *>(addr), __float_as_uint(v));
}

template <unsigned OPS>
__device__ __forceinline__ void lane_atomic(int lane, float *addr, float v)
{
    if (lane_is_max<OPS>(lane))
        atomic_max_float(addr, v);
    else
        atomic_min_float(addr, v);
}

// One dynamic shared-memory symbol for every kernel of the ladder (kernels
// carve it up; differently typed extern declarations would clash).
extern __shared__ __align__(16) unsigned char dyn_smem[];

// What a rung's tile reduction may use: dynamic shared memory (the rung's
// share of it) and, for the rungs that work in global memory, this block's
// region of a global scratch buffer (lane k at gscratch + k * gstride).
struct TileWork {
    float *smem;
    float *gscratch;
    size_t gstride;
};

// ---- The pass kernel ------------------------------------------------------
// A rung is a policy type with:
//   static constexpr int kMaxThreads;           launch bound
//   static constexpr bool kWarpRuns;            segmented: runs of KD_REDUCE_WARP_MIN_RUN
//                                               or more short of the tile by a warp
//   __host__ __device__ static int items_per_thread(int lanes);
//   __host__ static size_t smem_bytes(int lanes, int block_size);
//   template <int K, unsigned OPS> __device__ static void
//       reduce_tile(const InLanes &, size_t begin, unsigned count,
//                   const TileWork &, float (&result)[K]);
// reduce_tile reduces elements [begin, begin + count) of each lane (count <=
// the tile) and leaves the result in thread 0. A caller that calls it again
// puts a barrier between the calls (the memory is reused).

// One pass: each block reduces its tile to one value per lane.
template <class Rung, int K, unsigned OPS>
__global__ void __launch_bounds__(Rung::kMaxThreads)
    pass_kernel(InLanes in, OutLanes out, size_t n, float *gscratch, size_t gstride)
{
    const unsigned tile = Rung::items_per_thread(K) * blockDim.x;
    const size_t begin = (size_t)blockIdx.x * tile;
    const unsigned count = n > begin ? (unsigned)min((size_t)tile, n - begin) : 0u;
    TileWork work{reinterpret_cast<float *>(dyn_smem),
                  gscratch ? gscratch + (size_t)blockIdx.x * blockDim.x : nullptr, gstride};
    float result[K];
    Rung::template reduce_tile<K, OPS>(in, begin, count, work, result);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < K; k++)
            out.p[k][blockIdx.x] = result[k];
    }
}

// How the shuffle rungs (5-7) end a tile: each thread's values reduced over
// the block (block_reduce.cuh), the result in thread 0.
template <int BLOCK, int K, unsigned OPS>
__device__ __forceinline__ void block_result(float (&r_value)[K], float (&result)[K])
{
    typedef kd_block_reduce<BLOCK, K, float> block_reduce;
    __shared__ typename block_reduce::storage s_reduce;
    block_reduce::reduce(r_value, LaneOps<OPS>(), s_reduce);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < K; k++)
            result[k] = r_value[k];
    }
}

// ---- Host side --------------------------------------------------------------
// One pass of a multi-pass rung: num_tiles blocks, block b's result to
// out.p[k][b]. Rungs with global scratch get n_tiles * block floats per lane.
struct PassArgs {
    kd_reduce_shape shape;
    int block_size;
    InLanes in;
    OutLanes out;
    size_t n;
    unsigned num_tiles;
    float *scratch;
    size_t scratch_stride;
};

struct SegArgs {
    kd_reduce_shape shape;
    int block_size;
    InLanes in;
    const uint32_t *ids;
    uint32_t num_segments;
    float *records;
    size_t n;
    unsigned num_tiles;
    float *scratch;
    size_t scratch_stride;
};

template <class Rung, int K, unsigned OPS>
cudaError_t launch_pass_k(const PassArgs &a, cudaStream_t stream)
{
    pass_kernel<Rung, K, OPS><<<a.num_tiles, a.block_size, Rung::smem_bytes(K, a.block_size),
                                stream>>>(a.in, a.out, a.n, a.scratch, a.scratch_stride);
    return cudaGetLastError();
}

template <class Rung>
cudaError_t launch_pass_shape(const PassArgs &a, cudaStream_t stream)
{
    switch (a.shape) {
    case KD_REDUCE_SHAPE_MIN: return launch_pass_k<Rung, 1, kOpsMin>(a, stream);
    case KD_REDUCE_SHAPE_MAX: return launch_pass_k<Rung, 1, kOpsMax>(a, stream);
    case KD_REDUCE_SHAPE_BOUNDS: return launch_pass_k<Rung, 6, kOpsBounds>(a, stream);
    }
    return cudaErrorInvalidValue;
}

// Rungs whose block size is a template argument: pick the instantiation.
template <template <int> class Rung>
cudaError_t launch_pass_block(const PassArgs &a, cudaStream_t stream)
{
    switch (a.block_size) {
    case 128: return launch_pass_shape<Rung<128>>(a, stream);
    case 256: return launch_pass_shape<Rung<256>>(a, stream);
    case 512: return launch_pass_shape<Rung<512>>(a, stream);
    case 1024: return launch_pass_shape<Rung<1024>>(a, stream);
    }
    return cudaErrorInvalidValue;
}

// ---- Per-rung entry points (defined in reduce_<n>_*.cu) ------------------
// Items per thread of one tile (of the pass and segmented kernels), whether
// the rung needs global scratch, and whether its segmented launch writes
// every record itself (no init kernel).
struct RungTraits {
    int items_per_thread;
    bool global_scratch;
    bool writes_records = false;
};

// The rungs that stride over the input with a grid sized to the GPU (7, 8)
// size their own temporary storage and run in one call.
struct StrideRung {
    cudaError_t (*temp_bytes)(kd_reduce_shape shape, int block_size, size_t n, size_t *bytes);
    cudaError_t (*run)(kd_reduce_shape shape, int block_size, const InLanes &in, float *d_out, size_t n,
                       void *d_temp, size_t temp_bytes, cudaStream_t stream);
};

// A rung as the dispatcher sees it: the full reduction either by passes of
// pass_kernel (pass) or by a strided run (stride), and the segmented form.
struct RungEntry {
    RungTraits (*traits)(int lanes, int block_size);
    cudaError_t (*pass)(const PassArgs &, cudaStream_t);
    const StrideRung *stride;
    cudaError_t (*segmented)(const SegArgs &, cudaStream_t);
};

extern const RungEntry reduce0_rung, reduce1_rung, reduce2_rung, reduce3_rung, reduce4_rung,
    reduce5_rung, reduce6_rung, reduce7_rung, reduce8_rung;

// The segmented entry of a rung (from reduce_dispatch.cu's table).
cudaError_t rung_segmented_plan(kd_reduce_variant variant, int lanes, int block_size,
                                RungTraits *traits,
                                cudaError_t (**launch)(const SegArgs &, cudaStream_t));
// Reduce8's segmented scratch: two boundary entries (key and lanes) per tile.
size_t reduce8_segmented_scratch_bytes(int lanes, size_t num_tiles);

} // namespace kdr

#endif
