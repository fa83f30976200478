// Reduce7: this version has each thread reduce many elements, striding over the input.
//
// Reduce6 gave each block one tile, so a large input took a pass of many
// blocks and further passes over their values. Here a grid of at most as
// many blocks as the GPU holds at once strides over tiles of V 16-byte loads
// a thread, all in flight before any is used (reduce_stride.cuh), and one
// second launch of a single block reduces the blocks' values.
//
// Segmented, a block still takes exactly one tile (reduce_segmented.cuh): the
// many elements a thread are a tile of V vectors a thread instead of one.
#include "block_load_store.cuh"
#include "reduce_segmented.cuh"
#include "reduce_stride.cuh"

namespace kdr {

// The segmented form's tile reduction: Reduce6's with V vectors a thread.
template <int BLOCK>
struct Rung7 {
    static constexpr int kMaxThreads = BLOCK;
    static constexpr bool kWarpRuns = true;
    __host__ __device__ static constexpr int items_per_thread(int lanes)
    {
        return 4 * (lanes == 1 ? KD_REDUCE_VECS_ONE_LANE : KD_REDUCE_VECS_SIX_LANES);
    }
    __host__ __device__ static constexpr size_t smem_bytes(int, int) { return 0; }

    template <int K, unsigned OPS>
    __device__ static void reduce_tile(const InLanes &in, size_t begin, unsigned count,
                                       const TileWork &, float (&result)[K])
    {
        constexpr int V = vec_items<K>();
        const size_t end = begin + count;
        const bool full = count == 4u * V * BLOCK;
        float r_value[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const bool aligned = reinterpret_cast<uintptr_t>(in.p[k] + begin) % 16 == 0;
            float x[V][4];
            kd_block_load_striped<BLOCK, V>(in.p[k], begin, end, full && aligned, x,
                                            kd_fill_value<float>{lane_identity<OPS>(k)});
            r_value[k] = lane_identity<OPS>(k);
#pragma unroll
            for (int j = 0; j < V; j++)
                r_value[k] = lane_op<OPS>(k, r_value[k], lane_op<OPS>(k, lane_op<OPS>(k, x[j][0], x[j][1]),
                                                                     lane_op<OPS>(k, x[j][2], x[j][3])));
        }
        block_result<BLOCK, K, OPS>(r_value, result);
    }
};

namespace {
RungTraits traits(int lanes, int) { return {Rung7<256>::items_per_thread(lanes), false}; }
cudaError_t segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_block<Rung7>(a, s); }
const StrideRung stride = {stride_temp_bytes<false>, stride_run_any<false>};
} // namespace

const RungEntry reduce7_rung = {traits, nullptr, &stride, segmented};

} // namespace kdr
