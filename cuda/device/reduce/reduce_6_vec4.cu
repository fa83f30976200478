// Reduce6: this version loads each thread's elements as one 16-byte vector instead of two floats.
//
// A thread takes four consecutive elements (a tile of 4 x block), read by one
// float4 load where the tile is whole and the lane's start 16-byte aligned,
// element by element otherwise (block_load_store.cuh); then Reduce5's block
// reduction. Segmented as Reduce5: the vector load serves the runs that fill
// a tile.
#include "block_load_store.cuh"
#include "reduce_segmented.cuh"

namespace kdr {

template <int BLOCK>
struct Rung6 {
    static constexpr int kMaxThreads = BLOCK;
    static constexpr bool kWarpRuns = true;
    __host__ __device__ static constexpr int items_per_thread(int) { return 4; }
    __host__ __device__ static constexpr size_t smem_bytes(int, int) { return 0; }

    template <int K, unsigned OPS>
    __device__ static void reduce_tile(const InLanes &in, size_t begin, unsigned count,
                                       const TileWork &, float (&result)[K])
    {
        const size_t end = begin + count;
        const bool full = count == 4u * BLOCK;
        float r_value[K];
#pragma unroll
        for (int k = 0; k < K; k++) {
            const bool aligned = reinterpret_cast<uintptr_t>(in.p[k] + begin) % 16 == 0;
            float x[1][4];
            kd_block_load_striped<BLOCK, 1>(in.p[k], begin, end, full && aligned, x,
                                            kd_fill_value<float>{lane_identity<OPS>(k)});
            r_value[k] = lane_op<OPS>(k, lane_op<OPS>(k, x[0][0], x[0][1]), lane_op<OPS>(k, x[0][2], x[0][3]));
        }
        block_result<BLOCK, K, OPS>(r_value, result);
    }
};

namespace {
RungTraits traits(int lanes, int) { return {Rung6<256>::items_per_thread(lanes), false}; }
cudaError_t pass(const PassArgs &a, cudaStream_t s) { return launch_pass_block<Rung6>(a, s); }
cudaError_t segmented(const SegArgs &a, cudaStream_t s) { return launch_segmented_block<Rung6>(a, s); }
} // namespace

const RungEntry reduce6_rung = {traits, pass, nullptr, segmented};

} // namespace kdr
