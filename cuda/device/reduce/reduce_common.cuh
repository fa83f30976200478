// What every rung of the reduction ladder shares: lanes and their operators,
// the generic pass and segmented kernels a rung plugs its tile reduction
// into, and the per-rung host entry points the dispatcher calls (C++ only).
#ifndef KD_REDUCE_COMMON_CUH
#define KD_REDUCE_COMMON_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "launch.cuh"
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

// ---- Generic kernels ------------------------------------------------------
// A rung is a policy type with:
//   static constexpr int kMaxThreads;           launch bound
//   static constexpr bool kWarpRuns;            segmented: runs of kWarpMinRun or more short of the tile by a warp
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

// The end of the run of equal ids that starts at `first` (ids are sorted:
// the first larger one, by binary search).
__device__ __forceinline__ unsigned run_end_of(const uint32_t *ids, unsigned first, unsigned count)
{
    const uint32_t seg = ids[first];
    unsigned lo = first + 1, hi = count;
    while (lo < hi) {
        const unsigned mid = (lo + hi) / 2;
        if (ids[mid] == seg)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

// Runs shorter than this are reduced by one thread; longer ones by the block.
constexpr unsigned kShortRun = 32;
// In the shuffle rungs (kWarpRuns) runs shorter than this are reduced by one
// thread, longer ones by a warp, unless they fill the tile (then the block).
constexpr unsigned kWarpMinRun = 4;

// Elements a thread loads at once while it reduces a short run (six lanes:
// 24 loads in flight without spilling at 1024 threads).
template <int K>
__host__ __device__ constexpr unsigned short_batch() { return K == 1 ? 8u : 4u; }

// Segmented: each block takes one tile of the flat array; the segments
// (runs of equal ids) in it are reduced and combined into their records by
// atomics, so segments spanning tiles need no second pass.
template <class Rung, int K, unsigned OPS>
__global__ void __launch_bounds__(Rung::kMaxThreads)
    segmented_kernel(InLanes in, const uint32_t *ids, uint32_t num_segments, float *records,
                     size_t n, float *gscratch, size_t gstride)
{
    kd_wait_prior();
    const unsigned tile = Rung::items_per_thread(K) * blockDim.x;
    const size_t begin = (size_t)blockIdx.x * tile;
    const unsigned count = (unsigned)min((size_t)tile, n - begin);

    // Dynamic shared memory: [rung's floats][tile ids][long-run starts].
    float *rung_smem = reinterpret_cast<float *>(dyn_smem);
    uint32_t *s_ids = reinterpret_cast<uint32_t *>(dyn_smem + Rung::smem_bytes(K, blockDim.x));
    uint32_t *s_long = s_ids + tile;
    __shared__ unsigned s_num_long;

    if (threadIdx.x == 0)
        s_num_long = 0;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x)
        s_ids[i] = ids[begin + i];
    __syncthreads();

    // Each run's head classifies it: short runs are reduced here, serially.
    // Ids are sorted, so a run is long when the id kLong - 1 places on is
    // still its own (one look, not a walk); only a short run's end is sought.
    // The shuffle rungs call runs long from kWarpMinRun on (a warp reduces
    // them a lane an element: one load latency, where a thread paid one each).
    constexpr unsigned kLong = Rung::kWarpRuns ? kWarpMinRun : kShortRun;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        const uint32_t seg = s_ids[i];
        if (i > 0 && s_ids[i - 1] == seg)
            continue;
        const bool is_long = i + kLong - 1 < count && s_ids[i + kLong - 1] == seg;
        if (!is_long) {
            unsigned end = i + 1;
            while (end < count && s_ids[end] == seg)
                end++;
            if (seg < num_segments) {
                float v[K];
#pragma unroll
                for (int k = 0; k < K; k++)
                    v[k] = lane_identity<OPS>(k);
                // Loads issued short_batch at a time: one after another, a
                // run cut short by the tile's edge cost a load latency per
                // element, and the slowest tile sets the kernel's time.
                constexpr unsigned kShortBatch = short_batch<K>();
                for (unsigned j0 = i; j0 < end; j0 += kShortBatch) {
                    float x[kShortBatch][K];
#pragma unroll
                    for (unsigned u = 0; u < kShortBatch; u++) {
#pragma unroll
                        for (int k = 0; k < K; k++)
                            x[u][k] = j0 + u < end ? __ldg(in.p[k] + begin + j0 + u) : lane_identity<OPS>(k);
                    }
#pragma unroll
                    for (unsigned u = 0; u < kShortBatch; u++) {
#pragma unroll
                        for (int k = 0; k < K; k++)
                            v[k] = lane_op<OPS>(k, v[k], x[u][k]);
                    }
                }
#pragma unroll
                for (int k = 0; k < K; k++)
                    lane_atomic<OPS>(k, &records[(size_t)seg * K + k], v[k]);
            }
        } else {
            s_long[atomicAdd(&s_num_long, 1u)] = i;
        }
    }
    __syncthreads();

    // Rungs with kWarpRuns (the shuffle rungs) reduce the runs of kWarpMinRun
    // or more that do not fill the tile (the builder's deeper levels: nodes of
    // a few hundred references) a warp each, side by side, by shuffles.
    const unsigned num_long = s_num_long;
    if (Rung::kWarpRuns) {
        const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, num_warps = blockDim.x / 32;
        for (unsigned r = warp; r < num_long; r += num_warps) {
            const unsigned run_begin = s_long[r];
            const unsigned run_end = run_end_of(s_ids, run_begin, count);
            if (run_end - run_begin == count)
                continue;
            float v[K];
#pragma unroll
            for (int k = 0; k < K; k++)
                v[k] = lane_identity<OPS>(k);
            // Unrolled so that a lane's loads of several rows are in flight
            // at once (runs of a few hundred: a dozen rows per lane).
#pragma unroll 4
            for (unsigned j = run_begin + lane; j < run_end; j += 32) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    v[k] = lane_op<OPS>(k, v[k], __ldg(in.p[k] + begin + j));
            }
#pragma unroll
            for (int offset = 16; offset > 0; offset /= 2) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    v[k] = lane_op<OPS>(k, v[k], __shfl_down_sync(0xffffffffu, v[k], offset));
            }
            const uint32_t seg = s_ids[run_begin];
            if (lane == 0 && seg < num_segments) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    lane_atomic<OPS>(k, &records[(size_t)seg * K + k], v[k]);
            }
        }
    }

    // The other long runs (with kWarpRuns only a run that fills the tile) go
    // one after another through the rung's block reduction.
    TileWork work{rung_smem, gscratch ? gscratch + (size_t)blockIdx.x * blockDim.x : nullptr,
                  gstride};
    bool first = true;
    for (unsigned r = 0; r < num_long; r++) {
        const unsigned run_begin = s_long[r];
        // With kWarpRuns only a run that fills the tile is left: the tile's
        // only long run, from its start (no search needed to skip the rest).
        if (Rung::kWarpRuns && (num_long != 1 || run_begin != 0))
            continue;
        const unsigned run_end = run_end_of(s_ids, run_begin, count);
        if (Rung::kWarpRuns && run_end != count)
            continue;
        if (!first)
            __syncthreads(); // the previous run's reduction is done with the rung's memory
        first = false;
        const uint32_t seg = s_ids[run_begin];
        float result[K];
        Rung::template reduce_tile<K, OPS>(in, begin + run_begin, run_end - run_begin, work, result);
        if (threadIdx.x == 0 && seg < num_segments) {
#pragma unroll
            for (int k = 0; k < K; k++)
                lane_atomic<OPS>(k, &records[(size_t)seg * K + k], result[k]);
        }
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

template <class Rung, int K>
size_t segmented_smem_bytes(int block_size)
{
    const size_t tile = (size_t)Rung::items_per_thread(K) * block_size;
    return Rung::smem_bytes(K, block_size) + tile * sizeof(uint32_t) +
           (tile / (Rung::kWarpRuns ? kWarpMinRun : kShortRun) + 1) * sizeof(uint32_t); // long-run starts
}

template <class Rung, int K, unsigned OPS>
cudaError_t launch_pass_k(const PassArgs &a, cudaStream_t stream)
{
    pass_kernel<Rung, K, OPS><<<a.num_tiles, a.block_size, Rung::smem_bytes(K, a.block_size),
                                stream>>>(a.in, a.out, a.n, a.scratch, a.scratch_stride);
    return cudaGetLastError();
}

template <class Rung, int K, unsigned OPS>
cudaError_t launch_segmented_k(const SegArgs &a, cudaStream_t stream)
{
    const size_t smem = segmented_smem_bytes<Rung, K>(a.block_size);
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(segmented_kernel<Rung, K, OPS>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
        if (e != cudaSuccess)
            return e;
    }
    return kd_launch_dependent(segmented_kernel<Rung, K, OPS>, a.num_tiles, a.block_size, smem, stream, a.in, a.ids,
                               a.num_segments, a.records, a.n, a.scratch, a.scratch_stride);
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

template <class Rung>
cudaError_t launch_segmented_shape(const SegArgs &a, cudaStream_t stream)
{
    switch (a.shape) {
    case KD_REDUCE_SHAPE_MIN: return launch_segmented_k<Rung, 1, kOpsMin>(a, stream);
    case KD_REDUCE_SHAPE_MAX: return launch_segmented_k<Rung, 1, kOpsMax>(a, stream);
    case KD_REDUCE_SHAPE_BOUNDS: return launch_segmented_k<Rung, 6, kOpsBounds>(a, stream);
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

template <template <int> class Rung>
cudaError_t launch_segmented_block(const SegArgs &a, cudaStream_t stream)
{
    switch (a.block_size) {
    case 128: return launch_segmented_shape<Rung<128>>(a, stream);
    case 256: return launch_segmented_shape<Rung<256>>(a, stream);
    case 512: return launch_segmented_shape<Rung<512>>(a, stream);
    case 1024: return launch_segmented_shape<Rung<1024>>(a, stream);
    }
    return cudaErrorInvalidValue;
}

// ---- Per-rung entry points (defined in reduce_<n>_*.cu) ------------------
// Items per thread of one tile, whether the rung needs global scratch, and
// whether its segmented launch writes every record itself (no init kernel).
struct RungTraits {
    int items_per_thread;
    bool global_scratch;
    bool writes_records = false; // segmented: one launch that writes every record (no init)
};

RungTraits reduce0_traits(int lanes, int block_size);
RungTraits reduce1_traits(int lanes, int block_size);
RungTraits reduce2_traits(int lanes, int block_size);
RungTraits reduce3_traits(int lanes, int block_size);
RungTraits reduce4_traits(int lanes, int block_size);
RungTraits reduce5_traits(int lanes, int block_size);
RungTraits reduce6_segmented_traits(int lanes, int block_size);

cudaError_t reduce0_pass(const PassArgs &a, cudaStream_t stream);
cudaError_t reduce1_pass(const PassArgs &a, cudaStream_t stream);
cudaError_t reduce2_pass(const PassArgs &a, cudaStream_t stream);
cudaError_t reduce3_pass(const PassArgs &a, cudaStream_t stream);
cudaError_t reduce4_pass(const PassArgs &a, cudaStream_t stream);
cudaError_t reduce5_pass(const PassArgs &a, cudaStream_t stream);

cudaError_t reduce0_segmented(const SegArgs &a, cudaStream_t stream);
cudaError_t reduce1_segmented(const SegArgs &a, cudaStream_t stream);
cudaError_t reduce2_segmented(const SegArgs &a, cudaStream_t stream);
cudaError_t reduce3_segmented(const SegArgs &a, cudaStream_t stream);
cudaError_t reduce4_segmented(const SegArgs &a, cudaStream_t stream);
cudaError_t reduce5_segmented(const SegArgs &a, cudaStream_t stream);
cudaError_t reduce6_segmented(const SegArgs &a, cudaStream_t stream);
// Reduce6's segmented scratch: two boundary entries (key and lanes) per tile.
size_t reduce6_segmented_scratch_bytes(int lanes, size_t num_tiles);

// The segmented entry of a rung (from reduce_dispatch.cu's table).
cudaError_t rung_segmented_plan(kd_reduce_variant variant, int lanes, int block_size,
                                RungTraits *traits,
                                cudaError_t (**launch)(const SegArgs &, cudaStream_t));

// Reduce6 is one launch and sizes its own temporary storage.
cudaError_t reduce6_temp_bytes(kd_reduce_shape shape, int block_size, size_t n, size_t *bytes);
cudaError_t reduce6_run(kd_reduce_shape shape, int block_size, const InLanes &in, float *d_out,
                        size_t n, void *d_temp, size_t temp_bytes, cudaStream_t stream);

} // namespace kdr

#endif
