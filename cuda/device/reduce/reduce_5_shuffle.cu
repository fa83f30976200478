// Reduce5: this version reduces by warp shuffles instead of a shared-memory tree.
//
// After Reduce4's two-element load each warp reduces in registers and one
// shared-memory step joins the warps (block_reduce.cuh).
//
// Segmented, the shuffles also let one warp reduce a run alone: runs of
// KD_REDUCE_WARP_MIN_RUN or more short of a tile take a warp each
// (reduce_segmented.cuh), where Reduce4 gave a run under 32 to one thread
// and any longer one to the whole block.
#include "reduce_segmented.cuh"

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
        block_result<BLOCK, K, OPS>(r_value, result);
    }
};

namespace {
RungTraits traits(int lanes, int) { return {Rung5<256>::items_per_thread(lanes), false}; }
cudaError_t pass(const PassArgs &a, cudaStream_t s) { return launch_pass_block<Rung5>(a, s); }
cudaError_t segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_block<Rung5>(a, s); }
} // namespace

const RungEntry reduce5_rung = {traits, pass, nullptr, segmented};

} // namespace kdr
