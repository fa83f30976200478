// Reduce5: warp shuffles: after Reduce4's two-element load, warps reduce in registers with
// __shfl_down_sync and one shared-memory step joins the warps, replacing the shared-memory tree.
// (Segmented, shuffles also let a warp reduce a run alone: runs of 4 or more short of a tile take a warp each.)
#include "reduce_5_shuffle.cuh"

namespace kdr {

template <int BLOCK>
struct Rung5 {
    static constexpr int kMaxThreads = BLOCK;
    static constexpr bool kWarpRuns = true;
    __host__ __device__ static constexpr int items_per_thread(int) { return 2; }
    __host__ __device__ static constexpr size_t smem_bytes(int, int) { return 0; }

    template <int K, unsigned OPS>
    __device__ static void reduce_tile(const InLanes &in, size_t begin, unsigned count,
                                       const TileWork &, float (&result)[K])
    {
        const unsigned id = threadIdx.x;
        float r_value[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const float a = id < count ? in.p[k][begin + id] : lane_identity<OPS>(k);
            const float b = id + BLOCK < count ? in.p[k][begin + id + BLOCK] : lane_identity<OPS>(k);
            r_value[k] = lane_op<OPS>(k, a, b);
        }
        block_reduce_shuffle<K, OPS, BLOCK>(r_value);
        if (id == 0) {
#pragma unroll
            for (int k = 0; k < K; k++)
                result[k] = r_value[k];
        }
    }
};

RungTraits reduce5_traits(int lanes, int) { return {Rung5<256>::items_per_thread(lanes), false}; }
cudaError_t reduce5_pass(const PassArgs &a, cudaStream_t s) { return launch_pass_block<Rung5>(a, s); }
cudaError_t reduce5_segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_block<Rung5>(a, s); }

} // namespace kdr
