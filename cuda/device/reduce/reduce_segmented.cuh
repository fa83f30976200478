// The segmented form of rungs 0-7: one generic kernel into which a rung plugs
// its tile reduction (reduce_common.cuh). Records start at each lane's
// identity (an init kernel, bounds_segmented.cu); each block takes one tile
// of the flat array and combines every run of equal ids in it into the run's
// record by atomics, so a segment spanning tiles needs no second pass.
//   short runs  one thread each, serially;
//   warp runs   (rungs with shuffles, kWarpRuns) runs of KD_REDUCE_WARP_MIN_RUN
//               or more that do not fill the tile: a warp each, by shuffles;
//   long runs   the rung's own tile reduction, one run after another (with
//               kWarpRuns only a run that fills the tile is left for it).
#ifndef KD_REDUCE_SEGMENTED_CUH
#define KD_REDUCE_SEGMENTED_CUH

#include "reduce_common.cuh"
#include "warp_reduce.cuh"

namespace kdr {

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

// Runs from this length up are long: reduced by more than one thread.
template <class Rung>
__host__ __device__ constexpr unsigned long_run()
{
    return Rung::kWarpRuns ? KD_REDUCE_WARP_MIN_RUN : KD_REDUCE_SHORT_RUN;
}

// Elements a thread loads at once while it reduces a short run.
template <int K>
__host__ __device__ constexpr unsigned short_batch()
{
    return K == 1 ? KD_REDUCE_SHORT_BATCH_ONE_LANE : KD_REDUCE_SHORT_BATCH_SIX_LANES;
}

template <int K, unsigned OPS>
__device__ __forceinline__ void add_to_record(float *records, uint32_t seg, const float (&v)[K])
{
#pragma unroll
    for (int k = 0; k < K; k++)
        lane_atomic<OPS>(k, &records[(size_t)seg * K + k], v[k]);
}

// One thread reduces the short run [first, end) of the tile and adds it to
// its record. Loads are issued short_batch at a time: one after another, a
// run cut short by the tile's edge cost a load latency per element, and the
// slowest tile sets the kernel's time.
template <int K, unsigned OPS>
__device__ __forceinline__ void reduce_short_run(const InLanes &in, size_t begin, unsigned first,
                                                 unsigned end, uint32_t seg, float *records)
{
    float v[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        v[k] = lane_identity<OPS>(k);
    constexpr unsigned kShortBatch = short_batch<K>();
    for (unsigned j0 = first; j0 < end; j0 += kShortBatch) {
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
    add_to_record<K, OPS>(records, seg, v);
}

// Each run's head classifies it: short runs are reduced here, long ones are
// listed in s_long. Ids are sorted, so a run is long when the id long_run - 1
// places on is still its own (one look, not a walk); only a short run's end
// is sought.
template <class Rung, int K, unsigned OPS>
__device__ __forceinline__ void reduce_short_runs(const InLanes &in, size_t begin, unsigned count,
                                                  const uint32_t *s_ids, uint32_t num_segments,
                                                  float *records, uint32_t *s_long, unsigned &s_num_long)
{
    constexpr unsigned kLong = long_run<Rung>();
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) {
        const uint32_t seg = s_ids[i];
        if (i > 0 && s_ids[i - 1] == seg)
            continue;
        const bool is_long = i + kLong - 1 < count && s_ids[i + kLong - 1] == seg;
        if (!is_long) {
            unsigned end = i + 1;
            while (end < count && s_ids[end] == seg)
                end++;
            if (seg < num_segments)
                reduce_short_run<K, OPS>(in, begin, i, end, seg, records);
        } else {
            s_long[atomicAdd(&s_num_long, 1u)] = i;
        }
    }
}

// The long runs that do not fill the tile (the builder's deeper levels: nodes
// of a few hundred references), a warp each, side by side, by shuffles.
template <int K, unsigned OPS>
__device__ __forceinline__ void reduce_warp_runs(const InLanes &in, size_t begin, unsigned count,
                                                 const uint32_t *s_ids, uint32_t num_segments,
                                                 float *records, const uint32_t *s_long, unsigned num_long)
{
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
        kd_warp_reduce_down<KD_WARP_THREADS>(v, LaneOps<OPS>());
        const uint32_t seg = s_ids[run_begin];
        if (lane == 0 && seg < num_segments)
            add_to_record<K, OPS>(records, seg, v);
    }
}

// The other long runs go one after another through the rung's tile reduction.
// With kWarpRuns only a run that fills the tile is left: the tile's only long
// run, from its start (no search needed to skip the rest).
template <class Rung, int K, unsigned OPS>
__device__ __forceinline__ void reduce_block_runs(const InLanes &in, size_t begin, unsigned count,
                                                  const uint32_t *s_ids, uint32_t num_segments,
                                                  float *records, const uint32_t *s_long, unsigned num_long,
                                                  const TileWork &work)
{
    bool first = true;
    for (unsigned r = 0; r < num_long; r++) {
        const unsigned run_begin = s_long[r];
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
        if (threadIdx.x == 0 && seg < num_segments)
            add_to_record<K, OPS>(records, seg, result);
    }
}

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

    reduce_short_runs<Rung, K, OPS>(in, begin, count, s_ids, num_segments, records, s_long, s_num_long);
    __syncthreads();
    const unsigned num_long = s_num_long;
    if (Rung::kWarpRuns)
        reduce_warp_runs<K, OPS>(in, begin, count, s_ids, num_segments, records, s_long, num_long);
    TileWork work{rung_smem, gscratch ? gscratch + (size_t)blockIdx.x * blockDim.x : nullptr,
                  gstride};
    reduce_block_runs<Rung, K, OPS>(in, begin, count, s_ids, num_segments, records, s_long, num_long, work);
}

// ---- Host side --------------------------------------------------------------
template <class Rung, int K>
size_t segmented_smem_bytes(int block_size)
{
    const size_t tile = (size_t)Rung::items_per_thread(K) * block_size;
    return Rung::smem_bytes(K, block_size) + tile * sizeof(uint32_t) +
           (tile / long_run<Rung>() + 1) * sizeof(uint32_t); // long-run starts
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
cudaError_t launch_segmented_shape(const SegArgs &a, cudaStream_t stream)
{
    switch (a.shape) {
    case KD_REDUCE_SHAPE_MIN: return launch_segmented_k<Rung, 1, kOpsMin>(a, stream);
    case KD_REDUCE_SHAPE_MAX: return launch_segmented_k<Rung, 1, kOpsMax>(a, stream);
    case KD_REDUCE_SHAPE_BOUNDS: return launch_segmented_k<Rung, 6, kOpsBounds>(a, stream);
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

} // namespace kdr

#endif
